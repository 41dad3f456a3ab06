package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Command is the help of one command (or mlcp subcommand).
type Command struct {
	Name     string // as typed after sim: "run", "mlcp solve"
	Synopsis string // one line, without "sim "
	Short    string // what it does, for the usage's command list
	Doc      string // what it does, its outputs and exit statuses
}

// Lab lists the commands of the simlab binary (cmd/simlab), which links
// what only they need: gonum/plot for their figures, the NATS server and
// client for sweeps. sim runs them by starting simlab.
var Lab = map[string]bool{"study": true, "bench": true, "sweep": true, "calibrate": true, "worker": true, "nats-server": true}

// Commands lists the commands in the order `sim help` shows them.
var Commands = []Command{
	{"list", "list", "the built-in scenes and their parameters", `Prints every built-in scene (name — description) and then one line per
parameter: --set NAME=DEFAULT, its unit (- for counts and choices), what
it is and the values it takes ([MIN, MAX]; every number has a maximum).`},
	{"run", "run SCENE|FILE.json [flags]", "step a scene and record its trajectory, statistics and MLCPs", `Steps a built-in scene (see sim list) or a scene file and writes the
trajectory (--out, .csv or .json), per-step statistics (--stats), each
step's MLCP and picked solution (--dump-mlcp) and a BPMD database
(--bpmd). --dt, --solver, --budget and --pick override the scene's
settings; --set values are in the units sim list shows. A step that
leaves a body's state not finite stops the run with exit status 1; Ctrl-C
stops it after the current step with every output closed (status 130).
Formats: sim help formats.`},
	{"export", "export SCENE [--set NAME=VALUE ...] > FILE.json", "write a built-in scene as a scene file", `Writes a built-in scene as a scene file that runs byte-identically to
sim run SCENE with the same --set values; --schema writes the scene files'
JSON Schema (draft 2020-12) instead.`},
	{"study", "study NAME [flags]", "rerun one of the papers' experiments (CSV, PNG)", `Reruns one of the papers' experiments: writes the data behind its figure
as CSV and the figure as PNG into --out (default results/NAME), writes
summary.csv there and prints a summary table. sim study help lists the
studies.`},
	{"mlcp solve", "mlcp solve FILE [flags]", "solve an MLCP file", `Solves an MLCP problem file (sim help formats) and prints x, w, the
picked iteration, the status of the x written and its three error
totals as JSON. The file is written also when the solve fails (then the
exit status is 1). Solvers: sim help solvers; picks: sim help picks.`},
	{"mlcp errors", "mlcp errors PROBLEM CANDIDATE", "the three error measures of a candidate solution", `Prints the per-row and total Fischer–Burmeister, natural-residual and
energy errors of a candidate solution file for a problem file.`},
	{"bench", "bench DB.h5 [flags]", "compare solvers on a BPMD database", `Runs each solver cold on every frame of a BPMD database (written by
sim run --bpmd) and writes runs.csv, curves.csv, summary.csv (success:
energy error ≤ tol × E₀), error curves and Dolan–Moré performance
profiles (PNG) into --out.`},
	{"view", "view TRAJ.csv|TRAJ.json --scene SCENE|FILE.json [flags]", "replay a trajectory in the browser, in 3D", `Serves a 3D replay of a trajectory in the browser on 127.0.0.1 (a free
port unless --addr gives one) until Ctrl-C. --scene is the scene or
scene file of the run, with the run's --set values.`},
	{"sweep", "sweep SPEC.json [flags]", "run a parameter sweep through a NATS work queue", `Runs every sample × experiment × solver job of a sweep spec (go doc
./sweep Spec) through a NATS JetStream queue (an embedded server unless
--nats is given) and writes OUT/results.jsonl and OUT/results.csv. A
rerun with the same spec and --out runs only what is missing.`},
	{"calibrate", "calibrate SPEC.json [flags]", "calibrate scene parameters against measured trajectories", `Like sweep (reusing its results), then CMA-ES from the best grid samples
per solver, a confidence region and a prediction of the held-out
experiment: table3.csv, region.csv, prediction.csv and prediction.png in
--out.`},
	{"worker", "worker --nats URL [flags]", "run sweep jobs from a NATS server", `Runs jobs from a sweep's NATS queue until Ctrl-C; start one per machine
for sim sweep --nats or sim calibrate --nats. A job over a limit
(--max-steps, --max-bodies, --max-rows, --job-timeout) is recorded
failed with the reason. Ctrl-C or SIGTERM stops the running jobs within
a step and hands them back (status 130); after --reconnect-window without
a server the worker exits with status 1 and one line (docs/fleet.md).`},
	{"nats-server", "nats-server [flags]", "a NATS server with JetStream for workers", `Runs a NATS server with JetStream for sim worker and sim sweep --nats,
on 127.0.0.1 unless --listen says otherwise (then give it --token,
--user or --nkey, and TLS), alone or as a cluster node (--cluster,
--routes); prints its URL and serves until Ctrl-C (docs/fleet.md).`},
	{"version", "version", "the module version and VCS revision of this binary", `Prints the module version, the VCS revision and time the binary was
built from (when the build recorded them) and the Go version.`},
	{"help", "help [TOPIC]", "this usage, or a command's or topic's help", `Prints the usage, or the help of a command (sim help run, sim help
mlcp solve) or topic: formats, solvers, picks.`},
}

