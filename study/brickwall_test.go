package study_test

import (
	"context"
	"math"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The brick wall on 20 steps: the wall stands, every stored MLCP has 100
// sweeps of totals, and the mean energy error falls over the PGS sweeps.
func TestBrickWall(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 wall steps and 2000 PGS sweeps")
	}
	res, err := study.BrickWall(context.Background(), study.Options{Steps: 20})
	require.NoError(t, err)
	require.Len(t, res.Iterations, 20)
	require.Len(t, res.Contacts, 20)
	assert.InDelta(t, 1.0/60, res.H, 1e-15, "the wall's h = 1/60 s")
	// 1 mm: the wall stands (the scaling study's criterion).
	assert.Less(t, res.MaxDisplacement, 1e-3)
	assert.Greater(t, res.ContactsMean(), 0.0)
	assert.GreaterOrEqual(t, float64(res.IterationsMax()), res.IterationsMean())
	require.NotEmpty(t, res.Totals)
	for k, c := range res.Totals {
		require.Len(t, c, study.WallSweeps, "MLCP %d", k+1)
	}
	require.Len(t, res.Curves, 3)
	for i, c := range res.Curves {
		assert.Equal(t, study.WallMeasures[i], c.Measure)
		require.Len(t, c.Mean, study.WallSweeps)
		for s := range c.Mean {
			for _, v := range []float64{c.Mean[s], c.Std[s]} {
				assert.False(t, math.IsNaN(v) || math.IsInf(v, 0), "%v sweep %d: %v", c.Measure, s+1, v)
				assert.GreaterOrEqual(t, v, 0.0, "%v sweep %d", c.Measure, s+1)
			}
		}
		p := c.Peak()
		assert.True(t, p >= 1 && p <= study.WallSweeps, "%v peak %d", c.Measure, p)
	}
	energy := res.Curves[2]
	require.Equal(t, errmeasure.Energy, energy.Measure)
	assert.Less(t, energy.Mean[99], energy.Mean[0], "energy mean at iteration 100 < at 1")
}
