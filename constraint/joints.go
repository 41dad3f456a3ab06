package constraint

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"
)

// Compile-time checks of the contract.
var (
	_ Positional = (*Fixed)(nil)
	_ Positional = (*Ball)(nil)
	_ Positional = (*Hinge)(nil)
	_ Positional = (*Prismatic)(nil)
	_ Positional = (*Distance)(nil)
	_ Constraint = (*GearJoint)(nil)
	_ Constraint = (*DifferentialJoint)(nil)
	_ Axial      = (*Hinge)(nil)
	_ Axial      = (*Prismatic)(nil)
)

// Wrench is a force (N, through the centre of mass) and torque (N·m) on
// one body, world frame; Body is World for a joint's static side.
type Wrench struct {
	Body          int
	Force, Torque mgl64.Vec3
}

// Axial is a one-coordinate joint (Hinge, Prismatic) whose coordinate can
// be driven: SetEffort applies a generalized force f on the coordinate
// from the next step on; AxisWrench maps f to the equal and opposite
// wrenches on its two bodies (Jᵀ f of the coordinate's row).
type Axial interface {
	Constraint
	SetEffort(f float64) error
	AxisWrench(ctx *Context, f float64) ([2]Wrench, error)
}

// wrenches is Jᵀ f for ids and the blocks (la, aa), (lb, ab).
func wrenches(ids [2]int, f float64, la, aa, lb, ab mgl64.Vec3) [2]Wrench {
	return [2]Wrench{{ids[0], la.Mul(f), aa.Mul(f)}, {ids[1], lb.Mul(f), ab.Mul(f)}}
}

// Ball is a spherical joint: the anchor points of A and B coincide. 3
// bilateral rows, φ = w_a − w_b (world x, y, z components, m).
type Ball struct {
	pair
	la, lb mgl64.Vec3 // anchors in A's and B's frames
	// Swing (cone) limit: the angle θ between t_a (fixed in A) and t_b
	// (fixed in B) stays ≤ swing; off when swing = 0.
	swing  float64
	ta, tb mgl64.Vec3
	// Twist limits: the angle about the twist axis (relAngle of u_a in
	// the plane ⟂ n_b) stays in [twistLo, twistHi]; off when twistOn is
	// false.
	twistOn          bool
	twistLo, twistHi float64
	twua, twub, twvb mgl64.Vec3
	twnb             mgl64.Vec3
}

// NewBall joins bodies a and b (one may be World) at the world point pivot,
// given in the current pose.
func NewBall(bodies []*body.Body, a, b int, pivot mgl64.Vec3) (*Ball, error) {
	p, err := newPair("ball joint", bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot", pivot); err != nil {
		return nil, err
	}
	return &Ball{pair: p,
		la: localPose(bodies, a).toLocalPoint(pivot),
		lb: localPose(bodies, b).toLocalPoint(pivot)}, nil
}

// Dim returns 3, plus 1 with a swing limit and 2 with twist limits.
func (j *Ball) Dim() int {
	n := 3
	if j.swing > 0 {
		n++
	}
	if j.twistOn {
		n += 2
	}
	return n
}

