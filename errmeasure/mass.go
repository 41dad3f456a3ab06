package errmeasure

import (
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// exactMassMaxRows is the largest problem for which InverseMass forms the
// dense inverse (rule 2: 300³ flops, some 10 ms); larger ones go straight to
// the coupling rule, so that a step of a large scene with a massless row
// does not pay an O(n³) inversion.
const exactMassMaxRows = 300

// InverseMass returns the inverse effective mass a_i (kg⁻¹) of every row of
// p for the energy error (Eqs. 18–21), defined on every row a valid problem
// can have. It fills dst (grown if short) and returns it. In order:
//
//  1. aᵢᵢ when aᵢᵢ > 0: Eq. (13), the default of the paper.
//  2. For a row with aᵢᵢ ≤ 0 (a zero-diagonal row of a circuit MLCP, a
//     rigid row that no body moves, or an A that is not positive
//     semidefinite): the exact āᵢ = 1/{A⁻¹}ᵢᵢ of Eq. (11) when A is
//     invertible, has at most 300 rows, and {A⁻¹}ᵢᵢ is positive and finite.
//  3. Otherwise the coupling mass âᵢ = max_j |a_ij a_ji| / a_jj over the rows
//     j ≠ i with a_jj > 0: for the 2×2 block [[aᵢᵢ = 0, c], [c′, a_jj]] this
//     is |1/{A⁻¹}ᵢᵢ| = |c c′|/a_jj, the magnitude of the exact value. It is
//     unit consistent: a_ij a_ji / a_jj has the units of w_i/x_i.
//  4. A row coupled to no row with a positive diagonal (a_ij a_ji = 0 for
//     all such j) gets âᵢ = 1 in the units of the problem. This rule alone
//     is not unit consistent; no mechanical or circuit problem of the test
//     collection needs it.
//
// Every a_i is thus positive and finite, so a row that violates a bound or
// has a velocity of the wrong sign has a positive, finite energy error:
// never 0, never +Inf.
//
// When every aᵢᵢ > 0 (every problem the stepper builds with compliance or
// mass on every row) it costs O(n) and allocates only dst. Rule 2 costs a
// dense inversion, O(n³), and is tried only when some aᵢᵢ ≤ 0.
func InverseMass(dst []float64, p *lcp.Problem) []float64 {
	dst = p.Diag(dst)
	bad := false
	for _, a := range dst {
		bad = bad || !(a > 0) || math.IsInf(a, 1)
	}
	if !bad {
		return dst
	}
	var exact []float64
	if p.N() <= exactMassMaxRows {
		exact = invDiag(p.A)
	}
	n := p.N()
	for i, a := range dst {
		if a > 0 && !math.IsInf(a, 1) {
			continue
		}
		if exact != nil && exact[i] > 0 && !math.IsInf(exact[i], 0) {
			dst[i] = 1 / exact[i]
			continue
		}
		c := 0.0
		for j := 0; j < n; j++ {
			ajj := p.A.At(j, j)
			if j == i || !(ajj > 0) || math.IsInf(ajj, 1) {
				continue
			}
			c = math.Max(c, math.Abs(p.A.At(i, j)*p.A.At(j, i))/ajj)
		}
		if !(c > 0) || math.IsInf(c, 1) {
			c = 1
		}
		dst[i] = c
	}
	return dst
}

// invDiag returns diag(A⁻¹), or nil if A is singular or too ill-conditioned.
// Entries may be non-positive (A not positive definite).
func invDiag(A lcp.Matrix) []float64 {
	n, _ := A.Dims()
	out := make([]float64, n)
	if invDiagLU(out, A) != nil {
		return nil
	}
	return out
}
