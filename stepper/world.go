package stepper

import (
	"context"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/errmeasure"
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
	if s >= 0 && int(s) < len(stabNames) {
		return stabNames[s]
	}
	return fmt.Sprintf("Stabilization(%d)", int(s))
}

// ParseStabilization is the inverse of String.
func ParseStabilization(s string) (Stabilization, error) {
	for i, n := range stabNames {
		if n == s {
			return Stabilization(i), nil
		}
	}
	return 0, fmt.Errorf("stabilization: unknown value %q (want regularized, none, baumgarte or post)", s)
}

// Settings of a World. Zero values mean the documented defaults, except H,
// which must be set.
type Settings struct {
	H       float64    // time step h (s), > 0
	Gravity mgl64.Vec3 // m/s²; the zero vector means no gravity (use StandardGravity)
	// Solver solves each step's MLCP; nil means block pivoting (lcp.BPP).
	Solver lcp.Solver
	// Budget is the solver's iteration budget per step; 0 = its default.
	Budget int
	// Pick selects the kept iterate: the least energy error (default), FB,
	// natural residual, the last one, or the least energy error with the
	// exact effective mass of Eq. (11) (errmeasure.EnergyExact).
	Pick errmeasure.Measure
	// Polish is the number of projected Gauss–Seidel sweeps run from the
	// picked iterate after the solver (errmeasure.Polish); 0, the default,
	// runs none. Each sweep costs about one product with A. A is symmetric
	// positive semidefinite, so no sweep raises ½xᵀAx + bᵀx once x is in
	// its box. Stats.PolishSweeps counts the sweeps run.
	Polish int
	// Stabilization mode; Baumgarte is its constant β (1/s) for the
	// Baumgarte mode.
	Stabilization Stabilization
	Baumgarte     float64
	// PostSolver solves the post-stabilization MLCP; nil means lcp.BPP.
	PostSolver lcp.Solver
	// ContactMargin is the distance (m) below which two geoms get contact
	// rows whatever their velocities; 0 means DefaultContactMargin. Pairs
	// that can close the gap within the step get rows too (speculative
	// contacts, see detectContacts).
	ContactMargin float64
	// ProjectAbove (m or rad) is the largest position error (a joint's
	// violation, a contact's penetration) that the Regularized mode leaves
	// to its velocity-level feedback Φ/h (None and Baumgarte modes leave
	// every error to theirs, Post projects every error): an error
	// above it after the velocity step is removed by the position
	// projection of Post mode (World.project), which moves bodies without
	// changing velocities, so a large error never becomes a large Φ/h
	// velocity (a bounce, a chain whipping itself apart). 0 means
	// DefaultProjectAbove (1 mm or 1 mrad, above the errors of the papers'
	// scenes at their steps, far below visible ones); +Inf never projects.
	ProjectAbove float64
	// MaxCorrectingSpeed (m/s or rad/s; default 0 = ProjectAbove/h) caps
	// the Regularized mode's position feedback φ/h of a rigid row: a
	// penetration or joint error φ enters b as max(φ/h, −v_max) (a
	// bilateral error as φ/h clamped to [−v_max, v_max]), so an overlap
	// separates at no more than v_max (ODE's contact max correcting
	// velocity, Box2D's contact push speed). The default is the speed that
	// removes ProjectAbove in one step (0.2 m/s at h = 5 ms with the
	// default ProjectAbove): errors up to ProjectAbove are the feedback's
	// and get their full φ/h, so scenes whose errors stay below it (the
	// papers' scenes) are unchanged, and any error beyond is removed after
	// the step by the position projection, which adds no velocity. A body
	// that starts 2 cm inside the floor thus leaves it at v_max, with
	// kinetic energy ½ m v_max², not at 0.02/h (4 m/s at h = 5 ms). +Inf
	// never caps (the feedback of Eq. 1 as it is). Gaps (φ > 0 on a
	// contact or limit), compliant rows, and the None, Baumgarte and Post
	// modes are not capped.
	MaxCorrectingSpeed float64
	// BounceSpeed (m/s) is the approach speed below which a contact does
	// not bounce whatever its restitution (Material.Restitution), so that
	// resting contacts, which approach at g h per step, stay at rest. 0
	// means DefaultBounceSpeed.
	BounceSpeed float64
	// Impacts selects how a step with a bouncing contact (approach above
	// BounceSpeed, restitution > 0) resolves its impacts:
	// SimultaneousImpacts (the default) puts Newton's law on each normal
	// row into the step's MLCP; PropagatedImpacts resolves them first,
	// pair by pair through the touching contacts (World.Step's
	// propagateImpacts), as a chain of balls passes an impact on.
	Impacts Impacts
	// Context, if not nil, is handed to the step's solver, which checks it
	// once per iteration: when it is done the step completes with the best
	// iterate so far (status lcp.Canceled) and Step returns an error
	// wrapping the context's error. A step is never left half-integrated.
	Context context.Context
	// Observer, if not nil, sees every iterate of the step's main solve,
	// after the step's Picker (lcp.Compose), not those of the new
	// contacts' pre-solve, of the post-stabilization solves or of Polish's
	// sweeps. World.LastProblem is the problem being solved. Several
	// observers share the solve through lcp.Compose. An Observer that is an
	// lcp.Stopper can end the solve after any iterate: the step then
	// completes with the picked iterate among those so far (status
	// lcp.Stopped, unless it solves the problem) and Step returns an error
	// wrapping lcp.ErrStopped and the Stopper's error, as for Context.
	Observer lcp.Observer
}

