package sweep

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job's key is its content: what changes the result changes the key,
// the id, the sweep and the trajectory flag do not.
func TestJobKey(t *testing.T) {
	s := readShipped(t)
	jobs, err := s.jobsForSolvers([][]float64{{0.3, 0.4, 0.5, 0.03}}, []int{0}, []string{"bpp"}, "build-a")
	require.NoError(t, err)
	base := jobs[0]
	k := base.Key()
	same := base
	same.ID, same.Sweep, same.Trajectory = "other", "other-sweep", true
	assert.Equal(t, k, same.Key())
	for name, change := range map[string]func(j *Job){
		"params":       func(j *Job) { j.Params = []float64{0.3, 0.4, 0.5, 0.031} },
		"set":          func(j *Job) { j.Set = map[string]string{"mu_p": "0.31"} },
		"scene hash":   func(j *Job) { j.SceneHash = "x" },
		"solver":       func(j *Job) { j.Solver = "pgs" },
		"build":        func(j *Job) { j.Build = "build-b" },
		"experiment":   func(j *Job) { j.Experiment = "e9" },
		"measured":     func(j *Job) { j.Measured = append([]Frame{}, j.Measured...); j.Measured[3].Q[0] += 1e-12 },
		"steps":        func(j *Job) { j.Steps++ },
		"substeps":     func(j *Job) { j.Substeps = 4 },
		"tolerance":    func(j *Job) { j.Tolerance = 1e-10 },
		"coherent":     func(j *Job) { on := true; j.Coherent = &on },
		"coherent off": func(j *Job) { off := false; j.Coherent = &off },
		"body":         func(j *Job) { j.Body = 1 },
		"angle length": func(j *Job) { j.AngleLength = 0.06 },
	} {
		j := base
		change(&j)
		assert.NotEqual(t, k, j.Key(), name)
	}
	assert.Equal(t, "e1-bpp-"+k[:16], base.ID)
}

// `sim calibrate` after `sim sweep` of the same spec reuses the sweep's
// results: every grid job of the calibration is a job of the sweep, by
// id (the shipped spec with 2 values per parameter: 16 samples × 4
// calibration experiments × 3 solvers).
func TestCalibrationGridIsSweep(t *testing.T) {
	s := readShipped(t)
	for i := range s.Params {
		s.Params[i].Step = *s.Params[i].Max - *s.Params[i].Min
	}
	sw, err := s.Jobs("b")
	require.NoError(t, err)
	ids := map[string]bool{}
	for _, j := range sw {
		ids[j.ID] = true
	}
	var exps []int
	for i, e := range s.Experiments {
		if e.Name != s.Holdout {
			exps = append(exps, i)
		}
	}
	grid, err := s.jobsFor(s.SamplesList(), exps, "b")
	require.NoError(t, err)
	require.Len(t, grid, 16*4*3)
	for _, j := range grid {
		require.True(t, ids[j.ID], "calibration job %s is not a sweep job", j.ID)
	}
	assert.Len(t, ids, len(sw), "ids are unique")
}

func readShipped(t testing.TB) *Spec {
	t.Helper()
	s, err := ReadSpec(filepath.Join(shippedDir, "calibrate.json"))
	require.NoError(t, err)
	return s
}

// A job with substeps beyond the limit is refused with the field named;
// substeps 1 is the scene's h, the same bits as 0.
func TestJobSubsteps(t *testing.T) {
	j := Job{Scene: "push", Set: map[string]string{"push_speed": "0.5"}, Solver: "bpp", Steps: 5, AngleLength: 0.05,
		Measured: []Frame{{Step: 5}}, Substeps: 1001}
	_, err := Run(&j)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "substeps: must be 0 to 1000, got 1001")
	j.Substeps = 0
	r0, err := Run(&j)
	require.NoError(t, err)
	j.Substeps = 1
	r1, err := Run(&j)
	require.NoError(t, err)
	assert.Equal(t, r0.E, r1.E)
	j.Substeps = 4
	r4, err := Run(&j)
	require.NoError(t, err)
	assert.Equal(t, 5, r4.Steps, "steps count whole steps")
	assert.NotEqual(t, r0.E, r4.E, "h/4 is another trajectory")
}
