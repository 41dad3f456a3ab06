package body

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// Tolerances used by Validate.
const (
	// UnitQuatTol is how far |q| may be from 1 for Rot to count as a unit
	// quaternion (dimensionless). Integrators renormalize every step, so a
	// larger departure means a bug or bad input, not rounding.
	UnitQuatTol = 1e-9
	// SymmetryTol is the relative tolerance on |I_ij − I_ji| / max|I_kl|.
	SymmetryTol = 1e-12
	// TriangleTol is the relative tolerance of the triangle inequality of
	// the principal moments, I_i ≤ I_j + I_k + TriangleTol·tr(I): a thin
	// disc or rod sits on its boundary, and moments rounded to 7
	// significant digits must still pass; [1, 1, 10] kg·m², which no mass
	// distribution has, fails by 8/12 of the trace.
	TriangleTol = 1e-6
)

// Velocity bounds checked by Validate. A rigid-body step squares
// velocities (kinetic energy, the gyroscopic term ω × Iω, the error
// measures' b²/a), so unbounded ones overflow to Inf and NaN; these bounds
// are far beyond any rigid-body motion and keep those squares below 1e20.
const (
	// MaxSpeed is the largest |v| (m/s): the speed of light, beyond which
	// Newtonian rigid-body mechanics means nothing.
	MaxSpeed = 299792458.0
	// MaxAngVel is the largest |ω| (rad/s), ten times the fastest spin
	// measured for a rotor (a levitated nanoparticle, about 1e9 rad/s).
	MaxAngVel = 1e10
)

// Body is one rigid body: mass properties, pose, velocities and the applied
// force and torque accumulated for the current step. All vectors are in the
// world frame except Inertia, which is in the body frame about the centre of
// mass. The generalized velocity is [Vel; AngVel] (package doc).
type Body struct {
	Name    string     // for messages and output; need not be unique
	Mass    float64    // m, kg; > 0 for dynamic bodies, may be 0 for static ones
	Inertia mgl64.Mat3 // I, body-frame inertia about the COM, kg·m²; symmetric positive definite
	Pos     mgl64.Vec3 // x, centre of mass, m
	Rot     mgl64.Quat // q, unit quaternion, body frame → world frame
	Vel     mgl64.Vec3 // v, COM velocity, m/s
	AngVel  mgl64.Vec3 // ω, angular velocity, rad/s
	Force   mgl64.Vec3 // f, applied force accumulated this step, N
	Torque  mgl64.Vec3 // τ, applied torque about the COM accumulated this step, N·m
	Static  bool       // static bodies have infinite mass: InvMass and InvInertiaWorld are zero
	// Kinematic bodies also have infinite mass (InvMass and
	// InvInertiaWorld are zero) but move: the stepper advances their pose
	// by Vel and AngVel, which the user (a controller) sets, and their
	// velocity enters the contact rows they take part in. Mass and
	// Inertia are ignored as for a static body. Static and Kinematic
	// exclude each other.
	Kinematic bool
}

// Params holds the fields of a new Body; see Body for units.
type Params struct {
	Name    string
	Mass    float64
	Inertia mgl64.Mat3
	Pos     mgl64.Vec3
	Rot     mgl64.Quat // must be a unit quaternion: use mgl64.QuatIdent() for no rotation
	Vel     mgl64.Vec3
	AngVel  mgl64.Vec3
	Force   mgl64.Vec3
	Torque  mgl64.Vec3
	Static  bool
	// Kinematic: see Body.Kinematic.
	Kinematic bool
}

// New returns a Body with the given fields, or the error of Validate.
func New(p Params) (*Body, error) {
	b := Body(p)
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return &b, nil
}

// FieldError reports one invalid field, with the fields What (of what:
// "body"), Name (the body's Name), Field (e.g. "Mass", "Inertia", "Rot"),
// Value (the field's value) and Reason. It is the one field-error type of
// gorigid: contact.FieldError is the same type, and constraint.Row and
// stepper.Settings Validate with it too.
type FieldError = num.FieldError

