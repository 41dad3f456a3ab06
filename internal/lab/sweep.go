package lab

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/sweep"
)

// `sim sweep SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]`
//
// Every sample × experiment × solver of the spec is one job through a
// NATS JetStream work queue (package sweep): by default an embedded
// server on 127.0.0.1 with its store in DIR/nats and one worker per core
// in this process; with --nats the jobs go to that server and `sim
// worker`s anywhere run them. Results: DIR/results.jsonl (one line per
// job id, appended as they come: a rerun with the same SPEC and DIR runs
// only what is missing) and DIR/results.csv (every job, in job order).

// fleetFlags are the NATS client and job-limit flags of `sim sweep`,
// `sim calibrate` and `sim worker`.
type fleetFlags struct {
	auth     sweep.Auth
	limits   sweep.Limits
	window   time.Duration
	ackWait  time.Duration
	replicas int
}

// Environment variables that hold the NATS secrets, so that they need
// not be on the command line (where ps shows them).
const (
	envNATSToken    = "GORIGID_NATS_TOKEN"
	envNATSPassword = "GORIGID_NATS_PASSWORD"
)

func (f *fleetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.auth.Token, "nats-token", "", "NATS token (default $"+envNATSToken+")")
	fs.StringVar(&f.auth.User, "nats-user", "", "NATS user (with --nats-password)")
	fs.StringVar(&f.auth.Password, "nats-password", "", "NATS password (default $"+envNATSPassword+")")
	fs.StringVar(&f.auth.NKeySeed, "nats-nkey", "", "file holding the NATS user's NKey seed")
	fs.StringVar(&f.auth.CA, "nats-ca", "", "PEM file of the CAs that sign the NATS server's certificate (turns TLS on)")
	fs.StringVar(&f.auth.Cert, "nats-cert", "", "client certificate for NATS TLS (PEM, with --nats-key)")
	fs.StringVar(&f.auth.Key, "nats-key", "", "client key for NATS TLS (PEM)")
	fs.DurationVar(&f.window, "reconnect-window", sweep.DefaultReconnectWindow, "how long to keep reconnecting to a lost NATS server before giving up")
	fs.DurationVar(&f.ackWait, "ack-wait", sweep.DefaultAckWait, "how long a job's worker may go silent before the job is redelivered (running jobs report progress every ack-wait/4)")
	fs.IntVar(&f.replicas, "replicas", 1, "copies of the queue's streams in a JetStream cluster, if this process creates them (3 for three nodes)")
	fs.IntVar(&f.limits.Steps, "max-steps", sweep.DefaultLimits.Steps, "refuse jobs of more steps")
	fs.IntVar(&f.limits.Bodies, "max-bodies", sweep.DefaultLimits.Bodies, "refuse jobs whose scene has more bodies")
	fs.IntVar(&f.limits.Rows, "max-rows", sweep.DefaultLimits.Rows, "stop and fail a job at a step of more constraint rows")
	fs.DurationVar(&f.limits.Wall, "job-timeout", sweep.DefaultLimits.Wall, "stop and fail a job running longer")
}

// check validates the flags after parsing and fills secrets from the
// environment.
func (f *fleetFlags) check() error {
	if f.auth.Token == "" && f.auth.User == "" && f.auth.NKeySeed == "" {
		f.auth.Token = os.Getenv(envNATSToken)
	}
	if f.auth.User != "" && f.auth.Password == "" {
		f.auth.Password = os.Getenv(envNATSPassword)
	}
	switch {
	case f.ackWait <= 0:
		return cli.Usagef("--ack-wait: must be > 0, got %v", f.ackWait)
	case f.window <= 0:
		return cli.Usagef("--reconnect-window: must be > 0, got %v", f.window)
	case f.replicas < 1 || f.replicas > 5:
		return cli.Usagef("--replicas: must be 1…5 (JetStream's limit), got %d", f.replicas)
	case f.limits.Steps < 1:
		return cli.Usagef("--max-steps: must be ≥ 1, got %d", f.limits.Steps)
	case f.limits.Bodies < 1:
		return cli.Usagef("--max-bodies: must be ≥ 1, got %d", f.limits.Bodies)
	case f.limits.Rows < 1:
		return cli.Usagef("--max-rows: must be ≥ 1, got %d", f.limits.Rows)
	case f.limits.Wall <= 0:
		return cli.Usagef("--job-timeout: must be > 0, got %v", f.limits.Wall)
	}
	if err := f.auth.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	return nil
}

// sweepFlags are the queue flags `sim sweep` and `sim calibrate` share.
type sweepFlags struct {
	fleetFlags
	out     string
	nats    string
	workers int
	quiet   bool
}

