package stepper_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// fzStack returns a world at step h with the static floor and two 1 kg
// boxes of 0.2 m stacked on it, at rest and touching.
func fzStack(t *testing.T, h float64) *stepper.World {
	t.Helper()
	s := stepper.DefaultSettings()
	s.H = h
	w, err := stepper.New(s)
	require.NoError(t, err)
	fzStaticGround(t, w)
	fzBox(t, w, "a", 1, mgl64.Vec3{0, 0, 0.1}, 0.5)
	fzBox(t, w, "b", 1, mgl64.Vec3{0, 0, 0.3}, 0.5)
	return w
}

// assertHRefused checks err is Validate's error for H = h.
func assertHRefused(t *testing.T, err error, h float64) {
	t.Helper()
	require.Error(t, err, "h = %v", h)
	var fe *num.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "H", fe.Field)
	assert.Equal(t, h, fe.Value)
	assert.EqualError(t, err, fmt.Sprintf("settings: H: time step must be in [1e-09, 1000] s (MinH, MaxH), got %v", h))
}

// A time step of 1e-300 s (FuzzWorld's and FuzzLoadStep's h): a box
// resting on another stepped without an error and reported a kinetic
// energy of +Inf J (its rounding-level contact error 1e-17 m fed back as
// φ/h = 1e283 m/s), and the next step failed in the solver; at
// h = 1e-20 s it reported 3.9e6 J. And a step of 9.2e11 s (FuzzRunFlags's
// forklift --dt 922336854775) ran BPP's whole budget, 1 680 iterations
// and 2.2 s of CPU, for one step. New and Step now refuse an h outside
// [MinH, MaxH] naming H and the value, before anything moves. Inside the
// range every reported number is finite: at MinH the stack stays at rest
// (kinetic energy below 1e-12 J, where the rounding fed back as φ/h is
// 2.2e-7 m/s), at MaxH the stack steps too, and so does every built-in
// scene, a step that fails naming what failed.
func TestFuzzWorldTimeStepRange(t *testing.T) {
	for _, h := range []float64{1e-300, 1e-20, stepper.MinH / 2, stepper.MaxH * 2, 1e9, 922336854775, 9e11} {
		s := stepper.DefaultSettings()
		s.H = h
		_, err := stepper.New(s)
		assertHRefused(t, err, h)
		w := fzStack(t, 1.0/60)
		for range 3 {
			_, err := w.Step()
			require.NoError(t, err)
		}
		pos := w.Bodies[2].Pos
		w.Settings.H = h
		_, err = w.Step()
		assertHRefused(t, err, h)
		assert.Equal(t, 3, w.Steps(), "nothing moved")
		assert.Equal(t, pos, w.Bodies[2].Pos, "nothing moved")
	}
	finite := func(st stepper.Stats) bool {
		return num.Finite(st.Kinetic) && num.Finite(st.Potential) && num.Finite(st.EnergyAdded) && num.Finite(st.MaxViolation) &&
			num.Finite(st.Errors.Energy) && num.Finite(st.Errors.FB) && num.Finite(st.Errors.Residual)
	}
	for _, h := range []float64{stepper.MinH, 1e-6, stepper.MaxH} {
		w := fzStack(t, h)
		for range 5 {
			st, err := w.Step()
			require.NoError(t, err, "h = %v", h)
			require.True(t, finite(st), "h = %v: %+v", h, st)
			if h == stepper.MinH {
				assert.Less(t, st.Kinetic, 1e-12, "h = %v: the stack stays at rest", h)
			}
		}
	}
	for _, sc := range scenes.List() {
		set := map[string]string{}
		switch sc.Name {
		case "dominoes", "randompile", "piles", "pyramid", "push":
			continue // larger scenes of the same kinds (boxes on the ground: brickwall)
		case "brickwall":
			set["rows"] = "2"
		}
		w, err := sc.Build(set)
		require.NoError(t, err, sc.Name)
		w.Settings.H = stepper.MaxH
		for k := range 5 {
			st, err := w.Step()
			t.Logf("%s at h = %v s: step %d: %d iterations, %d pre-solve, %d projection; error %v", sc.Name, stepper.MaxH, k+1, st.Iterations, st.PreSolveIterations, st.ProjectionIterations, err)
			if err != nil {
				assert.Regexp(t, `^step \d|^body \d|^constraint \d`, err.Error())
				break
			}
			require.True(t, finite(st), "%s: %+v", sc.Name, st)
		}
	}
}
