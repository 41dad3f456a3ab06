package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slope is a DefaultSettings world whose ground is tilted by th about
// its level line, which runs at deg from x (evDir): axis is the level
// line, n the slope's normal, down the direction down the slope, rot
// turns the floor onto the slope and crot lays a body's z axis along the
// level line on it.
type slope struct {
	w             *stepper.World
	axis, n, down mgl64.Vec3
	rot, crot     mgl64.Quat
}

// newSlope builds an incline (th and deg in rad and degrees, μ mu).
func newSlope(t testing.TB, th, deg, mu float64) slope {
	t.Helper()
	axis := mgl64.Vec3{0, 0, 1}.Cross(evDir(deg)) // the level line
	rot := mgl64.QuatRotate(th, axis)
	w := nuWorld(t, 0)
	ground(t, w, rot, mu)
	n := rot.Rotate(mgl64.Vec3{0, 0, 1})
	down := n.Cross(axis)
	if down[2] > 0 {
		down = down.Mul(-1)
	}
	return slope{w: w, rot: rot, axis: axis, n: n, down: down,
		crot: rot.Mul(mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, rot.Conjugate().Rotate(axis)))}
}

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
		sl := newSlope(t, th, deg, mu)
		w, n, down := sl.w, sl.n, sl.down
		b := addShapeBody(t, w, s, m, in, n.Mul(r), sl.crot, mu)
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

// A 0.2 m box (1 kg, e = 0.5, μ = 0.5) dropped flat from 0.4 m onto an
// equal box resting on the floor (DefaultSettings, h = 1/60 s): under the
// default SimultaneousImpacts the resting box and the floor act as one, so
// the dropped box bounces to e² · 0.4 = 0.1 m and then e⁴ · 0.4 = 0.025 m
// (each apex to within the steps' sampling of it, g h²/8), leaves without
// spin, and the box below stays where it rests. The resting box is
// supported (markSupported), so bounceStep's law is on the falling box's
// energy under gravity, as on the floor; shiftBounces does not move the
// resting box, which the floor holds.
func TestEverydayBoxBouncesOnRestingBox(t *testing.T) {
	const e, drop, side, g = 0.5, 0.4, 0.2, 9.81
	w := nuWorld(t, 0)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	size := mgl64.Vec3{side, side, side}
	rest := mgl64.Vec3{0, 0, side / 2}
	lower := addBox(t, w, 1, size, rest, mgl64.QuatIdent(), 0.5)
	w.Geoms[len(w.Geoms)-1].Material.Restitution = e
	low := 1.5 * side // the upper box's centre at rest on the lower
	upper := addBox(t, w, 1, size, mgl64.Vec3{0, 0, low + drop}, mgl64.QuatIdent(), 0.5)
	w.Geoms[len(w.Geoms)-1].Material.Restitution = e
	var apexes []float64
	top, rising, spin, moved := 0.0, false, 0.0, 0.0
	for i := 0; i < 60; i++ {
		_, _ = nuStep(t, w, 1)
		spin = math.Max(spin, upper.AngVel.Len())
		moved = math.Max(moved, lower.Pos.Sub(rest).Len())
		if upper.Vel[2] > 0 {
			rising, top = true, math.Max(top, upper.Pos[2]-low)
		} else if rising {
			apexes, rising, top = append(apexes, top), false, 0
		}
	}
	h := w.Settings.H
	tol := g * h * h / 8
	require.GreaterOrEqual(t, len(apexes), 1)
	t.Logf("apexes %.5f m (e² · 0.4 = 0.1; g h²/8 = %.1e), largest spin %.1e rad/s, lower box moved %.1e m", apexes, tol, spin, moved)
	require.GreaterOrEqual(t, len(apexes), 2)
	assert.Less(t, moved, 1e-6, "the resting box stays (8.4e-10 m)")
	assert.Less(t, spin, 1e-6, "no spin (3.8e-14 rad/s)")
	assert.GreaterOrEqual(t, apexes[1], e*e*e*e*drop-1e-6)
	assert.LessOrEqual(t, apexes[1], e*e*e*e*drop+tol+1e-6)
	assert.GreaterOrEqual(t, apexes[0], e*e*drop-1e-6)
	assert.LessOrEqual(t, apexes[0], e*e*drop+tol+1e-6)
}
