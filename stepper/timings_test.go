package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Stats.Timings: the stages are measured in every step and add up to no
// more than Total. (What they measure is speed, for benchmarks and
// studies; this checks only that they are there.)
func TestStepTimings(t *testing.T) {
	w, err := scenes.Chain(scenes.DefaultChainParams())
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		tm := st.Timings
		stages := []int64{int64(tm.FreeVelocities), int64(tm.Contacts), int64(tm.Rows), int64(tm.Assembly),
			int64(tm.PreSolve), int64(tm.Solve), int64(tm.Integrate), int64(tm.Projection)}
		sum := int64(0)
		for k, d := range stages {
			assert.GreaterOrEqual(t, d, int64(0), "step %d, stage %d", i+1, k)
			sum += d
		}
		assert.Positive(t, sum, "step %d: no stage was timed", i+1)
		assert.GreaterOrEqual(t, int64(tm.Total), sum, "step %d: the stages exceed the step", i+1)
	}
}
