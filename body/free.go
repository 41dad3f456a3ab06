package body

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// FreeVelocity returns the body's velocity after a step h (s) without
// constraints, [v⁺ ω⁺] in the world frame at the body's current pose: the
// velocity M⁻¹ p of the stepper's Eq. (1). The linear part is v + h (f/m +
// g) for gravity g (m/s²); the angular part is AngularStep(h, τ). A static
// body gets zeros.
func (b *Body) FreeVelocity(h float64, gravity mgl64.Vec3) [6]float64 {
	v, _ := b.FreeVelocityJacobian(h, gravity)
	return v
}

// FreeVelocityJacobian returns FreeVelocity(h, gravity) and the Jacobian
// J_f of AngularStep's midpoint equation at its solution
// (AngularStepJacobian): the constrained step's angular response. A static
// body gets zeros.
func (b *Body) FreeVelocityJacobian(h float64, gravity mgl64.Vec3) ([6]float64, mgl64.Mat3) {
	if b.Static {
		return [6]float64{}, mgl64.Mat3{}
	}
	a := b.Force.Mul(b.InvMass()).Add(gravity)
	w, jac := b.AngularStepJacobian(h, b.Torque)
	return [6]float64{
		b.Vel[0] + h*a[0], b.Vel[1] + h*a[1], b.Vel[2] + h*a[2],
		w[0], w[1], w[2],
	}, jac
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
// over).
//
// What it does not do under constraints. The free velocity is each body's
// alone: constraint impulses are added afterwards with the body's inverse
// inertia, as if the gyroscopic term were absent. That is right while the
// torque-free nutation λ = s (I_s − I_t)/I_t of a spin s is resolved
// (h|λ| ≪ 1). A 10 kg, r = 0.2 m wheel at 500 rad/s has λ ≈ 480 rad/s, h λ
// ≈ 8 at h = 1/60 s: the midpoint rule (a Cayley map) turns the transverse
// angular velocity, say the 2 rad/s yaw of the frame carrying the wheel, by
// 2 atan(h λ/2) ≈ 152° in the body frame, and the joint rows, seeing only
// I⁻¹ as the wheel's response, undo that flip by taking the frame's yaw.
// The constrained step needs the response of the midpoint equation to a
// constraint impulse p (body frame), I (ω⁺ − ω) + h ω_m × I ω_m = h τ + p,
// linearized at the free solution: ω⁺ = ω_f + J_f⁻¹ p with J_f
// (AngularStepJacobian). The stepper uses it for such bodies (package
// stepper, Mass).
func (b *Body) AngularStep(h float64, tau mgl64.Vec3) mgl64.Vec3 {
	w, _ := b.AngularStepJacobian(h, tau)
	return w
}

// AngularStepJacobian returns AngularStep(h, tau) and the body-frame
// Jacobian of its midpoint equation at the solution,
//
//	J_f = I + (h/2) ([ω_m]× I − [I ω_m]×),   ω_m = (ω + ω⁺)/2
//
// (kg·m²), the matrix of the linearized response ω⁺ = ω_f + J_f⁻¹ p to a
// body-frame angular impulse p (N·m·s) added to the step (E. Catto,
// "Numerical Methods", GDC 2015; Bullet's implicit body-frame gyroscopic
// impulse, here about the midpoint rule). J_f = I + (h/2) G with G
// antisymmetric in the energy sense (ω_mᵀ G ω_m = 0); it is not symmetric.
// The world-frame response is R J_f⁻¹ Rᵀ. A static body gets zeros.
func (b *Body) AngularStepJacobian(h float64, tau mgl64.Vec3) (mgl64.Vec3, mgl64.Mat3) {
	if b.Static {
		return mgl64.Vec3{}, mgl64.Mat3{}
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
	if scale == 0 || !num.FiniteVec(w) {
		w = w0.Add(inv.Mul3x1(tb.Mul(h)))
		return r.Mul3x1(w), midpointJacobian(in, w0, w, h)
	}
	for it := 0; it < angularStepIters; it++ {
		wm := w0.Add(w).Mul(0.5)
		lm := in.Mul3x1(wm)
		// f(ω⁺) = I (ω⁺ − ω) + h ω_m × I ω_m − h τ
		f := in.Mul3x1(w.Sub(w0)).Add(wm.Cross(lm).Mul(h)).Sub(tb.Mul(h))
		// ∂f/∂ω⁺ = I + (h/2) ([ω_m]× I − [I ω_m]×)
		jac := in.Add(skew(wm).Mul3(in).Sub(skew(lm)).Mul(h / 2))
		d := Inv3(jac).Mul3x1(f)
		if !num.FiniteVec(d) {
			break
		}
		w = w.Sub(d)
		if d.Len() <= angularStepTol*scale {
			break
		}
	}
	return r.Mul3x1(w), midpointJacobian(in, w0, w, h)
}

// midpointJacobian returns I + (h/2) ([ω_m]× I − [I ω_m]×) at ω_m = (w0 +
// w)/2 (body frame).
func midpointJacobian(in mgl64.Mat3, w0, w mgl64.Vec3, h float64) mgl64.Mat3 {
	wm := w0.Add(w).Mul(0.5)
	lm := in.Mul3x1(wm)
	return in.Add(skew(wm).Mul3(in).Sub(skew(lm)).Mul(h / 2))
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
