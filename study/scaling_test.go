package study_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// PowerFit recovers an exact power law (to rounding of logs and exps:
// 1e-12) and refuses what it cannot fit.
func TestPowerFit(t *testing.T) {
	x := []float64{15, 30, 50, 100, 200}
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = 3 * math.Pow(v, 1.5)
	}
	p, c, err := study.PowerFit(x, y)
	require.NoError(t, err)
	assert.InDelta(t, 1.5, p, 1e-12)
	assert.InDelta(t, 3, c, 1e-12)
	_, _, err = study.PowerFit([]float64{10}, []float64{1})
	assert.ErrorContains(t, err, "1 points, need 2")
	_, _, err = study.PowerFit([]float64{10, 10}, []float64{1, 2})
	assert.ErrorContains(t, err, "all x equal")
	_, _, err = study.PowerFit([]float64{10, 20}, []float64{1, 0})
	assert.ErrorContains(t, err, "point 1 (20, 0) is not positive")
}

// Two steps per size (step 1 and one more): every scene stands without a
// budget hit, the 30-brick wall has 564 rows, and every fit is finite. The
// random piles run 4 steps, all in the air (0 rows at step 1), and the 1 000 dominoes stand on four corners each (1 000 × 4 ×
// 3 = 12 000 rows), none toppled after 2 steps (the first turns 0.1 rad).
// The piles scene's final state is the same bit for bit at GOMAXPROCS 1, 2
// and 4, which is restored after. The measured times themselves are not
// asserted (CPU time on a shared machine).
func TestScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("steps walls of up to 200 bricks")
	}
	procs := runtime.GOMAXPROCS(0)
	res, err := study.Scaling(context.Background(), study.Options{Steps: 2})
	require.NoError(t, err)
	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "GOMAXPROCS restored")
	require.Len(t, res.Runs, len(study.ScalingCases))
	for i, r := range res.Runs {
		assert.Equal(t, study.ScalingCases[i], r.Case)
		assert.Zero(t, r.BudgetHits, "%s %d: budget hits", r.Case.Scene, r.Case.Bricks)
		assert.True(t, r.Stands, "%s %d stands", r.Case.Scene, r.Case.Bricks)
		assert.Len(t, r.StepMS, 2)
	}
	// Three rows per brick-wall contact point: 564 at 30 bricks (Fig. 8).
	assert.Equal(t, 564, res.Runs[1].Rows)
	assert.True(t, res.AllStand())
	assert.Zero(t, res.BudgetHits())
	require.Len(t, res.Piles, len(study.ScalingPileCases))
	for i, r := range res.Piles {
		c := study.ScalingPileCases[i]
		assert.Equal(t, c, r.Case)
		assert.Zero(t, r.Toppled, c.Scene)
		if c.Scene == "randompile" {
			// Twice the study's steps.
			assert.Len(t, r.StepMS, 4)
			assert.Zero(t, r.Rows, "%d boxes in the air at step 1", c.Bricks)
			// Falling for 4 steps (2.2 cm, every box starting at least
			// 0.24 m up): 4 h g = 0.654 m/s (1e-9: rounding).
			assert.InDelta(t, 4*9.81/60, r.MaxSpeed, 1e-9)
			assert.False(t, r.AtRest)
		} else {
			assert.Len(t, r.StepMS, 2)
		}
	}
	assert.Equal(t, "dominoes", res.Piles[3].Case.Scene)
	assert.Equal(t, 12000, res.Piles[3].Rows)
	require.Len(t, res.Procs, len(study.ScalingProcs))
	for i, r := range res.Procs {
		assert.Equal(t, study.ScalingProcs[i], r.Procs)
		assert.True(t, r.SameState, "GOMAXPROCS %d: same final state", r.Procs)
		assert.Len(t, r.StepMS, 2)
		assert.Greater(t, r.SpeedupMean, 0.0)
	}
	assert.Equal(t, 1.0, res.Procs[0].SpeedupMean)
	for _, sc := range study.ScalingScenes {
		for _, s := range []string{"step1", "steady", "mean"} {
			f, ok := res.Fit(sc, s)
			assert.True(t, ok && !math.IsNaN(f.P) && !math.IsInf(f.P, 0), "%s %s exponent %v", sc, s, f.P)
		}
	}
}

// Example: a power law fitted to times that grow as bricks^1.5.
func ExamplePowerFit() {
	bricks := []float64{15, 30, 50, 100, 200}
	ms := make([]float64, len(bricks))
	for i, n := range bricks {
		ms[i] = 0.02 * math.Pow(n, 1.5)
	}
	p, c, err := study.PowerFit(bricks, ms)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("t = %.2f ms · bricks^%.2f\n", c, p)
	// Output:
	// t = 0.02 ms · bricks^1.50
}
