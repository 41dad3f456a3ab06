package study_test

import (
	"context"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The timing study runs (few steps: timings only, no assertion on speed,
// which is measured by benchmarks) and the methods end in the same state.
func TestRecursiveTiming(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 8 sizes × 3 contact cases × 4 methods")
	}
	res, err := study.RecursiveTiming(context.Background(), study.Options{Steps: 20})
	require.NoError(t, err)
	// 1e-9: the methods solve the same LCPs; their final states differ by
	// rounding only.
	assert.Less(t, res.MaxFinalDifference, 1e-9, "the methods' final states")
	require.Len(t, res.Slopes, len(study.TimingContacts))
	for c := range res.Slopes {
		require.Len(t, res.Slopes[c], len(study.TimingMethods))
	}
	assert.Len(t, res.CrossoverSizes, 16)
	for c := range res.Times {
		for m := range res.Times[c] {
			for s, v := range res.Times[c][m] {
				assert.Greater(t, v, 0.0, "time %d %d %d", c, m, s)
			}
		}
	}
}

// Fig. 7's drift ratio and Fig. 8's δ_CM improvement with RK4.
func TestRK4Contact(t *testing.T) {
	res, err := study.RK4Contact(context.Background(), study.Options{Steps: 1000})
	require.NoError(t, err)
	rk := study.MaxOf(res.Drift[2])
	// Paper: ≈ 1e6 over its run; over 1 s we measure ≈ 5e7.
	assert.Greater(t, study.MaxOf(res.Drift[0])/rk, 1e5)
	// Fig. 8: RK4 improves δ_CM by about 1e4.
	require.Equal(t, "euler", res.Drops[0].Variant.Name)
	require.Equal(t, "rk4", res.Drops[1].Variant.Name)
	assert.Greater(t, study.MaxOf(res.Drops[0].DeltaCM)/study.MaxOf(res.Drops[1].DeltaCM), 1e3)
	for _, d := range res.Drops {
		assert.Len(t, d.DeltaCM, 1000, d.Variant.Name)
	}
}
