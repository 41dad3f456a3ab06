package stepper

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
)

// Stats are one step's diagnostics: the step-statistics columns of
// docs/formats.md, plus the error totals of the solver's last iterate.
type Stats struct {
	Step       int
	Time       float64 // s, at the end of the step
	Rows       int
	Iterations int
	BudgetHit  bool
	// Status is that of the used answer (errmeasure.Solve: the picked
	// iterate, after the safeguard and Settings.Polish), except that a
	// solve whose solver ran out of its Budget (BudgetHit) is never
	// Converged: it is then BudgetExhausted (solveStatus).
	Status     lcp.Status
	Picked     int               // iteration whose iterate was used
	Errors     errmeasure.Totals // of the used iterate (J for Energy)
	LastErrors errmeasure.Totals // of the solver's last iterate
	Kinetic    float64           // J, after the step
	Potential  float64           // J, after the step
	// MaxViolation is the largest joint error (a joint's anchor distance
	// or orientation error, the length of its bilateral rows' φ) or
	// penetration −φ of a unilateral row, after the step (m or rad).
	MaxViolation float64
	// Contacts is the number of contact points this step.
	Contacts int
	// Sleeping is the number of sleeping bodies after the step
	// (Settings.Sleep); 0 with sleeping off.
	Sleeping int
	// EnergyAdded is the mechanical energy the step created (J): kinetic
	// plus gravitational potential energy after the step, minus before,
	// minus the work of the applied forces and torques (h f·v⁺ + h τ·ω⁺)
	// and of the joint motors and position servos (x·J v⁺ on Motor rows
	// and servo rows, constraint.Row.Actuator; a passive spring's work is
	// not subtracted, so its release shows here). Friction, inelastic
	// impacts and the constraints' velocity projection make it negative; a
	// positive value is energy put in by the integrator, by the Φ/h
	// position feedback or by a position correction raising a body. The
	// energies are World.Energy's (no spring's stored ½ k φ²). In
	// Regularized mode with JointFeedback the Φ/h feedback closing a moving
	// rigid joint's error under tension is a gain that no stored potential
	// pays for: a 10-link chain whipping at h = 1/240 s gets up to 0.127 J
	// in one step, 1.3 % of its fall; with the opt-in JointProjection
	// its midpoint energy never rises and a step adds up to 0.031 J, the
	// semi-implicit step's O(h) swing of K + U (TestNewUserChain10).
	EnergyAdded float64
	// Projections is the number of position-projection solves
	// (post-stabilization) this step: 0 when none was needed.
	Projections int
	// ProjectionIterations is the solver iterations those solves took.
	ProjectionIterations int
	// ProjectionsRegularized is the number of those solves that
	// Settings.PostSolver could not do (lcp.ErrSingular) and that were
	// repeated on the regularized matrix (ProjectionShift).
	ProjectionsRegularized int
	// ProjectionSkipped says why the position projection was given up this
	// step (ProjectionNotSkipped, the zero value, when it was not):
	// the bodies keep the poses of the velocity step, or of the last
	// projection solve that succeeded, and the error is left to the next
	// steps. ProjectionSkipReason is the solver's error then, "" else. A
	// skipped projection does not end the run.
	ProjectionSkipped    ProjectionSkip
	ProjectionSkipReason string
	// PreSolveIterations is the block-pivoting iterations of the new
	// contacts' pre-solve (the estimate of their normal impulses for the
	// friction bounds), 0 in a step without new contacts; they are not
	// counted in Iterations.
	PreSolveIterations int
	// Resolves is the number of times the step's MLCP was solved again:
	// with contacts held beyond Coulomb's circle turned to their friction
	// (Settings.TurnFriction) or friction bounds raised to its own normal
	// impulses (Settings.CoulombBounds), 0 when neither. Iterations,
	// Picked, Status and the errors are then the last solve's.
	Resolves int
	// ResolveIterations is the solver iterations of the solves before the
	// last of a step with Resolves > 0 (the last one's are Iterations).
	ResolveIterations int
	// SeedSweeps is the projected Gauss–Seidel sweeps that chose the start
	// index sets of the new contacts' normal rows, in that pre-solve or,
	// when no new contact has friction, in the step's solve (run when at
	// least a quarter of the step's contact points are new), or that
	// estimated the new contacts' normal impulses in its place (fewer than
	// a quarter new, Budget 0), 0 when none ran.
	SeedSweeps int
	// ImpactSweeps is the number of sweeps over the contact pairs that
	// resolved this step's impacts (Settings.Impacts = PropagatedImpacts),
	// 0 in a step without a bounce or in the default mode.
	ImpactSweeps int
	// PolishSweeps is the number of projected Gauss–Seidel sweeps run
	// after the solver (Settings.Polish; fewer when a sweep changed
	// nothing); they are not counted in Iterations.
	PolishSweeps int
	// Gyroscopic is the number of constrained bodies whose gyroscopic
	// stiffness entered the step's MLCP (Mass, Assembly): the step's A was
	// dense and not symmetric. 0 for a step on the symmetric path.
	Gyroscopic int
	// GyroscopicDropped is the number of constrained gyroscopic bodies
	// that a step left on I_w⁻¹: it had more than MaxGyroscopicRows rows,
	// or its non-symmetric MLCP failed and it was solved again on the
	// symmetric path.
	GyroscopicDropped int
	// Stiffened is the number of bodies that took their joint anchors'
	// geometric stiffness into the step (GeometricStiffnessTol): the
	// links of a taut rope of light links at a large step.
	Stiffened int
	// Safeguard is what the step's safeguard did with an x that did not
	// solve the MLCP (errmeasure.Safeguard): Gain (J) the energy applying
	// the picked iterate would have added by the step's exact balance
	// (energyModel), 0 when it added none or the solve converged (then x
	// is the pick); Anchor the point x was moved towards (the last step's
	// impulses, the best iterate without a gain, or 0), Scale the fraction
	// of the way to the pick that was kept, Sweeps the Gauss–Seidel sweeps
	// run after (SafeguardSweeps).
	Safeguard errmeasure.Safeguarded
	// Conflict describes the rows that could not all hold when the step's
	// MLCP had no solution (its equations inconsistent by at most
	// Settings.ProjectAbove per step, see Conflict; Status is then
	// Failed); the zero value (Rows 0) in a step that had none.
	Conflict Conflict
	// Bound is the certified bound of the used iterate (J,
	// errmeasure.CertifiedBound): ½(x − x*)ᵀA(x − x*) ≤ Bound for the
	// step's exact solution x*; +Inf when the iterate is outside its box or
	// a row without a bound on the side its velocity points to makes it
	// infinite. In a gyroscopic step (Gyroscopic > 0) A is not symmetric
	// and the number, computed the same way, certifies nothing.
	Bound float64
	// Islands is the step's solve by island (World.solveIslands), one
	// entry per island in island order (by smallest body index), then
	// one with Body −1 for the loose rows (rows naming no dynamic body)
	// when there are any; nil when the step's MLCP was solved as one
	// problem (Settings.SingleProblem, a single island, a gyroscopic
	// step). It is a view of the world's buffer, valid until the next
	// Step. Of a step solved by island, the totals above combine the
	// islands': Iterations and Picked are the largest among the islands'
	// (each island has the whole Budget; the islands run side by side),
	// PolishSweeps and Safeguard.Sweeps likewise; BudgetHit is set when
	// any island's solve hit the budget; Status is the worst island's
	// (from best to worst: Converged, NotStarted, Unconverged,
	// BudgetExhausted, Failed, Stopped, Canceled); Errors, LastErrors,
	// Bound and Safeguard.Gain are sums over the islands, as the 1-norms
	// of the error measures and the certified bound ½(x − x*)ᵀA(x − x*)
	// add over the blocks of a block-diagonal A; Safeguard.Scale is the
	// least island's, Safeguard.Anchor the last resort any island fell
	// back to (AnchorZero after AnchorIterate after AnchorPrevious).
	Islands []IslandStats
	// Timings is the wall-clock time of each stage of the step. It is
	// measured, not computed, so it differs from run to run; it is not a
	// column of the statistics CSV, whose rows are the same bits in every
	// run.
	Timings Timings
}

// Timings are the wall-clock times of a step's stages, in the order Step
// runs them (Box2D's b2Profile, Rapier's counters): what each field covers
// is the code between two readings of the monotonic clock, so the stages
// add up to Total less the step's bookkeeping (the controllers, the
// finiteness checks, the energies of Stats). Reading the clock allocates
// nothing and changes no bit of the physics.
type Timings struct {
	// FreeVelocities: the bodies' world inverse inertia and free
	// velocities M⁻¹ p (Mass.Update).
	FreeVelocities time.Duration
	// Contacts: broad and narrow phase, the contact points and their
	// matching with the last step's by key (detectContacts).
	Contacts time.Duration
	// Rows: the joints' and contacts' rows with their warm-start index
	// sets, the joint rows' drift prediction (Regularized mode) and the
	// propagated impacts (Settings.Impacts = PropagatedImpacts).
	Rows time.Duration
	// Assembly: A = J M⁻¹ Jᵀ + C, b and the bounds, with the restitution
	// targets of bouncing contacts.
	Assembly time.Duration
	// PreSolve: the new contacts' pre-solve and the Gauss–Seidel sweeps
	// that seed it (Stats.PreSolveIterations, Stats.SeedSweeps).
	PreSolve time.Duration
	// Solve: the step's solve with the Picker and Settings.Observer on
	// every iterate, the safeguard and the polish; on a gyroscopic step
	// whose MLCP failed, the symmetric path's assembly, pre-solve and
	// solve too (Stats.GyroscopicDropped).
	Solve time.Duration
	// Integrate: v⁺ = M⁻¹(p + Jᵀx), the poses (with the bounces'
	// impulses moved to their time of contact), and the contacts' impulses
	// kept by key for the next step's warm start.
	Integrate time.Duration
	// Projection: the position errors measured at the new poses (the
	// joint rows refilled, the contacts detected again) and the projection
	// solves when one runs (Stats.Projections).
	Projection time.Duration
	// Total: the whole Step, from its first line to its return.
	Total time.Duration
}

// lap adds the time since t0 to *d and returns the time now, the start of
// the next stage.
func lap(d *time.Duration, t0 time.Time) time.Time {
	now := time.Now()
	*d += now.Sub(t0)
	return now
}

// stepContext is what a step uses of the settings that has a default,
// resolved once at the start of Step (Box2D's b2StepContext): the stages
// take their solvers from here, never from w.Settings, so that Step leaves
// the caller's Settings as it found them (MuJoCo's read-only mjModel beside
// its mutable mjData).
type stepContext struct {
	solver lcp.Solver // Settings.Solver, or memory.bpp when it is nil
	post   lcp.Solver // Settings.PostSolver, or memory.postBPP when it is nil
}

