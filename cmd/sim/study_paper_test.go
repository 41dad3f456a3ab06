package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// summaryValues reads a summary.csv into quantity → value.
func summaryValues(t *testing.T, path string, header []string) map[string]float64 {
	t.Helper()
	h, rows := readCSV(t, path)
	require.Equal(t, header, h)
	out := map[string]float64{}
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[1], 64)
		require.NoError(t, err, r[0])
		_, dup := out[r[0]]
		require.False(t, dup, "quantity %s twice", r[0])
		out[r[0]] = v
	}
	return out
}

func assertPNG(t *testing.T, path string) {
	t.Helper()
	png, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")), "PNG signature of %s", path)
}

// The rod study reproduces Eq. 26, the exact solution and the paper's
// energy errors of §5.1 from the scene's first step.
func TestStudyRod(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runSim(t, "study", "rod", "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "energy_total_approx")

	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"})
	for _, c := range []struct {
		q         string
		want, tol float64
	}{
		{"A11", 1, 1e-12}, {"A12", -0.5, 1e-12}, {"A22", 1, 1e-12},
		{"b1", -0.2981, 1e-12}, {"b2", 0.1019, 1e-12},
		{"x1", 0.32953, 5e-6}, {"x2", 0.06287, 5e-6},
		{"meff_exact1", 4.0 / 3, 1e-12}, {"meff_exact2", 4.0 / 3, 1e-12},
		// The paper's pair, w = [b1, 0] (§5.1): 4.44e-2 + 5.2e-3 = 4.96e-2 J.
		{"energy1_approx", 4.44e-2, 1e-4}, {"energy2_approx", 5.2e-3, 1e-4},
		{"energy_total_approx", 4.96e-2, 1e-4},
		// §5.1.1 with the exact 4/3 kg (the paper rounds to 1.33 kg: 6.30e-2).
		{"energy_total_exact", 6.30e-2, 2e-4},
		{"energy1_exact", 0.5 * 4.0 / 3 * 0.2981 * 0.2981, 1e-12},
		{"energy2_exact", 0.5 * 0.75 * 0.1019 * 0.1019, 1e-12},
		// FB: |w1| + 2|x2| (φ(s, 0) = 2s, Eq. 5); residual |w1| + |x2|.
		{"fb_total", 0.2981 + 2*0.1019, 1e-12}, {"residual_total", 0.2981 + 0.1019, 1e-12},
		// The pair with w = A x + b: w1 = b1 − 0.5·x2 = −0.24715 m/s.
		{"iterate_w1_axb", -0.24715, 1e-12},
		{"energy_total_approx_axb", 0.5*0.24715*0.24715 + 0.5*0.1019*0.1019, 1e-12},
	} {
		got, ok := v[c.q]
		if assert.True(t, ok, "quantity %s missing", c.q) {
			assert.InDelta(t, c.want, got, c.tol, c.q)
		}
	}
}

// The brick-wall study on 20 steps: the wall stands, errors.csv has 100
// iterations, and the energy error falls over the PGS sweeps.
func TestStudyBrickWall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 wall steps and 2000 PGS sweeps")
	}
	dir := t.TempDir()
	out, stderr, code := runSim(t, "study", "brickwall", "--steps", "20", "--out", dir)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "max brick displacement")

	header, rows := readCSV(t, filepath.Join(dir, "errors.csv"))
	require.Equal(t, []string{"iteration", "fb_mean", "fb_std", "residual_mean", "residual_std", "energy_mean", "energy_std"}, header)
	require.Len(t, rows, 100)
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		require.False(t, math.IsNaN(v) || math.IsInf(v, 0), s)
		return v
	}
	for i, r := range rows {
		assert.Equal(t, strconv.Itoa(i+1), r[0])
		for _, c := range r[1:] {
			assert.GreaterOrEqual(t, num(c), 0.0)
		}
	}
	assert.Less(t, num(rows[99][5]), num(rows[0][5]), "energy mean at iteration 100 < at 1")

	header, rows = readCSV(t, filepath.Join(dir, "curves.csv"))
	require.Equal(t, []string{"step", "iteration", "fb", "residual", "energy"}, header)
	assert.Len(t, rows, 20*100)

	v := summaryValues(t, filepath.Join(dir, "summary.csv"), []string{"quantity", "value"})
	assert.Equal(t, 20.0, v["steps"])
	assert.Less(t, v["max_displacement_m"], 1e-3)
	assert.Greater(t, v["contacts_per_step_mean"], 0.0)
	assert.GreaterOrEqual(t, v["iterations_max"], v["iterations_mean"])
	for _, q := range []string{"fb", "residual", "energy"} {
		for _, it := range []string{"1", "10", "50", "100"} {
			_, ok := v[q+"_mean_iter"+it]
			assert.True(t, ok, q+"_mean_iter"+it)
		}
		p := v[q+"_mean_peak_iteration"]
		assert.True(t, p >= 1 && p <= 100, "%s peak %v", q, p)
	}
	assertPNG(t, filepath.Join(dir, "brickwall-fig9.png"))
}

// `sim run` reaches the paper's scenes with their own time steps.
func TestRunPaperScenes(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "rod", "--steps", "1", "--out", filepath.Join(dir, "rod.csv"))
	require.Equal(t, 0, code, stderr)
	_, rows := readCSV(t, filepath.Join(dir, "rod.csv"))
	require.Len(t, rows, 2)
	assert.Equal(t, "0.01", rows[1][1], "rod h = 0.01 s")

	dump := filepath.Join(dir, "mlcp")
	_, stderr, code = runSim(t, "run", "brickwall", "--steps", "10", "--dump-mlcp", dump, "--stats", filepath.Join(dir, "s.csv"))
	require.Equal(t, 0, code, stderr)
	for _, f := range []string{"step-000001.mlcp.json", "step-000010.mlcp.json", "step-000010.solution.json"} {
		_, err := os.Stat(filepath.Join(dump, f))
		assert.NoError(t, err, f)
	}
	_, srows := readCSV(t, filepath.Join(dir, "s.csv"))
	require.Len(t, srows, 10)
	tm, err := strconv.ParseFloat(srows[9][1], 64)
	require.NoError(t, err)
	assert.InDelta(t, 10.0/60, tm, 1e-12, "wall h = 1/60 s")
}

// The contact-stabilization study on 300 steps writes its CSV, PNG and a
// summary in which post-stabilization holds penetration at the projection
// tolerance (1e-9 m = 1e-6 mm) in both scenes.
func TestStudyContactStabilization(t *testing.T) {
	dir := t.TempDir()
	out, stderr, code := runSim(t, "study", "contact-stabilization", "--out", dir, "--steps", "300")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "contact-stabilization: 300 steps")
	h, rows := readCSV(t, filepath.Join(dir, "summary.csv"))
	require.Equal(t, []string{"scene", "mode", "max_penetration_mm", "mean_penetration_mm", "energy_added_j", "projections"}, h)
	require.Len(t, rows, 10)
	for _, r := range rows {
		if r[1] != "post" {
			continue
		}
		v, err := strconv.ParseFloat(r[2], 64)
		require.NoError(t, err)
		assert.LessOrEqual(t, v, 1e-6, r[0])
	}
	_, data := readCSV(t, filepath.Join(dir, "contact-stabilization.csv"))
	assert.Len(t, data, 300)
	assertPNG(t, filepath.Join(dir, "contact-stabilization.png"))
}