// Validate checks the body and returns every problem found, joined
// (errors.Join of *FieldError values), or nil:
//
//   - Mass finite and > 0 (dynamic), finite and ≥ 0 (static);
//   - Inertia finite and symmetric (relative SymmetryTol); positive definite
//     (Cholesky) for dynamic bodies;
//   - Rot finite with ||q| − 1| ≤ UnitQuatTol. Validate never normalizes: a
//     zero quaternion is an error, not the identity;
//   - Inertia's principal moments obey the triangle inequality
//     I_i ≤ I_j + I_k (relative TriangleTol), as every mass distribution's do;
//   - Pos, Vel, AngVel, Force, Torque finite; |Vel| ≤ MaxSpeed,
//     |AngVel| ≤ MaxAngVel, and the kinetic energy ½m|v|² + ½ωᵀIω finite.
func (b *Body) Validate() error {
	var errs []error
	bad := func(field string, value any, format string, args ...any) {
		errs = append(errs, &FieldError{What: "body", Name: b.Name, Field: field, Value: value, Reason: fmt.Sprintf(format, args...)})
	}
	if b.Static && b.Kinematic {
		bad("Kinematic", b.Kinematic, "a body cannot be both static and kinematic")
	}
	if b.Static || b.Kinematic {
		if !num.Finite(b.Mass) || b.Mass < 0 {
			bad("Mass", b.Mass, "must be finite and ≥ 0 for a static or kinematic body, got %v", b.Mass)
		}
	} else if !num.Finite(b.Mass) || b.Mass <= 0 {
		bad("Mass", b.Mass, "must be finite and > 0, got %v", b.Mass)
	} else if !num.Finite(1 / b.Mass) {
		bad("Mass", b.Mass, "1/m overflows, got %v", b.Mass)
	}
	if err := checkInertia(b.Inertia, !b.Static && !b.Kinematic); err != "" {
		bad("Inertia", b.Inertia, "%s, got %v", err, rowsString(b.Inertia))
	}
	q := b.Rot
	if !num.Finite(q.W) || !num.FiniteVec(q.V) {
		bad("Rot", b.Rot, "must be finite, got (w=%v x=%v y=%v z=%v)", q.W, q.V[0], q.V[1], q.V[2])
	} else if n := quatLen(q); math.Abs(n-1) > UnitQuatTol {
		bad("Rot", b.Rot, "must be a unit quaternion (||q|-1| ≤ %g), got |q| = %v (w=%v x=%v y=%v z=%v); use mgl64.QuatIdent() for no rotation",
			UnitQuatTol, n, q.W, q.V[0], q.V[1], q.V[2])
	}
	for _, f := range []struct {
		name string
		v    mgl64.Vec3
	}{{"Pos", b.Pos}, {"Vel", b.Vel}, {"AngVel", b.AngVel}, {"Force", b.Force}, {"Torque", b.Torque}} {
		if !num.FiniteVec(f.v) {
			bad(f.name, f.v, "must be finite, got %v", f.v)
		}
	}
	if n := Norm(b.Vel); num.FiniteVec(b.Vel) && n > MaxSpeed {
		bad("Vel", b.Vel, "|v| must be ≤ %g m/s (the speed of light), got %v", MaxSpeed, n)
	}
	if n := Norm(b.AngVel); num.FiniteVec(b.AngVel) && n > MaxAngVel {
		bad("AngVel", b.AngVel, "|ω| must be ≤ %g rad/s, got %v", MaxAngVel, n)
	}
	if len(errs) == 0 {
		v, w := b.Vel, b.AngVel
		if e := 0.5*b.Mass*v.Dot(v) + 0.5*w.Dot(b.Inertia.Mul3x1(w)); !num.Finite(e) {
			bad("Vel", b.Vel, "the kinetic energy ½m|v|² + ½ωᵀIω overflows (m = %v kg, |v| = %v m/s, |ω| = %v rad/s)", b.Mass, v.Len(), w.Len())
		}
	}
	return errors.Join(errs...)
}

// Norm returns |v| without overflow for components up to ±MaxFloat64
// (mgl64's Len squares them).
func Norm(v mgl64.Vec3) float64 { return math.Hypot(math.Hypot(v[0], v[1]), v[2]) }

