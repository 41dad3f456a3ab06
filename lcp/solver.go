package lcp

import (
	"context"
	"errors"
	"fmt"
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
// wrapping the context's error.
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
	// Observer, if not nil, is called synchronously after every iteration.
	Observer Observer
	// Context, if not nil, is checked once per iteration (one check costs a
	// mutex, negligible beside a factorization or a sweep). When it is done
	// the solver stops and returns its best iterate so far with Status
	// Canceled and an error wrapping the context's error
	// (context.Canceled or context.DeadlineExceeded).
	Context context.Context
}

// Iterate is what an Observer sees after each iteration. X and W belong to
// the solver and are overwritten by the next iteration: an Observer must copy
// what it keeps.
type Iterate struct {
	Iter int // 1-based iteration number
	X, W []float64
	// SatisfiesEq2 reports whether W = A X + B holds (to rounding). It is
	// false for Lemke's intermediate basic solutions, for which the error
	// measures do not apply (energy-error-measure.md §2.2).
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
)

func (s Status) String() string {
	switch s {
	case NotStarted:
		return "not_started"
	case Converged:
		return "converged"
	case BudgetExhausted:
		return "budget_exhausted"
	case Failed:
		return "failed"
	case Unconverged:
		return "unconverged"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ParseStatus is the inverse of Status.String.
func ParseStatus(s string) (Status, error) {
	for st := NotStarted; st <= Canceled; st++ {
		if st.String() == s {
			return st, nil
		}
	}
	return NotStarted, fmt.Errorf("status: unknown value %q (want converged, budget_exhausted, failed, unconverged, canceled or not_started)", s)
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
}

// resize makes r's slices length n, reusing their storage.
func (r *Result) resize(n int) {
	r.X = grow(r.X, n)
	r.W = grow(r.W, n)
	r.States = growStates(r.States, n)
	r.Iterations, r.Pivots, r.Status, r.Reason = 0, 0, NotStarted, ""
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/2) // headroom: sizes that creep up step to step stop reallocating
	}
	return s[:n]
}

func growInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/2) // headroom: sizes that creep up step to step stop reallocating
	}
	return s[:n]
}

func growStates(s []State, n int) []State {
	if cap(s) < n {
		return make([]State, n, n+n/2) // headroom: sizes that creep up step to step stop reallocating
	}
	return s[:n]
}

const defaultTolerance = 1e-10

// canceled is the once-per-iteration cancellation check of every solver:
// nil while set.Context is nil or not done; otherwise it marks dst Canceled
// (the caller puts its best iterate into dst) and returns an error naming
// the solver and wrapping the context's error.
func (set *Settings) canceled(dst *Result, solver string) error {
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
