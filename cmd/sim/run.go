package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
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

// runSolverByName returns the solvers `sim run` accepts (the enumerating
// reference solver is exponential in the rows: mlcp solve only).
func runSolverByName(name string) (lcp.Solver, error) {
	switch name {
	case "bpp", "pgs", "lemke", "newton-fb", "newton-cck", "newton-min", "prox":
		return solverByName(name)
	}
	return nil, fmt.Errorf("--solver: unknown value %q (want bpp, pgs, lemke, newton-fb, newton-cck, newton-min or prox)", name)
}

// runOptions are the outputs and recording of one run (`sim run`'s flags
// after the world is built).
type runOptions struct {
	Steps   int    // steps to take
	Every   int    // record steps 0, Every, 2·Every, …; ≥ 1
	Out     string // trajectory file (.csv or .json); "" = none
	Stats   string // step-statistics CSV; "" = none
	DumpDir string // per recorded step MLCP and solution JSON; "" = none
	// BPMD is a BPMD database (HDF5) receiving one frame per recorded step
	// (package bpmd); "" = none.
	BPMD string
	// OnStep, if set, is called after every step (progress reporting).
	OnStep func(step int)
}

// runReport is what a finished or stopped run did.
type runReport struct {
	Steps  int // steps taken
	Frames int // trajectory frames written (step 0 included)
	// MaxAdded is the largest Stats.EnergyAdded of a step (J) and
	// MaxAddedStep that step; Scale is the largest energy of the system
	// over the run, kinetic plus potential above the lowest potential seen
	// (J), against which MaxAdded is judged.
	MaxAdded     float64
	MaxAddedStep int
	Scale        float64
}

// energyWarning returns the one-line warning of a run in which some step
// added more than 1 % of the system's energy, or "".
func (r runReport) energyWarning() string {
	if r.MaxAdded > 0.01*r.Scale && r.MaxAdded > 1e-12 {
		return fmt.Sprintf("warning: step %d added %.3g J of energy, %.3g %% of the system's %.3g J (a step too large for the motion, or a position correction lifting bodies)",
			r.MaxAddedStep, r.MaxAdded, 100*r.MaxAdded/r.Scale, r.Scale)
	}
	return ""
}

// simulate steps w opts.Steps times, recording step 0 and every Every-th
// step to the outputs. Cancelling ctx (Ctrl-C) stops after the current
// step, whose solve stops at its best iterate; every output is then
// flushed, closed and renamed to its final name, and the error is an
// interruptedError. A failing step stops the
// run the same way, its rows written, and returns the step's error. A
// panic leaves the outputs as FILE.partial.
func simulate(ctx context.Context, w *stepper.World, o runOptions) (rep runReport, err error) {
	w.Settings.Context = ctx // a signal stops a long solve too, not only between steps
	var traj, stats *atomicFile
	var db *bpmd.Writer
	var rec *bpmd.Recorder
	committed := false
	defer func() {
		if !committed { // a panic or a failure to open: leave no final file
			traj.abandon(err != nil)
			stats.abandon(err != nil)
			if db != nil {
				db.Abort()
			}
		}
	}()
	var tw trajectoryWriter
	if o.Out != "" {
		if traj, err = createAtomic("--out", o.Out); err != nil {
			return rep, err
		}
		if tw, err = newTrajectoryWriter(traj, o.Out, w); err != nil {
			return rep, err
		}
	}
	if o.Stats != "" {
		if stats, err = createAtomic("--stats", o.Stats); err != nil {
			return rep, err
		}
		if _, err = io.WriteString(stats, statsHeader+"\n"); err != nil {
			return rep, err
		}
	}
	if o.DumpDir != "" {
		if err = os.MkdirAll(o.DumpDir, 0o755); err != nil {
			return rep, usagef("--dump-mlcp: %v", err)
		}
	}
	if o.BPMD != "" {
		if db, err = bpmd.Create(o.BPMD); err != nil {
			return rep, usagef("--bpmd: %v", err)
		}
		rec = bpmd.NewRecorder(w)
	}
	if o.Every < 1 {
		o.Every = 1
	}
	finish := func(runErr error) (runReport, error) {
		committed = true
		if db != nil {
			if err := db.Close(); err != nil && runErr == nil {
				runErr = err
			}
		}
		if tw != nil {
			if err := tw.finish(); err != nil && runErr == nil {
				runErr = err
			}
		}
		for _, f := range []*atomicFile{traj, stats} {
			if err := f.commit(); err != nil && runErr == nil {
				runErr = err
			}
		}
		return rep, runErr
	}

	if tw != nil {
		if err := tw.frame(w); err != nil {
			return finish(err)
		}
		rep.Frames++
	}
	var row []byte
	k0, uMin := w.Energy()
	rep.Scale = k0
	for k := 1; k <= o.Steps; k++ {
		before := w.Steps()
		st, stepErr := w.Step()
		if w.Steps() == before || errors.Is(stepErr, stepper.ErrNonFinite) {
			// The step did not happen, or left a state not worth a row.
			return finish(stepErr)
		}
		rep.Steps++
		uMin = math.Min(uMin, st.Potential)
		rep.Scale = math.Max(rep.Scale, st.Kinetic+st.Potential-uMin)
		if stepErr == nil && st.EnergyAdded > rep.MaxAdded {
			// (A step whose solve a signal stopped is reported as
			// interrupted; its unfinished answer's energy is not the
			// step size's fault.)
			rep.MaxAdded, rep.MaxAddedStep = st.EnergyAdded, st.Step
		}
		if w.Steps()%o.Every == 0 {
			if tw != nil {
				if err := tw.frame(w); err != nil {
					return finish(err)
				}
				rep.Frames++
			}
			if stats != nil {
				row = statsRow(row[:0], &st)
				if _, err := stats.Write(row); err != nil {
					return finish(err)
				}
			}
			if o.DumpDir != "" {
				if err := dumpStep(o.DumpDir, w, &st); err != nil {
					return finish(err)
				}
			}
			if db != nil {
				f, err := rec.Frame(st)
				if err == nil {
					err = db.WriteFrame(f)
				}
				if err != nil {
					return finish(err)
				}
			}
		}
		if stepErr != nil {
			if ctx.Err() != nil && errors.Is(stepErr, ctx.Err()) {
				// The signal stopped this step's solve at its best iterate.
				return finish(interruptedf("interrupted after step %d of %d (its solve stopped at its best iterate); outputs closed with every row written", k, o.Steps))
			}
			return finish(stepErr)
		}
		if o.OnStep != nil {
			o.OnStep(k)
		}
		if ctx.Err() != nil && k < o.Steps {
			return finish(interruptedf("interrupted after step %d of %d; outputs closed with every row written", k, o.Steps))
		}
	}
	return finish(nil)
}

