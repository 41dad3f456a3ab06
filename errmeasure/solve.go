package errmeasure

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// Solved describes the iterate that Solve returns.
type Solved struct {
	// Picked is the 1-based iteration whose iterate is returned.
	Picked int
	// Totals are the three error totals of the returned x with w = A x + b.
	Totals Totals
	// FromPicker is false when the solver's own result is returned: under
	// Last, when no iterate satisfied Eq. (2) (Lemke), or when the pick is
	// the solver's result itself.
	FromPicker bool
	// SolverStatus and SolverReason are what the solver said of its own
	// result; dst.Status and dst.Reason describe the returned x (see Solve).
	SolverStatus lcp.Status
	SolverReason string
	// Residual is the largest row natural residual of the returned x,
	// max_i δψ_res,i (Eq. 9), with w = A x + b.
	Residual float64
	// Bound is CertifiedBound of the returned x (J): for symmetric PSD A
	// an upper bound of ½(x − x*)ᵀA(x − x*) for every solution x*; +Inf
	// when x is outside its box or the bound is infinite.
	Bound float64
	// Sweeps is the number of projected Gauss–Seidel sweeps Polish ran
	// after the solve (0 without Polish).
	Sweeps int
}

// ConvergedResidual is the largest natural residual, relative to
// max(1, ‖b‖∞), that a returned x may have and be labelled Converged by
// Solve. It is 10⁴ times the solvers' default Tolerance, room for the
// solvers whose own test is looser than the natural residual (BPP on
// semidefinite problems stops at 10⁻⁶ of max|b| on w alone).
const ConvergedResidual = 1e-6

// Solve runs solver on p with pk as the first Observer, followed by
// set.Observer if that is not nil (lcp.Compose: both see every iterate, the
// Picker first, and a set.Observer that is an lcp.Stopper can stop the
// solve, which then ends with status lcp.Stopped at the pick among the
// iterates so far), and writes into dst the iterate the picker's measure selects: the
// least-error one under Energy, FB or Residual (see Picker for the rule;
// the solver's own result, with w = A x + b, is a candidate as well), the
// last one under Last (Enzenhöfer et al. 2019 §5.3). dst.Iterations and
// dst.Pivots stay the solver's; dst.W is recomputed, once, as A x + b so
// that the returned pair satisfies Eq. (2): in body space when p.KKT
// describes A by construction and that product is the cheaper
// (lcp.Problem.ResidualKKT, the bits of BPP's own w for the same x), else
// by A's product; not at all when the returned x is the solver's own and
// the solver says its w has ResidualKKT's bits already (lcp.Result.BodyW).
// Lemke's iterates do not satisfy Eq. (2) and are never picked; its final
// result is a candidate.
//
// dst.Status describes the returned x, not the solver's last iterate:
//
//   - if the returned x is the solver's own result, its status stays, except
//     that Converged becomes Unconverged when the natural residual of x
//     exceeds ConvergedResidual·max(1, ‖b‖∞) (a solver whose own test
//     passed an x that is not a solution);
//   - if the picker returns another iterate, the status is Converged when
//     that x passes the same residual test, otherwise Unconverged if the
//     solver had converged, and the solver's BudgetExhausted or Failed if
//     it had not.
//
// dst.Reason says what happened when the status changed. The solver's own
// status and reason are in the returned Solved. dst.States, too, describes
// the returned x: when it is not the solver's own result, they are the
// index sets of its projection onto the box (StatesOf), the warm start a
// time stepper takes into its next step, so that the next solve starts
// from the face of the answer that was applied, not from the face the
// budget cut off (the forklift at a budget of 5 block pivots then drives
// its whole unbudgeted path instead of 85 % of it). Safeguard and Polish, which move x off that face, keep
// these States: their x lies strictly inside most boxes, and all rows
// free is no warm start (the 30-brick wall at a budget of 3 then has a
// step adding all of its energy).
//
// pk is Reset for p and its measure is kept; pass a picker that lives as
// long as the caller's buffers to stay allocation-free.
func Solve(dst *lcp.Result, p *lcp.Problem, solver lcp.Solver, set lcp.Settings, pk *Picker) (Solved, error) {
	return SolveGuarded(dst, p, solver, set, pk, nil)
}