// CommandOf returns the help of the command named name.
func CommandOf(name string) (Command, bool) {
	for _, c := range Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// HelpRequest is returned by ParseInterspersed for -h, -help or --help:
// run prints the help of the flag set's command on stdout and exits 0.
type HelpRequest struct{ FS *flag.FlagSet }

func (h HelpRequest) Error() string { return h.FS.Name() + ": help requested" }
func (h HelpRequest) Unwrap() error { return flag.ErrHelp }

// flagPlaceholders name the value of the flags the commands share; other
// flags get one from their type.
var flagPlaceholders = map[string]string{
	"dt": "H", "budget": "K", "every": "K", "polish": "K", "steps": "N",
	"set": "NAME=VALUE", "solver": "NAME", "solvers": "LIST", "pick": "RULE",
	"form": "FORM", "tol": "T", "timeout": "D", "ack-wait": "D", "addr": "HOST:PORT",
	"nats": "URL", "store": "DIR", "dump-mlcp": "DIR", "bpmd": "FILE.h5",
	"stats": "FILE", "scene": "SCENE", "name": "NAME", "out": "PATH",
	"max-memory": "SIZE",
}

// flagUnits are the units of the flags that have one; a flag not listed is
// a count, a choice, a path or a name ("-", as in sim list).
var flagUnits = map[string]string{
	"dt":         "s",
	"timeout":    "duration",
	"max-memory": "bytes (512MiB, 2GB; 0 = none)",
	"ack-wait":   "duration",
	"tol":        "1 (× E₀)",
}

// WriteCommandHelp writes the help of fs's command: synopsis, description
// and one line per flag with its unit and default.
func WriteCommandHelp(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	c, ok := CommandOf(name)
	if !ok {
		c = Command{Name: name, Synopsis: name + " [flags]"}
	}
	fmt.Fprintf(w, "usage: sim %s\n", c.Synopsis)
	if c.Doc != "" {
		fmt.Fprintf(w, "\n%s\n", c.Doc)
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintln(w, "\nflags: none")
	} else {
		fmt.Fprintln(w, "\nflags (unit, default):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fs.VisitAll(func(f *flag.Flag) {
			arg := "--" + f.Name
			if ph := placeholder(f); ph != "" {
				arg += " " + ph
			}
			unit := flagUnits[f.Name]
			if unit == "" {
				unit = "-"
			}
			def := f.DefValue
			switch {
			case isBoolFlag(f):
				def = "off"
			case def == "" || def == "[]" || def == "map[]":
				def = "none"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", arg, unit, def, f.Usage)
		})
		_ = tw.Flush()
	}
	if extra := HelpExtra[name]; extra != nil {
		fmt.Fprintf(w, "\n%s\n", extra())
	}
}

// HelpExtra adds text after a command's flags in WriteCommandHelp (the
// study list after sim study --help); a command's package registers it.
var HelpExtra = map[string]func() string{}

// placeholder names a flag's value: from flagPlaceholders, else from its
// type; "" for a boolean flag.
func placeholder(f *flag.Flag) string {
	if isBoolFlag(f) {
		return ""
	}
	if p, ok := flagPlaceholders[f.Name]; ok {
		return p
	}
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			return "N"
		case float64:
			return "X"
		}
	}
	return "VALUE"
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// intFlag wraps an integer flag so that it also takes an exact integer
// written in float notation (--steps 1e3); 1.5 or 1e30 are errors, which
// the flag package reports with the flag's name.
type intFlag struct{ flag.Value }

// errNotInteger is the error of an integer flag given a value that is not
// an integer.
var errNotInteger = errors.New("want an integer, such as 1000 or 1e3")

func (v intFlag) Set(s string) error {
	if _, err := strconv.ParseInt(strings.TrimSpace(s), 0, 64); err == nil {
		return v.Value.Set(s)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !num.Finite(f) || f != math.Trunc(f) {
		return errNotInteger
	}
	if math.Abs(f) >= 1<<63 {
		return fmt.Errorf("%s is out of range", s)
	}
	return v.Value.Set(strconv.FormatInt(int64(f), 10))
}

// acceptFloatIntegers wraps every integer flag of fs in intFlag (once).
func acceptFloatIntegers(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, done := f.Value.(intFlag); done {
			return
		}
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case int, int64, uint, uint64:
				f.Value = intFlag{f.Value}
			}
		}
	})
}

// Get passes the wrapped value through, so the flag stays a flag.Getter.
func (v intFlag) Get() any { return v.Value.(flag.Getter).Get() }
