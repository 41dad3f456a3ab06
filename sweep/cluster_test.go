package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The setup of docs/fleet.md in one process: a three-node JetStream
// cluster (token auth for clients, user and password on the routes),
// the queue's streams replicated three times, a coordinator and two
// workers given every node's URL. One node is shut down mid-sweep: its
// clients reconnect to the others, the streams keep their two copies,
// and the sweep completes with every result equal to the job run alone
// and recorded once. The ack wait is 2 s: a job on its way to a worker
// through the lost node comes back after it.
func TestCluster(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a three-node cluster, about 10 s")
	}
	dir := t.TempDir()
	var routes, urls []string
	client := make([]int, 3)
	for i := range 3 {
		client[i] = freePort(t)
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", freePort(t)))
		urls = append(urls, fmt.Sprintf("nats://127.0.0.1:%d", client[i]))
	}
	nodes := make([]*Embedded, 3)
	for i := range 3 {
		var err error
		nodes[i], err = StartServer(filepath.Join(dir, fmt.Sprint("n", i)), ServerOptions{
			Listen: fmt.Sprintf("127.0.0.1:%d", client[i]), Token: "fleet-token", Name: fmt.Sprint("n", i),
			Cluster: strings.TrimPrefix(routes[i], "nats-route://"), Routes: routes,
			ClusterUser: "route", ClusterPassword: "route-pw"})
		require.NoError(t, err)
		defer nodes[i].Close()
	}
	auth := Auth{Token: "fleet-token"}
	all := strings.Join(urls, ",")

	spec := parseTestSpec(t, testSpec)
	jobs, err := spec.Jobs(BuildID())
	require.NoError(t, err)
	jobs = jobs[:80]
	var s *Session
	deadline := time.Now().Add(30 * time.Second)
	for {
		// JetStream's meta leader is elected a few seconds after start.
		s, err = Open(spec, Options{Out: filepath.Join(dir, "out"), NATS: all, Auth: auth, Replicas: 3, Workers: 0, AckWait: 2 * time.Second})
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "cluster not ready after 30 s: %v", err)
		time.Sleep(200 * time.Millisecond)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log logLines
	for i := range 2 {
		wk := &Worker{URL: all, Auth: auth, Name: fmt.Sprint("w", i), Log: log.logf}
		go func() { _ = wk.Run(ctx) }()
	}
	ran := runInBackground(ctx, s, jobs)
	waitResults(t, s, 20, 60*time.Second)
	// The node with the most clients (the coordinator, the workers).
	lost := 0
	for i := range nodes {
		if nodes[i].srv.NumClients() > nodes[lost].srv.NumClients() {
			lost = i
		}
	}
	clients := nodes[lost].srv.NumClients()
	nodes[lost].Close()
	start := time.Now()
	res := waitOutcome(t, ran, 90*time.Second, "the sweep did not complete after a node's loss")
	t.Logf("cluster: node n%d (%d clients) shut down after 20 of %d results; the sweep completed %v later; %d redeliveries, %d republished; %d workers' reconnections logged",
		lost, clients, len(jobs), time.Since(start).Round(100*time.Millisecond), s.Redeliveries, s.Republished, log.count("reconnected after"))
	for i := range jobs {
		alone, err := Run(&jobs[i])
		require.NoError(t, err)
		sameResult(t, alone, res[i])
	}
	assert.Equal(t, len(jobs), countLines(t, filepath.Join(dir, "out", ResultsFile)), "each job recorded once")
	assert.Positive(t, clients)
}
