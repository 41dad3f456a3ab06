package sweep

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The JetStream layout: jobs go to the work-queue stream JobsStream on
// subject "gorigid.jobs.<sweep>", consumed by the durable pull consumer
// WorkerConsumer that every worker shares (each job goes to one worker;
// an unacknowledged job is redelivered after the ack wait); results go to
// ResultsStream on "gorigid.results.<sweep>", published with the job id
// as message id (the stream drops a duplicate within its window) and
// read back from the start by the coordinator, which keeps the first
// result per job id.
const (
	JobsStream     = "GORIGID_JOBS"
	ResultsStream  = "GORIGID_RESULTS"
	WorkerConsumer = "gorigid-workers"
	// AttemptsBucket is a key-value bucket counting, per job, how often
	// a worker of the job's build started it (refusals do not count).
	AttemptsBucket = "GORIGID_ATTEMPTS"
	// MaxAttempts is how often a job is started before it is recorded as
	// failed: its run failed that often, or workers died mid-job that
	// often.
	MaxAttempts = 3
	// DefaultAckWait is how long a worker may hold a job before JetStream
	// redelivers it.
	DefaultAckWait = 30 * time.Second
	// ConnectTimeout bounds connecting to a --nats URL.
	ConnectTimeout = 2 * time.Second
)

func jobsSubject(sweep string) string    { return "gorigid.jobs." + short(sweep) }
func resultsSubject(sweep string) string { return "gorigid.results." + short(sweep) }

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	if h == "" {
		return "none"
	}
	return h
}

var (
	buildOnce sync.Once
	buildID   string
)

// BuildID identifies this gorigid build: the SHA-256 of the running
// executable (hex), or "unknown" if it cannot be read. Jobs carry the
// coordinator's; a worker refuses a job of another build.
func BuildID() string {
	buildOnce.Do(func() {
		buildID = "unknown"
		p, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(p)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			buildID = hex.EncodeToString(h.Sum(nil))
		}
	})
	return buildID
}

// Embedded is a NATS server with JetStream inside this process, its
// store in a directory.
type Embedded struct {
	srv *server.Server
}

// ServerOptions configure StartServer. The zero value is the embedded
// server of a sweep: 127.0.0.1 at a free port, no authentication.
type ServerOptions struct {
	// Listen is HOST:PORT; "" = 127.0.0.1 at a free port, a HOST of ""
	// (":4222") = every interface. Other machines reach the server only
	// if it listens on an interface of theirs: give it authentication
	// then.
	Listen string
	// Token, or User and Password, are what clients must present; the
	// zero values accept any client.
	Token          string
	User, Password string
	// NKeys are the public keys ("U…") of users who authenticate with
	// their NKey seed (Auth.NKeySeed); with User and Password, either
	// way is accepted.
	NKeys []string
	// Cert and Key are the server's TLS certificate and key (PEM files):
	// with them clients must connect with TLS. CA, if set, is the PEM
	// file of the authorities that sign client certificates: clients
	// must then present one (Auth.Cert, Auth.Key).
	Cert, Key, CA string
	// Name names the server in a cluster ("" = a generated name); Cluster
	// is the HOST:PORT its cluster routes listen on ("" = no cluster);
	// Routes are the nats-route://HOST:PORT URLs of the cluster's
	// servers (its own may be among them). ClusterName names the
	// cluster ("" = "gorigid"). ClusterUser and ClusterPassword, if set,
	// are what routes between the servers must present.
	Name, Cluster, ClusterName   string
	Routes                       []string
	ClusterUser, ClusterPassword string
}

// StartEmbedded starts a server on 127.0.0.1 storing its streams under
// dir; port 0 picks a free port.
func StartEmbedded(dir string, port int) (*Embedded, error) {
	return StartServer(dir, ServerOptions{Listen: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))})
}

