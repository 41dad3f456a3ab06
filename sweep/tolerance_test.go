package sweep

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tolSeen is a solver that records the lcp.Settings.Tolerance of every
// solve it is handed.
type tolSeen struct {
	lcp.Solver
	seen map[float64]int
}

func (s *tolSeen) Solve(dst *lcp.Result, p *lcp.Problem, set lcp.Settings) error {
	s.seen[set.Tolerance]++
	return s.Solver.Solve(dst, p, set)
}

// A job's Tolerance is the solver's, set as a Go user sets it,
// stepper.Settings.Tolerance: every solve of the step's solver is handed
// it (counted on the push scene, island by island), a job at 1e-10 gives
// the trajectory of a world with Settings.Tolerance 1e-10 bit for bit and
// another E than the default's (the tripod's semidefinite solves end
// their damped tail at 1e-10·s_w instead of 1e-6·s_w; docs/calibration.md
// measures E differing up to 1.22× and 1.85× at h), and its key differs
// (TestJobKey). A tolerance outside [0, 1) is refused, by the job and by
// stepper.Settings.Validate.
func TestJobTolerance(t *testing.T) {
	s := readShipped(t)
	jobs, err := s.jobsForSolvers([][]float64{{0.2, 0.6, 0.35, 0.025}}, []int{2}, []string{"bpp"}, "test")
	require.NoError(t, err)
	def := jobs[0]
	def.Trajectory = true
	tight := def
	tight.Tolerance = 1e-10
	rd, err := Run(&def)
	require.NoError(t, err)
	rt, err := Run(&tight)
	require.NoError(t, err)
	t.Logf("E at the default tolerance %.4g, at 1e-10 %.4g", rd.E, rt.E)
	assert.NotEqual(t, rd.E, rt.E, "the tolerance reaches the solver")

	sc, err := scenes.Lookup(def.Scene)
	require.NoError(t, err)
	w, err := sc.Build(def.Set)
	require.NoError(t, err)
	rec := &tolSeen{Solver: &lcp.BPP{}, seen: map[float64]int{}}
	w.Settings.Solver, w.Settings.Tolerance = rec, 1e-10
	for i := 1; i <= def.Steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	t.Logf("solves by tolerance: %v", rec.seen)
	assert.Equal(t, []float64{1e-10}, keysOf(rec.seen), "every solve of Settings.Solver gets Settings.Tolerance")
	assert.Positive(t, rec.seen[1e-10])
	last := rt.Trajectory[len(rt.Trajectory)-1]
	w2, err := sc.Build(def.Set)
	require.NoError(t, err)
	w2.Settings.Solver, err = NewSolver("bpp")
	require.NoError(t, err)
	w2.Settings.Tolerance = 1e-10
	for i := 1; i <= def.Steps; i++ {
		_, err := w2.Step()
		require.NoError(t, err)
	}
	b2 := w2.Bodies[def.Body]
	assert.Equal(t, last.Q, [3]float64{b2.Pos[0], b2.Pos[1], 2 * math.Atan2(b2.Rot.V[2], b2.Rot.W)}, "the job is the Go user's world")

	var re *RefusedError
	for _, tol := range []float64{-1e-9, 1, math.NaN(), math.Inf(1)} {
		bad := def
		bad.Tolerance = tol
		_, err := RunContext(context.Background(), &bad, Limits{})
		require.ErrorAs(t, err, &re, "tolerance %v", tol)
		assert.Contains(t, err.Error(), "tolerance: must be ≥ 0 and < 1", "tolerance %v", tol)
		set := stepper.Settings{H: 0.01, Tolerance: tol}
		assert.ErrorContains(t, set.Validate(), "Tolerance", "tolerance %v", tol)
	}
}

func keysOf(m map[float64]int) []float64 {
	var out []float64
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
