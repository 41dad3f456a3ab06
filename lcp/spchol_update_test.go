package lcp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A partial refactorization (a few indices entering or leaving F, or a few
// changed values of A) recomputes only the changed rows and their ancestors
// in the elimination tree and gives bit for bit the factor of a
// factorization from scratch; the same F and A recompute nothing.
func TestSparseLDLPartialIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	rows, nb := wallRows(rng, 6, 4, 40)
	sp, _ := mbProblem(rng, nb, rows, 1e-3)
	a := sp.A.(*Sparse)
	n := sp.N()
	state := make([]State, n)
	for i := range state {
		if rng.IntN(4) == 0 {
			state[i] = AtLower
		}
	}
	var inc sparseLDL
	require.True(t, inc.factor(a, state))
	require.Equal(t, n, inc.recompute)
	require.True(t, inc.factor(a, state))
	assert.Zero(t, inc.recompute, "same F, same A")

	same := func(what string) {
		t.Helper()
		var ref sparseLDL
		require.True(t, ref.factor(a, state))
		require.Equal(t, ref.free, inc.free, what)
		m := ref.lp[n]
		// Bitwise: the same operations in the same order.
		assert.True(t, slices.Equal(ref.lx[:m], inc.lx[:m]), "%s: L differs", what)
		assert.True(t, slices.Equal(ref.d[:n], inc.d[:n]), "%s: D differs", what)
		assert.Less(t, inc.recompute, n, "%s: a full refactorization", what)
		assert.Greater(t, inc.recompute, 0, what)
		// And it solves A_FF x = r.
		r := make([]float64, len(inc.free))
		for k := range r {
			r[k] = rng.NormFloat64()
		}
		x := slices.Clone(r)
		inc.solve(x)
		for k, i := range inc.free {
			s := 0.0
			for l, j := range inc.free {
				s += a.At(int(i), int(j)) * x[l]
			}
			// Rounding of a well-conditioned (compliant) block.
			assert.InDelta(t, r[k], s, 1e-9*(1+math.Abs(r[k])), "%s: row %d", what, i)
		}
	}
	for trial := 0; trial < 8; trial++ {
		for c := 0; c < 1+trial%3; c++ {
			i := rng.IntN(n)
			if state[i] == Free {
				state[i] = AtUpper
			} else {
				state[i] = Free
			}
		}
		require.True(t, inc.factor(a, state))
		same("indices moved")
	}
	// New values in one row and column of A (same pattern).
	i := rng.IntN(n)
	for state[i] != Free {
		i = rng.IntN(n)
	}
	lo, hi := a.ptr[i], a.ptr[i+1]
	for p := lo; p < hi; p++ {
		j := int(a.col[p])
		if j == i {
			a.val[p] *= 1.5 // stays positive definite: a larger diagonal
		}
	}
	require.True(t, inc.factor(a, state))
	same("a new value")
}

// A time stepper's warm-started solves of a semidefinite problem start in
// the regularization that an earlier one needed (a solve that started in it
// no longer clears the flag), and test the unshifted block again once in
// semidefiniteInherit+1 solves. Starting regularized changes the pivoting
// path, not the answer: w = A x + b (unique for a symmetric positive
// semidefinite MLCP) agrees with a cold BPP's to the regularized solve's
// tolerance.
func TestBPPKeepsRegularization(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	rows, nb := wallRows(rng, 3, 3, 24)
	p, _ := mbProblem(rng, nb, rows, 0) // rigid, redundant contacts: 72 rows on 54 degrees of freedom
	s := &BPP{}
	var r Result
	require.NoError(t, s.Solve(&r, p, Settings{}))
	require.True(t, s.semidefinite, "the wall-like problem is semidefinite")
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	start := slices.Clone(r.States)
	for k := 1; k <= semidefiniteInherit+1; k++ {
		require.NoError(t, s.Solve(&r, p, Settings{Start: start}))
		require.Equal(t, Converged, r.Status)
		assert.Equal(t, k%(semidefiniteInherit+1), s.inherited, "solve %d", k)
		if k <= semidefiniteInherit {
			assert.True(t, s.semidefinite, "solve %d", k)
		}
		var cold Result
		require.NoError(t, (&BPP{}).Solve(&cold, p, Settings{Start: start}))
		for i := range r.W {
			// Both are within proxAccept (1e-4) of the velocity scale of
			// the exact w at worst (a stalled proximal solve), usually
			// within regTol (1e-6).
			assert.InDelta(t, cold.W[i], r.W[i], 2*proxAccept*sw, "solve %d, row %d", k, i)
		}
	}
}