// StartServer starts a server storing its streams under dir. The error
// names the option at fault.
func StartServer(dir string, o ServerOptions) (*Embedded, error) {
	host, port := "127.0.0.1", server.RANDOM_PORT
	if o.Listen != "" {
		h, p, err := net.SplitHostPort(o.Listen)
		if err != nil {
			return nil, fmt.Errorf("--listen %s: want HOST:PORT: %v", o.Listen, err)
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("--listen %s: port must be 0…65535, got %q", o.Listen, p)
		}
		host = h
		if host == "" {
			host = "0.0.0.0"
		}
		if n != 0 {
			port = n
		}
	}
	switch {
	case o.Token != "" && (o.User != "" || o.Password != "" || len(o.NKeys) > 0):
		return nil, errors.New("--token: give it alone, not with --user or --nkey")
	case (o.User == "") != (o.Password == ""):
		return nil, errors.New("--user and --password: give both or neither")
	case (o.Cert == "") != (o.Key == ""):
		return nil, errors.New("--tls-cert and --tls-key: give both or neither")
	case o.CA != "" && o.Cert == "":
		return nil, errors.New("--tls-ca: verifying clients needs the server's own --tls-cert and --tls-key")
	}
	so := &server.Options{Host: host, Port: port, JetStream: true, StoreDir: dir, NoSigs: true, NoLog: true,
		MaxPayload: 8 << 20, Authorization: o.Token}
	if o.User != "" {
		so.Users = []*server.User{{Username: o.User, Password: o.Password}}
	}
	if o.Name != "" {
		so.ServerName = o.Name
	}
	if o.Cluster != "" {
		h, p, err := net.SplitHostPort(o.Cluster)
		n, perr := strconv.Atoi(p)
		if err != nil || perr != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("--cluster %s: want HOST:PORT with a port 1…65535", o.Cluster)
		}
		if o.Name == "" {
			return nil, errors.New("--cluster: a clustered server needs --name, unique in the cluster")
		}
		so.Cluster = server.ClusterOpts{Name: cmp.Or(o.ClusterName, "gorigid"), Host: cmp.Or(h, "0.0.0.0"), Port: n,
			Username: o.ClusterUser, Password: o.ClusterPassword}
		for _, r := range o.Routes {
			u, err := url.Parse(r)
			if err != nil || u.Host == "" {
				return nil, fmt.Errorf("--routes %s: want nats-route://HOST:PORT", r)
			}
			if o.ClusterUser != "" {
				u.User = url.UserPassword(o.ClusterUser, o.ClusterPassword)
			}
			so.Routes = append(so.Routes, u)
		}
	} else if len(o.Routes) > 0 {
		return nil, errors.New("--routes: needs --cluster HOST:PORT")
	}
	for _, k := range o.NKeys {
		if !strings.HasPrefix(k, "U") {
			return nil, fmt.Errorf("--nkey %s: want a user's public key (U…)", k)
		}
		so.Nkeys = append(so.Nkeys, &server.NkeyUser{Nkey: k})
	}
	if o.Cert != "" {
		tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: o.Cert, KeyFile: o.Key, CaFile: o.CA, Verify: o.CA != ""})
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %v", o.Cert, o.Key, err)
		}
		so.TLSConfig, so.TLS, so.TLSVerify = tc, true, o.CA != ""
	}
	s, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("nats server: not ready within 10 s (is %s:%d free?)", host, port)
	}
	return &Embedded{srv: s}, nil
}

// URL returns the client URL (nats://HOST:PORT).
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Close shuts the server down and waits for it.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// Connect connects to url within ConnectTimeout, without credentials,
// and returns the connection and its JetStream context. The error is one
// line.
func Connect(url string) (*nats.Conn, jetstream.JetStream, error) {
	l, err := dial(url, Auth{}, 0, nil)
	if err != nil {
		return nil, nil, err
	}
	return l.nc, l.js, nil
}

// MaxDeliveries is the workers' consumer's MaxDeliver: a job delivered
// that often is recorded failed on its last delivery, whatever happened
// to the earlier ones (refusals by workers of other builds, workers
// killed mid-job, results lost), and terminated; JetStream never offers
// it again.
const MaxDeliveries = 8

// setupWait bounds each JetStream request of a worker's or a
// coordinator's set-up (the streams, the bucket, the consumers), as
// requestWait bounds a worker's requests while it holds a job. A request
// sent to a node that shuts down gets no reply, and jetstream's own 5 s
// default applies only to a context without a deadline: under a caller's
// context with a far deadline a worker starting then waited for that
// deadline before running anything. 5 s is jetstream's default, which
// a cluster's stream creation (three copies placed, a leader elected)
// fits in. A variable for the tests.
var setupWait = 5 * time.Second

// transient tells the errors a JetStream request gets while its server
// or its cluster's leader is away (no reply within the bound, no
// responders, JetStream not ready) from the errors of a request the
// server refused.
func transient(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) ||
		errors.Is(err, jetstream.ErrAsyncPublishTimeout) || errors.Is(err, jetstream.ErrTooManyStalledMsgs) ||
		errors.Is(err, jetstream.ErrJetStreamNotEnabled) || errors.Is(err, nats.ErrConnectionReconnecting)
}