// workspace holds everything Step reuses across steps, split by the stage
// that owns it (see the table in the package doc). A stage writes only its
// own struct and reads those of the stages before it (freeVelocities →
// detectContacts → buildRows → propagateImpacts → assemble →
// estimateNewContacts → solve → integrate → storeImpulses → project).
// memory is the one struct that outlives
// a step: what the next step starts from.
type workspace struct {
	step       stepContext     // this step's resolved settings (resolveSettings)
	mass       Mass            // freeVelocities: M⁻¹ and the free velocities of the bodies
	massJob    rangeJob        // freeVelocities: Mass.Update by chunks of bodies on the pool
	contacts   contactStage    // detectContacts
	build      rowStage        // buildRows
	drift      driftStage      // predictDrift, inside buildRows
	stiff      geomStiffStage  // geometricStiffness, inside buildRows
	impacts    impactStage     // propagateImpacts
	assembly   assemblyStage   // assemble
	presolve   presolveStage   // estimateNewContacts
	solve      solveStage      // solve: pickSolve, safeguard, polish
	integrate  integrateStage  // integrate
	projection projectionStage // project
	memory     memory          // carried from one step to the next
	islands    islandStage     // solve by island: per-island solver state, kept across steps
	pool       workPool        // runs the parallel parts of the stages
	// bookkeeping is Step's passes outside the stages: energies,
	// applied work, inverse inertias for the projection.
	bookkeeping bookkeepingStage
}

// contactStage is detectContacts' state: the broad phase's boxes and
// pairs and the step's contact points, matched with memory.cache by key.
// It reads the free velocities (Mass.Free) for the speculative margin.
type contactStage struct {
	points []point // the step's contact points, in row order
	poses  []contact.Pose
	boxes  []contact.AABB
	sweep  []float64
	pairs  [][2]int
	pts    []contact.Point
	sap    contact.SweepAndPrune
	skip   func(i, j int) bool
	joined []uint64    // body pairs joined with collision off (updateJoined), sorted
	broad  broadStage  // the broad phase's chunks on the workPool
	narrow narrowStage // the narrow phase's chunks on the workPool
	// bounds runs geomBounds on the workPool (forRange), free being
	// collect's argument while it runs.
	bounds rangeJob
	free   *Mass
	// rowChunks are fillContactRows' chunks on the workPool.
	rowChunks rowChunks
	// reuse is the projection's narrow phase kept for the next step's.
	reuse pairReuse
	// posed is each geom's pose and Extent with what they were computed
	// from (geomBounds); posedOff computes every one afresh (the tests'
	// reference).
	posed    []posedGeom
	posedOff bool
	// rested counts the collects that found no mover (World.noMovers) and
	// returned no points at once, since the world began; restOff turns
	// that off (the tests' reference).
	rested  int
	restOff bool
}

// rowStage is buildRows' output: the joint rows, then the contact rows,
// and their warm-start index sets.
type rowStage struct {
	rows  []constraint.Row
	start []lcp.State // warm start of rows, from memory
	ctx   constraint.Context
	nj    int   // joint rows this step; contact rows follow them
	jdims []int // rows of each joint this step, in World.Joints order (RowLabels)
}

// driftStage is predictDrift's scratch (Regularized mode): the poses kept
// while the bodies stand at their predicted poses, and the joint rows
// filled there.
type driftStage struct {
	savedPos []mgl64.Vec3
	savedRot []mgl64.Quat
	savedAng []mgl64.Vec3
	fastTurn []bool
	drows    []constraint.Row
	dctx     constraint.Context
	ext      [][2]mgl64.Vec3 // extrapolate: the velocities of the prediction
	prev     driftPrev       // extrapolate: the last step's ω̂ and ω (JointProjection)
}

// impactStage is propagateImpacts' state: the bodies' velocities during
// the impacts, one pair's MLCP and its solver, the sweeps this step.
type impactStage struct {
	iv           [][6]float64
	ia           lcp.Dense
	ib, ilo, ihi []float64
	ie, ig       [16]float64  // a pair's restitutions and gaps (impactPair)
	iq           [][6]float64 // per body, the impacts' displacement (shiftBounces)
	tb           []float64    // per body, the latest time of contact of its impacts (s)
	shifted      bool         // some impact set iq this step
	bounceRow    []bool       // per row, it belongs to a bouncing point (shiftBounces)
	held         []bool       // per body, a non-bouncing row pushes it (shiftBounces)
	supported    []bool       // per body, a contact carried it last step (markSupported); empty without a restitution pair of dynamic bodies
	isolver      lcp.BPP
	ires         lcp.Result
	impactSweeps int
}

// assemblyStage is assemble's output: the step's MLCP of rowStage.rows.
type assemblyStage struct {
	eq Assembly
}

// presolveStage is estimateNewContacts' state: the new contacts'
// pre-solve of their normal impulses (the friction bounds) and the
// Gauss–Seidel sweeps that seed it (seedNewNormals), with their counts.
type presolveStage struct {
	estSolver          *lcp.BPP // when Settings.Solver is not a BPP
	eprob              lcp.Problem
	eres               lcp.Result
	elo, ehi           []float64
	seedPGS            lcp.PGS    // the pre-solve's start index sets (seedNewNormals)
	seedRes            lcp.Result // its iterate
	noSpread           bool       // tests: the sweeps' index sets alone, without spreadPatchLoad
	strictTol          bool       // tests: BPP's default tolerance, not preSolveTolerance
	freeFriction       bool       // tests: the new friction and rolling rows free in the pre-solve, not pinned at 0
	noUpright          bool       // tests: no startUprightPatches
	preIts, seedSweeps int
	// ref is the main solve's lcp.Settings.Reference: the pre-solve's x
	// when it ran (eres.X), otherwise, with Settings.Coherent, Budget 0 and
	// no new contacts, the last step's impulses on this step's rows
	// (previousImpulses, ws.solve.prevX); nil otherwise. A solve again
	// with Settings.Coherent and Budget 0 replaces it by the last solve's
	// x (solveStage.againRef). It is read by
	// pickSolve and the islands' gather (solveIslands) before the
	// safeguard reuses prevX.
	ref []float64
	// cold: the pre-solve of the whole problem ran this step (a scene
	// built at rest, a pile landing): its main solve is told when its
	// first face is singular by structure (pickSolve), and so is each
	// island's (islandSlot.semidefinite).
	cold bool
}

// solveStage is the solve stage's state, shared by its three parts
// pickSolve, safeguard and polish; res holds the step's answer x.
type solveStage struct {
	res    lcp.Result
	prob   lcp.Problem
	picker *errmeasure.Picker
	// guard is the Picker of the step's safeguard: the picked measure
	// among the iterates without an energy gain (errmeasure.Safeguard).
	guard  *errmeasure.Picker
	energy energyModel // the step's energy balance as a function of x
	prevX  []float64   // the safeguard's anchor on this step's rows (previousImpulses)
	// prevJob runs previousRange on the workPool (forRange).
	prevJob rangeJob
	// start0 and jointStart0 keep rowStage.start and memory.jointStart of
	// a gyroscopic step before its solve, for solveSymmetric.
	start0, jointStart0 []lcp.State
	// energyBodies and energyRows run energyModel's passes on the
	// workPool (forRange).
	energyBodies, energyRows rangeJob
	// energyReady is set when energy describes this step's solve;
	// gain (World.stepGain, made once) fills it on first use.
	energyReady bool
	gain        errmeasure.GainFunc
	// changed marks, while a step solves again (TurnFriction,
	// CoulombBounds), the rows whose frame or bounds the last solve's
	// answer changed (turnHeldFriction, raiseFrictionBounds); again is set
	// for that solve, which by island solves only the islands holding a
	// changed row (solveIslands): the others' problems are the last
	// solve's, and so are their answers.
	changed []bool
	again   bool
	// againRef is the proximal centre (lcp.Settings.Reference,
	// presolveStage.ref) of a solve again with Settings.Coherent on and
	// no Budget (a steady step's is the last step's impulses on the same
	// condition, lastStepReference): the last solve's x, the turned
	// rows' impulses projected into their new frames (turnHeldFriction),
	// every changed row's clamped to its bounds.
	againRef []float64
	// turns holds, at each manifold's first contact point, the
	// manifold's turns in this step (frameTurn; zero if none): see
	// turnHeldFriction.
	turns []frameTurn
}

// integrateStage is integrate's scratch.
type integrateStage struct {
	lplus []mgl64.Vec3 // per body, L₀ + h τ − I_w ω_free
	w0    []mgl64.Vec3 // per body, ω at the step's start
	// move runs moveBodies on the workPool (forRange); m, as and rs
	// are integrate's arguments while it runs, x the solve's impulses
	// (nil when the solve left none).
	move rangeJob
	m    *Mass
	as   *assemblyStage
	rs   *rowStage
	x    []float64
	turnStage
}

// projectionStage is project's state: the position projection
// (post-stabilization) on its own rows, so that the velocity step's rows
// and problem stay readable after the step, and what it reports.
type projectionStage struct {
	prows   []constraint.Row
	peq     Assembly // J M⁻¹ Jᵀ of prows
	ppoints []point
	pjoint  int                // positional joint rows at the start of prows, the contact rows after
	pctx    constraint.Context // the joints' Fill context at the poses being projected
	pb      []float64
	plo     []float64
	phi     []float64
	pres    lcp.Result
	pprob   lcp.Problem
	pstart  []lcp.State
	dq      [][6]float64
	pdiag   []float64 // diag(J M⁻¹ Jᵀ) of the fallback (projectSolve)
	// pfallback solves the regularized projection when Settings.PostSolver
	// fails (projectSolve); pregularized counts those solves this step,
	// pskip and pskipWhy say why the projection was skipped.
	pfallback    lcp.BPP
	pregularized int
	pskip        ProjectionSkip
	pskipWhy     string
	maxViol      float64 // of the poses after the step
	projects     int     // projection solves this step
	projIts      int     // their iterations
	// pislands are the islands of prows (selectProjectionRows), pmark
	// the bodies whose islands the solve corrects, perr each island's
	// largest rigid error; pleft counts the islands left as they are,
	// since the world began, and projectAll (the tests' reference)
	// keeps every island in every solve.
	pislands   islandSet
	pmark      []bool
	perr       []float64
	pleft      int
	projectAll bool
}