// checkInertia returns "" if m is finite, symmetric and (if pd) positive
// definite, else what is wrong.
func checkInertia(m mgl64.Mat3, pd bool) string {
	scale := 0.0
	for _, x := range m {
		if !num.Finite(x) {
			return "must be finite"
		}
		scale = math.Max(scale, math.Abs(x))
	}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if math.Abs(m.At(i, j)-m.At(j, i)) > SymmetryTol*scale {
				return fmt.Sprintf("must be symmetric (relative %g), I[%d][%d]=%v ≠ I[%d][%d]=%v", SymmetryTol, i, j, m.At(i, j), j, i, m.At(j, i))
			}
		}
	}
	if pd && !posDef(m) {
		return "must be positive definite (Cholesky failed)"
	}
	// Triangle inequality: S = tr(I)/2·E − I = Σ m r rᵀ has eigenvalues
	// tr(I)/2 − I_i, so I_i ≤ I_j + I_k (each eigenvalue of S ≥ 0) holds to
	// the tolerance iff S + TriangleTol·tr(I)·E is positive definite.
	if pd {
		tr := m.At(0, 0) + m.At(1, 1) + m.At(2, 2)
		s := mgl64.Ident3().Mul(tr/2 + TriangleTol*tr).Sub(m)
		if !posDef(s) {
			return fmt.Sprintf("principal moments must obey the triangle inequality I_i ≤ I_j + I_k (relative %g), as every mass distribution's do", TriangleTol)
		}
	}
	if pd {
		for _, x := range Inv3(m) {
			if !num.Finite(x) {
				return "inverse overflows (entries too small)"
			}
		}
	}
	return ""
}

// posDef reports whether the symmetric matrix m has a Cholesky factor with
// positive pivots.
func posDef(m mgl64.Mat3) bool {
	d1 := m.At(0, 0)
	if !(d1 > 0) {
		return false
	}
	l11 := math.Sqrt(d1)
	l21, l31 := m.At(1, 0)/l11, m.At(2, 0)/l11
	d2 := m.At(1, 1) - l21*l21
	if !(d2 > 0) {
		return false
	}
	l22 := math.Sqrt(d2)
	l32 := (m.At(2, 1) - l31*l21) / l22
	d3 := m.At(2, 2) - l31*l31 - l32*l32
	return d3 > 0
}

// InvMass returns 1/m, or 0 for a static or kinematic body (1/kg).
func (b *Body) InvMass() float64 {
	if b.Static || b.Kinematic || b.Mass == 0 {
		return 0
	}
	return 1 / b.Mass
}

// Rotation returns the rotation matrix R of Rot (body → world). Rot is
// assumed to be a unit quaternion (Validate).
func (b *Body) Rotation() mgl64.Mat3 { return QuatMat3(b.Rot) }

// InertiaWorld returns the world-frame inertia I_w = R I Rᵀ (kg·m²).
func (b *Body) InertiaWorld() mgl64.Mat3 {
	r := b.Rotation()
	return r.Mul3(b.Inertia).Mul3(r.Transpose())
}

// InvInertiaWorld returns I_w⁻¹ = R I⁻¹ Rᵀ ((kg·m²)⁻¹), the zero matrix for
// a static or kinematic body. If Inertia is singular (Validate would have
// refused it) the result is all NaN rather than mathgl's silent zero matrix.
func (b *Body) InvInertiaWorld() mgl64.Mat3 {
	if b.Static || b.Kinematic {
		return mgl64.Mat3{}
	}
	r := b.Rotation()
	return r.Mul3(Inv3(b.Inertia)).Mul3(r.Transpose())
}

// Inv3 returns m⁻¹ by the adjugate, or a matrix of NaN if m is singular or
// not finite (mgl64.Mat3.Inv would return the zero matrix instead).
func Inv3(m mgl64.Mat3) mgl64.Mat3 {
	det := m.Det()
	if det == 0 || !num.Finite(det) {
		n := math.NaN()
		return mgl64.Mat3{n, n, n, n, n, n, n, n, n}
	}
	a, b, c := m.At(0, 0), m.At(0, 1), m.At(0, 2)
	d, e, f := m.At(1, 0), m.At(1, 1), m.At(1, 2)
	g, h, i := m.At(2, 0), m.At(2, 1), m.At(2, 2)
	s := 1 / det
	return mgl64.Mat3FromRows(
		mgl64.Vec3{(e*i - f*h) * s, (c*h - b*i) * s, (b*f - c*e) * s},
		mgl64.Vec3{(f*g - d*i) * s, (a*i - c*g) * s, (c*d - a*f) * s},
		mgl64.Vec3{(d*h - e*g) * s, (b*g - a*h) * s, (a*e - b*d) * s},
	)
}

