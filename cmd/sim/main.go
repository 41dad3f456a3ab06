// Command sim is gorigid's command-line front end. It uses only the
// exported Go API, so everything it does can be done from Go too.
//
// Usage (sim help prints it; sim COMMAND --help or sim help COMMAND lists
// a command's flags with their units and defaults; sim help formats,
// solvers and picks describe the files, the MLCP solvers and the picks):
//
//	sim list
//	sim run SCENE|FILE.json [flags]
//	sim export SCENE [--set NAME=VALUE ...] > FILE.json
//	sim study NAME [flags]
//	sim mlcp solve FILE [flags]
//	sim mlcp errors PROBLEM CANDIDATE
//	sim bench DB.h5 [flags]
//	sim view TRAJ.csv|TRAJ.json --scene SCENE|FILE.json [flags]
//	sim sweep SPEC.json [flags]
//	sim calibrate SPEC.json [flags]
//	sim worker --nats URL [flags]
//	sim nats-server [flags]
//	sim version
//	sim help [TOPIC]
//
// Integer flags take an exact integer also in float notation (--steps 1e3).
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
	"strings"
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
	var hr helpRequest
	if errors.As(err, &hr) {
		// -h or --help on a command: its help, on stdout, success.
		writeCommandHelp(stdout, hr.fs)
		return 0
	}
	// Every error is one line, also one that wraps a multi-line message.
	fmt.Fprintf(stderr, "sim: %s\n", oneLine(err.Error()))
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

// oneLine joins the lines of a message (errors.Join's, for one) with "; ".
func oneLine(msg string) string {
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, "; ")
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command (sim help lists the commands)")
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
			return usagef("mlcp: want a subcommand, solve or errors (sim help mlcp)")
		}
		switch args[1] {
		case "solve":
			return mlcpSolve(ctx, args[2:], stdout, stderr)
		case "errors":
			return mlcpErrors(args[2:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			writeMLCPHelp(stdout)
			return nil
		}
		return usagef("mlcp: unknown subcommand %q (want solve or errors)", args[1])
	case "version", "--version":
		return simVersion(args[1:], stdout)
	case "help", "-h", "-help", "--help":
		return simHelp(args[1:], stdout)
	}
	return usagef("unknown command %q (sim help lists the commands)", args[0])
}

// parseInterspersed parses flags that may appear before, between or after
// positional arguments, and returns the positional ones.
// Integer flags also take an exact integer in float notation (1e3), and
// -h, -help or --help returns a helpRequest for fs's command.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	acceptFloatIntegers(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequest{fs}
			}
			return nil, usagef("%v (sim %s --help lists the flags)", err, fs.Name())
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