// dumpStep writes the step's MLCP and picked solution as
// DIR/step-000123.mlcp.json and DIR/step-000123.solution.json. A step
// without constraint rows has no MLCP and writes nothing.
func dumpStep(dir string, w *stepper.World, st *stepper.Stats) error {
	p := w.LastProblem()
	if p == nil {
		return nil
	}
	base := filepath.Join(dir, fmt.Sprintf("step-%06d", w.Steps()))
	var pb strings.Builder
	if err := lcp.WriteProblem(&pb, p); err != nil {
		return fmt.Errorf("step %d: MLCP: %w", w.Steps(), err)
	}
	if err := writeFileAtomic(base+".mlcp.json", []byte(pb.String())); err != nil {
		return err
	}
	x, wv := w.LastSolution()
	sol := &lcp.Solution{
		X: x, W: wv,
		// The x written is the picked iterate: its iteration, not the
		// solver's count (which is in solver_iterations).
		Iterations: st.Picked,
		Status:     st.Status.String(),
		Extra: map[string]any{
			"step":              st.Step,
			"time":              st.Time,
			"solver":            w.Settings.Solver.Name(),
			"pick":              w.Settings.Pick.String(),
			"picked":            st.Picked,
			"solver_iterations": st.Iterations,
			"errors":            totalsJSON(st.Errors),
			"polish_sweeps":     st.PolishSweeps,
		},
	}
	if !math.IsInf(st.Bound, 1) {
		sol.Extra["certified_bound"] = st.Bound
	}
	var sb strings.Builder
	if err := lcp.WriteSolution(&sb, sol); err != nil {
		return fmt.Errorf("step %d: solution: %w", w.Steps(), err)
	}
	return writeFileAtomic(base+".solution.json", []byte(sb.String()))
}

// simRun implements `sim run`.
func simRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run")
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
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run: want one scene name or FILE.json, got %d arguments (see sim list)", len(pos))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case *steps < 0:
		return usagef("--steps: must be ≥ 0, got %d", *steps)
	case *every < 1:
		return usagef("--every: must be ≥ 1, got %d", *every)
	case *budget < 0:
		return usagef("--budget: must be ≥ 0, got %d", *budget)
	case *polish < 0:
		return usagef("--polish: must be ≥ 0 sweeps, got %d", *polish)
	case given["dt"] && (!(*dt > 0) || math.IsInf(*dt, 0)):
		return usagef("--dt: must be finite and > 0, got %v", *dt)
	}
	solver, err := runSolverByName(*solverName)
	if err != nil {
		return usageError{err}
	}
	measure, err := errmeasure.ParseMeasure(*pickName)
	if err != nil {
		return usagef("--pick: %v", err)
	}
	var w *stepper.World
	if isSceneFile(pos[0]) {
		if len(set) > 0 {
			return usagef("--set: a scene file has no parameters; edit %s instead", pos[0])
		}
		w, err = scenes.LoadFile(pos[0])
	} else {
		var scene scenes.Scene
		if scene, err = scenes.Lookup(pos[0]); err == nil {
			w, err = scene.Build(set)
		}
	}
	if err != nil {
		return usageError{err}
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
		return usageError{err}
	}
	o := runOptions{Steps: *steps, Every: *every, Out: *out, Stats: *statsPath, DumpDir: *dump, BPMD: *bpmdPath}
	var prog *progress
	if !*quiet && isTerminal(stderr) {
		prog = newProgress(stderr, *steps)
		o.OnStep = prog.step
	}
	rep, err := simulate(ctx, w, o)
	if prog != nil {
		prog.done(rep.Steps)
	}
	if msg := rep.energyWarning(); msg != "" {
		fmt.Fprintln(stderr, "sim:", msg)
	}
	var ie interruptedError
	if errors.As(err, &ie) && o.Out != "" {
		return interruptedf("%v (%s: %d frames)", err, o.Out, rep.Frames)
	}
	return err
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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
