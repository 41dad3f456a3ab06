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

// rotor returns a world (no gravity, step h) with a disc of inertia i
// (kg·m²) about z on a hinge to the world along z.
func rotor(t *testing.T, h, i float64, omega0 float64) (*stepper.World, *constraint.Hinge) {
	t.Helper()
	w, _ := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: 1,
		Inertia: mgl64.Diag3(mgl64.Vec3{i, i, i}), AngVel: mgl64.Vec3{0, 0, omega0}})
	j, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(j))
	return w, j
}

// A damped rotor (no spring) is I ω̇ = −c ω; the implicit row gives the
// implicit Euler map ω⁺ = ω/(1 + h c/I) exactly (to the solver's rounding),
// which tends to the analytic e^{−c t/I}: after 1 s at h = 1 ms the two
// differ by the scheme's O(h) error, ½ (c/I)² h t ≈ 0.1 % here.
func TestJointDampingRotor(t *testing.T) {
	const h, i, c, w0 = 1e-3, 0.5, 0.4, 3.0
	w, j := rotor(t, h, i, w0)
	require.NoError(t, j.SetSpringDamper(0, c, 0))
	n := 1000
	for s := 0; s < n; s++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	_, rate, err := w.JointState(0)
	require.NoError(t, err)
	assert.InEpsilon(t, w0*math.Pow(1+h*c/i, -float64(n)), rate, 1e-9, "implicit Euler map")
	assert.InEpsilon(t, w0*math.Exp(-c/i), rate, 0.002, "analytic decay within the O(h) scheme error")
}

// peaks returns the times and values of the local maxima of q.
func peaks(ts, qs []float64) (pt, pq []float64) {
	for k := 1; k+1 < len(qs); k++ {
		if qs[k] > qs[k-1] && qs[k] >= qs[k+1] {
			pt, pq = append(pt, ts[k]), append(pq, qs[k])
		}
	}
	return
}

// A pendulum (point-like bob m at L) with hinge damping c swings as the
// damped oscillator I θ̈ + c θ̇ + m g L θ = 0 at small amplitude: its
// peaks decay as e^{−c t/(2I)} and recur every 2π/ω_d,
// ω_d = √(ω₀² − (c/2I)²). The logarithmic decrement over 5 periods and the
// period are compared within 1 %: h = 1 ms resolves the 2 s period with
// 2000 steps (peak timing ±h, 0.05 %), the 3° amplitude's nonlinearity
// lengthens the period by θ₀²/16 ≈ 0.02 %, and the integrator's own
// dissipation (the rigid rows' Regularized feedback) adds < 1 % to c.
// The undamped pendulum (c = 0) is the control: no decay.
func TestJointDampingPendulum(t *testing.T) {
	for _, cDamp := range []float64{0, 0.2} {
		c := cDamp
		const (
			h, m, l, r = 1e-3, 1.0, 1.0, 0.01
			theta0     = 3 * math.Pi / 180
		)
		g := -stepper.StandardGravity[2]
		ib := 2.0 / 5 * m * r * r
		I := ib + m*l*l
		// Hanging at rest angle 0, set swinging at θ̇ = θ₀ √(g/L).
		pos := mgl64.Vec3{0, 0, -l}
		om := mgl64.Vec3{0, theta0 * math.Sqrt(g/l), 0}
		w, _ := newWorld(t, stepper.Settings{H: h, Gravity: stepper.StandardGravity}, body.Params{
			Mass: m, Inertia: mgl64.Diag3(mgl64.Vec3{ib, ib, ib}), Pos: pos, Vel: om.Cross(pos), AngVel: om})
		j, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
		require.NoError(t, err)
		require.NoError(t, j.SetSpringDamper(0, cDamp, 0))
		require.NoError(t, w.AddConstraint(j))
		var ts, qs []float64
		for s := 0; s < 12000; s++ {
			_, err := w.Step()
			require.NoError(t, err)
			q, _, err := w.JointState(0)
			require.NoError(t, err)
			ts, qs = append(ts, w.Time()), append(qs, q)
		}
		pt, pq := peaks(ts, qs)
		require.GreaterOrEqual(t, len(pt), 6)
		sigma := c / (2 * I)
		wd := math.Sqrt(m*g*l/I - sigma*sigma)
		decay := math.Log(pq[0]/pq[5]) / (pt[5] - pt[0])
		period := (pt[5] - pt[0]) / 5
		t.Logf("decay %.5f 1/s (analytic %.5f), period %.5f s (analytic %.5f)", decay, sigma, period, 2*math.Pi/wd)
		assert.InDelta(t, sigma, decay, 0.01*0.1, "decay rate within 1 % of the damped case's")
		assert.InEpsilon(t, 2*math.Pi/wd, period, 0.01)
	}
}

