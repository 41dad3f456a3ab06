package stepper

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
)

// Stabilization selects how position errors of constraints are fed back.
type Stabilization int

const (
	// Regularized is Eq. (1) of Enzenhöfer et al. 2019: b gets Φ/h, and a
	// row with stiffness k gets compliance 1/(k h²) (or SPOOK's form with a
	// damping time). The default.
	Regularized Stabilization = iota
	// None drops the position feedback of bilateral rows and of penetrated
	// unilateral rows: the rows hold velocities only, positions drift.
	None
	// Baumgarte replaces Φ/h with β·Φ, β = Settings.Baumgarte (1/s).
	Baumgarte
	// Post solves the velocity step without position feedback and then
	// projects positions with a second MLCP (Cline and Pai 2003
	// Eqs. 13–14): (J M⁻¹ Jᵀ) δ + Φ = w on the positional rows, bilateral
	// rows free, unilateral ones δ ≥ 0 ⊥ w ≥ 0, friction dropped, and the
	// poses move by Δq = M⁻¹ Jᵀ δ (the least-energy correction).
	Post
)

var stabNames = [...]string{"regularized", "none", "baumgarte", "post"}

func (s Stabilization) String() string {
	return enumString(stabNames[:], s, "Stabilization")
}

// ParseStabilization is the inverse of String.
func ParseStabilization(s string) (Stabilization, error) {
	return parseEnum[Stabilization](stabNames[:], s, "stabilization", "value")
}

// Settings of a World. The zero value of each field but H means its
// default, named on the first line of the field's doc; H has none.
// DefaultSettings returns a complete value to start from (standard
// gravity, h = 1/60 s). The package doc's Settings section says how the
// position-correction fields work together.
type Settings struct {
	// H is the time step (s), in [MinH, MaxH]; no default: 0 is invalid.
	// DefaultSettings uses 1/60 s; the built-in scenes use 1 ms to 1/60 s.
	H float64
	// Gravity (m/s²); the zero vector means no gravity.
	// DefaultSettings and scene files use StandardGravity, z up.
	Gravity mgl64.Vec3
	// Solver solves each step's MLCP; nil means block pivoting, lcp.BPP.
	Solver lcp.Solver
	// Budget (iterations per step) caps Solver; 0 means its default.
	// lcp.BPP's is 100 + 10 n for n rows; each island's solve has the whole
	// Budget. Stats.BudgetHit says it ran out.
	Budget int
	// Tolerance (dimensionless) in [0, 1); 0 means the solver's default.
	// It is the main solve's lcp.Settings.Tolerance, given to each island's
	// solve; for lcp.BPP it also ends the damped mode's tail at Tolerance·s_w.
	Tolerance float64
	// Pick ranks the iterates to keep; 0 means errmeasure.Energy (Eq. 23).
	// Also FB, Residual, Last and EnergyExact (Eq. 11's exact mass).
	Pick errmeasure.Measure
	// Polish (sweeps) of projected Gauss–Seidel after Pick; 0 means none.
	// Each costs about one product with A (errmeasure.Polish).
	Polish int
	// ProjectAbove (m or rad); 0 means DefaultProjectAbove (1 mm, 1 mrad).
	// In Regularized mode a joint's anchor distance or angle error, or a
	// penetration, above it after the step is projected; +Inf never.
	ProjectAbove float64
	// MaxCorrectingSpeed (m/s or rad/s); 0 means ProjectAbove/h.
	// It caps the Regularized feedback φ/h of a penetration or joint error
	// (Settings.PositionTerm); +Inf means no cap.
	MaxCorrectingSpeed float64
	// Stabilization of position errors; 0 means Regularized (Eq. 1).
	// Also None, Baumgarte and Post.
	Stabilization Stabilization
	// JointCorrection of a rigid joint's error; 0 means JointFeedback, as
	// in DefaultSettings. Opt-in JointProjection puts no φ/h on a moving
	// anchor (Regularized mode; for chains and ragdolls; package doc).
	JointCorrection JointCorrection
	// Baumgarte (1/s) is the Baumgarte mode's β; 0 means no feedback.
	// Other modes ignore it.
	Baumgarte float64
	// PostSolver solves the position projection's MLCP; nil means lcp.BPP.
	PostSolver lcp.Solver
	// ContactMargin (m); 0 means DefaultContactMargin (0.5 mm).
	// Geoms closer than it get contact rows, and so do pairs that can
	// close their gap within the step (speculative contacts).
	ContactMargin float64
	// BounceSpeed (m/s); 0 means DefaultBounceSpeed (1 m/s).
	// Contacts approaching slower do not bounce whatever their restitution,
	// so resting contacts stay at rest (Material.Restitution).
	BounceSpeed float64
	// Impacts resolves bounces; 0 means SimultaneousImpacts, in the MLCP.
	// PropagatedImpacts resolves them pair by pair first (Newton's cradle).
	Impacts Impacts
	// Context cancels a step's solve; nil means never. The step then
	// completes with the best iterate so far and Step returns an error
	// wrapping the context's (package doc, Settings).
	Context context.Context
	// Observer sees every iterate of the step's main solve; nil means none.
	// An lcp.Stopper can end the solve; the islands then solve in turn and
	// it sees each island's iterates (package doc, Settings and Islands).
	Observer lcp.Observer
	// Sleep puts resting islands to sleep; the zero value is off (every
	// body is simulated every step). DefaultSettings turns it on with
	// the default thresholds (Sleep; package doc, Sleeping).
	Sleep Sleep
	// SingleProblem solves the MLCP as one problem; false, the default,
	// solves each island (Stats.Islands) as its own, in parallel, with the
	// same bits for any GOMAXPROCS (package doc, Islands).
	SingleProblem bool
	// Coherent picks each solve's proximal centre; 0 means CoherentOn: steady
	// solves and solves again (no Budget) start at the last solve's impulses,
	// fewer iterations at rest; CoherentOff at 0 (package doc).
	Coherent Coherence
	// TurnFriction: false, the default, keeps a resting contact's friction
	// frame (the papers' scenes); true turns it to friction beyond Coulomb's
	// circle and solves again (DefaultSettings; Stats.Resolves).
	TurnFriction bool
	// CoulombBounds: false, the default, bounds friction by μ x̂ₙ of an
	// estimate (the papers' scenes); true re-solves a step whose friction met
	// a bound its own normal impulse raises (Stats.Resolves; opt-in).
	CoulombBounds bool
}

