// Command sim is gorigid's command-line front end. It uses only the
// exported Go API, so everything it does can be done from Go too.
//
// Usage:
//
//	sim list
//	sim run SCENE|FILE.json [--steps N] [--dt H] [--solver bpp|pgs|lemke] [--budget K]
//	        [--pick energy|fb|residual|last] [--set NAME=VALUE ...] [--out FILE]
//	        [--stats FILE] [--dump-mlcp DIR] [--every K] [--quiet]
//	sim export SCENE [--set NAME=VALUE ...] > FILE.json   (--schema: the format's JSON Schema)
//	sim study NAME [--out DIR] [--steps N]
//	sim mlcp solve FILE [--solver bpp|pgs|lemke|enum] [--budget K] [--pick energy|fb|residual|last] [--timeout D]
//	sim mlcp errors PROBLEM CANDIDATE
//	sim bench DB.h5 [--solvers LIST] [--budget K] [--tol T] [--form box|lcp|mixed] [--out DIR]
//	sim view TRAJ.csv|TRAJ.json --scene SCENE|FILE.json [--set NAME=VALUE ...] [--stats FILE]
//	        [--addr 127.0.0.1:PORT] [--allow-remote]
//	sim sweep SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]
//	sim calibrate SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]
//	sim worker --nats URL [--concurrency N] [--name NAME]
//	sim nats-server [--store DIR] [--port N]
//
// Errors in the input (an unknown scene, a bad flag value, an unwritable
// path) print one line on stderr and exit with status 2; a solver that
// fails numerically exits with status 1 after printing what it has. SIGINT
// or SIGTERM stops every command within a second: a run after the current
// step, a solve at its next iteration (mlcp solve writes the best iterate),
// bench at once (writing the frames it completed),
// a study after the current step, view after open requests; every output
// is closed with all rows written and the status is 130. After a kill -9,
// FILE.partial holds what was written (a CSV's cut last line is dropped by
// sim view) and a --bpmd database's frames are in FILE.h5.partial.d.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError marks errors caused by the command line or the input files.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

const usage = `usage:
  sim list
  sim run SCENE|FILE.json [--steps N] [--dt H] [--solver bpp|pgs|lemke] [--budget K]
          [--pick energy|fb|residual|last] [--set NAME=VALUE ...] [--out FILE.csv|FILE.json]
          [--stats FILE] [--dump-mlcp DIR] [--bpmd FILE.h5] [--every K] [--quiet]
  sim export SCENE [--set NAME=VALUE ...] > FILE.json   (sim export --schema: the JSON Schema)
  sim study NAME [--out DIR] [--steps N]     (sim study help lists the studies)
  sim mlcp solve FILE [--solver bpp|pgs|lemke|enum] [--budget K] [--pick energy|fb|residual|last]
          [--timeout D]
  sim mlcp errors PROBLEM CANDIDATE
  sim bench DB.h5 [--solvers LIST] [--budget K] [--tol T] [--form box|lcp|mixed] [--out DIR]
  sim view TRAJ.csv|TRAJ.json --scene SCENE|FILE.json [--set NAME=VALUE ...] [--stats FILE]
          [--addr 127.0.0.1:PORT] [--allow-remote]
  sim sweep SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]
  sim calibrate SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]
  sim worker --nats URL [--concurrency N] [--name NAME]
  sim nats-server [--store DIR] [--port N]`

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		// Nothing a user feeds in may show a panic trace: report one line.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "sim: internal error: %v\n", r)
			code = 3
		}
	}()
	// Ctrl-C and SIGTERM cancel ctx: runs stop after the current step.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := dispatch(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		// -h or --help on a subcommand: the usage, on stdout, success.
		fmt.Fprintln(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "sim: %v\n", err)
	var ue usageError
	var ie interruptedError
	switch {
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ie):
		return 130
	}
	return 1
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command\n%s", usage)
	}
	switch args[0] {
	case "list":
		return simList(args[1:], stdout)
	case "run":
		return simRun(ctx, args[1:], stdout, stderr)
	case "export":
		return simExport(args[1:], stdout)
	case "study":
		return simStudy(ctx, args[1:], stdout, stderr)
	case "bench":
		return simBench(ctx, args[1:], stdout, stderr)
	case "view":
		return simView(ctx, args[1:], stdout)
	case "sweep":
		return simSweep(ctx, args[1:], stdout, stderr)
	case "calibrate":
		return simCalibrate(ctx, args[1:], stdout, stderr)
	case "worker":
		return simWorker(ctx, args[1:], stderr)
	case "nats-server":
		return simNATSServer(ctx, args[1:], stdout)
	case "mlcp":
		if len(args) < 2 {
			return usagef("mlcp: want a subcommand (solve or errors)\n%s", usage)
		}
		switch args[1] {
		case "solve":
			return mlcpSolve(ctx, args[2:], stdout, stderr)
		case "errors":
			return mlcpErrors(args[2:], stdout, stderr)
		}
		return usagef("mlcp: unknown subcommand %q (want solve or errors)", args[1])
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return usagef("unknown command %q\n%s", args[0], usage)
}

// parseInterspersed parses flags that may appear before, between or after
// positional arguments, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, usageError{err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by run
	return fs
}
