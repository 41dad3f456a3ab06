package lcp

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomCliques returns nc random cliques on n rows: ascending, with
// repeated indices (a row naming a body twice) and rows in no clique.
func randomCliques(rng *rand.Rand, n, nc int) [][]int32 {
	cl := make([][]int32, nc)
	for c := range cl {
		m := rng.IntN(9)
		for range m {
			r := int32(rng.IntN(n - 3)) // rows n−3…n−1 in no clique
			cl[c] = append(cl[c], r)
			if rng.IntN(8) == 0 {
				cl[c] = append(cl[c], r)
			}
		}
		slices.Sort(cl[c])
	}
	return cl
}

// addCliques makes the records of cliques (see ResetCliques) by Reset,
// Add and Finish, with the values v.
func addCliques(s *Sparse, n int, cliques [][]int32, diag bool, v []float64) {
	s.Reset(n)
	t := 0
	for _, l := range cliques {
		first := 0
		for p := range l {
			if p > 0 && l[p] != l[p-1] {
				first = p
			}
			for _, w := range l[first:] {
				s.Add(int(l[p]), int(w), v[t])
				t++
			}
		}
	}
	if diag {
		for i := range n {
			s.Add(i, i, v[t])
			t++
		}
	}
	s.Finish()
}

// randomRecordValues returns n normal values with −0, +Inf and NaN among
// them (about one in 40 each).
func randomRecordValues(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for k := range v {
		v[k] = rng.NormFloat64()
		switch rng.IntN(40) {
		case 0:
			v[k] = math.Copysign(0, -1)
		case 1:
			v[k] = math.Inf(1)
		case 2:
			v[k] = math.NaN()
		}
	}
	return v
}

// refillRecords gives s's records (opened by Refill, ResetCliques or
// resetKKT) the values v in order and finishes it.
func refillRecords(s *Sparse, v []float64) {
	for k, x := range v {
		s.SetRecord(k, x)
	}
	s.Refilled()
}

// requireSameSparse requires the same pattern, diagonal slots, values
// (bit for bit) and finiteness.
func requireSameSparse(t *testing.T, want, got *Sparse, msg string) {
	t.Helper()
	require.Equal(t, want.ptr, got.ptr, msg)
	require.Equal(t, want.col, got.col, msg)
	require.Equal(t, want.dslot, got.dslot, msg)
	require.Len(t, got.val, len(want.val), msg)
	for p, x := range want.val {
		require.Equal(t, math.Float64bits(x), math.Float64bits(got.val[p]), "%s: slot %d", msg, p)
	}
	require.Equal(t, want.finite, got.finite, msg)
}

// ResetCliques and SetRecord give the pattern, the diagonal slots and the
// bits of Reset, the cliques' Add calls and Finish (random cliques with
// repeated indices and rows in no clique, with and without the diagonal,
// −0, NaN and ±Inf among the values), and keep the pattern as Finish
// does: the next Refill of that many records refills it, Add calls after
// Refilled sum onto the values, the same calls by Add are finished into
// the kept pattern (version unchanged), a new pattern moves version, and
// the calls of the pattern a Finish kept before the cliques are
// compressed afresh.
func TestSparseResetCliques(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	for trial := range 40 {
		n := 4 + rng.IntN(30)
		cliques := randomCliques(rng, n, rng.IntN(12))
		diag := trial%4 != 3
		var s, ref Sparse
		nrec := s.ResetCliques(n, cliques, diag)
		v := randomRecordValues(rng, nrec)
		refillRecords(&s, v)
		addCliques(&ref, n, cliques, diag, v)
		require.Len(t, ref.tv, nrec, "trial %d: the record count", trial)
		requireSameSparse(t, &ref, &s, "first fill")
		ver := s.version

		// A refill of the same records.
		require.True(t, s.Refill(n, nrec), "trial %d", trial)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		for k, x := range v {
			s.SetRecord(k, x)
		}
		s.Refilled()
		addCliques(&ref, n, cliques, diag, v)
		requireSameSparse(t, &ref, &s, "refill")

		// The same calls by Add: the kept pattern, the same version.
		var again Sparse
		again.ResetCliques(n, cliques, diag)
		for k, x := range v {
			again.SetRecord(k, x)
		}
		again.Refilled()
		ver2 := again.version
		addCliques(&again, n, cliques, diag, v)
		requireSameSparse(t, &ref, &again, "Add calls into the kept pattern")
		assert.Equal(t, ver2, again.version, "trial %d: the same pattern", trial)
		assert.True(t, again.Refill(n, nrec), "trial %d: kept", trial)
		again.Refilled()

		// An Add after Refilled sums onto the refilled values.
		var added Sparse
		added.ResetCliques(n, cliques, diag)
		for k, x := range v {
			added.SetRecord(k, x)
		}
		added.Refilled()
		added.Add(0, n-1, 2.5)
		added.Finish()
		ref.Reset(n)
		addCliques(&ref, n, cliques, diag, v)
		ref.Add(0, n-1, 2.5)
		ref.Finish()
		requireSameSparse(t, &ref, &added, "Add after Refilled")

		// Another pattern: a new version, and no refill of the old count.
		other := randomCliques(rng, n, 3+rng.IntN(5))
		other = append(other, []int32{0, int32(n - 1)})
		if nr := s.ResetCliques(n, other, diag); nr != nrec {
			assert.False(t, s.Refill(n, nrec))
		}
		assert.NotEqual(t, ver, s.version, "trial %d: another pattern", trial)

		// The calls of an older pattern, kept by Finish before the
		// cliques replaced it, are compressed afresh.
		again.ResetCliques(n, other, diag)
		addCliques(&again, n, cliques, diag, v)
		addCliques(&ref, n, cliques, diag, v)
		requireSameSparse(t, &ref, &again, "an older pattern's calls after ResetCliques")
	}
}