func (f *sweepFlags) register(fsName string, args []string) ([]string, error) {
	fs := cli.NewFlagSet(fsName)
	fs.StringVar(&f.out, "out", "", "output directory (default SPEC's name with .out, in the current directory)")
	fs.StringVar(&f.nats, "nats", "", "URL of an existing NATS server with JetStream (default: an embedded one on 127.0.0.1)")
	fs.IntVar(&f.workers, "workers", -1, "in-process workers (default: one per core with the embedded server, none with --nats)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	f.fleetFlags.register(fs)
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, cli.Usagef("%s: want one SPEC.json, got %d arguments", fsName, len(pos))
	}
	if f.out == "" {
		f.out = strings.TrimSuffix(filepath.Base(pos[0]), filepath.Ext(pos[0])) + ".out"
	}
	return pos, nil
}

// open reads the spec and opens a session; bar draws a progress bar on
// a terminal.
func (f *sweepFlags) open(specPath string, stderr io.Writer, bar bool) (*sweep.Spec, *sweep.Session, error) {
	spec, err := sweep.ReadSpec(specPath)
	if err != nil {
		return nil, nil, cli.UsageError{Err: err}
	}
	o := sweep.Options{Out: f.out, NATS: f.nats, Workers: f.workers, AckWait: f.ackWait, Auth: f.auth,
		Limits: f.limits, ReconnectWindow: f.window, Replicas: f.replicas,
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	if bar && !f.quiet && cli.IsTerminal(stderr) {
		o.Progress = newProgressBar(stderr)
	}
	s, err := sweep.Open(spec, o)
	if err != nil {
		return nil, nil, err
	}
	return spec, s, nil
}

func simSweep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f sweepFlags
	pos, err := f.register("sweep", args)
	if err != nil {
		return err
	}
	spec, s, err := f.open(pos[0], stderr, true)
	if err != nil {
		return err
	}
	defer s.Close()
	before := len(s.Done)
	jobs, res, err := s.Sweep(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return cli.Interruptedf("interrupted: %d results recorded in %s; run again to resume", len(s.Done), filepath.Join(f.out, sweep.ResultsFile))
		}
		return err
	}
	if err := writeResultsCSV(filepath.Join(f.out, "results.csv"), spec, res); err != nil {
		return err
	}
	failed := 0
	for _, r := range res {
		if r.Status != sweep.StatusOK {
			failed++
		}
	}
	fmt.Fprintf(stdout, "%d jobs (%d recorded before), %d failed, %d redeliveries; results in %s and %s\n",
		len(jobs), min(before, len(jobs)), failed, s.Redeliveries,
		filepath.Join(f.out, sweep.ResultsFile), filepath.Join(f.out, "results.csv"))
	if med, slowest, ok := jobTimes(res); ok {
		fmt.Fprintf(stdout, "job times on the workers: median %v, slowest %v (--job-timeout %v; docs/fleet.md sets it from these)\n",
			med, slowest, f.limits.Wall)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs failed (their errors are in results.csv)", failed, len(jobs))
	}
	return nil
}

// jobTimes returns the median and the largest run time of the results
// that record one (Result.Seconds), rounded for printing.
func jobTimes(res []sweep.Result) (med, slowest time.Duration, ok bool) {
	var ts []float64
	for _, r := range res {
		if r.Seconds > 0 {
			ts = append(ts, r.Seconds)
		}
	}
	if len(ts) == 0 {
		return 0, 0, false
	}
	slices.Sort(ts)
	d := func(s float64) time.Duration {
		return time.Duration(s * float64(time.Second)).Round(10 * time.Microsecond)
	}
	return d(ts[len(ts)/2]), d(ts[len(ts)-1]), true
}

// writeResultsCSV writes every job's result in job order.
func writeResultsCSV(path string, spec *sweep.Spec, res []sweep.Result) error {
	header := []string{"id", "experiment", "solver"}
	header = append(header, spec.ParamNames()...)
	header = append(header, "e", "max_err", "final_err", "steps", "budget_hits", "status", "attempts", "error")
	rows := make([][]string, len(res))
	for i, r := range res {
		row := []string{r.ID, r.Experiment, r.Solver}
		for _, p := range r.Params {
			row = append(row, fmtFloat(p))
		}
		msg := strings.NewReplacer(",", ";", "\n", " ", "\"", "'").Replace(r.Error)
		row = append(row, fmtFloat(r.E), fmtFloat(r.MaxErr), fmtFloat(r.FinalErr), fmt.Sprint(r.Steps),
			fmt.Sprint(r.BudgetHits), r.Status, fmt.Sprint(r.Attempts), msg)
		rows[i] = row
	}
	return writeCSVFile(path, header, rows)
}