// A slider of mass m on a spring k (rest 0.1 m from the start, no gravity)
// oscillates with period 2π√(m/k) about the rest position. The implicit
// spring row is implicit Euler on the spring force: its period error is
// O((ωh)²) ≈ 1e-5 at ωh = 0.0063 and its amplitude decays by the factor
// (1 + (ωh)²)^(−n/2), ≈ 2 % over the 5 periods measured; period within
// 0.2 % (zero crossings interpolated linearly), amplitude within 3 %.
func TestJointSpringSliderPeriod(t *testing.T) {
	const h, m, k, rest = 1e-3, 2.0, 50.0, 0.1
	w, _ := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: m, Inertia: mgl64.Diag3(mgl64.Vec3{1, 1, 1})})
	j, err := constraint.NewPrismatic(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, j.SetSpringDamper(k, 0, rest))
	require.NoError(t, w.AddConstraint(j))
	want := 2 * math.Pi * math.Sqrt(m/k)
	var up []float64 // upward crossings of the rest position
	prev := -rest
	var minQ, maxQ float64
	for s := 0; s < int(5.5*want/h); s++ {
		_, err := w.Step()
		require.NoError(t, err)
		q, _, err := w.JointState(0)
		require.NoError(t, err)
		d := q - rest
		if prev < 0 && d >= 0 {
			up = append(up, w.Time()-h*d/(d-prev))
		}
		prev = d
		minQ, maxQ = math.Min(minQ, d), math.Max(maxQ, d)
	}
	require.GreaterOrEqual(t, len(up), 5)
	period := (up[len(up)-1] - up[0]) / float64(len(up)-1)
	t.Logf("period %.6f s (analytic %.6f), swing [%.4f, %.4f]", period, want, minQ, maxQ)
	assert.InEpsilon(t, want, period, 0.002)
	assert.InEpsilon(t, rest, maxQ, 0.03, "amplitude")
}

// Armature a on a hinge adds to the inertia about the axis: under a torque
// τ from an Effort actuator a disc of inertia I accelerates at τ/(I + a).
// The armature row is the impulse −a Δθ̇ of that inertia, so the rate after
// n steps is n h τ/(I + a) to rounding (1e-9).
func TestJointArmatureAcceleration(t *testing.T) {
	const h, i, a, tau = 1e-3, 0.02, 0.08, 0.5
	w, j := rotor(t, h, i, 0)
	require.NoError(t, j.SetArmature(a))
	e := &stepper.Effort{Joint: j, Input: tau}
	require.NoError(t, w.AddController(e))
	for s := 0; s < 500; s++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	_, rate, err := w.JointState(0)
	require.NoError(t, err)
	assert.InEpsilon(t, 500*h*tau/(i+a), rate, 1e-9)
	// Without the armature: τ/I.
	w2, j2 := rotor(t, h, i, 0)
	require.NoError(t, w2.AddController(&stepper.Effort{Joint: j2, Input: tau}))
	for s := 0; s < 500; s++ {
		_, err := w2.Step()
		require.NoError(t, err)
	}
	_, rate2, err := w2.JointState(0)
	require.NoError(t, err)
	assert.InEpsilon(t, 500*h*tau/i, rate2, 1e-9)
}

