package constraint

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"
)

// MaxBodies is the most bodies one row touches (a differential with a
// housing touches four).
const MaxBodies = 4

// World is the body index meaning the static world. Constructors accept it
// for one side of a joint; rows never list it.
const World = -1

// Kind says what a row is for; solvers treat all rows alike, the stepper
// and diagnostics do not.
type Kind int

const (
	Bilateral       Kind = iota // equality φ = 0, unbounded impulse
	LimitLower                  // unilateral joint limit, φ = q − q_lo ≥ 0, x ≥ 0
	LimitUpper                  // unilateral joint limit, φ = q_hi − q ≥ 0, x ≥ 0
	Motor                       // velocity target J v⁺ = Speed, |x| ≤ max force·h
	Friction                    // joint friction J v⁺ = 0, |x| ≤ friction force·h
	Gear                        // velocity coupling ω_a·n_a = r ω_b·n_b
	Differential                // velocity coupling ω_c·n_c = ½(ω_a·n_a + ω_b·n_b)
	ContactNormal               // contact, φ = gap ≥ 0, x ≥ 0
	ContactFriction             // box friction, |x| ≤ μ x̂ₙ
	RollingFriction             // rolling resistance, |x| ≤ bound
	Spring                      // compliant axis row: joint spring-damper, armature or position servo (velocity level for projection)
)

