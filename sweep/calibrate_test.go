package sweep

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func experimentsJSON(s Spec) string {
	var b strings.Builder
	b.WriteString("[")
	for i, e := range s.Experiments {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": %q, "set": {`, e.Name)
		for k, key := range sortedKeys(e.Set) {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q: %q", key, e.Set[key])
		}
		fmt.Fprintf(&b, `}, "measured": %q}`, e.Measured)
	}
	b.WriteString("]")
	return b.String()
}

var long = flag.Bool("long", false, "run the long off-grid calibration test (minutes)")

// offGridTolerance runs TestCalibrationOffGrid with data and model at
// this Job.Tolerance (bpp's accepted residual, default 1e-6·s_w): a
// change of the solver's bits as a change of its rules makes, to check
// the calibration's robustness to it (docs/calibration.md).
var offGridTolerance = flag.Float64("offgrid.tolerance", 0, "TestCalibrationOffGrid's solver tolerance for data and model (0: the default)")

// offGridCentre0 runs TestCalibrationOffGrid with data and model at
// stepper.CoherentOff (Spec.Coherent and Job.Coherent false: every solve
// at centre 0) instead of the push scene's coherent centre: another
// solver whose bits differ from the default's by its solves' accepted
// residual (docs/calibration.md).
var offGridCentre0 = flag.Bool("offgrid.centre0", false, "TestCalibrationOffGrid's data and model at centre 0 (stepper.CoherentOff)")

// offGridLocal is TestCalibrationOffGrid's Refine.Local: the percentage
// of each start's evaluations pooled on the search's local phase.
var offGridLocal = flag.Int("offgrid.local", 0, "TestCalibrationOffGrid's refine.local (0–90 %)")

// offGridSubsteps: the off-grid data are the shipped generator (gorigid's
// push scene, bpp, shippedNoise with seed = experiment number) run at
// h/16 = 0.625 ms, the step at which E is smooth enough to search
// (docs/calibration.md); the calibration runs the model at the same step.
const offGridSubsteps = 16