// ApplyForce adds f (N) at the centre of mass.
func (b *Body) ApplyForce(f mgl64.Vec3) { b.Force = b.Force.Add(f) }

// ApplyForceAt adds f (N) acting at the world point p (m): Force += f,
// Torque += (p − Pos) × f.
func (b *Body) ApplyForceAt(f, p mgl64.Vec3) {
	b.Force = b.Force.Add(f)
	b.Torque = b.Torque.Add(p.Sub(b.Pos).Cross(f))
}

// ApplyTorque adds t (N·m).
func (b *Body) ApplyTorque(t mgl64.Vec3) { b.Torque = b.Torque.Add(t) }

// ClearForces zeroes Force and Torque.
func (b *Body) ClearForces() { b.Force, b.Torque = mgl64.Vec3{}, mgl64.Vec3{} }

// KineticEnergy returns ½ m v·v + ½ ω·I_w ω (J); 0 for a static body, which
// is part of the world.
func (b *Body) KineticEnergy() float64 {
	if b.Static {
		return 0
	}
	return 0.5*b.Mass*b.Vel.Dot(b.Vel) + 0.5*b.AngVel.Dot(b.InertiaWorld().Mul3x1(b.AngVel))
}

// LinearMomentum returns m v (kg·m/s); zero for a static body.
func (b *Body) LinearMomentum() mgl64.Vec3 {
	if b.Static {
		return mgl64.Vec3{}
	}
	return b.Vel.Mul(b.Mass)
}

// AngularMomentum returns the angular momentum about the world origin,
// x × m v + I_w ω (kg·m²/s); zero for a static body.
func (b *Body) AngularMomentum() mgl64.Vec3 {
	if b.Static {
		return mgl64.Vec3{}
	}
	return b.Pos.Cross(b.Vel.Mul(b.Mass)).Add(b.InertiaWorld().Mul3x1(b.AngVel))
}

// PointVelocity returns the velocity (m/s) of the body-fixed point that is
// at world point p now: v + ω × (p − x).
func (b *Body) PointVelocity(p mgl64.Vec3) mgl64.Vec3 {
	return b.Vel.Add(b.AngVel.Cross(p.Sub(b.Pos)))
}

// LocalToWorld maps a body-frame point to the world: x + R p.
func (b *Body) LocalToWorld(p mgl64.Vec3) mgl64.Vec3 { return b.Pos.Add(b.Rot.Rotate(p)) }

// WorldToLocal maps a world point to the body frame: Rᵀ (p − x).
func (b *Body) WorldToLocal(p mgl64.Vec3) mgl64.Vec3 {
	return b.Rot.Conjugate().Rotate(p.Sub(b.Pos))
}

// LocalToWorldVec rotates a body-frame vector to the world: R u.
func (b *Body) LocalToWorldVec(u mgl64.Vec3) mgl64.Vec3 { return b.Rot.Rotate(u) }

// WorldToLocalVec rotates a world vector to the body frame: Rᵀ u.
func (b *Body) WorldToLocalVec(u mgl64.Vec3) mgl64.Vec3 { return b.Rot.Conjugate().Rotate(u) }

// Displace moves the body by the small world-frame displacement dx (m) and
// rotation vector dθ (rad): Pos += dx, Rot ← exp(dθ/2)·Rot, renormalized.
// This is the position update of an integrator (dx = h v⁺, dθ = h ω⁺) and
// of a post-stabilization step (Cline and Pai 2003 Eq. 14).
func (b *Body) Displace(dx, dtheta mgl64.Vec3) {
	b.Pos = b.Pos.Add(dx)
	q := QuatExp(dtheta).Mul(b.Rot)
	b.Rot = q.Scale(1 / quatLen(q))
}

