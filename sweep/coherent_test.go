package sweep

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job's Coherent is stepper.Settings.Coherent, as a scene file's
// "coherent" key: nil keeps the scene's own (the push scene's is
// stepper.CoherentDefault, the coherent centre), true is
// stepper.CoherentOn and false stepper.CoherentOff. Each job gives the
// trajectory of the Go user's world with that setting bit for bit (the
// shipped experiment e1 at the shipped truth, 60 steps at h = 10 ms); on
// the push scene nil and true are the same run, and false is another
// (measured: up to 6.8e-07 m and 1.7e-05 rad from the coherent run at h,
// e1's pusher face tilted 0.5 rad; 2.9 mm and 0.23 rad while integrate's
// momentum alignment turned the object on its tripod and the run
// amplified the solver's last bits, docs/calibration.md). A spec's
// "coherent" reaches its jobs.
func TestJobCoherent(t *testing.T) {
	s := readShipped(t)
	jobs, err := s.jobsForSolvers([][]float64{{0.3, 0.4, 0.5, 0.03}}, []int{0}, []string{"bpp"}, "test")
	require.NoError(t, err)
	require.Nil(t, jobs[0].Coherent, "the shipped spec keeps the scene's setting")
	on, off := true, false
	traj := map[string][]Frame{}
	for _, c := range []struct {
		name string
		set  *bool
		want stepper.Coherence
	}{{"nil", nil, stepper.CoherentDefault}, {"true", &on, stepper.CoherentOn}, {"false", &off, stepper.CoherentOff}} {
		j := jobs[0]
		j.Coherent, j.Trajectory = c.set, true
		r, err := Run(&j)
		require.NoError(t, err, c.name)
		traj[c.name] = r.Trajectory

		sc, err := scenes.Lookup(j.Scene)
		require.NoError(t, err)
		w, err := sc.Build(j.Set)
		require.NoError(t, err)
		if c.set == nil {
			assert.Equal(t, c.want, w.Settings.Coherent, "the push scene's own setting")
		}
		w.Settings.Coherent = c.want
		w.Settings.Solver, err = NewSolver("bpp")
		require.NoError(t, err)
		for w.Steps() < j.Steps {
			_, err := w.Step()
			require.NoError(t, err)
		}
		b := w.Bodies[j.Body]
		last := r.Trajectory[len(r.Trajectory)-1]
		assert.Equal(t, last.Q, [3]float64{b.Pos[0], b.Pos[1], 2 * math.Atan2(b.Rot.V[2], b.Rot.W)}, "%s: the job is the Go user's world", c.name)
	}
	assert.Equal(t, traj["nil"], traj["true"], "the push scene runs at the coherent centre")
	var dPos, dAngle float64
	for i, f := range traj["false"] {
		g := traj["nil"][i]
		dPos = math.Max(dPos, math.Hypot(f.Q[0]-g.Q[0], f.Q[1]-g.Q[1]))
		dAngle = math.Max(dAngle, math.Abs(f.Q[2]-g.Q[2]))
	}
	t.Logf("e1 at h, centre 0 against the coherent centre: up to %.3g m and %.3g rad apart", dPos, dAngle)
	assert.NotEqual(t, traj["nil"], traj["false"], "false runs at centre 0")

	s.Coherent = &off
	jobs, err = s.jobsForSolvers([][]float64{{0.3, 0.4, 0.5, 0.03}}, []int{0}, []string{"bpp"}, "test")
	require.NoError(t, err)
	require.NotNil(t, jobs[0].Coherent)
	assert.False(t, *jobs[0].Coherent, "the spec's coherent reaches its jobs")
}
