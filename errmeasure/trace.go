package errmeasure

import (
	"context"
	"math"
	"time"

	"github.com/gorigid/gorigid/lcp"
)

// Trace is one solve with the error totals of its iterates: what a
// solver comparison (sim bench) records for each solver and problem.
type Trace struct {
	// Status is the name of the solver's lcp.Status, or "error" when the
	// solver returned an error without the Failed status.
	Status     string
	Iterations int           // the solver's iteration count
	Time       time.Duration // wall time of the solve
	// Final holds the totals of the returned x with w = A x + b; NaN when
	// the solver returned no x.
	Final Totals
	// Curve holds the totals of every iterate that satisfies Eq. (2)
	// (Lemke's do not), CurveIter the iteration of each.
	Curve     []Totals
	CurveIter []int
}

// FreeEnergy returns E₀ = Σᵢ bᵢ²/(2aᵢᵢ) over the rows with aᵢᵢ > 0, in J:
// the energy of the free constraint velocities, a problem's scale for the
// energy error; 1 when that is 0 (a problem already at rest).
func FreeEnergy(p *lcp.Problem) float64 {
	e := 0.0
	for i, b := range p.B {
		if a := p.A.At(i, i); a > 0 {
			e += b * b / (2 * a)
		}
	}
	if !(e > 0) {
		return 1
	}
	return e
}

// TraceSolve solves p with solver, from the solver's own start (no warm
// start), under at most budget iterations (0: the solver's default) and
// until ctx is done, and computes the totals of every iterate that
// satisfies Eq. (2) and of the result.
func TraceSolve(ctx context.Context, p *lcp.Problem, solver lcp.Solver, budget int) Trace {
	var t Trace
	obs := lcp.ObserverFunc(func(it lcp.Iterate) {
		if !it.SatisfiesEq2 {
			return
		}
		t.Curve = append(t.Curve, Compute(p, it.X, it.W, nil))
		t.CurveIter = append(t.CurveIter, it.Iter)
	})
	var res lcp.Result
	start := time.Now()
	err := solver.Solve(&res, p, lcp.Settings{MaxIterations: budget, Observer: obs, Context: ctx})
	t.Time = time.Since(start)
	t.Iterations = res.Iterations
	t.Status = res.Status.String()
	if len(res.X) == p.N() {
		t.Final = Compute(p, res.X, p.Residual(nil, res.X), nil)
	} else {
		nan := math.NaN()
		t.Final = Totals{FB: nan, Residual: nan, Energy: nan}
	}
	if err != nil && t.Status != lcp.Failed.String() {
		t.Status = "error"
	}
	return t
}
