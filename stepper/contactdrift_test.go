package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dynTurntable is a DefaultSettings world at h = 1/60 s with a dynamic
// table on a hinge to the world about z, turning at om: a 4 m × 4 m ×
// 0.1 m box of 50 kg driven by a motor (unbounded torque) when motor, else
// a 1000 kg disc of radius 2 m spinning freely; and a 1 kg, 0.2 m box
// riding on it at radius r (μ = 0.5), moving with it.
func dynTurntable(t *testing.T, om, r float64, motor bool) (*stepper.World, *body.Body, *body.Body) {
	t.Helper()
	w := nuWorld(t, 0)
	var table *body.Body
	if motor {
		table = addBox(t, w, 50, mgl64.Vec3{4, 4, 0.1}, mgl64.Vec3{0, 0, -0.05}, mgl64.QuatIdent(), 0.5)
	} else {
		table = addCylinder(t, w, 1000, 2, 0.05, mgl64.Vec3{0, 0, -0.05}, mgl64.QuatIdent(), 0.5)
	}
	table.AngVel = mgl64.Vec3{0, 0, om}
	hinge, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{0, 0, -0.05}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	if motor {
		require.NoError(t, hinge.SetMotor(om, math.Inf(1)))
	}
	require.NoError(t, w.AddConstraint(hinge))
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{r, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	b.Vel, b.AngVel = mgl64.Vec3{0, om * r, 0}, mgl64.Vec3{0, 0, om}
	return w, table, b
}

// A box riding a dynamic turntable at ω = 2 rad/s, r = 0.5 m (ω²r = 2
// m/s² < μg: friction holds it) goes round at 0.5 m, on a table driven by
// a hinge motor and on a heavy disc spinning freely, as on a kinematic
// one (TestNewUserTurntable): the friction rows of two bodies turning
// together carry the arc of the box's centre about the table's
// (ContactInfo.SetDrift). Before, only a kinematic table's contacts had
// the drift and the box went out along its tangent, r growing by
// (hω)²/2 a step: 0.5 → 0.5906 m in 5 s at h = 1/60 s on both tables
// (measured), and the free disc slowed to 1.999902 rad/s, its angular
// momentum shared with the box moving out.
func TestContactDriftCarrier(t *testing.T) {
	const om, r, h = 2.0, 0.5, 1.0 / 60
	for _, motor := range []bool{true, false} {
		w, table, b := dynTurntable(t, om, r, motor)
		rMin, rMax := r, r
		for i := 0; i < 300; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			rr := math.Hypot(b.Pos[0], b.Pos[1])
			rMin, rMax = math.Min(rMin, rr), math.Max(rMax, rr)
		}
		chord := om * r * math.Sin(h*om/2) / (h * om / 2)
		t.Logf("motor %v: radius %.9f–%.9f m over 5 s, speed %.9f m/s (chord %.9f), table ω %.9f rad/s",
			motor, rMin, rMax, b.Vel.Len(), chord, table.AngVel[2])
		// 1e-7: the solve's tolerance on the friction rows (10⁻⁶ of
		// max|b|, 1 m/s), h of it a step over 300 steps (measured 3e-9 m
		// and 5e-9 m/s with the motor, 1e-9 m free); before, +0.0906 m.
		assert.InDelta(t, r, rMax, 1e-7)
		assert.InDelta(t, r, rMin, 1e-7)
		assert.InDelta(t, chord, b.Vel.Len(), 1e-7)
		// The free disc keeps its speed: the box's radius does not change
		// (1e-7 m moves ω by 1e-10), the rest is the solve's tolerance
		// on its hinge and friction rows, 10⁻⁶ (measured 4.6e-8).
		assert.InDelta(t, om, table.AngVel[2], 1e-6)
	}
}

