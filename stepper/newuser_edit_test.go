package stepper_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/stretchr/testify/assert"
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
