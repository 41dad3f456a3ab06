package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/internal/lab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startSim starts this test binary as the sim command (see TestMain).
func startSim(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SIM_TEST_MAIN=1")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	return cmd, &stdout, &stderr
}

// nonPSDProblem writes an n-row MLCP whose A is a random non-symmetric
// matrix with a positive diagonal: block pivoting wanders on it for
// minutes (issue 18 saw 77 s at n = 800).
func nonPSDProblem(t *testing.T, path string, n int) {
	rng := rand.New(rand.NewPCG(18, 3))
	a := make([][]float64, n)
	b, lo := make([]float64, n), make([]float64, n)
	hi := make([]*float64, n) // null: +∞
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
		a[i][i] = 0.1 + max(a[i][i], -a[i][i])
		b[i] = rng.NormFloat64()
	}
	data, err := json.Marshal(map[string]any{"A": a, "b": b, "lo": lo, "hi": hi})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// Issue 18: SIGTERM stops every long-running command within 2 s (the
// issue asks 1 s; 2 s leaves room for a loaded machine), with exit status
// 130 and its outputs written.
func TestLongCommandsSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	// Inputs: a trajectory for view, a 30-brick wall database for bench
	// (its default budgets take minutes per frame), a non-PSD MLCP.
	traj := filepath.Join(dir, "rod.csv")
	_, stderr, code := runSim(t, "run", "rod", "--steps", "20", "--out", traj, "--quiet")
	require.Equal(t, 0, code, stderr)
	db := filepath.Join(dir, "wall.h5")
	_, stderr, code = runSim(t, "run", "brickwall", "--steps", "2", "--bpmd", db, "--quiet")
	require.Equal(t, 0, code, stderr)
	mlcp := filepath.Join(dir, "nonpsd.json")
	nonPSDProblem(t, mlcp, 500)

	cases := []struct {
		name  string
		args  []string
		ready func(stdout string) bool // the long phase has started
		kept  []string                 // files that must exist after the signal
	}{
		{name: "run", args: []string{"run", "brickwall", "--steps", "100000000", "--quiet", "--out", filepath.Join(dir, "run", "t.csv")},
			kept: []string{filepath.Join(dir, "run", "t.csv")}},
		{name: "bench", args: []string{"bench", db, "--budget", "0", "--out", filepath.Join(dir, "bench")},
			kept: []string{filepath.Join(dir, "bench", "runs.csv"), filepath.Join(dir, "bench", "curves.png")}},
		{name: "mlcp solve", args: []string{"mlcp", "solve", mlcp},
			ready: func(string) bool { return true }},
		{name: "view", args: []string{"view", traj, "--scene", "rod", "--addr", "127.0.0.1:0"},
			ready: func(stdout string) bool { return strings.Contains(stdout, "http://") }},
	}
	for _, s := range lab.StudyNames() {
		if s == "rod" {
			continue // one step: not long-running
		}
		cases = append(cases, struct {
			name  string
			args  []string
			ready func(stdout string) bool
			kept  []string
		}{name: "study " + s, args: []string{"study", s, "--steps", "100000000", "--out", filepath.Join(dir, "study-"+s)}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits 1.5 s before its signal
			if c.name == "run" {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "run"), 0o755))
			}
			cmd, stdout, stderr := startSim(t, c.args...)
			// Let it get into its long phase: 1.5 s, and the readiness
			// condition if any (view prints its URL once listening).
			time.Sleep(1500 * time.Millisecond)
			for deadline := time.Now().Add(20 * time.Second); c.ready != nil && !c.ready(stdout.String()); {
				require.True(t, time.Now().Before(deadline), "not ready after 20 s; stderr: %s", stderr.String())
				time.Sleep(20 * time.Millisecond)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			start := time.Now()
			var err error
			select {
			case err = <-done:
			case <-time.After(2 * time.Second):
				t.Fatalf("still running 2 s after SIGTERM; stderr: %s", stderr.String())
			}
			t.Logf("exited %v after SIGTERM: %s", time.Since(start).Round(time.Millisecond), strings.TrimSpace(stderr.String()))
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit: %v; stderr: %s", err, stderr.String())
			assert.Equal(t, 130, ee.ExitCode(), stderr.String())
			assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line on stderr: %s", stderr.String())
			for _, f := range c.kept {
				fi, err := os.Stat(f)
				if assert.NoError(t, err, fmt.Sprintf("%s kept", f)) {
					assert.Positive(t, fi.Size(), f)
				}
			}
		})
	}
}

// Issue 18: kill -9 during `sim run --bpmd` lost every frame. The journal
// PATH.partial.d keeps every frame written before the kill.
func TestRunBPMDSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "wall.h5")
	cmd, _, stderr := startSim(t, "run", "brickwall", "--set", "rows=3", "--steps", "100000000", "--bpmd", db, "--quiet")
	journal := db + bpmd.JournalSuffix
	for deadline := time.Now().Add(30 * time.Second); ; {
		names, _ := filepath.Glob(filepath.Join(journal, "*.h5"))
		if len(names) >= 5 {
			break
		}
		require.True(t, time.Now().Before(deadline), "fewer than 5 frames after 30 s; stderr: %s", stderr.String())
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Kill())
	_, _ = cmd.Process.Wait()
	// Every frame file in the journal is complete (each appears by rename).
	names, err := filepath.Glob(filepath.Join(journal, "*.h5"))
	require.NoError(t, err)
	frames, err := bpmd.ReadFile(journal)
	require.NoError(t, err)
	require.Len(t, frames, len(names))
	for k, f := range frames {
		assert.Equal(t, frames[0].Index+k, f.Index, "frames are consecutive")
		assert.Positive(t, f.RowCount())
	}
	// The journal is a database: bench reads it.
	_, errOut, code := runSim(t, "bench", journal, "--solvers", "bpp", "--out", filepath.Join(dir, "bench"))
	require.Equal(t, 0, code, errOut)
}

// mlcp solve --timeout is a wall-clock budget: the best iterate is written
// with status canceled and the command succeeds.
func TestMLCPSolveTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("solves for 2 s")
	}
	path := filepath.Join(t.TempDir(), "nonpsd.json")
	nonPSDProblem(t, path, 300)
	// --timeout covers the reading of the problem too: its 1.8 MB of JSON
	// take about 30 ms of CPU, which at a load of 22 on the 2 cores
	// stretched past the 300 ms this test gave ("ran out while reading",
	// exit 1: a flake under load). 2 s leaves the reading a 5-fold margin
	// at a load of 27 (a 7% share of the cores: 0.4 s); the solve does not
	// converge in it (237 iterations, canceled, at a load of 22).
	const timeout = 2 * time.Second
	start := time.Now()
	out, stderr, code := runSim(t, "mlcp", "solve", path, "--timeout", timeout.String())
	elapsed := time.Since(start)
	require.Equal(t, 0, code, stderr)
	var got struct {
		X      []float64
		Status string
		Reason string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "canceled", got.Status)
	assert.Contains(t, got.Reason, "context deadline exceeded")
	assert.Len(t, got.X, 300)
	// The timeout, plus one iteration (a 300-row dense factorization,
	// milliseconds of CPU) and the writing; 5 s allows a loaded machine.
	assert.GreaterOrEqual(t, elapsed, timeout)
	assert.Less(t, elapsed, timeout+5*time.Second)

	_, stderr, code = runSim(t, "mlcp", "solve", path, "--timeout", "-1s")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--timeout: must be ≥ 0, got -1s")
}