// `sim worker --nats URL [--concurrency N] [--name NAME] [fleet flags]`:
// runs jobs from the queue until SIGINT or SIGTERM (the running jobs are
// stopped within a step and handed back; exit status 130), or until the
// server has been gone for the reconnect window (one line, exit status
// 1).
func simWorker(ctx context.Context, args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("worker")
	url := fs.String("nats", "", "URL of the NATS server (required)")
	conc := fs.Int("concurrency", 1, "jobs at a time")
	name := fs.String("name", "", "worker name recorded in results (default host:pid)")
	var ff fleetFlags
	ff.register(fs)
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return cli.Usagef("worker: takes no arguments, got %q", pos[0])
	case *url == "":
		return cli.Usagef("worker: --nats URL is required")
	case *conc < 1:
		return cli.Usagef("--concurrency: must be ≥ 1, got %d", *conc)
	}
	if err := ff.check(); err != nil {
		return err
	}
	if *name == "" {
		h, _ := os.Hostname()
		*name = fmt.Sprintf("%s:%d", h, os.Getpid())
	}
	wk := &sweep.Worker{URL: *url, Auth: ff.auth, Concurrency: *conc, Name: *name, AckWait: ff.ackWait,
		Limits: ff.limits, ReconnectWindow: ff.window, Replicas: ff.replicas,
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	if err := wk.Run(ctx); err != nil {
		return fmt.Errorf("worker %s: %w", *name, err)
	}
	if ctx.Err() != nil {
		return cli.Interruptedf("worker %s: stopped; its running jobs are back in the queue", *name)
	}
	return nil
}

// `sim nats-server [--store DIR] [--listen HOST:PORT] [--token T | --user U
// --password P] [--nkey KEYS] [--tls-cert F --tls-key F [--tls-ca F]]
// [--name N --cluster HOST:PORT --routes URLS [--cluster-user U
// --cluster-password P]]`: a
// NATS server with JetStream (the embedded one, in its own process), for
// `sim worker`s and `sim sweep --nats` without installing a server. It
// listens on 127.0.0.1 unless --listen says otherwise, prints its URL
// and runs until SIGINT or SIGTERM.
func simNATSServer(ctx context.Context, args []string, stdout io.Writer) error {
	fs := cli.NewFlagSet("nats-server")
	store := fs.String("store", "nats-store", "directory of the JetStream store")
	port := fs.Int("port", 4222, "port on 127.0.0.1 (0 = any free port; --listen overrides)")
	var o sweep.ServerOptions
	fs.StringVar(&o.Listen, "listen", "", "HOST:PORT to listen on (default 127.0.0.1:--port; 0.0.0.0:4222 for other machines: give --token or --user then)")
	fs.StringVar(&o.Token, "token", "", "token clients must present (default $"+envNATSToken+")")
	fs.StringVar(&o.User, "user", "", "user clients must present (with --password)")
	fs.StringVar(&o.Password, "password", "", "password of --user (default $"+envNATSPassword+")")
	nkeys := fs.String("nkey", "", "comma-separated public NKeys (U…) of users who may connect with their seed")
	fs.StringVar(&o.Cert, "tls-cert", "", "server certificate (PEM): clients must use TLS")
	fs.StringVar(&o.Key, "tls-key", "", "server key (PEM)")
	fs.StringVar(&o.CA, "tls-ca", "", "CAs of client certificates (PEM): clients must present one")
	fs.StringVar(&o.Name, "name", "", "server name, unique in a cluster")
	fs.StringVar(&o.Cluster, "cluster", "", "HOST:PORT for the cluster's routes (default: no cluster)")
	routes := fs.String("routes", "", "comma-separated nats-route://HOST:PORT of the cluster's servers")
	fs.StringVar(&o.ClusterUser, "cluster-user", "", "user the routes between the servers present (with --cluster-password)")
	fs.StringVar(&o.ClusterPassword, "cluster-password", "", "password of --cluster-user")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("nats-server: takes no arguments, got %q", pos[0])
	}
	if *port < 0 || *port > 65535 {
		return cli.Usagef("--port: must be 0…65535, got %d", *port)
	}
	o.NKeys, o.Routes = splitList(*nkeys), splitList(*routes)
	if o.Listen == "" {
		o.Listen = net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))
	}
	if o.Token == "" && o.User == "" {
		o.Token = os.Getenv(envNATSToken)
	}
	if o.User != "" && o.Password == "" {
		o.Password = os.Getenv(envNATSPassword)
	}
	e, err := sweep.StartServer(*store, o)
	if err != nil {
		return err
	}
	defer e.Close()
	fmt.Fprintln(stdout, e.URL())
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	<-ctx.Done()
	return nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// newProgressBar returns a Progress function drawing
// "[#####.....] 120/200  60%  ETA 12s" on one terminal line.
func newProgressBar(w io.Writer) func(done, total int) {
	start := time.Now()
	first := -1
	return func(done, total int) {
		if first < 0 {
			first = done - 1 // results recorded before do not count for the rate
			start = time.Now()
		}
		const width = 30
		n := width * done / max(total, 1)
		eta := "?"
		if k := done - first; k > 0 && done < total {
			rate := time.Since(start) / time.Duration(k)
			eta = (rate * time.Duration(total-done)).Round(time.Second).String()
		} else if done == total {
			eta = "0s"
		}
		fmt.Fprintf(w, "\r[%s%s] %d/%d %3d%%  ETA %s   ", strings.Repeat("#", n), strings.Repeat(".", width-n),
			done, total, 100*done/max(total, 1), eta)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}