// SetTwistLimits limits the twist of A relative to B about the world axis
// axisW (taken in the bodies' current pose, twist 0 now; bodies is the
// slice the joint was built with) to [lo, hi] (rad, −π ≤ lo < hi ≤ π).
// The twist τ is the angle of a reference u_a ⟂ axis, fixed in A, in the
// plane ⟂ the axis fixed in B: τ = atan2(u_a·v_b, u_a·u_b), the Hinge's
// angle, exact about the axis and a projection when A also swings. Two
// unilateral rows after the swing row: φ = τ − lo (LimitLower) and
// φ = hi − τ (LimitUpper), J = ±[0, g] with τ̇ = g·(ω_a − ω_b).
func (j *Ball) SetTwistLimits(bodies []*body.Body, axisW mgl64.Vec3, lo, hi float64) error {
	if !(lo >= -math.Pi && lo < hi && hi <= math.Pi) {
		return fieldErr(j.what, "twist limits", [2]float64{lo, hi}, "need −π ≤ lower < upper ≤ π rad, got [%v, %v]", lo, hi)
	}
	t, err := unitAxis(j.what, "twist axis", axisW)
	if err != nil {
		return err
	}
	for _, i := range j.ids {
		if err := checkIndex(j.what, "bodies", bodies, i); err != nil {
			return err
		}
	}
	sa, sb := localPose(bodies, j.ids[0]), localPose(bodies, j.ids[1])
	p1, p2 := num.Perp(t)
	j.twua, j.twub, j.twvb, j.twnb = sa.toLocalVec(p1), sb.toLocalVec(p1), sb.toLocalVec(p2), sb.toLocalVec(t)
	j.twistOn, j.twistLo, j.twistHi = true, lo, hi
	return nil
}

// ClearTwistLimits removes the twist rows.
func (j *Ball) ClearTwistLimits() { j.twistOn = false }

// SetSwingLimit limits the swing of A relative to B (bodies is the slice
// the joint was built with): the angle θ between the world axis axisW,
// taken in the bodies' current pose as t_a fixed in A and
// t_b fixed in B (θ = 0 now), stays ≤ angle (rad, in (0, π)), a cone about
// t_b (PhysX's and Bullet's swing limit, without twist). One unilateral
// row of kind LimitUpper: φ = angle − θ, θ = acos(t_a·t_b), and
// φ̇ = (ω_a − ω_b)·u with u = t_a × t_b/|t_a × t_b| (from
// θ̇ = −(t_a·t_b)˙/sin θ), so J_a = [0, u], J_b = −J_a; u is any
// perpendicular of t_b when θ = 0, where the limit is far from active.
// angle = 0 removes the limit.
func (j *Ball) SetSwingLimit(bodies []*body.Body, axisW mgl64.Vec3, angle float64) error {
	if angle == 0 {
		j.swing = 0
		return nil
	}
	if !(angle > 0 && angle < math.Pi) {
		return fieldErr(j.what, "swing limit", angle, "angle must be in (0, π) rad (0 = none), got %v", angle)
	}
	t, err := unitAxis(j.what, "swing axis", axisW)
	if err != nil {
		return err
	}
	for _, i := range j.ids {
		if err := checkIndex(j.what, "bodies", bodies, i); err != nil {
			return err
		}
	}
	j.ta = localPose(bodies, j.ids[0]).toLocalVec(t)
	j.tb = localPose(bodies, j.ids[1]).toLocalVec(t)
	j.swing = angle
	return nil
}

// Fill writes the 3 rows (pair.ballRows) and the swing-limit row.
func (j *Ball) Fill(rows []Row, ctx *Context) error {
	n := j.Dim()
	if err := checkStep(j.what, rows, n, ctx); err != nil {
		return err
	}
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return err
	}
	j.ballRows(rows, pa, pb, j.la, j.lb)
	if n > 3 {
		ta, tb := pa.vec(j.ta), pb.vec(j.tb)
		c := math.Max(-1, math.Min(1, ta.Dot(tb)))
		u := ta.Cross(tb)
		if l := u.Len(); l > 1e-12 {
			u = u.Mul(1 / l)
		} else {
			u, _ = num.Perp(tb)
		}
		r := &rows[3]
		r.reset(LimitUpper)
		r.Phi, r.Lo = j.swing-math.Acos(c), 0
		r.add(j.ids[0], mgl64.Vec3{}, u)
		r.add(j.ids[1], mgl64.Vec3{}, u.Mul(-1))
	}
	if j.twistOn {
		tw, g := relAngle(pa, pb, j.twua, j.twub, j.twvb, j.twnb)
		lo, hi := &rows[n-2], &rows[n-1]
		lo.reset(LimitLower)
		lo.Phi, lo.Lo = tw-j.twistLo, 0
		lo.add(j.ids[0], mgl64.Vec3{}, g)
		lo.add(j.ids[1], mgl64.Vec3{}, g.Mul(-1))
		hi.reset(LimitUpper)
		hi.Phi, hi.Lo = j.twistHi-tw, 0
		hi.add(j.ids[0], mgl64.Vec3{}, g.Mul(-1))
		hi.add(j.ids[1], mgl64.Vec3{}, g)
	}
	return nil
}

