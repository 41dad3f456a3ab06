package sweep

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shorten sets *v to d for the test.
func shorten(t *testing.T, v *time.Duration, d time.Duration) {
	old := *v
	*v = d
	t.Cleanup(func() { *v = old })
}

// A worker whose set-up requests get no reply (a node that took them
// shut down; here a server without JetStream where a subscriber takes
// the JetStream API's requests and never answers) gives up on each after
// setupWait, says so, and tries again, whatever its own context's
// deadline (a minute here): before, jetstream waited for that deadline,
// jetstream's own 5 s default applying only to contexts without one. It
// returns as soon as its context ends.
func TestWorkerSetupUnanswered(t *testing.T) {
	shorten(t, &setupWait, 300*time.Millisecond)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(10*time.Second))
	defer srv.Shutdown()
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	var asked logLines
	_, err = nc.Subscribe("$JS.API.>", func(m *nats.Msg) { asked.logf("%s", m.Subject) })
	require.NoError(t, err)
	require.NoError(t, nc.Flush())

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var log logLines
	wk := &Worker{URL: srv.ClientURL(), Name: "w", Log: log.logf}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- wk.Run(ctx) }()
	// Two set-up attempts (300 ms each, 200 ms apart): 0.8 s; 5 s
	// allows a loaded machine's scheduling.
	for asked.count("$JS.API.STREAM.INFO.KV_"+AttemptsBucket) < 2 {
		require.Less(t, time.Since(start), 5*time.Second, "no second set-up attempt: the first one waits on its unanswered request")
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("second set-up attempt %v after the start", time.Since(start).Round(time.Millisecond))
	assert.Equal(t, 1, log.count("worker: setting up the queue: attempts bucket: context deadline exceeded; retrying"), "logged once: %q", log.lines)
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not return within 5 s of its context's end")
	}
}

// A coordinator whose jobs' acknowledgements never come (the node that
// stored them shut down; here the jobs stream deleted and a subscriber
// taking the jobs' subject without answering) publishes them again after
// publishWait, with the same message ids, until they are stored; the
// sweep then completes, each job in the stream once and its result
// recorded once. Before, the coordinator waited for the lost
// acknowledgements for the rest of its context and collected nothing.
func TestCoordinatorPublishUnacknowledged(t *testing.T) {
	shorten(t, &publishWait, 300*time.Millisecond)
	s, jobs, log, dir := fiveJobs(t, Options{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.js.DeleteStream(ctx, JobsStream))
	nc, _, err := Connect(s.URL)
	require.NoError(t, err)
	defer nc.Close()
	sink, err := nc.Subscribe("gorigid.jobs.>", func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, nc.Flush())

	ran := runInBackground(ctx, s, jobs)
	start := time.Now()
	for log.count("jobs not acknowledged") < 2 {
		require.Less(t, time.Since(start), 10*time.Second, "publication not tried again: waiting on lost acknowledgements")
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("published again twice %v after the start", time.Since(start).Round(time.Millisecond))
	assert.Contains(t, strings.Join(log.lines, "\n"), "coordinator: 5 of 5 jobs not acknowledged (nats: timeout waiting for ack): publishing them again")
	require.NoError(t, sink.Unsubscribe())
	_, err = ensureStreams(ctx, s.js, 0, 1)
	require.NoError(t, err)
	st, err := s.js.Stream(ctx, JobsStream)
	require.NoError(t, err)
	for {
		info, err := st.Info(ctx)
		require.NoError(t, err)
		if info.State.Msgs >= uint64(len(jobs)) {
			break
		}
		require.Less(t, time.Since(start), 20*time.Second, "jobs not stored after the stream came back")
		time.Sleep(10 * time.Millisecond)
	}
	wk := &Worker{URL: s.URL, Name: "w"}
	go func() { _ = wk.Run(ctx) }()
	res := waitOutcome(t, ran, 30*time.Second, "the sweep did not complete once the jobs were stored")
	for i := range jobs {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		sameResult(t, alone, res[i])
	}
	info, err := st.Info(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(len(jobs)), info.State.LastSeq, "each job stored once (the copies dropped by message id)")
	assert.Equal(t, len(jobs), countLines(t, filepath.Join(dir, ResultsFile)))
	assert.Zero(t, s.Republished)
}
