package trajectory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func scene(t *testing.T, name string, set map[string]string) *stepper.World {
	t.Helper()
	s, err := scenes.Lookup(name)
	require.NoError(t, err)
	w, err := s.Build(set)
	require.NoError(t, err)
	return w
}

// pivotingPyramid is the 6-brick pyramid (base 3) with
// Settings.Coherent off, whose solves after step 1 take several block-pivoting
// iterations (1, 4, 4, 2, 2, … in steps 1, 2, 3, …): each regularized solve
// starts its proximal centre at 0 and needs a proximal move. With Coherent
// on, step 1's main solve starts the contacts its pre-solve leaves without
// load unloaded (stepper's freshLoadFloor), and each of the first 10 steps
// takes one iteration, which leaves no iterate to stop at.
func pivotingPyramid(t *testing.T) *stepper.World {
	w := scene(t, "pyramid", map[string]string{"base": "3"})
	w.Settings.Coherent = stepper.CoherentOff
	return w
}

// A body in free fall, recorded every 10th of 100 steps: the frames hold
// the semi-implicit Euler solution v_k = −g h k, z_k = z₀ − g h² k(k+1)/2
// (the stepper's integrator, exact for constant acceleration up to
// rounding), the statistics rows have no constraint rows, and each step
// removes ½ m g² h² of energy, so no warning.
func TestRunFreeFall(t *testing.T) {
	const h, g, z0, m = 0.01, 9.81, 10.0, 2.0
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	b, err := body.New(body.Params{Name: "ball", Mass: m, Inertia: body.SphereInertia(m, 0.1), Pos: mgl64.Vec3{1, -2, z0}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)

	var traj, stats bytes.Buffer
	tw, err := NewWriter(&traj, CSV, w)
	require.NoError(t, err)
	sw, err := NewStatsWriter(&stats)
	require.NoError(t, err)
	var added []float64
	rep, err := Run(context.Background(), w, Options{Steps: 100, Every: 10, Trajectory: tw, Stats: sw,
		OnStep: func(k int, st *stepper.Stats) { added = append(added, st.EnergyAdded) }})
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	assert.Equal(t, Report{Steps: 100, Frames: 11, Rows: 10, Scale: rep.Scale, Floor: rep.Floor}, rep)
	assert.InDelta(t, m*g*1e-6, rep.Floor, 1e-18, "the floor lifts the body by 1 µm")
	assert.Empty(t, rep.EnergyWarning())
	require.Len(t, added, 100)
	for k, e := range added {
		// 1e-9 J: E is about m g z₀ = 196 J, so the difference of two
		// energies carries rounding of order 1e-13 J per step.
		assert.InDelta(t, -0.5*m*g*g*h*h, e, 1e-9, "step %d", k+1)
	}

	r, err := NewReader(&traj, CSV)
	require.NoError(t, err)
	frames, err := r.ReadAll()
	require.NoError(t, err)
	require.Len(t, frames, 11)
	for i, f := range frames {
		k := float64(10 * i)
		assert.Equal(t, int64(10*i), f.Step)
		// 1e-12 s and m: a hundred sums of h and of h v, rounding only.
		assert.InDelta(t, k*h, f.Time, 1e-12)
		s := f.Bodies[0]
		assert.InDelta(t, z0-g*h*h*k*(k+1)/2, s.Pos[2], 1e-12, "z at step %v", k)
		assert.InDelta(t, -g*h*k, s.Vel[2], 1e-12, "vz at step %v", k)
		assert.Equal(t, [2]float64{1, -2}, [2]float64{s.Pos[0], s.Pos[1]}, "no horizontal motion")
		assert.Equal(t, [4]float64{1, 0, 0, 0}, s.Rot)
	}

	tab, err := ReadStats(&stats)
	require.NoError(t, err)
	require.Equal(t, 10, tab.Rows())
	st, _ := tab.Col("step")
	rows, _ := tab.Col("rows")
	kin, _ := tab.Col("kinetic")
	for i := range st {
		k := float64(10 * (i + 1))
		assert.Equal(t, k, st[i])
		assert.Zero(t, rows[i], "free fall has no constraint rows")
		// 1e-9 J: ½ m v² of order 100 J, rounding only.
		assert.InDelta(t, 0.5*m*(g*h*k)*(g*h*k), kin[i], 1e-9)
	}
}

// A run whose context is cancelled after step 4 (what Ctrl-C does) commits
// its files with every row written and no .partial left, and returns an
// *InterruptedError wrapping context.Canceled.
func TestRunFilesInterrupted(t *testing.T) {
	dir := t.TempDir()
	w := scene(t, "chain6", map[string]string{"links": "2"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := Files{Trajectory: filepath.Join(dir, "t.json"), Stats: filepath.Join(dir, "s.csv"), DumpDir: filepath.Join(dir, "d")}
	rep, err := RunFiles(ctx, w, f, Options{Steps: 1000, Every: 2, OnStep: func(k int, _ *stepper.Stats) {
		if k == 5 {
			cancel()
		}
	}})
	var ie *InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, InterruptedError{Step: 5, Of: 1000, Err: context.Canceled}, *ie)
	assert.Equal(t, "interrupted after step 5 of 1000", err.Error())
	assert.Equal(t, 5, rep.Steps)
	assert.Equal(t, 3, rep.Frames) // steps 0, 2, 4
	assert.Equal(t, 2, rep.Rows)
	assert.Empty(t, rep.EnergyWarning(), "a chain swinging at h = 1 ms adds no energy")

	var doc struct{ Frames []struct{ Step int } }
	data, err := os.ReadFile(f.Trajectory)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc), "the JSON document is closed")
	assert.Len(t, doc.Frames, 3)
	sf, err := os.Open(f.Stats)
	require.NoError(t, err)
	defer sf.Close()
	tab, err := ReadStats(sf)
	require.NoError(t, err)
	steps, _ := tab.Col("step")
	assert.Equal(t, []float64{2, 4}, steps)
	dumps, _ := filepath.Glob(filepath.Join(f.DumpDir, "*.json"))
	assert.Len(t, dumps, 4) // steps 2 and 4: MLCP and solution
	left, _ := filepath.Glob(filepath.Join(dir, "*"+PartialSuffix))
	assert.Empty(t, left)
}