// Violation writes the 3 components of φ (m).
func (j *Ball) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}

// Fixed welds A to B: 3 ball rows at the pivot, then 3 rows locking the
// relative orientation (pair.lockRows; φ ≈ rotation error in B's frame, rad).
type Fixed struct {
	pair
	la, lb mgl64.Vec3
	q0inv  mgl64.Quat // (q_b⁻¹ q_a)⁻¹ at creation
}

// NewFixed welds a and b (one may be World) in their current poses; pivot
// (world) is where the translational rows act.
func NewFixed(bodies []*body.Body, a, b int, pivot mgl64.Vec3) (*Fixed, error) {
	p, err := newPair("fixed joint", bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot", pivot); err != nil {
		return nil, err
	}
	sa, sb := localPose(bodies, a), localPose(bodies, b)
	return &Fixed{pair: p, la: sa.toLocalPoint(pivot), lb: sb.toLocalPoint(pivot),
		q0inv: sa.q.Conjugate().Mul(sb.q)}, nil
}

// Dim returns 6.
func (j *Fixed) Dim() int { return 6 }

// Fill writes 3 translational then 3 rotational rows.
func (j *Fixed) Fill(rows []Row, ctx *Context) error {
	if err := checkStep(j.what, rows, 6, ctx); err != nil {
		return err
	}
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return err
	}
	j.ballRows(rows, pa, pb, j.la, j.lb)
	j.lockRows(rows[3:], pa, pb, j.q0inv)
	return nil
}

// Violation writes φ of the 6 rows (m, m, m, rad, rad, rad).
func (j *Fixed) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}

// Hinge is a revolute joint: a ball joint at the pivot plus 2 rows keeping
// A's axis n_a perpendicular to two vectors p₁, p₂ fixed in B and normal to
// B's axis: φ_k = n_a·p_k, J_a = [0, n_a × p_k], J_b = −J_a (from
// d(a·b)/dt = (ω_a − ω_b)·(a × b) for a fixed in A, b fixed in B).
//
// The angle θ ∈ (−π, π] is A's rotation relative to B about the axis,
// 0 at creation: with reference vectors u_a (in A), u_b and v_b = n_b × u_b
// (in B), x = u_a·u_b, y = u_a·v_b, θ = atan2(y, x) and
// θ̇ = (x ẏ − y ẋ)/(x² + y²) = g·(ω_a − ω_b),
// g = (x (u_a × v_b) − y (u_a × u_b))/(x² + y²) (g = n when the axes are
// aligned). Optional rows, in this order after the 5: lower limit
// (φ = θ − θ_lo), upper limit (φ = θ_hi − θ), motor (θ̇ = speed, torque
// bound), friction (θ̇ = 0, torque bound), spring-damper-armature
// (SetSpringDamper, SetArmature; φ = θ − rest), servo (SetServo;
// φ = θ − target, torque bound).
//
// SetReference makes θ a continuous angle measured from a reference: θ₀
// at creation, then θ = θ₀ + atan2(y, x) + 2πk with the turn count k
// chosen so that θ is the value nearest the last one evaluated (the
// unwrapped angle, as a generalized coordinate such as MuJoCo's qpos).
// Its limits, spring rest and servo target are then in the same
// coordinate, with no wrap: a range [−0.4, 5.4] rad around θ₀ = 2.5, or
// one spanning more than a turn, holds where the plain angle would jump
// at ±π. k is exact while the joint turns by less than π between two
// evaluations (the stepper evaluates every joint at least once a step, so
// |θ̇| h < π).
type Hinge struct {
	pair
	axis
	la, lb     mgl64.Vec3
	na, nb     mgl64.Vec3 // axis in A's and B's frames
	p1b, p2b   mgl64.Vec3 // ⟂ n_b, in B's frame
	ua, ub, vb mgl64.Vec3 // angle references

	// Continuous angle (SetReference): on, θ₀ and the last θ evaluated.
	tracked   bool
	ref, last float64
}

