package lcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gorigid/gorigid/internal/num"
)

// Solver solves a boxed MLCP under an iteration budget.
//
// Solve writes the returned iterate into dst, reusing dst's slices when they
// are long enough, so a caller that keeps one Result across time steps does
// not allocate. A budget running out is dst.Status == BudgetExhausted with a
// nil error. An invalid problem returns the Validate error and touches
// nothing else. A numerical breakdown (a singular block, cycling) returns the
// best iterate found so far in dst, dst.Status == Failed, and an error that
// wraps ErrSingular or ErrCycling. A solve whose Settings.Context is done
// returns the best iterate so far, dst.Status == Canceled, and an error
// wrapping the context's error; a solve whose Observer (a Stopper) asked to
// stop returns the best iterate so far, dst.Status == Stopped, and an error
// wrapping ErrStopped and the Stopper's error.
type Solver interface {
	Solve(dst *Result, p *Problem, s Settings) error
	// Name is the short name used on the command line ("bpp", "pgs", ...).
	Name() string
}

// Errors wrapped by solvers on a numerical breakdown.
var (
	// ErrSingular: a linear system the solver needed to solve was singular
	// (for example a free block of a positive semidefinite A).
	ErrSingular = errors.New("lcp: singular system")
	// ErrCycling: the pivoting sequence repeated itself or made no progress.
	ErrCycling = errors.New("lcp: pivoting cycles")
	// ErrTooLarge: the problem is too large for this solver (the enumerating
	// reference solver).
	ErrTooLarge = errors.New("lcp: problem too large for this solver")
	// ErrNoSolution: the method ended without a solution (Lemke's ray
	// termination, or no index set that solves the problem).
	ErrNoSolution = errors.New("lcp: no solution found")
	// ErrUnsupported: the solver cannot treat this kind of problem.
	ErrUnsupported = errors.New("lcp: unsupported problem")
	// ErrStopped: the Settings.Observer (a Stopper) stopped the solve. The
	// solver's error wraps it and the Stopper's own error.
	ErrStopped = errors.New("lcp: stopped by the observer")
)

// State says where a row's x sits in a pivoting solver's index sets.
type State int8

// The three index sets of a box MLCP.
const (
	Free    State = iota // l < x < u, w = 0
	AtLower              // x = l, w ≥ 0 (w₊)
	AtUpper              // x = u, w ≤ 0 (w₋)
)

func (s State) String() string {
	switch s {
	case Free:
		return "free"
	case AtLower:
		return "lower"
	case AtUpper:
		return "upper"
	}
	return fmt.Sprintf("State(%d)", int8(s))
}

// Settings steer one solve. The zero value means every default.
type Settings struct {
	// MaxIterations is the iteration budget; what one iteration is depends on
	// the solver (a block pivot, a sweep, a complementary pivot). 0 means the
	// solver's default, which is documented on each solver and is large
	// enough that it is not meant to bind.
	MaxIterations int
	// Tolerance is dimensionless; 0 means 1e-10. A row counts as feasible
	// when its bound violation, measured in the row's own units, is below
	// Tolerance times the problem's scale: for velocities s_w = max|bᵢ|
	// (or 1 if b = 0), for the impulses of row i s_w / aᵢᵢ. The pair of
	// scales is unit consistent: aᵢᵢ·x has the units of w.
	Tolerance float64
	// X0 is a warm start for iterative solvers (PGS). nil means zeros.
	// Pivoting solvers derive start index sets from it when Start is nil.
	X0 []float64
	// Start is a warm start for pivoting solvers: the index set of each row,
	// for example the final States of the previous time step. nil means
	// derive from X0, or, without X0, every bounded row at its lower bound
	// (unbounded rows free).
	Start []State
	// Reference is a point near the solution, for example an estimate
	// from a cheaper problem with the same A (a time stepper's pre-solve,
	// or the last step's impulses); nil means 0. BPP's regularized mode
	// (see BPP), which solves A + εD with b − εD x̄, takes it as its first
	// proximal centre x̄ in place of 0: the regularized problem's solution
	// then lies within ε of the true one near Reference, so a good
	// reference needs no proximal move and pivots on index sets close to
	// the answer's. Solvers without a regularized mode ignore it. It never
	// changes whether the returned x solves the MLCP within Tolerance, only
	// which solution is returned where A is semidefinite and the solutions
	// form a set (redundant contacts: the same velocities, w = A x + b,
	// from impulses that differ in the null space of A). The solver reads
	// it during Solve and never writes it.
	Reference []float64
	// Semidefinite tells a solver that the first face's block A_FF (the
	// rows free in Start) is singular, as Problem.RedundantRigid finds
	// from the problem's structure: BPP then starts in its regularized
	// mode instead of factoring A_FF to find the rounding-level pivot
	// first (see BPP), and solves to that mode's tolerance. Solvers
	// without a regularized mode ignore it.
	Semidefinite bool
	// Observer, if not nil, is called synchronously after every iteration.
	// An Observer that is also a Stopper can end the solve (see Stopper);
	// several observers share one solve through Compose.
	Observer Observer
	// Context, if not nil, is checked once per iteration (one check costs a
	// mutex, negligible beside a factorization or a sweep). When it is done
	// the solver stops and returns its best iterate so far with Status
	// Canceled and an error wrapping the context's error
	// (context.Canceled or context.DeadlineExceeded).
	Context context.Context

	// stop is what the Observer's Stop said after the last iterate of this
	// solve (observe); Settings is passed by value, so it lives in the
	// solver's own copy and never leaks from one solve into the next.
	stop error
}

