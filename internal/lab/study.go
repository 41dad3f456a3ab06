package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gorigid/gorigid/internal/cli"
	gstudy "github.com/gorigid/gorigid/study"
)

// A study reproduces one of the papers' experiments: package study
// computes it and returns Go values; the command writes the data behind
// the figure as CSV, draws it as PNG, writes summary.csv and prints a
// summary table. Each study's output lives in its own file
// (study_chain6.go, …) and registers itself from init with registerStudy.
type study struct {
	Name, Doc    string
	DefaultSteps int // what --steps 0 (the default) means
	// Run writes the study's files into o.Dir (which exists) and its
	// summary table on o.Stdout. It checks ctx between steps and returns
	// an cli.InterruptedError when cancelled (Ctrl-C).
	Run func(ctx context.Context, o studyOptions) error
}

// studyOptions are the flags of `sim study NAME`.
type studyOptions struct {
	Dir    string    // output directory
	Steps  int       // steps per simulation, > 0
	Stdout io.Writer // the summary table
	// Progress draws a progress bar with an ETA; nil when stderr is not
	// a terminal.
	Progress func(done, total int)
}

// lib returns the options of the study package's functions.
func (o studyOptions) lib() gstudy.Options {
	return gstudy.Options{Steps: o.Steps, Progress: o.Progress}
}

// studyStopped turns a study stopped by ctx (Ctrl-C, SIGTERM) into an
// cli.InterruptedError (exit 130); other errors pass.
func studyStopped(name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return cli.Interruptedf("%s: interrupted; nothing written (%v)", name, err)
	}
	return err
}

var studies = map[string]study{}

// registerStudy adds s; a duplicate name is a programming error.
func registerStudy(s study) {
	if _, dup := studies[s.Name]; dup || s.Name == "" || s.Run == nil {
		panic(fmt.Sprintf("sim: study %q registered twice or incomplete", s.Name))
	}
	studies[s.Name] = s
}

// StudyNames returns the registered studies, sorted.
func StudyNames() []string {
	names := make([]string, 0, len(studies))
	for n := range studies {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// studyUsage lists the studies in sorted order.
func studyUsage() string {
	var b strings.Builder
	b.WriteString("usage: sim study NAME [--out DIR] [--steps N]\nstudies:")
	for _, n := range StudyNames() {
		s := studies[n]
		fmt.Fprintf(&b, "\n  %-10s %s (default %d steps)", n, s.Doc, s.DefaultSteps)
	}
	return b.String()
}

// simStudy implements `sim study NAME`.
func simStudy(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "help" {
		fmt.Fprintln(stdout, studyUsage())
		return nil
	}
	fs := cli.NewFlagSet("study")
	dir := fs.String("out", "", "output directory; default results/NAME")
	steps := fs.Int("steps", 0, "steps per simulation; 0 = the study's default")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("study: want one study name, got %d arguments (sim study help lists the studies)", len(pos))
	}
	s, ok := studies[pos[0]]
	if !ok {
		return cli.Usagef("study: unknown study %q (valid: %s)", pos[0], strings.Join(StudyNames(), ", "))
	}
	if *steps < 0 {
		return cli.Usagef("--steps: must be ≥ 0, got %d", *steps)
	}
	o := studyOptions{Dir: *dir, Steps: *steps, Stdout: stdout}
	if o.Dir == "" {
		o.Dir = "results/" + s.Name
	}
	if o.Steps == 0 {
		o.Steps = s.DefaultSteps
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return cli.Usagef("--out: %v", err)
	}
	if !cli.IsTerminal(stderr) {
		return s.Run(ctx, o)
	}
	bar := newProgressBar(stderr)
	finished := false
	o.Progress = func(done, total int) {
		bar(done, total)
		finished = done == total // the bar ended its line
	}
	err = s.Run(ctx, o)
	if err != nil && !finished {
		fmt.Fprintln(stderr) // the error on a line of its own
	}
	return err
}
