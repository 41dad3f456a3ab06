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
	rules := []string{"last", "fb", "residual", "energy", "energy-exact",
		"last+polish5", "fb+polish5", "residual+polish5", "energy+polish5", "energy-exact+polish5"}
	require.Len(t, rows, 1+2*len(rules), "reference + 10 rules at budgets 15 and 5")
	assert.Equal(t, []string{"reference", "0"}, rows[0][:2])
	for i, want := range rules {
		assert.Equal(t, []string{want, "15"}, rows[1+i][:2])
		assert.Equal(t, []string{want, "5"}, rows[1+len(rules)+i][:2])
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
	want := []string{"budget", "unsolved_fraction"}
	for _, r := range rules {
		want = append(want, r+"_mean_distance_j")
	}
	for _, r := range rules {
		want = append(want, r+"_farther_than_last")
	}
	require.Equal(t, want, header)
	require.Len(t, wrows, 15)
	for _, r := range wrows {
		// The last iterate is never farther than itself.
		assert.Equal(t, "0", r[2+len(rules)], "budget %s", r[0])
	}
	for i, r := range wrows {
		assert.Equal(t, strconv.Itoa(i+1), r[0])
	}
	header, frows := readCSV(t, filepath.Join(dir, "forklift-budgets.csv"))
	require.Equal(t, "budget", header[0])
	require.Len(t, frows, 15)
	for _, f := range []string{"forklift-fig11.png", "forklift-fig12.png", "forklift-fig11-budget5.png", "forklift-fig12-budget5.png", "wall-budgets.png", "forklift-budgets.png"} {
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
				if m == errmeasure.EnergyExact && b != 1 && b != 3 && b != wallMaxBudget {
					continue // each such Solve inverts the wall's 564-row A: three budgets are enough to check the cached masses
				}
				pk := errmeasure.NewPicker(m)
				_, _ = errmeasure.Solve(&res, p, &lcp.BPP{}, lcp.Settings{MaxIterations: b}, pk)
				require.Equal(t, res.X, trace.pick(m, b), "problem %d, budget %d, %s", k+1, b, m)
			}
		}
	}
}