// NewHinge joins a and b (one may be World) at the world point pivot with
// the world axis (any non-zero length), in the current pose (θ = 0).
func NewHinge(bodies []*body.Body, a, b int, pivot, axisW mgl64.Vec3) (*Hinge, error) {
	p, err := newPair("hinge", bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot", pivot); err != nil {
		return nil, err
	}
	n, err := unitAxis(p.what, "axis", axisW)
	if err != nil {
		return nil, err
	}
	sa, sb := localPose(bodies, a), localPose(bodies, b)
	p1, p2 := num.Perp(n)
	j := &Hinge{pair: p,
		axis: axis{label: p.what, unit: "rad", forceUnit: "torque (N·m)", limitLo: -math.Pi, limitHi: math.Pi, angular: true},
		la:   sa.toLocalPoint(pivot), lb: sb.toLocalPoint(pivot),
		na: sa.toLocalVec(n), nb: sb.toLocalVec(n),
		p1b: sb.toLocalVec(p1), p2b: sb.toLocalVec(p2),
		ua: sa.toLocalVec(p1), ub: sb.toLocalVec(p1), vb: sb.toLocalVec(p2),
	}
	return j, nil
}

// Dim returns 5 plus one per enabled limit side, motor and friction.
func (j *Hinge) Dim() int { return 5 + j.axis.dim() }

// SetReference makes the hinge's angle continuous, θ0 (rad, finite) at
// the pose the joint was built in: Angle, the limits, the spring's rest
// and the servo's target are then measured in that coordinate, limits may
// lie anywhere (a range past ±π from the start, or of several turns), and
// θ − rest and θ − target no longer wrap to (−π, π] (the Hinge doc says
// how turns are counted). Call it before the first step; limits, spring
// and servo set before it keep their numbers in the new coordinate.
func (j *Hinge) SetReference(theta0 float64) error {
	if !num.Finite(theta0) {
		return fieldErr(j.what, "reference angle", theta0, "must be finite, got %v rad", theta0)
	}
	j.tracked, j.ref, j.last = true, theta0, theta0
	j.axis.angular = false
	j.axis.limitLo, j.axis.limitHi = math.Inf(-1), math.Inf(1)
	return nil
}

// Reference returns θ₀ of SetReference and whether the angle is
// continuous (false: θ ∈ (−π, π], 0 at creation).
func (j *Hinge) Reference() (theta0 float64, continuous bool) { return j.ref, j.tracked }

// angle returns θ and its Jacobian direction g (θ̇ = g·(ω_a − ω_b)); a
// continuous angle (SetReference) moves on from the last one.
func (j *Hinge) angle(pa, pb pose) (theta float64, g mgl64.Vec3) {
	theta, g = relAngle(pa, pb, j.ua, j.ub, j.vb, j.nb)
	if j.tracked {
		theta = j.ref + theta
		theta += 2 * math.Pi * math.Round((j.last-theta)/(2*math.Pi))
		j.last = theta
	}
	return theta, g
}