// offGridData writes the shipped experiments' measured trajectories for
// truth to a temporary directory, simulated with bpp at Job.Tolerance
// tol (0: the solver's default), at centre 0 (Job.Coherent false) when
// centre0 and otherwise at the scene's coherent centre.
func offGridData(t *testing.T, truth map[string]float64, tol float64, centre0 bool) string {
	t.Helper()
	s := shippedSpecRaw(t)
	dir := t.TempDir()
	for i, e := range s.Experiments {
		set := s.runSet(i, nil, nil)
		for k, v := range truth {
			set[k] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		j := Job{ID: "data", Scene: s.Scene, Set: set, Solver: "bpp", Steps: s.Steps, Substeps: offGridSubsteps, Body: s.Body,
			Tolerance: tol, Coherent: centre0Setting(centre0), Measured: []Frame{{Step: 0}}, Trajectory: true}
		r, err := Run(&j)
		require.NoError(t, err)
		frames := r.Trajectory
		n := shippedNoise
		n.Seed = uint64(i + 1)
		f, err := os.Create(filepath.Join(dir, e.Measured))
		require.NoError(t, err)
		require.NoError(t, WriteTrajectory(f, s.Body, 0.07, n.Apply(frames, 1)))
		require.NoError(t, f.Close())
	}
	return dir
}

// centre0Setting is Job.Coherent for centre0: false (stepper.CoherentOff)
// when set, nil (the scene's own, coherent centre) otherwise.
func centre0Setting(centre0 bool) *bool {
	if !centre0 {
		return nil
	}
	off := false
	return &off
}

// offGridCase is one off-grid calibration: the truth, the swept ranges
// (their grid points are not the truth's values), the search budget and
// the solver's Job.Tolerance (0: its default) and whether data and model
// run at centre 0 (Job.Coherent false) instead of the scene's coherent
// centre.
type offGridCase struct {
	name      string
	truth     map[string]float64
	params    string
	refine    string
	tolerance float64
	centre0   bool
}

// offGridSpec writes data generated at c.truth and returns the spec that
// calibrates them.
func offGridSpec(t *testing.T, c offGridCase) *Spec {
	dir := offGridData(t, c.truth, c.tolerance, c.centre0)
	s := shippedSpecRaw(t)
	coherent := ""
	if c.centre0 {
		coherent = `"coherent": false, `
	}
	src := fmt.Sprintf(`{"scene": "push", "steps": %d, "substeps": %d, "tolerance": %v, %s"set": {"push_speed": "0.5", "push_distance": "0.06"},
  "params": [%s],
  "experiments": %s, "holdout": "e2", "solvers": ["bpp"], "body": 0, "angle_length": %v,
  "refine": %s}`, s.Steps, offGridSubsteps, c.tolerance, coherent, c.params, experimentsJSON(s), s.AngleLength, c.refine)
	sp, err := ParseSpec([]byte(src), dir)
	require.NoError(t, err)
	return sp
}

// offGridRun runs Calibrate on data generated at c.truth and returns its
// calibration, the truth as a point and E at the truth.
func offGridRun(t *testing.T, c offGridCase) (cal Calibration, sp *Spec, truth []float64, eTruth float64) {
	sp = offGridSpec(t, c)
	names := sp.ParamNames()
	for i, n := range names {
		require.NotContains(t, sp.values(i), c.truth[n], "%s: the truth must not be a grid point", n)
	}
	t0 := time.Now()
	cals, err := Calibrate(context.Background(), sp, Local{}, "test", t.Logf)
	require.NoError(t, err)
	wall := time.Since(t0)
	cal = cals[0]
	g := &cal.Region
	truth = make([]float64, len(names))
	for i, n := range names {
		truth[i] = c.truth[n]
		t.Logf("%s: true %v, best %.4f, region %.4f…%.4f (identified %v)", n, truth[i], cal.Best[i], g.Lo[i], g.Hi[i], g.Identified[i])
	}
	// E at the truth, to compare with the region's threshold.
	var exps []int
	for i, e := range sp.Experiments {
		if e.Name != sp.Holdout {
			exps = append(exps, i)
		}
	}
	jobs, err := sp.jobsForSolvers([][]float64{truth}, exps, []string{"bpp"}, "test")
	require.NoError(t, err)
	eTruth = meanE(RunLocal(jobs))
	noise := shippedNoise.ExpectedE(sp.AngleLength)
	t.Logf("%s: E best %.4g, at the truth %.4g, noise alone %.4g; region E ≤ %.4g (noise sd %.2g, roughness sd %.2g), %d points; "+
		"%d grid samples + %d search evaluations, %v; held-out E %.4g",
		c.name, cal.E, eTruth, noise, g.Threshold, g.NoiseSD, g.RoughSD, g.Points, sp.SampleCount(), cal.Evaluations, wall.Round(time.Second), cal.Prediction.E)
	// The search spends its budget: starts × evaluations, and the region
	// probes.
	assert.LessOrEqual(t, cal.Evaluations, sp.Refine.Starts*sp.Refine.Evaluations+2*len(names)*regionProbes+regionBudget(sp))
	return cal, sp, truth, eTruth
}

// regionBudget is the spec's budget for sampling the region.
func regionBudget(sp *Spec) int {
	if sp.Refine.Region == 0 {
		return defaultRegionEvaluations
	}
	return sp.Refine.Region
}

// calibrateOffGrid runs Calibrate on data generated at c.truth and
// checks the truth against the confidence region.
func calibrateOffGrid(t *testing.T, c offGridCase) {
	cal, sp, truth, eTruth := offGridRun(t, c)
	g := &cal.Region
	noise := shippedNoise.ExpectedE(sp.AngleLength)
	// The search ends as low as the truth up to E's scatter: the best E
	// exceeds the truth's by at most the region's margin, 2·√(noise sd² +
	// 2·roughness sd²) (Region.Threshold's rule, so the truth and the best
	// fit could each stand for the other). A bound on the best E as a
	// multiple of the noise alone (measured at centre 0: 1.10× for truth 1
	// and 1.21× for truth 2) fails on the roughness: with the coherent
	// centre truth 1's search ends at 1.30×, next to the truth but not in
	// its dip (narrower than 0.0015 along μ_p, TestOffGridLines), 3.5e-08
	// above the truth's E and less than one roughness sd (3.9e-08). The
	// noise alone is logged for comparison.
	margin := RegionSigmas * g.SD()
	assert.LessOrEqual(t, cal.E, eTruth+margin, "best E %.4g within %.3g of the truth's %.4g (noise alone %.4g)", cal.E, margin, eTruth, noise)
	// The search ends next to the truth: μ_s and R_tri within a quarter
	// of the grid spacing (TestCalibrationOffGrid's check).
	for _, i := range []int{2, 3} {
		assert.InDelta(t, truth[i], cal.Best[i], sp.Params[i].Step/4, "%s within a quarter of the grid spacing", sp.Params[i].Name)
	}
	// The truth is within the noise of the best fit, and inside the
	// region's intervals.
	assert.LessOrEqual(t, eTruth, g.Threshold, "E at the truth within the noise of the best E")
	assert.True(t, g.Contains(truth), "the region %v…%v contains the truth %v", g.Lo, g.Hi, truth)
	// μ_s and the tripod radius are determined by the data (their region
	// is narrower than half their range).
	assert.True(t, g.Identified[2] && g.Identified[3], "mu_s and tripod identified")
}

// offGridBox1 and offGridBox2 are grids of 3 values per parameter whose
// points are not the truths' values and whose centres are not the truths.
const (
	offGridBox1 = `{"name": "mu_p", "min": 0.1, "max": 0.4, "step": 0.15},
    {"name": "mu_f", "min": 0.3, "max": 0.8, "step": 0.25},
    {"name": "mu_s", "min": 0.25, "max": 0.5, "step": 0.125},
    {"name": "tripod", "min": 0.015, "max": 0.04, "step": 0.0125}`
	offGridBox2 = `{"name": "mu_p", "min": 0.3, "max": 0.7, "step": 0.2},
    {"name": "mu_f", "min": 0.1, "max": 0.5, "step": 0.2},
    {"name": "mu_s", "min": 0.45, "max": 0.8, "step": 0.175},
    {"name": "tripod", "min": 0.02, "max": 0.045, "step": 0.0125}`
)

// Calibration finds a truth it was not given: data generated at
// parameters that are not grid points (the two truths, at h/16),
// an 81-sample grid, then CMA-ES from the 6 best samples with 200
// evaluations each, the region probes and 240 evaluations sampling the
// region (at most 1 480 evaluations of E, 5 920 jobs, against the BPMD
// paper's 26 620 samples). The truth's E is within the noise of the best
// E and the best E within the region's margin of the truth's, μ_s and R_tri are
// identified and their best values within a quarter of the grid spacing
// of the truth, and each truth's region contains every true value.
// Measured with the push scene's coherent centre: truth 1 found at 0.2119
// / 0.5656 / 0.3495 / 25.2 mm, E 1.850e-07 (1.30× the noise alone, 3.5e-08
// above the truth's E: calibrateOffGrid says why that passes), roughness sd 3.9e-08,
// region E ≤ 2.974e-07 of 111 points: μ_p 0.1678…0.3341 and μ_f 0.3…0.8
// (not identified), μ_s 0.3380…0.3804, R_tri 23.5…26.6 mm, held-out E
// 7.39e-07; truth 2 at 0.4490 / 0.2074 / 0.6012 / 34.9 mm, E 1.630e-07,
// roughness sd 2.0e-08, region E ≤ 2.228e-07 of 176 points: μ_p
// 0.3405…0.5076, μ_f 0.1729…0.5 (not identified), μ_s 0.5848…0.6152,
// R_tri 34.2…35.7 mm, held-out E 1.71e-07. With -offgrid.centre0 (data
// and model at centre 0), measured at the same centre-0 bits: truth 1 at
// 0.2137 / 0.6120 / 0.3518 / 25.1 mm, E 1.562e-07, roughness sd 2.6e-08,
// region μ_p 0.1780…0.3769 (not identified), μ_f 0.5009…0.7090, μ_s
// 0.3389…0.3585, R_tri 23.9…26.4 mm (65 points); truth 2 at 0.4392 /
// 0.4019 / 0.6010 / 34.8 mm, E 1.726e-07, roughness sd 2.5e-08, region
// μ_p 0.3775…0.6010 and μ_f 0.1554…0.5 (not identified), μ_s
// 0.5868…0.6191, R_tri 33.8…35.6 mm (127 points). With the noise-only
// region (Region.RoughSD) both truths failed at centre 0 at the solver
// bits of commit 1e7a977 (docs/calibration.md).
func TestCalibrationFindsOffGridTruth(t *testing.T) {
	if !*long {
		t.Skip("minutes of h/16 runs (1–1.5 min per truth at a load of 2–5 on 2 cores, 6–7 at 15–17): go test ./sweep -run OffGridTruth -long [-offgrid.centre0]; TestCalibrationOffGrid runs a smaller search")
	}
	for _, c := range []offGridCase{
		{"truth 1", offGridTruth1, offGridBox1, `{"starts": 6, "evaluations": 200, "seed": 1}`, 0, *offGridCentre0},
		{"truth 2", map[string]float64{"mu_p": 0.45, "mu_f": 0.25, "mu_s": 0.6, "tripod": 0.035}, offGridBox2,
			`{"starts": 6, "evaluations": 200, "seed": 1}`, 0, *offGridCentre0},
	} {
		t.Run(c.name, func(t *testing.T) { calibrateOffGrid(t, c) })
	}
}

// offGridQuick is TestCalibrationOffGrid's search budget: CMA-ES from
// the 6 best of offGridBox1's 81 grid samples, 100 evaluations each, then
// the region probes and the region's sampling (240): at most 81 + 880
// evaluations of E (h/16 jobs).
const offGridQuick = `{"starts": 6, "evaluations": 100, "seed": 1}`

// Calibration of data generated at truth 1 (off the grid) by the real
// search, as sim calibrate runs it (grid, then CMA-ES from the best grid
// cells, the region probes, the roughness probes and the region's
// sampling), within offGridQuick's budget, holds the truth whatever the
// solver's last bits: at the push scene's coherent centre, with
// -offgrid.centre0 (centre 0) and with -offgrid.centre0 -offgrid.tolerance
// 1e-7 (data and model with another solver's bits). Measured, coherent
// centre: from the grid's best (0.4 / 0.3 / 0.375 / 27.5 mm, E =
// 4.81e-06) the search ends at 0.2114 / 0.8 / 0.3483 / 24.9 mm, E =
// 1.657e-07 (the truth's E is 1.505e-07), with noise sd 8.7e-09 and
// roughness sd 2.9e-08 a region E ≤ 2.49e-07 of 60 points: μ_p
// 0.1707…0.4 and μ_f 0.3…0.8 (not identified), μ_s 0.3361…0.3625, R_tri
// 23.7…25.7 mm (before the momentum alignment respected the object's
// contacts: E = 2.169e-07, roughness sd 6.0e-08, μ_s 0.3366…0.3853, R_tri
// 23.4…27.5 mm). With -offgrid.centre0: from the grid's best (0.4 / 0.55
// / 0.375 / 27.5 mm, E = 4.455e-06) E = 1.598e-07 at 0.2222 / 0.7764 /
// 0.3501 / 24.8 mm, roughness sd 2.2e-08, region μ_s 0.3335…0.3588, R_tri
// 23.2…25.6 mm (73 points; before: E = 2.217e-07, roughness sd 4.9e-08,
// μ_s 0.3399…0.3888, R_tri 24.2…27.5 mm). Measured before that change,
// with -offgrid.centre0 -offgrid.tolerance 1e-7: E = 2.592e-07 at 0.2438 /
// 0.6417 / 0.3485 / 25.1 mm, roughness sd 8.3e-08, region μ_s
// 0.3291…0.3897, R_tri 23.8…27.1 mm (106 points). In
// each the region holds the truth (docs/calibration.md). Checked: the
// search more than halves the grid's E, the truth's E is within the
// region's threshold, the region contains the truth, μ_s and R_tri are
// identified and their best values are within a quarter of the grid
// spacing of the truth (0.031, 3.1 mm). The -long test spends 1 480
// evaluations on each of the two truths.
func TestCalibrationOffGrid(t *testing.T) {
	if testing.Short() {
		// About 70 s of CPU (its profile), most of the sweep package's
		// 85 s: 1 min 23 s of wall time at a load of 2.5–5 on the 2
		// cores, 10 min 14 s alone at a load of 20 and 3 min 48 s in the
		// package at 17, where the package's 10-minute go test timeout
		// is near.
		t.Skip("about 70 s of CPU: 1.5 min at a load of 2.5–5 on 2 cores, 10 min at a load of 20")
	}
	refine := strings.Replace(offGridQuick, "}", fmt.Sprintf(`, "local": %d}`, *offGridLocal), 1)
	c := offGridCase{name: "truth 1", truth: offGridTruth1, params: offGridBox1, refine: refine, tolerance: *offGridTolerance,
		centre0: *offGridCentre0}
	cal, sp, truth, eTruth := offGridRun(t, c)
	g := &cal.Region
	t.Logf("grid best %v, E %.4g; region contains the truth: %v", cal.GridBest, cal.GridE, g.Contains(truth))
	assert.Less(t, cal.E, cal.GridE/2, "the search more than halves the grid's E")
	assert.LessOrEqual(t, eTruth, g.Threshold, "E at the truth within the noise of the best E")
	assert.True(t, g.Contains(truth), "the region %v…%v contains the truth %v", g.Lo, g.Hi, truth)
	assert.True(t, g.Identified[2] && g.Identified[3], "mu_s and tripod identified")
	for _, i := range []int{2, 3} {
		step := sp.Params[i].Step
		assert.InDelta(t, truth[i], cal.Best[i], step/4, "%s within a quarter of the grid spacing", sp.Params[i].Name)
	}
}
