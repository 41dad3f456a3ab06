package errmeasure

import "github.com/gorigid/gorigid/lcp"

// Solved describes the iterate that Solve returns.
type Solved struct {
	// Picked is the 1-based iteration whose iterate is returned.
	Picked int
	// Totals are the three error totals of the returned x with w = A x + b.
	Totals Totals
	// FromPicker is false when the solver's own final iterate is returned:
	// under Last, or when no iterate satisfied Eq. (2) (Lemke).
	FromPicker bool
}

// Solve runs solver on p with pk as the Observer (replacing set.Observer)
// and writes into dst the iterate the picker's measure selects: the
// least-error one under Energy, FB or Residual, the last one under Last
// (energy-error-measure.md §5.3). dst's Iterations, Pivots, Status and
// Reason stay the solver's; dst.W is recomputed as A x + b so that the
// returned pair satisfies Eq. (2). Lemke's iterates do not satisfy Eq. (2)
// and are never picked; its final result is returned instead.
//
// pk is Reset for p and its measure is kept; pass a picker that lives as
// long as the caller's buffers to stay allocation-free.
func Solve(dst *lcp.Result, p *lcp.Problem, solver lcp.Solver, set lcp.Settings, pk *Picker) (Solved, error) {
	pk.Reset(p, pk.Measure())
	set.Observer = pk
	err := solver.Solve(dst, p, set)
	out := Solved{Picked: dst.Iterations}
	if len(dst.X) != p.N() {
		return out, err // invalid problem: nothing was solved
	}
	if best, ok := pk.Best(); ok && pk.Measure() != Last {
		copy(dst.X, best.X)
		out.Picked = best.Iter
		out.FromPicker = true
	}
	dst.W = p.Residual(dst.W, dst.X)
	out.Totals = Compute(p, dst.X, dst.W, nil)
	return out, err
}