// Iterate is what an Observer sees after each iteration. X and W belong to
// the solver and are overwritten by the next iteration: an Observer must copy
// what it keeps.
type Iterate struct {
	Iter int // 1-based iteration number
	X, W []float64
	// SatisfiesEq2 reports whether W = A X + B holds (to rounding). It is
	// false for Lemke's intermediate basic solutions, for which the error
	// measures do not apply (Enzenhöfer et al. 2019 §2.2).
	SatisfiesEq2 bool
}

// Observer is called after every solver iteration.
type Observer interface {
	Observe(it Iterate)
}

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(it Iterate)

// Observe calls f(it).
func (f ObserverFunc) Observe(it Iterate) { f(it) }

// A Stopper is an Observer that can end the solve it watches, the way a
// done Settings.Context does. Every solver calls Stop right after each
// Observe; when it returns an error, the solver performs no further
// iteration: it returns its best iterate so far (as on cancellation) with
// Status Stopped and an error wrapping both ErrStopped and Stop's error.
// An iterate that already ends the solve (it converged, or the budget ran
// out with it) keeps its status: the stop comes too late to matter.
type Stopper interface {
	Observer
	// Stop reports whether the solve should end after the iterate just
	// observed: nil to go on, an error (the reason) to stop.
	Stop() error
}

// NewStopper returns a Stopper whose Observe calls f and whose Stop
// returns what that call of f returned.
func NewStopper(f func(it Iterate) error) Stopper { return &stopFunc{f: f} }

type stopFunc struct {
	f   func(it Iterate) error
	err error
}

func (s *stopFunc) Observe(it Iterate) { s.err = s.f(it) }
func (s *stopFunc) Stop() error        { return s.err }

// Observers is an Observer that passes every iterate to each of its
// members in order (nil members are skipped), so an error-measure Picker,
// a recorder and a caller's own observer can watch one solve. It is a
// Stopper: Stop asks every member that is a Stopper and returns the first
// error, so any member can end the solve; every member has seen the
// iterate before the solve stops. The members must not keep the slices of
// an Iterate (see Iterate).
type Observers []Observer

// Observe passes it to every member.
func (o Observers) Observe(it Iterate) {
	for _, m := range o {
		if m != nil {
			m.Observe(it)
		}
	}
}

// Stop returns the first error of a member's Stop, nil if none stops.
func (o Observers) Stop() error {
	for _, m := range o {
		if s, ok := m.(Stopper); ok {
			if err := s.Stop(); err != nil {
				return err
			}
		}
	}
	return nil
}

var _ Stopper = Observers(nil)

// Compose returns an Observer that passes every iterate to each non-nil
// observer in obs, in order (Observers): nil when none is left, the
// observer itself when one is.
// Only a composition of two or more allocates (the solvers' hot path
// composes a Picker with nothing).
func Compose(obs ...Observer) Observer {
	var one Observer
	n := 0
	for _, o := range obs {
		if o != nil {
			one = o
			n++
		}
	}
	if n <= 1 {
		return one
	}
	out := make(Observers, 0, n)
	for _, o := range obs {
		if o != nil {
			out = append(out, o)
		}
	}
	return out
}

// relay is the Observer a solver that runs another solver (Lemke on a
// reduced problem, Auto's attempts) gives the inner one: f maps the inner
// iterate to the caller's Observer, and Stop is the caller's.
type relay struct {
	f    func(it Iterate)
	next Observer
}

func (r relay) Observe(it Iterate) { r.f(it) }

func (r relay) Stop() error {
	if s, ok := r.next.(Stopper); ok {
		return s.Stop()
	}
	return nil
}

// Status says how a solve ended.
type Status int

// Statuses.
const (
	NotStarted      Status = iota
	Converged              // the returned x solves the problem within Tolerance
	BudgetExhausted        // MaxIterations ran out; x is the last iterate
	Failed                 // a numerical breakdown; x is the best iterate so far
	// Unconverged: the solver converged, but the returned x is another
	// iterate (one an error measure preferred) that does not solve the
	// problem within tolerance. Set by callers that pick iterates
	// (errmeasure.Solve), never by a solver.
	Unconverged
	Canceled // Settings.Context was done; x is the best iterate so far
	Stopped  // the Observer (a Stopper) stopped the solve; x is the best iterate so far
)

