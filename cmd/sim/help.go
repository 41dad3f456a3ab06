package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// A command's --help (and `sim help COMMAND`) prints its synopsis and
// description from commandDocs and then the flags of its own flag set, so
// a flag added to a command shows up in its help without an edit here.

// commandDoc is the help of one command (or mlcp subcommand).
type commandDoc struct {
	name     string // as typed after sim: "run", "mlcp solve"
	synopsis string // one line, without "sim "
	short    string // what it does, for the usage's command list
	doc      string // what it does, its outputs and exit statuses
}

// commandDocs lists the commands in the order `sim help` shows them.
var commandDocs = []commandDoc{
	{"list", "list", "the built-in scenes and their parameters", `Prints every built-in scene (name — description) and then one line per
parameter: --set NAME=DEFAULT, its unit (- for counts and choices) and
what it is.`},
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
	{"calibrate", "calibrate SPEC.json [flags]", "calibrate scene parameters against measured trajectories", `Like sweep, then Nelder–Mead from the best grid samples per solver and a
prediction of the held-out experiment: table3.csv, prediction.csv and
prediction.png in --out.`},
	{"worker", "worker --nats URL [flags]", "run sweep jobs from a NATS server", `Runs jobs from a sweep's NATS queue until Ctrl-C; start one per machine
for sim sweep --nats or sim calibrate --nats.`},
	{"nats-server", "nats-server [flags]", "a NATS server with JetStream for workers", `Runs a NATS server with JetStream on 127.0.0.1 for sim worker and
sim sweep --nats, prints its URL and serves until Ctrl-C.`},
	{"version", "version", "the module version and VCS revision of this binary", `Prints the module version, the VCS revision and time the binary was
built from (when the build recorded them) and the Go version.`},
	{"help", "help [TOPIC]", "this usage, or a command's or topic's help", `Prints the usage, or the help of a command (sim help run, sim help
mlcp solve) or topic: formats, solvers, picks.`},
}

// commandDocOf returns the help of the command named name.
func commandDocOf(name string) (commandDoc, bool) {
	for _, c := range commandDocs {
		if c.name == name {
			return c, true
		}
	}
	return commandDoc{}, false
}

// usageText is the usage `sim help` prints: every command's synopsis.
func usageText() string {
	var b strings.Builder
	b.WriteString("usage: sim COMMAND [ARGUMENTS] [flags]\n\ncommands:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range commandDocs {
		fmt.Fprintf(tw, "  sim %s\t%s\n", c.synopsis, c.short)
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "\nsolvers: %s (sim help solvers)\n", strings.Join(lcp.Names(), ", "))
	b.WriteString("picks: " + strings.Join(pickNames(), ", ") + " (sim help picks)\n")
	b.WriteString("flags: sim COMMAND --help lists a command's flags with units and defaults;\n")
	b.WriteString("integer flags take 1000 or 1e3. Topics: sim help formats, solvers, picks.\n")
	b.WriteString("Errors in the input print one line on stderr and exit with status 2.")
	return b.String()
}

// helpRequest is returned by parseInterspersed for -h, -help or --help:
// run prints the help of the flag set's command on stdout and exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (h helpRequest) Error() string { return h.fs.Name() + ": help requested" }
func (h helpRequest) Unwrap() error { return flag.ErrHelp }

// flagPlaceholders name the value of the flags the commands share; other
// flags get one from their type.
var flagPlaceholders = map[string]string{
	"dt": "H", "budget": "K", "every": "K", "polish": "K", "steps": "N",
	"set": "NAME=VALUE", "solver": "NAME", "solvers": "LIST", "pick": "RULE",
	"form": "FORM", "tol": "T", "timeout": "D", "ack-wait": "D", "addr": "HOST:PORT",
	"nats": "URL", "store": "DIR", "dump-mlcp": "DIR", "bpmd": "FILE.h5",
	"stats": "FILE", "scene": "SCENE", "name": "NAME", "out": "PATH",
}