var kindNames = [...]string{"Bilateral", "LimitLower", "LimitUpper", "Motor", "Friction", "Gear", "Differential", "ContactNormal", "ContactFriction", "RollingFriction", "Spring"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Positional reports whether rows of this kind constrain positions (φ is a
// position-level violation with J = ∂φ/∂v): Bilateral, LimitLower,
// LimitUpper, ContactNormal. Only these take part in position correction
// (Cline and Pai 2003 Eq. 14); the others are velocity-level rows.
func (k Kind) Positional() bool {
	return k == Bilateral || k == LimitLower || k == LimitUpper || k == ContactNormal
}

// Row is one constraint row: one line of J, its entries of Φ, C, b and its
// bounds. See the package doc for the equation it takes part in.
type Row struct {
	N    int                   // bodies touched, 1 ≤ N ≤ MaxBodies
	Body [MaxBodies]int        // indices into Context.Bodies; World is never listed
	J    [MaxBodies][6]float64 // Jacobian block per body, [vx vy vz ωx ωy ωz] world frame (1, m or 1/m… per unit of the row)
	// Phi is the violation φ (m or rad). Unilateral rows: φ ≥ 0 admissible
	// (a gap). 0 for velocity-only rows.
	Phi float64
	// Lo, Hi bound x = hλ in impulse units (N·s or N·m·s); ±Inf = none.
	Lo, Hi float64
	// Speed is the target constraint velocity (m/s or rad/s): the row asks
	// J v⁺ = Speed (motors); 0 otherwise.
	Speed float64
	// Stiffness k (N/m or N·m/rad); 0 or +Inf = rigid (c = 0).
	Stiffness float64
	// Damping is SPOOK's damping time d (s); 0 = the plain Eq. 1 form.
	Damping float64
	// Viscous is a viscous damping coefficient c_d (N·s/m or N·m·s/rad):
	// when > 0 the row is the implicit spring-damper λ⁺ = −k φ⁺ − c_d J v⁺
	// (k = Stiffness, where 0 means no spring), see Compliance; Damping
	// must then be 0.
	Viscous float64
	// Drift (m or rad) is the change of φ over the coming step that the
	// linear term h J v misses: the curvature of the constraint along the
	// predicted motion, φ(q ⊕ h v̂) − φ(q) − h J v̂ = ½h² v̂ᵀ∇²φ v̂ + O(h³)
	// (a pendulum's arm swinging through θ = h ω stretches by ½ L θ² if
	// its bob moves along the tangent). A row with Drift asks that
	// φ + h J v⁺ + Drift vanish, the second-order prediction of φ at the
	// end of the step, so the velocity after the step is the chord of the
	// arc rather than its tangent. 0 = none; Fill leaves it 0 and the
	// stepper sets it (stepper.World.Step, Regularized mode).
	Drift float64
	// Bounce is a restitution target (m/s or rad/s): a row with Bounce > 0
	// asks J v⁺ ≥ Bounce where that asks more than its position term does
	// (the term t in b becomes min(t, −Bounce)). 0 = none; Fill leaves it 0
	// and the stepper sets it on a bouncing contact's normal row
	// (stepper.ContactInfo.Bounce).
	Bounce float64
	Kind   Kind
	// Actuator marks a row whose impulse is an actuator's (a position
	// servo's Spring row, SetServo): the energy it puts in or takes out
	// is work done from outside the bodies, which the stepper counts as
	// applied work in Stats.EnergyAdded, as it does a Motor row's. A
	// passive spring-damper's row is not an actuator. Fill sets it;
	// solvers ignore it.
	Actuator bool
}

// Context is what Fill reads: the world's bodies and the step h (s), which
// turns force bounds into impulse bounds.
type Context struct {
	Bodies []*body.Body
	H      float64
}

// Constraint is the row contract (ODE style): Dim says how many rows the
// constraint has this step, Fill writes exactly that many into rows the
// caller owns. Fill must not allocate.
type Constraint interface {
	Dim() int                            // rows this step
	Fill(rows []Row, ctx *Context) error // fills rows[:Dim()]
	Bodies() []int                       // indices of the bodies touched, World left out
}

// Positional is a Constraint whose rows (other than Motor and Friction
// rows) are position-level: Violation writes φ of each of the Dim() rows,
// in row order (0 for velocity-only rows), and J = ∂φ/∂v.
type Positional interface {
	Constraint
	Violation(ctx *Context, dst []float64) error
}

// Compliance returns, for step h (s), the row's diagonal entry c of C and
// the factors with which φ and J v enter b:
//
//	b = J M⁻¹ p + phiFactor·φ + jvFactor·(J v) − Speed
//
// Rigid (k = 0 or +Inf): c = 0, phiFactor = 1/h, jvFactor = 0.
// Plain, Enzenhöfer et al. 2019 Eq. 1 (d = 0): c = 1/(k h²), phiFactor = 1/h,
// jvFactor = 0 — an implicit spring λ⁺ = −k φ⁺.
// SPOOK (d > 0), with Υ = 1/(1 + 4d/h): c = 4/(h² k (1 + 4d/h)),
// phiFactor = 4Υ/h, jvFactor = −Υ.
// Both compliant forms give the static deflection φ = F/k under a force F.
// Viscous (c_d > 0), with s = h k + c_d: c = 1/(h s), phiFactor = k/s,
// jvFactor = 0 — the implicit Euler spring-damper λ⁺ = −k (φ + h J v⁺) −
// c_d J v⁺ (ERPCFM's form), stable for every h; k = 0 is a pure damper.
func (r *Row) Compliance(h float64) (c, phiFactor, jvFactor float64) {
	k := r.Stiffness
	if r.Viscous > 0 {
		if math.IsInf(k, 1) {
			return 0, 1 / h, 0
		}
		s := h*k + r.Viscous
		return 1 / (h * s), k / s, 0
	}
	if k == 0 || math.IsInf(k, 1) {
		return 0, 1 / h, 0
	}
	if r.Damping == 0 {
		return 1 / (k * h * h), 1 / h, 0
	}
	s := 1 + 4*r.Damping/h
	ups := 1 / s
	return 4 / (h * h * k * s), 4 * ups / h, -ups
}

// B returns the row's entry of b given J M⁻¹ p (jMinvP) and J v (jv), both
// in m/s or rad/s: jMinvP + phiFactor·φ + jvFactor·jv − Speed (Compliance).
func (r *Row) B(h, jMinvP, jv float64) float64 {
	_, pf, jf := r.Compliance(h)
	return jMinvP + pf*r.Phi + jf*jv - r.Speed
}

// Velocity returns J v, the row's constraint velocity for the bodies'
// current Vel and AngVel.
func (r *Row) Velocity(bodies []*body.Body) float64 {
	s := 0.0
	for k := 0; k < r.N; k++ {
		b := bodies[r.Body[k]]
		j := &r.J[k]
		s += j[0]*b.Vel[0] + j[1]*b.Vel[1] + j[2]*b.Vel[2] + j[3]*b.AngVel[0] + j[4]*b.AngVel[1] + j[5]*b.AngVel[2]
	}
	return s
}

// Validate checks a filled row against a world of nBodies bodies: 1 ≤ N ≤
// MaxBodies, distinct indices in [0, nBodies) (World is never listed), J,
// φ and Speed finite, Lo ≤ Hi with neither NaN, Stiffness ≥ 0, Damping
// finite and ≥ 0. The error is a *body.FieldError.
func (r *Row) Validate(nBodies int) error {
	if r.N < 1 || r.N > MaxBodies {
		return r.fieldError("N", r.N, "must be in [1, %d], got %d (a row touching only the world is invalid)", MaxBodies, r.N)
	}
	for k := 0; k < r.N; k++ {
		i := r.Body[k]
		if i < 0 || i >= nBodies {
			return r.fieldError(fmt.Sprintf("Body[%d]", k), i, "must be in [0, %d), got %d", nBodies, i)
		}
		for l := 0; l < k; l++ {
			if r.Body[l] == i {
				return r.fieldError(fmt.Sprintf("Body[%d]", k), i, "body %d listed twice", i)
			}
		}
		for c, x := range r.J[k] {
			if !num.Finite(x) {
				return r.fieldError(fmt.Sprintf("J[%d][%d]", k, c), x, "must be finite, got %v", x)
			}
		}
	}
	switch {
	case !num.Finite(r.Phi):
		return r.fieldError("Phi", r.Phi, "must be finite, got %v", r.Phi)
	case math.IsNaN(r.Lo) || math.IsNaN(r.Hi) || r.Lo > r.Hi:
		return r.fieldError("Lo, Hi", [2]float64{r.Lo, r.Hi}, "need Lo ≤ Hi, got [%v, %v]", r.Lo, r.Hi)
	case !num.Finite(r.Speed):
		return r.fieldError("Speed", r.Speed, "must be finite, got %v", r.Speed)
	case math.IsNaN(r.Stiffness) || r.Stiffness < 0:
		return r.fieldError("Stiffness", r.Stiffness, "must be ≥ 0 (0 or +Inf = rigid), got %v", r.Stiffness)
	case !num.Finite(r.Damping) || r.Damping < 0:
		return r.fieldError("Damping", r.Damping, "must be finite and ≥ 0, got %v", r.Damping)
	case !num.Finite(r.Viscous) || r.Viscous < 0:
		return r.fieldError("Viscous", r.Viscous, "must be finite and ≥ 0, got %v", r.Viscous)
	case r.Viscous > 0 && r.Damping > 0:
		return r.fieldError("Viscous", r.Viscous, "a row has a damping time or a viscous coefficient, not both (Damping = %v)", r.Damping)
	}
	return nil
}

// fieldError is Validate's error for a field of r: What "constraint row (kind)".
func (r *Row) fieldError(field string, value any, format string, args ...any) error {
	return &num.FieldError{What: fmt.Sprintf("constraint row (%v)", r.Kind), Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// ERPCFM maps a spring of stiffness k (N/m) and damping coefficient cd
// (N·s/m) at step h to ODE's parameters: ERP = hk/(hk + cd), CFM =
// 1/(hk + cd) (m/(N·s), multiplying the force λ). They are the implicit
// Euler discretization of λ⁺ = −k φ⁺ − cd J v⁺. In this package's impulse
// units x = hλ the row reads J v⁺ + (CFM/h) x + (ERP/h) φ = 0, so cd = 0
// gives exactly the plain Eq. 1 row: ERP = 1, CFM/h = 1/(k h²) = c.
// SPOOK's damping time d is a different parametrization (its b also carries
// −Υ J v) and has no exact ERP/CFM equivalent.
func ERPCFM(h, k, cd float64) (erp, cfm float64) {
	s := h*k + cd
	return h * k / s, 1 / s
}

// reset clears r for a new row of kind k with no bounds.
func (r *Row) reset(k Kind) {
	*r = Row{Kind: k, Lo: math.Inf(-1), Hi: math.Inf(1)}
}

// add appends body i's block [lin ang] unless i is World.
func (r *Row) add(i int, lin, ang mgl64.Vec3) {
	if i == World {
		return
	}
	r.Body[r.N] = i
	r.J[r.N] = [6]float64{lin[0], lin[1], lin[2], ang[0], ang[1], ang[2]}
	r.N++
}

// Reset clears r for a new row of kind k with no bounds (Lo = −Inf,
// Hi = +Inf), no bodies and no compliance. Packages that build their own
// rows (contact) start each row with it.
func (r *Row) Reset(k Kind) { r.reset(k) }

// AddBody appends body i's Jacobian block [lin ang] (world frame) unless i
// is World. It panics if the row already touches MaxBodies bodies, which is
// a programming error.
func (r *Row) AddBody(i int, lin, ang mgl64.Vec3) {
	if i != World && r.N == MaxBodies {
		panic("constraint: Row.AddBody: row already touches MaxBodies bodies")
	}
	r.add(i, lin, ang)
}

// SetPoint makes r a row of kind k along the unit direction d at the world
// point x between body a, with centre of mass ca, pushed along −d, and body
// b, centre cb, pushed along +d (a contact's normal or friction row):
//
//	J_b = [d, (x − c_b) × d],  J_a = −[d, (x − c_a) × d],
//
// so J v = d·(v_b + ω_b × r_b − v_a − ω_a × r_a). A side that is World is
// left out. r is Reset first.
func (r *Row) SetPoint(k Kind, a int, ca mgl64.Vec3, b int, cb mgl64.Vec3, x, d mgl64.Vec3) {
	r.reset(k)
	// The blocks written out: r × d as mgl64.Vec3.Cross computes it, A's
	// negated, the bits of Reset and AddBody with those vectors.
	n := 0
	if a != World {
		rx, ry, rz := x[0]-ca[0], x[1]-ca[1], x[2]-ca[2]
		r.Body[0] = a
		r.J[0] = [6]float64{-d[0], -d[1], -d[2], -(ry*d[2] - rz*d[1]), -(rz*d[0] - rx*d[2]), -(rx*d[1] - ry*d[0])}
		n = 1
	}
	if b != World {
		rx, ry, rz := x[0]-cb[0], x[1]-cb[1], x[2]-cb[2]
		r.Body[n] = b
		r.J[n] = [6]float64{d[0], d[1], d[2], ry*d[2] - rz*d[1], rz*d[0] - rx*d[2], rx*d[1] - ry*d[0]}
		n++
	}
	r.N = n
}