// SolveGuarded is Solve with a second Picker, guard (nil for none), that
// observes every iterate after pk and before set.Observer, for Safeguard:
// it is reset for p with pk's measure and inverse masses (no second exact
// mass under EnergyExact), keeping its own RejectGain. What is returned is
// Solve's.
func SolveGuarded(dst *lcp.Result, p *lcp.Problem, solver lcp.Solver, set lcp.Settings, pk, guard *Picker) (Solved, error) {
	pk.Reset(p, pk.Measure())
	if guard != nil {
		guard.resetFrom(p, pk)
		guard.startRecording() // with DeferGain: its ranking waits for its first read
		pk.shadow = guard      // sees every candidate of pk, with pk's totals
		defer func() { pk.shadow = nil }()
	}
	// With no Observer after the pickers, none can read their totals
	// during the solve: Observe then computes only the ranked one.
	pk.lazy = set.Observer == nil
	defer func() {
		pk.settle(nil, nil, Totals{}) // after a solve that returned no x
		pk.lazy = false
	}()
	set.Observer = lcp.Compose(pk, set.Observer)
	dst.BodyW = false // set by the solver only (a solver that never resizes dst leaves it)
	err := solver.Solve(dst, p, set)
	out := Solved{Picked: dst.Iterations, SolverStatus: dst.Status, SolverReason: dst.Reason, Bound: math.Inf(1)}
	if len(dst.X) != p.N() {
		return out, err // invalid problem: nothing was solved
	}
	// w = A x + b of the returned x: in body space where p's KKT describes
	// A by construction and that product is the cheaper (ResidualKKT, the
	// bits of BPP's iterates' w), A's product elsewhere. fresh: dst.W is
	// already that of dst.X: from the start when the solver computed it so
	// (lcp.Result.BodyW: BPP's iterate whose w it computed in body space).
	var mul *lcp.BodyProduct
	if err == nil {
		mul = &pk.mul
	}
	fresh := mul != nil && dst.BodyW
	if best, ok := pk.Best(); pk.Measure() != Last && !(ok && equal(best.X, dst.X)) {
		// The solver's result is a candidate too, with w = A x + b: Lemke's
		// solution (its iterates are not candidates), the answer of a
		// solver that Auto ran after another's iterates. It counts neither
		// in Seen nor in History; when it is already the pick (an iterate
		// the solver reported), the pick keeps that iterate's number.
		if !fresh {
			dst.W = p.ResidualKKT(dst.W, dst.X, mul)
			fresh = true
		}
		pk.candidate(lcp.Iterate{Iter: dst.Iterations, X: dst.X, W: dst.W, SatisfiesEq2: true}, Compute(p, dst.X, dst.W, pk.a), false)
	}
	if best, ok := pk.Best(); ok && pk.Measure() != Last {
		out.Picked = best.Iter
		if !equal(best.X, dst.X) {
			copy(dst.X, best.X)
			fresh, dst.BodyW = false, false
			out.FromPicker = true
			StatesOf(dst.States, p, dst.X)
		}
	}
	if !fresh {
		dst.W = p.ResidualKKT(dst.W, dst.X, mul)
		dst.BodyW = false
	}
	out.Totals, out.Residual, out.Bound = measureAll(p, dst.X, dst.W, pk.a)
	pk.settle(dst.X, dst.W, out.Totals)
	limit := ConvergedResidual * max(1, pk.sw) // pk.sw: ‖b‖∞ (1 for b = 0), set by Reset
	ok := out.Residual <= limit
	switch {
	case !out.FromPicker && dst.Status == lcp.Converged && !ok:
		dst.Status = lcp.Unconverged
		dst.Reason = fmt.Sprintf("%s reported convergence, but the natural residual of x is %.3g > %.3g", solver.Name(), out.Residual, limit)
	case out.FromPicker && ok && dst.Status != lcp.Converged:
		dst.Status = lcp.Converged
		dst.Reason = fmt.Sprintf("the picked iterate %d solves the problem (natural residual %.3g); the solver's final iterate %d ended %v", out.Picked, out.Residual, dst.Iterations, out.SolverStatus)
	case out.FromPicker && !ok && dst.Status == lcp.Converged:
		dst.Status = lcp.Unconverged
		dst.Reason = fmt.Sprintf("the %v pick is iterate %d (natural residual %.3g), not the solver's converged iterate %d", pk.Measure(), out.Picked, out.Residual, dst.Iterations)
	}
	return out, err
}

// StatesOf sets states, when it has one entry per row of p, to the index
// sets of x's projection onto its box: AtLower where x is at or below its
// lower bound, AtUpper where it is at or above its upper bound, Free
// elsewhere (a row with l = u is AtLower). For an iterate of block
// pivoting inside its box, whose fixed rows sit exactly at their bounds,
// these are the index sets it was solved on; a free row that left its box
// is put at the bound it crossed, as the next block pivot would.
func StatesOf(states []lcp.State, p *lcp.Problem, x []float64) {
	if len(states) != len(x) {
		return
	}
	for i, v := range x {
		switch {
		case v <= p.Lo[i]:
			states[i] = lcp.AtLower
		case v >= p.Hi[i]:
			states[i] = lcp.AtUpper
		default:
			states[i] = lcp.Free
		}
	}
}

// equal reports whether a and b hold the same numbers.
func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameBits reports whether a and b hold the same bit patterns.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// maxResidual returns max_i δψ_res,i (Eq. 9).
func maxResidual(p *lcp.Problem, x, w []float64) float64 {
	r := 0.0
	for i := range x {
		v := ResidualRow(x[i], w[i], p.Lo[i], p.Hi[i])
		if math.IsNaN(v) {
			return math.NaN()
		}
		r = math.Max(r, v)
	}
	return r
}