// A force actuator on a slider between two free bodies pushes them apart
// with equal and opposite forces: the slide accelerates at F (1/m_a +
// 1/m_b) and the total momentum stays 0; a changing Input replaces (does
// not add to) the previous step's load.
func TestEffortSliderTwoBodies(t *testing.T) {
	const h, ma, mb, f = 1e-3, 1.0, 3.0, 2.0
	w, _ := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: ma, Inertia: mgl64.Ident3()})
	b, err := body.New(body.Params{Mass: mb, Inertia: mgl64.Ident3(), Pos: mgl64.Vec3{-1, 0, 0}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	j, err := constraint.NewPrismatic(w.Bodies, 0, 1, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(j))
	e := &stepper.Effort{Joint: j}
	require.NoError(t, w.AddController(e))
	for s := 0; s < 400; s++ {
		e.Input = f
		if s >= 200 {
			e.Input = -f
		}
		_, err := w.Step()
		require.NoError(t, err)
	}
	_, rate, err := w.JointState(0)
	require.NoError(t, err)
	assert.InDelta(t, 0, rate, 1e-9, "+F for 200 steps then −F for 200: back to rest")
	p := w.Bodies[0].Vel.Mul(ma).Add(w.Bodies[1].Vel.Mul(mb))
	assert.InDelta(t, 0, p.Len(), 1e-12, "momentum")
	q, _, err := w.JointState(0)
	require.NoError(t, err)
	acc := f * (1/ma + 1/mb)
	// Symplectic Euler: after n steps of a, s = a h² n(n+1)/2; then n of −a.
	n := 200.0
	assert.InEpsilon(t, acc*h*h*n*n, q, 1e-9)
	assert.Error(t, (&stepper.Effort{Joint: j, Input: math.NaN()}).Control(w))
	assert.Error(t, (&stepper.Effort{Joint: j, Limit: -1}).Control(w))
	// Limit clamps the input: 10 N bounded to 2 N gives the same slide
	// rate as 2 N.
	e.Input, e.Limit = 10, f
	_, err = w.Step()
	require.NoError(t, err)
	_, rate, err = w.JointState(0)
	require.NoError(t, err)
	assert.InDelta(t, acc*h, rate, 1e-12)
}

// A position servo on a disc of inertia I is the second-order system
// I θ̈ = kp (θ* − θ) − kd θ̇: natural frequency ω_n = √(kp/I), damping
// ratio ζ = kd/(2√(kp I)). From rest at 0 towards θ* the overshoot is
// e^{−ζπ/√(1−ζ²)} and the peak comes at π/(ω_n √(1−ζ²)). Implicit Euler
// adds damping ≈ ω_n h/2 to ζ (0.005 at h = 1 ms, ω_n = 10/s), which moves
// the overshoot by ≈ 1.5 % of θ*; tolerances 2 % (of θ*) on the overshoot
// and 1 % on the peak time. It settles to θ* (2 % band) before 4/(ζ ω_n)
// plus 10 %.
func TestPositionServoResponse(t *testing.T) {
	const h, i, target, zeta, wn = 1e-3, 0.05, 0.5, 0.3, 10.0
	kp := wn * wn * i
	kd := 2 * zeta * math.Sqrt(kp*i)
	w, j := rotor(t, h, i, 0)
	require.NoError(t, j.SetServo(target, kp, kd, math.Inf(1)))
	var peakQ, peakT, settle float64
	for s := 0; s < 6000; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		q, _, err := w.JointState(0)
		require.NoError(t, err)
		if q > peakQ {
			peakQ, peakT = q, w.Time()
		}
		if math.Abs(q-target) > 0.02*target {
			settle = w.Time()
		}
	}
	wd := wn * math.Sqrt(1-zeta*zeta)
	over := math.Exp(-zeta * math.Pi / math.Sqrt(1-zeta*zeta))
	t.Logf("overshoot %.4f (analytic %.4f), peak %.4f s (analytic %.4f), settled %.3f s (bound %.3f)",
		peakQ/target-1, over, peakT, math.Pi/wd, settle, 4/(zeta*wn))
	assert.InDelta(t, over, peakQ/target-1, 0.02)
	assert.InEpsilon(t, math.Pi/wd, peakT, 0.01)
	assert.Less(t, settle, 1.1*4/(zeta*wn))
	q, _, err := w.JointState(0)
	require.NoError(t, err)
	assert.InDelta(t, target, q, 1e-6, "on the target after 6 s: the envelope θ* e^{−ζ ω_n t} is 8e-9")
}

