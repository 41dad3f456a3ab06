package errmeasure

import (
	"errors"
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Solve composes the caller's observer with its Picker: both see every
// iterate, and a caller's Stopper ends the solve at iterate k with the
// pick taken among iterates 1…k.
func TestSolveComposesCallerObserver(t *testing.T) {
	a, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	// The rod of the paper's Sec. 5.1.
	p := &lcp.Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	const k = 3
	var xs, ws [][]float64
	stop := lcp.NewStopper(func(it lcp.Iterate) error {
		xs = append(xs, append([]float64(nil), it.X...))
		ws = append(ws, append([]float64(nil), it.W...))
		if it.Iter == k {
			return errors.New("three sweeps are enough")
		}
		return nil
	})
	pk := NewPicker(Energy)
	var r lcp.Result
	// PGS needs dozens of sweeps on the rod at its default tolerance.
	sol, err := Solve(&r, p, &lcp.PGS{}, lcp.Settings{Observer: stop}, pk)
	require.ErrorIs(t, err, lcp.ErrStopped)
	assert.Equal(t, lcp.Stopped, sol.SolverStatus)
	assert.Equal(t, k, r.Iterations)
	require.Len(t, xs, k, "the caller's observer saw every iterate")
	assert.Equal(t, k, pk.Seen(), "the Picker saw every iterate")
	// The pick is the least energy error among the k iterates seen.
	best, bestE := 0, math.Inf(1)
	for i := range xs {
		if e := Compute(p, xs[i], ws[i], nil).Energy; e <= bestE { // ties keep the later iterate, as the Picker does
			best, bestE = i+1, e
		}
	}
	assert.Equal(t, best, sol.Picked)
	assert.Equal(t, xs[best-1], r.X)
	// 1e-15 J: the same sums in another order (Totals of the copy).
	assert.InDelta(t, bestE, sol.Totals.Energy, 1e-15)
}
