package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// setFlag collects repeated --set NAME=VALUE options.
type setFlag map[string]string

func (s setFlag) String() string { return "" }

func (s setFlag) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	if _, dup := s[name]; dup {
		return fmt.Errorf("%s given twice", name)
	}
	s[name] = value
	return nil
}

// runSolverByName returns the solvers `sim run` accepts: lcp.StepNames.
func runSolverByName(name string) (lcp.Solver, error) {
	if !slices.Contains(lcp.StepNames(), name) {
		return nil, fmt.Errorf("--solver: unknown value %q (want %s)", name, strings.Join(lcp.StepNames(), ", "))
	}
	return lcp.New(name)
}

// runFlags maps the fields of trajectory.Files to the flags of `sim run`
// that set them, for the errors.
var runFlags = map[string]string{"Trajectory": "--out", "Stats": "--stats", "DumpDir": "--dump-mlcp", "BPMD": "--bpmd"}

// simulate runs w into the files of f (trajectory.RunFiles) and turns the
// package's errors into the CLI's: an output that cannot be opened is a
// usage error naming the flag, an interruption an cli.InterruptedError, a
// world above --max-memory a usage error (refused before the run) or an
// error (stopped when the heap passed it).
func simulate(ctx context.Context, w *stepper.World, f trajectory.Files, o trajectory.Options) (trajectory.Report, error) {
	rep, err := trajectory.RunFiles(ctx, w, f, o)
	var fe *trajectory.FileError
	var ie *trajectory.InterruptedError
	var me *trajectory.MemoryError
	switch {
	case errors.As(err, &fe):
		return rep, cli.Usagef("%s: %v", runFlags[fe.Field], fe.Err)
	case errors.As(err, &me) && me.Step == 0:
		return rep, cli.Usagef("%v (--max-memory)", me)
	case errors.As(err, &me):
		return rep, fmt.Errorf("%v (--max-memory); outputs closed with every row written", me)
	case errors.As(err, &ie):
		msg := ie.Error() + "; outputs closed with every row written"
		if f.Trajectory != "" {
			msg += fmt.Sprintf(" (%s: %d frames)", f.Trajectory, rep.Frames)
		}
		return rep, cli.Interruptedf("%s", msg)
	}
	return rep, err
}