// ensureStreams creates the two streams and the attempts bucket, with
// replicas copies each (0 = 1), if they are missing (existing ones keep
// their settings, so a worker never changes a cluster's replication),
// and the workers' consumer. An existing consumer keeps its ack wait;
// its MaxDeliver is set to MaxDeliveries. Each request is bounded by
// setupWait.
func ensureStreams(ctx context.Context, js jetstream.JetStream, ackWait time.Duration, replicas int) (jetstream.Consumer, error) {
	replicas = max(replicas, 1)
	rctx, cancel := context.WithTimeout(ctx, setupWait)
	_, err := js.KeyValue(rctx, AttemptsBucket)
	cancel()
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		rctx, cancel := context.WithTimeout(ctx, setupWait)
		_, err = js.CreateKeyValue(rctx, jetstream.KeyValueConfig{Bucket: AttemptsBucket, Storage: jetstream.FileStorage, Replicas: replicas})
		cancel()
		if err != nil && !errors.Is(err, jetstream.ErrBucketExists) {
			return nil, fmt.Errorf("attempts bucket: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("attempts bucket: %w", err)
	}
	for _, cfg := range []jetstream.StreamConfig{
		{Name: JobsStream, Subjects: []string{"gorigid.jobs.>"}, Retention: jetstream.WorkQueuePolicy,
			Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute, Replicas: replicas},
		{Name: ResultsStream, Subjects: []string{"gorigid.results.>"}, Storage: jetstream.FileStorage,
			Duplicates: 10 * time.Minute, Replicas: replicas},
	} {
		rctx, cancel := context.WithTimeout(ctx, setupWait)
		_, err := js.Stream(rctx, cfg.Name)
		cancel()
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			rctx, cancel := context.WithTimeout(ctx, setupWait)
			_, err = js.CreateStream(rctx, cfg)
			cancel()
			if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				return nil, fmt.Errorf("stream %s: %w", cfg.Name, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("stream %s: %w", cfg.Name, err)
		}
	}
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	cfg := jetstream.ConsumerConfig{Durable: WorkerConsumer, AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait,
		MaxDeliver: MaxDeliveries, FilterSubject: "gorigid.jobs.>"}
	rctx, cancel = context.WithTimeout(ctx, setupWait)
	c, err := js.Consumer(rctx, JobsStream, WorkerConsumer)
	cancel()
	if err == nil {
		if c.CachedInfo().Config.MaxDeliver == MaxDeliveries {
			return c, nil
		}
		cfg.AckWait = c.CachedInfo().Config.AckWait
	}
	rctx, cancel = context.WithTimeout(ctx, setupWait)
	c, err = js.CreateOrUpdateConsumer(rctx, JobsStream, cfg)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("workers' consumer: %w", err)
	}
	return c, nil
}

// Worker runs jobs from the queue. Each runner fetches a job only when
// it is free (no job waits in the worker unstarted), tells JetStream
// every ack wait / 4 that the job is in progress (so a long job is not
// redelivered while it runs), and stops it at its wall-clock limit or
// when Run's context ends. A job is refused, recorded failed and
// terminated at once when it cannot run or is over the limits
// (Limits.Check); one started MaxAttempts times, or delivered
// MaxDeliveries times, without a result is recorded failed and
// terminated. A job of another build is handed back for another worker.
type Worker struct {
	URL         string
	Auth        Auth
	Concurrency int    // jobs at a time; ≥ 1
	Build       string // "" = BuildID()
	Name        string // recorded in results
	AckWait     time.Duration
	// Replicas is the number of copies of the streams in a JetStream
	// cluster, if this worker creates them (0 = 1).
	Replicas int
	// Limits bound each job (zero fields: DefaultLimits).
	Limits Limits
	// ReconnectWindow is how long the worker keeps reconnecting to a
	// lost server before Run returns an error; 0 = DefaultReconnectWindow.
	ReconnectWindow time.Duration
	// Log, if set, gets one line per refused or failed job, and per
	// loss of the server, reconnection attempt and reconnection.
	Log func(format string, args ...any)

	// crash, if set (tests), makes the worker drop a job it started as a
	// worker killed mid-job would: no result, no ack.
	crash func(*Job) bool
	// hold, if set (tests), keeps a job with its worker for the returned
	// time after its run, heartbeats going, as a job that long would: a
	// slow job whose length does not depend on the machine's load.
	hold func(*Job) time.Duration
}

// fetchWait bounds one fetch of a job; a runner then fetches again.
const fetchWait = 5 * time.Second

// pullHeartbeat is how often the server tells a waiting fetch (and the
// coordinator's reading of results) that it still holds its request. A
// pull request held by a node that shuts down, or sent while the
// consumer's leader is elected again, gets no answer at all: without
// heartbeats a runner noticed only at fetchWait, and TestCluster's
// workers lost two fetches in a row that way (the sweep stalled 5 s or
// 10–11 s after the node's loss in one run in six). Two missed
// heartbeats (2 s) end the fetch, and the runner fetches again.
const pullHeartbeat = time.Second

// Run takes jobs until ctx is cancelled (it then returns nil, the
// running jobs stopped within a step and handed back to the queue) or
// the server is lost for longer than the reconnect window (it returns
// an error saying so).
func (wk *Worker) Run(ctx context.Context) error {
	if err := wk.Limits.Validate(); err != nil {
		return err
	}
	l, err := dial(wk.URL, wk.Auth, wk.ReconnectWindow, wk.Log)
	if err != nil {
		return err
	}
	defer l.close()
	// Losing the server stops the running jobs too: their results could
	// not be recorded, and JetStream redelivers them after the ack wait.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-l.lost:
			cancel()
		case <-sctx.Done():
		}
	}()
	err = wk.serve(sctx, l)
	if ctx.Err() != nil {
		return nil
	}
	if lerr := l.lostErr(); lerr != nil {
		return lerr
	}
	return err
}

