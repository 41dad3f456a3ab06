package main

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// powerFit recovers an exact power law (to rounding of logs and exps:
// 1e-12) and refuses what it cannot fit.
func TestPowerFit(t *testing.T) {
	x := []float64{15, 30, 50, 100, 200}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 3 * math.Pow(v, 1.5)
	}
	p, c, err := powerFit(x, y)
	require.NoError(t, err)
	assert.InDelta(t, 1.5, p, 1e-12)
	assert.InDelta(t, 3, c, 1e-12)
	_, _, err = powerFit([]float64{10}, []float64{1})
	assert.ErrorContains(t, err, "1 points, need 2")
	_, _, err = powerFit([]float64{10, 10}, []float64{1, 2})
	assert.ErrorContains(t, err, "all x equal")
	_, _, err = powerFit([]float64{10, 20}, []float64{1, 0})
	assert.ErrorContains(t, err, "point 1 (20, 0) is not positive")
	assert.Equal(t, 2.0, median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}))
}

// `sim study scaling` writes one row per size, every scene stands without
// a budget hit, and the summary has a finite exponent per scene and series.
// Two steps per size (step 1 and one more) keep it short; the measured
// times themselves are not asserted (CPU time on a shared machine).
func TestStudyScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("steps walls of up to 200 bricks")
	}
	dir := t.TempDir()
	out, stderr, code := runSim(t, "study", "scaling", "--steps", "2", "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "brickwall: time ∝ bricks^p")

	header, rows := readCSV(t, filepath.Join(dir, "scaling.csv"))
	require.Equal(t, []string{"scene", "bricks", "rows", "step1_ms", "steady_ms", "mean_ms", "iterations_mean",
		"iterations_max", "budget_hits", "max_displacement_m", "stands"}, header)
	require.Len(t, rows, len(scalingCases))
	for i, r := range rows {
		c := scalingCases[i]
		assert.Equal(t, c.scene, r[0])
		assert.Equal(t, strconv.Itoa(c.bricks), r[1])
		assert.Equal(t, "0", r[8], "%s %s: budget hits", r[0], r[1])
		assert.Equal(t, "1", r[10], "%s %s stands", r[0], r[1])
	}
	// Three rows per brick-wall contact point: 564 at 30 bricks (Fig. 8).
	assert.Equal(t, "564", rows[1][2])
	_, steps := readCSV(t, filepath.Join(dir, "steps.csv"))
	assert.Len(t, steps, 2*len(scalingCases))

	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value"})
	assert.Equal(t, 1.0, v["all_stand"])
	assert.Equal(t, 0.0, v["budget_hits"])
	for _, sc := range []string{"brickwall", "pyramid"} {
		for _, s := range []string{"step1", "steady", "mean"} {
			p, ok := v[sc+"_"+s+"_exponent"]
			assert.True(t, ok && !math.IsNaN(p) && !math.IsInf(p, 0), "%s %s exponent %v", sc, s, p)
		}
	}
	assertPNG(t, filepath.Join(dir, "scaling.png"))
}
