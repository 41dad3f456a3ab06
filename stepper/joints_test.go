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

// newWorld returns a world with one body made from p.
func newWorld(t *testing.T, s stepper.Settings, p body.Params) (*stepper.World, *body.Body) {
	t.Helper()
	w, err := stepper.New(s)
	require.NoError(t, err)
	if p.Rot == (mgl64.Quat{}) {
		p.Rot = mgl64.QuatIdent()
	}
	b, err := body.New(p)
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	return w, b
}

// A symmetric top on a frictionless pivot (ball joint to the world), set
// off in steady precession, must precess at the rate of the exact steady
// solution of Euler's equations, m g d = Ω (I₃ ω₃ − I₁ Ω cos θ), with I₁
// the transverse inertia about the pivot and ω₃ the spin component along
// the symmetry axis.
func TestSymmetricTopPrecession(t *testing.T) {
	got, want := topPrecession(t, stepper.JointCorrectionDefault)
	// 1 %: the bound; nutation excited by O(h) start-up error is
	// far smaller at this spin.
	assert.InDelta(t, want, got, 0.01*want)
}

// topPrecession runs TestSymmetricTopPrecession's top for a quarter turn
// with the given joint correction and returns its mean precession rate
// and the steady solution's (rad/s).
func topPrecession(t *testing.T, jc stepper.JointCorrection) (got, want float64) {
	t.Helper()
	const (
		m, r, d = 1.0, 0.05, 0.1 // disc mass (kg), radius (m), pivot-to-COM (m)
		g       = 9.81
		tilt    = math.Pi / 6 // symmetry axis from the vertical (rad)
		omega3  = 200.0       // spin along the axis (rad/s)
		h       = 0.0005
	)
	i3 := m * r * r / 2
	i1c := m * r * r / 4
	i1 := i1c + m*d*d
	// Slow root of I₁ cos θ Ω² − I₃ ω₃ Ω + m g d = 0.
	a, bq, c := i1*math.Cos(tilt), -i3*omega3, m*g*d
	want = (-bq - math.Sqrt(bq*bq-4*a*c)) / (2 * a)

	e3 := mgl64.Vec3{math.Sin(tilt), 0, math.Cos(tilt)} // axis, tilted towards +x
	rot := mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, e3)
	omega := mgl64.Vec3{0, 0, want}.Add(e3.Mul(omega3 - want*math.Cos(tilt)))
	com := e3.Mul(d)
	w, b := newWorld(t, stepper.Settings{H: h, Gravity: stepper.StandardGravity, JointCorrection: jc}, body.Params{
		Mass: m, Inertia: mgl64.Diag3(mgl64.Vec3{i1c, i1c, i3}),
		Pos: com, Rot: rot, Vel: omega.Cross(com), AngVel: omega,
	})
	ball, err := constraint.NewBall(w.Bodies, constraint.World, 0, mgl64.Vec3{})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(ball))

	// Unwrapped azimuth of the COM over a quarter turn.
	az, prev := 0.0, 0.0
	steps := int(math.Round(math.Pi / 2 / want / h))
	for i := 0; i < steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		cur := math.Atan2(b.Pos.Y(), b.Pos.X())
		dz := cur - prev
		if dz > math.Pi {
			dz -= 2 * math.Pi
		} else if dz < -math.Pi {
			dz += 2 * math.Pi
		}
		az += dz
		prev = cur
	}
	got = az / w.Time()
	t.Logf("%v: precession %.5f rad/s, steady solution %.5f rad/s (%+.3f %%; gyroscopic limit m g d/(I₃ω₃) = %.5f)",
		jc, got, want, 100*(got/want-1), m*g*d/(i3*omega3))
	return got, want
}

// hingedRod is a 1 kg, 1 m rod on a hinge about y at the origin, lying
// along +x (horizontal): gravity swings it down, increasing θ about +y.
func hingedRod(t *testing.T, s stepper.Settings) (*stepper.World, *constraint.Hinge) {
	t.Helper()
	w, _ := newWorld(t, s, body.Params{Mass: 1, Inertia: body.BoxInertia(1, 1, 0.02, 0.02), Pos: mgl64.Vec3{0.5, 0, 0}})
	hg, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(hg))
	return w, hg
}

