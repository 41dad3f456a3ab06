package sweep

import (
	"context"
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

// offGridSubsteps: the off-grid data are the shipped generator (gorigid's
// push scene, bpp, shippedNoise with seed = experiment number) run at
// h/16 = 0.625 ms, the step at which E is smooth enough to search
// (docs/calibration.md); the calibration runs the model at the same step.
const offGridSubsteps = 16

// offGridData writes the shipped experiments' measured trajectories for
// truth to a temporary directory.
func offGridData(t *testing.T, truth map[string]float64) string {
	t.Helper()
	s := shippedSpecRaw(t)
	dir := t.TempDir()
	for i, e := range s.Experiments {
		set := s.runSet(i, nil, nil)
		for k, v := range truth {
			set[k] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		frames, err := Simulate(s.Scene, set, "bpp", s.Steps, offGridSubsteps, s.Body)
		require.NoError(t, err)
		n := shippedNoise
		n.Seed = uint64(i + 1)
		f, err := os.Create(filepath.Join(dir, e.Measured))
		require.NoError(t, err)
		require.NoError(t, WriteTrajectory(f, s.Body, 0.07, n.Apply(frames, 1)))
		require.NoError(t, f.Close())
	}
	return dir
}

// offGridCase is one off-grid calibration: the truth, the swept ranges
// (their grid points are not the truth's values) and the search budget.
type offGridCase struct {
	name   string
	truth  map[string]float64
	params string
	refine string
}

// calibrateOffGrid runs Calibrate on data generated at c.truth and
// checks that the confidence region contains the truth.
func calibrateOffGrid(t *testing.T, c offGridCase) {
	dir := offGridData(t, c.truth)
	s := shippedSpecRaw(t)
	src := fmt.Sprintf(`{"scene": "push", "steps": %d, "substeps": %d, "set": {"push_speed": "0.5", "push_distance": "0.06"},
  "params": [%s],
  "experiments": %s, "holdout": "e2", "solvers": ["bpp"], "body": 0, "angle_length": %v,
  "refine": %s}`, s.Steps, offGridSubsteps, c.params, experimentsJSON(s), s.AngleLength, c.refine)
	sp, err := ParseSpec([]byte(src), dir)
	require.NoError(t, err)
	names := sp.ParamNames()
	for i, n := range names {
		require.NotContains(t, sp.values(i), c.truth[n], "%s: the truth must not be a grid point", n)
	}
	t0 := time.Now()
	cals, err := Calibrate(context.Background(), sp, Local{}, "test", nil)
	require.NoError(t, err)
	wall := time.Since(t0)
	cal := cals[0]
	g := &cal.Region
	truth := make([]float64, len(names))
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
	eTruth := meanE(RunLocal(jobs))
	noise := shippedNoise.ExpectedE(sp.AngleLength)
	t.Logf("%s: E best %.4g, at the truth %.4g, noise alone %.4g; region E ≤ %.4g (noise sd %.2g), %d points; "+
		"%d grid samples + %d search evaluations, %v; held-out E %.4g",
		c.name, cal.E, eTruth, noise, g.Threshold, g.NoiseSD, g.Points, sp.SampleCount(), cal.Evaluations, wall.Round(time.Second), cal.Prediction.E)
	// The search spends its budget: starts × evaluations.
	assert.LessOrEqual(t, cal.Evaluations, sp.Refine.Starts*sp.Refine.Evaluations)
	// The best fit is at the noise level: a mean of ~700 squared normal
	// residuals is within ±6 % (1σ) of 2σ_xy² + ρ²σ_θ², and the fit may
	// absorb a little of it; at most 15 % above.
	assert.Less(t, cal.E, 1.15*noise)
	// The truth is within the noise of the best fit, and inside the
	// region's intervals.
	assert.LessOrEqual(t, eTruth, g.Threshold, "E at the truth within the noise of the best E")
	assert.True(t, g.Contains(truth), "the region %v…%v contains the truth %v", g.Lo, g.Hi, truth)
	// μ_s and the tripod radius are determined by the data (their region
	// is narrower than half their range).
	assert.True(t, g.Identified[2] && g.Identified[3], "mu_s and tripod identified")
}