// JointCorrection is Settings.JointCorrection: how the Regularized mode
// corrects the error φ of a rigid bilateral joint row (a ball, hinge,
// slider or fixed joint's equality rows; springs, limits and contacts
// are not affected).
type JointCorrection int8

const (
	// JointCorrectionDefault is the zero value: JointFeedback.
	JointCorrectionDefault JointCorrection = iota
	// JointFeedback puts φ/h in the row's b (Eq. 1 of Enzenhöfer et al.
	// 2019), capped at MaxCorrectingSpeed: the next velocity closes the
	// error in one step. Where the row also has a drift (a moving
	// anchor, constraint.Row.Drift) the joint's force does work on that
	// closing velocity that no potential stored, so the energy can rise:
	// a whipping 10-link chain gains up to 0.014, 0.25 and 0.99 J of
	// midpoint energy at h = 1/60, 1/240 and 1/480 s, of its 9.81 J fall
	// (TestNewUserChainEnergySource). The zero value and DefaultSettings'
	// choice: a joint's impulse carries its error, so a top spinning at
	// 200 rad/s on a ball joint precesses within 0.025 % of the steady
	// solution (TestJointProjectionCost), and the papers' scenes keep
	// their numbers.
	JointFeedback
	// JointProjection puts no φ in b on a rigid bilateral row whose drift
	// exceeds ProjectionTolerance (an anchor of a moving body): the
	// velocity step keeps the drift and never turns the error into
	// velocity, and the projection removes the errors on every step one
	// exceeds JointProjectAbove (1 µm), moving positions only and, when
	// it has joint rows, turning each body's angular velocity with the
	// body (split correction). The
	// drift prediction turns ω's direction on by the last step's turn.
	// Rows without a drift (orientation rows, bodies at rest) keep φ/h, so
	// a held arm closes its sag. The 10-link chain then never rises above
	// its starting midpoint energy, with joints within 1 µm
	// (TestNewUserChainEnergySource), a chain of spinning links swinging
	// in 3D gains at most 0.0022 J where JointFeedback gains 0.19 J
	// (TestSpinningChainEnergy), and a pendulum's period at h = 1/60 s is
	// +0.020 % (JointFeedback +0.136 %, TestPendulumAtGameStep). Cost: a
	// top spinning at 200 rad/s on a ball joint precesses 1.75 % slow
	// instead of 0.025 % (TestJointProjectionCost: the projection undoes
	// the momentum alignment's turn), and a projection solve on most
	// steps of a moving jointed body (1.46 a step on the chain at
	// h = 1/240 s, BenchmarkChainWhip). An opt-in (scene files:
	// "joint_correction": "projection") for jointed chains and ragdolls.
	JointProjection
)

