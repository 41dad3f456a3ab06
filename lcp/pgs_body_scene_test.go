package lcp_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/require"
)

// The user's case of PGS.BodySpace: the MLCP of step 1 of a 55-brick
// pyramid of free bricks at rest (the scene's defaults, h = 1/60 s,
// friction rows boxed by μ), whose KKT the stepper assembles. 30 sweeps
// in body space (no early stop) give A's sweeps' x within 1e-9 of max|x|
// (the rows' products regrouped, rounding per operation; the measured
// difference is logged), and w = A x + b within 1e-9 of max|b|·max|x|.
func TestPGSBodySpacePyramidAsA(t *testing.T) {
	pp := scenes.DefaultPyramidParams()
	pp.Base = 10
	w, err := scenes.Pyramid(pp)
	require.NoError(t, err)
	_, err = w.Step()
	require.NoError(t, err)
	p := w.LastProblem()
	require.NotNil(t, p)
	require.True(t, p.KKTAssembled, "the stepper's problem carries its KKT")

	set := lcp.Settings{MaxIterations: 30, Tolerance: 1e-300}
	var ra, rb lcp.Result
	require.NoError(t, (&lcp.PGS{}).Solve(&ra, p, set))
	require.NoError(t, (&lcp.PGS{BodySpace: true}).Solve(&rb, p, set))
	require.Equal(t, 30, rb.Iterations)

	xs, ws := 1.0, 1.0
	for i := range ra.X {
		xs = math.Max(xs, math.Abs(ra.X[i]))
		ws = math.Max(ws, math.Abs(p.B[i]))
	}
	aw := p.Residual(nil, rb.X)
	worst := 0.0
	for i := range ra.X {
		d := math.Abs(ra.X[i] - rb.X[i])
		worst = math.Max(worst, d/xs)
		require.LessOrEqual(t, d, 1e-9*xs, "x[%d]", i)
		require.InDelta(t, aw[i], rb.W[i], 1e-9*ws*xs, "w[%d] is A x + b", i)
		require.GreaterOrEqual(t, rb.X[i], p.Lo[i], "x[%d] within its bounds", i)
		require.LessOrEqual(t, rb.X[i], p.Hi[i], "x[%d] within its bounds", i)
	}
	t.Logf("%d rows: body-space sweeps against A's, largest |Δx| %.3g of max|x| = %.3g", p.N(), worst, xs)
}
