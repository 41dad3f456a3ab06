package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/internal/lab"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunBPMD: `sim run SCENE --bpmd` writes one frame per recorded step
// that reads back, and each frame rebuilt and solved from the stored index
// sets and the stored proximal centre (Layout.Reference: the pre-solve's x
// on a step with new contacts, the last step's impulses on a coherent
// steady step, which pick one among the solutions of a semidefinite A)
// gives the stored solution (rod, a short brick wall, the chain); where it
// does not, the velocities must agree to the solve's tolerance.
func TestRunBPMD(t *testing.T) {
	cases := []struct {
		scene string
		args  []string
		steps int
	}{
		{"rod", nil, 4},
		{"brickwall", []string{"--set", "rows=2"}, 4},
		{"brickwall", []string{"--set", "rows=3", "--every", "2"}, 6},
		{"chain6", nil, 3},
	}
	for _, c := range cases {
		t.Run(c.scene+strings.Join(c.args, ""), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "db.h5")
			args := append([]string{"run", c.scene, "--steps", strconv.Itoa(c.steps), "--bpmd", path, "--quiet"}, c.args...)
			_, stderr, code := runSim(t, args...)
			require.Equal(t, 0, code, stderr)
			frames, err := bpmd.ReadFile(path)
			require.NoError(t, err)
			every := 1
			if len(c.args) > 2 {
				every = 2
			}
			require.Len(t, frames, c.steps/every)
			for k, f := range frames {
				assert.Equal(t, (k+1)*every, f.Index)
				p, lay, err := bpmd.Rebuild(f, bpmd.Box, bpmd.Options{})
				require.NoError(t, err)
				require.Equal(t, len(f.Solution.Z), p.N())
				start := make([]lcp.State, len(f.Solution.States))
				for i, s := range f.Solution.States {
					start[i] = lcp.State(s)
				}
				var res lcp.Result
				require.NoError(t, (&lcp.BPP{}).Solve(&res, p, lcp.Settings{Start: start, Reference: lay.Reference}))
				if !sameX(f.Solution.Z, res.X, 1e-9) {
					// A step that started in the regularized mode a
					// semidefinite step before it left its solver in
					// (lcp.BPP, inherited regularization), which a fresh
					// solver does not: both answers solve the MLCP to
					// regTol, 1e-6 of max|b|, so their velocities agree
					// to twice that (the 3-row wall's step 2: x apart by
					// 6.6e-5 N·s).
					w := make([]float64, p.N())
					p.Residual(w, f.Solution.Z)
					sw := 0.0
					for _, v := range p.B {
						sw = math.Max(sw, math.Abs(v))
					}
					for i := range w {
						require.InDelta(t, w[i], res.W[i], 2e-6*sw, "frame %d w[%d]", f.Index, i)
					}
				}
				assert.NotEmpty(t, f.Solution.TotalError)
			}
		})
	}
}

// sameX reports whether x and y agree entry by entry within tol.
func sameX(x, y []float64, tol float64) bool {
	for i := range x {
		if !(math.Abs(x[i]-y[i]) <= tol) {
			return false
		}
	}
	return true
}

