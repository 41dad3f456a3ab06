package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockSparse returns a symmetric matrix of n rows whose rows couple only
// within blocks of rows with the same i % blocks (a step's A by island,
// its islands' rows interleaved), positive definite by a dominant
// diagonal, with values from rng.
func blockSparse(rng *rand.Rand, n, blocks int) *Sparse {
	var a Sparse
	a.Reset(n)
	for i := range n {
		a.Add(i, i, 10+rng.Float64())
		for j := i + blocks; j < n; j += blocks {
			if rng.IntN(3) == 0 {
				a.Add(i, j, rng.NormFloat64())
			}
		}
	}
	a.Finish()
	return &a
}

// Submatrix is the principal submatrix: every entry of s[k][l] is
// src[idx[k]][idx[l]] bit for bit, entries outside idx × idx dropped; its
// version stays while the extracted pattern does (new values, same
// pattern), moves when it changes, and a steady extraction allocates
// nothing.
func TestSparseSubmatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 25))
	const n, blocks = 60, 3
	src := blockSparse(rng, n, blocks)
	var idx []int32
	for i := int32(1); i < n; i += blocks {
		idx = append(idx, i)
	}
	idx = append(idx[:5], idx[6:]...) // not a whole block: entries are dropped
	var s Sparse
	s.Submatrix(src, idx, nil)
	check := func() {
		t.Helper()
		r, c := s.Dims()
		require.Equal(t, len(idx), r)
		require.Equal(t, len(idx), c)
		for k, i := range idx {
			for l, j := range idx {
				require.Equal(t, src.At(int(i), int(j)), s.At(k, l), "(%d, %d)", k, l)
			}
		}
	}
	check()
	v := s.version
	// The same pattern with other values (the next step's A): same version.
	for p := range src.val {
		src.val[p] *= 1.5
	}
	s.Submatrix(src, idx, nil)
	check()
	assert.Equal(t, v, s.version, "same pattern, same version")
	// Another block: its pattern differs, the version moves.
	var other []int32
	for i := int32(0); i < n; i += blocks {
		other = append(other, i)
	}
	s.Submatrix(src, other, nil)
	idx = other
	check()
	assert.NotEqual(t, v, s.version, "another pattern, another version")
	assert.Zero(t, testing.AllocsPerRun(10, func() { s.Submatrix(src, idx, nil) }))
	// With pos, the places of every block's rows in their own block (one
	// pos for all blocks, as the stepper keeps it): the same matrix, the
	// same version.
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i / blocks)
	}
	var sp Sparse
	sp.Submatrix(src, idx, pos)
	v = sp.version
	for k, i := range idx {
		for l, j := range idx {
			require.Equal(t, src.At(int(i), int(j)), sp.At(k, l), "pos: (%d, %d)", k, l)
		}
	}
	sp.Submatrix(src, idx, pos)
	assert.Equal(t, v, sp.version)
	assert.Zero(t, testing.AllocsPerRun(10, func() { sp.Submatrix(src, idx, pos) }))
	// A solve on the block is the block's own: BPP on s equals BPP on the
	// dense copy of the block (the conformance of Sparse and Dense).
	m := len(idx)
	d := NewDense(m, m, nil)
	for k := range m {
		for l := range m {
			d.Set(k, l, s.At(k, l))
		}
	}
	b, lo, hi := make([]float64, m), make([]float64, m), make([]float64, m)
	for k := range b {
		b[k], lo[k], hi[k] = rng.NormFloat64(), 0, 1+rng.Float64()
	}
	var rs, rd Result
	require.NoError(t, (&BPP{}).Solve(&rs, &Problem{A: &s, B: b, Lo: lo, Hi: hi}, Settings{}))
	require.NoError(t, (&BPP{}).Solve(&rd, &Problem{A: d, B: b, Lo: lo, Hi: hi}, Settings{}))
	require.Equal(t, Converged, rs.Status)
	for k := range rs.X {
		assert.InDelta(t, rd.X[k], rs.X[k], 1e-12, "x[%d]: the same index sets, factors agreeing to rounding", k)
	}
}