func (wk *Worker) serve(ctx context.Context, l *link) error {
	cons, kv, err := wk.setup(ctx, l)
	if err != nil || cons == nil {
		return err
	}
	build := wk.Build
	if build == "" {
		build = BuildID()
	}
	ackWait := cons.CachedInfo().Config.AckWait
	n := max(wk.Concurrency, 1)
	errs := make(chan error, n)
	for range n {
		go func() { errs <- wk.runner(ctx, l, cons, kv, build, ackWait) }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// setup finds or creates the streams, the workers' consumer and the
// attempts bucket, each request bounded by setupWait. A request that
// gets no reply in time (its node shut down, a leader being elected) or
// finds JetStream not ready is tried again, the error logged once, until
// ctx ends or the link is lost (it then returns nils): an in-process
// worker that gave up here would leave its sweep without workers. An
// error the server answers with is returned.
func (wk *Worker) setup(ctx context.Context, l *link) (jetstream.Consumer, jetstream.KeyValue, error) {
	var logged string
	for {
		cons, err := ensureStreams(ctx, l.js, wk.AckWait, wk.Replicas)
		var kv jetstream.KeyValue
		if err == nil {
			rctx, cancel := context.WithTimeout(ctx, setupWait)
			kv, err = l.js.KeyValue(rctx, AttemptsBucket)
			cancel()
			if err == nil {
				return cons, kv, nil
			}
			err = fmt.Errorf("attempts bucket: %w", err)
		}
		if ctx.Err() != nil || l.lostErr() != nil {
			return nil, nil, nil
		}
		if !transient(err) {
			return nil, nil, err
		}
		if err.Error() != logged {
			logged = err.Error()
			wk.logf("worker: setting up the queue: %v; retrying", err)
		}
		l.pause(ctx, 200*time.Millisecond)
	}
}

// runner fetches and runs jobs one at a time until ctx ends or the link
// is lost.
func (wk *Worker) runner(ctx context.Context, l *link, cons jetstream.Consumer, kv jetstream.KeyValue, build string, ackWait time.Duration) error {
	var lastErr string
	for {
		if ctx.Err() != nil || l.lostErr() != nil {
			return nil
		}
		fctx, cancel := context.WithTimeout(ctx, fetchWait)
		opts := []jetstream.FetchOpt{jetstream.FetchContext(fctx)}
		if dl, _ := fctx.Deadline(); time.Until(dl) > 3*pullHeartbeat {
			// (jetstream wants a pull's expiry, 90% of the time left, at
			// least twice its heartbeat)
			opts = append(opts, jetstream.FetchHeartbeat(pullHeartbeat))
		}
		msg, err := cons.Next(opts...)
		cancel()
		if err == nil {
			lastErr = ""
			wk.handle(ctx, l, kv, msg, build, ackWait)
			continue
		}
		switch {
		case ctx.Err() != nil || l.lostErr() != nil:
			return nil
		case errors.Is(err, nats.ErrConnectionClosed):
			return fmt.Errorf("jobs: %w", err)
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
			continue // no job within fetchWait
		}
		// The server restarting, JetStream not ready yet: say so once,
		// and try again.
		if err.Error() != lastErr {
			lastErr = err.Error()
			wk.logf("worker: fetching a job: %v; retrying", err)
		}
		l.pause(ctx, 200*time.Millisecond)
	}
}

func (wk *Worker) logf(format string, args ...any) {
	if wk.Log != nil {
		wk.Log(format, args...)
	}
}

// refuseDelay is how long a job of another build waits before it is
// offered again (to another worker, as JetStream picks).
var refuseDelay = time.Second

// attemptKey is the job's key in the attempts bucket: the sweep and a
// hash of the id (ids may hold characters keys may not, such as "+").
func attemptKey(j *Job) string {
	h := sha256.Sum256([]byte(j.ID))
	return short(j.Sweep) + "." + hex.EncodeToString(h[:12])
}

// doneMark is the attempts bucket's value of a job whose result is
// recorded: a copy of it (a coordinator's republication) is acked unrun.
const doneMark = "done"

// requestWait bounds each JetStream request a worker makes while it
// holds a job (the attempts bucket's reads and writes). A request whose
// reply is lost (its server shut down mid-request, the bucket's leader
// being elected again) gets no answer at all, and the worker's context
// has no deadline, or a far one: without this bound the runner waited
// on it, holding its job, and fetched nothing more.
const requestWait = 2 * time.Second

// startAttempt counts one more start of the job and returns the count,
// or done if the job's result is recorded already. Each request is
// bounded by requestWait; an error means the job is handed back.
func startAttempt(ctx context.Context, kv jetstream.KeyValue, key string) (n int, done bool, err error) {
	// The first start is the common case: one round trip.
	rctx, cancel := context.WithTimeout(ctx, requestWait)
	_, err = kv.Create(rctx, key, []byte("1"))
	cancel()
	if err == nil {
		return 1, false, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return 0, false, err
	}
	for {
		rctx, cancel := context.WithTimeout(ctx, requestWait)
		e, err := kv.Get(rctx, key)
		cancel()
		if err != nil {
			return 0, false, err
		}
		if string(e.Value()) == doneMark {
			return 0, true, nil
		}
		n, _ := strconv.Atoi(string(e.Value()))
		n++
		rctx, cancel = context.WithTimeout(ctx, requestWait)
		_, err = kv.Update(rctx, key, []byte(strconv.Itoa(n)), e.Revision())
		cancel()
		if err == nil {
			return n, false, nil
		}
		if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) && !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, false, err
		}
		// another worker counted in between: read again
	}
}

