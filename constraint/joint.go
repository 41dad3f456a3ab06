package constraint

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"
)

// pose is a body's (or the world's) position and orientation.
type pose struct {
	p mgl64.Vec3
	q mgl64.Quat
}

// point returns the world position of the body-frame point l.
func (s pose) point(l mgl64.Vec3) mgl64.Vec3 { return s.p.Add(s.q.Rotate(l)) }

// vec returns the world direction of the body-frame vector l.
func (s pose) vec(l mgl64.Vec3) mgl64.Vec3 { return s.q.Rotate(l) }

// checkIndex validates body index i (World allowed) of a constraint at
// construction.
func checkIndex(what, field string, bodies []*body.Body, i int) error {
	if i == World {
		return nil
	}
	if i < 0 || i >= len(bodies) {
		return fieldErr(what, field, i, "body index %d out of range [0, %d) (use World = -1 for the static world)", i, len(bodies))
	}
	if bodies[i] == nil {
		return fieldErr(what, field, i, "body %d is nil", i)
	}
	if err := bodies[i].Validate(); err != nil {
		return fmt.Errorf("%s: %s: %w", what, field, err)
	}
	return nil
}

// poseOf returns body i's pose, or the world frame for World.
func poseOf(ctx *Context, i int) (pose, error) {
	if i == World {
		return pose{q: mgl64.QuatIdent()}, nil
	}
	if ctx == nil || i < 0 || i >= len(ctx.Bodies) || ctx.Bodies[i] == nil {
		n := 0
		if ctx != nil {
			n = len(ctx.Bodies)
		}
		return pose{}, fmt.Errorf("constraint: body %d missing from the context (%d bodies)", i, n)
	}
	b := ctx.Bodies[i]
	return pose{b.Pos, b.Rot}, nil
}

// velOf returns body i's velocity and angular velocity (world frame), or
// zeros for World; i must have passed poseOf.
func velOf(ctx *Context, i int) (v, w mgl64.Vec3) {
	if i == World {
		return
	}
	b := ctx.Bodies[i]
	return b.Vel, b.AngVel
}

// checkStep validates ctx and the room in rows for Fill.
func checkStep(what string, rows []Row, n int, ctx *Context) error {
	if ctx == nil {
		return fmt.Errorf("%s: nil context", what)
	}
	if !(ctx.H > 0) || math.IsInf(ctx.H, 1) {
		return fieldErr(what, "Context.H", ctx.H, "must be finite and > 0, got %v", ctx.H)
	}
	if len(rows) < n {
		return fieldErr(what, "rows", len(rows), "need %d rows, got %d", n, len(rows))
	}
	return nil
}

// unitAxis validates a world axis and returns it normalized.
func unitAxis(what, field string, v mgl64.Vec3) (mgl64.Vec3, error) {
	if !num.FiniteVec(v) {
		return v, fieldErr(what, field, v, "must be finite, got %v", v)
	}
	l := v.Len()
	if !(l > 1e-12) || math.IsInf(l, 0) {
		return v, fieldErr(what, field, v, "must have non-zero length, got %v (length %v)", v, l)
	}
	return v.Mul(1 / l), nil
}

