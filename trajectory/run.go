package trajectory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/internal/num"
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
	// OnEnergyGain, if set, is called once, right after the first step
	// that adds more than EnergyWarnFraction of the system's energy
	// (EnergyScale), before the run goes on: a warning at once rather than
	// the worst step at the end.
	OnEnergyGain func(g EnergyGain)
	// MaxEnergyGain, if > 0, stops the run after the first step that adds
	// more than this fraction of the system's energy (EnergyScale), its
	// rows written: Run returns an *EnergyGainError. 0 = no limit.
	MaxEnergyGain float64
	// MaxMemory (bytes), if > 0, bounds the run's memory: before the
	// first step Run refuses a world whose estimate is above it
	// (stepper.World.EstimateMemory), and after a step with more rows than
	// any before, or 16 steps after the last check, it stops, the step's
	// rows written, when the Go heap's objects (runtime/metrics
	// /memory/classes/heap/objects:bytes, this process's) exceed it.
	// Both return a *MemoryError. 0 = no limit.
	MaxMemory int64
}

// MemoryError is Run's error when Options.MaxMemory was reached: before
// the first step from the world's estimate (Step 0), or after step Step
// with the heap at Heap bytes.
type MemoryError struct {
	Estimate stepper.MemoryEstimate // the estimate before the run
	Limit    int64                  // Options.MaxMemory
	Step     int                    // 0: refused before the run
	Heap     int64                  // the heap's objects after Step (bytes)
}

func (e *MemoryError) Error() string {
	if e.Step == 0 {
		c := e.Estimate
		counted := fmt.Sprintf("%d bodies, %d joints, %d contact pairs: %d rows, %d nonzeros of A", c.Bodies, c.Joints, c.Pairs, c.Rows, c.Nonzeros)
		if c.Partial {
			counted = "counted before stopping at the limit: " + counted
		}
		return fmt.Sprintf("refused before the first step: the world needs about %s, more than the memory limit of %s (%s)",
			num.FormatBytes(c.Bytes), num.FormatBytes(e.Limit), counted)
	}
	return fmt.Sprintf("stopped after step %d: the heap holds %s, more than the memory limit of %s (contacts grew past the estimate of %s before the run)",
		e.Step, num.FormatBytes(e.Heap), num.FormatBytes(e.Limit), num.FormatBytes(e.Estimate.Bytes))
}

// checkMemory estimates w's memory within limit and returns a
// *MemoryError when it is above.
func checkMemory(w *stepper.World, limit int64) (stepper.MemoryEstimate, error) {
	est := w.EstimateMemory(limit)
	if est.Bytes > limit {
		return est, &MemoryError{Estimate: est, Limit: limit}
	}
	return est, nil
}

// heapWatch reads the Go heap's object bytes without allocating (about
// 1–2 µs a read, BenchmarkHeapWatch), after a step whose rows exceed the
// most seen so far (where memory grows) and every heapEvery steps.
type heapWatch struct {
	s           [1]metrics.Sample
	rows, steps int
}

// heapEvery is how many steps may pass without a heap read.
const heapEvery = 16

// due reports whether the step just taken, with rows rows, is checked.
func (h *heapWatch) due(rows int) bool {
	h.steps++
	if rows > h.rows || h.steps >= heapEvery {
		h.rows, h.steps = max(h.rows, rows), 0
		return true
	}
	return false
}

func newHeapWatch() *heapWatch {
	h := &heapWatch{}
	h.s[0].Name = "/memory/classes/heap/objects:bytes"
	return h
}

func (h *heapWatch) bytes() int64 {
	metrics.Read(h.s[:])
	if h.s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(h.s[0].Value.Uint64())
}

// EnergyWarnFraction is the fraction of the system's energy above which a
// step's energy gain is warned about (Options.OnEnergyGain,
// Report.EnergyWarning).
const EnergyWarnFraction = 0.01

