package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

func at(x, y, z float64) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: mgl64.QuatIdent()} }

func atRot(x, y, z, angle float64, axis mgl64.Vec3) Pose {
	return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: mgl64.QuatRotate(angle, axis.Normalize())}
}

func must(s Shape, err error) Shape {
	if err != nil {
		panic(err)
	}
	return s
}

func randQuat(r *rand.Rand) mgl64.Quat {
	for {
		q := mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}
		if l := q.Len(); l > 1e-3 {
			return q.Scale(1 / l)
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func assertVec(t *testing.T, want, got mgl64.Vec3, tol float64, what string) {
	t.Helper()
	if got.Sub(want).Len() > tol {
		t.Errorf("%s = %v, want %v (tol %g)", what, got, want, tol)
	}
}

func assertNear(t *testing.T, want, got, tol float64, what string) {
	t.Helper()
	if !near(want, got, tol) {
		t.Errorf("%s = %.15g, want %.15g (tol %g)", what, got, want, tol)
	}
}

// signedDist is a reference signed distance (m) of the world point x to
// shape s at pose p, written independently of the package's routines.
func signedDist(s Shape, p Pose, x mgl64.Vec3) float64 {
	l := p.Rot.Conjugate().Rotate(x.Sub(p.Pos)).Mul(1)
	switch s.Kind {
	case Plane:
		return l[2]
	case Sphere:
		return l.Len() - s.Radius
	case Capsule:
		z := math.Max(-s.halfLength(), math.Min(s.halfLength(), l[2]))
		return l.Sub(mgl64.Vec3{0, 0, z}).Len() - s.Radius
	case Box:
		var out, in float64 = 0, math.Inf(-1)
		for i := 0; i < 3; i++ {
			d := math.Abs(l[i]) - s.half()[i]
			out += math.Max(d, 0) * math.Max(d, 0)
			in = math.Max(in, d)
		}
		if out > 0 {
			return math.Sqrt(out)
		}
		return in
	case Cylinder:
		dr := math.Hypot(l[0], l[1]) - s.Radius
		dz := math.Abs(l[2]) - s.halfLength()
		return math.Min(math.Max(dr, dz), 0) + math.Hypot(math.Max(dr, 0), math.Max(dz, 0))
	}
	return math.NaN()
}

// checkPoints verifies the invariants every contact point must satisfy:
// finite, unit normal, Gap ≤ margin, and the two surface points
// Pos ∓ Normal·Gap/2 lie on the surfaces of a and b.
func checkPoints(t *testing.T, pts []Point, a Shape, pa Pose, b Shape, pb Pose, margin, tol float64) {
	t.Helper()
	for i, p := range pts {
		if !num.FiniteVec(p.Pos) || !num.FiniteVec(p.Normal) || !num.Finite(p.Gap) {
			t.Fatalf("point %d not finite: %+v", i, p)
		}
		if !near(p.Normal.Len(), 1, 1e-12) { // unit to rounding
			t.Errorf("point %d: |Normal| = %v", i, p.Normal.Len())
		}
		if p.Gap > margin {
			t.Errorf("point %d: Gap %v > margin %v", i, p.Gap, margin)
		}
		sa := a.Kind
		onA := p.Pos.Sub(p.Normal.Mul(p.Gap / 2))
		onB := p.Pos.Add(p.Normal.Mul(p.Gap / 2))
		if d := signedDist(a, pa, onA); !near(d, 0, tol) {
			t.Errorf("point %d (%v–%v): surface point on A at signed distance %v: %+v", i, sa, b.Kind, d, p)
		}
		if d := signedDist(b, pb, onB); !near(d, 0, tol) {
			t.Errorf("point %d (%v–%v): surface point on B at signed distance %v: %+v", i, sa, b.Kind, d, p)
		}
	}
}