// A context cancelled inside a step's solve (here by the user's observer
// at the first iterate of step 3) completes that step at its best iterate,
// writes its rows, and reports InSolve.
func TestRunInterruptedInSolve(t *testing.T) {
	// The pyramid's steps after the first take 2 or more block-pivoting
	// iterations, so a cancel at the first iterate of step 3 finds a
	// second one to stop.
	w := pivotingPyramid(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.Settings.Observer = lcp.ObserverFunc(func(it lcp.Iterate) {
		if w.Steps() == 2 { // the world counts the step when it completes
			cancel()
		}
	})
	var stats bytes.Buffer
	sw, err := NewStatsWriter(&stats)
	require.NoError(t, err)
	rep, err := Run(ctx, w, Options{Steps: 10, Stats: sw})
	var ie *InterruptedError
	require.ErrorAs(t, err, &ie)
	assert.True(t, ie.InSolve)
	assert.Equal(t, 3, ie.Step)
	assert.Equal(t, 3, rep.Steps)
	assert.Equal(t, 3, rep.Rows, "the interrupted step's row is written")
	tab, err := ReadStats(&stats)
	require.NoError(t, err)
	it, _ := tab.Col("iterations")
	assert.Equal(t, []float64{1, 4, 1}, it, "step 3 stopped after its first iterate")
}

// A Stopper on the world's Settings.Observer stops step 2's solve: Run
// writes that step's rows and returns the step's error, which wraps
// lcp.ErrStopped and the Stopper's reason.
func TestRunObserverStops(t *testing.T) {
	w := pivotingPyramid(t)
	errEnough := errors.New("enough")
	w.Settings.Observer = lcp.NewStopper(func(it lcp.Iterate) error {
		if w.Steps() == 1 && it.Iter == 1 {
			return errEnough
		}
		return nil
	})
	var stats bytes.Buffer
	sw, err := NewStatsWriter(&stats)
	require.NoError(t, err)
	rep, err := Run(context.Background(), w, Options{Steps: 5, Stats: sw})
	require.ErrorIs(t, err, lcp.ErrStopped)
	require.ErrorIs(t, err, errEnough)
	var ie *InterruptedError
	assert.False(t, errors.As(err, &ie), "a stop is not an interruption")
	assert.Equal(t, 2, rep.Steps)
	tab, err := ReadStats(&stats)
	require.NoError(t, err)
	it, _ := tab.Col("iterations")
	assert.Equal(t, []float64{1, 1}, it, "step 1 took its 1 block-pivoting iteration, step 2 was stopped after 1")
}

// The step's Picker, the BPMD recorder and a user's observer watch one
// solve: each sees every iterate. The recorder's per-iteration energy
// errors equal the user's (the same iterates), the user saw Iterations
// iterates per step, and the picked iterate's energy error is the least
// of them (the Picker saw them all).
func TestRunComposedObservers(t *testing.T) {
	dir := t.TempDir()
	w := scene(t, "pyramid", map[string]string{"base": "3"})
	var energies [][]float64 // per step, per iterate
	w.Settings.Observer = lcp.ObserverFunc(func(it lcp.Iterate) {
		if it.Iter == 1 {
			energies = append(energies, nil)
		}
		e := errmeasure.Compute(w.LastProblem(), it.X, it.W, nil).Energy
		energies[len(energies)-1] = append(energies[len(energies)-1], e)
	})
	var sts []stepper.Stats
	db := filepath.Join(dir, "p.bpmd")
	_, err := RunFiles(context.Background(), w, Files{BPMD: db}, Options{Steps: 4,
		OnStep: func(_ int, st *stepper.Stats) { sts = append(sts, *st) }})
	require.NoError(t, err)
	frames, err := bpmd.ReadFile(db)
	require.NoError(t, err)
	require.Len(t, frames, 4)
	require.Len(t, energies, 4)
	for k, f := range frames {
		assert.Equal(t, sts[k].Iterations, len(energies[k]), "step %d: the user saw every iterate", k+1)
		assert.Equal(t, energies[k], f.Solution.Energy, "step %d: the recorder saw the same iterates", k+1)
		least := math.Inf(1)
		for _, e := range energies[k] {
			least = math.Min(least, e)
		}
		// Relative 1e-3: the pick's totals are recomputed with w = A x + b
		// by A's product from the kept x, while the iterate's w is BPP's,
		// here the body-space product J M⁻¹ Jᵀ x + C x + b of its KKT
		// path: the two differ by w's rounding, which moves an energy
		// error at rounding level (~1.5e-23 J) by up to 5e-5 of itself.
		// The other iterates' errors are 7 to 1e20 times larger.
		assert.InDelta(t, least, sts[k].Errors.Energy, 1e-3*least+1e-30, "step %d", k+1)
	}
	assert.Equal(t, 1, sts[0].Iterations, "the pyramid's first step takes 1 iteration from the pre-solve's x (4 from x̄ = 0)")
}

// An output that cannot be opened is a *FileError naming the field, and
// leaves no file behind.
func TestRunFilesBadOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		f     Files
		field string
		want  string
	}{
		{Files{Trajectory: filepath.Join(dir, "t.txt")}, "Trajectory", `Trajectory: want a .csv or .json file, got "`},
		{Files{Trajectory: filepath.Join(dir, "no", "t.csv")}, "Trajectory", "Trajectory: cannot create " + filepath.Join(dir, "no", "t.csv") + ": no such file or directory"},
		{Files{Trajectory: filepath.Join(dir, "ok.csv"), Stats: filepath.Join(dir, "no", "s.csv")}, "Stats", "Stats: cannot create"},
		{Files{Stats: filepath.Join(dir, "ok.csv"), DumpDir: filepath.Join(dir, "ok.csv.partial", "d")}, "DumpDir", "DumpDir: "},
	} {
		w := scene(t, "pendulum", nil)
		_, err := RunFiles(context.Background(), w, tc.f, Options{Steps: 3})
		var fe *FileError
		require.ErrorAs(t, err, &fe, tc.want)
		assert.Equal(t, tc.field, fe.Field)
		assert.Contains(t, err.Error(), tc.want)
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		assert.Empty(t, left, "%s: no file left", tc.want)
	}
	w := scene(t, "pendulum", nil)
	_, err := RunFiles(context.Background(), w, Files{}, Options{Steps: 1, DumpDir: dir})
	assert.ErrorContains(t, err, "leave Options' Trajectory, Stats, DumpDir and BPMD unset")
	_, err = Run(context.Background(), w, Options{Steps: -1})
	assert.ErrorContains(t, err, "Options.Steps: must be ≥ 0, got -1")
}