// A servo whose force limit binds accelerates at exactly limit/I while far
// from its target (the row sits at its impulse bound ±limit·h).
func TestPositionServoForceLimit(t *testing.T) {
	const h, i, limit = 1e-3, 0.05, 0.1
	w, j := rotor(t, h, i, 0)
	require.NoError(t, j.SetServo(3, 100, 5, limit))
	for s := 0; s < 100; s++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	_, rate, err := w.JointState(0)
	require.NoError(t, err)
	assert.InEpsilon(t, 100*h*limit/i, rate, 1e-9)
	assert.Error(t, j.SetServo(0, 0, 1, 1), "kp = 0")
	assert.Error(t, j.SetServo(0, 1, -1, 1), "kd < 0")
	assert.Error(t, j.SetSpringDamper(math.NaN(), 0, 0))
	assert.Error(t, j.SetArmature(-1))
}

// A bob tied to the world by a rope of length 1 m, released at rest 0.5 m
// below the anchor, falls freely (the slack rope's gap row never pulls):
// the stepper's symplectic Euler gives z_n = z₀ − g h² n(n+1)/2 exactly
// until the rope is taut; afterwards it hangs at the rope's length, within
// the position projection's threshold (1 mm), and at rest.
func TestRopeFreeFallThenTaut(t *testing.T) {
	const h = 1e-3
	g := -stepper.StandardGravity[2]
	w, b := newWorld(t, stepper.Settings{H: h, Gravity: stepper.StandardGravity},
		body.Params{Mass: 1, Inertia: mgl64.Diag3(mgl64.Vec3{1e-3, 1e-3, 1e-3}), Pos: mgl64.Vec3{0, 0, -0.5}})
	r, err := constraint.NewRope(w.Bodies, 0, constraint.World, mgl64.Vec3{0, 0, -0.5}, mgl64.Vec3{}, 1)
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(r))
	// Free fall of 0.5 m takes √(2·0.5/g) = 0.319 s; check the first 300 steps.
	for n := 1; n <= 300; n++ {
		_, err := w.Step()
		require.NoError(t, err)
		want := -0.5 - g*h*h*float64(n*(n+1))/2
		require.InDelta(t, want, b.Pos[2], 1e-12, "step %d: free fall while slack", n)
	}
	for n := 0; n < 3000; n++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.InDelta(t, -1, b.Pos[2], 1e-3, "hangs at the rope's length")
	assert.InDelta(t, 0, b.Vel.Len(), 1e-6, "at rest")
	_, err = constraint.NewRope(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{}, 0)
	assert.ErrorContains(t, err, "length")
}

// A body on a universal joint to the world at its centre of mass, axis x
// in the body and y in the world, turns freely about x under a torque
// about x (ω_x = n h τ/I_xx to rounding) and not about z, the blocked
// third direction, under a torque about z (ω stays 0 to rounding, the
// axis row's φ stays 0).
func TestUniversalJoint(t *testing.T) {
	const h, ixx = 1e-3, 0.2
	for _, tq := range []mgl64.Vec3{{0.5, 0, 0}, {0, 0, 0.7}} {
		w, b := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: 1, Inertia: mgl64.Diag3(mgl64.Vec3{ixx, 0.3, 0.4})})
		u, err := constraint.NewUniversal(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0})
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(u))
		b.Torque = tq
		for n := 0; n < 200; n++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		assert.InDelta(t, 200*h*tq[0]/ixx, b.AngVel[0], 1e-12, "torque %v", tq)
		assert.InDelta(t, 0, b.AngVel[2], 1e-12, "torque %v: no twist about the cross axis", tq)
		phi := make([]float64, 4)
		require.NoError(t, u.Violation(&constraint.Context{Bodies: w.Bodies, H: h}, phi))
		assert.InDelta(t, 0, phi[3], 1e-12, "axes perpendicular")
		_, err = constraint.NewUniversal(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 1, 0})
		assert.ErrorContains(t, err, "perpendicular")
	}
}

