package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A short forklift study writes every file with the expected columns, and
// two runs give identical bytes.
func TestStudyForklift(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, dir := range dirs {
		out, stderr, code := runSim(t, "study", "forklift", "--steps", "12", "--out", dir)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, "spike:")
		assert.Contains(t, out, "brick wall:")
	}
	dir := dirs[0]
	header, rows := readCSV(t, filepath.Join(dir, "summary.csv"))
	require.Equal(t, []string{"variant", "budget", "budget_hit_fraction", "mean_deviation_m", "max_deviation_m",
		"circle_fraction", "spikes", "mean_stepwise_distance_j", "max_stepwise_distance_j", "mean_stepwise_distance_hit_j",
		"spike_threshold_rad_s", "solver_failures", "exact_failures"}, header)
	require.True(t, len(rows) == 5 || len(rows) == 9, "reference + 4 picks (+ 4 at a second budget), got %d rows", len(rows))
	assert.Equal(t, []string{"reference", "0"}, rows[0][:2])
	for i, want := range []string{"last", "fb", "residual", "energy"} {
		assert.Equal(t, []string{want, "15"}, rows[1+i][:2])
	}
	for _, r := range rows {
		for _, c := range r[2:] {
			v, err := strconv.ParseFloat(c, 64)
			require.NoError(t, err, c)
			assert.GreaterOrEqual(t, v, 0.0, "%s: %s", r[0], c)
		}
	}
	assert.Equal(t, "0", rows[0][3], "the reference does not deviate from itself")

	header, srows := readCSV(t, filepath.Join(dir, "forklift-steps.csv"))
	require.Equal(t, []string{"variant", "budget", "step", "time", "x", "y", "heading", "speed",
		"w_fl", "w_fr", "w_rl", "w_rr", "iterations", "budget_hit", "stepwise_distance_j"}, header)
	assert.Len(t, srows, len(rows)*13, "steps 0..12 per run")

	header, wrows := readCSV(t, filepath.Join(dir, "wall-budgets.csv"))
	require.Equal(t, []string{"budget", "unsolved_fraction", "last_mean_distance_j", "fb_mean_distance_j",
		"residual_mean_distance_j", "energy_mean_distance_j"}, header)
	require.Len(t, wrows, 10)
	for i, r := range wrows {
		assert.Equal(t, strconv.Itoa(i+1), r[0])
	}
	header, frows := readCSV(t, filepath.Join(dir, "forklift-budgets.csv"))
	require.Equal(t, "budget", header[0])
	require.Len(t, frows, 15)
	for _, f := range []string{"forklift-fig11.png", "forklift-fig12.png", "wall-budgets.png", "forklift-budgets.png"} {
		assertPNG(t, filepath.Join(dir, f))
	}

	entries, err := os.ReadDir(dirs[0])
	require.NoError(t, err)
	for _, e := range entries {
		a, err := os.ReadFile(filepath.Join(dirs[0], e.Name()))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirs[1], e.Name()))
		require.NoError(t, err, e.Name())
		assert.True(t, string(a) == string(b), "%s differs between two runs", e.Name())
	}
}

// wallTrace.pick, which derives all budgets from one traced solve, returns
// exactly what errmeasure.Solve returns with each budget and measure.
func TestWallTracePickMatchesSolve(t *testing.T) {
	run, err := runWall(context.Background(), 4)
	require.NoError(t, err)
	var (
		sp    lcp.Sparse
		trace wallTrace
		res   lcp.Result
	)
	for k, s := range run.problems {
		p := s.problem(&sp)
		trace.solve(&lcp.BPP{}, p, wallMaxBudget)
		for b := 1; b <= wallMaxBudget; b++ {
			for _, m := range fkPicks {
				pk := errmeasure.NewPicker(m)
				_, _ = errmeasure.Solve(&res, p, &lcp.BPP{}, lcp.Settings{MaxIterations: b}, pk)
				require.Equal(t, res.X, trace.pick(m, b), "problem %d, budget %d, %s", k+1, b, m)
			}
		}
	}
}