// statuses is the one table of Status: the name String and ParseStatus
// use (and the JSON and BPMD files store), Early and Err. Err is nil
// exactly when Early is false.
var statuses = [...]struct {
	name  string
	early bool
	err   error
}{
	NotStarted:      {name: "not_started"},
	Converged:       {name: "converged"},
	BudgetExhausted: {"budget_exhausted", true, errors.New("lcp: iteration budget exhausted before convergence")},
	Failed:          {"failed", true, errors.New("lcp: numerical breakdown")},
	Unconverged:     {"unconverged", true, errors.New("lcp: the returned iterate does not solve the problem within tolerance")},
	Canceled:        {"canceled", true, errors.New("lcp: solve canceled by its context")},
	Stopped:         {"stopped", true, ErrStopped},
}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statuses) {
		return statuses[s].name
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Early reports whether the solve ended without a solution in x: the
// solver stopped before converging (BudgetExhausted, Failed, Canceled,
// Stopped), or the x kept is not the converged one (Unconverged). As
// gonum/optimize's Status.Early; NotStarted, like its NotTerminated, is not
// early. A Status outside the table is early.
func (s Status) Early() bool {
	if s >= 0 && int(s) < len(statuses) {
		return statuses[s].early
	}
	return true
}

// Err returns the error of an early status and nil otherwise, as
// gonum/optimize's Status.Err: Stopped's is ErrStopped. The error a solver
// returns says more (it wraps ErrSingular, the context's error, …).
func (s Status) Err() error {
	if s >= 0 && int(s) < len(statuses) {
		return statuses[s].err
	}
	return fmt.Errorf("lcp: unknown %v", s)
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(s string) (Status, error) {
	for st := range statuses {
		if statuses[st].name == s {
			return Status(st), nil
		}
	}
	// The names in the error: the ones a solve ends with, then not_started.
	want := make([]string, 0, len(statuses))
	for _, e := range statuses[NotStarted+1:] {
		want = append(want, e.name)
	}
	return NotStarted, fmt.Errorf("status: unknown value %q (want %s or %s)", s, strings.Join(want, ", "), NotStarted)
}

// Result is the outcome of one solve.
type Result struct {
	X, W       []float64 // the returned iterate; W = A X + B
	Iterations int       // iterations performed
	Pivots     int       // index changes (pivoting solvers); 0 for PGS
	Status     Status
	// Reason explains a status other than Converged in one line (and may
	// qualify a Converged one).
	Reason string
	// States are the final index sets (pivoting solvers; for PGS derived from
	// the final x), usable as Settings.Start of the next solve.
	States []State
	// BodyW reports that W holds, bit for bit, what Problem.ResidualKKT
	// computes for X with a BodyProduct: the body-space product
	// BodyProduct.MulAdd over Problem.KKT, which ResidualKKT takes when
	// KKTAssembled is set and that product is the cheaper. BPP sets it
	// when its returned iterate's w was computed so; a caller that changes
	// X or W afterwards must clear it. errmeasure.SolveGuarded then keeps
	// W instead of computing it again.
	BodyW bool
}

// resize makes r's slices length n, reusing their storage.
func (r *Result) resize(n int) {
	r.X = grow(r.X, n)
	r.W = grow(r.W, n)
	r.States = growStates(r.States, n)
	r.Iterations, r.Pivots, r.Status, r.Reason = 0, 0, NotStarted, ""
	r.BodyW = false
}

// grow is num.Grow for float64s: the one rule of a buffer's capacity.
func grow(s []float64, n int) []float64 { return num.Grow(s, n) }

// growInt is grow for ints.
func growInt(s []int, n int) []int { return num.Grow(s, n) }

// growStates is grow for States.
func growStates(s []State, n int) []State { return num.Grow(s, n) }

const defaultTolerance = 1e-10

// observe reports it to set.Observer, if any, and keeps what a Stopper
// says of it for the next canceled check.
func (set *Settings) observe(it Iterate) {
	if set.Observer == nil {
		return
	}
	set.Observer.Observe(it)
	if s, ok := set.Observer.(Stopper); ok {
		set.stop = s.Stop()
	}
}

// canceled is the once-per-iteration cancellation check of every solver:
// nil while set.Context is nil or not done and no Stopper asked to stop
// after the last iterate; otherwise it marks dst Canceled or Stopped (the
// caller puts its best iterate into dst) and returns an error naming the
// solver and wrapping the context's error, or ErrStopped and the Stopper's.
func (set *Settings) canceled(dst *Result, solver string) error {
	if set.stop != nil {
		dst.Status = Stopped
		dst.Reason = fmt.Sprintf("stopped by the observer after %d iterations: %v", dst.Iterations, set.stop)
		return fmt.Errorf("%s: %s: %w: %w", solver, dst.Reason, ErrStopped, set.stop)
	}
	if set.Context == nil {
		return nil
	}
	err := set.Context.Err()
	if err == nil {
		return nil
	}
	dst.Status = Canceled
	dst.Reason = fmt.Sprintf("canceled after %d iterations: %v", dst.Iterations, err)
	return fmt.Errorf("%s: %s: %w", solver, dst.Reason, err)
}
