package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/require"
)

// CollideReach's points are Collide's at its margin, and Collide gives
// the same points, bit for bit, at every larger margin below reach: box
// pairs and boxes on a plane at random poses around touching (resting
// faces, tilted, edge on edge, separated by up to 3 cm, so that each of
// the separating-axis, edge, clip and plane-vertex tests fails in some
// case), margins from 1 mm to just below reach. A sphere pair reports
// reach = margin (nothing known beyond it). reach is also not loose: in
// at least a quarter of the cases with a finite reach, Collide at reach
// plus 1 µm gives other points (the test that set it passes there).
func TestCollideReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	box := func() Shape {
		return Shape{Kind: Box, Size: mgl64.Vec3{0.1 + 0.3*rng.Float64(), 0.1 + 0.3*rng.Float64(), 0.05 + 0.2*rng.Float64()}}
	}
	tilt := func(scale float64) mgl64.Quat {
		ax := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		return mgl64.QuatRotate(scale*rng.NormFloat64(), ax)
	}
	same := func(a, b []Point) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			p, q := a[i], b[i]
			for k := range 3 {
				if math.Float64bits(p.Pos[k]) != math.Float64bits(q.Pos[k]) || math.Float64bits(p.Normal[k]) != math.Float64bits(q.Normal[k]) {
					return false
				}
			}
			if math.Float64bits(p.Gap) != math.Float64bits(q.Gap) || p.Key != q.Key {
				return false
			}
		}
		return true
	}
	finite, changed := 0, 0
	for c := range 3000 {
		a, b := box(), box()
		pa := Pose{Pos: mgl64.Vec3{0, 0, a.Size[2] / 2}, Rot: mgl64.QuatIdent()}
		if c%3 == 0 {
			a = Shape{Kind: Plane}
			pa = IdentityPose()
		}
		lift := (a.Size[2]+b.Size[2])/2 + 0.03*rng.Float64() - 0.005
		if a.Kind == Plane {
			lift = b.Size[2]/2 + 0.03*rng.Float64() - 0.005
		}
		pb := Pose{Pos: mgl64.Vec3{0.2 * rng.NormFloat64(), 0.2 * rng.NormFloat64(), lift}, Rot: tilt([]float64{0, 0.01, 0.3}[c%3])}
		if c%2 == 0 {
			pb.Rot = mgl64.QuatIdent()
		}
		margin := 0.001 + 0.01*rng.Float64()
		got, reach := CollideReach(nil, a, pa, b, pb, margin)
		require.True(t, reach >= margin, "case %d: reach %v below margin %v", c, reach, margin)
		require.True(t, same(got, Collide(nil, a, pa, b, pb, margin)), "case %d: CollideReach's points differ from Collide's", c)
		top := math.Min(reach, margin+0.05)
		for _, m := range []float64{margin, (margin + top) / 2, math.Nextafter(top, math.Inf(-1))} {
			if m < margin || m >= reach {
				continue
			}
			require.True(t, same(got, Collide(nil, a, pa, b, pb, m)), "case %d: margin %v (reach %v from %v) gave other points", c, m, reach, margin)
		}
		if !math.IsInf(reach, 1) {
			finite++
			if !same(got, Collide(nil, a, pa, b, pb, reach+1e-6)) {
				changed++
			}
		}
	}
	require.Greater(t, finite, 300, "cases with a finite reach")
	require.GreaterOrEqual(t, 4*changed, finite, "cases whose points change just above reach")
	s := Shape{Kind: Sphere, Radius: 0.1}
	_, reach := CollideReach(nil, s, IdentityPose(), s, Pose{Pos: mgl64.Vec3{0, 0, 0.201}, Rot: mgl64.QuatIdent()}, 0.002)
	require.Equal(t, 0.002, reach, "a sphere pair: nothing known beyond margin")
	t.Logf("%d of %d cases with a finite reach change just above it", changed, finite)
}