// EnergyScale is the system's energy of a run, against which a step's
// energy gain (stepper.Stats.EnergyAdded) is judged, for the warning and
// for Options.MaxEnergyGain alike. After step k it is
//
//	E_k = max(E_{k−1}, K_k + U_k − min_{j≤k} U_j),   E_0 = K_0,
//
// the kinetic energy plus the gravitational potential energy above the
// lowest potential seen so far, the largest so far (J). It is ≥ 0 whatever
// the sign or size of U (whose origin is arbitrary: a negative or a large
// potential does not hide a gain, a system at rest near U = 0 is not
// judged against 0), and it does not shrink when the system comes to rest.
// Gains up to Floor are rounding of a system at rest, not gains.
type EnergyScale struct {
	Energy float64 // E_k (J)
	// Floor (J) is the energy of lifting every dynamic body by 1 µm,
	// Σm·|g|·1e-6 m: a resting wall's Energy is about 1e-9 J, so its
	// rounding is several percent of it. Fraction counts no gain up to
	// max(Floor, 1e-12 J).
	Floor float64
	uMin  float64
}

// NewEnergyScale starts the scale at w's state.
func NewEnergyScale(w *stepper.World) EnergyScale {
	k, u := w.Energy()
	e := EnergyScale{Energy: k, uMin: u}
	for _, b := range w.Bodies {
		if !b.Static && !b.Kinematic {
			e.Floor += b.Mass * w.Settings.Gravity.Len() * restNoise
		}
	}
	return e
}

// Add takes in the state after a step, from its statistics.
func (e *EnergyScale) Add(st *stepper.Stats) {
	e.uMin = math.Min(e.uMin, st.Potential)
	e.Energy = math.Max(e.Energy, st.Kinetic+st.Potential-e.uMin)
}

// Fraction returns added (J) over Energy, or 0 when added is at most
// max(Floor, 1e-12 J) (+Inf for a gain above it in a system without
// energy).
func (e *EnergyScale) Fraction(added float64) float64 {
	if !(added > math.Max(e.Floor, 1e-12)) {
		return 0
	}
	return added / e.Energy
}

// EnergyGain is a step that added Added (J) of energy to a system whose
// energy was Energy (J, EnergyScale).
type EnergyGain struct {
	Step          int
	Added, Energy float64
}

// Fraction is Added / Energy.
func (g EnergyGain) Fraction() float64 { return g.Added / g.Energy }

func (g EnergyGain) String() string {
	return fmt.Sprintf("step %d added %.3g J of energy, %.3g %% of the system's %.3g J", g.Step, g.Added, 100*g.Fraction(), g.Energy)
}

// EnergyGainError is Run's error when a step added more than
// Options.MaxEnergyGain of the system's energy; the run stopped after it
// with its rows written.
type EnergyGainError struct {
	Gain  EnergyGain
	Limit float64 // Options.MaxEnergyGain
	Of    int     // Options.Steps
}

func (e *EnergyGainError) Error() string {
	return fmt.Sprintf("%v, more than the limit of %.3g %%: stopped after step %d of %d", e.Gain, 100*e.Limit, e.Gain.Step, e.Of)
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
	// Floor (J) is EnergyScale.Floor: energy added below it is rounding of
	// a system at rest, not a step too large for the motion.
	Floor float64
	// MaxFraction is the largest fraction of the system's energy a step
	// added (EnergyScale.Fraction, judged after the step) and
	// MaxFractionStep that step; FirstGain the first step above
	// EnergyWarnFraction (nil if none).
	MaxFraction     float64
	MaxFractionStep int
	FirstGain       *EnergyGain
	// ProjectionSkips counts the steps whose position projection was
	// skipped (stepper.Stats.ProjectionSkipped); FirstSkipStep is the
	// first and FirstSkipReason its reason.
	ProjectionSkips int
	FirstSkipStep   int
	FirstSkipReason string
	// Conflicts counts the steps whose rigid rows could not all hold
	// (stepper.Stats.Conflict: a conflict of at most ProjectAbove, which
	// the step tolerates with status Failed); FirstConflictStep is the
	// first and FirstConflict its description.
	Conflicts         int
	FirstConflictStep int
	FirstConflict     string
}

// restNoise is the lift (m) of Report.Floor.
const restNoise = 1e-6

// EnergyWarning returns a one-line warning naming the first step that
// added more than EnergyWarnFraction of the system's energy (FirstGain), or
// "".
func (r Report) EnergyWarning() string {
	if r.FirstGain == nil {
		return ""
	}
	return r.FirstGain.Warning()
}