// flagUnits are the units of the flags that have one; a flag not listed is
// a count, a choice, a path or a name ("-", as in sim list).
var flagUnits = map[string]string{
	"dt":       "s",
	"timeout":  "duration",
	"ack-wait": "duration",
	"tol":      "1 (× E₀)",
}

// writeCommandHelp writes the help of fs's command: synopsis, description
// and one line per flag with its unit and default.
func writeCommandHelp(w io.Writer, fs *flag.FlagSet) {
	name := fs.Name()
	c, ok := commandDocOf(name)
	if !ok {
		c = commandDoc{name: name, synopsis: name + " [flags]"}
	}
	fmt.Fprintf(w, "usage: sim %s\n", c.synopsis)
	if c.doc != "" {
		fmt.Fprintf(w, "\n%s\n", c.doc)
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
	if name == "study" {
		fmt.Fprintf(w, "\n%s\n", studyUsage())
	}
}

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
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
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

// simHelp implements `sim help [TOPIC]`.
func simHelp(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stdout, usageText())
		return nil
	}
	topic := strings.Join(args, " ")
	switch topic {
	case "formats":
		fmt.Fprint(stdout, helpFormats)
		return nil
	case "solvers":
		return writeSolversHelp(stdout)
	case "picks":
		return writePicksHelp(stdout)
	case "mlcp":
		writeMLCPHelp(stdout)
		return nil
	case "help", "-h", "-help", "--help":
		return helpRequest{newFlagSet("help")}
	}
	if _, ok := commandDocOf(topic); ok {
		// The command's own --help: its flags come from its flag set.
		return errHelpOf(topic)
	}
	return usagef("help: unknown topic %q (want a command, formats, solvers or picks; sim help lists the commands)", topic)
}

// errHelpOf returns the helpRequest of the named command, by defining its
// flags without running it.
func errHelpOf(name string) error {
	fs, ok := commandFlagSets[name]
	if !ok {
		return usagef("help: unknown topic %q", name)
	}
	return helpRequest{fs()}
}

// commandFlagSets returns each command's flag set: the command itself run
// with --help, which returns its helpRequest before doing anything else.
var commandFlagSets = map[string]func() *flag.FlagSet{}

func init() {
	for _, c := range commandDocs {
		words := strings.Fields(c.name)
		commandFlagSets[c.name] = func() *flag.FlagSet {
			err := dispatch(context.Background(), append(words, "--help"), io.Discard, io.Discard)
			var h helpRequest
			if errors.As(err, &h) {
				return h.fs
			}
			return newFlagSet(c.name)
		}
	}
}

// writeMLCPHelp writes the help of both mlcp subcommands.
func writeMLCPHelp(w io.Writer) {
	fmt.Fprintln(w, "sim mlcp has two subcommands, solve and errors.")
	for _, name := range []string{"mlcp solve", "mlcp errors"} {
		fmt.Fprintln(w)
		writeCommandHelp(w, commandFlagSets[name]())
	}
}

// solverDocs describes each name of lcp.Names; a test checks that every
// name has one.
var solverDocs = map[string]string{
	"auto":       "picks one by the matrix class: BPP where it is guaranteed, else Lemke, else Newton",
	"bpp":        "block principal pivoting on a sparse LDLᵀ (the stepper's default)",
	"enum":       "enumeration of the index sets, exact reference for at most 12 rows",
	"lemke":      "Lemke's complementary pivoting",
	"newton-cck": "nonsmooth Newton on the Chen–Chen–Kanzow function",
	"newton-fb":  "nonsmooth Newton on the Fischer–Burmeister function",
	"newton-min": "nonsmooth Newton on the minimum map",
	"pgs":        "projected Gauss–Seidel sweeps (needs a positive diagonal)",
	"prox":       "proximal fixed point with an r-factor strategy (needs a positive diagonal)",
}

