package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// SetRecordsDot6 gives the records of a run the bits of SetRecord with
// the dot products written out in component order, and its finiteness
// terms: a run with an infinite factor leaves the refill not finite, as
// SetRecord's do. The records mix first and later records of entries,
// both triangles and the diagonal, so both of sumRecord's cases run.
func TestSparseSetRecordsDot6(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	const n, runs = 12, 40
	type run struct {
		i  int
		js []int
	}
	var rs []run
	total := 0
	for range runs {
		r := run{i: rng.IntN(n)}
		for range 1 + rng.IntN(6) {
			r.js = append(r.js, rng.IntN(n))
		}
		rs = append(rs, r)
		total += len(r.js)
	}
	vec := func() (v [6]float64) {
		for c := range v {
			v[c] = rng.NormFloat64()
		}
		return v
	}
	var byRecord, byRun Sparse
	for _, s := range []*Sparse{&byRecord, &byRun} {
		s.Reset(n)
		for _, r := range rs {
			for _, j := range r.js {
				s.Add(r.i, j, 1)
			}
		}
		s.Finish()
	}
	for trial := range 2 {
		require.True(t, byRecord.Refill(n, total))
		require.True(t, byRun.Refill(n, total))
		rec := 0
		for k, r := range rs {
			u := vec()
			v := make([][6]float64, len(r.js))
			for q := range v {
				v[q] = vec()
			}
			if trial == 1 && k == runs/2 {
				v[0][3] = math.Inf(1)
			}
			for q := range v {
				x := v[q]
				byRecord.SetRecord(rec+q, u[0]*x[0]+u[1]*x[1]+u[2]*x[2]+u[3]*x[3]+u[4]*x[4]+u[5]*x[5])
			}
			byRun.AddRecordTerms(byRun.SetRecordsDot6(rec, &u, v))
			rec += len(v)
		}
		byRecord.Refilled()
		byRun.Refilled()
		for p, x := range byRecord.val {
			require.Equal(t, math.Float64bits(x), math.Float64bits(byRun.val[p]), "trial %d: slot %d", trial, p)
		}
		require.Equal(t, trial == 0, byRun.finite, "trial %d", trial)
		require.Equal(t, byRecord.finite, byRun.finite, "trial %d", trial)
	}
}