// ResetCliques panics on a clique that is not ascending within [0, n)
// and on a negative size, as Add on an index out of range.
func TestSparseResetCliquesProgrammingErrors(t *testing.T) {
	var s Sparse
	require.PanicsWithValue(t, "lcp: Sparse.ResetCliques: clique 1: index 1 = 0 is not ascending within [0, 3)",
		func() { s.ResetCliques(3, [][]int32{{0, 2}, {1, 0}}, true) })
	require.PanicsWithValue(t, "lcp: Sparse.ResetCliques: clique 0: index 0 = 3 is not ascending within [0, 3)",
		func() { s.ResetCliques(3, [][]int32{{3}}, true) })
	require.PanicsWithValue(t, "lcp: Sparse.ResetCliques: dimension -1 outside [0, 2³¹−1]",
		func() { s.ResetCliques(-1, nil, true) })
}

// ResetCliquesLazy with the diagonal's records set reads as ResetCliques
// with every record set on what it keeps (NNZ, At(i, i), Problem.Diag's
// bits, finiteness of the diagonal) without building the pattern; a
// pattern reader (ensurePattern) builds it keeping the diagonal and the
// pending fill; the Deferred fill then gives ResetCliques' pattern,
// slots and bits (random cliques with repeats and rows in no clique, −0,
// NaN and ±Inf among the diagonal's values, as Defer asks the others
// finite); a record off the diagonal set before the pattern builds it,
// giving ResetCliques' bits; a Refill of a lazy matrix stays lazy; the
// version moves for new cliques and stays for the same ones.
func TestSparseResetCliquesLazy(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	for trial := range 40 {
		n := 4 + rng.IntN(30)
		cliques := randomCliques(rng, n, rng.IntN(12))
		diag := trial%4 != 3
		var ref, s Sparse
		nrec := ref.ResetCliques(n, cliques, diag)
		ti, tj := ref.expandRecords(nil, nil)
		v := randomRecordValues(rng, nrec)
		for k, x := range v {
			if ti[k] != tj[k] && (math.IsNaN(x) || math.IsInf(x, 0)) {
				v[k] = 1.5 // Defer: the caller vouches these finite
			}
		}
		refillRecords(&ref, v)

		require.Equal(t, nrec, s.ResetCliquesLazy(n, cliques, diag), "trial %d", trial)
		require.True(t, s.lazy)
		off := -1
		for k := range v {
			if ti[k] == tj[k] {
				s.SetRecord(k, v[k])
			} else if off < 0 {
				off = k
			}
		}
		if off >= 0 {
			// A fill that sets every record without BuildPattern: the
			// first record off the diagonal builds the pattern, and the
			// matrix has ResetCliques' bits (on another matrix, s stays
			// lazy below).
			var e Sparse
			e.ResetCliquesLazy(n, cliques, diag)
			for k, x := range v {
				e.SetRecord(k, x)
				require.Equal(t, k < off, e.lazy, "trial %d: record %d (first off the diagonal %d)", trial, k, off)
			}
			e.Refilled()
			requireSameSparse(t, &ref, &e, "lazy, every record set")
			require.Equal(t, ref.slots, e.slots, "trial %d: the records' slots", trial)
		}
		s.Refilled()
		fills := 0
		d := &DeferredFill{Fill: func() {
			fills++
			for k, x := range v {
				s.SetRecordPart(k, x)
			}
		}}
		s.Defer(d)
		require.Equal(t, ref.NNZ(), s.NNZ(), "trial %d", trial)
		for i := range n {
			require.Equal(t, math.Float64bits(ref.At(i, i)), math.Float64bits(s.At(i, i)), "trial %d: A[%d][%d]", trial, i, i)
		}
		pr, ps := Problem{A: &ref}, Problem{A: &s}
		require.Equal(t, bitsOf(pr.Diag(nil)), bitsOf(ps.Diag(nil)), "trial %d", trial)
		require.True(t, s.lazy, "trial %d: nothing read off the diagonal", trial)
		if trial%2 == 0 {
			s.ensurePattern()
			require.False(t, s.lazy)
			require.True(t, s.Pending(), "trial %d: the fill stays put off", trial)
			require.Equal(t, ref.ptr, s.ptr)
			require.Equal(t, ref.col, s.col)
			require.Equal(t, ref.dslot, s.dslot)
			for i := range n {
				require.Equal(t, math.Float64bits(ref.At(i, i)), math.Float64bits(s.At(i, i)), "trial %d: A[%d][%d] kept", trial, i, i)
			}
		}
		s.FillPending()
		require.Equal(t, 1, fills)
		requireSameSparse(t, &ref, &s, "lazy, then filled")
		require.Equal(t, ref.slots, s.slots, "trial %d: the records' slots", trial)

		// The same cliques lazily again: the same version; a Refill stays
		// lazy, and its fill gives the bits again.
		ver := s.version
		s.ResetCliquesLazy(n, cliques, diag)
		require.Equal(t, ver, s.version, "trial %d: the same cliques", trial)
		for k := range v {
			if ti[k] == tj[k] {
				s.SetRecord(k, v[k])
			}
		}
		s.Refilled()
		require.True(t, s.Refill(n, nrec))
		require.True(t, s.lazy)
		for k := range v {
			if ti[k] == tj[k] {
				s.SetRecord(k, v[k])
			}
		}
		s.Refilled()
		s.Defer(d)
		s.FillPending()
		requireSameSparse(t, &ref, &s, "lazy refill, then filled")
		require.Equal(t, ver, s.version, "trial %d: the same pattern", trial)

		// Other cliques: a new version.
		other := append(randomCliques(rng, n, 3), []int32{0, int32(n - 1)})
		s.ResetCliquesLazy(n, other, diag)
		require.NotEqual(t, ver, s.version, "trial %d: other cliques", trial)
	}
}