var jointCorrectionNames = [...]string{"default", "feedback", "projection"}

func (c JointCorrection) String() string {
	return enumString(jointCorrectionNames[:], c, "JointCorrection")
}

// ParseJointCorrection is the inverse of String.
func ParseJointCorrection(s string) (JointCorrection, error) {
	return parseEnum[JointCorrection](jointCorrectionNames[:], s, "joint correction", "value")
}

// Coherence is Settings.Coherent: whether a solve without new contacts and
// without a Budget starts its proximal centre (lcp.Settings.Reference) at
// the last step's impulses. A scene file's "settings.coherent" is true
// (CoherentOn), false (CoherentOff) or absent (CoherentDefault).
type Coherence int8

const (
	// CoherentDefault is the zero value: the package's default,
	// CoherentOn (Coherence.On says which).
	CoherentDefault Coherence = iota
	// CoherentOn starts a solve without new contacts and without a Budget
	// at the last step's impulses (package doc, Coherent).
	CoherentOn
	// CoherentOff starts every solve at 0, or at the pre-solve's x at a
	// step with many new contacts: the answer depends on the step's
	// problem alone.
	CoherentOff
)

var coherenceNames = [...]string{"default", "on", "off"}

func (c Coherence) String() string {
	return enumString(coherenceNames[:], c, "Coherence")
}

// ParseCoherence is the inverse of String.
func ParseCoherence(s string) (Coherence, error) {
	return parseEnum[Coherence](coherenceNames[:], s, "coherent", "value")
}

// On reports whether c starts steady solves at the last step's impulses:
// true for CoherentOn, and for CoherentDefault when the default is on
// (coherentByDefault).
func (c Coherence) On() bool {
	return c == CoherentOn || c == CoherentDefault && coherentByDefault
}

// coherentByDefault is what CoherentDefault means.
const coherentByDefault = true

// DefaultSettings returns the settings a simulation starts from: h = 1/60 s,
// StandardGravity, sleeping on (Sleep{On: true}, the default
// thresholds) and resting contacts' friction frames turned to friction
// beyond Coulomb's circle (TurnFriction: a row of boxes pushed from behind
// at an angle to the contacts' frames slides as Coulomb's law says), every
// other field zero, its documented default (the BPP
// solver with its default budget, the least-energy pick, Regularized
// stabilization projecting errors above 1 mm, steady solves centred at the
// last step's impulses: Coherent). Sleeping is on because a
// simulation started from here is a user's scene, where a settled pile
// should stay exactly where it is and cost nothing until something touches
// it; the papers' scenes (package scenes) build their own Settings with
// sleeping off, so their numbers are those of every body simulated every
// step. Change fields of the value it returns; Settings{H: h} alone has no
// gravity and no sleeping.
func DefaultSettings() Settings {
	return Settings{H: 1.0 / 60, Gravity: StandardGravity, Sleep: Sleep{On: true}, TurnFriction: true}
}