func writeSolversHelp(w io.Writer) error {
	fmt.Fprintln(w, "Solvers (--solver NAME of sim mlcp solve; sim run takes all but auto and enum;")
	fmt.Fprintln(w, "sim bench --solvers takes a comma-separated list):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range lcp.Names() {
		d, ok := solverDocs[n]
		if !ok {
			d = "(undocumented)"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", n, d)
	}
	return tw.Flush()
}

// pickDocs describes each errmeasure.Measure, by its name.
var pickDocs = map[errmeasure.Measure]string{
	errmeasure.Energy:      "least unit-consistent energy error (J) with the effective mass 1/aᵢᵢ (default)",
	errmeasure.EnergyExact: "least energy error with the exact effective mass 1/{A⁻¹}ᵢᵢ (pseudoinverse if A is singular)",
	errmeasure.FB:          "least Fischer–Burmeister error (m/s + N·s, mixed units)",
	errmeasure.Residual:    "least natural residual (m/s + N·s, mixed units)",
	errmeasure.Last:        "the solver's last iterate, no correction",
}

// pickNames are the names --pick takes, in errmeasure's order.
func pickNames() []string {
	var out []string
	for m := errmeasure.Energy; m.Valid(); m++ {
		out = append(out, m.String())
	}
	return out
}

func writePicksHelp(w io.Writer) error {
	fmt.Fprintln(w, "Picks (--pick RULE of sim run and sim mlcp solve): which iterate of a budgeted")
	fmt.Fprintln(w, "solve is kept. A pick never keeps an iterate outside its bounds over one inside.")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for m := errmeasure.Energy; m.Valid(); m++ {
		fmt.Fprintf(tw, "  %s\t%s\n", m, pickDocs[m])
	}
	return tw.Flush()
}

const helpFormats = `Formats (docs/formats.md in the repository has every field; units SI, z up):
  MLCP problem (JSON)        {"A": [[...]], "b": [...], "lo": [...], "hi": [...]}: w = A x + b,
                             lo ≤ x ≤ hi; null bounds are infinite. Read by sim mlcp,
                             written by sim run --dump-mlcp, whose "rows" labels each row
                             (joint or contact, bodies, direction).
  solution (JSON)            {"x": [...], "w": [...], "iterations": K, "status": ...}: written
                             by sim mlcp solve and --dump-mlcp, read by sim mlcp errors.
  trajectory CSV             step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz (sim run --out
                             FILE.csv; read by sim view and sim calibrate).
  trajectory JSON            {"bodies": [...], "dt": h, "frames": [...]} (sim run --out FILE.json).
  step statistics CSV        step,time,rows,iterations,budget_hit,picked,err_energy,... (--stats);
                             energy_added is the energy the step created (J: kinetic plus
                             potential after, minus before, minus applied work), judged against
                             the system's energy so far (kinetic plus potential above the lowest
                             potential seen, the largest so far): sim run warns at the first
                             step above 1 % and --max-energy-gain F stops at one above F;
                             projection_skipped is 0, or 1 (no solution found) or 2 (solver
                             failed) when the step's position projection was skipped.
  scene file (JSON)          bodies, shapes, joints, loads and settings (go doc ./scenes; the
                             JSON Schema: sim export --schema); box "size" is full side lengths.
  BPMD database (HDF5)       one frame per recorded step (sim run --bpmd; go doc ./bpmd).
  sweep spec (JSON)          scene, parameters, experiments and solvers (go doc ./sweep Spec).
`

// simVersion implements `sim version`.
func simVersion(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("version: takes no arguments, got %q", pos[0])
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "sim: no build information in this binary")
		return nil
	}
	fmt.Fprintln(stdout, versionText(info))
	return nil
}

// versionText formats the module version and VCS settings of info.
func versionText(info *debug.BuildInfo) string {
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sim: module %s %s\n", info.Main.Path, info.Main.Version)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "revision %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteString("\n")
	} else {
		b.WriteString("revision unknown: the build recorded no VCS information (go run records none;\n" +
			"go build and go install in a git checkout do, unless -buildvcs=false)\n")
	}
	fmt.Fprintf(&b, "built with %s for %s/%s", info.GoVersion, settings["GOOS"], settings["GOARCH"])
	return b.String()
}
