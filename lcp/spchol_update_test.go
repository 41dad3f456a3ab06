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