// A rigid hinge limit stops a falling rod: the angle never passes the
// limit by more than the O(h²) curvature error of one step (the row is
// linear in velocity, the angle is not).
func TestHingeLimitHolds(t *testing.T) {
	for _, mode := range []stepper.Stabilization{stepper.Regularized, stepper.Post} {
		t.Run(mode.String(), func(t *testing.T) {
			w, hg := hingedRod(t, stepper.Settings{H: 0.001, Gravity: stepper.StandardGravity, Stabilization: mode})
			const limit = 0.4
			require.NoError(t, hg.SetLimits(-limit, limit))
			ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
			worst := math.Inf(-1)
			for i := 0; i < 2000; i++ {
				_, err := w.Step()
				require.NoError(t, err)
				th, err := hg.Angle(ctx)
				require.NoError(t, err)
				worst = math.Max(worst, math.Abs(th))
			}
			t.Logf("max |θ| %.9f rad, limit %v rad", worst, limit)
			// The rod hits the stop at ω ≈ 3.3 rad/s; one step's curvature
			// error is ~ (ω h)²/2 ≈ 6e-6 rad.
			assert.Less(t, worst-limit, 1e-5)
			assert.Greater(t, worst, limit-1e-3, "the rod must reach the stop")
		})
	}
}

// A motor with a torque bound spins up a flywheel at exactly τ/I until it
// reaches its target speed, then holds it; the impulse never exceeds τ h.
func TestHingeMotorReachesSpeedWithinTorque(t *testing.T) {
	const (
		h, inertia, target, torque = 0.001, 0.5, 10.0, 2.0
	)
	w, err := stepper.New(stepper.Settings{H: h})
	require.NoError(t, err)
	b, err := body.New(body.Params{Mass: 3, Inertia: mgl64.Diag3(mgl64.Vec3{1, 1, inertia}), Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	hg, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	require.NoError(t, hg.SetMotor(target, torque))
	require.NoError(t, w.AddConstraint(hg))
	tReach := target * inertia / torque // 2.5 s
	for i := 0; i < 3000; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		x, _ := w.LastSolution()
		motor := x[5] // rows: 3 ball, 2 axis, then the motor
		// 1e-12 relative: the bound is enforced exactly by the solver.
		require.LessOrEqual(t, math.Abs(motor), torque*h*(1+1e-12), "step %d", i)
		wz := b.AngVel.Z()
		require.LessOrEqual(t, wz, target*(1+1e-9), "step %d", i)
		if w.Time() < tReach-h/2 {
			// Below target the motor is saturated: ω = τ t / I exactly (to rounding).
			require.InDelta(t, torque*w.Time()/inertia, wz, 1e-9, "step %d", i)
		}
	}
	assert.InDelta(t, target, b.AngVel.Z(), 1e-9)
}

// Under a constant load F a compliant joint settles at φ = F/k, for the
// plain Eq. 1 form and for SPOOK (docs/formats.md, "Conventions").
func TestStaticDeflectionIsFOverK(t *testing.T) {
	for _, damping := range []float64{0, 0.05} {
		const m, k, g = 2.0, 5000.0, 9.81
		w, b := newWorld(t, stepper.Settings{H: 0.001, Gravity: stepper.StandardGravity},
			body.Params{Mass: m, Inertia: body.SphereInertia(m, 0.1)})
		ball, err := constraint.NewBall(w.Bodies, 0, constraint.World, mgl64.Vec3{})
		require.NoError(t, err)
		require.NoError(t, ball.SetSoft(k, damping))
		require.NoError(t, w.AddConstraint(ball))
		for i := 0; i < 20000; i++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		// 1e-9 relative: the fixed point of both discretizations is exactly
		// F/k; 20 s is many time constants, leaving rounding only.
		assert.InDelta(t, -m*g/k, b.Pos.Z(), 1e-9*m*g/k, "damping %v s", damping)
		assert.InDelta(t, 0, b.Vel.Len(), 1e-9)
	}
}

// A controller ramping a torque on a free flywheel: ω(t) follows the
// integral of the ramp, τ(t) = τ₀ min(t/T, 1), exactly for semi-implicit
// Euler sampled at the step starts.
func TestControllerRampsTorque(t *testing.T) {
	const h, inertia, tau0, ramp = 0.01, 0.5, 2.0, 1.0
	w, b := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: 1, Inertia: mgl64.Diag3(mgl64.Vec3{inertia, inertia, inertia})})
	require.NoError(t, w.AddController(stepper.ControllerFunc(func(w *stepper.World) error {
		w.Bodies[0].Torque = mgl64.Vec3{0, 0, tau0 * math.Min(w.Time()/ramp, 1)}
		return nil
	})))
	want := 0.0
	for i := 0; i < 200; i++ {
		want += h * tau0 * math.Min(float64(i)*h/ramp, 1) / inertia
		_, err := w.Step()
		require.NoError(t, err)
	}
	// Rounding only.
	assert.InDelta(t, want, b.AngVel.Z(), 1e-12)
	assert.ErrorContains(t, w.AddController(nil), "controller 1: is nil")
}
