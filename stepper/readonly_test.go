package stepper_test

import (
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Step reads w.Settings and never writes into it: the default solvers
// (nil Solver and PostSolver) live in the world's workspace, not in the
// caller's struct. The box lands with new frictional contacts (the
// pre-solve runs on the default BPP) and sinks 5 mm, beyond ProjectAbove,
// so the position projection runs on the default post solver too.
func TestStepLeavesSettingsUnchanged(t *testing.T) {
	for _, mode := range []stepper.Stabilization{stepper.Regularized, stepper.Post} {
		w := restingBox(t, stepper.Settings{Stabilization: mode})
		w.Bodies[0].Pos = mgl64.Vec3{0, 0, 0.095}
		before := w.Settings
		projections := 0
		for i := 0; i < 3; i++ {
			st, err := w.Step()
			require.NoError(t, err)
			projections += st.Projections
		}
		if !reflect.DeepEqual(before, w.Settings) {
			t.Errorf("%v: Step changed the caller's Settings (Solver %T → %T, PostSolver %T → %T)",
				mode, before.Solver, w.Settings.Solver, before.PostSolver, w.Settings.PostSolver)
		}
		assert.Positive(t, projections, "%v: the projection did not run", mode)
	}
}