// fieldErr is the package's error for one bad argument: a *num.FieldError
// (body.FieldError) of what's field with the offending value, whose
// message reads "what: field: reason".
func fieldErr(what, field string, value any, format string, args ...any) error {
	return &num.FieldError{What: what, Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

func finitePoint(what, field string, v mgl64.Vec3) error {
	if !num.FiniteVec(v) {
		return fieldErr(what, field, v, "must be finite, got %v", v)
	}
	return nil
}

// pair is the common part of two-body joints: the bodies, and the
// compliance of their bilateral rows.
type pair struct {
	what  string
	ids   [2]int // a, b
	list  [2]int // the non-World ones, for Bodies
	nlist int
	k, d  float64
}

func newPair(what string, bodies []*body.Body, a, b int) (pair, error) {
	if err := checkIndex(what, "body A", bodies, a); err != nil {
		return pair{}, err
	}
	if err := checkIndex(what, "body B", bodies, b); err != nil {
		return pair{}, err
	}
	if a == b {
		if a == World {
			return pair{}, fmt.Errorf("%s: both sides are the world; at least one must be a body", what)
		}
		return pair{}, fmt.Errorf("%s: both sides are body %d; a joint needs two different bodies", what, a)
	}
	p := pair{what: what, ids: [2]int{a, b}}
	for _, i := range p.ids {
		if i != World {
			p.list[p.nlist] = i
			p.nlist++
		}
	}
	return p, nil
}

// localPose returns side i's pose at construction (the world frame for
// World), for turning world pivots and axes into body-frame ones.
func localPose(bodies []*body.Body, i int) pose {
	if i == World {
		return pose{q: mgl64.QuatIdent()}
	}
	return pose{bodies[i].Pos, bodies[i].Rot}
}

func (s pose) toLocalPoint(w mgl64.Vec3) mgl64.Vec3 { return s.q.Conjugate().Rotate(w.Sub(s.p)) }
func (s pose) toLocalVec(w mgl64.Vec3) mgl64.Vec3   { return s.q.Conjugate().Rotate(w) }

// Bodies returns the indices of the bodies the joint touches (A then B,
// World left out). The slice aliases the joint: do not modify it.
func (p *pair) Bodies() []int { return p.list[:p.nlist] }

// SetSoft makes the joint's bilateral rows compliant: stiffness k (N/m for
// translational rows, N·m/rad for rotational ones; 0 or +Inf = rigid) and
// SPOOK damping time d (s; 0 = plain Eq. 1). Limit, motor and friction
// rows stay rigid.
func (p *pair) SetSoft(k, d float64) error {
	if math.IsNaN(k) || k < 0 {
		return fieldErr(p.what, "stiffness", k, "must be ≥ 0 (0 or +Inf = rigid), got %v", k)
	}
	if !num.Finite(d) || d < 0 {
		return fieldErr(p.what, "damping time", d, "must be finite and ≥ 0 s, got %v", d)
	}
	p.k, p.d = k, d
	return nil
}

func (p *pair) poses(ctx *Context) (pa, pb pose, err error) {
	if pa, err = poseOf(ctx, p.ids[0]); err != nil {
		return
	}
	pb, err = poseOf(ctx, p.ids[1])
	return
}

// bilateral starts a bilateral row with the joint's compliance.
func (p *pair) bilateral(r *Row, phi float64) {
	r.reset(Bilateral)
	r.Phi = phi
	r.Stiffness, r.Damping = p.k, p.d
}

// ballRows writes the 3 rows φ_i = (w_a − w_b)·e_i, w = x + R l the world
// anchors. ∂/∂t: (v_a + ω_a × r_a − v_b − ω_b × r_b)·e_i, so
// J_a = [e_i, r_a × e_i], J_b = [−e_i, −r_b × e_i].
func (p *pair) ballRows(rows []Row, pa, pb pose, la, lb mgl64.Vec3) {
	wa, wb := pa.point(la), pb.point(lb)
	ra, rb := wa.Sub(pa.p), wb.Sub(pb.p)
	d := wa.Sub(wb)
	for i := 0; i < 3; i++ {
		var e mgl64.Vec3
		e[i] = 1
		r := &rows[i]
		p.bilateral(r, d[i])
		r.add(p.ids[0], e, ra.Cross(e))
		r.add(p.ids[1], e.Mul(-1), rb.Cross(e).Mul(-1))
	}
}

// lockRows writes the 3 rows locking relative orientation. With the error
// quaternion e = q_b⁻¹ q_a q₀⁻¹ = (w, v) (sign chosen so w ≥ 0; e = 1 at
// creation), φ = 2v, components in body b's frame (≈ the rotation vector of
// the error, rad). Since q̇ = ½ ω q (world ω), ė = ½ ω' e with
// ω' = R_bᵀ(ω_a − ω_b), so φ̇ = (wI − [v]×) R_bᵀ (ω_a − ω_b) and row i is
// J_a = [0, R_b (w e_i + v × e_i)], J_b = −J_a. Invariant under a common
// rotation, so the constraint torques are equal and opposite.
func (p *pair) lockRows(rows []Row, pa, pb pose, q0inv mgl64.Quat) {
	e := pb.q.Conjugate().Mul(pa.q).Mul(q0inv)
	if e.W < 0 {
		e = e.Scale(-1)
	}
	for i := 0; i < 3; i++ {
		var u mgl64.Vec3
		u[i] = 1
		g := pb.q.Rotate(u.Mul(e.W).Add(e.V.Cross(u)))
		r := &rows[i]
		p.bilateral(r, 2*e.V[i])
		r.add(p.ids[0], mgl64.Vec3{}, g)
		r.add(p.ids[1], mgl64.Vec3{}, g.Mul(-1))
	}
}

// axis is the optional limit, motor and friction rows of a hinge or
// prismatic joint on its coordinate q (θ in rad or s in m).
type axis struct {
	label            string
	lowerOn, upperOn bool
	lower, upper     float64
	motorOn          bool
	speed, maxForce  float64
	friction         float64 // 0 = off
	unit, forceUnit  string
	limitLo, limitHi float64 // admissible range of limits
	angular          bool    // q is an angle: q − reference wraps to (−π, π]

	// Passive dynamics on q (one Spring row when any is set).
	stiffness, damping, rest float64 // N·m/rad or N/m, N·m·s/rad or N·s/m, rad or m
	armature                 float64 // kg·m² or kg

	// Generalized force applied this step (a Motor row with fixed impulse).
	effortOn bool
	effort   float64 // N·m or N

	// Position servo (one bounded Spring row).
	servoOn                    bool
	target, kp, kd, servoLimit float64
}

func (x *axis) dim() int {
	n := 0
	if x.lowerOn {
		n++
	}
	if x.upperOn {
		n++
	}
	if x.motorOn {
		n++
	}
	if x.friction > 0 {
		n++
	}
	if x.passive() {
		n++
	}
	if x.servoOn {
		n++
	}
	if x.effortOn {
		n++
	}
	return n
}

// SetEffort applies the generalized force f (N·m about a hinge's axis, N
// along a slider's) on the joint's coordinate for every following step,
// until changed: a torque or force actuator, whose input a Go controller
// sets each step (stepper.Effort). It is a Motor row whose impulse is
// fixed, Lo = Hi = f h, so the bodies receive exactly Jᵀ f h — equal and
// opposite, at the step's start pose — and the row counts as driving work
// and keeps its island awake as a motor does. f = 0 keeps the row (a zero
// load); ClearEffort removes it.
func (x *axis) SetEffort(f float64) error {
	if !num.Finite(f) {
		return fieldErr(x.label, fmt.Sprintf("effort %s", x.forceUnit), f, "must be finite, got %v", f)
	}
	x.effortOn, x.effort = true, f
	return nil
}

// Effort returns the generalized force SetEffort set (0 when none).
func (x *axis) Effort() float64 { return x.effort }

// ClearEffort removes the effort row.
func (x *axis) ClearEffort() { x.effortOn, x.effort = false, 0 }

// passive reports whether the joint has a spring, damper or armature row.
func (x *axis) passive() bool { return x.stiffness > 0 || x.damping > 0 || x.armature > 0 }

// SetSpringDamper sets the joint's passive spring and damper on its
// coordinate q: generalized force −k (q − rest) − c q̇, with stiffness k
// (N·m/rad or N/m), viscous damping c (N·m·s/rad or N·s/m) and rest
// position rest (rad or m; for a hinge, q − rest wraps to (−π, π]). They
// are one implicit row (kind Spring, Row.Viscous; MuJoCo also integrates
// joint springs and dampers implicitly), stable for any step: the damped
// oscillator it models is solved by implicit Euler. k = c = 0 removes them.
func (x *axis) SetSpringDamper(k, c, rest float64) error {
	switch {
	case !num.Finite(k) || k < 0:
		return fieldErr(x.label, "stiffness", k, "must be finite and ≥ 0, got %v", k)
	case !num.Finite(c) || c < 0:
		return fieldErr(x.label, "damping", c, "must be finite and ≥ 0, got %v", c)
	case !num.Finite(rest):
		return fieldErr(x.label, "rest position", rest, "must be finite, got %v %s", rest, x.unit)
	}
	x.stiffness, x.damping, x.rest = k, c, rest
	return nil
}

// SpringDamper returns the values SetSpringDamper set.
func (x *axis) SpringDamper() (k, c, rest float64) { return x.stiffness, x.damping, x.rest }

// SetArmature adds the inertia a (kg·m² for a hinge, kg for a slider) on
// the joint coordinate, as a motor's rotor seen through its gearbox adds
// to the joint-space mass matrix's diagonal (MuJoCo's armature). It is the
// impulse −a (q̇⁺ − q̇) of that inertia over the step, written into the
// joint's Spring row (a damper c_d = a/h with target speed q̇): under a
// generalized force τ the coordinate accelerates at τ/(I + a), exactly at
// any h. a = 0 removes it.
func (x *axis) SetArmature(a float64) error {
	if !num.Finite(a) || a < 0 {
		return fieldErr(x.label, "armature", a, "must be finite and ≥ 0, got %v", a)
	}
	x.armature = a
	return nil
}

// Armature returns the armature SetArmature set.
func (x *axis) Armature() float64 { return x.armature }

// SetServo enables a position servo: the generalized force
// kp (target − q) − kd q̇, at most maxForce in magnitude (N·m or N; +Inf
// allowed), as MuJoCo's position actuator. It is one implicit row (kind
// Spring: stiffness kp, viscous kd, impulse bounds ±maxForce·h), so it is
// stable for any gains and step. kp > 0 (N·m/rad or N/m), kd ≥ 0
// (N·m·s/rad or N·s/m).
func (x *axis) SetServo(target, kp, kd, maxForce float64) error {
	switch {
	case !num.Finite(target):
		return fieldErr(x.label, "servo target", target, "must be finite, got %v %s", target, x.unit)
	case !num.Finite(kp) || kp <= 0:
		return fieldErr(x.label, "servo kp", kp, "must be finite and > 0, got %v", kp)
	case !num.Finite(kd) || kd < 0:
		return fieldErr(x.label, "servo kd", kd, "must be finite and ≥ 0, got %v", kd)
	case math.IsNaN(maxForce) || maxForce <= 0:
		return fieldErr(x.label, fmt.Sprintf("servo max %s", x.forceUnit), maxForce, "must be > 0, got %v", maxForce)
	}
	x.servoOn, x.target, x.kp, x.kd, x.servoLimit = true, target, kp, kd, maxForce
	return nil
}

// SetServoTarget moves the servo's target (rad or m), for controllers that
// change it each step; the servo must be enabled.
func (x *axis) SetServoTarget(target float64) error {
	if !x.servoOn {
		return fieldErr(x.label, "servo target", nil, "no servo (call SetServo first)")
	}
	if !num.Finite(target) {
		return fieldErr(x.label, "servo target", target, "must be finite, got %v %s", target, x.unit)
	}
	x.target = target
	return nil
}

// ClearServo removes the servo row.
func (x *axis) ClearServo() { x.servoOn = false }

// offset returns q − ref, wrapped to (−π, π] for an angle.
func (x *axis) offset(q, ref float64) float64 {
	d := q - ref
	if x.angular {
		d = math.Remainder(d, 2*math.Pi)
		if d == -math.Pi {
			d = math.Pi
		}
	}
	return d
}

// SetLimits enables a lower limit lo and an upper limit hi on the joint
// coordinate; −Inf / +Inf leaves that side free. Each enabled side adds a
// unilateral row (φ = q − lo, resp. hi − q; x ∈ [0, +Inf)).
func (x *axis) SetLimits(lo, hi float64) error {
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi):
		return fieldErr(x.label, "limits", [2]float64{lo, hi}, "must not be NaN, got [%v, %v]", lo, hi)
	case lo > hi:
		return fieldErr(x.label, "limits", [2]float64{lo, hi}, "need lower ≤ upper, got [%v, %v] %s", lo, hi, x.unit)
	case math.IsInf(lo, 1) || math.IsInf(hi, -1):
		return fieldErr(x.label, "limits", [2]float64{lo, hi}, "lower must be < +Inf and upper > −Inf, got [%v, %v]", lo, hi)
	case !math.IsInf(lo, -1) && lo < x.limitLo, !math.IsInf(hi, 1) && hi > x.limitHi:
		return fieldErr(x.label, "limits", [2]float64{lo, hi}, "must lie in [%v, %v] %s, got [%v, %v]", x.limitLo, x.limitHi, x.unit, lo, hi)
	}
	x.lowerOn, x.lower = !math.IsInf(lo, -1), lo
	x.upperOn, x.upper = !math.IsInf(hi, 1), hi
	return nil
}

