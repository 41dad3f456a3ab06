package trajectory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
)

// Options steer Run: how many steps, which to record, and where to.
type Options struct {
	Steps int // steps to take, ≥ 0
	// Every records steps 0, Every, 2·Every, …; 0 means 1 (every step).
	Every int
	// Trajectory receives a frame at step 0 and at every recorded step;
	// nil = none. Run does not Close it.
	Trajectory *Writer
	// Stats receives a row per recorded step (step 0 has none); nil = none.
	Stats *StatsWriter
	// DumpDir receives each recorded step's MLCP and picked solution as
	// JSON (DumpStep); "" = none. Run creates it if needed.
	DumpDir string
	// BPMD receives one BPMD frame per recorded step; nil = none. Run
	// attaches a bpmd.Recorder to the world (a Controller and a wrapper
	// of its Solver) before the first step. Run does not Close it.
	BPMD *bpmd.Writer
	// OnStep, if set, is called after every step with its number (1-based)
	// and statistics, for progress reports.
	OnStep func(step int, st *stepper.Stats)
}

// Report is what a finished or stopped run did.
type Report struct {
	Steps  int // steps taken
	Frames int // trajectory frames written (step 0 included)
	Rows   int // statistics rows written
	// MaxAdded is the largest stepper.Stats.EnergyAdded of a step (J) and
	// MaxAddedStep that step; Scale is the largest energy of the system
	// over the run, kinetic plus potential above the lowest potential seen
	// (J), against which MaxAdded is judged.
	MaxAdded     float64
	MaxAddedStep int
	Scale        float64
	// Floor (J) is the energy of lifting every dynamic body by 1 µm,
	// Σm·|g|·1e-6 m: energy added below it is rounding of a system at
	// rest (a resting wall's Scale is about 1e-9 J, so its rounding is
	// several percent of it), not a step too large for the motion.
	Floor float64
}

// restNoise is the lift (m) of Report.Floor.
const restNoise = 1e-6

// EnergyWarning returns a one-line warning when some step added more than
// 1 % of the system's energy (a step too large for the motion, or a
// position correction lifting bodies), or "".
func (r Report) EnergyWarning() string {
	if r.MaxAdded > 0.01*r.Scale && r.MaxAdded > math.Max(1e-12, r.Floor) {
		return fmt.Sprintf("warning: step %d added %.3g J of energy, %.3g %% of the system's %.3g J (a step too large for the motion, or a position correction lifting bodies)",
			r.MaxAddedStep, r.MaxAdded, 100*r.MaxAdded/r.Scale, r.Scale)
	}
	return ""
}

// InterruptedError is Run's error when its context was done: the run
// stopped after Step of Of steps with every row of those steps written.
// It wraps the context's error.
type InterruptedError struct {
	Step, Of int
	// InSolve: the context stopped the last step's solve, which ended at
	// its best iterate (the step was completed with it).
	InSolve bool
	Err     error
}

