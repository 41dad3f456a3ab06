package body

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// FreeVelocity returns the body's velocity after a step h (s) without
// constraints, [v⁺ ω⁺] in the world frame at the body's current pose: the
// velocity M⁻¹ p of the stepper's Eq. (1). The linear part is v + h (f/m +
// g) for gravity g (m/s²); the angular part is AngularStep(h, τ). A static
// body gets zeros.
func (b *Body) FreeVelocity(h float64, gravity mgl64.Vec3) [6]float64 {
	if b.Static {
		return [6]float64{}
	}
	a := b.Force.Mul(b.InvMass()).Add(gravity)
	w := b.AngularStep(h, b.Torque)
	return [6]float64{
		b.Vel[0] + h*a[0], b.Vel[1] + h*a[1], b.Vel[2] + h*a[2],
		w[0], w[1], w[2],
	}
}

// Newton settings of AngularStep.
const (
	angularStepIters = 50
	// angularStepTol is the relative size of the last Newton correction at
	// which the solve stops: rounding level, so that the conserved
	// quantities hold to ~1e-15 per step.
	angularStepTol = 1e-14
)

// AngularStep returns the world angular velocity ω⁺ (rad/s) after a step
// h (s) of Euler's equations under the world torque tau (N·m),
//
//	I ω̇ + ω × I ω = τ      (body frame),
//
// by the implicit midpoint rule in the body frame at the current
// orientation R,
//
//	I (ω⁺ − ω) + h ω_m × I ω_m = h τ,   ω_m = (ω + ω⁺)/2,
//
// solved by Newton's method (3 × 3, from the explicit Euler step); the
// result is R ω⁺. If Newton fails to converge (only for h|ω| far beyond
// any sensible step) its last iterate is used.
//
// Why the midpoint rule: |I ω| and ½ ω·I ω are quadratic invariants of
// the torque-free equations, and the implicit midpoint rule conserves every
// quadratic invariant exactly (Cooper's theorem; E. Hairer, C. Lubich and
// G. Wanner, "Geometric Numerical Integration", 2nd ed., Springer 2006,
// Thm. IV.2.1), so a torque-free body keeps |L| and its kinetic energy at
// any step size, to the tolerance of the Newton solve. The stepper turns the
// pose by h ω⁺ about ω⁺ itself, which leaves the body-frame angular
// velocity unchanged, so those are the values after the step. The explicit
// gyroscopic term ω × I ω adds energy and blows up thin bodies; backward
// Euler (Bullet's implicit gyroscopic update) dissipates both; turning the
// pose with ω = I_w(q)⁻¹ L and recomputing ω from L at the new pose keeps
// L but lets the energy climb to L²/(2 I_min) (the unstable axis takes
// over). Because the gyroscopic change is part of the free velocity, the
// constraint rows see it: a hinge holding a fast wheel on a turning frame
// supplies the precession torque within the step instead of undoing a
// spurious wobble afterwards.
func (b *Body) AngularStep(h float64, tau mgl64.Vec3) mgl64.Vec3 {
	if b.Static {
		return mgl64.Vec3{}
	}
	r := b.Rotation()
	rt := r.Transpose()
	in := b.Inertia
	inv := Inv3(in)
	w0 := rt.Mul3x1(b.AngVel)
	tb := rt.Mul3x1(tau)
	l0 := in.Mul3x1(w0)
	// Explicit start: ω + h I⁻¹(τ − ω × I ω).
	w := w0.Add(inv.Mul3x1(tb.Sub(w0.Cross(l0)).Mul(h)))
	scale := math.Max(w0.Len(), w.Len())
	if scale == 0 || !finiteVec(w) {
		return r.Mul3x1(w0.Add(inv.Mul3x1(tb.Mul(h))))
	}
	for it := 0; it < angularStepIters; it++ {
		wm := w0.Add(w).Mul(0.5)
		lm := in.Mul3x1(wm)
		// f(ω⁺) = I (ω⁺ − ω) + h ω_m × I ω_m − h τ
		f := in.Mul3x1(w.Sub(w0)).Add(wm.Cross(lm).Mul(h)).Sub(tb.Mul(h))
		// ∂f/∂ω⁺ = I + (h/2) ([ω_m]× I − [I ω_m]×)
		jac := in.Add(skew(wm).Mul3(in).Sub(skew(lm)).Mul(h / 2))
		d := Inv3(jac).Mul3x1(f)
		if !finiteVec(d) {
			break
		}
		w = w.Sub(d)
		if d.Len() <= angularStepTol*scale {
			break
		}
	}
	return r.Mul3x1(w)
}

// skew returns the cross-product matrix [v]×, with [v]× u = v × u.
func skew(v mgl64.Vec3) mgl64.Mat3 {
	return mgl64.Mat3FromRows(
		mgl64.Vec3{0, -v[2], v[1]},
		mgl64.Vec3{v[2], 0, -v[0]},
		mgl64.Vec3{-v[1], v[0], 0},
	)
}

// Move displaces the body along the screw motion of the constant twist
// (dx, dθ) (m, rad; the COM displacement rate times time and the rotation
// vector): Rot ← exp(dθ)·Rot and Pos += V(dθ) dx, where
//
//	V(θ) = I + (1 − cos|θ|)/|θ|² [θ]× + (|θ| − sin|θ|)/|θ|³ [θ]×²
//
// is the left Jacobian of SO(3). This is the exact flow of the rigid
// velocity field u(p) = v + ω × (p − x) for the step (the exponential of
// SE(3)): a body point at rest stays at rest and every point moves on its
// helix, so a link turning about a pinned joint stays on it however far it
// turns in one step. Displace (a straight COM path) is the first-order
// truncation and equals Move for small dθ.
func (b *Body) Move(dx, dtheta mgl64.Vec3) {
	t := dtheta.Len()
	if t < 1e-6 {
		// V = I + ½[θ]× + ⅙[θ]×² + O(t³).
		c := dtheta.Cross(dx)
		b.Displace(dx.Add(c.Mul(0.5)).Add(dtheta.Cross(c).Mul(1.0/6)), dtheta)
		return
	}
	c := dtheta.Cross(dx)
	cc := dtheta.Cross(c)
	a := (1 - math.Cos(t)) / (t * t)
	s := (t - math.Sin(t)) / (t * t * t)
	b.Displace(dx.Add(c.Mul(a)).Add(cc.Mul(s)), dtheta)
}