// The same run twice gives byte-identical outputs.
func TestRunDeterministic(t *testing.T) {
	var out [2][3]string
	for i := range out {
		dir := t.TempDir()
		w := scene(t, "chain6", map[string]string{"links": "3", "stabilization": "post"})
		f := Files{Trajectory: filepath.Join(dir, "t.csv"), Stats: filepath.Join(dir, "s.csv"), DumpDir: dir}
		_, err := RunFiles(context.Background(), w, f, Options{Steps: 40, Every: 20})
		require.NoError(t, err)
		for j, name := range []string{"t.csv", "s.csv", "step-000040.solution.json"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			out[i][j] = string(b)
		}
	}
	assert.Equal(t, out[0], out[1])
}

// With the BPMD recorder wrapping the world's solver, a Stopper on
// Settings.Observer still stops the solve (the recorder composes its
// observer with the caller's), and the frame records the iterates seen.
// The pyramid's step 1 takes one iteration, its step 2 four: step 2 is
// the one stopped at its second iterate.
func TestRunObserverStopsThroughRecorder(t *testing.T) {
	dir := t.TempDir()
	w := pivotingPyramid(t)
	w.Settings.Observer = lcp.NewStopper(func(it lcp.Iterate) error {
		if it.Iter == 2 {
			return errors.New("two are enough")
		}
		return nil
	})
	db := filepath.Join(dir, "p.bpmd")
	rep, err := RunFiles(context.Background(), w, Files{BPMD: db}, Options{Steps: 3})
	require.ErrorIs(t, err, lcp.ErrStopped)
	assert.Equal(t, 2, rep.Steps)
	frames, err := bpmd.ReadFile(db)
	require.NoError(t, err)
	require.Len(t, frames, 2, "the stopped step's frame is written")
	assert.Equal(t, 1, frames[0].Solution.Iterations)
	assert.Equal(t, 2, frames[1].Solution.Iterations)
	assert.Len(t, frames[1].Solution.Energy, 2)
	assert.Equal(t, "stopped", frames[1].Solution.Status)
}