func (e *InterruptedError) Error() string {
	if e.InSolve {
		return fmt.Sprintf("interrupted after step %d of %d (its solve stopped at its best iterate)", e.Step, e.Of)
	}
	return fmt.Sprintf("interrupted after step %d of %d", e.Step, e.Of)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// Run steps w o.Steps times, recording step 0 and every o.Every-th step to
// the outputs of o. It sets w.Settings.Context to ctx, so that a done
// context stops a long solve too: the step then completes with its best
// iterate, its rows are written, and Run returns an *InterruptedError; a
// context done between steps stops the run after the step. A failing step
// stops the run too, its rows written when the step happened (not when
// its state is not finite: stepper.ErrNonFinite), and Run returns the
// step's error. The Report counts what was done in every case.
func Run(ctx context.Context, w *stepper.World, o Options) (Report, error) {
	var rep Report
	if o.Steps < 0 {
		return rep, fmt.Errorf("trajectory: Options.Steps: must be ≥ 0, got %d", o.Steps)
	}
	if o.Every < 0 {
		return rep, fmt.Errorf("trajectory: Options.Every: must be ≥ 0, got %d", o.Every)
	}
	if o.Every == 0 {
		o.Every = 1
	}
	if o.DumpDir != "" {
		if err := os.MkdirAll(o.DumpDir, 0o755); err != nil {
			return rep, &FileError{Field: "DumpDir", Path: o.DumpDir, Err: unwrapPath(err)}
		}
	}
	var rec *bpmd.Recorder
	if o.BPMD != nil {
		rec = bpmd.NewRecorder(w)
	}
	w.Settings.Context = ctx // a signal stops a long solve too, not only between steps
	if o.Trajectory != nil {
		if err := o.Trajectory.WriteFrame(w); err != nil {
			return rep, err
		}
		rep.Frames++
	}
	k0, uMin := w.Energy()
	rep.Scale = k0
	for _, b := range w.Bodies {
		if !b.Static && !b.Kinematic {
			rep.Floor += b.Mass * w.Settings.Gravity.Len() * restNoise
		}
	}
	for k := 1; k <= o.Steps; k++ {
		before := w.Steps()
		st, stepErr := w.Step()
		if w.Steps() == before || errors.Is(stepErr, stepper.ErrNonFinite) {
			// The step did not happen, or left a state not worth a row.
			return rep, stepErr
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
			if err := record(w, &st, o, rec, &rep); err != nil {
				return rep, err
			}
		}
		if stepErr != nil {
			if ctx.Err() != nil && errors.Is(stepErr, ctx.Err()) {
				// The signal stopped this step's solve at its best iterate.
				return rep, &InterruptedError{Step: k, Of: o.Steps, InSolve: true, Err: ctx.Err()}
			}
			return rep, stepErr
		}
		if o.OnStep != nil {
			o.OnStep(k, &st)
		}
		if ctx.Err() != nil && k < o.Steps {
			return rep, &InterruptedError{Step: k, Of: o.Steps, Err: ctx.Err()}
		}
	}
	return rep, nil
}

// record writes the outputs of one recorded step.
func record(w *stepper.World, st *stepper.Stats, o Options, rec *bpmd.Recorder, rep *Report) error {
	if o.Trajectory != nil {
		if err := o.Trajectory.WriteFrame(w); err != nil {
			return err
		}
		rep.Frames++
	}
	if o.Stats != nil {
		if err := o.Stats.Write(st); err != nil {
			return err
		}
		rep.Rows++
	}
	if o.DumpDir != "" {
		if err := DumpStep(o.DumpDir, w, st); err != nil {
			return err
		}
	}
	if rec != nil {
		f, err := rec.Frame(*st)
		if err == nil {
			err = o.BPMD.WriteFrame(f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Files names the outputs of RunFiles; "" = none.
type Files struct {
	Trajectory string // trajectory file, .csv or .json (FormatOf)
	Stats      string // step-statistics CSV
	DumpDir    string // directory for each recorded step's MLCP and solution JSON
	BPMD       string // BPMD database (HDF5), one frame per recorded step
}

// FileError is an output of RunFiles that could not be opened: Field names
// the Files field, Path its value.
type FileError struct {
	Field, Path string
	Err         error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s: %v", e.Field, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// RunFiles is Run into files. Each file is written as FILE.partial and
// renamed to FILE when the run ends, whether it finished, failed or was
// interrupted (every row written stays); a failure to open an output
// returns a *FileError and leaves no file behind, and a panic leaves the
// outputs as FILE.partial. The writer fields of o (Trajectory, Stats,
// DumpDir, BPMD) must be unset: f names the outputs.
func RunFiles(ctx context.Context, w *stepper.World, f Files, o Options) (rep Report, err error) {
	if o.Trajectory != nil || o.Stats != nil || o.BPMD != nil || o.DumpDir != "" {
		return rep, errors.New("trajectory: RunFiles: the outputs are named by Files; leave Options' Trajectory, Stats, DumpDir and BPMD unset")
	}
	var traj, stats *partialFile
	var db *bpmd.Writer
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
	if f.Trajectory != "" {
		format, ferr := FormatOf(f.Trajectory)
		if ferr != nil {
			return rep, &FileError{Field: "Trajectory", Path: f.Trajectory, Err: ferr}
		}
		if traj, err = createPartial(f.Trajectory); err != nil {
			return rep, &FileError{Field: "Trajectory", Path: f.Trajectory, Err: fmt.Errorf("cannot create %s: %w", f.Trajectory, err)}
		}
		if o.Trajectory, err = NewWriter(traj, format, w); err != nil {
			return rep, err
		}
	}
	if f.Stats != "" {
		if stats, err = createPartial(f.Stats); err != nil {
			return rep, &FileError{Field: "Stats", Path: f.Stats, Err: fmt.Errorf("cannot create %s: %w", f.Stats, err)}
		}
		if o.Stats, err = NewStatsWriter(stats); err != nil {
			return rep, err
		}
	}
	if f.DumpDir != "" {
		if err = os.MkdirAll(f.DumpDir, 0o755); err != nil {
			return rep, &FileError{Field: "DumpDir", Path: f.DumpDir, Err: unwrapPath(err)}
		}
		o.DumpDir = f.DumpDir
	}
	if f.BPMD != "" {
		if db, err = bpmd.Create(f.BPMD); err != nil {
			return rep, &FileError{Field: "BPMD", Path: f.BPMD, Err: err}
		}
		o.BPMD = db
	}
	rep, runErr := Run(ctx, w, o)
	committed = true
	if db != nil {
		if err := db.Close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if o.Trajectory != nil {
		if err := o.Trajectory.Close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	for _, pf := range []*partialFile{traj, stats} {
		if err := pf.commit(); err != nil && runErr == nil {
			runErr = err
		}
	}
	return rep, runErr
}

// unwrapPath turns an *os.PathError into "PATH: reason".
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// DumpStep writes the MLCP of the step w just took (World.LastProblem)
// and its picked solution as DIR/step-000123.mlcp.json and
// DIR/step-000123.solution.json (lcp.WriteProblem, lcp.WriteSolution),
// each through a .partial file. The solution's "iterations" is the picked
// iteration; its further keys are the step, time, solver, pick, picked,
// solver_iterations, errors (the picked iterate's totals), polish_sweeps
// and, when finite, certified_bound. A step without constraint rows has
// no MLCP and writes nothing.
func DumpStep(dir string, w *stepper.World, st *stepper.Stats) error {
	p := w.LastProblem()
	if p == nil {
		return nil
	}
	base := filepath.Join(dir, fmt.Sprintf("step-%06d", w.Steps()))
	var pb strings.Builder
	if err := lcp.WriteProblem(&pb, p); err != nil {
		return fmt.Errorf("step %d: MLCP: %w", w.Steps(), err)
	}
	if err := WriteFileAtomic(base+".mlcp.json", []byte(pb.String())); err != nil {
		return err
	}
	x, wv := w.LastSolution()
	solver := "bpp" // Step's default when Settings.Solver is nil
	if w.Settings.Solver != nil {
		solver = w.Settings.Solver.Name()
	}
	sol := &lcp.Solution{
		X: x, W: wv,
		// The x written is the picked iterate: its iteration, not the
		// solver's count (which is in solver_iterations).
		Iterations: st.Picked,
		Status:     st.Status.String(),
		Extra: map[string]any{
			"step":              st.Step,
			"time":              st.Time,
			"solver":            solver,
			"pick":              w.Settings.Pick.String(),
			"picked":            st.Picked,
			"solver_iterations": st.Iterations,
			"errors":            map[string]float64{"fb": st.Errors.FB, "residual": st.Errors.Residual, "energy": st.Errors.Energy},
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
	return WriteFileAtomic(base+".solution.json", []byte(sb.String()))
}
