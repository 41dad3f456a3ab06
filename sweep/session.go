package sweep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Options of a Session.
type Options struct {
	// Out is the output directory: results.jsonl, the embedded server's
	// store (nats/), calibration outputs.
	Out string
	// NATS is the URL of an existing server or cluster; "" starts an
	// embedded server on 127.0.0.1 with its store under Out.
	NATS string
	// Auth is the credentials and TLS for NATS (not used with the
	// embedded server, which accepts clients on loopback only).
	Auth Auth
	// Limits bound each job of the in-process workers and set the
	// coordinator's republication deadline (zero fields: DefaultLimits).
	Limits Limits
	// Republish overrides the coordinator's republication deadline
	// (Coordinator.Republish).
	Republish time.Duration
	// ReconnectWindow is how long the coordinator and the in-process
	// workers keep reconnecting to a lost server; 0 =
	// DefaultReconnectWindow.
	ReconnectWindow time.Duration
	// Workers run in this process; −1 = one per core with an embedded
	// server, none with NATS (external `sim worker`s do the work).
	Workers int
	AckWait time.Duration // 0 = DefaultAckWait
	// Replicas is the number of copies of the queue's streams in a
	// JetStream cluster, if this session creates them (0 = 1).
	Replicas int
	// Progress, if set, is called after each new result.
	Progress func(done, total int)
	// Log gets one line per refused or failed job of in-process
	// workers, per republication, and per loss of the server,
	// reconnection attempt and reconnection.
	Log func(format string, args ...any)
}

// Session is a coordinator with its results file, and (by default) an
// embedded server and in-process workers. Results are appended to
// Out/results.jsonl, one JSON object per line, once per job id; a session
// opened again on the same directory with the same spec resumes.
type Session struct {
	Coordinator
	spec   *Spec
	emb    *Embedded
	file   *os.File
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ResultsFile is the name of the results file in the output directory.
const ResultsFile = "results.jsonl"

// Open starts a session for spec.
func Open(spec *Spec, o Options) (*Session, error) {
	if o.Out == "" {
		return nil, fmt.Errorf("--out: an output directory is required")
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %v", err)
	}
	if err := checkOwner(o.Out, spec.Hash()); err != nil {
		return nil, err
	}
	s := &Session{spec: spec}
	done, err := readResults(filepath.Join(o.Out, ResultsFile))
	if err != nil {
		return nil, err
	}
	s.Done = done
	url := o.NATS
	if url == "" {
		e, err := StartEmbedded(filepath.Join(o.Out, "nats"), 0)
		if err != nil {
			return nil, err
		}
		s.emb, url = e, e.URL()
	}
	s.URL, s.AckWait, s.Progress = url, o.AckWait, o.Progress
	s.Limits, s.Republish, s.ReconnectWindow, s.Log, s.Replicas = o.Limits, o.Republish, o.ReconnectWindow, o.Log, o.Replicas
	if o.NATS != "" {
		s.Auth = o.Auth
	}
	if err := s.Coordinator.Open(); err != nil {
		s.Close()
		return nil, err
	}
	if err := dropPartialLine(filepath.Join(o.Out, ResultsFile)); err != nil {
		s.Close()
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(o.Out, ResultsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.file = f
	s.OnResult = func(r Result) error {
		r.Trajectory = nil // the results file holds the summary
		b, err := json.Marshal(&r)
		if err != nil {
			return err
		}
		_, err = s.file.Write(append(b, '\n'))
		return err
	}
	if err := s.Start(context.Background(), spec.Hash()); err != nil {
		s.Close()
		return nil, err
	}
	workers := o.Workers
	if workers < 0 {
		workers = 0
		if o.NATS == "" {
			workers = runtime.NumCPU()
		}
	}
	if workers > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		wk := &Worker{URL: url, Auth: s.Auth, Concurrency: workers, Name: "in-process", AckWait: o.AckWait,
			Limits: o.Limits, ReconnectWindow: o.ReconnectWindow, Log: o.Log}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = wk.Run(ctx)
		}()
	}
	return s, nil
}

// Close stops the in-process workers and the embedded server and closes
// the results file.
func (s *Session) Close() {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	s.Coordinator.Close()
	if s.emb != nil {
		s.emb.Close()
	}
	if s.file != nil {
		s.file.Close()
	}
}

// checkOwner records the spec's hash in dir/sweep.hash, or refuses a
// directory that holds another spec's results.
func checkOwner(dir, hash string) error {
	p := filepath.Join(dir, "sweep.hash")
	b, err := os.ReadFile(p)
	if err == nil {
		if got := strings.TrimSpace(string(b)); got != hash {
			return fmt.Errorf("--out %s: holds the results of another spec (hash %s, this spec %s): use another directory", dir, short(got), short(hash))
		}
		return nil
	}
	return os.WriteFile(p, []byte(hash+"\n"), 0o644)
}

// dropPartialLine truncates a results file after its last newline: a
// coordinator killed mid-write leaves a partial line, which the next
// append would otherwise merge with a whole one (its result is read
// again from the results stream).
func dropPartialLine(path string) error {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) || (err == nil && (len(b) == 0 || b[len(b)-1] == '\n')) {
		return nil
	}
	if err != nil {
		return err
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(b, '\n')+1))
}

// readResults reads a results file, first result per id; a truncated
// last line (a coordinator killed mid-write) is skipped.
func readResults(path string) (map[string]Result, error) {
	out := map[string]Result{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r Result
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.ID == "" {
			continue
		}
		if _, dup := out[r.ID]; !dup {
			out[r.ID] = r
		}
	}
	return out, sc.Err()
}

// ReadResults returns the results recorded in an output directory, by
// job id.
func ReadResults(dir string) (map[string]Result, error) {
	return readResults(filepath.Join(dir, ResultsFile))
}

// Sweep runs the spec's jobs in s and returns their results in job
// order.
func (s *Session) Sweep(ctx context.Context) ([]Job, []Result, error) {
	jobs, err := s.spec.Jobs(BuildID())
	if err != nil {
		return nil, nil, err
	}
	res, err := s.Run(ctx, jobs)
	return jobs, res, err
}
