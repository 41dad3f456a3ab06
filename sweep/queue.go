package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
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

// Embedded is a NATS server with JetStream inside this process, on
// 127.0.0.1 at a free port, its store in a directory.
type Embedded struct {
	srv *server.Server
}

// StartEmbedded starts a server storing its streams under dir; port 0
// picks a free port.
func StartEmbedded(dir string, port int) (*Embedded, error) {
	if port == 0 {
		port = server.RANDOM_PORT
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true, MaxPayload: 8 << 20})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("nats server: not ready within 10 s")
	}
	return &Embedded{srv: s}, nil
}

// URL returns the client URL (nats://127.0.0.1:PORT).
func (e *Embedded) URL() string { return e.srv.ClientURL() }

// Close shuts the server down and waits for it.
func (e *Embedded) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
}

// Connect connects to url within ConnectTimeout and returns the
// connection and its JetStream context. The error is one line.
func Connect(url string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url, nats.Timeout(ConnectTimeout), nats.Name("gorigid"))
	if err != nil {
		return nil, nil, fmt.Errorf("--nats %s: cannot connect: %v", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("--nats %s: %v", url, err)
	}
	return nc, js, nil
}

// ensureStreams creates the two streams, the attempts bucket and the
// workers' consumer if they are missing (an existing consumer keeps its
// settings).
func ensureStreams(ctx context.Context, js jetstream.JetStream, ackWait time.Duration) (jetstream.Consumer, error) {
	if _, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: AttemptsBucket, Storage: jetstream.FileStorage}); err != nil {
		return nil, fmt.Errorf("attempts bucket: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: JobsStream, Subjects: []string{"gorigid.jobs.>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		return nil, fmt.Errorf("jobs stream: %w", err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: ResultsStream, Subjects: []string{"gorigid.results.>"},
		Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
		return nil, fmt.Errorf("results stream: %w", err)
	}
	if ackWait <= 0 {
		ackWait = DefaultAckWait
	}
	c, err := js.Consumer(ctx, JobsStream, WorkerConsumer)
	if err == nil {
		return c, nil
	}
	c, err = js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{Durable: WorkerConsumer,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1, FilterSubject: "gorigid.jobs.>"})
	if err != nil {
		return nil, fmt.Errorf("workers' consumer: %w", err)
	}
	return c, nil
}

// Worker runs jobs from the queue.
type Worker struct {
	URL         string
	Concurrency int    // jobs at a time; ≥ 1
	Build       string // "" = BuildID()
	Name        string // recorded in results
	AckWait     time.Duration
	// Log, if set, gets one line per refused or failed job.
	Log func(format string, args ...any)
}

// Run takes jobs until ctx is cancelled.
func (wk *Worker) Run(ctx context.Context) error {
	nc, js, err := Connect(wk.URL)
	if err != nil {
		return err
	}
	defer nc.Close()
	return wk.serve(ctx, js)
}

func (wk *Worker) serve(ctx context.Context, js jetstream.JetStream) error {
	cons, err := ensureStreams(ctx, js, wk.AckWait)
	if err != nil {
		return err
	}
	build := wk.Build
	if build == "" {
		build = BuildID()
	}
	kv, err := js.KeyValue(ctx, AttemptsBucket)
	if err != nil {
		return fmt.Errorf("attempts bucket: %w", err)
	}
	n := max(wk.Concurrency, 1)
	// One reader pulls with a small prefetch (2 per runner, so a job
	// waits in this process far less than the ack wait) and hands jobs
	// to n runners.
	it, err := cons.Messages(jetstream.PullMaxMessages(2 * n))
	if err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	jobs := make(chan jetstream.Msg)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for msg := range jobs {
				wk.handle(ctx, js, kv, msg, build)
			}
		}()
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	var runErr error
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				runErr = fmt.Errorf("jobs: %w", err)
			}
			break
		}
		select {
		case jobs <- msg:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	it.Stop()
	close(jobs)
	wg.Wait()
	return runErr
}

func (wk *Worker) logf(format string, args ...any) {
	if wk.Log != nil {
		wk.Log(format, args...)
	}
}

// refuseDelay is how long a refused job waits before it is offered again
// (to another worker, as JetStream picks).
var refuseDelay = time.Second

// attemptKey is the job's key in the attempts bucket: the sweep and a
// hash of the id (ids may hold characters keys may not, such as "+").
func attemptKey(j *Job) string {
	h := sha256.Sum256([]byte(j.ID))
	return short(j.Sweep) + "." + hex.EncodeToString(h[:12])
}

// startAttempt counts one more start of the job and returns the count.
func startAttempt(ctx context.Context, kv jetstream.KeyValue, key string) (int, error) {
	// The first start is the common case: one round trip.
	if _, err := kv.Create(ctx, key, []byte("1")); err == nil {
		return 1, nil
	} else if !errors.Is(err, jetstream.ErrKeyExists) {
		return 0, err
	}
	for {
		e, err := kv.Get(ctx, key)
		if err != nil {
			return 0, err
		}
		n := 0
		fmt.Sscan(string(e.Value()), &n)
		n++
		if _, err := kv.Update(ctx, key, []byte(fmt.Sprint(n)), e.Revision()); err == nil {
			return n, nil
		}
		// another worker counted in between: read again
	}
}