// relAngle returns the angle θ = atan2(u_a·v_b, u_a·u_b) of reference u_a
// (in A's frame) in the plane of u_b, v_b (in B's frame, ⟂ n_b) and its
// Jacobian direction g, θ̇ = g·(ω_a − ω_b) (the Hinge doc derives it).
func relAngle(pa, pb pose, lua, lub, lvb, lnb mgl64.Vec3) (theta float64, g mgl64.Vec3) {
	ua, ub, vb := pa.vec(lua), pb.vec(lub), pb.vec(lvb)
	x, y := ua.Dot(ub), ua.Dot(vb)
	r2 := x*x + y*y
	theta = math.Atan2(y, x)
	if theta == -math.Pi {
		theta = math.Pi
	}
	if r2 < 1e-24 {
		// A's reference lies along B's axis: the axes are ~90° apart and θ is
		// undefined. Use B's axis; the two axis rows are far from satisfied.
		return theta, pb.vec(lnb)
	}
	g = ua.Cross(vb).Mul(x).Sub(ua.Cross(ub).Mul(y)).Mul(1 / r2)
	return theta, g
}

// Angle returns the hinge angle θ (rad) for the bodies in ctx: in
// (−π, π], or the continuous angle after SetReference.
func (j *Hinge) Angle(ctx *Context) (float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, err
	}
	th, _ := j.angle(pa, pb)
	return th, nil
}

// AngleRate returns θ̇ (rad/s), the rate of Angle for the bodies' current
// angular velocities in ctx: g·(ω_a − ω_b), the hinge's axis-row Jacobian.
func (j *Hinge) AngleRate(ctx *Context) (float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, err
	}
	_, g := j.angle(pa, pb)
	_, wa := velOf(ctx, j.ids[0])
	_, wb := velOf(ctx, j.ids[1])
	return g.Dot(wa.Sub(wb)), nil
}

// AxisWrench returns the torques on A and B of a generalized torque f
// (N·m) about the hinge axis, Jᵀ f for the angle row: f g on A, −f g on B
// (g = n when the axes are aligned), for the bodies' poses in ctx.
func (j *Hinge) AxisWrench(ctx *Context, f float64) ([2]Wrench, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return [2]Wrench{}, err
	}
	_, g := j.angle(pa, pb)
	return wrenches(j.ids, f, mgl64.Vec3{}, g, mgl64.Vec3{}, g.Mul(-1)), nil
}

// Fill writes the 3 ball rows, the 2 axis rows and the optional rows.
func (j *Hinge) Fill(rows []Row, ctx *Context) error {
	n := j.Dim()
	if err := checkStep(j.what, rows, n, ctx); err != nil {
		return err
	}
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return err
	}
	j.ballRows(rows, pa, pb, j.la, j.lb)
	na := pa.vec(j.na)
	for k, pk := range [2]mgl64.Vec3{pb.vec(j.p1b), pb.vec(j.p2b)} {
		r := &rows[3+k]
		j.bilateral(r, na.Dot(pk))
		g := na.Cross(pk)
		r.add(j.ids[0], mgl64.Vec3{}, g)
		r.add(j.ids[1], mgl64.Vec3{}, g.Mul(-1))
	}
	if n > 5 || j.tracked {
		th, g := j.angle(pa, pb) // a continuous angle counts turns even without rows
		if n == 5 {
			return nil
		}
		j.axis.fill(rows[5:n], j.ids, ctx, th, mgl64.Vec3{}, g, mgl64.Vec3{}, g.Mul(-1))
	}
	return nil
}

// Violation writes φ of the Dim() rows (m ×3, then dimensionless ≈ rad ×2,
// then rad for limits, 0 for motor and friction rows).
func (j *Hinge) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}

