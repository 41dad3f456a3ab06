package lcp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Finish on the (i, j) sequence of the last Finish sums into the kept
// pattern: the matrix is bit for bit the one a fresh Sparse builds from the
// same calls (duplicates of an entry summed in call order, both triangles
// equal), the version stays, and a different sequence takes the full path.
func TestSparseFinishReusesPattern(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n = 40
	type rec struct{ i, j int }
	var recs []rec
	for len(recs) < 300 {
		i, j := rng.IntN(n), rng.IntN(n)
		recs = append(recs, rec{i, j})
		if rng.IntN(5) == 0 { // duplicates, in either order
			recs = append(recs, rec{j, i})
		}
	}
	build := func(s *Sparse, recs []rec, vals []float64) {
		s.Reset(n)
		for t, r := range recs {
			s.Add(r.i, r.j, vals[t])
		}
		s.Finish()
	}
	values := func() []float64 {
		v := make([]float64, len(recs))
		for t := range v {
			v[t] = rng.NormFloat64()
		}
		return v
	}
	var kept Sparse
	build(&kept, recs, values())
	ver := kept.version
	for trial := 0; trial < 3; trial++ {
		v := values()
		build(&kept, recs, v)
		var fresh Sparse
		build(&fresh, recs, v)
		assert.Equal(t, ver, kept.version, "same pattern, same version")
		require.True(t, slices.Equal(fresh.ptr, kept.ptr) && slices.Equal(fresh.col, kept.col))
		assert.True(t, slices.Equal(fresh.val, kept.val), "trial %d: values differ", trial)
	}
	// One call more: the full path, and the right matrix.
	recs = append(recs, rec{0, n - 1})
	v := values()
	build(&kept, recs, v)
	var fresh Sparse
	build(&fresh, recs, v)
	assert.True(t, slices.Equal(fresh.val, kept.val))
	assert.True(t, slices.Equal(fresh.col, kept.col))
	// The same calls with i and j swapped in one of them are the same
	// matrix but another call sequence: still right.
	recs[0] = rec{recs[0].j, recs[0].i}
	build(&kept, recs, v)
	build(&fresh, recs, v)
	assert.True(t, slices.Equal(fresh.val, kept.val))
	// Add sums in place while the calls repeat the kept pattern's; a call
	// that differs midway, a sequence that stops short, and an Add after
	// Finish each leave that path with the right matrix.
	same := func(what string, recs []rec, v []float64) {
		t.Helper()
		var fresh Sparse
		build(&kept, recs, v)
		build(&fresh, recs, v)
		require.True(t, slices.Equal(fresh.ptr, kept.ptr) && slices.Equal(fresh.col, kept.col), what)
		require.True(t, slices.Equal(fresh.val, kept.val), what)
	}
	build(&kept, recs, v) // kept pattern: recs
	mid := slices.Clone(recs)
	mid[len(mid)/2] = rec{1, 2}
	same("a call that differs midway", mid, v)
	same("the kept pattern again", recs, v)
	same("a sequence that stops short", recs[:len(recs)-7], v)
	same("the kept pattern again", recs, v)
	build(&kept, recs, v)
	kept.Add(3, 3, 0.5)
	kept.Finish()
	var fresh2 Sparse
	build(&fresh2, append(slices.Clone(recs), rec{3, 3}), append(slices.Clone(v), 0.5))
	require.True(t, slices.Equal(fresh2.val, kept.val), "an Add after Finish")
}

// Refill, SetRecord and Refilled give the bits of Reset, Add and Finish
// with the same calls, duplicates of an entry in either order included,
// and the finite flag; Refill refuses another size or record count, and
// an unfinished matrix; an Add after Refilled reopens the matrix with the
// refilled records, as after Finish.
func TestSparseRefill(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const n = 30
	type rec struct{ i, j int }
	var recs []rec
	for len(recs) < 200 {
		i, j := rng.IntN(n), rng.IntN(n)
		recs = append(recs, rec{i, j})
		if rng.IntN(4) == 0 {
			recs = append(recs, rec{j, i})
		}
	}
	values := func() []float64 {
		v := make([]float64, len(recs))
		for t := range v {
			v[t] = rng.NormFloat64()
		}
		return v
	}
	build := func(s *Sparse, v []float64) {
		s.Reset(n)
		for t, r := range recs {
			s.Add(r.i, r.j, v[t])
		}
		s.Finish()
	}
	var kept Sparse
	build(&kept, values())
	assert.False(t, kept.Refill(n+1, len(recs)), "another size")
	assert.False(t, kept.Refill(n, len(recs)-1), "another record count")
	for trial := 0; trial < 3; trial++ {
		v := values()
		if trial == 2 {
			v[7] = math.NaN()
		}
		require.True(t, kept.Refill(n, len(recs)), "trial %d", trial)
		assert.False(t, kept.Refill(n, len(recs)), "trial %d: open", trial)
		for t, x := range v {
			kept.SetRecord(t, x)
		}
		kept.Refilled()
		var fresh Sparse
		build(&fresh, v)
		require.Equal(t, fresh.ptr, kept.ptr)
		require.Equal(t, fresh.col, kept.col)
		for p, x := range fresh.val {
			require.Equal(t, math.Float64bits(x), math.Float64bits(kept.val[p]), "trial %d: slot %d", trial, p)
		}
		assert.Equal(t, fresh.finite, kept.finite, "trial %d", trial)
		assert.Equal(t, trial != 2, kept.finite, "trial %d", trial)
	}
	// An Add after Refilled sums onto the refilled records.
	v := values()
	require.True(t, kept.Refill(n, len(recs)))
	for t, x := range v {
		kept.SetRecord(t, x)
	}
	kept.Refilled()
	kept.Add(0, n-1, 2.5)
	kept.Finish()
	var fresh Sparse
	fresh.Reset(n)
	for t, r := range recs {
		fresh.Add(r.i, r.j, v[t])
	}
	fresh.Add(0, n-1, 2.5)
	fresh.Finish()
	require.Equal(t, fresh.col, kept.col)
	require.Equal(t, fresh.val, kept.val)
}

