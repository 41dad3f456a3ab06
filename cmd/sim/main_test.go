package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runSim(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return out.String(), errb.String(), code
}

const rodFile = "../../testdata/mlcp/rod.json"

func TestMLCPSolveRod(t *testing.T) {
	for _, solver := range []string{"bpp", "pgs", "lemke", "enum"} {
		out, stderr, code := runSim(t, "mlcp", "solve", rodFile, "--solver", solver)
		require.Equal(t, 0, code, stderr)
		var got struct {
			X, W       []float64
			Iterations int
			Status     string
			Picked     int
			Errors     map[string]float64
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Equal(t, "converged", got.Status)
		// The exact solution of Eq. (26): x = [0.32953, 0.06287] N·s (paper's digits).
		assert.InDeltaSlice(t, []float64{0.32953, 0.06287}, got.X, 5e-6, solver)
		assert.Less(t, got.Errors["energy"], 1e-18, solver) // J; rounding of a converged solve
	}
}

func TestMLCPSolveBudgetPicksLeastEnergy(t *testing.T) {
	// With a budget of 2, block pivoting from all-at-lower visits x = 0
	// (w = b, δe = ½·0.2981² = 0.04443 J) and then x = [0.2981, 0]
	// (w₂ = 0.1019 − 0.5·0.2981 = −0.04715 m/s, δe = ½·0.04715² = 0.0011116 J):
	// the second has the lesser energy error and is picked.
	out, stderr, code := runSim(t, "mlcp", "solve", rodFile, "--solver", "bpp", "--budget", "2", "--pick", "energy")
	require.Equal(t, 0, code, stderr)
	var got struct {
		X      []float64
		Status string
		Picked int
		Errors map[string]float64
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "budget_exhausted", got.Status)
	assert.Equal(t, 2, got.Picked)
	assert.InDeltaSlice(t, []float64{0.2981, 0}, got.X, 1e-12)
	assert.InDelta(t, 0.5*0.04715*0.04715, got.Errors["energy"], 1e-12)
}

func TestMLCPErrorsRodPaperIterate(t *testing.T) {
	out, stderr, code := runSim(t, "mlcp", "errors", rodFile, "../../testdata/mlcp/rod-paper-iterate.json")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Rows  []map[string]float64
		Total map[string]float64
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	// Sec. 5.1: δe₁ = 4.44e−2 J, δe₂ = 5.2e−3 J, δe = 4.96e−2 J (paper's digits);
	// exact effective mass (Eq. 27): 5.91e−2, 3.9e−3, 6.30e−2 J (the paper rounds m̄ to 1.33 kg).
	assert.InDelta(t, 4.44e-2, got.Rows[0]["energy"], 5e-5)
	assert.InDelta(t, 5.2e-3, got.Rows[1]["energy"], 5e-5)
	assert.InDelta(t, 4.96e-2, got.Total["energy"], 5e-5)
	assert.InDelta(t, 5.91e-2, got.Rows[0]["energy_exact"], 2e-4)
	assert.InDelta(t, 3.9e-3, got.Rows[1]["energy_exact"], 5e-5)
	assert.InDelta(t, 6.30e-2, got.Total["energy_exact"], 2e-4)
}

func TestBadInputOneLineExit2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	bad := write("bad.json", `{"A": [[1]], "b": [1], "lo": [2], "hi": [1]}`)
	trunc := write("trunc.json", `{"A": [[1]], "b": [1], "lo": [0]`)
	cand := write("cand.json", `{"x": [1, 2, 3]}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{}, "no command"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"mlcp", "solve"}, "want one problem file"},
		{[]string{"mlcp", "solve", bad}, "row 0: lo = 2 > hi = 1"},
		{[]string{"mlcp", "solve", trunc}, "malformed JSON"},
		{[]string{"mlcp", "solve", filepath.Join(dir, "missing.json")}, "no such file"},
		{[]string{"mlcp", "solve", rodFile, "--solver", "simplex"}, `--solver: unknown solver "simplex" (want auto, bpp, enum, lemke,`},
		{[]string{"mlcp", "solve", rodFile, "--budget", "-1"}, "--budget: must be ≥ 0, got -1"},
		{[]string{"mlcp", "solve", rodFile, "--budget", "x"}, "invalid value"},
		{[]string{"mlcp", "solve", rodFile, "--pick", "best"}, "--pick"},
		{[]string{"mlcp", "errors", rodFile, cand}, "x: has 3 entries, the problem has 2 rows"},
	}
	for _, c := range cases {
		out, stderr, code := runSim(t, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.True(t, strings.HasPrefix(stderr, "sim: "), stderr)
		assert.NotContains(t, stderr, "goroutine", "%v", c.args)
	}
}

func TestSolveDeterministic(t *testing.T) {
	a, _, _ := runSim(t, "mlcp", "solve", rodFile, "--solver", "pgs", "--budget", "7")
	b, _, _ := runSim(t, "mlcp", "solve", rodFile, "--solver", "pgs", "--budget", "7")
	assert.Equal(t, a, b)
}

func TestHelpFlagPrintsUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--help"}, "sim run SCENE"},
		{[]string{"mlcp", "solve", "--help"}, "sim mlcp solve FILE"},
		{[]string{"help"}, "sim run SCENE"},
		{[]string{"study", "-h"}, "studies:"}, // the study list
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		assert.Equal(t, 0, code, "%v", c.args)
		assert.Contains(t, out.String(), c.want, "%v", c.args)
		assert.Empty(t, errb.String(), "%v", c.args)
	}
}
