package lcp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gyroBoxProblem is the contact MLCP of a box on four corners of its
// bottom face whose angular response is gyroscopic, as the stepper
// assembles it for a body spinning fast (stepper.Mass: W = (I − h/2 Ĵ)⁻¹
// is not symmetric): A = J W Jᵀ with W = diag(1/m, 1/m, 1/m, I⁻¹ + S), S
// skew-symmetric, so A is not symmetric but monotone (its symmetric part
// is J diag(1/m, I⁻¹) Jᵀ, positive semidefinite), and its 12 rows (a
// normal and two box-friction rows a corner) have rank 6: every face that
// frees more than 6 of them is singular. b = J v for a box falling at
// 1 m/s and sliding at 0.3 m/s along x while it turns about z.
func gyroBoxProblem() *Problem {
	const m, mu, fn = 2.0, 0.5, 2.0 / 6 // mass, friction, a corner's share of the bounds' load
	inv := [6][6]float64{}
	for k := 0; k < 3; k++ {
		inv[k][k] = 1 / m
	}
	// I⁻¹ of a 0.4 × 0.3 × 0.2 m box of 2 kg plus a skew part of the same
	// order (ρ ≈ 0.8 > stepper.GyroscopicTol).
	ii := [3]float64{1 / (m / 12 * (0.09 + 0.04)), 1 / (m / 12 * (0.16 + 0.04)), 1 / (m / 12 * (0.16 + 0.09))}
	s := [3][3]float64{{0, 20, -12}, {-20, 0, 8}, {12, -8, 0}}
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			inv[3+r][3+c] = s[r][c]
		}
		inv[3+r][3+r] += ii[r]
	}
	var rows [][6]float64
	var lo, hi []float64
	for _, sx := range []float64{-0.2, 0.2} {
		for _, sy := range []float64{-0.15, 0.15} {
			r := [3]float64{sx, sy, -0.1}
			for k, d := range [3][3]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}} {
				c := [3]float64{r[1]*d[2] - r[2]*d[1], r[2]*d[0] - r[0]*d[2], r[0]*d[1] - r[1]*d[0]}
				rows = append(rows, [6]float64{d[0], d[1], d[2], c[0], c[1], c[2]})
				if k == 0 {
					lo, hi = append(lo, 0), append(hi, math.Inf(1))
				} else {
					lo, hi = append(lo, -mu*fn), append(hi, mu*fn)
				}
			}
		}
	}
	v := [6]float64{0.3, 0, -1, 0, 0, 0.5}
	n := len(rows)
	a := make([]float64, n*n)
	b := make([]float64, n)
	for i, ji := range rows {
		for j, jj := range rows {
			sum := 0.0
			for p := 0; p < 6; p++ {
				for q := 0; q < 6; q++ {
					sum += ji[p] * inv[p][q] * jj[q]
				}
			}
			a[i*n+j] = sum
		}
		for p := 0; p < 6; p++ {
			b[i] += ji[p] * v[p]
		}
	}
	return &Problem{A: NewDense(n, n, a), B: b, Lo: lo, Hi: hi}
}

// A singular face of a non-symmetric A (a gyroscopic body on redundant
// contacts) is solved in BPP's regularized mode, as a symmetric one is,
// not handed to an LU that gives up: a 30-box random pile under Budget 2
// (step 42, an island of 264 rows with a fast-spinning box) ended its
// solve Failed at iteration 0 with "free block of 88 rows has condition
// number 1.63e+18", returning no iterate at all. Here, from every row
// free (the face is all of A: rank 6 of 12) and from a cold start, the
// solve converges, its natural residual from w = A x + b recomputed here
// within 10⁻⁶ max(1, max|b|) (the regularized mode's documented tolerance,
// regTol);
// under budgets of 1 to 3 iterations it ends BudgetExhausted or
// Converged without an error, its x and w satisfying w = A x + b.
func TestBPPNonSymmetricSingularFace(t *testing.T) {
	p := gyroBoxProblem()
	n := p.N()
	require.False(t, isSymmetric(p.A, 1e-3), "the problem must be non-symmetric")
	sw := math.Max(1, normInf(p.B))
	allFree := make([]State, n)
	for _, c := range []struct {
		name string
		set  Settings
	}{
		{"cold", Settings{}},
		{"all free", Settings{Start: allFree}},
	} {
		var r Result
		err := (&BPP{}).Solve(&r, p, c.set)
		require.NoError(t, err, c.name)
		assert.Equal(t, Converged, r.Status, c.name)
		res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
		t.Logf("%s: %d iterations, natural residual %.3g (max|b| %.3g), %s", c.name, r.Iterations, res, normInf(p.B), r.Reason)
		assert.LessOrEqual(t, res, 1e-6*sw, c.name)
		for budget := 1; budget <= 3; budget++ {
			var rb Result
			set := c.set
			set.MaxIterations = budget
			err := (&BPP{}).Solve(&rb, p, set)
			require.NoError(t, err, "%s, budget %d", c.name, budget)
			assert.Contains(t, []Status{Converged, BudgetExhausted}, rb.Status, "%s, budget %d", c.name, budget)
			w := p.Residual(make([]float64, n), rb.X)
			for i := range w {
				// Eq. (2) to the rounding of a product with A: BPP's w is its own A x + b.
				assert.InDelta(t, w[i], rb.W[i], 1e-12*sw+1e-12, "%s, budget %d, row %d", c.name, budget, i)
			}
		}
	}
}