// QuatExp returns the unit quaternion exp(θ/2) of the rotation vector θ
// (axis·angle, rad): (cos(|θ|/2), sin(|θ|/2) θ/|θ|), exact to rounding for
// small |θ|.
func QuatExp(theta mgl64.Vec3) mgl64.Quat {
	a := theta.Len()
	if a < 1e-8 {
		// sin(a/2)/a = 1/2 − a²/48 + …; the a² term is below rounding here.
		return mgl64.Quat{W: 1 - a*a/8, V: theta.Mul(0.5)}
	}
	return mgl64.Quat{W: math.Cos(a / 2), V: theta.Mul(math.Sin(a/2) / a)}
}

// QuatMat3 returns the rotation matrix of the unit quaternion q.
func QuatMat3(q mgl64.Quat) mgl64.Mat3 {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	return mgl64.Mat3FromRows(
		mgl64.Vec3{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		mgl64.Vec3{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		mgl64.Vec3{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	)
}

func quatLen(q mgl64.Quat) float64 {
	return math.Sqrt(q.W*q.W + q.V.Dot(q.V))
}

func rowsString(m mgl64.Mat3) string {
	return fmt.Sprintf("[[%v %v %v] [%v %v %v] [%v %v %v]]",
		m.At(0, 0), m.At(0, 1), m.At(0, 2), m.At(1, 0), m.At(1, 1), m.At(1, 2), m.At(2, 0), m.At(2, 1), m.At(2, 2))
}

// SpinDisplace moves the body by the displacement dx (m) and rotation
// vector dθ (rad) of a step, as Displace, but with the spin kept on its
// axle. The body's axle is its principal axis e (body frame;
// PrincipalAxes) nearest to the world direction spin (for a zero spin,
// nearest to dθ); the spin is σ = dθ·u along the unit u = spin/|spin| (u = R e
// for a zero spin) and the rest is dθ_⊥ = dθ − σ u; then
//
//	Rot ← exp(dθ_⊥) · Rot · exp(σ e),   AngVel ← exp(dθ_⊥) AngVel:
//
// the body turns by σ about its own axle, and the rest carries the axle
// and the spin with it. That is the exact motion of a rotor spinning about
// e on a carrier turning at dθ_⊥/h, which Displace's single turn about dθ
// is not when the spin turns far in a step: a 500 rad/s wheel turns 8.3 rad
// per step at h = 1/60 s, and about dθ its axle sweeps a cone instead of
// following its frame. spin is the direction about which the body's joint
// lets it turn (a hinge's free axis): the rows put the spin along it, and a
// misaligned axle e would read σ (u − R e) as a turn of the axle, h|σ| times
// the misalignment per step. The body-frame angular velocity after the step
// is exp(−σ e) of its value before, so a body symmetric about e keeps its
// kinetic energy ½ ωᵀ I ω exactly. SpinDisplace does nothing and returns
// false when the spin does not dominate (|dθ_⊥| > |σ|) or spin is more
// than 0.1 rad from the axle; the caller then uses Displace.
func (b *Body) SpinDisplace(dx, dtheta, spin mgl64.Vec3) bool {
	r := b.Rotation()
	dir := spin
	if spin == (mgl64.Vec3{}) {
		dir = dtheta
	}
	db := r.Transpose().Mul3x1(dir)
	_, axes := PrincipalAxes(b.Inertia)
	k, best := 0, -1.0
	for c := 0; c < 3; c++ {
		if p := math.Abs(axes.Col(c).Dot(db)); p > best {
			k, best = c, p
		}
	}
	e := axes.Col(k)
	u := r.Mul3x1(e)
	if spin != (mgl64.Vec3{}) {
		n := Norm(spin)
		if !(n > 0) || !(best >= math.Cos(0.1)*n) {
			return false
		}
		u = spin.Mul(1 / n)
	}
	sigma := dtheta.Dot(u)
	perp := dtheta.Sub(u.Mul(sigma))
	if !(Norm(perp) <= math.Abs(sigma)) {
		return false
	}
	if e.Dot(r.Transpose().Mul3x1(u)) < 0 {
		sigma = -sigma // e and u point opposite ways
	}
	p := QuatExp(perp)
	q := p.Mul(b.Rot).Mul(QuatExp(e.Mul(sigma)))
	b.Pos = b.Pos.Add(dx)
	b.Rot = q.Scale(1 / quatLen(q))
	b.AngVel = p.Rotate(b.AngVel)
	return true
}
