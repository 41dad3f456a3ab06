package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
)

// A command's --help (and `sim help COMMAND`) prints its synopsis and
// description from cli.Commands and then the flags of its own flag set, so
// a flag added to a command shows up in its help without an edit here.

// usageText is the usage `sim help` prints: every command's synopsis.
func usageText() string {
	var b strings.Builder
	b.WriteString("usage: sim COMMAND [ARGUMENTS] [flags]\n\ncommands:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, c := range cli.Commands {
		fmt.Fprintf(tw, "  sim %s\t%s\n", c.Synopsis, c.Short)
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "\nsolvers: %s (sim help solvers)\n", strings.Join(lcp.Names(), ", "))
	b.WriteString("picks: " + strings.Join(pickNames(), ", ") + " (sim help picks)\n")
	b.WriteString("flags: sim COMMAND --help lists a command's flags with units and defaults;\n")
	b.WriteString("integer flags take 1000 or 1e3. Topics: sim help formats, solvers, picks.\n")
	b.WriteString("Errors in the input print one line on stderr and exit with status 2.\n")
	b.WriteString("study, bench, sweep, calibrate, worker and nats-server run in simlab (cmd/simlab),\n")
	b.WriteString("which sim starts: it links gonum/plot for the figures and the NATS server.")
	return b.String()
}

// simHelp implements `sim help [TOPIC]`.
func simHelp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
		return cli.HelpRequest{FS: cli.NewFlagSet("help")}
	}
	if cli.Lab[topic] {
		return runLab(ctx, []string{topic, "--help"}, stdout, stderr)
	}
	if _, ok := cli.CommandOf(topic); ok {
		// The command's own --help: its flags come from its flag set.
		return errHelpOf(topic)
	}
	return cli.Usagef("help: unknown topic %q (want a command, formats, solvers or picks; sim help lists the commands)", topic)
}

// errHelpOf returns the cli.HelpRequest of the named command, by defining its
// flags without running it.
func errHelpOf(name string) error {
	fs, ok := commandFlagSets[name]
	if !ok {
		return cli.Usagef("help: unknown topic %q", name)
	}
	return cli.HelpRequest{FS: fs()}
}

// commandFlagSets returns each command's flag set: the command itself run
// with --help, which returns its cli.HelpRequest before doing anything else.
var commandFlagSets = map[string]func() *flag.FlagSet{}

func init() {
	for _, c := range cli.Commands {
		words := strings.Fields(c.Name)
		commandFlagSets[c.Name] = func() *flag.FlagSet {
			err := dispatch(context.Background(), append(words, "--help"), io.Discard, io.Discard)
			var h cli.HelpRequest
			if errors.As(err, &h) {
				return h.FS
			}
			return cli.NewFlagSet(c.Name)
		}
	}
}

// writeMLCPHelp writes the help of both mlcp subcommands.
func writeMLCPHelp(w io.Writer) {
	fmt.Fprintln(w, "sim mlcp has two subcommands, solve and errors.")
	for _, name := range []string{"mlcp solve", "mlcp errors"} {
		fmt.Fprintln(w)
		cli.WriteCommandHelp(w, commandFlagSets[name]())
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
	fs := cli.NewFlagSet("version")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("version: takes no arguments, got %q", pos[0])
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