// ClearLimits removes both limit rows.
func (x *axis) ClearLimits() { x.lowerOn, x.upperOn = false, false }

// SetMotor enables a velocity motor: a row asking q̇ = speed (rad/s or m/s)
// with |force| ≤ maxForce (N·m or N; +Inf allowed), i.e. bounds
// ±maxForce·h on the impulse.
func (x *axis) SetMotor(speed, maxForce float64) error {
	if !num.Finite(speed) {
		return fieldErr(x.label, "motor speed", speed, "must be finite, got %v", speed)
	}
	if math.IsNaN(maxForce) || maxForce < 0 {
		return fieldErr(x.label, fmt.Sprintf("motor max %s", x.forceUnit), maxForce, "must be ≥ 0, got %v", maxForce)
	}
	x.motorOn, x.speed, x.maxForce = true, speed, maxForce
	return nil
}

// ClearMotor removes the motor row.
func (x *axis) ClearMotor() { x.motorOn = false }

// SetFriction sets joint friction: a row asking q̇ = 0 with |force| ≤ f
// (N·m or N), bounds ±f·h. f = 0 removes the row.
func (x *axis) SetFriction(f float64) error {
	if math.IsNaN(f) || f < 0 {
		return fieldErr(x.label, fmt.Sprintf("friction %s", x.forceUnit), f, "must be ≥ 0, got %v", f)
	}
	x.friction = f
	return nil
}

