package sweep

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testSpec is the shipped experiments e1–e4 with a 5 × 5 grid over μ_s
// and the tripod radius and two solvers: 200 jobs of 40 steps.
const testSpec = `{
  "scene": "push", "steps": 40, "set": {"push_speed": "0.5", "push_distance": "0.06", "mu_p": "0.3", "mu_f": "0.4"},
  "params": [
    {"name": "mu_s", "min": 0.1, "max": 0.9, "step": 0.2},
    {"name": "tripod", "values": [0.01, 0.02, 0.03, 0.04, 0.05]}
  ],
  "experiments": [
    {"name": "e1", "set": {"object_x": "0.01", "pusher_angle": "0.3"}, "measured": "e1.csv"},
    {"name": "e2", "set": {"object_x": "-0.015", "pusher_angle": "-0.25"}, "measured": "e2.csv"},
    {"name": "e3", "set": {"object_x": "0.02"}, "measured": "e3.csv"},
    {"name": "e4", "set": {"object_x": "-0.005", "pusher_angle": "0.15", "object_angle": "0.5"}, "measured": "e4.csv"}
  ],
  "solvers": ["bpp", "lemke"], "body": 0, "angle_length": 0.05
}`

func parseTestSpec(t testing.TB, src string) *Spec {
	t.Helper()
	s, err := ParseSpec([]byte(src), shippedDir)
	require.NoError(t, err)
	return s
}

func sameResult(t *testing.T, want, got Result) {
	t.Helper()
	require.Equal(t, StatusOK, got.Status, "%s: %s", got.ID, got.Error)
	for _, p := range [][2]float64{{want.E, got.E}, {want.MaxErr, got.MaxErr}, {want.FinalErr, got.FinalErr}} {
		require.Equal(t, math.Float64bits(p[0]), math.Float64bits(p[1]), "%s: %v ≠ %v", got.ID, p[0], p[1])
	}
	require.Equal(t, want.Steps, got.Steps)
	require.Equal(t, want.BudgetHits, got.BudgetHits)
	require.Equal(t, want.Params, got.Params)
}

// 200 jobs through the embedded server and in-process workers give, per
// job, bit for bit what running the job alone gives; a second session
// on the same directory resumes with nothing to do, and the results file
// holds each job exactly once.
func TestQueueEqualsRunAlone(t *testing.T) {
	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	require.Len(t, jobs, 200)
	dir := t.TempDir()
	s, err := Open(spec, Options{Out: dir, Workers: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, res, err := s.Sweep(ctx)
	s.Close()
	require.NoError(t, err)
	require.Len(t, res, len(jobs))
	for i := range jobs {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		require.Equal(t, jobs[i].ID, res[i].ID)
		sameResult(t, alone, res[i])
	}
	// Resume: everything is recorded, nothing is published.
	s2, err := Open(spec, Options{Out: dir, Workers: 0})
	require.NoError(t, err)
	_, res2, err := s2.Sweep(ctx)
	s2.Close()
	require.NoError(t, err)
	for i := range res {
		sameResult(t, res[i], res2[i])
	}
	assert.Equal(t, len(jobs), countLines(t, filepath.Join(dir, ResultsFile)), "each job recorded once")
	// Another spec may not write into this directory.
	other := parseTestSpec(t, strings.Replace(testSpec, `"steps": 40`, `"steps": 41`, 1))
	_, err = Open(other, Options{Out: dir, Workers: 0})
	require.ErrorContains(t, err, "another spec")
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// A job that cannot run is refused: recorded failed at once with its
// error (runs are deterministic, so a second run would fail the same
// way), never started, never dropped.
func TestQueueRecordsFailedJob(t *testing.T) {
	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	bad := jobs[0]
	bad.ID = "bad"
	bad.Body = 7 // the scene has 2 bodies: Run fails
	s, err := Open(spec, Options{Out: t.TempDir(), Workers: 1})
	require.NoError(t, err)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.Run(ctx, []Job{bad, jobs[1]})
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, res[0].Status)
	assert.Equal(t, "refused: body: scene push has 2 bodies, got 7", res[0].Error)
	assert.Equal(t, 0, res[0].Attempts, "never started")
	assert.Equal(t, 1, res[0].Deliveries)
	assert.Equal(t, StatusOK, res[1].Status)
	assert.Zero(t, s.Redeliveries)
}

// A worker of another build refuses a job; the build that matches runs it.
func TestWorkerRefusesOtherBuild(t *testing.T) {
	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs("other-build")
	require.NoError(t, err)
	s, err := Open(spec, Options{Out: t.TempDir(), Workers: 0})
	require.NoError(t, err)
	defer s.Close()
	var logged logLines
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wk := &Worker{URL: s.URL, Concurrency: 1, Log: logged.logf}
	go func() { _ = wk.Run(ctx) }()
	refuseDelay = 100 * time.Millisecond
	defer func() { refuseDelay = time.Second }()
	other := &Worker{URL: s.URL, Concurrency: 1, Build: "other-build", Name: "other"}
	go func() {
		time.Sleep(300 * time.Millisecond) // the refusing worker sees the job first
		_ = other.Run(ctx)
	}()
	rctx, rcancel := context.WithTimeout(ctx, time.Minute)
	defer rcancel()
	res, err := s.Run(rctx, jobs[:1])
	require.NoError(t, err)
	assert.Equal(t, "other", res[0].Worker)
	assert.Equal(t, StatusOK, res[0].Status)
	cancel()
	assert.Positive(t, logged.count("refusing job"))
}

// An unreachable server fails within 5 s with one line.
func TestUnreachableNATS(t *testing.T) {
	start := time.Now()
	spec := parseTestSpec(t, testSpec)
	_, err := Open(spec, Options{Out: t.TempDir(), NATS: "nats://127.0.0.1:1"})
	require.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, err.Error(), "--nats nats://127.0.0.1:1")
}

// silentKV is an attempts bucket whose requests never get a reply, as a
// request in flight to a server that shuts down.
type silentKV struct{ jetstream.KeyValue }

func (silentKV) Create(ctx context.Context, _ string, _ []byte, _ ...jetstream.KVCreateOpt) (uint64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

// A worker counting a job's start gives up on an unanswered request
// after requestWait, whatever its own context's deadline: it hands the
// job back and fetches again (before, both workers of TestCluster could
// wait on such a request for the rest of their two-minute context,
// holding their jobs, and the sweep hung).
func TestStartAttemptUnanswered(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	_, _, err := startAttempt(ctx, silentKV{}, "k")
	require.Error(t, err)
	assert.Less(t, time.Since(start), requestWait+time.Second)
}