// The scale judges the energy a step added against the system's energy,
// but not below the rest-noise floor: the 200-brick wall at rest (energy
// 7.2e-10 J) gained 9.5e-11 J in one step by rounding, 13 % of its energy
// and 1e-8 of lifting its 800 kg by 1 µm.
func TestEnergyScaleFloor(t *testing.T) {
	wall := EnergyScale{Energy: 7.2e-10, Floor: 7.8e-3}
	assert.Zero(t, wall.Fraction(9.5e-11))
	assert.InDelta(t, 0.1, (&EnergyScale{Energy: 10, Floor: 7.8e-3}).Fraction(1), 1e-15)
	assert.InDelta(t, 0.1, (&EnergyScale{Energy: 1e-5}).Fraction(1e-6), 1e-15, "no gravity: no floor")
	assert.Zero(t, (&EnergyScale{Energy: 1e-5}).Fraction(1e-13), "below 1e-12 J: rounding")
	g := EnergyGain{Step: 3, Added: 1, Energy: 10}
	assert.Contains(t, Report{FirstGain: &g}.EnergyWarning(), "warning: step 3 added 1 J of energy, 10 % of the system's 10 J")
	assert.Empty(t, Report{}.EnergyWarning())
}

// The scale is the energy above the lowest potential seen, the largest so
// far: a negative or a large potential does not hide a gain.
func TestEnergyScaleNegativePotential(t *testing.T) {
	for _, u0 := range []float64{-1e6, 0, 1e6} {
		e := EnergyScale{Energy: 0, uMin: u0}
		e.Add(&stepper.Stats{Kinetic: 0, Potential: u0 - 5}) // falls 5 J
		assert.Equal(t, 0.0, e.Energy, "u0 %g: at rest at the lowest point", u0)
		e.Add(&stepper.Stats{Kinetic: 5, Potential: u0 - 5})
		assert.Equal(t, 5.0, e.Energy, "u0 %g", u0)
		e.Add(&stepper.Stats{Kinetic: 0, Potential: u0 - 5})
		assert.Equal(t, 5.0, e.Energy, "u0 %g: does not shrink at rest", u0)
		assert.InDelta(t, 0.1, e.Fraction(0.5), 1e-15, "u0 %g", u0)
	}
}

