package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gyroWall is the dense MLCP of a rigid wall-like stack (wallRows: box
// friction rows, four contacts a pair of bodies, so A is semidefinite)
// whose bodies' angular responses are gyroscopic, as the stepper assembles
// a fast-spinning body's (stepper.Mass: W = (I − h/2 Ĵ)⁻¹ is not
// symmetric): A = J W Jᵀ with W_b = diag(m_b⁻¹) + S_b, S_b skew-symmetric
// in the angular block, of the order of the diagonal. A is monotone
// (its symmetric part is J diag(m⁻¹) Jᵀ) but not symmetric, and b = J v
// plus noise of 0.1 (position terms that no velocity meets: faces
// inconsistent as well as singular).
func gyroWall(seed uint64, levels, perLevel, contacts int) *Problem {
	rng := rand.New(rand.NewPCG(seed, 7))
	rows, nb := wallRows(rng, levels, perLevel, contacts)
	w := make([][6][6]float64, nb)
	v := make([][6]float64, nb)
	for b := range w {
		for k := 0; k < 6; k++ {
			w[b][k][k] = 0.5 + rng.Float64()
			v[b][k] = rng.NormFloat64()
		}
		for r := 3; r < 6; r++ {
			for c := r + 1; c < 6; c++ {
				s := rng.NormFloat64()
				w[b][r][c] += s
				w[b][c][r] -= s
			}
		}
	}
	n := len(rows)
	a := NewDense(n, n, nil)
	bv := make([]float64, n)
	lo, hi := make([]float64, n), make([]float64, n)
	for i, ri := range rows {
		for j, rj := range rows {
			s := 0.0
			for si, bi := range ri.body {
				for sj, bj := range rj.body {
					if bi < 0 || bi != bj {
						continue
					}
					for p := 0; p < 6; p++ {
						for q := 0; q < 6; q++ {
							s += ri.jac[si][p] * w[bi][p][q] * rj.jac[sj][q]
						}
					}
				}
			}
			a.Set(i, j, s)
		}
		for side, b := range ri.body {
			if b >= 0 {
				for k := 0; k < 6; k++ {
					bv[i] += ri.jac[side][k] * v[b][k]
				}
			}
		}
		bv[i] += 0.1 * rng.NormFloat64()
		lo[i], hi[i] = ri.lo, ri.hi
	}
	return &Problem{A: a, B: bv, Lo: lo, Hi: hi}
}

// On a non-symmetric A in regularized mode single pivots crawl as they do
// on a symmetric semidefinite one, and the damped mode, a Newton method
// that needs no symmetry, ends the crawl. A gyroscopic wall of 180 rows
// (gyroWall): with single pivots only, BPP ran its whole budget of
// 100 + 10 n = 1 900 iterations (budget_exhausted, natural residual 6
// against max|b| 10.5); in the damped mode it converges in 93. The
// answer is checked against w = A x + b recomputed here: the natural
// residual within 10⁻⁶ max(1, max|b|), the regularized mode's documented
// tolerance (measured 5e-12). Under a budget of 100 iterations the solve
// ends converged or budget_exhausted, never Failed.
func TestBPPNonSymmetricDampedMode(t *testing.T) {
	p := gyroWall(3, 4, 4, 60)
	require.False(t, isSymmetric(p.A, 1e-12))
	var s BPP
	var r Result
	require.NoError(t, s.Solve(&r, p, Settings{}))
	require.Equal(t, Converged, r.Status, r.Reason)
	assert.True(t, s.semidefinite, "the solve must have used the regularized mode")
	scale := math.Max(1, normInf(p.B))
	res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
	t.Logf("%d rows: %d iterations, natural residual %.3g (max|b| %.3g)", p.N(), r.Iterations, res, normInf(p.B))
	assert.Less(t, r.Iterations, 400, "iterations (single pivots: the whole 1 900)")
	assert.LessOrEqual(t, res, 1e-6*scale, "natural residual")
	var rb Result
	require.NoError(t, (&BPP{}).Solve(&rb, p, Settings{MaxIterations: 100}))
	assert.Contains(t, []Status{Converged, BudgetExhausted}, rb.Status)
}
