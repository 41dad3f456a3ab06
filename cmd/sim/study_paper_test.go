package main

import (
	"bytes"
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
