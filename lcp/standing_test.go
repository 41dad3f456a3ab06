package lcp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A factor stands (factorStand) exactly while the matrix, its values and
// the free set are those of the last successful factor call: a second call
// then returns without building C's values (cx is left as the first call
// wrote it), and every change — values refilled into the same pattern,
// even the same values (a new stamp, so the full check runs and finds
// nothing to recompute), one index moving, an invalidated factor, a new
// shift — goes through the full check, whose factor is the one from
// scratch bit for bit.
func TestSparseLDLStands(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	sp, a, state := compliantWall(rng, 5, 4, 30, 4)
	n := sp.N()
	var f sparseLDL
	f.noModify = true // the bit-exact refactorization path
	require.True(t, f.factor(a, state))
	require.Equal(t, n, f.recompute)
	lx, d := slices.Clone(f.lx[:f.lp[n]]), slices.Clone(f.d[:n])

	// The same call: it stands; cx is not rebuilt (poisoned, it stays so).
	require.True(t, f.stands(a, state))
	for i := range f.cx {
		f.cx[i] = -7
	}
	f.recompute = 99
	require.True(t, f.factor(a, state))
	assert.Zero(t, f.recompute)
	assert.Equal(t, -7.0, f.cx[0], "C's values were built again")
	assert.True(t, slices.Equal(lx, f.lx[:f.lp[n]]) && slices.Equal(d, f.d[:n]), "the factor moved")

	// scratch: a fresh factorization of a on state, to compare bits with.
	scratch := func(what string) {
		t.Helper()
		var ref sparseLDL
		ref.noModify = true
		require.True(t, ref.factor(a, state), what)
		m := ref.lp[n]
		assert.True(t, slices.Equal(ref.lx[:m], f.lx[:m]), "%s: L differs from scratch", what)
		assert.True(t, slices.Equal(ref.d[:n], f.d[:n]), "%s: D differs from scratch", what)
	}

	// Same values refilled (Refill, SetRecord, Refilled): a new stamp,
	// the full check, nothing to recompute.
	refill := func(scale float64) {
		t.Helper()
		recs := len(a.tv)
		vals := slices.Clone(a.tv)
		require.True(t, a.Refill(n, recs))
		for t, v := range vals {
			if a.ti[t] == a.tj[t] {
				v *= scale
			}
			a.SetRecord(t, v)
		}
		a.Refilled()
	}
	refill(1)
	assert.False(t, f.stands(a, state), "a new stamp")
	require.True(t, f.factor(a, state))
	assert.Zero(t, f.recompute, "the same values")
	scratch("same values refilled")

	// New values (a larger diagonal): recomputed.
	refill(1.25)
	assert.False(t, f.stands(a, state))
	require.True(t, f.factor(a, state))
	assert.Positive(t, f.recompute)
	scratch("new values")
	assert.True(t, f.stands(a, state))

	// An index leaving F.
	for i := range state {
		if state[i] == Free {
			state[i] = AtLower
			break
		}
	}
	assert.False(t, f.stands(a, state), "a moved index")
	require.True(t, f.factor(a, state))
	assert.Positive(t, f.recompute)
	scratch("an index moved")

	// An invalidated factor and a new shift refactor whole.
	f.valid = false
	assert.False(t, f.stands(a, state), "invalidated")
	require.True(t, f.factor(a, state))
	assert.Equal(t, n, f.recompute)
	f.shift = 1e-6
	assert.False(t, f.stands(a, state), "a new shift")
	require.True(t, f.factor(a, state))
	assert.Equal(t, n, f.recompute)

	// Another matrix with the same values: not this one's factor.
	b := *a
	b.restamp()
	assert.False(t, f.stands(&b, state), "another matrix")
}