// TestBench: `sim bench` on a short wall database writes its tables with
// the right columns and row counts, and the PNGs.
func TestBench(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "wall.h5")
	_, stderr, code := runSim(t, "run", "brickwall", "--set", "rows=2", "--steps", "3", "--bpmd", db, "--quiet")
	require.Equal(t, 0, code, stderr)
	out := filepath.Join(dir, "bench")
	stdout, stderr, code := runSim(t, "bench", db, "--solvers", "bpp,pgs,newton-min,prox", "--budget", "30", "--out", out)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "3 frames")
	h, rows := readCSV(t, filepath.Join(out, "runs.csv"))
	assert.Equal(t, []string{"frame", "solver", "rows", "status", "iterations", "time_ms", "fb", "residual", "energy", "energy_rel", "success"}, h)
	require.Len(t, rows, 3*4)
	for _, r := range rows {
		it, err := strconv.Atoi(r[4])
		require.NoError(t, err)
		assert.LessOrEqual(t, it, 30)
		if r[1] == "bpp" {
			assert.Equal(t, "true", r[10], "bpp solves every wall frame")
		}
	}
	h, rows = readCSV(t, filepath.Join(out, "summary.csv"))
	assert.Equal(t, "success_rate", h[4])
	require.Len(t, rows, 4)
	assert.Equal(t, "bpp", rows[0][0])
	assert.Equal(t, "1", rows[0][4])
	h, rows = readCSV(t, filepath.Join(out, "curves.csv"))
	assert.Equal(t, []string{"frame", "solver", "iter", "fb", "residual", "energy", "energy_rel"}, h)
	assert.NotEmpty(t, rows)
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[5], 64)
		require.NoError(t, err)
		assert.False(t, math.IsNaN(v) || v < 0)
	}
	for _, png := range []string{"curves.png", "profile-iterations.png", "profile-time.png"} {
		b, err := os.ReadFile(filepath.Join(out, png))
		require.NoError(t, err)
		assert.Equal(t, "\x89PNG", string(b[:4]), png)
	}
	// Deterministic apart from the wall-time columns.
	out2 := filepath.Join(dir, "bench2")
	_, stderr, code = runSim(t, "bench", db, "--solvers", "bpp,pgs,newton-min,prox", "--budget", "30", "--out", out2)
	require.Equal(t, 0, code, stderr)
	for _, name := range []string{"runs.csv", "curves.csv"} {
		a, _ := os.ReadFile(filepath.Join(out, name))
		b, _ := os.ReadFile(filepath.Join(out2, name))
		assert.Equal(t, dropColumn(string(a), name == "runs.csv"), dropColumn(string(b), name == "runs.csv"), name)
	}
}

// dropColumn removes runs.csv's time_ms column (column 6).
func dropColumn(s string, drop bool) string {
	if !drop {
		return s
	}
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		f := strings.Split(line, ",")
		if len(f) > 5 {
			f = append(f[:5], f[6:]...)
		}
		b.WriteString(strings.Join(f, ","))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestBenchBadInput: errors name the flag or the file, exit 2, no panic
// on a corrupt database.
func TestBenchBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.h5")
	require.NoError(t, os.WriteFile(corrupt, []byte("\x89HDF\r\n\x1a\n garbage"), 0o644))
	good := filepath.Join(dir, "rod.h5")
	_, stderr, code := runSim(t, "run", "rod", "--steps", "2", "--bpmd", good, "--quiet")
	require.Equal(t, 0, code, stderr)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench"}, "want one database file"},
		{[]string{"bench", filepath.Join(dir, "missing.h5")}, "missing.h5"},
		{[]string{"bench", corrupt}, "corrupt.h5"},
		{[]string{"bench", good, "--solvers", "bpp,nope"}, "--solvers"},
		{[]string{"bench", good, "--budget", "-1"}, "--budget"},
		{[]string{"bench", good, "--tol", "0"}, "--tol"},
		{[]string{"bench", good, "--form", "cone"}, "--form"},
		{[]string{"run", "rod", "--steps", "1", "--bpmd", filepath.Join(dir, "no", "such", "dir.h5")}, "--bpmd"},
	}
	for _, c := range cases {
		_, stderr, code := runSim(t, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, c.args)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %q", stderr)
	}
}

// Issue 18: bench hung on the shipped databases when every curve was flat.
// Every shipped database under every solver (default budget) finishes with
// all outputs written.
func TestBenchShippedDatabases(t *testing.T) {
	dbs, err := filepath.Glob("../../testdata/bpmd/*.h5")
	require.NoError(t, err)
	require.NotEmpty(t, dbs)
	solvers := append(strings.Split(lab.BenchDefaultSolvers, ","), "enum")
	for _, db := range dbs {
		for _, s := range solvers {
			t.Run(filepath.Base(db)+"/"+s, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "bench")
				done := make(chan struct{})
				var stderr string
				var code int
				go func() {
					_, stderr, code = runSim(t, "bench", db, "--solvers", s, "--out", out)
					close(done)
				}()
				select {
				case <-done:
				case <-time.After(60 * time.Second): // each takes well under a second
					t.Fatal("sim bench did not finish in 60 s")
				}
				require.Equal(t, 0, code, stderr)
				for _, f := range []string{"runs.csv", "curves.csv", "summary.csv", "curves.png", "profile-iterations.png", "profile-time.png"} {
					fi, err := os.Stat(filepath.Join(out, f))
					require.NoError(t, err)
					assert.Positive(t, fi.Size(), f)
				}
			})
		}
	}
}
