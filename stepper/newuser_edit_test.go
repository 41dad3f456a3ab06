package stepper_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new user edits the world between steps through its exported fields:
// a body's pose, a geom's shape or material. The next step sees the edit
// (collision reuse and contact caches are keyed by what they depend on),
// with sleeping on (DefaultSettings) and off.
func TestNewUserEditsBetweenSteps(t *testing.T) {
	for _, sleep := range []bool{true, false} {
		t.Run(fmt.Sprintf("teleport/sleep=%v", sleep), func(t *testing.T) {
			// A resting box lifted 1 m falls freely: after 0.25 s
			// it has dropped g·0.25²/2 (semi-implicit Euler: g h² n(n+1)/2).
			w := nuWorld(t, 0)
			w.Settings.Sleep.On = sleep
			bs := nuStack(t, w, 1)
			_, _ = nuStep(t, w, 60)
			bs[0].Pos = bs[0].Pos.Add(mgl64.Vec3{0, 0, 1})
			_, _ = nuStep(t, w, 15)
			h := w.Settings.H
			want := 1.1 - 9.81*h*h*15*16/2
			t.Logf("sleep %v: lifted box at z %.6f after 15 steps, free fall %.6f", sleep, bs[0].Pos[2], want)
			assert.InDelta(t, want, bs[0].Pos[2], 1e-9)
		})
		t.Run(fmt.Sprintf("grow/sleep=%v", sleep), func(t *testing.T) {
			// A resting 0.2 m box grown to 0.4 m (its inertia with
			// it) rests at 0.2 m within 1 s.
			w := nuWorld(t, 0)
			w.Settings.Sleep.On = sleep
			bs := nuStack(t, w, 1)
			_, _ = nuStep(t, w, 60)
			w.Geoms[1].Shape.Size = mgl64.Vec3{0.4, 0.4, 0.4}
			bs[0].Inertia = body.BoxInertia(1, 0.4, 0.4, 0.4)
			w.Wake(0) // a geom's change is one Step does not look at (Sleep)
			_, st := nuStep(t, w, 1)
			z1 := bs[0].Pos[2]
			_, _ = nuStep(t, w, 59)
			t.Logf("sleep %v: grown box at z %.6f after 1 step (error %.2e), %.6f after 1 s", sleep, z1, st.MaxViolation, bs[0].Pos[2])
			assert.InDelta(t, 0.2, bs[0].Pos[2], 1e-3)
		})
		t.Run(fmt.Sprintf("friction/sleep=%v", sleep), func(t *testing.T) {
			// A box stuck on a 30° incline (μ 0.7) made frictionless
			// slides at g sin θ.
			w := nuWorld(t, 0)
			w.Settings.Sleep.On = sleep
			b, down := nuInclineBox(t, w, math.Pi/6, 0.7)
			_, _ = nuStep(t, w, 60)
			for i := range w.Geoms {
				w.Geoms[i].Material.Friction = 0
			}
			w.Wake(0)
			_, _ = nuStep(t, w, 30)
			v := b.Vel.Dot(down)
			want := 9.81 * 0.5 * 0.5
			t.Logf("sleep %v: after 0.5 s frictionless the box slides at %.5f m/s, g sin θ t = %.5f", sleep, v, want)
			assert.InDelta(t, want, v, 0.005*want)
		})
	}
}

// A joint added mid-run from a sleeping box to a new body wakes the box:
// a 1 kg ball held 0.5 m above the sleeping box's top centre by a distance
// joint (a rigid rod) stays there, the box taking its weight; and gravity
// changed mid-run wakes a sleeping box, which slides with the new gravity's
// Coulomb acceleration.
func TestNewUserWakeByJointAndGravity(t *testing.T) {
	t.Run("joint", func(t *testing.T) {
		w := nuWorld(t, 0)
		bs := nuStack(t, w, 1)
		_, _ = nuStep(t, w, 60)
		require.True(t, w.Asleep(0))
		ball, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.05), Pos: mgl64.Vec3{0, 0, 0.7}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		ib, err := w.AddBody(ball)
		require.NoError(t, err)
		rod, err := constraint.NewDistance(w.Bodies, 0, ib, mgl64.Vec3{0, 0, 0.2}, mgl64.Vec3{0, 0, 0.7}, 0.5)
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(rod))
		_, st := nuStep(t, w, 60)
		t.Logf("ball at z %.6f (want 0.7), box at z %.6f, largest error %.2e", ball.Pos[2], bs[0].Pos[2], st.MaxViolation)
		assert.InDelta(t, 0.7, ball.Pos[2], 1e-3, "the rod did not hold the ball")
		assert.InDelta(t, 0.1, bs[0].Pos[2], 1e-3)
	})
	t.Run("gravity", func(t *testing.T) {
		// Gravity (6, 0, −9.81): tan φ = 0.61 > μ = 0.5, so the box
		// slides along x at 6 − μ 9.81 = 1.095 m/s².
		w := nuWorld(t, 0)
		bs := nuStack(t, w, 1)
		_, _ = nuStep(t, w, 60)
		require.True(t, w.Asleep(0))
		w.Settings.Gravity = mgl64.Vec3{6, 0, -9.81}
		_, _ = nuStep(t, w, 60)
		want := 6 - 0.5*9.81
		t.Logf("after 1 s of the new gravity the box slides at %.5f m/s, analytic %.5f", bs[0].Vel[0], want)
		assert.InDelta(t, want, bs[0].Vel[0], 0.005*want)
	})
}

// The step and a body's mass changed mid-run (the warm starts, the
// coherent centre and the sleep timer all carry the last step's h, the
// assembly the last masses): a settled five-box stack stepped 30 times
// each at h = 1/240, 1/30, 1/60 and 1 ms stays within 1e-9 m of its
// heights, awake or asleep; its top box made ten times heavier (Wake, as
// Sleep says for a mass) stays within 1 µm; a falling box's speed after
// 10 steps of 10 ms and 10 of 20 ms is g·0.3 s.
func TestNewUserStepAndMassChanged(t *testing.T) {
	for _, sleep := range []bool{false, true} {
		w := nuWorld(t, 0)
		w.Settings.Sleep.On = sleep
		bs := nuStack(t, w, 5)
		_, _ = nuStep(t, w, 60)
		for _, h := range []float64{1.0 / 240, 1.0 / 30, 1.0 / 60, 0.001} {
			w.Settings.H = h
			_, _ = nuStep(t, w, 30)
		}
		dz := 0.0
		for i, b := range bs {
			dz = math.Max(dz, math.Abs(b.Pos[2]-0.1-0.2*float64(i)))
		}
		bs[4].Mass, bs[4].Inertia = 10, body.BoxInertia(10, 0.2, 0.2, 0.2)
		w.Wake(4)
		_, _ = nuStep(t, w, 60)
		dm := 0.0
		for i, b := range bs {
			dm = math.Max(dm, math.Abs(b.Pos[2]-0.1-0.2*float64(i)))
		}
		t.Logf("sleep %v: height error after the step changes %.2e m, after the mass change %.2e m", sleep, dz, dm)
		assert.Less(t, dz, 1e-9)
		assert.Less(t, dm, 1e-6)
	}
	w := nuWorld(t, 0)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 10}, mgl64.QuatIdent(), 0.5)
	w.Settings.H = 0.01
	_, _ = nuStep(t, w, 10)
	w.Settings.H = 0.02
	_, _ = nuStep(t, w, 10)
	assert.InDelta(t, -9.81*0.3, b.Vel[2], 1e-12)
	assert.InDelta(t, 0.3, w.Time(), 1e-12)
}
