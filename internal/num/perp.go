package num

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The two perpendicular-vector functions below choose differently, and
// both choices are kept: contact friction directions and joint rows are
// built on Perp, the collision routines' degenerate-case normals and rim
// directions on AnyPerp. Replacing one by the other would move the bits of
// every simulation that reaches those cases.

// Perp returns two unit vectors p1, p2 with (p1, p2, n) a right-handed
// orthonormal basis, for unit n: p1 = n × e / |n × e| with e the
// coordinate axis along n's smallest component (ties to x, then y), and
// p2 = n × p1. The choice depends only on n.
func Perp(n mgl64.Vec3) (p1, p2 mgl64.Vec3) {
	e := mgl64.Vec3{1, 0, 0}
	if math.Abs(n[1]) < math.Abs(n[0]) && math.Abs(n[1]) <= math.Abs(n[2]) {
		e = mgl64.Vec3{0, 1, 0}
	} else if math.Abs(n[2]) < math.Abs(n[0]) {
		e = mgl64.Vec3{0, 0, 1}
	}
	p1 = n.Cross(e)
	p1 = p1.Mul(1 / p1.Len())
	return p1, n.Cross(p1)
}

// AnyPerp returns a unit vector perpendicular to the unit vector a: the x
// axis made perpendicular to a (Gram–Schmidt) when |a_x| < 0.57735 (about
// 1/√3), else the y axis. The choice depends only on a.
func AnyPerp(a mgl64.Vec3) mgl64.Vec3 {
	var p mgl64.Vec3
	if math.Abs(a[0]) < 0.57735 {
		p = mgl64.Vec3{1, 0, 0}.Sub(a.Mul(a[0]))
	} else {
		p = mgl64.Vec3{0, 1, 0}.Sub(a.Mul(a[1]))
	}
	return p.Normalize()
}
