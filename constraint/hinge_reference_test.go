package constraint_test

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

// armOnZ returns a world with one arm (1 kg, its centre of mass 1 m from
// the origin) at world angle phi0 about z, hinged to the world at the
// origin about z, so the hinge's continuous angle equals the arm's world
// angle when the reference is phi0.
func armOnZ(t *testing.T, phi0 float64) (*stepper.World, *constraint.Hinge, *constraint.Context) {
	t.Helper()
	const h = 0.01
	w, err := stepper.New(stepper.Settings{H: h})
	require.NoError(t, err)
	q := mgl64.QuatRotate(phi0, mgl64.Vec3{0, 0, 1})
	b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: q.Rotate(mgl64.Vec3{1, 0, 0}), Rot: q})
	require.NoError(t, err)
	a, err := w.AddBody(b)
	require.NoError(t, err)
	hg, err := constraint.NewHinge(w.Bodies, a, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(hg))
	return w, hg, &constraint.Context{Bodies: w.Bodies, H: h}
}

// worldAngle is the arm's world angle about z, in (−π, π].
func worldAngle(w *stepper.World) float64 {
	p := w.Bodies[0].Pos
	return math.Atan2(p[1], p[0])
}

// A hinge built at 2.5 rad with the range 2.5 ± 2.9 = [−0.4, 5.4] rad (a
// Panda's joint 7 from its home pose): a motor drives it through ±π to
// the upper stop and back through ±π to the lower one. With the plain
// angle in (−π, π] neither stop can be stated (5.4 rad is −0.883 after
// the wrap, below the start).
func TestHingeReferenceStopsPastPi(t *testing.T) {
	w, hg, ctx := armOnZ(t, 2.5)
	require.NoError(t, hg.SetReference(2.5))
	require.NoError(t, hg.SetLimits(-0.4, 5.4))
	th, err := hg.Angle(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2.5, th, "the reference is the angle of the built pose")

	for _, c := range []struct {
		speed, stop float64
	}{{3, 5.4}, {-3, -0.4}} {
		require.NoError(t, hg.SetMotor(c.speed, 50))
		for i := 0; i < 400; i++ { // 4 s at 3 rad/s: 12 rad of travel asked, 5.8 at most possible
			_, err := w.Step()
			require.NoError(t, err)
		}
		th, err := hg.Angle(ctx)
		require.NoError(t, err)
		// The stop row is rigid: the motor's 50 N·m keeps the arm on it to
		// the solver's tolerance (1e-6 rad is far below one step's 0.03 rad
		// of motor travel, far above rounding).
		assert.InDelta(t, c.stop, th, 1e-6, "motor %v rad/s ends on its stop", c.speed)
		// The body agrees: its world angle is the stop wrapped to (−π, π].
		assert.InDelta(t, math.Remainder(c.stop, 2*math.Pi), worldAngle(w), 1e-6)
	}
}

// A range of more than a turn, [−1, 8] rad from 0: a motor turns the arm
// by 8 rad (its world angle passes ±π at π and 3π) onto the upper stop; a servo then brings it to 7 rad, not to 7 − 2π,
// and a spring with rest −0.5 unwinds it the whole way back.
func TestHingeReferenceMoreThanATurn(t *testing.T) {
	w, hg, ctx := armOnZ(t, 0)
	require.NoError(t, hg.SetReference(0))
	require.NoError(t, hg.SetLimits(-1, 8))
	require.NoError(t, hg.SetMotor(4, 50))
	run := func(n int) float64 {
		for i := 0; i < n; i++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		th, err := hg.Angle(ctx)
		require.NoError(t, err)
		return th
	}
	assert.InDelta(t, 8, run(300), 1e-6, "3 s at 4 rad/s asks 12 rad; the stop holds at 8 (tolerance as above)")
	assert.InDelta(t, 8-2*math.Pi, worldAngle(w), 1e-6)

	hg.ClearMotor()
	// kp 20 N·m/rad on I = 1.004 kg·m² (1 kg at 1 m plus the sphere's
	// 0.004): ω = 4.5 rad/s; kd 20 damps it (ζ ≈ 2.2). After 10 s the
	// error is ~exp(−10·0.5) of 1 rad, below 1e-2.
	require.NoError(t, hg.SetServo(7, 20, 20, math.Inf(1)))
	assert.InDelta(t, 7, run(1000), 1e-2, "the servo's target is a continuous angle")
	hg.ClearServo()
	require.NoError(t, hg.SetSpringDamper(20, 20, -0.5))
	assert.InDelta(t, -0.5, run(1500), 1e-2, "the spring unwinds 7.5 rad, through ±π twice")
}

func TestHingeReferenceBadInput(t *testing.T) {
	_, hg, _ := armOnZ(t, 0)
	for _, v := range []float64{math.NaN(), math.Inf(1)} {
		err := hg.SetReference(v)
		var fe *body.FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, "reference angle", fe.Field)
	}
	// Without a reference the limits stay within ±π.
	assert.Error(t, hg.SetLimits(-1, 4))
	_, on := hg.Reference()
	assert.False(t, on)
}
