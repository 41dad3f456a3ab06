package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// Extent: the box of a 0.4 × 0.2 × 0.1 m box at 200 random poses is the
// box of its eight posed corners, grown by the margin, to 1e-12 m (the
// rounding of |R| h sums of terms below 1 m); and one Extent padded by
// several margins gives Bounds' bits at each, for a box, sphere, capsule,
// cylinder, convex hull and plane (the contract geomBounds relies on when
// it pads one pose by the projection's margin and the look-ahead). An
// invalid pose gives the empty box at every margin.
func TestExtentPadded(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 9))
	box := Shape{Kind: Box, Size: mgl64.Vec3{0.4, 0.2, 0.1}}
	hull, err := NewConvex([]mgl64.Vec3{{0, 0, 0}, {0.3, 0, 0}, {0, 0.2, 0}, {0, 0, 0.1}, {0.1, 0.1, 0.1}}, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	shapes := []Shape{box, {Kind: Sphere, Radius: 0.1}, {Kind: Capsule, Radius: 0.05, Length: 0.3},
		{Kind: Cylinder, Radius: 0.05, Length: 0.3}, hull, {Kind: Plane}}
	for k := range 200 {
		axis := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize()
		p := Pose{Pos: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}, Rot: mgl64.QuatRotate(r.Float64()*6, axis)}
		if k%50 == 0 {
			p.Rot = mgl64.QuatIdent() // the plane bounded on its solid side
		}
		m := r.Float64() * 0.01
		got := box.Extent(p).Padded(m)
		lo, hi := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, mgl64.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for i := range 8 {
			c := p.Apply(mgl64.Vec3{0.2 * float64(2*(i&1)-1), 0.1 * float64(2*(i>>1&1)-1), 0.05 * float64(2*(i>>2&1)-1)})
			for a := range 3 {
				lo[a], hi[a] = math.Min(lo[a], c[a]-m), math.Max(hi[a], c[a]+m)
			}
		}
		for a := range 3 {
			if math.Abs(got.Min[a]-lo[a]) > 1e-12 || math.Abs(got.Max[a]-hi[a]) > 1e-12 {
				t.Fatalf("pose %d: box %v, corners' %v–%v", k, got, lo, hi)
			}
		}
		for si, s := range shapes {
			e := s.Extent(p)
			for _, mm := range []float64{0, m, 0.003, m + 0.2} {
				want, have := s.Bounds(p, mm), e.Padded(mm)
				for a := range 3 {
					if math.Float64bits(want.Min[a]) != math.Float64bits(have.Min[a]) || math.Float64bits(want.Max[a]) != math.Float64bits(have.Max[a]) {
						t.Fatalf("pose %d, shape %d, margin %g: Padded %v, Bounds %v", k, si, mm, have, want)
					}
				}
			}
		}
	}
	bad := Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}
	for _, mm := range []float64{0, 0.1} {
		if b := box.Extent(bad).Padded(mm); !(b.Min[0] > b.Max[0]) || !math.IsInf(b.Min[0], 1) {
			t.Errorf("invalid pose, margin %g: box %v, want the empty box", mm, b)
		}
	}
	if b := (Shape{Kind: Plane}).Extent(IdentityPose()).Padded(0.01); b.Max[2] != 0.01 || b.Min[2] != -PlaneExtent {
		t.Errorf("ground plane's box %v, want Max.z = 0.01, Min.z = −PlaneExtent", b)
	}
}