// fill writes the optional rows for coordinate q with q̇ = J v given by the
// blocks (la, aa) for body a and (lb, ab) for body b; ctx gives the step and
// the velocities at its start (armature).
func (x *axis) fill(rows []Row, ids [2]int, ctx *Context, q float64, la, aa, lb, ab mgl64.Vec3) {
	h := ctx.H
	n := 0
	put := func(k Kind, sign float64) *Row {
		r := &rows[n]
		n++
		r.reset(k)
		r.add(ids[0], la.Mul(sign), aa.Mul(sign))
		r.add(ids[1], lb.Mul(sign), ab.Mul(sign))
		return r
	}
	if x.lowerOn {
		r := put(LimitLower, 1)
		r.Phi, r.Lo = q-x.lower, 0
	}
	if x.upperOn {
		r := put(LimitUpper, -1)
		r.Phi, r.Lo = x.upper-q, 0
	}
	if x.motorOn {
		r := put(Motor, 1)
		r.Speed, r.Lo, r.Hi = x.speed, -x.maxForce*h, x.maxForce*h
	}
	if x.friction > 0 {
		r := put(Friction, 1)
		r.Lo, r.Hi = -x.friction*h, x.friction*h
	}
	if x.passive() {
		// λ = −k φ⁺ − (c + a/h) q̇⁺ + (a/h) q̇: with s = h k + c + a/h the
		// row's λ is −s q̇⁺ − k φ + s·Speed, so Speed = a q̇ / (h s).
		r := put(Spring, 1)
		r.Phi, r.Stiffness = x.offset(q, x.rest), x.stiffness
		r.Viscous = x.damping + x.armature/h
		if x.armature > 0 && ctx.Bodies != nil {
			r.Speed = x.armature * r.Velocity(ctx.Bodies) / (h * (h*x.stiffness + r.Viscous))
		}
	}
	if x.servoOn {
		r := put(Spring, 1)
		r.Phi, r.Stiffness, r.Viscous = x.offset(q, x.target), x.kp, x.kd
		r.Lo, r.Hi = -x.servoLimit*h, x.servoLimit*h
		r.Actuator = true
	}
	if x.effortOn {
		r := put(Motor, 1)
		r.Lo, r.Hi = x.effort*h, x.effort*h
	}
}