// Prismatic is a slider: A translates relative to B along an axis fixed in
// B, without relative rotation. Rows: 3 orientation-lock rows (as Fixed),
// then 2 rows φ_k = d·p_k with d = w_a − w_b the anchor separation and p₁,
// p₂ ⟂ the axis, fixed in B:
// J_a = [p_k, r_a × p_k], J_b = [−p_k, −(w_a − x_b) × p_k]
// (the −(w_a − x_b) term collects ṗ_k = ω_b × p_k and the motion of w_b).
// The slide s = d·n (m, 0 at creation) has the same Jacobian form with n;
// optional rows, in order: lower limit (φ = s − lo), upper limit
// (φ = hi − s), motor (ṡ = speed, force bound), friction (ṡ = 0, force
// bound), spring-damper-armature (φ = s − rest), servo (φ = s − target,
// force bound), effort (fixed impulse).
type Prismatic struct {
	pair
	axis
	la, lb       mgl64.Vec3
	q0inv        mgl64.Quat
	nb, p1b, p2b mgl64.Vec3
}

// NewPrismatic joins a and b (one may be World) sliding along the world
// axis, with the anchor at the world point pivot, in the current pose.
func NewPrismatic(bodies []*body.Body, a, b int, pivot, axisW mgl64.Vec3) (*Prismatic, error) {
	p, err := newPair("prismatic joint", bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot", pivot); err != nil {
		return nil, err
	}
	n, err := unitAxis(p.what, "axis", axisW)
	if err != nil {
		return nil, err
	}
	sa, sb := localPose(bodies, a), localPose(bodies, b)
	p1, p2 := num.Perp(n)
	return &Prismatic{pair: p,
		axis: axis{label: p.what, unit: "m", forceUnit: "force (N)", limitLo: math.Inf(-1), limitHi: math.Inf(1)},
		la:   sa.toLocalPoint(pivot), lb: sb.toLocalPoint(pivot),
		q0inv: sa.q.Conjugate().Mul(sb.q),
		nb:    sb.toLocalVec(n), p1b: sb.toLocalVec(p1), p2b: sb.toLocalVec(p2),
	}, nil
}

// Dim returns 5 plus one per enabled limit side, motor and friction.
func (j *Prismatic) Dim() int { return 5 + j.axis.dim() }

// Fill writes the 3 lock rows, the 2 perpendicular rows and the optional
// rows.
func (j *Prismatic) Fill(rows []Row, ctx *Context) error {
	n := j.Dim()
	if err := checkStep(j.what, rows, n, ctx); err != nil {
		return err
	}
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return err
	}
	j.lockRows(rows, pa, pb, j.q0inv)
	wa := pa.point(j.la)
	d := wa.Sub(pb.point(j.lb))
	ra, rab := wa.Sub(pa.p), wa.Sub(pb.p)
	for k, pk := range [2]mgl64.Vec3{pb.vec(j.p1b), pb.vec(j.p2b)} {
		r := &rows[3+k]
		j.bilateral(r, d.Dot(pk))
		r.add(j.ids[0], pk, ra.Cross(pk))
		r.add(j.ids[1], pk.Mul(-1), rab.Cross(pk).Mul(-1))
	}
	if n > 5 {
		nw := pb.vec(j.nb)
		j.axis.fill(rows[5:n], j.ids, ctx, d.Dot(nw), nw, ra.Cross(nw), nw.Mul(-1), rab.Cross(nw).Mul(-1))
	}
	return nil
}

// AxisWrench returns the forces and torques on A and B of a generalized
// force f (N) along the slide, Jᵀ f for the slide row: f n at A's anchor on
// A, the opposite on B at the same point, for the bodies' poses in ctx.
func (j *Prismatic) AxisWrench(ctx *Context, f float64) ([2]Wrench, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return [2]Wrench{}, err
	}
	wa, n := pa.point(j.la), pb.vec(j.nb)
	return wrenches(j.ids, f, n, wa.Sub(pa.p).Cross(n), n.Mul(-1), wa.Sub(pb.p).Cross(n).Mul(-1)), nil
}

// Slide returns s (m), A's displacement relative to B along the axis.
func (j *Prismatic) Slide(ctx *Context) (float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, err
	}
	return pa.point(j.la).Sub(pb.point(j.lb)).Dot(pb.vec(j.nb)), nil
}

