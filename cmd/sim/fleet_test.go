package main

import (
	"bytes"
	"context"
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

// startedJobs returns the attempts bucket's counts (job key → value):
// a worker counts a job there when it starts it.
func startedJobs(t *testing.T, url string) map[string]string {
	t.Helper()
	nc, js, err := sweep.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := map[string]string{}
	kv, err := js.KeyValue(ctx, sweep.AttemptsBucket)
	if err != nil {
		return out
	}
	keys, err := kv.ListKeys(ctx)
	require.NoError(t, err)
	for k := range keys.Keys() {
		if e, err := kv.Get(ctx, k); err == nil {
			out[k] = string(e.Value())
		}
	}
	return out
}

// waitStarted waits until some job's count is want.
func waitStarted(t *testing.T, url, want, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, v := range startedJobs(t, url) {
			if v == want {
				return
			}
		}
		require.True(t, time.Now().Before(deadline), "%s: no job started within 30 s", what)
		time.Sleep(20 * time.Millisecond)
	}
}

// waitExit waits for c to exit, at most within, and returns its exit
// status and how long it took. It waits through c.Wait, which also waits
// for the copying of the process's stdout and stderr into their buffers:
// os.Process.Wait returns as the process ends, before the last lines
// written are copied (a worker's "stopped" line read as "" in CI).
func waitExit(t *testing.T, c *exec.Cmd, within time.Duration, what string) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan int, 1)
	go func() {
		_ = c.Wait()
		done <- c.ProcessState.ExitCode()
	}()
	select {
	case code := <-done:
		return code, time.Since(start)
	case <-time.After(within):
		t.Fatalf("%s: still running %v later", what, within)
	}
	return 0, 0
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// The fleet's processes (issue 28): a `sim worker` SIGTERMed mid-job (a
// job of 10⁶ steps, minutes long) exits within 1 s with status 130 and
// hands the job back uncounted; the next worker starts it as its first
// start. That worker, with a reconnect window of 1 s, loses the server
// (SIGKILL): it logs the loss and the reconnection attempts and exits
// with status 1 and one line saying it gave up, within 1 s of the window.
func TestWorkerProcessSIGTERMAndGiveUp(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	spec := faultSpec(t, dir)
	b, err := os.ReadFile(spec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(spec, bytes.Replace(b, []byte(`"steps": 60`), []byte(`"steps": 1000000`), 1), 0o644))

	srv, srvOut, srvErr := startSim(t, "nats-server", "--store", filepath.Join(dir, "store"), "--port", "0")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(srvOut.String(), "\n") {
		require.True(t, time.Now().Before(deadline), "no server URL after 30 s: %s", srvErr.String())
		time.Sleep(10 * time.Millisecond)
	}
	url := strings.TrimSpace(srvOut.String())
	startSim(t, "sweep", spec, "--nats", url, "--out", filepath.Join(dir, "out"), "--quiet")

	w0, _, w0err := startSim(t, "worker", "--nats", url, "--name", "w0")
	waitStarted(t, url, "1", "w0")
	time.Sleep(200 * time.Millisecond) // well inside the job's steps
	require.NoError(t, w0.Process.Signal(syscall.SIGTERM))
	code, took := waitExit(t, w0, 5*time.Second, "w0 after SIGTERM")
	t.Logf("worker SIGTERMed mid-job: exit status %d after %v", code, took.Round(time.Millisecond))
	assert.Equal(t, 130, code)
	assert.Less(t, took, time.Second)
	assert.Equal(t, "sim: worker w0: stopped; its running jobs are back in the queue", lastLine(w0err.String()))
	for k, v := range startedJobs(t, url) {
		assert.Equal(t, "0", v, "%s: w0's stopped start is taken back", k)
	}

	w1, _, w1err := startSim(t, "worker", "--nats", url, "--name", "w1", "--reconnect-window", "1s")
	waitStarted(t, url, "1", "w1") // the job w0 handed back, as a first start
	require.NoError(t, srv.Process.Signal(syscall.SIGKILL))
	code, took = waitExit(t, w1, 10*time.Second, "w1 after the server's loss")
	t.Logf("worker after the server's loss (window 1 s): exit status %d after %v; stderr:\n%s", code, took.Round(time.Millisecond), w1err.String())
	assert.Equal(t, 1, code)
	assert.Less(t, took, 2*time.Second, "the 1 s window, and the job stopped within a step")
	assert.Contains(t, w1err.String(), "lost the server")
	assert.Contains(t, w1err.String(), "reconnecting, attempt 1")
	assert.Equal(t, "sim: worker w1: nats "+url+": no server for 1s (the reconnect window): giving up", lastLine(w1err.String()))
}
