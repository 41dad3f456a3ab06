// Command sim is gorigid's command-line front end. It uses only the
// exported Go API, so everything it does can be done from Go too (its
// one internal import, internal/cli, is the flag parsing, help and
// exit-status plumbing it shares with simlab).
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
// A run holds FILE.lock (its process id) while it writes FILE: a second
// run naming the same output is refused with status 2; a lock left by a
// killed process is taken over.
//
// study, bench, sweep, calibrate, worker and nats-server are the lab
// commands: they live in the simlab command (cmd/simlab), so that sim
// itself does not link gonum/plot and the NATS server and compiles in
// well under a minute. sim runs them by starting simlab (lab.go).
package main

import (
	"context"
	"io"
	"os"

	"github.com/gorigid/gorigid/internal/cli"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status
// (cli.Run).
func run(args []string, stdout, stderr io.Writer) int {
	return cli.Run(args, stdout, stderr, dispatch)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("no command (sim help lists the commands)")
	}
	if cli.Lab[args[0]] {
		return runLab(ctx, args, stdout, stderr)
	}
	switch args[0] {
	case "list":
		return simList(args[1:], stdout)
	case "run":
		return simRun(ctx, args[1:], stdout, stderr)
	case "export":
		return simExport(args[1:], stdout, stderr)
	case "view":
		return simView(ctx, args[1:], stdout, stderr)
	case "mlcp":
		if len(args) < 2 {
			return cli.Usagef("mlcp: want a subcommand, solve or errors (sim help mlcp)")
		}
		switch args[1] {
		case "solve":
			return mlcpSolve(ctx, args[2:], stdout, stderr)
		case "errors":
			return mlcpErrors(ctx, args[2:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			writeMLCPHelp(stdout)
			return nil
		}
		return cli.Usagef("mlcp: unknown subcommand %q (want solve or errors)", args[1])
	case "version", "--version":
		return simVersion(args[1:], stdout)
	case "help", "-h", "-help", "--help":
		return simHelp(ctx, args[1:], stdout, stderr)
	}
	return cli.Usagef("unknown command %q (sim help lists the commands)", args[0])
}