// MinH and MaxH bound Settings.H (s); Validate refuses a step outside
// [MinH, MaxH] with a *num.FieldError naming H and its value.
//
// MinH: the Regularized step feeds a position error φ back as the speed
// φ/h, and positions carry their rounding, 2.2e-16 of their size. At
// h = 1e-9 s that rounding of a 1 m scene is fed back as 2.2e-7 m/s, and
// 1/h and h² are far inside float64's range (1e9, 1e-18; a compliant
// row's 1/(k h²) overflows only for k below 1e-290 N/m): a stack of two
// boxes at rest on the floor stays below 1e-12 J of kinetic energy
// (TestFuzzWorldTimeStepRange). Far below it the rounding becomes a
// speed: at h = 1e-300 s the same stack reported +Inf J.
//
// MaxH: in one step gravity moves a body by g h² (1e7 m at 1000 s);
// beyond MaxH joints and contacts are solved at separations and lever
// arms that make the MLCP numerically singular, and block pivoting runs
// its whole budget for a state that is then not finite (the forklift at
// h = 9.2e11 s). At MaxH the small built-in scenes step with finite
// numbers (TestFuzzWorldTimeStepRange). A rigid-body step of more than a
// quarter of an hour is a mistake in units. Inside the range a large step
// still costs more: contact-rich scenes pair bodies up to h·|v| apart,
// and their pre-solve and projection take more iterations.
const (
	MinH = 1e-9
	MaxH = 1e3
)

// DefaultBounceSpeed is the default Settings.BounceSpeed (m/s), Box2D's
// restitution threshold.
const DefaultBounceSpeed = 1.0

// StandardGravity is (0, 0, −9.81) m/s², z up.
var StandardGravity = mgl64.Vec3{0, 0, -9.81}

// Validate reports the first bad setting as a *body.FieldError (What
// "settings", the field and its value), or nil.
func (s *Settings) Validate() error {
	switch {
	case !(s.H > 0) || math.IsInf(s.H, 0):
		return settingsError("H", s.H, "time step must be finite and > 0, got %v", s.H)
	case s.H < MinH || s.H > MaxH:
		return settingsError("H", s.H, "time step must be in [%v, %v] s (MinH, MaxH), got %v", MinH, MaxH, s.H)
	case !num.FiniteVec(s.Gravity):
		return settingsError("Gravity", s.Gravity, "must be finite, got %v", s.Gravity)
	case s.Budget < 0:
		return settingsError("Budget", s.Budget, "must be ≥ 0, got %d", s.Budget)
	case !(s.Tolerance >= 0 && s.Tolerance < 1):
		return settingsError("Tolerance", s.Tolerance, "must be ≥ 0 and < 1 (0 = the solver's default), got %v", s.Tolerance)
	case !s.Pick.Valid():
		return settingsError("Pick", s.Pick, "unknown measure %d", int(s.Pick))
	case s.Polish < 0:
		return settingsError("Polish", s.Polish, "must be ≥ 0 sweeps, got %d", s.Polish)
	case s.Stabilization < Regularized || s.Stabilization > Post:
		return settingsError("Stabilization", s.Stabilization, "unknown mode %d", int(s.Stabilization))
	case !(s.ContactMargin >= 0) || math.IsInf(s.ContactMargin, 0):
		return settingsError("ContactMargin", s.ContactMargin, "must be finite and ≥ 0 m, got %v", s.ContactMargin)
	case !(s.ProjectAbove >= 0):
		return settingsError("ProjectAbove", s.ProjectAbove, "must be ≥ 0 (m or rad; +Inf = never project), got %v", s.ProjectAbove)
	case !(s.MaxCorrectingSpeed >= 0):
		return settingsError("MaxCorrectingSpeed", s.MaxCorrectingSpeed, "must be ≥ 0 m/s (0 = ProjectAbove/h, +Inf = no cap), got %v", s.MaxCorrectingSpeed)
	case s.Impacts < SimultaneousImpacts || s.Impacts > PropagatedImpacts:
		return settingsError("Impacts", s.Impacts, "unknown mode %d (want SimultaneousImpacts or PropagatedImpacts)", int(s.Impacts))
	case !(s.BounceSpeed >= 0) || math.IsInf(s.BounceSpeed, 0):
		return settingsError("BounceSpeed", s.BounceSpeed, "must be finite and ≥ 0 m/s, got %v", s.BounceSpeed)
	case s.Stabilization == Baumgarte && !(s.Baumgarte >= 0 && !math.IsInf(s.Baumgarte, 0)):
		return settingsError("Baumgarte", s.Baumgarte, "must be finite and ≥ 0, got %v", s.Baumgarte)
	case s.JointCorrection < JointCorrectionDefault || s.JointCorrection > JointProjection:
		return settingsError("JointCorrection", s.JointCorrection, "unknown value %d (want JointCorrectionDefault, JointFeedback or JointProjection)", int(s.JointCorrection))
	case s.Coherent < CoherentDefault || s.Coherent > CoherentOff:
		return settingsError("Coherent", s.Coherent, "unknown value %d (want CoherentDefault, CoherentOn or CoherentOff)", int(s.Coherent))
	}
	return s.Sleep.validate()
}

