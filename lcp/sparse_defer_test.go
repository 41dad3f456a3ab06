package lcp

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// A refilled Sparse whose values off the diagonal are put off (Defer):
// the diagonal, NNZ and Validate read without the fill; the first read
// off it (At, then concurrent RowDots, MulVecTo) runs the fill exactly
// once, and the matrix then equals the one filled at once, bit for bit
// (the same products with x); three concurrent first readers run it
// once; Refill drops a fill still pending, which then never runs, and
// Defer on a matrix not finished panics (a programming error).
func TestSparseDeferFillsOnce(t *testing.T) {
	build := func(a *Sparse, off float64) {
		a.Reset(3)
		a.Add(0, 0, 4)
		a.Add(0, 1, off)
		a.Add(1, 1, 5)
		a.Add(2, 2, 6)
		a.Add(0, 0, 0.5) // a later record of the diagonal
		a.Finish()
	}
	var eager, lazy Sparse
	build(&eager, 1.25)
	build(&lazy, 0)
	require.True(t, lazy.Refill(3, 5))
	lazy.SetRecord(0, 4)
	lazy.SetRecord(2, 5)
	lazy.SetRecord(3, 6)
	lazy.SetRecord(4, 0.5)
	lazy.Refilled()
	fills := 0
	d := &DeferredFill{Fill: func() {
		fills++
		lazy.AddRecordTerms(lazy.SetRecordPart(1, 1.25))
	}}
	lazy.Defer(d)
	for i := range 3 {
		require.Equal(t, eager.At(i, i), lazy.At(i, i), "A[%d][%d]", i, i)
	}
	require.Equal(t, eager.NNZ(), lazy.NNZ())
	p := Problem{A: &lazy, B: make([]float64, 3), Lo: make([]float64, 3), Hi: []float64{1, 1, 1}}
	require.NoError(t, p.Validate())
	require.Equal(t, []float64{4.5, 5, 6}, p.Diag(nil))
	require.Zero(t, fills, "diagonal, NNZ, Validate and Diag fill nothing")
	require.True(t, lazy.Pending())

	require.Equal(t, 1.25, lazy.At(1, 0))
	require.Equal(t, 1, fills)
	require.False(t, lazy.Pending())
	x := []float64{1, 2, 3}
	var wg sync.WaitGroup
	got := make([]float64, 3)
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = lazy.RowDot(i, x) }()
	}
	wg.Wait()
	want := make([]float64, 3)
	eager.MulVecTo(want, x)
	require.Equal(t, want, got)
	require.Equal(t, 1, fills, "one fill")

	// Concurrent first readers: one fill.
	lazy.Defer(d)
	for i := range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); got[i] = lazy.RowDot(i, x) }()
	}
	wg.Wait()
	require.Equal(t, want, got)
	require.Equal(t, 2, fills, "one fill for three concurrent readers")

	lazy.Defer(d)
	require.True(t, lazy.Refill(3, 5))
	require.False(t, lazy.Pending(), "Refill drops the fill")
	require.Panics(t, func() { lazy.Defer(d) }, "Defer on a matrix Refill opened")
	lazy.Reset(3)
	require.False(t, lazy.Pending())
	require.Equal(t, 2, fills, "dropped fills never run")
}