// memory is what one step leaves for the next: the warm starts, the
// safeguard's anchors and the default solvers, which reuse what they
// learned in the last solve (lcp.BPP). Every other stage struct is
// refilled by its stage each step.
type memory struct {
	// bpp and postBPP are the default solvers of the step's MLCP and of
	// the position projection. They live here, not in Settings, and
	// persist across steps as a solver set in Settings does.
	bpp, postBPP lcp.BPP
	cache        contactCache // by key: last step's impulses and states
	// jointStart holds the joint rows' final index sets of the last step,
	// valid for warm start while the joint row count stays the same.
	jointStart []lcp.State
	// jointX is the last step's joint-row impulses, for the safeguard's
	// anchor (previousImpulses); the contact points' are in cache.
	jointX []float64
}

// Step advances the world by one time step h (Eq. 1): it fills the
// constraint rows, assembles A = J M⁻¹ Jᵀ + C and b = J M⁻¹ p + Φ/h by row
// sparsity, solves the MLCP under the budget keeping the picked iterate,
// applies v⁺ = M⁻¹(p + Jᵀx), integrates poses, and projects positions onto
// the constraints where the mode asks for it (project). A step in steady
// state allocates nothing.
//
// Step reads w.Settings and never writes into it: a nil Solver or
// PostSolver is a block-pivoting solver that the world keeps for its steps.
//
// Step returns an error, and leaves the world at the failed state, when a
// body's state stops being finite (the error names the body) or the
// solver breaks down; a budget running out is not an error (Stats.BudgetHit).
// It returns an error before anything moves, naming the field, when an
// edit of the exported fields since the last step left what AddBody or
// AddGeom would refuse (a mass of 0, a zero quaternion, a box of negative
// size: ErrNonFinite for a body), or a rigid joint row that names no
// dynamic body (a body made static under its joint to the world).
func (w *World) Step() (Stats, error) {
	var tm Timings
	start := time.Now()
	s := &w.Settings
	if err := s.Validate(); err != nil {
		return Stats{}, err
	}
	ws := &w.ws
	ws.islands.setStep = 0 // this step's rows are not partitioned yet (partition)
	for i, c := range w.Controllers {
		if c == nil {
			return Stats{}, fmt.Errorf("controller %d: is nil", i)
		}
		if err := c.Control(w); err != nil {
			return Stats{}, fmt.Errorf("controller %d: %w", i, err)
		}
	}
	if err := w.checkLinks(); err != nil { // after the controllers, which may edit the world
		return Stats{}, err
	}
	w.resolveSettings() // after the controllers, which may change them
	w.wakeChanged()     // after the controllers, which may push a sleeping body
	k0, u0, err := w.checkedEnergy(false)
	if err != nil {
		return Stats{}, err
	}
	t := time.Now()
	m := w.freeVelocities()
	t = lap(&tm.FreeVelocities, t)
	cs := w.detectContacts(m)
	t = lap(&tm.Contacts, t)
	if err := w.stepCancelled(); err != nil {
		return Stats{}, err // StepContext: nothing has changed yet (cancel.go)
	}
	w.keepRows() // StepContext: the last step's rows, for a cancellation
	rs, err := w.buildRows(m, cs)
	if cerr := w.stepCancelled(); cerr != nil {
		w.abandonStep()
		return Stats{}, cerr
	}
	if err != nil {
		return Stats{}, err
	}
	t = lap(&tm.Rows, t)
	as, err := w.assembleCancellable(m, rs)
	if cerr := w.stepCancelled(); cerr != nil {
		w.abandonStep()
		return Stats{}, cerr
	}
	if err != nil {
		return Stats{}, fmt.Errorf("step %d: %w", w.steps+1, err)
	}
	if as.eq.Gyroscopic > 0 { // for solveSymmetric
		ws.solve.start0 = append(ws.solve.start0[:0], rs.start...)
		ws.solve.jointStart0 = append(ws.solve.jointStart0[:0], ws.memory.jointStart...)
	}
	t = lap(&tm.Assembly, t)
	pre := w.estimateNewContacts(as, cs, rs)
	t = lap(&tm.PreSolve, t)
	sol, st, err := w.solve(as, rs, pre)
	if err != nil && as.eq.Gyroscopic > 0 {
		sol, st, err = w.solveSymmetric(m, cs, rs)
	}
	for (s.TurnFriction || s.CoulombBounds) && err == nil && st.Resolves < maxResolves && len(sol.res.States) == len(rs.start) {
		// Contacts held beyond Coulomb's circle turn their frames, and
		// with CoulombBounds friction bounds follow the solve's own
		// normal impulses: solve again from this solve's index sets.
		// The solve again starts from this solve's index sets and, with
		// Settings.Coherent on and no Budget, from this solve's x as its
		// proximal centre (turnHeldFriction projects the turned rows'
		// impulses into their new frames): see turnHeldFriction.
		sol.changed = grow(sol.changed, len(rs.rows))
		clear(sol.changed)
		sol.againRef = append(sol.againRef[:0], sol.res.X...)
		if st.Resolves == 0 {
			sol.turns = grow(sol.turns, len(cs.points))
			clear(sol.turns)
		}
		// A solve that hit its Budget has no answer to turn to: its x
		// need not be near Coulomb's circle, and a solve again from its
		// index sets with frames turned to it failed on a singular free
		// block (a 30-box pile with Budget 2, at step 42).
		turned := s.TurnFriction && !st.BudgetHit && w.turnHeldFriction(cs, rs, sol)
		if !(s.CoulombBounds && w.raiseFrictionBounds(as, cs, rs, sol)) && !turned {
			break
		}
		copy(rs.start, sol.res.States)
		if s.Coherent.On() && s.Budget == 0 { // as lastStepReference
			for i, c := range sol.changed {
				if c { // within the changed bounds
					sol.againRef[i] = min(max(sol.againRef[i], rs.rows[i].Lo), rs.rows[i].Hi)
				}
			}
			pre.ref = sol.againRef
		}
		if turned {
			if as, err = w.assemble(m, rs); err != nil {
				break
			}
		}
		n, its := st.Resolves+1, st.ResolveIterations+st.Iterations
		sol.again = true
		sol, st, err = w.solve(as, rs, pre)
		sol.again = false
		st.Resolves, st.ResolveIterations = n, its
	}
	t = lap(&tm.Solve, t)
	if cerr := w.explainConflict(err); cerr != nil {
		tm.Total = time.Since(start)
		st.Timings = tm
		return st, cerr // before integrate: the world stays at the step's start
	}
	if err != nil {
		// An inconsistency below ProjectAbove is the step's answer, its
		// rows named in st.Conflict (tolerateConflict).
		err = w.tolerateConflict(err, sol, rs, &st)
	}
	if err != nil && st.Status != lcp.BudgetExhausted && len(sol.res.X) != len(rs.rows) {
		tm.Total = time.Since(start)
		st.Timings = tm
		return st, err
	}
	moved := w.integrate(m, as, rs, sol)
	w.shiftBounces(cs, rs, sol) // the bounces' impulses act at their time of contact
	w.storeImpulses(cs, rs, sol)
	lap(&tm.Integrate, t)
	work := w.appliedWork() // bookkeeping: in Total only
	t = time.Now()
	if perr := w.project(m, moved); perr != nil && err == nil {
		err = perr
	}
	lap(&tm.Projection, t)
	st.Sleeping = w.updateSleep() // before the energies: it zeroes velocities
	w.time += s.H
	w.steps++
	ws.drift.prev.endStep(w.Bodies) // the step counted: its ω̂ is the next one's last
	st.Step = w.steps
	st.Time = w.time
	st.Contacts = len(ws.contacts.points)
	var ferr error
	st.Kinetic, st.Potential, ferr = w.checkedEnergy(true)
	st.EnergyAdded = st.Kinetic + st.Potential - k0 - u0 - work
	st.MaxViolation = ws.projection.maxViol
	st.Projections, st.ProjectionIterations = ws.projection.projects, ws.projection.projIts
	st.ProjectionsRegularized = ws.projection.pregularized
	st.ProjectionSkipped, st.ProjectionSkipReason = ws.projection.pskip, ws.projection.pskipWhy
	st.PreSolveIterations, st.SeedSweeps = ws.presolve.preIts, ws.presolve.seedSweeps
	st.ImpactSweeps = ws.impacts.impactSweeps
	st.Gyroscopic, st.GyroscopicDropped = ws.assembly.eq.Gyroscopic, ws.assembly.eq.Dropped
	st.Stiffened = ws.stiff.bodies
	tm.Total = time.Since(start)
	st.Timings = tm
	if ferr != nil {
		return st, fmt.Errorf("step %d: %w", w.steps, ferr)
	}
	return st, err
}

// resolveSettings fills ws.step from w.Settings, the defaults in place of
// nil solvers.
func (w *World) resolveSettings() {
	ws := &w.ws
	ws.step = stepContext{solver: w.Settings.Solver, post: w.Settings.PostSolver}
	if ws.step.solver == nil {
		ws.step.solver = &ws.memory.bpp
	}
	if ws.step.post == nil {
		ws.step.post = &ws.memory.postBPP
	}
}

// ProjectionSkip is why a step's position projection was given up
// (Stats.ProjectionSkipped); its integer value is the projection_skipped
// column of the statistics CSV.
type ProjectionSkip int

const (
	// ProjectionNotSkipped: the projection ran (or was not needed).
	ProjectionNotSkipped ProjectionSkip = iota
	// ProjectionInconsistent: the projection MLCP had no solution the
	// solvers found, neither Settings.PostSolver nor block pivoting on the
	// regularized matrix (lcp.ErrSingular).
	ProjectionInconsistent
	// ProjectionFailed: the solver failed otherwise, or its correction was
	// not finite.
	ProjectionFailed
)

var projectionSkipNames = [...]string{"", "inconsistent", "failed"}

// String returns "" for ProjectionNotSkipped, "inconsistent" or "failed".
func (p ProjectionSkip) String() string {
	if p >= 0 && int(p) < len(projectionSkipNames) {
		return projectionSkipNames[p]
	}
	return fmt.Sprintf("ProjectionSkip(%d)", int(p))
}

// ErrNonFinite is wrapped by Step's error when a body's state is not
// finite (before the step, from bad input, or after it: a step too large
// for the motion), or before the step when a body is not fit to step (a
// mass, inertia, applied load or quaternion that Body.Validate refuses,
// set between steps); the message names the body and the field.
var ErrNonFinite = errors.New("state not finite")

// checkFinite returns an error naming the first body whose position,
// orientation or velocities are not finite.
func (w *World) checkFinite(when string) error {
	return w.nonFiniteError(w.firstNonFinite(), when)
}