// stepless returns ctx with H = 1: Violation needs the poses but not the
// step, which only scales bounds.
func stepless(ctx *Context) Context {
	if ctx == nil {
		return Context{H: 1}
	}
	return Context{Bodies: ctx.Bodies, H: 1}
}

// copyPhi copies φ of the filled rows into dst (Violation's tail). Each
// joint fills a stack buffer through its concrete Fill, which keeps
// Violation allocation-free.
func copyPhi(err error, rows []Row, dst []float64) error {
	if err != nil {
		return err
	}
	for i := range rows {
		dst[i] = rows[i].Phi
	}
	return nil
}

func checkDst(dst []float64, n int) error {
	if len(dst) < n {
		return fmt.Errorf("constraint: Violation: dst has %d entries, need %d", len(dst), n)
	}
	return nil
}

// maxJointRows is the most rows a joint of this package has (hinge or
// prismatic with both limits, a motor, friction, a spring row, a servo and
// an effort).
const maxJointRows = 12

// Perp returns two unit vectors p1, p2 with (p1, p2, n) a right-handed
// orthonormal basis, for unit n. The choice depends only on n (it is
// deterministic), which contact friction directions rely on.
func Perp(n mgl64.Vec3) (p1, p2 mgl64.Vec3) { return num.Perp(n) }
