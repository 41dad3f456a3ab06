package lcp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomKKTBodies returns n rows' bodies among nb: none, one (in either
// slot) or two different ones, in either order.
func randomKKTBodies(rng *rand.Rand, n, nb int) [][2]int32 {
	body := make([][2]int32, n)
	for i := range body {
		b0, b1 := int32(rng.IntN(nb+1))-1, int32(rng.IntN(nb+1))-1
		if b0 == b1 {
			b1 = -1
		}
		body[i] = [2]int32{b0, b1}
	}
	return body
}

// addKKT makes the records of resetKKT's list for body and nb by Reset,
// Add and Finish, with the values v.
func addKKT(s *Sparse, body [][2]int32, nb int, v []float64) {
	n := len(body)
	s.Reset(n + 6*nb)
	t := 0
	for i, bs := range body {
		s.Add(i, i, v[t])
		t++
		for _, b := range bs {
			if b < 0 {
				continue
			}
			for c := range 6 {
				s.Add(i, n+6*int(b)+c, v[t])
				t++
			}
		}
	}
	for b := range nb {
		col := n + 6*b
		for r := range 6 {
			for c := r; c < 6; c++ {
				s.Add(col+r, col+c, v[t])
				t++
			}
		}
	}
	s.Finish()
}

// resetKKT and SetRecord give the pattern, the diagonal slots and the
// bits of Reset, the records' Add calls and Finish (random rows on no,
// one or two bodies in either slot order, bodies without rows, −0, NaN
// and ±Inf among the values), and keep the pattern as Finish does: the
// next Refill of that many records refills it, an Add after Refilled sums
// onto the values, the same calls by Add are finished into the kept
// pattern (version unchanged), and another layout moves version.
func TestSparseResetKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	for trial := range 40 {
		n, nb := 1+rng.IntN(30), rng.IntN(6)
		if trial == 0 {
			nb = 0 // rows on no body
		}
		body := randomKKTBodies(rng, n, nb)
		var s, ref Sparse
		nrec := s.resetKKT(body, nb)
		v := randomRecordValues(rng, nrec)
		refillRecords(&s, v)
		addKKT(&ref, body, nb, v)
		require.Len(t, ref.tv, nrec, "trial %d: the record count", trial)
		requireSameSparse(t, &ref, &s, "first fill")
		ver := s.version

		// A refill of the same records.
		require.True(t, s.Refill(n+6*nb, nrec), "trial %d", trial)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		refillRecords(&s, v)
		addKKT(&ref, body, nb, v)
		requireSameSparse(t, &ref, &s, "refill")
		assert.Equal(t, ver, s.version, "trial %d: a refill keeps the pattern", trial)

		// The same calls by Add: the kept pattern, the same version.
		var again Sparse
		again.resetKKT(body, nb)
		refillRecords(&again, v)
		ver2 := again.version
		addKKT(&again, body, nb, v)
		requireSameSparse(t, &ref, &again, "Add calls into the kept pattern")
		assert.Equal(t, ver2, again.version, "trial %d: the same pattern", trial)
		assert.True(t, again.Refill(n+6*nb, nrec), "trial %d: kept", trial)
		again.Refilled()

		// An Add after Refilled sums onto the refilled values.
		var added Sparse
		added.resetKKT(body, nb)
		refillRecords(&added, v)
		added.Add(0, n+6*nb-1, 2.5)
		added.Finish()
		ref.Reset(n + 6*nb)
		addKKT(&ref, body, nb, v)
		ref.Add(0, n+6*nb-1, 2.5)
		ref.Finish()
		requireSameSparse(t, &ref, &added, "Add after Refilled")

		// Another layout: a new version, and cliques after it describe
		// their own records.
		other := randomKKTBodies(rng, n, nb)
		other[0] = [2]int32{-1, -1}
		body[0] = [2]int32{0, -1}
		if nb == 0 {
			continue
		}
		s.resetKKT(body, nb)
		s.Refilled()
		ver = s.version
		s.resetKKT(other, nb)
		s.Refilled()
		assert.NotEqual(t, ver, s.version, "trial %d: another layout", trial)
		var cl, clRef Sparse
		cl.resetKKT(other, nb)
		cl.Refilled()
		cliques := [][]int32{{0, 1}}
		m := cl.ResetCliques(2, cliques, true)
		w := []float64{1, 2, 3, 4, 5}[:m]
		refillRecords(&cl, w)
		cl.Add(0, 1, 1) // writes the cliques' records out, not the KKT's
		cl.Finish()
		addCliques(&clRef, 2, cliques, true, w)
		clRef.Add(0, 1, 1)
		clRef.Finish()
		requireSameSparse(t, &clRef, &cl, "cliques after resetKKT")
	}
}

// resetKKT panics on a body outside [−1, nb) and on a row naming one
// body twice, as Add on an index out of range.
func TestSparseResetKKTProgrammingErrors(t *testing.T) {
	var s Sparse
	require.PanicsWithValue(t, "lcp: Sparse.resetKKT: row 1: body 2 outside [−1, 2)",
		func() { s.resetKKT([][2]int32{{0, 1}, {2, -1}}, 2) })
	require.PanicsWithValue(t, "lcp: Sparse.resetKKT: row 0: body -2 outside [−1, 2)",
		func() { s.resetKKT([][2]int32{{-2, 1}}, 2) })
	require.PanicsWithValue(t, "lcp: Sparse.resetKKT: row 0 names body 1 twice",
		func() { s.resetKKT([][2]int32{{1, 1}}, 2) })
}
