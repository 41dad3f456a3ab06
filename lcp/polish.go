package lcp

import (
	"fmt"
	"math"
)

// Polish runs up to sweeps projected Gauss–Seidel sweeps on x in place,
//
//	x_i ← clamp(x_i − (A x + b)_i / a_ii, l_i, u_i),   i = 1…n,
//
// the sweep of PGS with ω = 1, and then sets w = A x + b. It is the finish
// of a budgeted step: started from the iterate an error measure picked, it
// costs one product with A per sweep, far less than a pivot of BPP.
//
// Monotonicity. For symmetric positive semidefinite A and fixed bounds, the
// boxed MLCP of Eqs. (2)–(4) is the optimality condition of
//
//	min f(x) = ½ xᵀA x + bᵀx   over   l ≤ x ≤ u,
//
// and the update of row i is the exact minimizer of f along coordinate i
// over [l_i, u_i] (f is a parabola of curvature a_ii in x_i). So once x is
// inside its box, no row update, and so no sweep, increases f. A start
// outside the box is projected row by row during the first sweep, which may
// raise f (the iterate was infeasible); after it x is inside the box. For an
// A that is not symmetric no such f exists and a sweep may move away from
// the solution.
//
// Rows with a_ii ≤ 0 cannot be relaxed and are left unchanged (for PSD A
// such a row and its column are zero, so f does not couple it to the
// others). Polish stops early, after the sweep that changes no row by more
// than 10⁻¹⁰ of the velocity scale (a_ii·|Δx_i| ≤ 10⁻¹⁰·max|b_i|, PGS's
// default test), and returns the number of sweeps done. It returns an error,
// and leaves x unchanged, if the lengths of x or w differ from p.N(), if
// sweeps < 0, or if x holds a NaN.
func Polish(x, w []float64, p *Problem, sweeps int) (int, error) {
	n := p.N()
	switch {
	case sweeps < 0:
		return 0, fmt.Errorf("polish: sweeps: must be ≥ 0, got %d", sweeps)
	case len(x) != n:
		return 0, fmt.Errorf("polish: x has %d entries, problem has %d rows", len(x), n)
	case len(w) != n:
		return 0, fmt.Errorf("polish: w has %d entries, problem has %d rows", len(w), n)
	}
	for i, v := range x {
		if math.IsNaN(v) {
			return 0, fmt.Errorf("polish: x[%d]: is NaN", i)
		}
	}
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	if sw == 0 {
		sw = 1
	}
	done := 0
	for done < sweeps {
		done++
		change := 0.0
		for i := 0; i < n; i++ {
			a := p.A.At(i, i)
			if !(a > 0) {
				continue
			}
			r := p.A.RowDot(i, x) + p.B[i]
			nx := clamp(x[i]-r/a, p.Lo[i], p.Hi[i])
			change = math.Max(change, a*math.Abs(nx-x[i]))
			x[i] = nx
		}
		if change <= defaultTolerance*sw {
			break
		}
	}
	p.Residual(w, x)
	return done, nil
}
