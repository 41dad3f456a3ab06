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
	p, s, first := regularizedWall(t, 40, 1)
	var res lcp.Result
	start := append([]lcp.State(nil), first.States...)
	var warm lcp.Result
	require.NoError(t, s.Solve(&warm, p, lcp.Settings{Start: start}))
	for k := 2; k <= lcp.SemidefiniteInherit; k++ {
		require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
	}
	before := lcp.KKTFactorizations(s)
	require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
	factored := lcp.KKTFactorizations(s) - before
	assert.True(t, lcp.KKTRegularized(s), "the tested face is still semidefinite")
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

// The same cycle on the settled 30-brick wall with the path chosen by
// flops (K̃'s factorization is the cheaper, the dual's is not dear enough
// for kktDualRatio to skip it): the Solve that tests the unshifted face
// finds it singular by its structure (Problem.RedundantRigid: bricks on
// four coplanar contact points) and enters regularized mode without
// factoring the dual A, whose factorization would meet its rounding-level
// pivot, and without refining the kept regularized factor against the
// unshifted face, where it would stall: no Solve of the cycle factors the
// dual, and the testing Solve makes the body-space attempts of an
// inherited one. The answer is that of a BPP solving every face with the
// dual's factorization (KKTPath 2), the same MLCP: w within 1e-9 of
// max|b| (both solve to refineTol a face of condition number up to 1/ε),
// and x, which on a semidefinite face is unique only up to A's null
// space, within 1e-6 of max|x| (both are the least diag(A)-norm solution
// reached from the same proximal centre, to the proximal moves' rounding).
func TestKKTUnshiftedTestSkipsDualOnRedundantFace(t *testing.T) {
	p, s, first := regularizedWall(t, 12, 0)
	var res lcp.Result
	require.True(t, p.RedundantRigid(first.States), "by its structure")
	start := append([]lcp.State(nil), first.States...)
	inherited := 0 // body-space attempts of the last inherited Solve
	for k := 1; k <= lcp.SemidefiniteInherit; k++ {
		at := lcp.KKTAttempts(s)
		require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
		inherited = lcp.KKTAttempts(s) - at
	}
	_, fb0, _, _, _ := lcp.KKTStats(s)
	at0 := lcp.KKTAttempts(s)
	require.NoError(t, s.Solve(&res, p, lcp.Settings{Start: start}))
	_, fb1, _, _, _ := lcp.KKTStats(s)
	assert.Equal(t, 1, fb1-fb0, "the unshifted face's body-space solve given up once")
	assert.Equal(t, inherited, lcp.KKTAttempts(s)-at0, "body-space attempts: those of an inherited regularized Solve, none on the unshifted face")
	assert.True(t, lcp.KKTRegularized(s), "the tested face is still semidefinite")
	assert.False(t, lcp.DualFactored(s), "a factorization of the dual A")

	var dual lcp.BPP
	lcp.KKTPath(&dual, 2)
	var ref lcp.Result
	require.NoError(t, dual.Solve(&ref, p, lcp.Settings{Start: start}))
	require.True(t, lcp.DualFactored(&dual))
	sw, sx, dw, dx := 0.0, 0.0, 0.0, 0.0
	for i := range res.W {
		sw = math.Max(sw, math.Abs(p.B[i]))
		sx = math.Max(sx, math.Abs(ref.X[i]))
		dw = math.Max(dw, math.Abs(res.W[i]-ref.W[i]))
		dx = math.Max(dx, math.Abs(res.X[i]-ref.X[i]))
	}
	t.Logf("max|Δw| %.3g of max|b| %.3g, max|Δx| %.3g of max|x| %.3g; status %v/%v, iterations %d/%d",
		dw, sw, dx, sx, res.Status, ref.Status, res.Iterations, ref.Iterations)
	assert.Equal(t, ref.Status, res.Status)
	assert.LessOrEqual(t, dw, 1e-9*sw)
	assert.LessOrEqual(t, dx, 1e-6*sx)
}

// regularizedWall returns the step MLCP of a brick wall of the given rows
// (DefaultBrickWallParams) after 60 steps, a BPP on the given KKTPath
// that has solved it cold, and that answer, found in regularized mode
// (the settled wall's face is semidefinite).
func regularizedWall(t *testing.T, rows int, path int8) (*lcp.Problem, *lcp.BPP, lcp.Result) {
	t.Helper()
	pp := scenes.DefaultBrickWallParams()
	pp.Rows = rows
	w, err := scenes.BrickWall(pp)
	require.NoError(t, err)
	p, _ := settled(t, w, 60)
	s := new(lcp.BPP)
	lcp.KKTPath(s, path)
	var first lcp.Result
	require.NoError(t, s.Solve(&first, p, lcp.Settings{}))
	require.True(t, lcp.KKTRegularized(s), "the settled wall's face is semidefinite")
	return p, s, first
}