// SlideRate returns ṡ (m/s), the rate of Slide for the bodies' current
// velocities in ctx: the slide row's J v, with A's anchor w_a moving with
// A and the axis n turning with B,
// ṡ = n·(v_a + ω_a × (w_a − x_a)) − n·(v_b + ω_b × (w_a − x_b)).
func (j *Prismatic) SlideRate(ctx *Context) (float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, err
	}
	wa, n := pa.point(j.la), pb.vec(j.nb)
	va, oa := velOf(ctx, j.ids[0])
	vb, ob := velOf(ctx, j.ids[1])
	return n.Dot(va.Add(oa.Cross(wa.Sub(pa.p)))) - n.Dot(vb.Add(ob.Cross(wa.Sub(pb.p)))), nil
}

// Violation writes φ of the Dim() rows (≈ rad ×3, m ×2, m for limits, 0
// for motor and friction rows).
func (j *Prismatic) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}

// Distance keeps the anchors of A and B at distance L: one bilateral row,
// φ = |d| − L with d = w_a − w_b, n = d/|d|, J_a = [n, r_a × n],
// J_b = [−n, −r_b × n]. If the anchors coincide n is undefined and world z
// is used.
type Distance struct {
	pair
	la, lb mgl64.Vec3
	length float64
}

// NewDistance keeps the world points pivotA (on a) and pivotB (on b), given
// in the current pose, at distance length (m, finite and > 0).
func NewDistance(bodies []*body.Body, a, b int, pivotA, pivotB mgl64.Vec3, length float64) (*Distance, error) {
	return newDistance("distance joint", bodies, a, b, pivotA, pivotB, length)
}

// newDistance is NewDistance for a joint named what (Distance, Rope).
func newDistance(what string, bodies []*body.Body, a, b int, pivotA, pivotB mgl64.Vec3, length float64) (*Distance, error) {
	p, err := newPair(what, bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot A", pivotA); err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot B", pivotB); err != nil {
		return nil, err
	}
	if !num.Finite(length) || length <= 0 {
		return nil, fieldErr(p.what, "length", length, "must be finite and > 0 m, got %v", length)
	}
	return &Distance{pair: p, la: localPose(bodies, a).toLocalPoint(pivotA),
		lb: localPose(bodies, b).toLocalPoint(pivotB), length: length}, nil
}

// Dim returns 1.
func (j *Distance) Dim() int { return 1 }

// Fill writes the row.
func (j *Distance) Fill(rows []Row, ctx *Context) error {
	if err := checkStep(j.what, rows, 1, ctx); err != nil {
		return err
	}
	l, ja, jb, err := j.line(ctx)
	if err != nil {
		return err
	}
	r := &rows[0]
	j.bilateral(r, l-j.length)
	r.add(j.ids[0], ja[0], ja[1])
	r.add(j.ids[1], jb[0], jb[1])
	return nil
}

// line returns the anchors' distance l = |d| and the Jacobian blocks of
// l: J_a = [n, r_a × n], J_b = −[n, r_b × n] (n = d/l, world z if l = 0).
func (j *Distance) line(ctx *Context) (l float64, ja, jb [2]mgl64.Vec3, err error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, ja, jb, err
	}
	wa, wb := pa.point(j.la), pb.point(j.lb)
	d := wa.Sub(wb)
	l = d.Len()
	n := mgl64.Vec3{0, 0, 1}
	if l > 0 {
		n = d.Mul(1 / l)
	}
	ja = [2]mgl64.Vec3{n, wa.Sub(pa.p).Cross(n)}
	jb = [2]mgl64.Vec3{n.Mul(-1), wb.Sub(pb.p).Cross(n).Mul(-1)}
	return l, ja, jb, nil
}

// Violation writes φ = |d| − L (m).
func (j *Distance) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}
