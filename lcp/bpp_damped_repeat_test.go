package lcp

import (
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The damped mode's steps from one face solution, taken without solving
// that face again while the next face is the same one (dampedSteps), give
// the same damped points as a face solve after every step: on the
// 480-row wall problem of TestBPPDampedModeEndsACrawl (positive definite:
// single pivots, then the damped mode) and on the pile's island of
// TestBPPSemidefiniteSkipsSinglePivots (semidefinite, without and with
// the single pivots) the answer is the same bits (x, w, index sets,
// status), in fewer iterations (face solves) overall.
func TestBPPDampedStepsSkipRepeatedFaces(t *testing.T) {
	wall := crawlWall()
	pile := loadProblem(t, "pile_landing_island.json")
	cases := []struct {
		name string
		p    *Problem
		set  Settings
	}{
		{"wall", wall, Settings{}},
		{"pile island", pile, Settings{}},
		{"pile island, single pivots first", pile, Settings{MaxIterations: 100 + 10*pile.N()}},
	}
	sumEvery, sumSkip := 0, 0
	for _, c := range cases {
		var every, skip Result
		require.NoError(t, (&BPP{dampedRepeat: 1}).Solve(&every, c.p, c.set), c.name)
		require.NoError(t, (&BPP{}).Solve(&skip, c.p, c.set), c.name)
		t.Logf("%s: face solve after every damped step: %d iterations; repeated faces skipped: %d", c.name, every.Iterations, skip.Iterations)
		require.Equal(t, Converged, skip.Status, skip.Reason)
		assert.Equal(t, every.Status, skip.Status, c.name)
		assert.Equal(t, every.X, skip.X, "%s: x, bit for bit", c.name)
		assert.Equal(t, every.W, skip.W, "%s: w, bit for bit", c.name)
		assert.Equal(t, every.States, skip.States, c.name)
		assert.LessOrEqual(t, skip.Iterations, every.Iterations, c.name)
		sumEvery += every.Iterations
		sumSkip += skip.Iterations
	}
	assert.Less(t, sumSkip, sumEvery, "iterations over the three solves")
}

// loadProblem reads a problem of testdata.
func loadProblem(t *testing.T, name string) *Problem {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	require.NoError(t, err)
	defer f.Close()
	p, err := ReadProblem(f)
	require.NoError(t, err)
	return p
}

// An island of the 100-box random pile (the stepper's TestRandomBoxPile)
// on the step a box lands on it: 45 rows (15 contact points with box
// friction) of a semidefinite A, on which block pivots stall in
// regularized mode. Solved without a budget, the damped mode starts as
// soon as they stall; under the default budget given explicitly (100 +
// 10 n), single pivots come first, as before. Both reach the same
// velocities w (unique for this convex problem, whatever the split of the
// load among redundant contacts) to the regularized mode's tolerance.
func TestBPPSemidefiniteSkipsSinglePivots(t *testing.T) {
	p := loadProblem(t, "pile_landing_island.json")
	n := p.N()
	var damped, singles Result
	require.NoError(t, (&BPP{}).Solve(&damped, p, Settings{}))
	require.NoError(t, (&BPP{}).Solve(&singles, p, Settings{MaxIterations: 100 + 10*n}))
	t.Logf("%d rows: %d iterations (damped at once), %d (single pivots first)", n, damped.Iterations, singles.Iterations)
	require.Equal(t, Converged, damped.Status, damped.Reason)
	require.Equal(t, Converged, singles.Status, singles.Reason)
	// Measured 30 and 80.
	assert.LessOrEqual(t, damped.Iterations, 40, "iterations, damped at once")
	assert.GreaterOrEqual(t, singles.Iterations, 2*damped.Iterations, "iterations, single pivots first")
	sw := normInf(p.B)
	tol := regTol * sw // the regularized mode's tolerance on the true residual
	for _, r := range []*Result{&damped, &singles} {
		res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
		assert.LessOrEqual(t, res, tol, "natural residual")
	}
	dw := 0.0
	for i := range damped.W {
		dw = math.Max(dw, math.Abs(damped.W[i]-singles.W[i]))
	}
	t.Logf("largest difference of w: %.3g m/s (velocity scale %.3g)", dw, sw)
	assert.LessOrEqual(t, dw, 2*tol, "w of the two paths")
}