// settingsError is Validate's error for field: a *body.FieldError of What
// "settings".
func settingsError(field string, value any, format string, args ...any) error {
	return fieldError("settings", field, value, format, args...)
}

// fieldError is the package's error for one bad field of what: a
// *body.FieldError whose message reads "what: field: reason".
func fieldError(what, field string, value any, format string, args ...any) error {
	return &num.FieldError{What: what, Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

// World holds bodies, constraints and settings, and steps them. Build it
// with New, AddBody and AddConstraint; then call Step.
type World struct {
	Settings Settings
	Bodies   []*body.Body
	Joints   []constraint.Constraint
	Geoms    []Geom
	// Controllers run, in order, at the start of every Step, before
	// anything reads the bodies: they set applied forces and torques
	// (Body.Force and Body.Torque persist until changed) or move joint
	// targets, for time profiles such as a torque ramp.
	Controllers []Controller

	time  float64
	steps int
	ws    workspace
	// collision filter (filter.go)
	jointCollide []bool              // by joint index: collision turned back on
	exclGeoms    map[[2]int]struct{} // excluded geom pairs, lower index first
	exclBodies   map[[2]int]struct{} // excluded body pairs (World = −1 allowed)
	jointNames   []string            // by joint index (NameJoint); may be shorter than Joints
	sleep        sleepState          // sleeping islands (sleep.go)
	cancel       stepCancel          // StepContext's context (cancel.go)
	coherentRef  []float64           // lastStepReference's copy of the last step's impulses (LastReference)
	links        bodyLinks           // checkLinks: Bodies last found distinct
}

// Controller is called at the start of every Step with the world at the
// step's start time (World.Time). An error stops the step and is returned
// by Step.
type Controller interface {
	Control(w *World) error
}

// ControllerFunc adapts a function to a Controller.
type ControllerFunc func(w *World) error

// Control calls f(w).
func (f ControllerFunc) Control(w *World) error { return f(w) }

// AddController appends c to the world's controllers.
func (w *World) AddController(c Controller) error {
	if c == nil {
		return fmt.Errorf("controller %d: is nil", len(w.Controllers))
	}
	w.Controllers = append(w.Controllers, c)
	return nil
}

// New returns an empty world with the given settings.
func New(s Settings) (*World, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &World{Settings: s}, nil
}

// AddBody validates b and adds it; it returns the body's index, which
// joints use. A body already in the world is refused (a *num.FieldError
// naming both indices and the body's name): Step moves every entry of
// Bodies, so one pointer held twice would be integrated twice a step (a
// body appended to Bodies by hand since the last AddBody or Step and then
// added is refused by that Step instead, before anything moves). A
// body taken out of Bodies may be added again, to this world or another;
// a body held by two worlds at once is not detected (each world steps
// it).
func (w *World) AddBody(b *body.Body) (int, error) {
	if b == nil {
		return 0, fmt.Errorf("body %d: is nil", len(w.Bodies))
	}
	if err := b.Validate(); err != nil {
		return 0, err
	}
	if j, ok := w.links.find(w.Bodies, b); ok {
		return 0, duplicateBody(len(w.Bodies), j, b)
	}
	w.Bodies = append(w.Bodies, b)
	w.links.added(b, len(w.Bodies)-1)
	return len(w.Bodies) - 1, nil
}

// duplicateBody is the error for body i, the same *body.Body as body j < i.
func duplicateBody(i, j int, b *body.Body) error {
	return &num.FieldError{What: fmt.Sprintf("body %d", i), Name: b.Name, Field: "Bodies", Value: j,
		Reason: fmt.Sprintf("is body %d already, the same *body.Body (it would be integrated twice a step); a second body needs its own Body value", j)}
}

// bodyLinks is checkLinks' record of the Bodies it last found distinct,
// so that a step after no edit of Bodies compares pointers only.
type bodyLinks struct {
	checked []*body.Body
	index   map[*body.Body]int
}

// find reports whether b is in bodies and at which index, in constant
// time for AddBody (a scan per add made building a world of n bodies
// cost n²/2 comparisons: 0.9 s for 50 000). The index answers for the
// bodies AddBody added and those checkDistinct last saw: an entry whose
// slot still holds b is the answer; a stale one (Bodies edited since)
// falls back to a scan. A body that is in no entry is taken as new: one
// put into Bodies by hand since the last AddBody or Step and then added
// again is refused by the next Step (checkDistinct), before anything
// moves.
func (l *bodyLinks) find(bodies []*body.Body, b *body.Body) (int, bool) {
	j, ok := l.index[b]
	if !ok {
		return 0, false
	}
	if j < len(bodies) && bodies[j] == b {
		return j, true
	}
	j = slices.Index(bodies, b)
	return j, j >= 0
}

// added records that AddBody put b at index i.
func (l *bodyLinks) added(b *body.Body, i int) {
	if l.index == nil {
		l.index = make(map[*body.Body]int)
	}
	l.index[b] = i
}

// checkDistinct returns duplicateBody's error for the first body of
// bodies (by index) that is an earlier one's pointer, or nil. It allocates
// only when bodies has changed since the last call and grown beyond what
// it held.
func (l *bodyLinks) checkDistinct(bodies []*body.Body) error {
	if slices.Equal(l.checked, bodies) {
		return nil
	}
	if l.index == nil {
		l.index = make(map[*body.Body]int, len(bodies))
	}
	clear(l.index)
	for i, b := range bodies {
		if j, ok := l.index[b]; ok {
			l.checked = l.checked[:0]
			return duplicateBody(i, j, b)
		}
		l.index[b] = i
	}
	l.checked = append(l.checked[:0], bodies...)
	return nil
}

// AddConstraint adds a joint or coupling. Every body it touches must be in
// the world already. The bodies it joins stop colliding with each other
// (see filter.go); SetJointCollision, with the constraint's index
// len(w.Joints)−1, turns that back on.
func (w *World) AddConstraint(c constraint.Constraint) error {
	if c == nil {
		return fmt.Errorf("constraint %d: is nil", len(w.Joints))
	}
	for _, id := range c.Bodies() {
		if id < 0 || id >= len(w.Bodies) {
			return fmt.Errorf("constraint %d: names body %d, the world has %d bodies", len(w.Joints), id, len(w.Bodies))
		}
	}
	w.Joints = append(w.Joints, c)
	return nil
}

// Time returns the simulated time (s).
func (w *World) Time() float64 { return w.time }

// Steps returns the number of steps taken.
func (w *World) Steps() int { return w.steps }

// checkLinks returns an error naming the first nil body or constraint, the
// first body that is an earlier body's pointer (AddBody), and
// the first geom that AddGeom would refuse (checkGeom: a Body that is no
// body of the world, a bad shape, pose or material): edits of the exported
// fields (removing a body means editing Bodies, Geoms and Joints) that
// AddBody, AddConstraint and AddGeom would have refused, found before the
// step reads them.
func (w *World) checkLinks() error {
	for i, b := range w.Bodies {
		if b == nil {
			return fmt.Errorf("body %d: is nil", i)
		}
	}
	if err := w.links.checkDistinct(w.Bodies); err != nil {
		return err
	}
	for i, c := range w.Joints {
		if c == nil {
			return fmt.Errorf("constraint %d: is nil", i)
		}
	}
	for i := range w.Geoms {
		if err := w.checkGeom(i, &w.Geoms[i]); err != nil {
			return err
		}
	}
	return nil
}

// Energy returns the kinetic and the gravitational potential energy (J),
// the potential measured from the origin: −m g·x summed over bodies.
// That is all it counts: the energy stored in compliant rows (springs,
// soft joints, ropes: ½ k φ²) is not in it, and a rigid row (Stiffness 0)
// has no potential to count; its error φ is not a stored spring (SPOOK's
// ½ φᵀ ε⁻¹ φ needs a compliance ε > 0). Read off the state of a
// semi-implicit Euler step, whose velocity belongs half a step before its
// position, K + U swings by O(h) about what the step keeps, K + U − ½h Σ
// m g·v (the modified energy of the symplectic Euler method, E. Hairer,
// C. Lubich and G. Wanner, "Geometric Numerical Integration", 2006,
// §IX.1): a body in free fall loses ½ m h² g² of K + U a step and keeps
// the other exactly.
func (w *World) Energy() (kinetic, potential float64) {
	for i, b := range w.Bodies {
		if b == nil || b.Static || b.Kinematic { // infinite mass: driven, not part of the energy; nil: Step names it
			continue
		}
		// A sleeping body has no velocity (0 J) unless the caller gave it
		// one, which the next Step honours by waking it.
		if !w.sleep.asleepAt(i) || b.Vel != (mgl64.Vec3{}) || b.AngVel != (mgl64.Vec3{}) {
			kinetic += b.KineticEnergy()
		}
		potential -= b.Mass * w.Settings.Gravity.Dot(b.Pos)
	}
	return kinetic, potential
}

// LastProblem returns the MLCP of Eq. (2) that the last Step solved (its
// A, b, lo and hi), or nil before the first step or when it had no rows;
// during a step's solve (to Settings.Observer) it is the problem being
// solved, the island's when the step is solved by island (package doc,
// Islands); after the step it is the world's, whose solution is
// LastSolution. It is a view into the world's buffers, valid until the next
// Step; copy it (for instance with lcp.WriteProblem) to keep it.
func (w *World) LastProblem() *lcp.Problem {
	if w.ws.solve.prob.A == nil || w.ws.solve.prob.N() == 0 {
		return nil
	}
	return &w.ws.solve.prob
}

// LastReference returns the proximal centre the last Step's main solve
// started from (its lcp.Settings.Reference, on the rows of LastProblem):
// the pre-solve's x at a step with many new contacts, the last step's
// impulses at a steady step with Settings.Coherent on (Coherence.On), nil
// for x̄ = 0; after a solve again (Stats.Resolves) with Coherent on, the
// solve before it's x. Given LastProblem, LastStates and this reference, lcp.BPP
// solves to LastSolution's x again (bpmd records it for Rebuild). It is a
// view valid until the next Step; nil before the first step.
func (w *World) LastReference() []float64 {
	if w.steps == 0 {
		return nil
	}
	return w.ws.presolve.ref
}

// LastSolution returns the x that the last Step used (the picked iterate,
// impulses in N·s or N·m·s) and w = A x + b, views valid until the next
// Step; both are empty before the first step. Stats of that step give its
// iteration count, the picked iteration and the status.
func (w *World) LastSolution() (x, wv []float64) {
	if w.steps == 0 {
		return nil, nil
	}
	return w.ws.solve.res.X, w.ws.solve.res.W
}
