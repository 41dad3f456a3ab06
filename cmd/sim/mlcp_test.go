package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/lcp"
)

// collectionFiles returns the problems of testdata/mlcp's collection (the
// files with a "class" key) and whether each has a solution.
func collectionFiles(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("../../testdata/mlcp/*.json")
	require.NoError(t, err)
	out := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var meta struct {
			Class    string `json:"class"`
			Solvable bool   `json:"solvable"`
		}
		require.NoError(t, json.Unmarshal(data, &meta))
		if meta.Class != "" {
			out[f] = meta.Solvable
		}
	}
	require.GreaterOrEqual(t, len(out), 25)
	return out
}

// TestMLCPSolveCollectionAlwaysWrites: every solver on every collection
// problem writes its answer (one JSON object on stdout), also when the solve
// fails (exit 1); the status is converged only when the written x has a
// natural residual ≤ 1e-6·max(1, ‖b‖∞); the default solver, auto, solves
// every solvable problem and names the solver that answered.
func TestMLCPSolveCollectionAlwaysWrites(t *testing.T) {
	for f, solvable := range collectionFiles(t) {
		pf, err := os.Open(f)
		require.NoError(t, err)
		p, err := lcp.ReadProblem(pf)
		pf.Close()
		require.NoError(t, err)
		scale := 1.0
		for _, v := range p.B {
			scale = math.Max(scale, math.Abs(v))
		}
		for _, name := range append(lcp.Names(), "") {
			args := []string{"mlcp", "solve", f}
			if name != "" {
				args = append(args, "--solver", name)
			}
			out, stderr, code := runSim(t, args...)
			if name == "enum" && p.N() > lcp.EnumMaxRows {
				continue // too large for enum: exit 1 with the error, x at its start
			}
			var got struct {
				X            []float64
				Status       string
				ResidualMax  float64 `json:"residual_max"`
				SolverStatus string  `json:"solver_status"`
				AnsweredBy   string  `json:"answered_by"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &got), "%s %s: stdout %q stderr %q", f, name, out, stderr)
			require.Len(t, got.X, p.N(), "%s %s", f, name)
			assert.Contains(t, stderr, "ignored unknown keys: name, class, source, solvable", "%s %s", f, name)
			assert.Equal(t, 1, strings.Count(stderr, "warning"), "%s %s: one warning line", f, name)
			if got.Status == "converged" {
				assert.LessOrEqual(t, got.ResidualMax, 1e-6*scale, "%s %s", f, name)
				assert.Equal(t, 0, code, "%s %s", f, name)
				assert.True(t, solvable, "%s %s: converged without a solution", f, name)
			}
			if name == "" && solvable {
				assert.Equal(t, "converged", got.Status, "%s: auto: %s", f, stderr)
				assert.NotEmpty(t, got.AnsweredBy, f)
			}
		}
	}
}

// TestMLCPErrorsNonFinite: a candidate whose energy overflows still gets
// its output, with "inf" for the infinite numbers; and a solution file with
// extra keys (here a collection file handed over as its own candidate: its
// reference x) is read with one warning.
func TestMLCPErrorsNonFinite(t *testing.T) {
	dir := t.TempDir()
	cand := filepath.Join(dir, "far.json")
	require.NoError(t, os.WriteFile(cand, []byte(`{"x": [1e300, 0]}`), 0o644))
	out, stderr, code := runSim(t, "mlcp", "errors", rodFile, cand)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, `"energy":"inf"`)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	ref := "../../testdata/mlcp/halfwave-conducting.json"
	out, stderr, code = runSim(t, "mlcp", "errors", ref, ref)
	require.Equal(t, 0, code, stderr)
	var errs struct {
		Total map[string]float64
	}
	require.NoError(t, json.Unmarshal([]byte(out), &errs))
	assert.Equal(t, 0.0, errs.Total["energy"])                   // the reference solution: exact
	assert.Equal(t, 2, strings.Count(stderr, "warning"), stderr) // one per file
}

// TestMLCPReadErrorsNameFileAndField: a key given twice or a bad entry stops
// with exit 2 and one line naming the file and the field.
func TestMLCPReadErrorsNameFileAndField(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{`{"A": [[1]], "b": [1], "lo": [0], "hi": [null], "b": [2]}`, "b: key given twice"},
		{`{"A": [[1, 2], [3, "x"]], "b": [1, 1], "lo": [0, 0], "hi": [null, null]}`, `A[1][1]: want a number, got "x"`},
		{`{"a": [[1]], "b": [1], "lo": [0], "hi": [null]}`, "A: missing"},
	} {
		f := filepath.Join(dir, "p.json")
		require.NoError(t, os.WriteFile(f, []byte(c.body), 0o644))
		out, stderr, code := runSim(t, "mlcp", "solve", f)
		assert.Equal(t, 2, code)
		assert.Empty(t, out)
		assert.Contains(t, stderr, f+": "+c.want)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
	}
}

// TestMLCPSolveFormats: --format reads a plain (M, q) file and a Siconos
// LCP file (dense, column-major) into the same problem, lemke-2x2 (M =
// [[2,1],[1,2]], q = (−5,−6), z = (4/3, 7/3)); a malformed file is a usage
// error (exit 2) naming the file, the field and the line; an unknown format
// is a usage error before the file is opened.
func TestMLCPSolveFormats(t *testing.T) {
	dir := t.TempDir()
	mq := filepath.Join(dir, "a.txt")
	require.NoError(t, os.WriteFile(mq, []byte("# M then q\n2 1\n1 2\n-5 -6\n"), 0o644))
	// Column-major order is checked in package lcp (an asymmetric M); here
	// the command's path.
	dat := filepath.Join(dir, "a.dat")
	require.NoError(t, os.WriteFile(dat, []byte("2\n0\n2\n2\n2\t2\n2 1\n1 2\n-5 -6\nRemark: lemke-2x2\n"), 0o644))
	for _, c := range [][]string{{"mq", mq}, {"siconos-lcp", dat}} {
		out, stderr, code := runSim(t, "mlcp", "solve", "--format", c[0], c[1])
		require.Equal(t, 0, code, stderr)
		var got struct {
			X      []float64
			Status string
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		assert.Equal(t, "converged", got.Status)
		assert.InDeltaSlice(t, []float64{4.0 / 3, 7.0 / 3}, got.X, 1e-12, c[0]) // 1e-12: two pivots on numbers of size 6
		assert.Empty(t, stderr, c[0])
	}
	bad := filepath.Join(dir, "bad.dat")
	require.NoError(t, os.WriteFile(bad, []byte("2\n0\n2\n2\n2\t2\n2 1 1 x\n"), 0o644))
	_, stderr, code := runSim(t, "mlcp", "solve", "--format", "siconos-lcp", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, bad+`: M[1][1] (stored column-major) (line 6): want a number, got "x"`)
	_, stderr, code = runSim(t, "mlcp", "errors", "--format", "fortran", bad, bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `--format: want one of json, siconos-lcp, siconos-mlcp, mq, got "fortran"`)
	// A text file without --format (JSON, the default) names the flag
	// that reads it; before, "want a JSON object, got 2" alone.
	for _, sub := range []string{"solve", "errors"} {
		args := []string{"mlcp", sub, dat}
		if sub == "errors" {
			args = append(args, dat)
		}
		_, stderr, code = runSim(t, args...)
		assert.Equal(t, 2, code, sub)
		assert.Contains(t, stderr, dat+": want a JSON object, got 2 (a text problem? give --format mq, siconos-lcp or siconos-mlcp: docs/formats.md)", sub)
	}
	// A JSON file that is malformed is not sent to the text formats.
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte(`{"A": [[1]], "b": [1], "lo": [0], "hi": [}`), 0o644))
	_, stderr, code = runSim(t, "mlcp", "solve", broken)
	assert.Equal(t, 2, code)
	assert.NotContains(t, stderr, "--format")
}
