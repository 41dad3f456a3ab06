// Package lab holds the lab commands of sim (cli.Lab): study, bench,
// sweep, calibrate, worker and nats-server. They draw PNG figures with
// gonum/plot or run jobs through NATS, so they live apart from the sim
// command's package, which then compiles without those libraries; the
// simlab command (cmd/simlab) runs them and sim starts simlab.
package lab

import (
	"context"
	"io"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/trajectory"
)

func init() {
	cli.HelpExtra["study"] = studyUsage
}

// Dispatch runs one lab command line (args[0] is the command).
func Dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.Usagef("no command (sim help lists the commands)")
	}
	switch args[0] {
	case "study":
		return simStudy(ctx, args[1:], stdout, stderr)
	case "bench":
		return simBench(ctx, args[1:], stdout, stderr)
	case "sweep":
		return simSweep(ctx, args[1:], stdout, stderr)
	case "calibrate":
		return simCalibrate(ctx, args[1:], stdout, stderr)
	case "worker":
		return simWorker(ctx, args[1:], stderr)
	case "nats-server":
		return simNATSServer(ctx, args[1:], stdout)
	}
	return cli.Usagef("unknown command %q (simlab runs study, bench, sweep, calibrate, worker and nats-server; sim help lists every command)", args[0])
}

// writeFileAtomic writes data to path through a temporary file of its own
// (trajectory.WriteFileAtomic: two writers never mix).
func writeFileAtomic(path string, data []byte) error { return trajectory.WriteFileAtomic(path, data) }
