package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The timing study runs (few steps: timings only, no assertion on speed,
// which is measured by benchmarks) and the methods end in the same state.
func TestStudyRecursiveTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 8 sizes × 3 contact cases × 4 methods")
	}
	dir := t.TempDir()
	out, stderr, code := runSim(t, "study", "recursive-timing", "--out", dir, "--steps", "20")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "slope")
	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"})
	assert.Less(t, v["max_final_q_difference"], 1e-9, "the three methods' final states")
	assert.Contains(t, v, "slope_two_on3")
	assertPNG(t, filepath.Join(dir, "recursive-timing.png"))
}

// Fig. 7's drift ratio and Fig. 8's δ_CM improvement with RK4.
func TestStudyRK4Contact(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "study", "rk4-contact", "--out", dir, "--steps", "1000")
	require.Equal(t, 0, code, stderr)
	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"})
	// Paper: ≈ 1e6 over its run; over 1 s we measure ≈ 5e7.
	assert.Greater(t, v["drift_ratio_explicit_euler_over_rk4"], 1e5)
	// Fig. 8: RK4 improves δ_CM by about 1e4.
	assert.Greater(t, v["delta_cm_euler"]/v["delta_cm_rk4"], 1e3)
	assertPNG(t, filepath.Join(dir, "rk4-contact.png"))
}
