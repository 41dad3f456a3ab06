package sweep

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// freePort returns a loopback port free now, for a server that must come
// back on the same URL.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// logLines collects log lines from several goroutines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, a ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, a...))
}

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// outcome is what a Run in the background returned.
type outcome struct {
	res []Result
	err error
}

// runInBackground runs the jobs in s; the outcome arrives on the channel.
func runInBackground(ctx context.Context, s *Session, jobs []Job) chan outcome {
	ran := make(chan outcome, 1)
	go func() {
		res, err := s.Run(ctx, jobs)
		ran <- outcome{res, err}
	}()
	return ran
}

// waitOutcome waits for a background Run and returns its results.
func waitOutcome(t *testing.T, ran chan outcome, within time.Duration, what string) []Result {
	t.Helper()
	select {
	case out := <-ran:
		require.NoError(t, out.err)
		return out.res
	case <-time.After(within):
		t.Fatalf("%s within %v", what, within)
	}
	return nil
}

// waitResults waits until s has recorded n results.
func waitResults(t *testing.T, s *Session, n int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		s.mu.Lock()
		got := len(s.Done)
		s.mu.Unlock()
		if got >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "fewer than %d results after %v", n, within)
		time.Sleep(5 * time.Millisecond)
	}
}

// The fleet test of issue 28. Two workers (concurrency 1, ack wait
// 0.5 s, wall-clock limit 6 s) run 40 real jobs of the push scene and six
// bad ones:
//   - poison: every worker that starts it dies (the test's crash hook:
//     no result, no ack), so it comes back after each ack wait;
//   - over the steps limit (steps = 1e12), an unknown scene, a NaN scene
//     parameter: refused;
//   - slow: held by its worker for 2 s (4 ack waits) after its run (the
//     test's hold hook, so that its length does not follow the machine's
//     load): heartbeats keep it with its worker;
//   - over the wall-clock limit: 10⁶ steps (about 90 s), stopped at 6 s.
//
// Mid-sweep the server is shut down for 2 s: worker A, whose reconnect
// window is 1 s, gives up with an error (its supervisor starts a new
// one once the server is back); worker B, window 30 s, reconnects. The
// coordinator reconnects too, and the sweep completes: every real result
// equals the job run alone bit for bit and is recorded once; the poison
// job is recorded failed after MaxAttempts starts; the refused ones with
// their reason after one delivery and no start; the slow one ok after
// one start; the over-wall one failed within a second of its limit.
func TestFleet(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("about 15 s; timing-bound, not under the race detector")
	}
	spec := parseTestSpec(t, testSpec)
	all, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	var jobs []Job
	for _, j := range all {
		if j.Solver == "bpp" && len(jobs) < 40 {
			jobs = append(jobs, j)
		}
	}
	real := len(jobs)
	bad := func(id string, f func(j *Job)) {
		j := jobs[0]
		j.ID = id
		j.Set = map[string]string{}
		for k, v := range jobs[0].Set {
			j.Set[k] = v
		}
		f(&j)
		jobs = append(jobs, j)
	}
	bad("poison", func(j *Job) {})
	bad("steps", func(j *Job) { j.Steps = 1e12 })
	bad("scene", func(j *Job) { j.Scene = "no-such-scene" })
	bad("nan", func(j *Job) { j.Set["mu_s"] = "NaN" })
	// The slow job is a real job held 4 ack waits after its run. It was
	// a job of 1.5 s of steps at the speed a probe measured before the
	// sweep, which under a changing load (3–11 on the 2 cores) ran 0.84
	// s or over the 6 s limit in 3 of 6 runs; a hold is the same length
	// at any load. A heartbeat, sent every ack wait / 4, has 375 ms of
	// scheduling delay before the server would redeliver.
	bad("slow", func(j *Job) {})
	bad("wall", func(j *Job) { j.Steps = 1_000_000 })

	dir := t.TempDir()
	port := freePort(t)
	store := filepath.Join(dir, "store")
	srv, err := StartEmbedded(store, port)
	require.NoError(t, err)
	defer func() { srv.Close() }()
	const ackWait = 500 * time.Millisecond
	lim := Limits{Wall: 6 * time.Second}
	var log logLines
	s, err := Open(spec, Options{Out: filepath.Join(dir, "out"), NATS: srv.URL(), Workers: 0, AckWait: ackWait,
		Limits: lim, Log: log.logf})
	require.NoError(t, err)
	defer s.Close()

	crash := func(j *Job) bool { return j.ID == "poison" }
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	worker := func(name string, window time.Duration) (*Worker, chan error) {
		wk := &Worker{URL: srv.URL(), Name: name, AckWait: ackWait, Limits: lim, ReconnectWindow: window,
			Log: log.logf, crash: crash, hold: holdJob("slow", 4*ackWait)}
		done := make(chan error, 1)
		go func() { done <- wk.Run(ctx) }()
		return wk, done
	}
	_, doneA := worker("A", time.Second)
	_, doneB := worker("B", 30*time.Second)

	start := time.Now()
	ran := runInBackground(ctx, s, jobs)
	waitResults(t, s, 20, 30*time.Second)
	srv.Close()
	down := time.Now()
	select {
	case err := <-doneA:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no server for 1s (the reconnect window): giving up")
		assert.NotContains(t, err.Error(), "\n")
		gaveUp := time.Since(down)
		t.Logf("worker A gave up %v after the server went down", gaveUp.Round(time.Millisecond))
		assert.Less(t, gaveUp, 3*time.Second, "the reconnect window is 1 s")
	case <-time.After(5 * time.Second):
		t.Fatal("worker A did not give up within 5 s of losing the server")
	}
	time.Sleep(2*time.Second - time.Since(down))
	srv, err = StartEmbedded(store, port)
	require.NoError(t, err)
	_, doneA2 := worker("A2", 30*time.Second) // A's supervisor restarts it

	res := waitOutcome(t, ran, 60*time.Second, "the sweep did not complete after the server's return")
	require.Len(t, res, len(jobs))
	for i := range real {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		sameResult(t, alone, res[i])
	}
	byID := map[string]Result{}
	for _, r := range res[real:] {
		byID[r.ID] = r
	}
	p := byID["poison"]
	assert.Equal(t, StatusFailed, p.Status)
	assert.Equal(t, MaxAttempts+1, p.Attempts, "recorded on the start after MaxAttempts")
	assert.Contains(t, p.Error, fmt.Sprintf("started %d times", MaxAttempts))
	assert.Equal(t, "refused: steps: 1000000000000 is outside 1…1000000 (sweep.Limits.Steps)", byID["steps"].Error)
	assert.Contains(t, byID["scene"].Error, `refused: unknown scene "no-such-scene"`)
	assert.Equal(t, "refused: push: --set mu_s=NaN: want a finite number", byID["nan"].Error)
	for _, id := range []string{"steps", "scene", "nan"} {
		assert.Equal(t, StatusFailed, byID[id].Status, id)
		assert.Zero(t, byID[id].Attempts, "%s: never started", id)
	}
	sl := byID["slow"]
	require.Equal(t, StatusOK, sl.Status, sl.Error)
	// When the slow job runs across the server's 2 s absence it may be
	// delivered, and started, a second time: heartbeats cannot reach a
	// stopped server, the worker's reconnect backoff can outlast the ack
	// wait, and worker A, if it held the job, gives up during the
	// outage. Never a third time; its one result is recorded once (above).
	// TestSlowJobHeartbeats checks the single delivery and start on a
	// server that stays up.
	assert.LessOrEqual(t, sl.Attempts, 2, "at most one restart, across the outage")
	assert.GreaterOrEqual(t, sl.Seconds, 4*ackWait.Seconds(), "the slow job outlasts four ack waits")
	assert.LessOrEqual(t, sl.Deliveries, 2, "at most one redelivery, across the outage")
	w := byID["wall"]
	assert.Equal(t, StatusFailed, w.Status)
	assert.Contains(t, w.Error, "wall: ran 6s (sweep.Limits.Wall)")
	// The run stops within a step of its limit (a push step takes
	// ~0.1 ms); 1 s is the bound.
	assert.InDelta(t, lim.Wall.Seconds(), w.Seconds, 1, "stopped at its limit")

	// Every job once in the results file, and once in the stream.
	lines := resultLines(t, filepath.Join(dir, "out", ResultsFile))
	seen := map[string]int{}
	for _, r := range lines {
		seen[r.ID]++
	}
	assert.Len(t, lines, len(jobs))
	for _, j := range jobs {
		assert.Equal(t, 1, seen[j.ID], j.ID)
	}
	assert.Positive(t, log.count("lost the server"))
	assert.Positive(t, log.count("reconnected after"))
	t.Logf("fleet: %d jobs (%d real, all ok and recorded once; 6 bad) in %v; poison failed after %d starts and %d deliveries; "+
		"slow job %.2f s, %d delivery; over-wall job stopped at %.2f s; %d redeliveries; %d republished",
		len(jobs), real, time.Since(start).Round(100*time.Millisecond), p.Attempts, p.Deliveries, sl.Seconds, sl.Deliveries,
		w.Seconds, s.Redeliveries, s.Republished)

	// A worker whose context ends mid-job returns within 1 s, and hands
	// the job back, its start not counted.
	long := jobs[0]
	long.ID, long.Steps = "long", 1_000_000
	go func() { _, _ = s.Run(ctx, []Job{long}) }()
	time.Sleep(time.Second) // B or A2 has started it
	cancel()
	t0 := time.Now()
	for _, d := range []chan error{doneB, doneA2} {
		select {
		case err := <-d:
			assert.NoError(t, err)
		case <-time.After(2 * time.Second):
			t.Fatal("a worker did not return within 2 s of its context's end")
		}
	}
	stopped := time.Since(t0)
	t.Logf("workers returned %v after their context ended mid-job", stopped.Round(time.Millisecond))
	assert.Less(t, stopped, time.Second)
	nc, js, err := Connect(srv.URL())
	require.NoError(t, err)
	defer nc.Close()
	kv, err := js.KeyValue(context.Background(), AttemptsBucket)
	require.NoError(t, err)
	e, err := kv.Get(context.Background(), attemptKey(&long))
	require.NoError(t, err)
	assert.Equal(t, "0", string(e.Value()), "the stopped start is taken back")
}

