package lcp

import (
	"fmt"
	"math"
)

// Enum is a reference solver for tiny problems (n ≤ 12): it tries every
// assignment of rows to the index sets their bounds allow (free, at lower,
// at upper; a row with l = u is only at its bound, a row without bounds only
// free), in a fixed order, solves the free block of each by Gaussian
// elimination with partial pivoting, and returns the first assignment whose
// solution is feasible (see Settings.Tolerance). For a P-matrix (for example
// symmetric positive definite A) the solution is unique, so Enum is the
// ground truth the other solvers are tested against.
//
// One iteration is one assignment tried; each assignment with a
// non-singular free block is reported to the Observer (it satisfies Eq. (2)).
// The budget (MaxIterations = 0: all 3ⁿ) caps the assignments tried.
type Enum struct {
	// Workspace.
	a, rhs []float64
	free   []int
}

var _ Solver = (*Enum)(nil)

// EnumMaxRows is the largest problem Enum accepts.
const EnumMaxRows = 12

// Name returns "enum".
func (s *Enum) Name() string { return "enum" }

// Solve enumerates index sets. See Enum.
func (s *Enum) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if n > EnumMaxRows {
		return fmt.Errorf("enum: %d rows, at most %d: %w", n, EnumMaxRows, ErrTooLarge)
	}
	dst.resize(n)
	// Allowed states per row.
	choices := make([][]State, n)
	total := 1
	for i := 0; i < n; i++ {
		l, u := p.Lo[i], p.Hi[i]
		switch {
		case l == u:
			choices[i] = []State{AtLower}
		default:
			c := []State{Free}
			if !math.IsInf(l, -1) {
				c = append(c, AtLower)
			}
			if !math.IsInf(u, 1) {
				c = append(c, AtUpper)
			}
			choices[i] = c
		}
		total *= len(choices[i])
	}
	budget := set.MaxIterations
	if budget <= 0 || budget > total {
		budget = total
	}
	xtol := make([]float64, n)
	wtol := scales(p, set.Tolerance, xtol)
	idx := make([]int, n)
	st := dst.States
	x, w := dst.X, dst.W
	for it := 1; it <= budget; it++ {
		if err := set.canceled(dst, "enum"); err != nil {
			return err // x, w: the last assignment tried (enumeration keeps no best)
		}
		for i := 0; i < n; i++ {
			st[i] = choices[i][idx[i]]
		}
		dst.Iterations = it
		if s.solveAssignment(p, st, x, w) {
			set.observe(Iterate{Iter: it, X: x, W: w, SatisfiesEq2: true})
			if feasible(p, st, x, w, xtol, wtol) {
				dst.Status = Converged
				return nil
			}
		}
		// Next assignment (odometer, row 0 fastest).
		for i := 0; i < n; i++ {
			idx[i]++
			if idx[i] < len(choices[i]) {
				break
			}
			idx[i] = 0
		}
	}
	if budget < total {
		dst.Status = BudgetExhausted
		return nil
	}
	dst.Status = Failed
	dst.Reason = fmt.Sprintf("none of the %d index-set assignments solves the problem", total)
	return fmt.Errorf("enum: %s: %w", dst.Reason, ErrNoSolution)
}

// feasible reports whether (x, w) with states st satisfies the bounds and
// sign conditions within tolerance.
func feasible(p *Problem, st []State, x, w, xtol []float64, wtol float64) bool {
	for i, v := range st {
		switch v {
		case Free:
			if x[i] < p.Lo[i]-xtol[i] || x[i] > p.Hi[i]+xtol[i] {
				return false
			}
		case AtLower:
			if w[i] < -wtol && p.Lo[i] != p.Hi[i] {
				return false
			}
		case AtUpper:
			if w[i] > wtol {
				return false
			}
		}
	}
	return true
}

// solveAssignment sets x from the states (solving the free block) and
// w = A x + b. It reports false if the free block is singular.
func (s *Enum) solveAssignment(p *Problem, st []State, x, w []float64) bool {
	fixFromStates(x, p, st)
	s.free = s.free[:0]
	for i, v := range st {
		if v == Free {
			s.free = append(s.free, i)
		}
	}
	p.Residual(w, x)
	m := len(s.free)
	if m > 0 {
		s.a = grow(s.a, m*m)
		s.rhs = grow(s.rhs, m)
		for r, i := range s.free {
			for c, j := range s.free {
				s.a[r*m+c] = p.A.At(i, j)
			}
			s.rhs[r] = -w[i]
		}
		if !gaussSolve(s.a, s.rhs, m) {
			return false
		}
		for r, i := range s.free {
			x[i] = s.rhs[r]
		}
		p.Residual(w, x)
	}
	return true
}

// gaussSolve solves the m×m system a y = rhs in place (rhs becomes y) by
// Gaussian elimination with partial pivoting. It reports false when a pivot
// is below 1e-13 of the largest entry of its column block, i.e. the matrix
// is singular to working precision.
func gaussSolve(a, rhs []float64, m int) bool {
	scale := 0.0
	for _, v := range a[:m*m] {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale == 0 {
		return false
	}
	for k := 0; k < m; k++ {
		piv, pr := 0.0, -1
		for r := k; r < m; r++ {
			if v := math.Abs(a[r*m+k]); v > piv {
				piv, pr = v, r
			}
		}
		if pr < 0 || piv <= 1e-13*scale {
			return false
		}
		if pr != k {
			for c := 0; c < m; c++ {
				a[k*m+c], a[pr*m+c] = a[pr*m+c], a[k*m+c]
			}
			rhs[k], rhs[pr] = rhs[pr], rhs[k]
		}
		for r := k + 1; r < m; r++ {
			f := a[r*m+k] / a[k*m+k]
			if f == 0 {
				continue
			}
			for c := k; c < m; c++ {
				a[r*m+c] -= f * a[k*m+c]
			}
			rhs[r] -= f * rhs[k]
		}
	}
	for k := m - 1; k >= 0; k-- {
		v := rhs[k]
		for c := k + 1; c < m; c++ {
			v -= a[k*m+c] * rhs[c]
		}
		rhs[k] = v / a[k*m+k]
	}
	return true
}