// SetDrift's drift for two bodies turning together at ω is M(ω)(x_A −
// x_B) with M(ω) d = exp(hω) d − d − h ω×d, here about z, worked out
// with sines and cosines (with a slip h|w| ≤ 2|M| at the point: held);
// it is zero against the world or a static body, when the two do not
// turn together (|ω_B − ω_A| ≥ the slower's |ω|), when the contact
// slides, below the round-off of that vector (a pile at rest), on bad
// indices and non-finite velocities.
func TestContactDriftCases(t *testing.T) {
	const h = 1.0 / 60
	// B at (0.5, 0, 0.1) moves with A's turn, ω_A × x_B (held), but
	// for the relative velocity vb.
	mk := func(wa, wb mgl64.Vec3, static bool, vb mgl64.Vec3) []*body.Body {
		a, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3(), Rot: mgl64.QuatIdent(), AngVel: wa})
		require.NoError(t, err)
		xb := mgl64.Vec3{0.5, 0, 0.1}
		p := body.Params{Mass: 1, Inertia: mgl64.Ident3(), Pos: xb, Rot: mgl64.QuatIdent(), AngVel: wb, Vel: wa.Cross(xb).Add(vb), Static: static}
		if static {
			p.Vel, p.AngVel = mgl64.Vec3{}, mgl64.Vec3{}
		}
		b, err := body.New(p)
		require.NoError(t, err)
		return []*body.Body{a, b}
	}
	drift := func(bodies []*body.Body, a, b int) mgl64.Vec3 {
		c := stepper.ContactInfo{A: a, B: b, Point: mgl64.Vec3{0.5, 0, 0}, Normal: mgl64.Vec3{0, 0, 1}, Drift: mgl64.Vec3{1, 1, 1}}
		c.SetDrift(bodies, h)
		return c.Drift
	}
	const om = 2.0
	th := h * om
	// d = x_A − x_B = (−0.5, 0, −0.1): exp(hω) d − d − h ω×d.
	want := mgl64.Vec3{-0.5*math.Cos(th) + 0.5, -0.5*math.Sin(th) + 0.5*th, 0}
	z := mgl64.Vec3{0, 0, om}
	got := drift(mk(z, z, false, mgl64.Vec3{}), 0, 1)
	t.Logf("turning together at 2 rad/s: drift %.6g (½h²ω²·0.5 = %.6g)", got, 0.5*th*th*0.5)
	// 2e-16 m: the round-off of exp(hω) d − d, ε|d| for |d| ≈ 0.5 m.
	for k := range want {
		assert.InDelta(t, want[k], got[k], 2e-16)
	}
	// Slower carries: B at 1.5 rad/s, A at 2 (|ω_B − ω_A| = 0.5 < 1.5).
	got = drift(mk(z, mgl64.Vec3{0, 0, 1.5}, false, mgl64.Vec3{}), 0, 1)
	assert.InDelta(t, 0.5*(1-math.Cos(1.5*h)), got[0], 2e-16)
	nan := mk(z, z, false, mgl64.Vec3{})
	nan[0].AngVel[0], nan[1].AngVel[0] = math.NaN(), math.NaN()
	for _, c := range []struct {
		name   string
		bodies []*body.Body
		a, b   int
	}{
		{"world", mk(z, z, false, mgl64.Vec3{}), constraint.World, 1},
		{"static", mk(z, z, true, mgl64.Vec3{}), 0, 1},
		{"not together", mk(mgl64.Vec3{0, 0, 0.5}, z, false, mgl64.Vec3{}), 0, 1},
		{"rolling", mk(mgl64.Vec3{}, mgl64.Vec3{0, 7, 0}, false, mgl64.Vec3{}), 0, 1},
		// Sliding at 0.05 m/s: h|w| = 8e-4 m > 2|M| = 5.6e-4 m.
		{"sliding", mk(z, z, false, mgl64.Vec3{0, 0.05, 0}), 0, 1},
		{"at rest", mk(mgl64.Vec3{1e-9, 0, 0}, mgl64.Vec3{1e-9, 0, 0}, false, mgl64.Vec3{}), 0, 1},
		{"index", mk(z, z, false, mgl64.Vec3{}), 0, 5},
		{"NaN", nan, 0, 1},
	} {
		assert.Equal(t, mgl64.Vec3{}, drift(c.bodies, c.a, c.b), c.name)
	}
}