// undoAttempt takes back the start of a job this worker stopped on its
// own (SIGTERM): the job has not failed. Best effort, within 300 ms.
func undoAttempt(kv jetstream.KeyValue, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	e, err := kv.Get(ctx, key)
	if err != nil {
		return
	}
	if n, err := strconv.Atoi(string(e.Value())); err == nil && n > 0 {
		_, _ = kv.Update(ctx, key, []byte(strconv.Itoa(n-1)), e.Revision())
	}
}

// handle runs one delivered job and records its result.
func (wk *Worker) handle(ctx context.Context, l *link, kv jetstream.KeyValue, msg jetstream.Msg, build string, ackWait time.Duration) {
	var j Job
	if err := json.Unmarshal(msg.Data(), &j); err != nil || j.ID == "" {
		wk.logf("worker: dropping a message that is not a job (%d bytes): %v", len(msg.Data()), err)
		_ = msg.Term()
		return
	}
	deliveries := 1
	if md, err := msg.Metadata(); err == nil {
		deliveries = int(md.NumDelivered)
	}
	last := deliveries >= MaxDeliveries
	res := Result{ID: j.ID, Experiment: j.Experiment, Solver: j.Solver, Params: j.Params, Worker: wk.Name,
		Deliveries: deliveries, Status: StatusFailed}
	// A job of another build is another build's to judge; one of this
	// build is checked against the limits before its scene file is
	// written for the hash (a scene over the limits is refused without
	// it).
	var other string // why a worker of another build should take the job
	var refused error
	if j.Build != build {
		other = fmt.Sprintf("built by %s, this worker is %s", short(j.Build), short(build))
	} else if refused = wk.Limits.Check(&j); refused == nil {
		if h, err := SceneHash(j.Scene, j.Set); err != nil {
			refused = &RefusedError{Err: err}
		} else if h != j.SceneHash {
			other = "its scene differs from this worker's (another scene code)"
		}
	}
	key := attemptKey(&j)
	switch {
	case other != "" && !last:
		wk.logf("worker: refusing job %s: %s", j.ID, other)
		_ = msg.NakWithDelay(refuseDelay)
		return
	case other != "":
		res.Error = fmt.Sprintf("delivered %d times (sweep.MaxDeliveries) and refused by the workers: %s", deliveries, other)
	case refused != nil:
		res.Error = refused.Error()
	default:
		attempts, done, err := startAttempt(ctx, kv, key)
		if err != nil {
			_ = msg.NakWithDelay(time.Second)
			return
		}
		if done {
			_ = msg.Ack() // a republished copy of a job with a result
			return
		}
		res.Attempts = attempts
		if attempts > MaxAttempts || last {
			res.Error = fmt.Sprintf("started %d times and delivered %d times without a result (workers killed mid-job, or out of memory)", attempts-1, deliveries)
			break
		}
		if wk.crash != nil && wk.crash(&j) {
			return
		}
		r, err := wk.run(ctx, msg, &j, ackWait)
		if ctx.Err() != nil {
			// This worker is stopping: the job goes back to the queue
			// for another worker, its start not counted.
			undoAttempt(kv, key)
			_ = msg.Nak()
			return
		}
		if err != nil {
			res.Error, res.Seconds = err.Error(), r.Seconds
			break
		}
		r.Attempts, r.Worker, r.Deliveries = attempts, wk.Name, deliveries
		res = r
	}
	if res.Status != StatusOK {
		wk.logf("worker: job %s failed: %s", j.ID, res.Error)
	}
	data, err := json.Marshal(&res)
	if err != nil {
		res = Result{ID: j.ID, Status: StatusFailed, Error: "result not encodable: " + err.Error(), Attempts: res.Attempts, Deliveries: deliveries}
		data, _ = json.Marshal(&res)
	}
	if err := wk.publish(ctx, l, resultsSubject(j.Sweep), data, j.ID); err != nil {
		_ = msg.Nak() // no result recorded: let it run again
		return
	}
	pctx, cancel := context.WithTimeout(context.Background(), time.Second)
	_, _ = kv.Put(pctx, key, []byte(doneMark))
	cancel()
	// A lost ack only means a redelivery, whose copy is acked unrun
	// (doneMark) or whose result is dropped as a duplicate.
	if res.Status == StatusOK {
		_ = msg.Ack()
	} else {
		_ = msg.Term()
	}
}