// A pendulum on a ball joint with a 30° swing cone about the downward
// vertical, hanging at rest and kicked sideways hard enough to swing to
// 60° freely (ω₀ = √(2 g (1 − cos 60°)/L) for a point bob), is stopped at
// the cone: its largest angle from the vertical is 30° within the
// position projection's 1 mrad, and it reaches it.
func TestBallSwingLimit(t *testing.T) {
	const h, l = 1e-3, 1.0
	g := -stepper.StandardGravity[2]
	alpha := 30 * math.Pi / 180
	v0 := math.Sqrt(2 * g * l * (1 - math.Cos(60*math.Pi/180)))
	w, b := newWorld(t, stepper.Settings{H: h, Gravity: stepper.StandardGravity}, body.Params{
		Mass: 1, Inertia: mgl64.Diag3(mgl64.Vec3{1e-4, 1e-4, 1e-4}), Pos: mgl64.Vec3{0, 0, -l},
		Vel: mgl64.Vec3{v0, 0.3 * v0, 0}, AngVel: mgl64.Vec3{0.3 * v0 / l, -v0 / l, 0}})
	j, err := constraint.NewBall(w.Bodies, 0, constraint.World, mgl64.Vec3{})
	require.NoError(t, err)
	require.NoError(t, j.SetSwingLimit(w.Bodies, mgl64.Vec3{0, 0, -1}, alpha))
	require.NoError(t, w.AddConstraint(j))
	most := 0.0
	for s := 0; s < 2000; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		most = math.Max(most, math.Acos(-b.Pos[2]/b.Pos.Len()))
	}
	assert.InDelta(t, alpha, most, 1e-3)
	assert.Error(t, j.SetSwingLimit(w.Bodies, mgl64.Vec3{0, 0, 1}, math.Pi))
}

// A body on a ball joint at its centre of mass with twist limits
// [−0.2, 0.3] rad about z, turned by a torque about z, stops at the limit
// on that side: its rotation angle about z is the limit within the
// position projection's 1 mrad and it is at rest there.
func TestBallTwistLimits(t *testing.T) {
	const h = 1e-3
	for _, tc := range []struct{ tz, want float64 }{{0.5, 0.3}, {-0.5, -0.2}} {
		w, b := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: 1, Inertia: mgl64.Diag3(mgl64.Vec3{0.1, 0.1, 0.1})})
		j, err := constraint.NewBall(w.Bodies, 0, constraint.World, mgl64.Vec3{})
		require.NoError(t, err)
		require.NoError(t, j.SetTwistLimits(w.Bodies, mgl64.Vec3{0, 0, 1}, -0.2, 0.3))
		require.NoError(t, w.AddConstraint(j))
		b.Torque = mgl64.Vec3{0, 0, tc.tz}
		for s := 0; s < 2000; s++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		angle := 2 * math.Atan2(b.Rot.V[2], b.Rot.W)
		assert.InDelta(t, tc.want, angle, 1e-3, "torque %v", tc.tz)
		assert.InDelta(t, 0, b.AngVel.Len(), 1e-9, "at rest on the limit")
	}
	w, _ := newWorld(t, stepper.Settings{H: h}, body.Params{Mass: 1, Inertia: mgl64.Ident3()})
	j, err := constraint.NewBall(w.Bodies, 0, constraint.World, mgl64.Vec3{})
	require.NoError(t, err)
	assert.ErrorContains(t, j.SetTwistLimits(w.Bodies, mgl64.Vec3{0, 0, 1}, 0.3, 0.2), "twist limits")
	assert.ErrorContains(t, j.SetTwistLimits(w.Bodies, mgl64.Vec3{}, -0.1, 0.2), "twist axis")
}

