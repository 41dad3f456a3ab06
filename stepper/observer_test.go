package stepper_test

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// restingBox is a 1 kg cube of 0.2 m side resting on the ground (μ = 0.5):
// four contact points, 12 rows.
func restingBox(t *testing.T, s stepper.Settings) *stepper.World {
	t.Helper()
	s.H, s.Gravity = 0.01, stepper.StandardGravity
	w, err := stepper.New(s)
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	return w
}

// Settings.Observer sees every iterate of the step's main solve, numbered
// 1…Iterations, with LastProblem the problem being solved; the pre-solve
// of the new contacts is counted in PreSolveIterations (and SeedSweeps),
// only in the step in which the contacts are new.
func TestStepObserverSeesEveryIterate(t *testing.T) {
	var iters []int
	rows := -1
	var w *stepper.World
	obs := lcp.ObserverFunc(func(it lcp.Iterate) {
		iters = append(iters, it.Iter)
		if p := w.LastProblem(); p != nil {
			rows = p.N()
		}
	})
	w = restingBox(t, stepper.Settings{Observer: obs})
	for step := 1; step <= 3; step++ {
		iters, rows = iters[:0], -1
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 4, st.Contacts)
		require.Equal(t, 12, st.Rows) // a normal and two friction rows per point
		require.GreaterOrEqual(t, st.Iterations, 1)
		want := make([]int, st.Iterations)
		for i := range want {
			want[i] = i + 1
		}
		assert.Equal(t, want, iters, "step %d: every iterate of the main solve, once", step)
		assert.Equal(t, st.Rows, rows, "step %d: LastProblem during the solve is the step's problem", step)
		if step == 1 {
			// Four new points of four: the sweeps seed the pre-solve, which
			// takes at least its one factorization.
			assert.Positive(t, st.PreSolveIterations)
			assert.Positive(t, st.SeedSweeps)
			assert.LessOrEqual(t, st.SeedSweeps, 20, "at most estimateSweeps sweeps")
		} else {
			assert.Zero(t, st.PreSolveIterations, "step %d: no new contact, no pre-solve", step)
			assert.Zero(t, st.SeedSweeps, "step %d", step)
		}
		t.Logf("step %d: %d iterations, pre-solve %d, seed sweeps %d", step, st.Iterations, st.PreSolveIterations, st.SeedSweeps)
	}
}

// A Stopper on Settings.Observer ends the step's solve after iterate k:
// the step still completes (time advances, the state stays finite), its
// Stats say Stopped after k iterations with a pick among them, and Step
// returns an error wrapping lcp.ErrStopped and the Stopper's error.
func TestStepObserverStopsSolve(t *testing.T) {
	const k = 3
	errEnough := errors.New("enough")
	seen := 0
	stop := lcp.NewStopper(func(it lcp.Iterate) error {
		seen = it.Iter
		if it.Iter == k {
			return errEnough
		}
		return nil
	})
	// Projected Gauss–Seidel needs far more than k sweeps on a box at rest
	// (four redundant normals).
	w := restingBox(t, stepper.Settings{Solver: &lcp.PGS{}, Observer: stop})
	st, err := w.Step()
	require.Error(t, err)
	assert.ErrorIs(t, err, lcp.ErrStopped)
	assert.ErrorIs(t, err, errEnough)
	assert.Equal(t, lcp.Stopped, st.Status)
	assert.Equal(t, k, st.Iterations)
	assert.Equal(t, k, seen)
	assert.GreaterOrEqual(t, st.Picked, 1)
	assert.LessOrEqual(t, st.Picked, k)
	assert.Equal(t, 1, w.Steps(), "the step completed")
	assert.InDelta(t, 0.01, w.Time(), 1e-15)

	// With the Stopper content, the next step runs to convergence.
	stop = lcp.NewStopper(func(lcp.Iterate) error { return nil })
	w.Settings.Observer = stop
	st, err = w.Step()
	require.NoError(t, err)
	assert.Greater(t, st.Iterations, k)
}