// nonFiniteError is checkFinite's error for body i, nil for i < 0.
func (w *World) nonFiniteError(i int, when string) error {
	if i < 0 {
		return nil
	}
	b := w.Bodies[i]
	if verr := b.Validate(); verr != nil { // its first line names the field
		first, _, _ := strings.Cut(verr.Error(), "\n")
		return fmt.Errorf("body %d (%q): %w %s: %s", i, b.Name, ErrNonFinite, when, first)
	}
	return fmt.Errorf("body %d (%q): %w %s: Pos %v, Rot %v, Vel %v, AngVel %v",
		i, b.Name, ErrNonFinite, when, b.Pos, b.Rot, b.Vel, b.AngVel)
}

// freeVelocities computes each body's world inverse inertia and its free
// velocity M⁻¹ p (Mass.Update), the velocity it would have after the step
// without constraints. It is the first stage: the Mass it returns is what
// the later stages take as proof that this step's free velocities exist.
func (w *World) freeVelocities() *Mass {
	m := &w.ws.mass
	m.resize(w.Bodies)
	job := &w.ws.massJob
	if job.run == nil {
		job.run = func(lo, hi int) { w.updateAwake(m, lo, hi) }
	}
	w.forRange(job, len(w.Bodies)) // Mass.Update, by chunks of bodies
	w.sleepFree()
	return m
}

// buildRows asks every constraint for its rows (the ODE contract), then
// appends the contact rows of cs, and sets the warm-start index sets
// start: joint rows from the last step while their count is unchanged,
// contact rows from the last step's states of the same contact keys
// (memory). Last it resolves the step's impacts (propagateImpacts), which
// moves the free velocities in m and clears the rows' resolved bounces,
// so that the rowStage it returns, the input of assemble, is final.
func (w *World) buildRows(m *Mass, cs *contactStage) (*rowStage, error) {
	ws := &w.ws
	rs := &ws.build
	nj := w.jointRowCount() // the joints of sleeping islands have none
	ws.stiff.bodies = 0
	n := nj + w.contactRowCount(cs)
	rs.rows, rs.start = grow(rs.rows, n), grow(rs.start, n)
	if err := w.fillJointRows(nj); err != nil || w.chunkCancelled(stageRows) {
		return rs, err
	}
	if err := w.predictDrift(nj); err != nil || w.chunkCancelled(stageRows) {
		return rs, err
	}
	w.geometricStiffness(m, rs)
	if len(ws.memory.jointStart) == nj {
		copy(rs.start, ws.memory.jointStart)
	} else {
		for i := 0; i < nj; i++ {
			rs.start[i] = lcp.AtLower // the solver maps it onto what the bounds allow
		}
	}
	w.contactDrift(cs)
	w.fillContactRows(m, cs, nj, rs.rows[nj:], rs.start[nj:])
	if w.chunkCancelled(stageRows) {
		return rs, nil
	}
	err := w.propagateImpacts(m, cs, rs)
	// The impacts moved the bodies' velocities: the step goes on to its
	// end (StepContext).
	w.cancel.final = w.ws.impacts.impactSweeps > 0
	if err != nil {
		return nil, fmt.Errorf("step %d: %w", w.steps+1, err)
	}
	return rs, nil
}

// fillJointRows fills ws.build.rows[:nj] from the joints at the current poses.
func (w *World) fillJointRows(nj int) error {
	ws := &w.ws
	ws.build.nj = nj
	ws.build.ctx = constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	ws.build.jdims = ws.build.jdims[:0]
	k, checked := 0, 0
	for i, c := range w.Joints {
		d := c.Dim()
		if w.jointAsleep(i) { // no rows while its island sleeps
			ws.build.jdims = append(ws.build.jdims, 0)
			continue
		}
		if k-checked >= cancelCheckRows {
			if w.chunkCancelled(stageRows) {
				return nil // StepContext: the step stops (Step)
			}
			checked = k
		}
		ws.build.jdims = append(ws.build.jdims, d)
		if err := c.Fill(ws.build.rows[k:k+d], &ws.build.ctx); err != nil {
			return fmt.Errorf("constraint %d: %w", i, err)
		}
		for j := k; j < k+d; j++ {
			if err := checkRow(&ws.build.rows[j], len(w.Bodies)); err != nil {
				return fmt.Errorf("constraint %d: its row %d: %w", i, j-k, err)
			}
			if err := w.checkMoves(&ws.build.rows[j]); err != nil {
				return fmt.Errorf("constraint %d%s: its row %d: %w", i, quotedName(w.JointName(i)), j-k, err)
			}
		}
		k += d
	}
	return nil
}

// checkMoves returns an error for a rigid free row (c = 0, no bound)
// that names no dynamic body, only static or kinematic ones: its J M⁻¹ Jᵀ
// and C are 0, a zero pivot that no solver can take (the step failed with
// "free block … singular", naming no joint), and its impulse would move
// nothing. A joint between the world and a body made static or kinematic
// after it was added is the usual cause. A compliant row of the kind (a
// soft joint to a kinematic body, a spring to read a force) has A = C > 0
// and passes.
func (w *World) checkMoves(r *constraint.Row) error {
	if !math.IsInf(r.Lo, -1) || !math.IsInf(r.Hi, 1) {
		return nil
	}
	for k := range r.N {
		if b := w.Bodies[r.Body[k]]; !b.Static && !b.Kinematic {
			return nil
		}
	}
	if c, _, _ := r.Compliance(w.Settings.H); c > 0 {
		return nil
	}
	var what []string
	for k := range r.N {
		b, kind := w.Bodies[r.Body[k]], "static"
		if b.Kinematic {
			kind = "kinematic"
		}
		what = append(what, fmt.Sprintf("body %d%s is %s", r.Body[k], quotedName(b.Name), kind))
	}
	if r.N < 2 {
		what = append(what, "the other side is the world")
	}
	return fmt.Errorf("a rigid %v row of no dynamic body (%s) moves nothing and makes the MLCP singular; "+
		"remove the joint, make a body dynamic or the joint soft (SetSoft)", r.Kind, strings.Join(what, ", "))
}

// assemble builds A, b and the bounds of the step's MLCP
// (Assembly.Assemble), a bouncing contact's restitution target included
// (its normal row's constraint.Row.Bounce), from the rows of rs, and
// returns its assemblyStage.
func (w *World) assemble(m *Mass, rs *rowStage) (*assemblyStage, error) {
	as := &w.ws.assembly
	if as.eq.par == nil {
		as.eq.par = w.forRange
	}
	// A step of several islands reads all of A (each island's block,
	// splitIslands): A is filled at once, by island on the pool when it
	// is large (so is a SingleProblem step's of several islands). A
	// single island's A leaves its values off the diagonal to their
	// first reader (Assembly.lazyA).
	as.eq.groups = nil
	// The rows' check, and whether they have the last step's layout,
	// before the partition that keeps its islands for the same layout.
	if err := as.eq.checkLayout(m, rs.rows); err != nil {
		return as, err
	}
	w.ws.islands.layStep = w.steps + 1
	multi := false
	pool := len(rs.rows) >= rowParallel && w.ws.pool.workers(2) >= 2
	if !w.Settings.SingleProblem || pool {
		g := w.partition(rs.rows) // the islands splitIslands solves
		if multi = problems(g) >= 2; multi && pool {
			as.eq.groups = g // A's pairs by island on the pool
		}
	}
	as.eq.lazyA = !as.eq.eagerA && !multi
	err := as.eq.Assemble(&w.Settings, m, rs.rows)
	as.eq.groups = nil
	return as, err
}

// assembleCancellable is assemble inside the step's StepContext: Assemble
// checks the context before each chunk (Assembly.stop) and stops where it
// is when it is done, leaving the assembly for abandonStep.
func (w *World) assembleCancellable(m *Mass, rs *rowStage) (*assemblyStage, error) {
	if w.cancel.ctx == nil || w.cancel.final {
		return w.assemble(m, rs)
	}
	eq := &w.ws.assembly.eq
	if w.cancel.stopAsm == nil {
		w.cancel.stopAsm = func() bool { return w.chunkCancelled(stageAssembly) }
	}
	eq.stop = w.cancel.stopAsm
	as, err := w.assemble(m, rs)
	eq.stop = nil
	return as, err
}

// solveSymmetric assembles and solves the step again on the symmetric
// path (Assembly.Symmetric), after the non-symmetric MLCP of a gyroscopic
// step failed: block pivoting factors its free block by LU, which has no
// regularization for the redundant rows of a closed loop (a four-wheeled
// vehicle's A is singular), where the symmetric path's proximal steps
// succeed. The gyroscopic bodies are counted in Stats.GyroscopicDropped;
// Settings.Observer sees both solves. The warm start is the failed
// solve's, but the solver's own state (a BPP's factor and regularization
// memory) has seen the failed solve, so the step is not bit for bit the
// one a world without gyroscopic bodies would take.
func (w *World) solveSymmetric(m *Mass, cs *contactStage, rs *rowStage) (*solveStage, Stats, error) {
	ws := &w.ws
	ws.assembly.eq.Symmetric = true
	defer func() { ws.assembly.eq.Symmetric = false }()
	rs.start = append(rs.start[:0], ws.solve.start0...) // the warm start the failed solve had
	ws.memory.jointStart = append(ws.memory.jointStart[:0], ws.solve.jointStart0...)
	as, err := w.assemble(m, rs)
	if err != nil {
		return &ws.solve, Stats{}, fmt.Errorf("step %d: %w", w.steps+1, err)
	}
	pre := w.estimateNewContacts(as, cs, rs)
	return w.solve(as, rs, pre)
}

