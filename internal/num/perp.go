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

// bodyAxisTie is how much closer to perpendicular to n (in |cos|) another
// axis must be for BodyPerp to take it over an earlier one: the rounding
// of a pose turned by any rotation moves the cosines by about 1e-16, so
// two axes equally perpendicular to n (a box's two edges on the face it
// rests on) keep their order in the body, whatever the world's axes.
const bodyAxisTie = 1e-9

// BodyPerp returns a unit vector perpendicular to the unit vector n fixed
// in the frame of the rotation q (a body's orientation): n × a / |n × a|,
// with a the one of q's three axes q·x, q·y, q·z least aligned with n
// (smallest |cos|; one closer by bodyAxisTie or less does not displace an
// earlier axis in the order x, y, z), so |n × a| ≥ √(2/3). It is Perp's p1
// with the body's axes for the world's: for q the identity the same
// choice, and the same bits. The choice depends on n and q only, so
// turning both turns the result: for a box resting on a face it lies along
// one of the box's edges. q must be a unit quaternion.
func BodyPerp(n mgl64.Vec3, q mgl64.Quat) mgl64.Vec3 {
	c := q.Conjugate().Rotate(n) // n in the body's axes: the axes' cosines
	i := 0
	for k := 1; k < 3; k++ {
		if math.Abs(c[k]) < math.Abs(c[i])-bodyAxisTie {
			i = k
		}
	}
	var e mgl64.Vec3
	e[i] = 1
	p := n.Cross(q.Rotate(e))
	return p.Mul(1 / p.Len())
}
