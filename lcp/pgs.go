package lcp

import (
	"fmt"
	"math"
)

// PGS is projected Gauss–Seidel with box projection:
//
//	x_i ← clamp(x_i − ω (A x + b)_i / a_ii, l_i, u_i),   i = 1…n,
//
// using the newest x in each row (Gauss–Seidel), with relaxation ω
// (Relaxation; 0 means 1, plain Gauss–Seidel; 1 < ω < 2 over-relaxes).
// One iteration is one sweep over all rows; w = A x + b is computed after
// each sweep when Settings.Observer is set (so every reported iterate
// satisfies Eq. (2)) and otherwise once, for the returned iterate. It stops when the largest change of a
// sweep, measured as a velocity a_ii·|Δx_i|, is below Tolerance times the
// velocity scale max|b_i| (see Settings.Tolerance), or when the budget runs out.
//
// A row with equal bounds l_i = u_i is held there without its product
// with A (the clamp's answer whatever A x + b is): the friction rows a
// stepper pins at zero cost nothing.
//
// PGS converges for symmetric positive definite A (it is block coordinate
// descent on ½xᵀAx + bᵀx over the box) but may need many sweeps when the
// rows are strongly coupled. Rows with a_ii ≤ 0 cannot be relaxed and end
// the solve with an error wrapping ErrSingular.
//
// The default budget (MaxIterations = 0) is 1000 sweeps. Warm start: X0
// (projected onto the box).
type PGS struct {
	Relaxation float64
}

var _ Solver = (*PGS)(nil)

// Name returns "pgs".
func (s *PGS) Name() string { return "pgs" }

// Solve runs projected Gauss–Seidel on p. See PGS.
func (s *PGS) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if set.X0 != nil && len(set.X0) != n {
		return fmt.Errorf("settings: X0 has %d entries, problem has %d rows", len(set.X0), n)
	}
	omega := s.Relaxation
	if omega == 0 {
		omega = 1
	}
	if !(omega > 0 && omega < 2) {
		return fmt.Errorf("pgs: Relaxation must be in (0, 2), got %v", omega)
	}
	dst.resize(n)
	x, w := dst.X, dst.W
	for i := range x {
		x[i] = 0
		if set.X0 != nil {
			if math.IsNaN(set.X0[i]) {
				return fmt.Errorf("settings: X0[%d]: is NaN", i)
			}
			x[i] = set.X0[i]
		}
		x[i] = clamp(x[i], p.Lo[i], p.Hi[i])
	}
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 1000
	}
	tol := tolOrDefault(set.Tolerance)
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	if sw == 0 {
		sw = 1
	}
	for i := 0; i < n; i++ {
		if a := p.A.At(i, i); !(a > 0) {
			p.Residual(w, x)
			s.states(dst, p)
			dst.Status = Failed
			dst.Reason = fmt.Sprintf("A[%d][%d] = %v: PGS needs a positive diagonal", i, i, a)
			return fmt.Errorf("pgs: %s: %w", dst.Reason, ErrSingular)
		}
	}
	for it := 1; ; it++ {
		if err := set.canceled(dst, "pgs"); err != nil {
			p.Residual(w, x)
			s.states(dst, p)
			return err
		}
		change := 0.0
		for i := 0; i < n; i++ {
			if p.Lo[i] == p.Hi[i] {
				// A pinned row: its update clamps to the bound whatever
				// A x + b is, so its product with A is skipped.
				x[i] = p.Lo[i]
				continue
			}
			a := p.A.At(i, i)
			r := p.A.RowDot(i, x) + p.B[i]
			nx := clamp(x[i]-omega*r/a, p.Lo[i], p.Hi[i])
			change = math.Max(change, a*math.Abs(nx-x[i]))
			x[i] = nx
		}
		dst.Iterations = it
		if set.Observer != nil {
			// w = A x + b only for an observer: nothing in the sweeps reads it.
			p.Residual(w, x)
			set.observe(Iterate{Iter: it, X: x, W: w, SatisfiesEq2: true})
		}
		if change <= tol*sw {
			dst.Status = Converged
			break
		}
		if it >= budget {
			dst.Status = BudgetExhausted
			break
		}
	}
	if set.Observer == nil {
		p.Residual(w, x)
	}
	s.states(dst, p)
	return nil
}

// states derives index sets from the final x.
func (s *PGS) states(dst *Result, p *Problem) { statesFromX(dst.States, p, dst.X) }

// statesFromX sets st from x: a row at (or beyond) a bound is at that
// bound, otherwise free.
func statesFromX(st []State, p *Problem, x []float64) {
	for i, v := range x {
		switch {
		case v <= p.Lo[i]:
			st[i] = AtLower
		case v >= p.Hi[i]:
			st[i] = AtUpper
		default:
			st[i] = Free
		}
	}
}

// fixFromStates sets x to the bound of each row at a bound and 0 for free
// rows.
func fixFromStates(x []float64, p *Problem, st []State) {
	for i, v := range st {
		switch v {
		case AtLower:
			x[i] = p.Lo[i]
		case AtUpper:
			x[i] = p.Hi[i]
		default:
			x[i] = 0
		}
	}
}

func clamp(x, l, u float64) float64 {
	if x < l {
		return l
	}
	if x > u {
		return u
	}
	return x
}