// solve is the step's solve stage, in three parts run in this order:
// pickSolve (the solver under the budget, the Picker keeping the
// least-error iterate), safeguard (an unconverged answer that would add
// energy moved towards its anchor) and polish (Settings.Polish sweeps from
// the kept iterate). It needs the pre-solve's presolveStage, which has
// seeded rs.start and the solver's factor, and whose ref (the pre-solve's
// x, or the last step's impulses) is the solve's lcp.Settings.Reference. It
// returns its
// solveStage, whose res holds the answer x, and the step's solver
// statistics.
func (w *World) solve(as *assemblyStage, rs *rowStage, pre *presolveStage) (*solveStage, Stats, error) {
	ws := &w.ws
	sol := &ws.solve
	s := &w.Settings
	n := len(rs.rows)
	sol.prob = as.eq.Problem()
	if sol.picker == nil || sol.picker.Measure() != s.Pick {
		sol.picker = errmeasure.NewPicker(s.Pick)
	}
	st := Stats{Rows: n, Bound: math.Inf(1)}
	if n == 0 {
		st.Bound = 0 // nothing to solve: x = x*
		sol.res.X, sol.res.W = sol.res.X[:0], sol.res.W[:0]
		st.Status = lcp.Converged
		return sol, st, nil
	}
	var err error
	if w.splitIslands(as, rs) {
		as.eq.ensureA() // every island reads its block of A (Submatrix)
		st, err = w.solveIslands(sol, rs)
		if len(sol.res.X) == n {
			w.keepImpulses(sol)
		}
	} else {
		var solved errmeasure.Solved
		solved, err = w.pickSolve(sol, rs, pre)
		if len(sol.res.X) == n {
			st.Safeguard = w.safeguard(sol, &solved)
		}
		if err == nil && s.Polish > 0 {
			err = w.polish(sol, &solved)
		}
		if len(sol.res.X) == n {
			w.keepImpulses(sol)
		}
		st.PolishSweeps = solved.Sweeps
		st.Bound = solved.Bound
		st.Iterations = sol.res.Iterations
		st.Status, _ = solveStatus(&sol.res, &solved) // of the used answer, unless the budget ran out
		st.BudgetHit = solved.SolverStatus == lcp.BudgetExhausted
		st.Picked = solved.Picked
		st.Errors = solved.Totals
		if lt, ok := sol.picker.LastTotals(); ok {
			st.LastErrors = lt
		}
	}
	if len(sol.res.States) == n {
		ws.memory.jointStart = append(ws.memory.jointStart[:0], sol.res.States[:rs.nj]...)
	}
	if err != nil && len(sol.res.X) != n {
		err = w.explainInvalid(err) // the MLCP failed validation
	}
	if err != nil {
		return sol, st, fmt.Errorf("step %d: %w", w.steps+1, err)
	}
	return sol, st, nil
}

// pickSolve hands the step's MLCP ws.solve.prob to the step's solver under
// Settings.Budget, warm-started from ws.build.start and with
// presolveStage.ref (the pre-solve's x, or the last step's impulses) as
// lcp.Settings.Reference, with the Picker and the
// safeguard's Picker (errmeasure.SolveGuarded) seeing every iterate,
// followed by Settings.Observer. ws.solve.res holds the picked iterate.
func (w *World) pickSolve(sol *solveStage, rs *rowStage, pre *presolveStage) (errmeasure.Solved, error) {
	ws := &w.ws
	s := &w.Settings
	set := lcp.Settings{MaxIterations: s.Budget, Tolerance: s.Tolerance, Start: rs.start, Reference: pre.ref, Context: s.Context, Observer: s.Observer}
	// A cold step's first face is factored from scratch: where its
	// structure makes it singular (redundant rigid contacts), BPP starts in
	// regularized mode instead of finding out by a failed factorization.
	set.Semidefinite = pre.cold && sol.prob.RedundantRigid(rs.start)
	if sol.guard == nil {
		sol.gain = w.stepGain
		sol.guard = errmeasure.NewPicker(s.Pick)
		sol.guard.RejectGain = true
		sol.guard.GainOf = sol.gain
		// The guard ranks by gain only when read: by the safeguard,
		// after a solve that did not converge.
		sol.guard.DeferGain = true
	}
	sol.energyReady = false // energyModel waits for the first gain asked
	return errmeasure.SolveGuarded(&sol.res, &sol.prob, ws.step.solver, set, sol.picker, sol.guard)
}

// safeguard moves a picked answer that did not solve the MLCP and would
// add energy (energyModel) towards its anchor, the last step's impulses
// first (errmeasure.Safeguard), and runs SafeguardSweeps after; a
// converged answer is left as it is.
func (w *World) safeguard(sol *solveStage, solved *errmeasure.Solved) errmeasure.Safeguarded {
	if sol.res.Status == lcp.Converged {
		// What errmeasure.Safeguard returns for it, without gathering
		// the anchor: most steps converge.
		return errmeasure.Safeguarded{Scale: 1}
	}
	return errmeasure.Safeguard(&sol.res, &sol.prob, sol.picker, sol.guard, solved, sol.gain, w.previousImpulses(), SafeguardSweeps)
}

// stepGain is the step's energy gain of impulses x with w = A x + b
// (energyModel.gain), filling the energy model on its first call after
// pickSolve: a step whose solve converges asks none.
func (w *World) stepGain(x, wv []float64) float64 {
	sol := &w.ws.solve
	if !sol.energyReady {
		w.energyModel()
		sol.energyReady = true
	}
	return sol.energy.gain(x, wv)
}

// polish runs Settings.Polish projected Gauss–Seidel sweeps from the kept
// answer (errmeasure.Polish), counted in solved.Sweeps.
func (w *World) polish(sol *solveStage, solved *errmeasure.Solved) error {
	return errmeasure.Polish(&sol.res, &sol.prob, w.Settings.Polish, sol.picker, solved)
}

// SafeguardSweeps is the number of projected Gauss–Seidel sweeps the
// safeguard runs after moving an answer with an energy gain towards its
// anchor (errmeasure.Safeguard), as many as the studies' polished rules:
// each costs about one product with A, far less than a block pivot, and
// restores loads (a vehicle's weight on its wheels) that the move towards
// the anchor took away, so that the position projection does not have to
// lift a sunk body. On the forklift at a budget of 5 block pivots the
// safeguard does not act with the scene's defaults (28.09 m, the
// unbudgeted path, with or without the sweeps); with the chassis mass
// changed to 2499.999 kg, a run that falls into wheel slip, it covers
// 17.6 m without them and 24.8 m with them.
const SafeguardSweeps = 5

// previousImpulses returns the last step's impulses on this step's rows,
// the first anchor of the safeguard: a joint row's when the joint rows are
// the same, a contact point's rows' by its key (0 for a new point). The
// points' lookups run on the workPool (forRange, previousRange): each
// writes only its own point's rows.
func (w *World) previousImpulses() []float64 {
	sol := &w.ws.solve
	ws := &w.ws
	n := len(ws.build.rows)
	sol.prevX = grow(sol.prevX, n)
	clear(sol.prevX)
	if len(ws.memory.jointX) == ws.build.nj {
		copy(sol.prevX, ws.memory.jointX)
	}
	if sol.prevJob.run == nil {
		sol.prevJob.run, sol.prevJob.chunk, sol.prevJob.least = w.previousRange, prevChunk, prevParallel
	}
	w.forRange(&sol.prevJob, len(ws.contacts.points))
	return sol.prevX
}

// prevChunk is the points of one previousRange task and prevParallel the
// fewest for which previousImpulses runs on the workPool: a point's lookup
// by key takes about 0.07 µs (0.1 ms for the 1 500 points of PilesAwake).
const (
	prevChunk    = 128
	prevParallel = 512
)

// previousRange sets previousImpulses' entries of the contact points
// lo:hi: a point's rows get its cached impulses, or stay 0.
func (w *World) previousRange(lo, hi int) {
	ws := &w.ws
	x := ws.solve.prevX
	for i := lo; i < hi; i++ {
		pt := &ws.contacts.points[i]
		if c, ok := ws.memory.cache.getAt(i, pt.ck); ok {
			copy(x[pt.Row:pt.Row+pt.Rows], c.x[:pt.Rows])
		}
	}
}

// keepImpulses stores the joint rows' x for previousImpulses; the contact
// points' are in the contact cache (storeImpulses).
func (w *World) keepImpulses(sol *solveStage) {
	ws := &w.ws
	ws.memory.jointX = append(ws.memory.jointX[:0], sol.res.X[:ws.build.nj]...)
}

// energyModel is the energy a step adds as a function of its impulses x,
// the balance of Stats.EnergyAdded before the position projection:
//
//	E(x) = K(v⁺) − K₀ − h F·v⁺ − Σ_motor x_i J_i v⁺ + Σ_i x_i J_i^kin v^kin
//	     = e₀ + u·x + ½ xᵀ(A − C)x − Σ_motor x_i (J_i v_free + ((A − C)x)_i),
//
// with v⁺ = v_free + M⁻¹Jᵀx on the dynamic bodies, F their applied force
// and torque with gravity (h F·v⁺ is their work, −h m g·v⁺ the potential
// energy's change as integrate moves them), e₀ = K(v_free) − K₀ −
// h F·v_free and u_i = J_i v_free − J_i M⁻¹ h F (the kinematic blocks'
// set velocities in J_i v_free). With w = A x + b, A x = w − b, so E is
// O(n) per iterate. On a gyroscopic step (Stats.Gyroscopic > 0, A = J W Jᵀ
// not symmetric) ½ xᵀ(A − C)x is not the kinetic energy of M⁻¹Jᵀx and E is
// an estimate; such steps' solves converge in the scenes measured, and the
// safeguard acts on unconverged answers only.
type energyModel struct {
	e0, scale float64
	u, c, jvf []float64
	b         []float64
	motor     []bool
	// bk0, bkf and bwf are each body's terms of e₀, K₀, K(v_free) and
	// h F·v_free (0 for static and kinematic bodies), for an island's
	// share of the model (restrict).
	bk0, bkf, bwf []float64
	// bf is each dynamic body's applied force with gravity, f + m g
	// (N), read by the rows' M⁻¹ h F terms.
	bf []mgl64.Vec3
}

// energyModel fills ws.solve.energy for the step's rows, with the bodies at the
// step's start and ws.mass and ws.assembly.eq of this step.
func (w *World) energyModel() {
	sol := &w.ws.solve
	ws := &w.ws
	em := &sol.energy
	n := len(ws.build.rows)
	w.growEnergy()
	em.b = ws.assembly.eq.B
	nb := len(w.Bodies)
	if sol.energyBodies.run == nil {
		sol.energyBodies.run, sol.energyRows.run = w.energyBodies, w.energyRows
		sol.energyRows.rows = true
	}
	w.forRange(&sol.energyBodies, nb)
	k0, kf, wf := 0.0, 0.0, 0.0
	for i, b := range w.Bodies {
		if b.Static || b.Kinematic {
			continue
		}
		k0 += em.bk0[i]
		kf += em.bkf[i]
		wf += em.bwf[i]
	}
	em.e0 = kf - k0 - wf
	em.scale = k0 + kf + math.Abs(wf)
	w.forRange(&sol.energyRows, n)
}

// growEnergy sizes ws.solve.energy's row and body terms for the step's
// rows and the world's bodies, without filling them.
func (w *World) growEnergy() {
	em := &w.ws.solve.energy
	n := len(w.ws.build.rows)
	em.u, em.c, em.jvf = grow(em.u, n), grow(em.c, n), grow(em.jvf, n)
	if cap(em.motor) < n {
		em.motor = make([]bool, n)
	}
	em.motor = em.motor[:n]
	nb := len(w.Bodies)
	em.bk0, em.bkf, em.bwf = grow(em.bk0, nb), grow(em.bkf, nb), grow(em.bwf, nb)
	if cap(em.bf) < nb {
		em.bf = make([]mgl64.Vec3, nb)
	}
	em.bf = em.bf[:nb]
}