// Warning is the one-line warning about g. The energy is kinetic plus
// gravitational (stepper.World.Energy); the causes it names are those
// measured in package stepper's tests: a step too large for the motion, a
// budget-bound answer, the Regularized mode's Φ/h feedback closing a
// joint's error under load (stepper's TestNewUserChainEnergySource; Post
// mode moves positions instead), or a position correction lifting bodies.
func (g EnergyGain) Warning() string {
	return fmt.Sprintf("warning: %v, kinetic plus gravitational (a step too large for the motion, a budget-bound answer, Regularized feedback closing a loaded joint's error, or a position correction lifting bodies)", g)
}

// ConflictNote returns a one-line warning when some step's rigid rows
// could not all hold (Report.Conflicts), naming the count and the first,
// or "".
func (r Report) ConflictNote() string {
	if r.Conflicts == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the rigid rows could not all hold at %d steps (status failed), first at step %d: %s", r.Conflicts, r.FirstConflictStep, r.FirstConflict)
}

// ProjectionNote returns a one-line note when some step skipped its
// position projection, naming the count and the first, or "".
func (r Report) ProjectionNote() string {
	if r.ProjectionSkips == 0 {
		return ""
	}
	return fmt.Sprintf("note: the position projection was skipped at %d steps, first at step %d: %s", r.ProjectionSkips, r.FirstSkipStep, r.FirstSkipReason)
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
	return run(ctx, w, o, nil)
}