// handle runs one delivered job and publishes its result.
func (wk *Worker) handle(ctx context.Context, js jetstream.JetStream, kv jetstream.KeyValue, msg jetstream.Msg, build string) {
	var j Job
	if err := json.Unmarshal(msg.Data(), &j); err != nil || j.ID == "" {
		wk.logf("worker: dropping a message that is not a job (%d bytes): %v", len(msg.Data()), err)
		_ = msg.Term()
		return
	}
	if j.Build != build {
		wk.logf("worker: refusing job %s: built by %s, this worker is %s", j.ID, short(j.Build), short(build))
		_ = msg.NakWithDelay(refuseDelay)
		return
	}
	if h, err := SceneHash(j.Scene, j.Set); err != nil || h != j.SceneHash {
		wk.logf("worker: refusing job %s: its scene differs from this worker's (%v)", j.ID, err)
		_ = msg.NakWithDelay(refuseDelay)
		return
	}
	attempts, err := startAttempt(ctx, kv, attemptKey(&j))
	if err != nil {
		_ = msg.NakWithDelay(time.Second)
		return
	}
	deliveries := 1
	if md, err := msg.Metadata(); err == nil {
		deliveries = int(md.NumDelivered)
	}
	res := Result{ID: j.ID, Experiment: j.Experiment, Solver: j.Solver, Params: j.Params, Attempts: attempts, Worker: wk.Name}
	if attempts > MaxAttempts {
		res.Status, res.Error = StatusFailed, fmt.Sprintf("started %d times without a result (workers killed mid-job)", attempts-1)
	} else {
		r, err := Run(&j)
		if err != nil {
			if attempts < MaxAttempts {
				wk.logf("worker: job %s failed (attempt %d of %d): %v", j.ID, attempts, MaxAttempts, err)
				_ = msg.Nak()
				return
			}
			res.Status, res.Error = StatusFailed, err.Error()
		} else {
			r.Attempts, r.Worker = attempts, wk.Name
			res = r
		}
	}
	res.Deliveries = deliveries
	data, err := json.Marshal(&res)
	if err != nil {
		res = Result{ID: j.ID, Status: StatusFailed, Error: "result not encodable: " + err.Error(), Attempts: attempts}
		data, _ = json.Marshal(&res)
	}
	if _, err := js.Publish(ctx, resultsSubject(j.Sweep), data, jetstream.WithMsgID(j.ID)); err != nil {
		_ = msg.Nak() // no result recorded: let it run again
		return
	}
	// A lost ack only means a redelivery, whose result is dropped as a
	// duplicate: a plain ack suffices.
	_ = msg.Ack()
}

// Coordinator publishes jobs and collects their results. Start it for
// one sweep; Run may then be called from several goroutines.
type Coordinator struct {
	URL     string
	AckWait time.Duration // of the workers' consumer, if it creates it
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

	nc      *nats.Conn
	js      jetstream.JetStream
	sweep   string
	mu      sync.Mutex
	waiters map[string][]chan Result
	msgs    jetstream.MessagesContext
	err     error // the results reader's error, once it stopped
}

// Open connects (the error is one line naming the URL).
func (c *Coordinator) Open() error {
	if c.nc != nil {
		return nil
	}
	nc, js, err := Connect(c.URL)
	if err != nil {
		return err
	}
	c.nc, c.js = nc, js
	return nil
}

// Close stops reading results and disconnects.
func (c *Coordinator) Close() {
	if c.msgs != nil {
		c.msgs.Stop()
	}
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
	}
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
	if c.Done == nil {
		c.Done = map[string]Result{}
	}
	c.waiters = map[string][]chan Result{}
	if _, err := ensureStreams(ctx, c.js, c.AckWait); err != nil {
		return err
	}
	st, err := c.js.Stream(ctx, ResultsStream)
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(resultsSubject(sweep)))
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	pending := info.State.Subjects[resultsSubject(sweep)]
	oc, err := c.js.OrderedConsumer(ctx, ResultsStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{resultsSubject(sweep)}, DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if c.msgs, err = oc.Messages(); err != nil {
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

// Run publishes the jobs without a result yet and waits for every job's
// result; results come back in jobs' order. Start must have been called
// for the jobs' sweep (Run starts it for the first job's sweep if not).
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
	}
	c.mu.Unlock()
	for i := range jobs {
		if chans[i] == nil {
			continue
		}
		data, err := json.Marshal(&jobs[i])
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", jobs[i].ID, err)
		}
		if _, err := c.js.PublishAsync(jobsSubject(c.sweep), data, jetstream.WithMsgID(jobs[i].ID)); err != nil {
			return nil, fmt.Errorf("publishing job %s: %w", jobs[i].ID, err)
		}
	}
	select {
	case <-c.js.PublishAsyncComplete():
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if c.Progress != nil && done > 0 {
		c.Progress(done, len(jobs))
	}
	for i := range jobs {
		if chans[i] == nil {
			continue
		}
		select {
		case r, ok := <-chans[i]:
			if !ok {
				c.mu.Lock()
				err := c.err
				c.mu.Unlock()
				return nil, fmt.Errorf("results: %w", err)
			}
			out[i] = r
			done++
			if c.Progress != nil {
				c.Progress(done, len(jobs))
			}
		case <-ctx.Done():
			return nil, ctx.Err()
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