// energyBodies is energyModel's pass over the bodies lo:hi: each dynamic
// body's applied force, kinetic energies at the start and at the free
// velocity, and the work of the applied loads in the step.
func (w *World) energyBodies(lo, hi int) {
	ws := &w.ws
	em := &ws.solve.energy
	h := w.Settings.H
	for i := lo; i < hi; i++ {
		b := w.Bodies[i]
		em.bk0[i], em.bkf[i], em.bwf[i] = 0, 0, 0
		if b.Static || b.Kinematic {
			continue
		}
		v := ws.mass.Free[i]
		lv := mgl64.Vec3{v[0], v[1], v[2]}
		av := mgl64.Vec3{v[3], v[4], v[5]}
		f := b.Force.Add(w.Settings.Gravity.Mul(b.Mass))
		em.bf[i] = f
		em.bk0[i] = b.KineticEnergy()
		em.bkf[i] = 0.5*b.Mass*lv.Dot(lv) + 0.5*av.Dot(b.InertiaWorld().Mul3x1(av))
		em.bwf[i] = h * (f.Dot(lv) + b.Torque.Dot(av))
	}
}

// energyRows is energyModel's pass over the rows lo:hi: each row's
// compliance, J v_free and u (after energyBodies).
func (w *World) energyRows(lo, hi int) {
	ws := &w.ws
	em := &ws.solve.energy
	h := w.Settings.H
	for i := lo; i < hi; i++ {
		r := &ws.build.rows[i]
		c, _, _ := r.Compliance(h)
		em.c[i] = c
		em.motor[i] = r.Kind == constraint.Motor
		jvf, jmf := 0.0, 0.0
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			b := w.Bodies[bi]
			if b.Static {
				continue
			}
			j := &r.J[k]
			v := &ws.mass.Free[bi]
			jvf += j[0]*v[0] + j[1]*v[1] + j[2]*v[2] + j[3]*v[3] + j[4]*v[4] + j[5]*v[5]
			if b.Kinematic {
				continue
			}
			jm := &ws.assembly.eq.JMinv[i][k]
			f := &em.bf[bi]
			jmf += h * (jm[0]*f[0] + jm[1]*f[1] + jm[2]*f[2] + jm[3]*b.Torque[0] + jm[4]*b.Torque[1] + jm[5]*b.Torque[2])
		}
		em.jvf[i] = jvf
		em.u[i] = jvf - jmf
	}
}

// gain returns E(x) (energyModel) less its rounding, 10⁻⁹ of the size of
// its terms: > 0 when applying x would add energy.
func (em *energyModel) gain(x, w []float64) float64 {
	e, size := em.e0, em.scale
	for i, xi := range x {
		ax := w[i] - em.b[i] - em.c[i]*xi // ((A − C) x)_i
		t := xi*em.u[i] + 0.5*xi*ax
		if em.motor[i] {
			t -= xi * (em.jvf[i] + ax)
		}
		e += t
		size += math.Abs(xi*em.u[i]) + math.Abs(xi*ax)
	}
	return e - 1e-9*size
}

// explainInvalid names what made the step's MLCP invalid (err says which
// entry, "A[1][5]: must be finite"): a body whose state fails
// body.Validate (which names the body and field), or else the constraint
// row of the first non-finite entry, with its kind and bodies.
func (w *World) explainInvalid(err error) error {
	for _, b := range w.Bodies {
		if berr := b.Validate(); berr != nil {
			return fmt.Errorf("%w; the cause: %v", err, berr)
		}
	}
	rs, eq := &w.ws.build, &w.ws.assembly.eq
	for i := range rs.rows {
		bad := !num.Finite(eq.B[i]) || math.IsNaN(eq.Lo[i]) || math.IsNaN(eq.Hi[i])
		for j := 0; j < len(rs.rows) && !bad; j++ {
			a := eq.Matrix().At(i, j)
			bad = !num.Finite(a)
		}
		if bad {
			r := &rs.rows[i]
			names := make([]string, r.N)
			for k := 0; k < r.N; k++ {
				names[k] = fmt.Sprintf("%q", w.Bodies[r.Body[k]].Name)
			}
			return fmt.Errorf("%w; row %d is a %v row of bodies %s", err, i, r.Kind, strings.Join(names, ", "))
		}
	}
	return err
}

// integrate applies v⁺ = M⁻¹(p + Jᵀx) and moves the poses (semi-implicit
// Euler; quaternions through the exponential map, renormalized). The
// rotation by h ω⁺ is about ω⁺ itself, so the body-frame angular velocity
// is unchanged by it and a torque-free body keeps the kinetic energy and
// |L| that the midpoint rule of its free velocity conserved
// (body.Body.AngularStep).
//
// The midpoint rule keeps |L| but not the direction of L in the world: it
// turns O(h²|ω|²) per step, which for a top is its precession. So after the
// move each body's pose is turned by the small rotation P that brings its
// momentum I_w(q⁺) ω⁺ onto the momentum balance L⁺ = L₀ + h τ + (Jᵀx)_ω
// (ω⁺ turned with it, so the body-frame ω, the energy and |L| stay): a free
// body conserves L exactly and a top precesses at the exact rate to 0.01 %
// at h|ω| = 0.1. A body whose joints hold some of its turning (rigid
// bilateral rows with only an angular part on it: a hinge's two axis rows,
// a fixed joint's three) takes the momentum balance's gyroscopic impulse at
// the velocity the joints gave it along the held directions, not at the
// free velocity the joints then corrected there (heldGyroscopic); and the
// turns of all bodies lose, by the least kinetic-energy correction, what
// would change those rows (turnStage.projectTurns): the alignment moves no
// joint's held angles, so a hinge holds its axis to rounding under a
// torque across it. For a constrained body the correction is skipped when
// it turns more than maxMomentumTurn in the step (a wheel spinning 8 rad
// per step): there the difference between I_w(q⁺) ω⁺ and L⁺ is the phase of
// the sub-step nutation, not a drift, and turning the body after it would
// fight its joints (the 500 rad/s wheel on a turning frame loses 68 % of
// its energy with it, 2.6 % without).
//
// A constrained gyroscopic body (Mass.Gyroscopic) turning more than
// maxMomentumTurn moves by body.Body.SpinDisplace instead: it turns by its
// spin about its own principal axle and the rest of h ω⁺ carries the axle
// and the spin vector with it, the spin measured along the free axis of
// its hinge rows when it has one (Assembly.freeAxis). A single turn about
// ω⁺ = s a + Ω z (a wheel spinning at s on a frame yawing at Ω) sweeps the
// axle on a cone about ω⁺ instead of turning it by hΩ with the frame; the
// hinge then opens by about hΩ per step (0.03 rad for the 500 rad/s wheel
// on a 2 rad/s frame at h = 1/60 s), and the projection that closes it
// turns the axle but not the world spin vector s a, whose part across the
// new axle, s sin hΩ ≈ 17 rad/s, the next step's rows strip (the axial
// part keeps s cos hΩ: 0.28 rad/s less spin per step), and with it the
// frame's yaw.
func (w *World) integrate(m *Mass, as *assemblyStage, rs *rowStage, sol *solveStage) *integrateStage {
	it := &w.ws.integrate
	if cap(it.lplus) < len(w.Bodies) {
		it.lplus = make([]mgl64.Vec3, len(w.Bodies))
	}
	it.lplus = it.lplus[:len(w.Bodies)]
	if cap(it.w0) < len(w.Bodies) {
		it.w0 = make([]mgl64.Vec3, len(w.Bodies))
	}
	it.w0 = it.w0[:len(w.Bodies)]
	it.resetTurns(len(w.Bodies))
	if it.move.run == nil {
		it.move.run = w.moveBodies
	}
	it.m, it.as, it.rs = m, as, rs
	it.x = nil
	if len(sol.res.X) == len(rs.rows) {
		it.x = sol.res.X
	}
	w.forRange(&it.move, len(w.Bodies))
	it.m, it.as, it.rs, it.x = nil, nil, nil, nil
	it.projectTurns(rs.rows, &as.eq, w.margin())
	it.keepOut(rs.rows, &as.eq, w.Bodies, w.Settings.H)
	for i, b := range w.Bodies {
		if !it.aligned[i] {
			continue
		}
		p := body.QuatExp(it.turn[i])
		b.Rot = p.Mul(b.Rot)
		b.Rot = b.Rot.Scale(1 / b.Rot.Len())
		b.AngVel = p.Rotate(b.AngVel)
		b.Pos = b.Pos.Add(it.shift[i])
	}
	return it
}

// moveBodies is integrate's pass over the bodies lo:hi, each on its own:
// a dynamic, awake body's momentum balance terms (integrateStage.lplus,
// w0), its velocity after the step, the free velocity plus the solve's
// impulses through its rows (Assembly.byBody, in row order, the order
// of a pass over the rows), its move by the new velocities and its
// momentum alignment (integrateStage.turn, winv).
func (w *World) moveBodies(lo, hi int) {
	it, m, as, rs, h := &w.ws.integrate, w.ws.integrate.m, w.ws.integrate.as, w.ws.integrate.rs, w.Settings.H
	for i := lo; i < hi; i++ {
		b := w.Bodies[i]
		if b.Static || w.sleep.asleepAt(i) {
			continue
		}
		if b.Kinematic { // the pose advances by the set velocity
			b.Displace(b.Vel.Mul(h), b.AngVel.Mul(h))
			continue
		}
		w.startVelocity(i)
		if it.x != nil && i < len(as.eq.byBody) {
			// v += (M⁻¹ Jᵀ)_p x_p row by row, component by component.
			v, av := b.Vel, b.AngVel
			for _, p := range as.eq.byBody[i] {
				x := it.x[p.row]
				if x == 0 {
					continue
				}
				jm := &as.eq.JMinv[p.row][p.slot]
				v[0], v[1], v[2] = v[0]+jm[0]*x, v[1]+jm[1]*x, v[2]+jm[2]*x
				av[0], av[1], av[2] = av[0]+jm[3]*x, av[1]+jm[4]*x, av[2]+jm[5]*x
			}
			b.Vel, b.AngVel = v, av
		}
		turn := h * b.AngVel.Len()
		if turn > maxMomentumTurn && as.eq.constrained(i) && m.gyro(i) &&
			b.SpinDisplace(b.Vel.Mul(h), b.AngVel.Mul(h), as.eq.freeAxis(i, rs.rows)) {
			continue // a fast rotor on a joint: its spin follows its axle
		}
		if turn < minMomentumTurn || (turn > maxMomentumTurn && as.eq.constrained(i)) {
			b.Displace(b.Vel.Mul(h), b.AngVel.Mul(h))
			continue
		}
		iw := b.InertiaWorld()
		l := it.lplus[i].Add(iw.Mul3x1(b.AngVel)) // L⁺, at the start pose
		if e, n := as.eq.heldAxes(i, rs.rows); n > 0 {
			f := &m.Free[i]
			l = l.Add(heldGyroscopic(h, iw, it.w0[i], mgl64.Vec3{f[3], f[4], f[5]}, b.AngVel, &e, n))
		}
		b.Displace(b.Vel.Mul(h), b.AngVel.Mul(h))
		la := b.InertiaWorld().Mul3x1(b.AngVel)
		na, nl := la.Len(), l.Len()
		if na == 0 || nl == 0 {
			continue
		}
		c := la.Mul(1 / na).Cross(l.Mul(1 / nl))
		// The drift is O((h|ω⁺|)²); an angle beyond the step's own turn is
		// rounding noise in a near-zero momentum (a body at rest), not
		// drift: leave it.
		if sn := c.Len(); sn > 0 {
			ang := math.Atan2(sn, la.Dot(l)/(na*nl))
			if ang > h*b.AngVel.Len() {
				continue
			}
			it.turn[i], it.aligned[i] = c.Mul(ang/sn), true
			it.winv[i] = b.InvInertiaWorld()
			it.minv[i] = b.InvMass()
		}
	}
}

