package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// sweepFlags are the queue flags `sim sweep` and `sim calibrate` share.
type sweepFlags struct {
	out     string
	nats    string
	workers int
	ackWait time.Duration
	quiet   bool
}

func (f *sweepFlags) register(fsName string, args []string) ([]string, error) {
	fs := cli.NewFlagSet(fsName)
	fs.StringVar(&f.out, "out", "", "output directory (default SPEC's name with .out, in the current directory)")
	fs.StringVar(&f.nats, "nats", "", "URL of an existing NATS server with JetStream (default: an embedded one)")
	fs.IntVar(&f.workers, "workers", -1, "in-process workers (default: one per core with the embedded server, none with --nats)")
	fs.DurationVar(&f.ackWait, "ack-wait", sweep.DefaultAckWait, "time a worker may hold a job before it is redelivered")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != 1 {
		return nil, cli.Usagef("%s: want one SPEC.json, got %d arguments", fsName, len(pos))
	}
	if f.ackWait <= 0 {
		return nil, cli.Usagef("--ack-wait: must be > 0, got %v", f.ackWait)
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
	o := sweep.Options{Out: f.out, NATS: f.nats, Workers: f.workers, AckWait: f.ackWait,
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
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs failed (their errors are in results.csv)", failed, len(jobs))
	}
	return nil
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

// `sim worker --nats URL [--concurrency N] [--name NAME]`: runs jobs from
// the queue until SIGINT or SIGTERM.
func simWorker(ctx context.Context, args []string, stderr io.Writer) error {
	fs := cli.NewFlagSet("worker")
	url := fs.String("nats", "", "URL of the NATS server (required)")
	conc := fs.Int("concurrency", 1, "jobs at a time")
	name := fs.String("name", "", "worker name recorded in results (default host:pid)")
	ackWait := fs.Duration("ack-wait", sweep.DefaultAckWait, "ack wait of the workers' consumer, if this worker creates it")
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
	if *name == "" {
		h, _ := os.Hostname()
		*name = fmt.Sprintf("%s:%d", h, os.Getpid())
	}
	wk := &sweep.Worker{URL: *url, Concurrency: *conc, Name: *name, AckWait: *ackWait,
		Log: func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }}
	err = wk.Run(ctx)
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// `sim nats-server [--store DIR] [--port N]`: a NATS server with
// JetStream on 127.0.0.1 (the embedded one, in its own process), for
// `sim worker`s and `sim sweep --nats` without installing a server. It
// prints its URL and runs until SIGINT or SIGTERM.
func simNATSServer(ctx context.Context, args []string, stdout io.Writer) error {
	fs := cli.NewFlagSet("nats-server")
	store := fs.String("store", "nats-store", "directory of the JetStream store")
	port := fs.Int("port", 4222, "port on 127.0.0.1 (0 = any free port)")
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
	e, err := sweep.StartEmbedded(*store, *port)
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