// run runs the job under the worker's limits, telling JetStream every
// ackWait/4 that it is in progress, until the job ends or its wall-clock
// limit and one more ack wait have passed.
func (wk *Worker) run(ctx context.Context, msg jetstream.Msg, j *Job, ackWait time.Duration) (Result, error) {
	stop := make(chan struct{})
	defer close(stop)
	lim := wk.Limits.OrDefault()
	go func() {
		t := time.NewTicker(max(ackWait/4, 10*time.Millisecond))
		defer t.Stop()
		end := time.After(lim.Wall + ackWait)
		for {
			select {
			case <-t.C:
				_ = msg.InProgress()
			case <-stop:
				return
			case <-end:
				return
			}
		}
	}()
	start := time.Now()
	r, err := RunContext(ctx, j, lim)
	if wk.hold != nil && err == nil {
		select {
		case <-time.After(wk.hold(j)):
		case <-ctx.Done():
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, err
}

// publish publishes a result, retrying with backoff while ctx lasts and
// the link is not lost (a result is deduplicated by its message id, so
// a retry never records it twice).
func (wk *Worker) publish(ctx context.Context, l *link, subject string, data []byte, id string) error {
	delay := 100 * time.Millisecond
	for {
		pctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := l.js.Publish(pctx, subject, data, jetstream.WithMsgID(id))
		cancel()
		if err == nil {
			return nil
		}
		wk.logf("worker: publishing the result of %s: %v; retrying in %v", id, err, delay)
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return err
		case <-l.lost:
			return err
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// Coordinator publishes jobs and collects their results. Start it for
// one sweep; Run may then be called from several goroutines.
type Coordinator struct {
	URL     string
	Auth    Auth
	AckWait time.Duration // of the workers' consumer, if it creates it
	// Replicas is the number of copies of the streams and the attempts
	// bucket in a JetStream cluster, if the coordinator creates them
	// (0 = 1; 3 in a three-node cluster survives the loss of a node).
	Replicas int
	// Limits are the workers' (zero fields: DefaultLimits); their Wall
	// sets the republication deadline.
	Limits Limits
	// Republish is how long Run waits without any new result before it
	// publishes again the jobs that have none; 0 = Limits.Wall + 2 ×
	// the consumer's ack wait (RepublishAfter).
	Republish time.Duration
	// ReconnectWindow is how long the coordinator keeps reconnecting to
	// a lost server before Run returns an error; 0 =
	// DefaultReconnectWindow.
	ReconnectWindow time.Duration
	// Log, if set, gets a line per republication and per loss of the
	// server, reconnection attempt and reconnection.
	Log func(format string, args ...any)
	// Done holds results recorded before (a resumed sweep): their jobs
	// are not published again. Start fills it with the results already
	// in the stream; it then grows with each new result.
	Done map[string]Result
	// OnResult is called once per job id, in arrival order, for each new
	// result (under the coordinator's lock).
	OnResult func(Result) error
	// Progress, if set, is called by Run after each of its results.
	Progress func(done, total int)
	// Redeliveries counts the extra starts of the jobs whose results
	// were collected: Σ (attempts − 1).
	Redeliveries int
	// Republished counts the jobs Run published again.
	Republished int

	link    *link
	js      jetstream.JetStream
	ackWait time.Duration // the consumer's
	sweep   string
	mu      sync.Mutex
	waiters map[string][]chan Result
	msgs    jetstream.MessagesContext
	last    time.Time // of the last new result (or publication)
	err     error     // the results reader's error, once it stopped
}

// RepublishAfter is the coordinator's default republication deadline
// for workers with limits lim and a consumer with ack wait ackWait: a
// live worker returns a job's result within lim.Wall (the run is then
// stopped), and a dead worker's job is redelivered within ackWait and
// then takes at most lim.Wall more; so while any worker runs this
// sweep's jobs, results arrive at least every lim.Wall + 2 × ackWait.
// Longer without one, no worker is running the sweep's jobs: they are
// lost (a server restarted without its store), or every worker is gone
// (a republished copy of a job that has a result is acked unrun).
func RepublishAfter(lim Limits, ackWait time.Duration) time.Duration {
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	return lim.OrDefault().Wall + 2*ackWait
}

// Open connects (the error is one line naming the URL).
func (c *Coordinator) Open() error {
	if c.link != nil {
		return nil
	}
	l, err := dial(c.URL, c.Auth, c.ReconnectWindow, c.Log)
	if err != nil {
		return err
	}
	c.link, c.js = l, l.js
	return nil
}

// Close stops reading results and disconnects.
func (c *Coordinator) Close() {
	if c.msgs != nil {
		c.msgs.Stop()
	}
	c.link.close()
	c.link = nil
}

// Start creates the streams if needed and reads the sweep's results
// from the start of the results stream (those of a coordinator that
// stopped included) until it has caught up; later results keep arriving
// in the background.
func (c *Coordinator) Start(ctx context.Context, sweep string) error {
	if err := c.Open(); err != nil {
		return err
	}
	if c.sweep != "" {
		if c.sweep != sweep {
			return fmt.Errorf("coordinator: started for sweep %s, not %s", short(c.sweep), short(sweep))
		}
		return nil
	}
	if err := c.Limits.Validate(); err != nil {
		return err
	}
	if c.Done == nil {
		c.Done = map[string]Result{}
	}
	c.waiters = map[string][]chan Result{}
	cons, err := ensureStreams(ctx, c.js, c.AckWait, c.Replicas)
	if err != nil {
		return err
	}
	c.ackWait = cons.CachedInfo().Config.AckWait
	rctx, cancel := context.WithTimeout(ctx, setupWait)
	defer cancel()
	st, err := c.js.Stream(rctx, ResultsStream)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	info, err := st.Info(rctx, jetstream.WithSubjectFilter(resultsSubject(sweep)))
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	pending := info.State.Subjects[resultsSubject(sweep)]
	oc, err := c.js.OrderedConsumer(rctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultsSubject(sweep)}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if c.msgs, err = oc.Messages(jetstream.PullHeartbeat(pullHeartbeat)); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	c.sweep = sweep
	caught := make(chan struct{})
	if pending == 0 {
		close(caught)
	}
	go func() {
		var seen uint64
		for {
			m, err := c.msgs.Next()
			if err != nil {
				c.mu.Lock()
				c.err = err
				for id, ws := range c.waiters {
					for _, w := range ws {
						close(w)
					}
					delete(c.waiters, id)
				}
				c.mu.Unlock()
				return
			}
			seen++
			var r Result
			if json.Unmarshal(m.Data(), &r) == nil && r.ID != "" {
				c.record(r)
			}
			if seen == pending {
				close(caught)
			}
		}
	}()
	select {
	case <-caught:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// record keeps the first result of a job id and hands it to its waiters.
func (c *Coordinator) record(r Result) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.Done[r.ID]; dup {
		return // a redelivered job's second result: counted once
	}
	c.Done[r.ID] = r
	c.last = time.Now()
	c.Redeliveries += max(r.Attempts-1, 0)
	if c.OnResult != nil {
		if err := c.OnResult(r); err != nil && c.err == nil {
			c.err = err
		}
	}
	for _, w := range c.waiters[r.ID] {
		w <- r
	}
	delete(c.waiters, r.ID)
}

// publishWait bounds the wait for the server's acknowledgement of a
// published job (jetstream.WithPublishAsyncTimeout on every link). An
// acknowledgement lost with its node never comes, and jetstream waits
// for it without end by default: the coordinator, waiting for every
// job's, never went on to collect results. A variable for the tests.
var publishWait = 5 * time.Second

// closed is a time channel that is always ready.
var closed = func() <-chan time.Time {
	ch := make(chan time.Time)
	close(ch)
	return ch
}()

// publish publishes jobs and waits for the server to acknowledge each;
// suffix, if not "", makes their message ids new (a republication, which
// the stream's duplicate window would otherwise drop). A job whose
// acknowledgement does not come within publishWait, or that finds no
// server or JetStream not ready, is published again with the same
// message id (the stream drops the copy if the first one was stored)
// until ctx ends or the link is lost; an error the server answers with
// is returned.
func (c *Coordinator) publish(ctx context.Context, jobs []*Job, suffix string) error {
	for round := 0; len(jobs) > 0; round++ {
		futs := make([]jetstream.PubAckFuture, len(jobs))
		var again []*Job
		var why error
		for i, j := range jobs {
			data, err := json.Marshal(j)
			if err != nil {
				return fmt.Errorf("job %s: %w", j.ID, err)
			}
			futs[i], err = c.js.PublishAsync(jobsSubject(c.sweep), data, jetstream.WithMsgID(j.ID+suffix))
			if err != nil && !transient(err) {
				return fmt.Errorf("publishing job %s: %w", j.ID, err)
			} else if err != nil {
				again, why = append(again, j), err
			}
		}
		select {
		case <-c.js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		case <-c.link.lost:
			return c.link.lostErr()
		}
		// Every future is resolved now; the bound is for one that a
		// retry after no responders left out of the pending count.
		late := time.After(publishWait)
		for i, f := range futs {
			if f == nil {
				continue
			}
			var err error
			select {
			case <-f.Ok():
				continue
			case err = <-f.Err():
			default:
				select {
				case <-f.Ok():
					continue
				case err = <-f.Err():
				case <-late:
					err = jetstream.ErrAsyncPublishTimeout
					late = closed
				}
			}
			if !transient(err) {
				return fmt.Errorf("publishing job %s: %w", jobs[i].ID, err)
			}
			again, why = append(again, jobs[i]), err
		}
		if len(again) > 0 && c.Log != nil {
			c.Log("coordinator: %d of %d jobs not acknowledged (%v): publishing them again", len(again), len(jobs), why)
		}
		if len(again) > 0 {
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			case <-c.link.lost:
				return c.link.lostErr()
			}
		}
		jobs = again
	}
	c.mu.Lock()
	c.last = time.Now()
	c.mu.Unlock()
	return nil
}

// Run publishes the jobs without a result yet and waits for every job's
// result; results come back in jobs' order. Jobs still without a result
// after the republication deadline with no new result (Republish) are
// published again; a result is recorded once per job id whatever the
// number of copies. Start must have been called for the jobs' sweep (Run
// starts it for the first job's sweep if not).
func (c *Coordinator) Run(ctx context.Context, jobs []Job) ([]Result, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	if err := c.Start(ctx, jobs[0].Sweep); err != nil {
		return nil, err
	}
	out := make([]Result, len(jobs))
	chans := make([]chan Result, len(jobs))
	done := 0
	var todo []*Job
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, fmt.Errorf("results: %w", c.err)
	}
	for i := range jobs {
		if jobs[i].Sweep != c.sweep {
			c.mu.Unlock()
			return nil, fmt.Errorf("job %s: sweep %s, not %s", jobs[i].ID, short(jobs[i].Sweep), short(c.sweep))
		}
		if r, ok := c.Done[jobs[i].ID]; ok {
			out[i] = r
			done++
			continue
		}
		ch := make(chan Result, 1)
		chans[i] = ch
		c.waiters[jobs[i].ID] = append(c.waiters[jobs[i].ID], ch)
		todo = append(todo, &jobs[i])
	}
	c.mu.Unlock()
	if err := c.publish(ctx, todo, ""); err != nil {
		return nil, err
	}
	if c.Progress != nil && done > 0 {
		c.Progress(done, len(jobs))
	}
	after := c.Republish
	if after <= 0 {
		after = RepublishAfter(c.Limits, c.ackWait)
	}
	tick := time.NewTicker(min(after/4, time.Second))
	defer tick.Stop()
	for i := range jobs {
		for chans[i] != nil {
			select {
			case r, ok := <-chans[i]:
				if !ok {
					c.mu.Lock()
					err := c.err
					c.mu.Unlock()
					return nil, fmt.Errorf("results: %w", err)
				}
				out[i], chans[i] = r, nil
				done++
				if c.Progress != nil {
					c.Progress(done, len(jobs))
				}
			case <-tick.C:
				if err := c.republish(ctx, jobs[i:], chans[i:], after); err != nil {
					return nil, err
				}
			case <-c.link.lost:
				return nil, c.link.lostErr()
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return out, err
	}
	return out, nil
}

// republish publishes again those of jobs still waiting for a result
// (chans not nil) if no result came for after.
func (c *Coordinator) republish(ctx context.Context, jobs []Job, chans []chan Result, after time.Duration) error {
	c.mu.Lock()
	stalled := time.Since(c.last) >= after
	var todo []*Job
	if stalled {
		for k := range jobs {
			if _, ok := c.Done[jobs[k].ID]; chans[k] != nil && !ok {
				todo = append(todo, &jobs[k])
			}
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return nil
	}
	if c.Log != nil {
		c.Log("coordinator: no result for %v: publishing the %d jobs without one again", after, len(todo))
	}
	c.mu.Lock()
	c.Republished += len(todo)
	c.mu.Unlock()
	return c.publish(ctx, todo, "#"+strconv.FormatInt(time.Now().UnixNano(), 36))
}

// RunLocal runs the jobs one after another in this process, without a
// queue (the reference the queue's results must equal bit for bit, and
// the baseline of the queue's overhead). A failing job gives a failed
// result with its error.
func RunLocal(jobs []Job) []Result {
	out := make([]Result, len(jobs))
	for i := range jobs {
		r, err := Run(&jobs[i])
		if err != nil {
			r = Result{ID: jobs[i].ID, Experiment: jobs[i].Experiment, Solver: jobs[i].Solver, Params: jobs[i].Params,
				Status: StatusFailed, Error: err.Error()}
		}
		r.Attempts = 1
		out[i] = r
	}
	return out
}