// BenchmarkJointActuators steps a rotor on a hinge, plain (5 rows) and
// with a spring-damper, armature, a servo and an effort actuator (8 rows):
// steady steps must allocate nothing.
func BenchmarkJointActuators(b *testing.B) {
	for _, actuated := range []bool{false, true} {
		name := "plain"
		if actuated {
			name = "actuated"
		}
		b.Run(name, func(b *testing.B) {
			w, err := stepper.New(stepper.Settings{H: 1e-3})
			if err != nil {
				b.Fatal(err)
			}
			bd, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3(), Rot: mgl64.QuatIdent(), AngVel: mgl64.Vec3{0, 0, 1}})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := w.AddBody(bd); err != nil {
				b.Fatal(err)
			}
			j, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
			if err != nil {
				b.Fatal(err)
			}
			errs := []error{w.AddConstraint(j)}
			if actuated {
				errs = append(errs, j.SetSpringDamper(2, 0.1, 0.3), j.SetArmature(0.05), j.SetServo(0.5, 10, 1, 3),
					w.AddController(&stepper.Effort{Joint: j, Input: 0.2}))
			}
			for _, e := range errs {
				if e != nil {
					b.Fatal(e)
				}
			}
			for i := 0; i < 10; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The user's case of the servo: an arm (a 1 kg, 0.5 m box link, its centre
// 0.25 m below a world hinge about y) held by a position servo (kp = 20
// N·m/rad, kd = 2 N·m·s/rad, target 0.6 rad) under DefaultSettings (h =
// 1/60 s, gravity, sleeping on), released from hanging straight down.
// It comes to rest where the servo's torque carries the weight's,
// kp (θ* − θ) = m g d sin θ (θ = 0.5372 rad, solved here by bisection):
// to 1e-4 rad (measured 1e-5: the implicit spring rests exactly at any
// step), and at rest (it then sleeps).
func TestPositionServoHoldsArmAtGameStep(t *testing.T) {
	const m, l, kp, kd, target = 1.0, 0.5, 20.0, 2.0, 0.6
	d := l / 2
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	b, err := body.New(body.Params{Mass: m, Inertia: body.BoxInertia(m, 0.05, 0.05, l), Pos: mgl64.Vec3{0, 0, -d}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	i, err := w.AddBody(b)
	require.NoError(t, err)
	j, err := constraint.NewHinge(w.Bodies, i, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
	require.NoError(t, err)
	require.NoError(t, j.SetServo(target, kp, kd, math.Inf(1)))
	require.NoError(t, w.AddConstraint(j))
	for s := 0; s < 600; s++ { // 10 s
		_, err := w.Step()
		require.NoError(t, err)
	}
	q, rate, err := w.JointState(0)
	require.NoError(t, err)
	g := stepper.StandardGravity.Len()
	lo, hi := 0.0, target // kp (θ* − θ) − m g d sin θ falls from kp θ* to −m g d sin θ*
	for range 60 {
		mid := (lo + hi) / 2
		if kp*(target-mid) > m*g*d*math.Sin(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	tilt := math.Acos(-b.Pos[2] / d) // the arm's angle from hanging
	t.Logf("servo arm at h = 1/60 s: θ = %.5f rad (balance %.5f), tilt %.5f rad, rate %.2e rad/s", q, lo, tilt, rate)
	assert.InDelta(t, lo, math.Abs(q), 1e-4)
	assert.InDelta(t, math.Abs(q), tilt, 1e-4, "the joint angle is the arm's tilt")
	assert.Less(t, math.Abs(rate), 1e-4, "at rest")
}
