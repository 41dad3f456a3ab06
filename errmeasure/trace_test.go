package errmeasure

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/lcp"
)

// Two decoupled contact rows, a = 2 and 4, pushed in at b = −2 and −4:
// E₀ = 4/4 + 16/8 = 3 J; the solution x = (1, 1) has no error.
func TestTraceSolve(t *testing.T) {
	a := lcp.NewDense(2, 2, nil)
	a.Set(0, 0, 2)
	a.Set(1, 1, 4)
	inf := math.Inf(1)
	p := &lcp.Problem{A: a, B: []float64{-2, -4}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
	assert.Equal(t, 3.0, FreeEnergy(p))
	assert.Equal(t, 1.0, FreeEnergy(&lcp.Problem{A: a, B: []float64{0, 0}, Lo: p.Lo, Hi: p.Hi}), "at rest")

	pgs, err := lcp.New("pgs")
	require.NoError(t, err)
	tr := TraceSolve(context.Background(), p, pgs, 10)
	assert.Equal(t, lcp.Converged.String(), tr.Status)
	require.NotEmpty(t, tr.Curve)
	require.Len(t, tr.CurveIter, len(tr.Curve))
	assert.Equal(t, 1, tr.CurveIter[0])
	assert.InDelta(t, 0, tr.Final.Energy, 1e-12)
	assert.InDelta(t, 0, tr.Final.FB, 1e-12)
}
