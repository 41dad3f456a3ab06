package lcp_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Warm-started Solves of a settled 100-brick wall's last MLCP, whose face
// is semidefinite (stacked bricks: dependent normal rows), on the
// body-space path: the first finds the face singular and solves it in
// regularized mode; the next SemidefiniteInherit start in that mode, and
// the one after tests the unshifted face again. That test refines with
// the regularized solve's factor (K̃'s factor is worth keeping stale on
// this wall) instead of factoring the unshifted K̃, fails at once on the
// singular face, and the regularized solve that follows keeps the same
// factor: the testing Solve factors nothing (it factored K̃ twice, once
// unshifted and once shifted, when a shift change dropped the factor). Its
// answer is the first Solve's: the same status, w within 1e-9 of max|b|
// (rounding of two solves to refineTol of a face with condition number up
// to 1/ε; measured 0) and the iterations of the first warm-started Solve
// within one (measured 2 and 2).
func TestKKTUnshiftedTestKeepsRegularizedFactor(t *testing.T) {
	if testing.Short() {
		t.Skip("settles the 100-brick wall")
	}
	pp := scenes.DefaultBrickWallParams()
	pp.Rows = 40
	w, err := scenes.BrickWall(pp)
	require.NoError(t, err)
	p, _ := settled(t, w, 60)
	var s lcp.BPP
	lcp.KKTPath(&s, 1)
	var first, res lcp.Result
	require.NoError(t, s.Solve(&first, p, lcp.Settings{}))
	require.True(t, lcp.KKTRegularized(&s), "the settled wall's face is semidefinite")
	start := append([]lcp.State(nil), first.States...)
	var warm lcp.Result
	require.NoError(t, s.Solve(&warm, p, lcp.Settings{Start: start}))
	for k := 2; k <= lcp.SemidefiniteInherit; k++ {
		require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
	}
	before := lcp.KKTFactorizations(&s)
	require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
	factored := lcp.KKTFactorizations(&s) - before
	assert.True(t, lcp.KKTRegularized(&s), "the tested face is still semidefinite")
	assert.Zero(t, factored, "factorizations of the Solve that tests the unshifted face")
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	dw := 0.0
	for i := range res.W {
		dw = math.Max(dw, math.Abs(res.W[i]-first.W[i]))
	}
	t.Logf("iterations %d (first warm-started Solve %d), max|Δw| %.3g of max|b| %.3g", res.Iterations, warm.Iterations, dw, sw)
	assert.Equal(t, first.Status, res.Status)
	assert.LessOrEqual(t, dw, 1e-9*sw)
	assert.InDelta(t, warm.Iterations, res.Iterations, 1)
}
