package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorigid/gorigid/sweep"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultSpec: the shipped experiments e1–e4, μ_s × tripod on a 9 × 10
// grid, bpp: 360 jobs of 60 steps.
func faultSpec(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs("../../testdata/push")
	require.NoError(t, err)
	var exps []string
	for i, set := range []string{`"object_x": "0.01", "pusher_angle": "0.5"`, `"object_x": "-0.015", "pusher_angle": "-0.5"`,
		`"object_x": "0.02"`, `"object_x": "-0.005", "pusher_angle": "0.15", "object_angle": "0.5"`} {
		exps = append(exps, fmt.Sprintf(`{"name": "e%d", "set": {%s}, "measured": %q}`, i+1, set, filepath.Join(abs, fmt.Sprintf("e%d.csv", i+1))))
	}
	src := fmt.Sprintf(`{"scene": "push", "steps": 60, "set": {"push_speed": "0.5", "push_distance": "0.06", "mu_p": "0.3", "mu_f": "0.4"},
  "params": [{"name": "mu_s", "min": 0.1, "max": 0.9, "step": 0.1}, {"name": "tripod", "min": 0.005, "max": 0.05, "step": 0.005}],
  "experiments": [%s], "solvers": ["bpp"], "body": 0, "angle_length": 0.05}`, strings.Join(exps, ", "))
	p := filepath.Join(dir, "spec.json")
	require.NoError(t, os.WriteFile(p, []byte(src), 0o644))
	return p
}

// simProcess starts this test binary as `sim args…`; the test kills it
// at the end if it is still running.
func simProcess(t *testing.T, stdout, stderr *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "SIM_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// resultLines returns the results file's lines that parse.
func resultLines(path string) []sweep.Result {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []sweep.Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r sweep.Result
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func waitResults(t *testing.T, path string, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for len(resultLines(path)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: fewer than %d results after 2 minutes", what, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A standalone server (the embedded one in its own process, `sim
// nats-server`), three `sim worker` processes and a coordinator (`sim
// sweep --nats`): one worker is killed with SIGKILL mid-sweep and the
// coordinator is killed and restarted once. Every job's result is
// recorded exactly once, all ok; the redeliveries are counted.
func TestSweepSurvivesKilledWorkerAndCoordinator(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	spec := faultSpec(t, dir)
	out := filepath.Join(dir, "out")
	results := filepath.Join(out, sweep.ResultsFile)

	var srvOut, srvErr bytes.Buffer
	simProcess(t, &srvOut, &srvErr, "nats-server", "--store", filepath.Join(dir, "store"), "--port", "0")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(srvOut.String(), "\n") {
		require.True(t, time.Now().Before(deadline), "no server URL after 30 s: %s", srvErr.String())
		time.Sleep(10 * time.Millisecond)
	}
	url := strings.TrimSpace(srvOut.String())
	// The ack wait of 1 s (set by whichever process creates the workers'
	// consumer first) makes the killed worker's jobs come back quickly.
	var workers []*exec.Cmd
	werr := make([]bytes.Buffer, 3)
	for i := range 3 {
		var o bytes.Buffer
		workers = append(workers, simProcess(t, &o, &werr[i], "worker", "--nats", url, "--name", fmt.Sprintf("w%d", i), "--ack-wait", "1s"))
	}
	var c1out, c1err bytes.Buffer
	coord := simProcess(t, &c1out, &c1err, "sweep", spec, "--nats", url, "--out", out, "--ack-wait", "1s", "--quiet")
	waitResults(t, results, 60, "first coordinator")
	require.NoError(t, workers[0].Process.Signal(syscall.SIGKILL))
	_ = workers[0].Wait()
	waitResults(t, results, 150, "after the worker's kill")
	require.NoError(t, coord.Process.Signal(syscall.SIGKILL))
	_ = coord.Wait()
	before := len(resultLines(results))

	var c2out, c2err bytes.Buffer
	coord2 := simProcess(t, &c2out, &c2err, "sweep", spec, "--nats", url, "--out", out, "--ack-wait", "1s", "--quiet")
	done := make(chan error, 1)
	go func() { done <- coord2.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "stdout %s\nstderr %s", c2out.String(), c2err.String())
	case <-time.After(3 * time.Minute):
		t.Fatal("the restarted coordinator did not finish in 3 minutes")
	}
	rs := resultLines(results)
	seen := map[string]int{}
	redeliveries, restarts := 0, 0
	for _, r := range rs {
		seen[r.ID]++
		assert.Equal(t, sweep.StatusOK, r.Status, "%s: %s", r.ID, r.Error)
		redeliveries += max(r.Deliveries-1, 0)
		restarts += max(r.Attempts-1, 0)
	}
	assert.Len(t, seen, 360, "every job has a result")
	for id, n := range seen {
		assert.Equal(t, 1, n, "%s recorded %d times", id, n)
	}
	assert.Len(t, rs, 360, "one line per job")
	// The restarted coordinator found the results file's and, in the
	// results stream, those finished while it was down.
	var found, failed, redelivered int
	_, err := fmt.Sscanf(c2out.String(), "360 jobs (%d recorded before), %d failed, %d redeliveries", &found, &failed, &redelivered)
	require.NoError(t, err, c2out.String())
	assert.GreaterOrEqual(t, found, before)
	assert.Zero(t, failed)
	// The workers' measured run times, which the job timeout is set from.
	assert.Regexp(t, `\njob times on the workers: median [0-9.]+[µm]?s, slowest [0-9.]+[µm]?s \(--job-timeout 10m0s;`, c2out.String())
	t.Logf("fault test: 360 jobs, %d recorded before the coordinator's restart; %d JetStream redeliveries, %d jobs restarted after a worker died mid-job",
		before, redeliveries, restarts)
	if wr := os.Getenv("SWEEP_FAULT_REPORT"); wr != "" {
		_ = os.WriteFile(wr, []byte(fmt.Sprintf("before=%d redeliveries=%d restarts=%d\n", before, redeliveries, restarts)), 0o644)
	}
}

// Bad spec files and an unreachable --nats URL: one line on stderr,
// exit 2 and 1.
func TestSweepBadInput(t *testing.T) {
	dir := t.TempDir()
	spec := faultSpec(t, dir)
	b, err := os.ReadFile(spec)
	require.NoError(t, err)
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, bytes.Replace(b, []byte(`"steps": 60`), []byte(`"steps": -1`), 1), 0o644))
	for _, cmd := range []string{"sweep", "calibrate"} {
		_, stderr, code := runSim(t, cmd, bad, "--out", filepath.Join(dir, "o"))
		assert.Equal(t, 2, code)
		assert.Equal(t, "sim: "+bad+": steps: must be ≥ 1, got -1\n", stderr)
	}
	start := time.Now()
	_, stderr, code := runSim(t, "sweep", spec, "--nats", "nats://127.0.0.1:1", "--out", filepath.Join(dir, "o2"))
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	assert.Contains(t, stderr, "--nats nats://127.0.0.1:1: cannot connect")
	_, stderr, code = runSim(t, "worker", "--nats", "nats://127.0.0.1:1")
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	_, stderr, code = runSim(t, "worker")
	assert.Equal(t, 2, code)
	assert.Equal(t, "sim: worker: --nats URL is required\n", stderr)
}
