package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// A study reproduces one of the papers' experiments: it writes the data
// behind the figure as CSV, draws it as PNG, writes summary.csv and prints
// a summary table. Each study lives in its own file (study_chain6.go, …)
// and registers itself from init with registerStudy.
type study struct {
	Name, Doc    string
	DefaultSteps int // what --steps 0 (the default) means
	// Run writes the study's files into o.Dir (which exists) and its
	// summary table on o.Stdout. It checks ctx between steps and returns
	// an interruptedError when cancelled (Ctrl-C).
	Run func(ctx context.Context, o studyOptions) error
}

// studyOptions are the flags of `sim study NAME`.
type studyOptions struct {
	Dir    string    // output directory
	Steps  int       // steps per simulation, > 0
	Stdout io.Writer // the summary table
}

var studies = map[string]study{}

// registerStudy adds s; a duplicate name is a programming error.
func registerStudy(s study) {
	if _, dup := studies[s.Name]; dup || s.Name == "" || s.Run == nil {
		panic(fmt.Sprintf("sim: study %q registered twice or incomplete", s.Name))
	}
	studies[s.Name] = s
}

// studyNames returns the registered studies, sorted.
func studyNames() []string {
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
	for _, n := range studyNames() {
		s := studies[n]
		fmt.Fprintf(&b, "\n  %-10s %s (default %d steps)", n, s.Doc, s.DefaultSteps)
	}
	return b.String()
}

// simStudy implements `sim study NAME`.
func simStudy(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "help" {
		fmt.Fprintln(stdout, studyUsage())
		return nil
	}
	fs := newFlagSet("study")
	dir := fs.String("out", "", "output directory; default results/NAME")
	steps := fs.Int("steps", 0, "steps per simulation; 0 = the study's default")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("study: want one study name, got %d arguments (sim study help lists the studies)", len(pos))
	}
	s, ok := studies[pos[0]]
	if !ok {
		return usagef("study: unknown study %q (valid: %s)", pos[0], strings.Join(studyNames(), ", "))
	}
	if *steps < 0 {
		return usagef("--steps: must be ≥ 0, got %d", *steps)
	}
	o := studyOptions{Dir: *dir, Steps: *steps, Stdout: stdout}
	if o.Dir == "" {
		o.Dir = "results/" + s.Name
	}
	if o.Steps == 0 {
		o.Steps = s.DefaultSteps
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	return s.Run(ctx, o)
}
