// Command simlab runs sim's lab commands: study, bench, sweep, calibrate,
// worker and nats-server (sim help lists them; sim help COMMAND or
// simlab COMMAND --help gives their flags). They link gonum/plot for
// their PNG figures and the NATS server and client for sweeps, which the
// sim command leaves out so that it compiles quickly; sim COMMAND starts
// simlab COMMAND, from next to sim's executable, from PATH, or with go
// run inside the repository. Install both with go install ./cmd/...
//
// Its flags, outputs, messages and exit statuses are those of sim COMMAND.
package main

import (
	"os"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/internal/lab"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdout, os.Stderr, lab.Dispatch))
}