// fiveJobs opens a session with options o (an embedded server, no
// workers, a log) in a new directory, for the test spec's first five
// jobs.
func fiveJobs(t *testing.T, o Options) (s *Session, jobs []Job, log *logLines, dir string) {
	t.Helper()
	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	log = &logLines{}
	dir = t.TempDir()
	o.Out, o.Workers, o.Log = dir, 0, log.logf
	s, err = Open(spec, o)
	require.NoError(t, err)
	return s, jobs[:5], log, dir
}

// resultLines reads a results file, every line.
func resultLines(t *testing.T, path string) []Result {
	t.Helper()
	m, err := readResults(path)
	require.NoError(t, err)
	require.Equal(t, len(m), countLines(t, path), "one line per job id")
	out := make([]Result, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	return out
}

// A job the server loses (the jobs stream purged, as a server restarted
// without its store) is published again after the republication
// deadline, and its result recorded once.
func TestCoordinatorRepublishesLostJobs(t *testing.T) {
	s, jobs, log, dir := fiveJobs(t, Options{Republish: time.Second})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ran := runInBackground(ctx, s, jobs)
	st, err := s.js.Stream(ctx, JobsStream)
	require.NoError(t, err)
	for {
		info, err := st.Info(ctx)
		require.NoError(t, err)
		if info.State.Msgs == uint64(len(jobs)) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, st.Purge(ctx))
	start := time.Now()
	wk := &Worker{URL: s.URL, Name: "w"}
	go func() { _ = wk.Run(ctx) }()
	res := waitOutcome(t, ran, 30*time.Second, "lost jobs not republished")
	took := time.Since(start)
	for i := range jobs {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		sameResult(t, alone, res[i])
	}
	assert.Equal(t, len(jobs), s.Republished)
	assert.Equal(t, 1, log.count("publishing the 5 jobs without one again"))
	assert.GreaterOrEqual(t, took, 900*time.Millisecond, "not before the deadline")
	assert.Equal(t, len(jobs), countLines(t, filepath.Join(dir, ResultsFile)))
}

// holdJob is a Worker.hold that keeps the job id with its worker for d
// after its run.
func holdJob(id string, d time.Duration) func(*Job) time.Duration {
	return func(j *Job) time.Duration {
		if j.ID == id {
			return d
		}
		return 0
	}
}

// A job that runs for many ack waits on a server that stays up is
// delivered once and started once: its worker's progress heartbeats
// (every ack wait / 4) keep the server from redelivering it. The job is
// held 4 ack waits of 0.5 s after its run (Worker.hold: the same length
// at any load); a heartbeat may be delayed by 375 ms before the server
// would redeliver.
func TestSlowJobHeartbeats(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("about 2 s; timing-bound, not under the race detector")
	}
	spec := parseTestSpec(t, testSpec)
	all, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	j := all[0]
	const ackWait = 500 * time.Millisecond
	var log logLines
	s, err := Open(spec, Options{Out: t.TempDir(), Workers: 0, AckWait: ackWait, Log: log.logf})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ran := runInBackground(ctx, s, []Job{j})
	wk := &Worker{URL: s.URL, Name: "w", AckWait: ackWait, Log: log.logf, hold: holdJob(j.ID, 4*ackWait)}
	go func() { _ = wk.Run(ctx) }()
	res := waitOutcome(t, ran, 30*time.Second, "the slow job did not finish")
	require.Len(t, res, 1)
	r := res[0]
	require.Equal(t, StatusOK, r.Status, r.Error)
	t.Logf("slow job %.2f s (%.1f ack waits), %d delivery, %d start", r.Seconds, r.Seconds/ackWait.Seconds(), r.Deliveries, r.Attempts)
	assert.GreaterOrEqual(t, r.Seconds, 4*ackWait.Seconds(), "the slow job outlasts four ack waits")
	assert.Equal(t, 1, r.Deliveries, "never redelivered")
	assert.Equal(t, 1, r.Attempts)
}