// Submatrix rejects idx that is not ascending or not within range, a pos
// of the wrong length, and src == s, as Add rejects a bad index: a
// programming error.
func TestSparseSubmatrixProgrammingErrors(t *testing.T) {
	src := blockSparse(rand.New(rand.NewPCG(1, 2)), 6, 2)
	var s Sparse
	assert.PanicsWithValue(t, "lcp: Sparse.Submatrix: idx[1] = 1 is not ascending within [0, 6)", func() { s.Submatrix(src, []int32{2, 1}, nil) })
	assert.PanicsWithValue(t, "lcp: Sparse.Submatrix: idx[0] = 6 is not ascending within [0, 6)", func() { s.Submatrix(src, []int32{6}, nil) })
	assert.Panics(t, func() { src.Submatrix(src, []int32{0}, nil) })
	assert.PanicsWithValue(t, "lcp: Sparse.Submatrix: pos has 2 entries, src 6 rows", func() { s.Submatrix(src, []int32{0}, []int32{0, 1}) })
}

// DenseSubmatrix is Submatrix as a dense matrix: every entry of the block,
// zeros outside the pattern included, is src[idx[k]][idx[l]] bit for bit,
// for every block of one shared pos; a steady extraction allocates nothing;
// bad idx and pos are programming errors, as for Submatrix.
func TestSparseDenseSubmatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	const n, blocks = 60, 3
	src := blockSparse(rng, n, blocks)
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i / blocks)
	}
	var d Dense
	for b := range blocks {
		var idx []int32
		for i := int32(b); i < n; i += blocks {
			idx = append(idx, i)
		}
		src.DenseSubmatrix(&d, idx, pos)
		r, c := d.Dims()
		require.Equal(t, len(idx), r)
		require.Equal(t, len(idx), c)
		nonzero := 0
		for k, i := range idx {
			for l, j := range idx {
				require.Equal(t, src.At(int(i), int(j)), d.At(k, l), "block %d (%d, %d)", b, k, l)
				if d.At(k, l) != 0 {
					nonzero++
				}
			}
		}
		assert.Less(t, nonzero, len(idx)*len(idx), "block %d has zeros outside the pattern", b)
		assert.Zero(t, testing.AllocsPerRun(10, func() { src.DenseSubmatrix(&d, idx, pos) }))
	}
	assert.PanicsWithValue(t, "lcp: Sparse.DenseSubmatrix: idx[1] = 0 is not ascending within [0, 60)", func() { src.DenseSubmatrix(&d, []int32{3, 0}, pos) })
	assert.PanicsWithValue(t, "lcp: Sparse.DenseSubmatrix: pos has 2 entries, src 60 rows", func() { src.DenseSubmatrix(&d, []int32{0}, []int32{0, 1}) })
}

// A dense block from DenseSubmatrix is taken as finite and symmetric
// without reading it again only while it holds what was extracted: a NaN
// in src (Finish found it) is still found by Validate in the block, and an
// entry written afterwards (Set, Add, a Row or RawData view) makes Validate
// and the symmetry test read the block again and name the entry.
func TestDenseSubmatrixExactUntilWritten(t *testing.T) {
	var src Sparse
	src.Reset(3)
	src.Add(0, 0, 2)
	src.Add(1, 1, 2)
	src.Add(2, 2, 2)
	src.Add(0, 1, 0.5)
	src.Finish()
	pos := []int32{0, 1, 2}
	idx := []int32{0, 1, 2}
	var d Dense
	p := Problem{A: &d, B: []float64{-1, -1, -1}, Lo: []float64{0, 0, 0}, Hi: []float64{math.Inf(1), math.Inf(1), math.Inf(1)}}
	writes := map[string]func(){
		"Set":     func() { d.Set(2, 1, math.NaN()) },
		"Add":     func() { d.Add(2, 1, math.NaN()) },
		"Row":     func() { d.Row(2)[1] = math.NaN() },
		"RawData": func() { d.RawData()[7] = math.NaN() },
	}
	for _, name := range []string{"Set", "Add", "Row", "RawData"} {
		src.DenseSubmatrix(&d, idx, pos)
		require.NoError(t, p.Validate())
		require.True(t, isSymmetric(&d, 1e-12))
		writes[name]()
		assert.EqualError(t, p.Validate(), "A[2][1]: must be finite, got NaN", name)
		src.DenseSubmatrix(&d, idx, pos)
		d.Set(2, 0, 1) // A[0][2] = 0
		assert.False(t, isSymmetric(&d, 1e-12), name)
	}
	var bad Sparse
	bad.Reset(2)
	bad.Add(0, 0, 1)
	bad.Add(1, 1, math.Inf(1))
	bad.Finish()
	bad.DenseSubmatrix(&d, []int32{0, 1}, []int32{0, 1})
	q := Problem{A: &d, B: []float64{0, 0}, Lo: []float64{0, 0}, Hi: []float64{1, 1}}
	assert.EqualError(t, q.Validate(), "A[1][1]: must be finite, got +Inf")
}
