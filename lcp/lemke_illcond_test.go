package lcp

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLemkeIllConditionedBasis: step 28 of the push scene (cmd/sim run push
// --solver lemke --steps 40 with push_speed 0.5, push_distance 0.06, mu_p
// 0.3, mu_f 0.4, mu_s 0.1, tripod 0.01, object_x −0.015, pusher_angle
// −0.25), 21 rows: three floor contacts and two pairs of duplicate pusher
// contacts, so A is positive semidefinite and Lemke's method on A ends in a
// ray after 10 pivots. Its proximal passes solve A + εD (ε = 1e-6), where
// the bases reach ν_k = ‖(B⁻¹)_k‖₁ ≈ 2·10⁵. The ratio test's old rhs tie
// band τ‖q‖∞·ν/t made ratios 0.00831 and 0.00847 (2 % apart) a tie and
// every pass ended "converged" with the friction impulse x₁₆ = −0.0021458,
// 1 % below its bound −0.0021245 (a basic z of −2.1e-5), so the passes
// never solved the problem. With the measured band each pass keeps x in
// its box and Solve ends with a solution.
func TestLemkeIllConditionedBasis(t *testing.T) {
	p := loadProblem(t, "push_lemke_step28.json")
	n := p.N()
	xtol := make([]float64, n)
	wtol := scales(p, 0, xtol)

	var s Lemke
	var r Result
	assert.ErrorIs(t, s.solveOnce(&r, p, Settings{}), ErrNoSolution, "Lemke on A ends in a ray")

	// The first proximal pass (x̄ = 0): A + εD, b.
	q := &Problem{A: &shifted{p.A, p.Diag(nil), SemidefiniteShift}, B: p.B, Lo: p.Lo, Hi: p.Hi}
	require.NoError(t, s.solveOnce(&r, q, Settings{}))
	assert.Equal(t, Converged, r.Status)
	for i, x := range r.X {
		// xtol: the solve's own impulse tolerance (default Tolerance,
		// 8.3e-12 on row 16); the old pass was 2.1e-5 outside.
		assert.GreaterOrEqual(t, x, p.Lo[i]-xtol[i], "pass 0: x[%d] below its bound", i)
		assert.LessOrEqual(t, x, p.Hi[i]+xtol[i], "pass 0: x[%d] above its bound", i)
	}

	r = Result{}
	require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{}))
	assert.Equal(t, Converged, r.Status)
	assert.True(t, boxSolved(p, r.X, p.Residual(nil, r.X), xtol, wtol), "x in its box, w signs")
	// The default velocity tolerance, 1e-10·‖b‖∞ = 4.1e-11 (measured
	// 3.4e-12; BPP's solution has 1.9e-7, its own tolerance being looser).
	assert.LessOrEqual(t, maxNaturalResidual(p, r.X, p.Residual(nil, r.X)), wtol)
	// Row 16 ends at its lower bound, not below it.
	assert.InDelta(t, p.Lo[16], r.X[16], xtol[16])
}

// TestLemkeInfeasibleBasisReported: a complementary basis whose basic
// solution has a negative variable is no solution, and infeasibleRow finds
// it. M = [[2,1],[1,2]], q = (−5,−6): the basis {z₁, w₂} has z₁ = 5/2 and
// w₂ = −6 + 5/2 = −3.5; the basis {z₁, z₂} has z = (4/3, 7/3) ≥ 0.
func TestLemkeInfeasibleBasisReported(t *testing.T) {
	p := &Problem{A: NewDense(2, 2, []float64{2, 1, 1, 2}), B: []float64{-5, -6},
		Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var s Lemke
	m := s.reduce(p)
	require.Equal(t, 2, m)
	s.tableau(m)
	s.pivotTab(0, m, m) // z₁ enters in row 0 (w₁ leaves)
	k, v, bound := s.infeasibleRow(m)
	assert.Equal(t, 1, k)
	assert.InDelta(t, -3.5, v, 1e-15) // 2.5 and 3.5 are exact in float64
	assert.Less(t, bound, 1e-13)      // rounding of a 2×2 pivot on small integers
	s.pivotTab(1, m+1, m)             // z₂ enters in row 1
	k, _, _ = s.infeasibleRow(m)
	assert.Equal(t, -1, k)
	assert.InDelta(t, 4.0/3, s.tab[0*(2*m+2)+2*m+1], 1e-15)
	assert.InDelta(t, 7.0/3, s.tab[1*(2*m+2)+2*m+1], 1e-15)
}

// TestLemkeDuplicateContactRatios: step 17 of the push sweep's job e4,
// μ_s 0.3, tripod 0.05 (cmd/sim run push --solver lemke --steps 40 with
// push_speed 0.5, push_distance 0.06, mu_p 0.3, mu_f 0.4, mu_s 0.3, tripod
// 0.05, object_x −0.005, pusher_angle 0.15, object_angle 0.5), 15 rows:
// three floor contacts and two duplicate pusher contacts, whose normal
// rows (reduced variables 15 and 16) have nearly equal B⁻¹ rows
// (ν ≈ 707). At the fifth pivot their ratios are 3.3113567897e-4 and
// 3.3113567889e-4, 8.29e-14 apart in exact arithmetic and in the tableau
// alike; the old rhs band σ(ν_a/t_a + ν_b/t_b)‖r‖∞ = 8.4e-12 made them a
// tie, the B⁻¹ components picked row 15, and the method ended in a basis
// with w₁₆ = −1.0e-12 (infeasible beyond its bound 1.06e-13), then 50
// proximal passes drifting along the duplicates' null direction. The band
// of the difference, ‖B⁻¹_a/t_a − B⁻¹_b/t_b‖₁‖r‖∞, is as small as the two
// rows' errors are alike, and Lemke takes the exact method's 13 pivots.
func TestLemkeDuplicateContactRatios(t *testing.T) {
	p := loadProblem(t, "push_lemke_step17.json")
	n := p.N()
	xtol := make([]float64, n)
	wtol := scales(p, 0, xtol)

	var s Lemke
	m := s.reduce(p)
	mm := make([][]*big.Rat, m)
	q := make([]*big.Rat, m)
	for k := range mm {
		mm[k] = make([]*big.Rat, m)
		for j := range mm[k] {
			mm[k][j] = new(big.Rat).SetFloat64(s.m[k*m+j])
		}
		q[k] = new(big.Rat).SetFloat64(s.q[k])
	}
	ze, piv, ok := exactLemkeRat(mm, q, 1000)
	require.True(t, ok, "the exact Lemke ends in a solution")
	z := make([]float64, m)
	for k := range ze {
		z[k], _ = ze[k].Float64()
	}
	xe := make([]float64, n)
	s.xFromZ(xe, z)

	var r Result
	require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, piv, r.Pivots, "pivots: float vs exact (no proximal passes)")
	w := p.Residual(nil, r.X)
	assert.True(t, boxSolved(p, r.X, w, xtol, wtol), "x in its box, w signs")
	// The default velocity tolerance, 1e-10·‖b‖∞ = 5.6e-11 (measured
	// 3.1e-17).
	assert.LessOrEqual(t, maxNaturalResidual(p, r.X, w), wtol)
	for i := range xe {
		// ν ε ‖x‖∞ = 707 · 2.2e-16 · 0.0108 = 1.7e-15: the rounding of
		// the basic solution through B⁻¹ rows of size ν (measured 5.6e-18).
		assert.InDelta(t, xe[i], r.X[i], 1.7e-15, "x[%d]: float vs exact", i)
	}
}