// run is Run; est, if not nil, is w's memory estimate for o.MaxMemory,
// already checked (RunFiles checks it before creating its files).
func run(ctx context.Context, w *stepper.World, o Options, est *stepper.MemoryEstimate) (Report, error) {
	var rep Report
	if o.Steps < 0 {
		return rep, fieldErr("trajectory", "Options.Steps", o.Steps, "must be ≥ 0, got %d", o.Steps)
	}
	if o.Every < 0 {
		return rep, fieldErr("trajectory", "Options.Every", o.Every, "must be ≥ 0, got %d", o.Every)
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
	var heap *heapWatch
	if o.MaxMemory < 0 {
		return rep, fieldErr("trajectory", "Options.MaxMemory", o.MaxMemory, "must be ≥ 0 bytes, got %d", o.MaxMemory)
	}
	if o.MaxMemory > 0 {
		if est == nil {
			e, err := checkMemory(w, o.MaxMemory)
			if err != nil {
				return rep, err
			}
			est = &e
		}
		heap = newHeapWatch()
	}
	w.Settings.Context = ctx // a signal stops a long solve too, not only between steps
	if o.Trajectory != nil {
		if err := o.Trajectory.WriteFrame(w); err != nil {
			return rep, err
		}
		rep.Frames++
	}
	if !(o.MaxEnergyGain >= 0) || math.IsInf(o.MaxEnergyGain, 0) {
		return rep, fieldErr("trajectory", "Options.MaxEnergyGain", o.MaxEnergyGain, "must be a finite fraction ≥ 0, got %v", o.MaxEnergyGain)
	}
	es := NewEnergyScale(w)
	rep.Scale, rep.Floor = es.Energy, es.Floor
	for k := 1; k <= o.Steps; k++ {
		before := w.Steps()
		st, stepErr := w.Step()
		if w.Steps() == before || errors.Is(stepErr, stepper.ErrNonFinite) {
			// The step did not happen, or left a state not worth a row.
			return rep, stepErr
		}
		rep.Steps++
		es.Add(&st)
		rep.Scale = es.Energy
		var gain *EnergyGain
		if stepErr == nil {
			// (A step whose solve a signal stopped is reported as
			// interrupted; its unfinished answer's energy is not the
			// step size's fault.)
			if st.EnergyAdded > rep.MaxAdded {
				rep.MaxAdded, rep.MaxAddedStep = st.EnergyAdded, st.Step
			}
			if f := es.Fraction(st.EnergyAdded); f > 0 {
				if f > rep.MaxFraction {
					rep.MaxFraction, rep.MaxFractionStep = f, st.Step
				}
				if f > EnergyWarnFraction || (o.MaxEnergyGain > 0 && f > o.MaxEnergyGain) {
					gain = &EnergyGain{Step: st.Step, Added: st.EnergyAdded, Energy: es.Energy}
				}
			}
		}
		if st.ProjectionSkipped != stepper.ProjectionNotSkipped {
			if rep.ProjectionSkips == 0 {
				rep.FirstSkipStep, rep.FirstSkipReason = st.Step, st.ProjectionSkipReason
			}
			rep.ProjectionSkips++
		}
		if st.Conflict.Rows > 0 {
			if rep.Conflicts == 0 {
				rep.FirstConflictStep, rep.FirstConflict = st.Step, st.Conflict.String()
			}
			rep.Conflicts++
		}
		if w.Steps()%o.Every == 0 {
			if err := record(w, &st, o, rec, &rep); err != nil {
				return rep, err
			}
		}
		if gain != nil && rep.FirstGain == nil && gain.Fraction() > EnergyWarnFraction {
			rep.FirstGain = gain
			if o.OnEnergyGain != nil {
				o.OnEnergyGain(*gain)
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
		if gain != nil && o.MaxEnergyGain > 0 && gain.Fraction() > o.MaxEnergyGain {
			return rep, &EnergyGainError{Gain: *gain, Limit: o.MaxEnergyGain, Of: o.Steps}
		}
		if heap != nil && k < o.Steps && heap.due(st.Rows) {
			if b := heap.bytes(); b > o.MaxMemory {
				return rep, &MemoryError{Estimate: *est, Limit: o.MaxMemory, Step: k, Heap: b}
			}
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
// outputs as FILE.partial. While it runs it holds each output's
// OutputLock (FILE.lock, and DIR.lock for DumpDir), so a second run
// naming an output this one writes is refused before it writes anything,
// with a *FileError wrapping a *LockedError; two fields naming one path
// are a *FileError too. A world above o.MaxMemory is refused before any
// file is created. The writer fields of o (Trajectory, Stats, DumpDir,
// BPMD) must be unset: f names the outputs.
func RunFiles(ctx context.Context, w *stepper.World, f Files, o Options) (rep Report, err error) {
	if o.Trajectory != nil || o.Stats != nil || o.BPMD != nil || o.DumpDir != "" {
		return rep, errors.New("trajectory: RunFiles: the outputs are named by Files; leave Options' Trajectory, Stats, DumpDir and BPMD unset")
	}
	var est *stepper.MemoryEstimate
	if o.MaxMemory > 0 { // refused before any file is created
		e, err := checkMemory(w, o.MaxMemory)
		if err != nil {
			return rep, err
		}
		est = &e
	}
	var traj, stats *partialFile
	var db *bpmd.Writer
	locks, lerr := lockFiles(f)
	defer func() { // after the outputs are committed or abandoned (defers run last first)
		for _, l := range locks {
			_ = l.Unlock()
		}
	}()
	if lerr != nil {
		return rep, lerr
	}
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
		l, lerr := lockOutput("DumpDir", f.DumpDir)
		if lerr != nil {
			return rep, lerr
		}
		locks = append(locks, l)
		o.DumpDir = f.DumpDir
	}
	if f.BPMD != "" {
		if db, err = bpmd.Create(f.BPMD); err != nil {
			return rep, &FileError{Field: "BPMD", Path: f.BPMD, Err: err}
		}
		o.BPMD = db
	}
	rep, runErr := run(ctx, w, o, est)
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

// lockFiles claims every output f names (LockOutput), in field order,
// and returns the locks taken; on an error (a path named twice, a lock
// held by another run) the caller unlocks those taken.
func lockFiles(f Files) ([]*OutputLock, error) {
	var locks []*OutputLock
	seen := map[string]string{}
	for _, o := range []struct{ field, path string }{
		{"Trajectory", f.Trajectory}, {"Stats", f.Stats}, {"BPMD", f.BPMD}, {"DumpDir", f.DumpDir},
	} {
		if o.path == "" {
			continue
		}
		abs, err := filepath.Abs(o.path)
		if err != nil {
			abs = o.path
		}
		if prev, dup := seen[abs]; dup {
			return locks, &FileError{Field: o.field, Path: o.path, Err: fmt.Errorf("%s is also the %s output", o.path, prev)}
		}
		seen[abs] = o.field
		if o.field == "DumpDir" {
			continue // locked once it exists (RunFiles)
		}
		l, err := lockOutput(o.field, o.path)
		if err != nil {
			return locks, err
		}
		locks = append(locks, l)
	}
	return locks, nil
}

// lockOutput is LockOutput as a *FileError of field: a missing directory
// reads as the output's own "cannot create PATH".
func lockOutput(field, path string) (*OutputLock, error) {
	l, err := LockOutput(filepath.Clean(path))
	var le *LockedError
	var pe *os.PathError
	switch {
	case errors.As(err, &le):
		return nil, &FileError{Field: field, Path: path, Err: err}
	case errors.As(err, &pe):
		return nil, &FileError{Field: field, Path: path, Err: fmt.Errorf("cannot create %s: %w", path, pe.Err)}
	case err != nil:
		return nil, &FileError{Field: field, Path: path, Err: err}
	}
	return l, nil
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
// DIR/step-000123.solution.json (lcp.WriteLabelledProblem,
// lcp.WriteSolution), each through a .partial file. The MLCP's "rows" says
// what each row is (World.RowLabels, see RowLabels). The solution's "iterations" is the picked
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
	var labels any
	if l := RowLabels(w); len(l) == p.N() {
		labels = l
	}
	if err := lcp.WriteLabelledProblem(&pb, p, labels); err != nil {
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

// RowLabel is one entry of a dumped MLCP's "rows": what the row is, from
// stepper.RowLabel, with names for a reader. A joint row has joint,
// joint_name (when World.NameJoint gave one), joint_type and joint_row
// (its place among the joint's rows); a contact row has contact (its index
// in World.Contacts), geoms and direction (the unit normal, friction
// direction or rolling axis). Both have kind (constraint.Kind: Bilateral,
// LimitLower, …, ContactNormal, ContactFriction, RollingFriction) and the
// two bodies by name (a body without one as "body 3", the world and a
// static body in a contact as "world") and index (−1 for the world).
type RowLabel struct {
	Kind      string      `json:"kind"`
	Joint     *int        `json:"joint,omitempty"`
	JointName string      `json:"joint_name,omitempty"`
	JointType string      `json:"joint_type,omitempty"`
	JointRow  *int        `json:"joint_row,omitempty"`
	Contact   *int        `json:"contact,omitempty"`
	Bodies    [2]string   `json:"bodies"`
	BodyIDs   [2]int      `json:"body_ids"`
	Geoms     *[2]int     `json:"geoms,omitempty"`
	Direction *[3]float64 `json:"direction,omitempty"`
}

// RowLabels returns the labels of the rows of w's last step
// (stepper.World.RowLabels) as dumped MLCPs write them.
func RowLabels(w *stepper.World) []RowLabel {
	labels := w.RowLabels(nil)
	out := make([]RowLabel, len(labels))
	name := func(b int) string {
		switch {
		case b < 0:
			return "world"
		case w.Bodies[b].Name != "":
			return w.Bodies[b].Name
		}
		return fmt.Sprintf("body %d", b)
	}
	for i := range labels {
		l := &labels[i]
		o := &out[i]
		o.Kind = l.Kind.String()
		o.BodyIDs = l.Bodies
		o.Bodies = [2]string{name(l.Bodies[0]), name(l.Bodies[1])}
		if l.Joint >= 0 {
			o.Joint, o.JointRow = &l.Joint, &l.JointRow
			o.JointName = w.JointName(l.Joint)
			o.JointType = strings.TrimPrefix(fmt.Sprintf("%T", w.Joints[l.Joint]), "*constraint.")
			continue
		}
		d := [3]float64(l.Direction)
		o.Contact, o.Geoms, o.Direction = &l.Contact, &l.Geoms, &d
	}
	return out
}

// fieldErr is the package's error for one bad field: a *num.FieldError
// that reads "what: field: reason" ("trajectory: Options.Steps: must be ≥
// 0, got -1", "line 2: y: \"zz\" is not a number"), with the bad value.
func fieldErr(what, field string, value any, format string, args ...any) error {
	return &num.FieldError{What: what, Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}