// boxInGround is a 1 kg, 0.1 m box sunk 1 cm into the ground with the
// position projection off: the Φ/h feedback of step 1 pushes it out at
// 0.6 m/s, about 0.18 J more than the system had.
func boxInGround(t *testing.T) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity, ProjectAbove: math.Inf(1)})
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane()})
	require.NoError(t, err)
	b, err := body.New(body.Params{Name: "box", Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1), Pos: mgl64.Vec3{0, 0, 0.04}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.1, 0.1, 0.1})
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape})
	require.NoError(t, err)
	return w
}

// The first step that adds more than 1 % of the system's energy is
// reported once, when it happens; MaxEnergyGain stops the run after it
// with its rows written.
func TestRunEnergyGain(t *testing.T) {
	var gains []EnergyGain
	var steps []int
	rep, err := Run(context.Background(), boxInGround(t), Options{Steps: 30,
		OnStep:       func(k int, _ *stepper.Stats) { steps = append(steps, k) },
		OnEnergyGain: func(g EnergyGain) { gains = append(gains, g); steps = append(steps, -g.Step) }})
	require.NoError(t, err)
	require.Len(t, gains, 1, "once")
	g := gains[0]
	assert.Equal(t, 1, g.Step)
	assert.Equal(t, []int{-1, 1, 2}, steps[:3], "reported right after its step (before its OnStep), before the next")
	assert.Greater(t, g.Fraction(), 0.05)
	assert.Equal(t, &g, rep.FirstGain)
	assert.Contains(t, rep.EnergyWarning(), "warning: step 1 added")
	assert.Equal(t, 1, rep.MaxFractionStep)

	var stats bytes.Buffer
	sw, err := NewStatsWriter(&stats)
	require.NoError(t, err)
	rep, err = Run(context.Background(), boxInGround(t), Options{Steps: 30, Stats: sw, MaxEnergyGain: 0.05})
	var ge *EnergyGainError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, 1, ge.Gain.Step)
	assert.Equal(t, 0.05, ge.Limit)
	assert.Contains(t, err.Error(), "stopped after step 1 of 30")
	assert.Equal(t, 1, rep.Steps)
	tab, err := ReadStats(&stats)
	require.NoError(t, err)
	require.Equal(t, 1, tab.Rows(), "the step's row is written")
	added, ok := tab.Col("energy_added")
	require.True(t, ok)
	assert.Equal(t, ge.Gain.Added, added[0])

	for _, bad := range []float64{-1, math.NaN(), math.Inf(1)} {
		_, err := Run(context.Background(), boxInGround(t), Options{Steps: 1, MaxEnergyGain: bad})
		assert.ErrorContains(t, err, "MaxEnergyGain", "%v", bad)
	}
}