// Grow sizes the record buffers for a known count of Add calls: a fresh
// matrix Grown for r records allocates its three record buffers once for
// r Adds (without Grow: 16 per row, then doubled twice, nine buffers), and the matrix
// is the one the same Adds give without Grow, bit for bit. A negative
// count is a programming error.
func TestSparseGrow(t *testing.T) {
	const n, r = 50, 2000
	rng := rand.New(rand.NewPCG(3, 4))
	ii, jj, vv := make([]int, r), make([]int, r), make([]float64, r)
	for k := range ii {
		ii[k], jj[k], vv[k] = rng.IntN(n), rng.IntN(n), rng.NormFloat64()
	}
	var plain, grown Sparse
	record := func(s *Sparse, grow bool) {
		*s = Sparse{}
		s.Reset(n)
		if grow {
			s.Grow(r)
		}
		for k := range ii {
			s.Add(ii[k], jj[k], vv[k])
		}
	}
	require.Equal(t, 9.0, testing.AllocsPerRun(3, func() { record(&plain, false) }))
	require.Equal(t, 3.0, testing.AllocsPerRun(3, func() { record(&grown, true) }))
	plain.Finish()
	grown.Finish()
	require.Equal(t, plain.NNZ(), grown.NNZ())
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			require.Equal(t, math.Float64bits(plain.At(i, j)), math.Float64bits(grown.At(i, j)), "A[%d][%d]", i, j)
		}
	}
	require.PanicsWithValue(t, "lcp: Sparse.Grow: negative record count -1", func() { grown.Grow(-1) })
}

// A refill does not keep its record values (Refill): a Finish right after
// Refilled leaves every entry's bits as the refill made them, −0 entries
// and NaN included, and an Add after it sums onto them as onto the
// records of Reset, Add and Finish.
func TestSparseRefillThenFinish(t *testing.T) {
	const n = 4
	recs := [][2]int{{0, 0}, {0, 1}, {1, 1}, {0, 1}, {2, 3}, {3, 2}, {2, 2}, {3, 3}, {1, 0}}
	build := func(s *Sparse, v []float64) {
		s.Reset(n)
		for t, r := range recs {
			s.Add(r[0], r[1], v[t])
		}
		s.Finish()
	}
	negZero := math.Copysign(0, -1)
	first := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	v := []float64{negZero, 0.5, math.NaN(), 0.25, negZero, negZero, 1.5, -2, 1e300}
	var kept Sparse
	build(&kept, first)
	require.True(t, kept.Refill(n, len(recs)))
	for t, x := range v {
		kept.SetRecord(t, x)
	}
	kept.Refilled()
	refilled := slices.Clone(kept.val)
	kept.Finish()
	for p, x := range refilled {
		require.Equal(t, math.Float64bits(x), math.Float64bits(kept.val[p]), "slot %d", p)
	}
	var fresh Sparse
	build(&fresh, v)
	for p, x := range fresh.val {
		require.Equal(t, math.Float64bits(x), math.Float64bits(kept.val[p]), "slot %d", p)
	}
	require.False(t, kept.finite, "A[1][1] is NaN")
	kept.Add(2, 3, 0.75)
	kept.Finish()
	fresh.Add(2, 3, 0.75)
	fresh.Finish()
	for p, x := range fresh.val {
		require.Equal(t, math.Float64bits(x), math.Float64bits(kept.val[p]), "after Add: slot %d", p)
	}
	assert.Equal(t, negZero, kept.At(0, 0))
	assert.True(t, math.Signbit(kept.At(0, 0)), "A[0][0] = −0 kept")
}
