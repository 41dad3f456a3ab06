package lcp

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The slowest island of the 100-box random pile (the stepper's
// TestRandomBoxPile, by island): four boxes, 45 rows of a semidefinite A,
// warm-started from the stepper's index sets (the _start file: 0 free, 1
// at lower, 2 at upper). The first factorization meets a rounding-level
// pivot and the solve runs in regularized mode, where block pivots cycle
// through 12, 36, 27, 10, 32, ... infeasible rows. With the new least
// count 10 resetting the failed block pivots, the damped mode started at
// iteration 9 and solved the face of iteration 5 again: 31 iterations.
// Counting a new least count that does not halve n̄, after a failed block
// pivot, as a failure starts it at iteration 5, whose face solution is
// the damped mode's first Newton point: 27 iterations. The answer is the
// same problem's under a budget (single pivots first, then the damped
// mode): both have a natural residual within the regularized mode's
// tolerance, and their w (unique for this convex problem, whatever the
// split of the load among redundant contacts) agrees within twice it.
func TestBPPSemidefiniteCycleEndsEarly(t *testing.T) {
	p := loadProblem(t, "pile_island_step62.json")
	n := p.N()
	start := loadStart(t, "pile_island_step62_start.json", n)
	var r, ref Result
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{Start: start}))
	require.NoError(t, (&BPP{}).Solve(&ref, p, Settings{Start: start, MaxIterations: 100 + 10*n}))
	t.Logf("%d rows: %d iterations (%s); under the default budget given explicitly: %d", n, r.Iterations, r.Reason, ref.Iterations)
	require.Equal(t, Converged, r.Status, r.Reason)
	require.Equal(t, Converged, ref.Status, ref.Reason)
	assert.LessOrEqual(t, r.Iterations, 27, "iterations (27 measured; 31 with the reset)")
	assertSameW(t, p, regTol, &r, &ref)
}

// A step of the forklift scene (TestDeterminism's "forklift": 81 rows of
// a semidefinite A, warm-started from the stepper's index sets in the
// _start file). Its regularized problem is solved, the proximal centre
// moves, and the moved problem's block pivots then have to be measured
// against its own least infeasibility count: against the last problem's,
// they counted as failures, the damped mode started and the solve took 15
// iterations; counted afresh it takes 13. The answer is the same
// problem's from a cold start (every row at its lower bound): both
// converged, with the natural residual within proxAccept of the velocity
// scale (the equations are consistent to that level only, see BPP), and
// their w within twice it.
func TestBPPProximalMoveCountsAfresh(t *testing.T) {
	p := loadProblem(t, "forklift_move.json")
	n := p.N()
	start := loadStart(t, "forklift_move_start.json", n)
	var r, ref Result
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{Start: start}))
	require.NoError(t, (&BPP{}).Solve(&ref, p, Settings{}))
	t.Logf("%d rows: %d iterations (%s); from a cold start: %d (%s)", n, r.Iterations, r.Reason, ref.Iterations, ref.Reason)
	require.Equal(t, Converged, r.Status, r.Reason)
	require.Equal(t, Converged, ref.Status, ref.Reason)
	assert.LessOrEqual(t, r.Iterations, 13, "iterations (13 measured; 15 with the last problem's n̄)")
	assertSameW(t, p, proxAccept, &r, &ref)
}

// assertSameW asserts that r and ref both solve p to a natural residual
// within rel·max|b| and that their w agree within twice that.
func assertSameW(t *testing.T, p *Problem, rel float64, r, ref *Result) {
	t.Helper()
	sw := normInf(p.B)
	tol := rel * sw
	for _, res := range []*Result{r, ref} {
		assert.LessOrEqual(t, maxNaturalResidual(p, res.X, p.Residual(nil, res.X)), tol, "natural residual")
	}
	dw := maxAbsDiff(r.W, ref.W)
	t.Logf("largest difference of w: %.3g m/s (velocity scale %.3g), of x: %.3g", dw, sw, maxAbsDiff(r.X, ref.X))
	assert.LessOrEqual(t, dw, 2*tol, "w of the two paths")
}

// loadStart reads the n index sets of testdata/name (a JSON array of
// States) that a test starts its solve from.
func loadStart(t *testing.T, name string, n int) []State {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	var start []State
	require.NoError(t, json.Unmarshal(data, &start))
	require.Len(t, start, n)
	return start
}

// maxAbsDiff returns max |a_i − b_i|.
func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