// startVelocity sets dynamic, awake body i's momentum balance terms
// (integrateStage.lplus, w0) and its velocity to its free velocity, to
// which moveBodies adds the solve's impulses.
func (w *World) startVelocity(i int) {
	it, h := &w.ws.integrate, w.Settings.H
	b := w.Bodies[i]
	v := it.m.Free[i]
	it.w0[i] = b.AngVel
	// L₀ + h τ − I_w(q) ω_free; moveBodies adds I_w(q) ω⁺.
	it.lplus[i] = b.InertiaWorld().Mul3x1(b.AngVel.Sub(mgl64.Vec3{v[3], v[4], v[5]})).Add(b.Torque.Mul(h))
	b.Vel = mgl64.Vec3{v[0], v[1], v[2]}
	b.AngVel = mgl64.Vec3{v[3], v[4], v[5]}
}

// projectAbove is Settings.ProjectAbove with 0 resolved to
// DefaultProjectAbove (m or rad).
func (s *Settings) projectAbove() float64 {
	if s.ProjectAbove == 0 {
		return DefaultProjectAbove
	}
	return s.ProjectAbove
}

// Position projection (post-stabilization).
const (
	// DefaultProjectAbove is the default Settings.ProjectAbove (m or rad).
	DefaultProjectAbove = 1e-3
	// JointProjectAbove (m or rad): under Settings.JointCorrection =
	// JointProjection the projection runs on any step where a rigid
	// bilateral joint row's error exceeds it (besides ProjectAbove).
	JointProjectAbove = 1e-6
	// ProjectionTolerance (m or rad) is the largest position error a
	// projection leaves: it iterates until every positional row is within
	// it (or MaxProjections solves ran). Far below any visible error, well
	// above the rounding of a 1 km scene.
	ProjectionTolerance = 1e-9
	// MaxProjections bounds the projection solves of one step. Each is a
	// Newton step on the constraint manifold, so the error after k solves
	// is about (e₀/ℓ)^(2^k) ℓ for an error e₀ on a body of size ℓ: 2 or 3
	// reach ProjectionTolerance unless the step went far off the manifold.
	MaxProjections    = 20
	maxProjectionTurn = 0.2
	// maxMomentumTurn (rad) is the largest turn h|ω⁺| of a step after
	// which integrate still aligns a body's momentum with the momentum
	// balance.
	maxMomentumTurn = 0.5
	// minMomentumTurn (rad): below it the drift, O(turn²) per step, is
	// under 1e-12 rad and the alignment is skipped, so that bodies at rest
	// (a wall of bricks, whose degenerate contacts make block pivoting
	// sensitive to rounding-level changes) are not turned by noise.
	minMomentumTurn = 1e-6
)

// project measures the position errors at the poses after the step (the
// joint rows refilled, the contacts detected anew) and, in Post mode, or in
// Regularized mode when an error exceeds Settings.ProjectAbove, moves the
// positions onto the constraints with post-stabilization: the MLCP of
// Cline and Pai 2003 Eqs. (13)–(15) over every positional row,
//
//	(J M⁻¹ Jᵀ) δ + Φ = w,   bilateral rows: δ free, w = 0;
//	unilateral rows (limits, contact normals): δ ≥ 0 ⊥ w ≥ 0,
//
// and Δq = M⁻¹ Jᵀ δ applied with body.Displace: the least-kinetic-energy
// change of position that removes the errors. A penetration is pushed out
// and a separation is never pulled closed; velocities are not touched, so
// the correction puts no kinetic energy in. A is assembled sparse like the
// step's (Assembly.MassMatrix) and solved by Settings.PostSolver (BPP by default);
// the solve repeats, with the rows refilled at the corrected poses, until
// every error is within ProjectionTolerance or MaxProjections solves ran.
// It records the largest error left in ws.projection.maxViol. It needs
// integrate's integrateStage only as proof that the bodies stand at the
// step's new poses.
func (w *World) project(mass *Mass, _ *integrateStage) error {
	ps := &w.ws.projection
	s := &w.Settings
	ps.projects, ps.projIts, ps.pregularized = 0, 0, 0
	ps.pskip, ps.pskipWhy = ProjectionNotSkipped, ""
	above := s.projectAbove()
	for {
		m, row, joint, err := w.positionRows()
		if err != nil {
			return err
		}
		if row <= ProjectionTolerance || ps.projects >= MaxProjections {
			return nil
		}
		// Under JointProjection a rigid joint's error gets no φ/h (a
		// moving anchor's row), so it is projected every step it exceeds
		// JointProjectAbove (split correction: positions only).
		split := s.Stabilization == Regularized && s.JointCorrection == JointProjection && joint > JointProjectAbove
		if ps.projects == 0 && (s.Stabilization == None || s.Stabilization == Baumgarte || !(m > above || split)) && s.Stabilization != Post {
			return nil
		}
		// The solve's M⁻¹ at the poses it corrects (projectOnce reads
		// mass's InvInertia; nothing else does before the next step's
		// Update, so a step without a projection solve skips it).
		w.updateInertia(mass)
		ok, err := w.projectOnce()
		if err != nil {
			return err
		}
		if !ok {
			// No correction this step: the poses stay as the velocity
			// step left them and the error is left to the next steps.
			return nil
		}
	}
}

// positionRows fills ws.projection.prows with the positional rows at the current
// poses: the joints' (bilateral and limit rows) and a normal row per
// contact point within the margin. It returns the largest error among the
// rigid ones, a joint's anchor distance or orientation error from its
// bilateral rows (jointError) or −φ of a unilateral row, for
// Settings.ProjectAbove; the largest rigid row error, |φ| of a bilateral
// row or −φ of a unilateral one, for ProjectionTolerance; the largest
// rigid joint error, for JointProjectAbove; and sets
// ws.projection.maxViol to the largest over all (a compliant row's deflection
// included: Stats.MaxViolation reports how deep a soft contact sinks).
func (w *World) positionRows() (rigidMax, rowMax, jointMax float64, err error) {
	ps := &w.ws.projection
	ps.pctx = constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	nj := w.jointRowCount()
	ru := &w.ws.contacts.reuse
	ru.record, ru.again = true, ps.projects > 0 // for the next step's narrow phase and the one after a solve (pairReuse)
	ps.ppoints = w.collect(ps.ppoints[:0], nil)
	ru.record, ru.again = false, false
	n := nj + len(ps.ppoints)
	ps.prows = grow(ps.prows, n)
	viol, rigid, row, joint := 0.0, 0.0, 0.0, 0.0
	k := 0
	for i, c := range w.Joints {
		d := c.Dim()
		if w.jointAsleep(i) {
			continue
		}
		if err := c.Fill(ps.prows[k:k+d], &ps.pctx); err != nil {
			return 0, 0, 0, fmt.Errorf("constraint %d: %w", i, err)
		}
		e, eRigid, eRow, eJoint := jointError(ps.prows[k : k+d])
		viol, rigid, row, joint = max(viol, e), max(rigid, eRigid), max(row, eRow), max(joint, eJoint)
		k += d
	}
	// Keep the positional joint rows only (motors, friction and couplings
	// are velocity-level).
	m := 0
	for i := 0; i < nj; i++ {
		if ps.prows[i].Kind.Positional() {
			ps.prows[m] = ps.prows[i]
			m++
		}
	}
	// The contact normal rows' errors are −Gap (ContactInfo.NormalRow sets
	// φ = Gap and the stiffness): their rows are filled by
	// fillProjectionContacts only when a projection solve needs them.
	for i := range ps.ppoints {
		c := &ps.ppoints[i].ContactInfo
		e := -c.Gap
		viol = max(viol, e)
		if !compliantStiffness(c.Stiffness) {
			rigid, row = max(rigid, e), max(row, e)
		}
	}
	ps.pjoint = m
	ps.prows = ps.prows[:m+len(ps.ppoints)]
	ps.maxViol = viol
	return rigid, row, joint, nil
}

// jointError returns one joint's position error from its rows: over all
// of them (viol), over its rigid ones (rigid) and over its rigid
// bilateral ones (joint), and the largest |φ| of a rigid row (row,
// ProjectionTolerance's measure). A unilateral row's error is −φ; the
// bilateral rows count as two vectors, the anchor rows' (those with a translational
// block: a ball joint's three, a slider's two) as the length of their φ,
// the orientation rows' (angular blocks only: a hinge's two, a fixed
// joint's three) likewise, so that a ball joint's error is its anchor
// distance |w_a − w_b| (m) whatever the world's axes, and a fixed joint's
// orientation error its rotation angle (rad). Measured row by row, an
// anchor gap of up to √3 ProjectAbove along a diagonal of the world's
// axes passed (1.29 mm in TestChain20Swings).
func jointError(rows []constraint.Row) (viol, rigid, row, joint float64) {
	var pt, pa, rt, ra float64 // Σφ² of the anchor and orientation rows: all, rigid
	for i := range rows {
		r := &rows[i]
		if !r.Kind.Positional() {
			continue
		}
		if r.Kind != constraint.Bilateral {
			viol = max(viol, -r.Phi)
			if !compliant(r) {
				rigid, row = max(rigid, -r.Phi), max(row, -r.Phi)
			}
			continue
		}
		if !compliant(r) {
			row = max(row, math.Abs(r.Phi))
		}
		p2 := r.Phi * r.Phi
		if translational(r) {
			pt += p2
			if !compliant(r) {
				rt += p2
			}
		} else {
			pa += p2
			if !compliant(r) {
				ra += p2
			}
		}
	}
	viol = max(viol, math.Sqrt(pt), math.Sqrt(pa))
	joint = max(math.Sqrt(rt), math.Sqrt(ra))
	return viol, max(rigid, joint), row, joint
}