// simRun implements `sim run`.
func simRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("run")
	steps := fs.Int("steps", 1000, "number of steps")
	dt := fs.Float64("dt", 0, "time step h (s); default: the scene's")
	solverName := fs.String("solver", "bpp", "bpp, pgs, lemke, newton-fb, newton-cck, newton-min or prox (sim help solvers)")
	budget := fs.Int("budget", 0, "iteration budget per step; 0 = the solver's default")
	pickName := fs.String("pick", "energy", "energy, energy-exact, fb, residual or last")
	polish := fs.Int("polish", 0, "projected Gauss–Seidel sweeps from the picked iterate after the budget; 0 = none")
	set := setFlag{}
	fs.Var(set, "set", "NAME=VALUE scene parameter (repeatable; see sim list)")
	out := fs.String("out", "", "trajectory file, .csv or .json")
	statsPath := fs.String("stats", "", "step-statistics CSV file")
	dump := fs.String("dump-mlcp", "", "directory for each recorded step's MLCP and solution JSON")
	every := fs.Int("every", 1, "record every K-th step")
	bpmdPath := fs.String("bpmd", "", "BPMD database (HDF5) with one frame per recorded step")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	keyframe := fs.String("keyframe", "", "MJCF model: start at the <key> of this name (its qpos and ctrl)")
	maxGain := fs.Float64("max-energy-gain", 0, "stop with exit 1 after a step adding more than this fraction of the system's energy (e.g. 0.05); 0 = no limit")
	maxMem := &cli.MemoryFlag{Bytes: cli.DefaultMaxMemory()}
	fs.Var(maxMem, "max-memory", "refuse a scene whose estimated memory is above this, and stop a run whose heap grows past it; default half the machine's memory")
	pos, err := cli.ParseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.Usagef("run: want one scene name or FILE.json, got %d arguments (see sim list)", len(pos))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case *steps < 0:
		return cli.Usagef("--steps: must be ≥ 0, got %d", *steps)
	case *every < 1:
		return cli.Usagef("--every: must be ≥ 1, got %d", *every)
	case *budget < 0:
		return cli.Usagef("--budget: must be ≥ 0, got %d", *budget)
	case *polish < 0:
		return cli.Usagef("--polish: must be ≥ 0 sweeps, got %d", *polish)
	case given["dt"] && (!(*dt > 0) || math.IsInf(*dt, 0)):
		return cli.Usagef("--dt: must be finite and > 0, got %v", *dt)
	case given["dt"] && (*dt < stepper.MinH || *dt > stepper.MaxH):
		return cli.Usagef("--dt: must be in [%v, %v] s (stepper.MinH, stepper.MaxH), got %v", stepper.MinH, stepper.MaxH, *dt)
	case given["max-energy-gain"] && (!(*maxGain > 0) || math.IsInf(*maxGain, 0)):
		return cli.Usagef("--max-energy-gain: must be a finite fraction > 0, got %v", *maxGain)
	}
	solver, err := runSolverByName(*solverName)
	if err != nil {
		return cli.UsageError{Err: err}
	}
	measure, err := errmeasure.ParseMeasure(*pickName)
	if err != nil {
		return cli.Usagef("--pick: %v", err)
	}
	var w *stepper.World
	if isSceneFile(pos[0]) {
		if len(set) > 0 {
			return cli.Usagef("--set: a scene file has no parameters; edit %s instead", pos[0])
		}
		w, err = loadSceneWorld(pos[0], *keyframe, stderr)
	} else if *keyframe != "" {
		err = fmt.Errorf("--keyframe %q: only an MJCF model has keyframes, not the built-in scene %s", *keyframe, pos[0])
	} else {
		var scene scenes.Scene
		if scene, err = scenes.Lookup(pos[0]); err == nil {
			w, err = scene.Build(set)
		}
	}
	if err != nil {
		return cli.UsageError{Err: err}
	}
	if given["dt"] {
		w.Settings.H = *dt
	}
	if given["solver"] || w.Settings.Solver == nil {
		w.Settings.Solver = solver
	}
	if given["budget"] {
		w.Settings.Budget = *budget
	}
	if given["pick"] {
		w.Settings.Pick = measure
	}
	if given["polish"] {
		w.Settings.Polish = *polish
	}
	if err := w.Settings.Validate(); err != nil {
		return cli.UsageError{Err: err}
	}
	f := trajectory.Files{Trajectory: *out, Stats: *statsPath, DumpDir: *dump, BPMD: *bpmdPath}
	o := trajectory.Options{Steps: *steps, Every: *every, MaxEnergyGain: *maxGain, MaxMemory: maxMem.Bytes}
	var prog *progress
	if !*quiet && cli.IsTerminal(stderr) {
		prog = newProgress(stderr, *steps)
		o.OnStep = func(k int, _ *stepper.Stats) { prog.step(k) }
	}
	// The first step above 1 % of the system's energy is named when it
	// happens (trajectory.EnergyScale), not the worst one at the end.
	o.OnEnergyGain = func(g trajectory.EnergyGain) {
		if prog != nil && prog.printed {
			fmt.Fprintln(stderr)
		}
		fmt.Fprintln(stderr, "sim:", g.Warning())
		if hint := jointFeedbackHint(w); hint != "" {
			fmt.Fprintln(stderr, "sim:", hint)
		}
	}
	rep, err := simulate(ctx, w, f, o)
	if prog != nil {
		prog.done(rep.Steps)
	}
	if msg := rep.ProjectionNote(); msg != "" {
		fmt.Fprintln(stderr, "sim:", msg)
	}
	if msg := rep.ConflictNote(); msg != "" {
		fmt.Fprintln(stderr, "sim:", msg)
	}
	var ge *trajectory.EnergyGainError
	if errors.As(err, &ge) {
		return fmt.Errorf("%v (--max-energy-gain %v); outputs closed with every row written", ge, *maxGain)
	}
	return err
}

// progress prints "step k/N, steps/s, remaining time" on one terminal
// line, at most four times a second.
type progress struct {
	w           io.Writer
	total       int
	start, last time.Time
	printed     bool
}

func newProgress(w io.Writer, total int) *progress {
	now := time.Now()
	return &progress{w: w, total: total, start: now, last: now}
}

func (p *progress) step(k int) {
	now := time.Now()
	if now.Sub(p.last) < 250*time.Millisecond {
		return
	}
	p.last = now
	rate := float64(k) / now.Sub(p.start).Seconds()
	left := time.Duration(float64(p.total-k) / rate * float64(time.Second)).Round(time.Second)
	fmt.Fprintf(p.w, "\rstep %d/%d  %.0f steps/s  %v left   ", k, p.total, rate, left)
	p.printed = true
}

// done ends the progress line with the steps taken and the wall time.
func (p *progress) done(steps int) {
	if p.printed {
		fmt.Fprintf(p.w, "\rstep %d/%d  done in %v          \n", steps, p.total, time.Since(p.start).Round(time.Millisecond))
	}
}

// jointFeedbackHint returns, for a world whose rigid joints get the
// Regularized mode's φ/h feedback (stepper.JointFeedback), the note that
// this feedback adds energy on moving joints and how to turn it off; ""
// for any other world.
func jointFeedbackHint(w *stepper.World) string {
	s := &w.Settings
	if len(w.Joints) == 0 || s.Stabilization != stepper.Regularized || s.JointCorrection == stepper.JointProjection {
		return ""
	}
	return `note: the joints' errors are fed back as φ/h (settings "joint_correction" feedback or absent), which adds energy on moving joints under load; "joint_correction": "projection" leaves them to the position projection (docs/everyday-physics.md, "Failures are loud")`
}