// bitsOf returns the bits of each value of v.
func bitsOf(v []float64) []uint64 {
	b := make([]uint64, len(v))
	for k, x := range v {
		b[k] = math.Float64bits(x)
	}
	return b
}

// WriteProblem of an A whose values off the diagonal, and with
// ResetCliquesLazy its pattern, are put off (Defer) writes the filled
// matrix: every entry of the read-back A equals the eagerly filled one's
// (the 16 316 entries off the diagonal of a 6-row brick wall's step-1 dump
// were written as 0 when the dump skipped the fill).
func TestWriteProblemFillsADeferredA(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 13))
	n := 20
	cliques := [][]int32{{0, 1, 2, 5}, {2, 3, 4, 5, 6}, {6, 7, 8, 9, 10, 19}, {11, 12, 13}, {13, 14, 15, 16, 17, 18}}
	for _, lazy := range []bool{false, true} {
		var ref, s Sparse
		nrec := ref.ResetCliques(n, cliques, true)
		ti, tj := ref.expandRecords(nil, nil)
		v := make([]float64, nrec)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		refillRecords(&ref, v)
		if lazy {
			s.ResetCliquesLazy(n, cliques, true)
		} else {
			s.ResetCliques(n, cliques, true)
		}
		for k := range v {
			if ti[k] == tj[k] {
				s.SetRecord(k, v[k])
			}
		}
		s.Refilled()
		s.Defer(&DeferredFill{Fill: func() {
			for k, x := range v {
				s.SetRecordPart(k, x)
			}
		}})
		lo, hi, b := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			lo[i], hi[i], b[i] = math.Inf(-1), math.Inf(1), rng.NormFloat64()
		}
		var out strings.Builder
		require.NoError(t, WriteProblem(&out, &Problem{A: &s, B: b, Lo: lo, Hi: hi}))
		p, err := ReadProblem(strings.NewReader(out.String()))
		require.NoError(t, err)
		for i := range n {
			for j := range n {
				require.Equal(t, ref.At(i, j), p.A.At(i, j), "lazy %v: A[%d][%d]", lazy, i, j)
			}
		}
	}
}