// fillProjectionContacts fills the contact normal rows of
// ws.projection.prows, after the positional joint rows positionRows kept,
// one per contact point (ContactInfo.NormalRow).
func (w *World) fillProjectionContacts() {
	ps := &w.ws.projection
	for i := range ps.ppoints {
		ps.ppoints[i].NormalRow(&ps.prows[ps.pjoint+i], w.Bodies)
	}
}

// compliant reports whether r is a spring (finite stiffness): its φ is a
// deflection, not an error to project away.
func compliant(r *constraint.Row) bool {
	return compliantStiffness(r.Stiffness)
}

// compliantStiffness reports whether a row of stiffness k is a spring:
// k finite and not 0 (0 and +Inf mean rigid).
func compliantStiffness(k float64) bool {
	return k != 0 && !math.IsInf(k, 1)
}

// projectOnce solves one projection MLCP over ws.projection.prows and
// displaces the bodies by Δq = M⁻¹ Jᵀ δ. In Regularized mode the rows are
// first cut to the islands that need a correction (selectProjectionRows),
// and it returns false, the bodies unmoved, when none does (a rigid error
// above ProjectionTolerance only on rows naming no dynamic body). It
// returns false, with the reason
// in ws.projection.pskip and ws.projection.pskipWhy and the bodies unmoved,
// when no δ could be found (projectSolve).
func (w *World) projectOnce() (bool, error) {
	ps := &w.ws.projection
	ws := &w.ws
	w.fillProjectionContacts()
	if w.Settings.Stabilization == Regularized && w.selectProjectionRows() == 0 {
		return false, nil
	}
	m := len(ps.prows)
	if err := ps.peq.MassMatrix(&ws.mass, ps.prows); err != nil {
		return false, fmt.Errorf("post-stabilization: %w", err)
	}
	ps.pb = grow(ps.pb, m)
	ps.plo = grow(ps.plo, m)
	ps.phi = grow(ps.phi, m)
	if cap(ps.pstart) < m {
		ps.pstart = make([]lcp.State, m)
	}
	ps.pstart = ps.pstart[:m]
	for i := range ps.prows {
		r := &ps.prows[i]
		ps.pb[i] = r.Phi
		ps.phi[i] = math.Inf(1)
		if compliant(r) {
			// A spring's deflection is physics, not error: hold it
			// (J Δq = 0 to first order) while the rigid rows move.
			ps.pb[i], ps.plo[i], ps.pstart[i] = 0, math.Inf(-1), lcp.Free
			continue
		}
		if r.Kind == constraint.Bilateral {
			ps.plo[i] = math.Inf(-1)
			ps.pstart[i] = lcp.Free
		} else {
			ps.plo[i] = 0
			ps.pstart[i] = lcp.AtLower
			if r.Phi < 0 {
				ps.pstart[i] = lcp.Free
			}
		}
	}
	if !w.projectSolve() {
		return false, nil
	}
	nb := len(w.Bodies)
	if cap(ps.dq) < nb {
		ps.dq = make([][6]float64, nb)
	}
	ps.dq = ps.dq[:nb]
	clear(ps.dq)
	for i := range ps.prows {
		r := &ps.prows[i]
		d := ps.pres.X[i]
		for k := 0; k < r.N; k++ {
			jm := &ps.peq.JMinv[i][k]
			for c := 0; c < 6; c++ {
				ps.dq[r.Body[k]][c] += jm[c] * d
			}
		}
	}
	// Trust region: the correction is a Newton step of a linearization in
	// the rotations, exact only for small angles; scale it so that no body
	// turns by more than maxProjectionTurn.
	scale := 1.0
	for i := range ps.dq {
		dq := &ps.dq[i]
		if t := math.Sqrt(dq[3]*dq[3] + dq[4]*dq[4] + dq[5]*dq[5]); t > maxProjectionTurn {
			scale = min(scale, maxProjectionTurn/t)
		}
	}
	for i, b := range w.Bodies {
		if b.Static || b.Kinematic || w.sleep.asleepAt(i) { // kinematic poses are prescribed, sleeping ones kept to the bit
			continue
		}
		if w.Settings.Stabilization == Regularized && !ps.pmark[i] {
			continue // an island left as it is (selectProjectionRows), kept to the bit
		}
		dq := ps.dq[i]
		turn := mgl64.Vec3{dq[3], dq[4], dq[5]}.Mul(scale)
		b.Displace(mgl64.Vec3{dq[0], dq[1], dq[2]}.Mul(scale), turn)
		if w.Settings.JointCorrection == JointProjection && ps.pjoint > 0 {
			// The angular velocity turns with the body (its body-frame
			// value kept), so ½ ωᵀ I_w ω is unchanged: a spinning link
			// turned under a world-fixed ω would take its spin about
			// another principal axis (TestSpinningChainEnergy). Scenes
			// without joint rows keep JointFeedback's projection.
			b.AngVel = body.QuatExp(turn).Rotate(b.AngVel)
		}
	}
	return true, nil
}

// selectProjectionRows cuts ws.projection.prows (filled, in positionRows'
// order) to the rows of the islands the Regularized mode's projection
// solve corrects, keeping their order, marks those islands' bodies in
// pmark and returns how many rows are left. The islands are those of the
// rows over the dynamic bodies (islandSet): the projection MLCP is block
// diagonal by island, each block's correction independent of the others'.
// A solve corrects each island with a rigid error above
// ProjectionTolerance and leaves each other island as it is, poses kept
// to the bit: an island within the tolerance is where project's iteration
// stops anyway, so every solve still ends with each error within
// ProjectionTolerance, and a resting island costs no rows in the solve
// of a landing one. Rows naming no dynamic body are dropped (no Δq of
// theirs can move). With projectAll set (the tests' reference) every row
// is kept.
func (w *World) selectProjectionRows() int {
	ps := &w.ws.projection
	nb := len(w.Bodies)
	if cap(ps.pmark) < nb {
		ps.pmark = make([]bool, nb)
	}
	ps.pmark = ps.pmark[:nb]
	if ps.projectAll {
		for i := range ps.pmark {
			ps.pmark[i] = true
		}
		return len(ps.prows)
	}
	clear(ps.pmark)
	is := &ps.pislands
	is.build(w.Bodies, ps.prows)
	ni := is.n()
	ps.perr = grow(ps.perr, ni)
	clear(ps.perr)
	for i := range ps.prows {
		r := &ps.prows[i]
		k := is.rowIsland[i]
		if k < 0 || compliant(r) {
			continue
		}
		e := -r.Phi
		if r.Kind == constraint.Bilateral {
			e = math.Abs(r.Phi)
		}
		ps.perr[k] = max(ps.perr[k], e)
	}
	for k := range ni {
		if ps.perr[k] > ProjectionTolerance {
			for _, b := range is.islandBodies(k) {
				ps.pmark[b] = true
			}
		} else {
			ps.pleft++
		}
	}
	n := 0
	for i := range ps.prows {
		if k := is.rowIsland[i]; k >= 0 && ps.perr[k] > ProjectionTolerance {
			if n != i {
				ps.prows[n] = ps.prows[i]
			}
			n++
		}
	}
	ps.prows = ps.prows[:n]
	return n
}

// ProjectionShift is the relative regularization ε of the position
// projection's fallback solve: when Settings.PostSolver fails on
// J M⁻¹ Jᵀ (lcp.ErrSingular: redundant rows whose errors Φ no position
// change removes together), projectSolve solves the MLCP again with
// J M⁻¹ Jᵀ + ε diag(J M⁻¹ Jᵀ), positive definite. That moves each row
// by at most a fraction ε of its error away from the exact correction,
// and shares an inconsistent error among redundant rows (least squares in
// the M⁻¹ metric) instead of failing; the next solve of the projection
// starts from the corrected poses.
const ProjectionShift = 1e-8

// projectSolve solves the projection MLCP ws.projection.pprob over
// ws.projection.prows into ws.projection.pres: by Settings.PostSolver, then,
// if that fails with lcp.ErrSingular, by block pivoting on the regularized
// matrix (ProjectionShift), cold, on a solver of its own. It returns false,
// with ws.projection.pskip and ws.projection.pskipWhy set, when neither gives
// a finite δ.
func (w *World) projectSolve() bool {
	ps := &w.ws.projection
	ws := &w.ws
	m := len(ps.prows)
	solver := ws.step.post
	ps.pprob = lcp.Problem{A: &ps.peq.A, B: ps.pb, Lo: ps.plo, Hi: ps.phi}
	err := solver.Solve(&ps.pres, &ps.pprob, lcp.Settings{Start: ps.pstart})
	ps.projects++
	ps.projIts += ps.pres.Iterations
	if errors.Is(err, lcp.ErrSingular) {
		first := err
		ps.pdiag = grow(ps.pdiag, m)
		for i := range ps.pdiag {
			ps.pdiag[i] = ps.peq.A.At(i, i)
		}
		ps.peq.massMatrix(&ws.mass, ps.prows, false)
		for i, d := range ps.pdiag {
			ps.peq.A.Add(i, i, ProjectionShift*d)
		}
		ps.peq.A.Finish()
		err = ps.pfallback.Solve(&ps.pres, &ps.pprob, lcp.Settings{})
		ps.projIts += ps.pres.Iterations
		ps.pregularized++
		if err != nil {
			err = fmt.Errorf("%w; regularized by %g: %w", first, ProjectionShift, err)
		}
	}
	switch {
	case len(ps.pres.X) != m || errors.Is(err, lcp.ErrSingular):
		ps.pskip, ps.pskipWhy = ProjectionInconsistent, fmt.Sprintf("post-stabilization: %v", err)
		return false
	case !num.FiniteSlice(ps.pres.X):
		ps.pskip, ps.pskipWhy = ProjectionFailed, fmt.Sprintf("post-stabilization: the correction is not finite (%v)", err)
		return false
	case err != nil:
		ps.pskip, ps.pskipWhy = ProjectionFailed, fmt.Sprintf("post-stabilization: %v", err)
		return false
	}
	return true
}

// grow is num.Grow: the step's buffers sized by a count of bodies,
// points or rows.
func grow[T any](s []T, n int) []T { return num.Grow(s, n) }