// DefaultSettings returns the settings a simulation starts from: h = 1/60 s
// and StandardGravity, every other field zero, its documented default (the
// BPP solver with its default budget, the least-energy pick, Regularized
// stabilization projecting errors above 1 mm). Change fields of the value
// it returns; Settings{H: h} alone has no gravity.
func DefaultSettings() Settings {
	return Settings{H: 1.0 / 60, Gravity: StandardGravity}
}

// DefaultBounceSpeed is the default Settings.BounceSpeed (m/s), Box2D's
// restitution threshold.
const DefaultBounceSpeed = 1.0

// StandardGravity is (0, 0, −9.81) m/s², z up.
var StandardGravity = mgl64.Vec3{0, 0, -9.81}

// Validate reports the first bad setting, naming the field.
func (s *Settings) Validate() error {
	switch {
	case !(s.H > 0) || math.IsInf(s.H, 0):
		return fmt.Errorf("settings: H: time step must be finite and > 0, got %v", s.H)
	case !finiteVec(s.Gravity):
		return fmt.Errorf("settings: Gravity: must be finite, got %v", s.Gravity)
	case s.Budget < 0:
		return fmt.Errorf("settings: Budget: must be ≥ 0, got %d", s.Budget)
	case !s.Pick.Valid():
		return fmt.Errorf("settings: Pick: unknown measure %d", int(s.Pick))
	case s.Polish < 0:
		return fmt.Errorf("settings: Polish: must be ≥ 0 sweeps, got %d", s.Polish)
	case s.Stabilization < Regularized || s.Stabilization > Post:
		return fmt.Errorf("settings: Stabilization: unknown mode %d", int(s.Stabilization))
	case !(s.ContactMargin >= 0) || math.IsInf(s.ContactMargin, 0):
		return fmt.Errorf("settings: ContactMargin: must be finite and ≥ 0 m, got %v", s.ContactMargin)
	case !(s.ProjectAbove >= 0):
		return fmt.Errorf("settings: ProjectAbove: must be ≥ 0 (m or rad; +Inf = never project), got %v", s.ProjectAbove)
	case !(s.MaxCorrectingSpeed >= 0):
		return fmt.Errorf("settings: MaxCorrectingSpeed: must be ≥ 0 m/s (0 = ProjectAbove/h, +Inf = no cap), got %v", s.MaxCorrectingSpeed)
	case s.Impacts < SimultaneousImpacts || s.Impacts > PropagatedImpacts:
		return fmt.Errorf("settings: Impacts: unknown mode %d (want SimultaneousImpacts or PropagatedImpacts)", int(s.Impacts))
	case !(s.BounceSpeed >= 0) || math.IsInf(s.BounceSpeed, 0):
		return fmt.Errorf("settings: BounceSpeed: must be finite and ≥ 0 m/s, got %v", s.BounceSpeed)
	case s.Stabilization == Baumgarte && !(s.Baumgarte >= 0 && !math.IsInf(s.Baumgarte, 0)):
		return fmt.Errorf("settings: Baumgarte: must be finite and ≥ 0, got %v", s.Baumgarte)
	}
	return nil
}

func finiteVec(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
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
// joints use.
func (w *World) AddBody(b *body.Body) (int, error) {
	if b == nil {
		return 0, fmt.Errorf("body %d: is nil", len(w.Bodies))
	}
	if err := b.Validate(); err != nil {
		return 0, err
	}
	w.Bodies = append(w.Bodies, b)
	return len(w.Bodies) - 1, nil
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

// Energy returns the kinetic and the gravitational potential energy (J),
// the potential measured from the origin: −m g·x summed over bodies.
func (w *World) Energy() (kinetic, potential float64) {
	for _, b := range w.Bodies {
		if b.Static || b.Kinematic { // infinite mass: driven, not part of the energy
			continue
		}
		kinetic += b.KineticEnergy()
		potential -= b.Mass * w.Settings.Gravity.Dot(b.Pos)
	}
	return kinetic, potential
}

// LastProblem returns the MLCP of Eq. (2) that the last Step solved (its
// A, b, lo and hi), or nil before the first step or when it had no rows;
// during a step's solve (to Settings.Observer) it is the problem being
// solved. It is a view into the world's buffers, valid until the next
// Step; copy it (for instance with lcp.WriteProblem) to keep it.
func (w *World) LastProblem() *lcp.Problem {
	if w.ws.prob.A == nil || w.ws.prob.N() == 0 {
		return nil
	}
	return &w.ws.prob
}

// LastSolution returns the x that the last Step used (the picked iterate,
// impulses in N·s or N·m·s) and w = A x + b, views valid until the next
// Step; both are empty before the first step. Stats of that step give its
// iteration count, the picked iteration and the status.
func (w *World) LastSolution() (x, wv []float64) {
	if w.steps == 0 {
		return nil, nil
	}
	return w.ws.res.X, w.ws.res.W
}
