package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A capsule (r = 0.05 m, 0.3 m long, 1 kg) lying on its side across a 20°
// incline (μ = 0.6, DefaultSettings, h = 1/60 s) rolls from rest straight
// down it at a = g sin θ / (1 + I_a/(m r²)) without slip, its axis level:
// it rests on two contacts at the ends of its contact line, the case
// holdContacts keeps the momentum alignment from tilting. Before it
// (7e9ea1e) the capsule tilted its axis by 0.018 (slope along x) and 0.041
// (at 45°) down the slope, drifted 8 mm and 16 mm sideways, and went
// 1.4e-3 and 3.4e-4 m/s fast after 1 s.
func TestEverydayCapsuleRollsDownIncline(t *testing.T) {
	const m, r, l, mu = 1.0, 0.05, 0.3, 0.6
	th := 20 * math.Pi / 180
	s, err := contact.NewCapsuleLength(r, l)
	require.NoError(t, err)
	in := body.CapsuleInertia(m, r, l)
	for _, deg := range []float64{0, 45} {
		axis := mgl64.Vec3{0, 0, 1}.Cross(evDir(deg)) // the level line
		rot := mgl64.QuatRotate(th, axis)
		w := nuWorld(t, 0)
		ground(t, w, rot, mu)
		n := rot.Rotate(mgl64.Vec3{0, 0, 1})
		crot := rot.Mul(mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, rot.Conjugate().Rotate(axis)))
		b := addShapeBody(t, w, s, m, in, n.Mul(r), crot, mu)
		down := n.Cross(axis)
		if down[2] > 0 {
			down = down.Mul(-1)
		}
		want := evG * math.Sin(th) / (1 + in.At(2, 2)/(m*r*r))
		p0 := b.Pos
		tilt := 0.0
		for i := 0; i < 60; i++ {
			_, _ = nuStep(t, w, 1)
			tilt = math.Max(tilt, math.Abs(b.Rot.Rotate(mgl64.Vec3{0, 0, 1}).Dot(down)))
		}
		d := b.Pos.Sub(p0)
		slip := b.PointVelocity(b.Pos.Sub(n.Mul(r))).Len()
		t.Logf("slope at %v°: %.6f m/s after 1 s (analytic %.6f), slip %.1e m/s, %.1e m sideways, largest tilt %.1e, height %.6f m",
			deg, b.Vel.Dot(down), want, slip, evSide(d, down), tilt, b.Pos.Sub(p0).Dot(n)+r)
		// 1e-6: exact once rolling, up to the solver's tolerance.
		assert.InDelta(t, want, b.Vel.Dot(down), 1e-6)
		assert.Less(t, slip, 1e-6)
		assert.Less(t, evSide(d, down), 1e-6)
		assert.Less(t, tilt, 1e-6)
		assert.InDelta(t, 0, d.Dot(n), 1e-6) // on the slope
	}
}
