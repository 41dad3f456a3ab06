package study_test

import (
	"context"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A short forklift study: the reference and ten rules at budgets 15 and
// 5, every summary number non-negative, the reference not deviating from
// itself, the last iterate never farther than itself in the budget
// tables, and two runs giving the same values (the step times aside).
func TestForklift(t *testing.T) {
	if testing.Short() {
		t.Skip("21 forklift runs and two budget tables")
	}
	var res [2]*study.ForkliftResult
	for i := range res {
		r, err := study.Forklift(context.Background(), study.Options{Steps: 12})
		require.NoError(t, err)
		res[i] = r
	}
	r := res[0]
	rules := []string{"last", "fb", "residual", "energy", "energy-exact",
		"last+polish5", "fb+polish5", "residual+polish5", "energy+polish5", "energy-exact+polish5"}
	require.Len(t, r.Summaries, 1+2*len(rules), "reference + 10 rules at budgets 15 and 5")
	assert.Equal(t, "reference", r.Summaries[0].Variant)
	assert.Equal(t, 0, r.Summaries[0].Budget)
	for i, want := range rules {
		assert.Equal(t, want, r.Summaries[1+i].Variant)
		assert.Equal(t, 15, r.Summaries[1+i].Budget)
		assert.Equal(t, want, r.Summaries[1+len(rules)+i].Variant)
		assert.Equal(t, 5, r.Summaries[1+len(rules)+i].Budget)
	}
	for _, s := range r.Summaries {
		for _, v := range []float64{s.HitFraction, s.MeanDev, s.MaxDev, s.CircleFraction, float64(s.Spikes),
			s.MeanDist, s.MaxDist, s.MeanDistHit, float64(s.Failed), float64(s.ExactFailed), s.MaxGain} {
			assert.GreaterOrEqual(t, v, 0.0, s.Variant)
		}
	}
	assert.Zero(t, r.Summaries[0].MeanDev, "the reference does not deviate from itself")
	for _, s := range r.Summaries {
		assert.Zero(t, s.ProjectionSkips, s.Variant)
		assert.LessOrEqual(t, s.MaxGain, 0.05, "%s at budget %d: no step adds more than 5 %% of the energy", s.Variant, s.Budget)
	}
	for _, run := range append([]*study.ForkliftRun{r.Reference}, r.Groups[0]...) {
		assert.Len(t, run.X, 13, "states 0..12")
		assert.Len(t, run.Wheels, 13)
		assert.Len(t, run.Distance, 12)
	}
	for _, bt := range []*study.BudgetTable{r.Wall, r.Own} {
		require.Equal(t, 15, bt.MaxBudget)
		for b := 0; b < bt.MaxBudget; b++ {
			assert.Zero(t, bt.Farther[0][b], "the last iterate is never farther than itself (budget %d)", b+1)
		}
	}
	assert.Equal(t, 12, r.WallSteps)

	// Determinism: every value but the wall-clock step times.
	for i, a := range append([]*study.ForkliftRun{r.Reference}, r.Groups[0]...) {
		b := append([]*study.ForkliftRun{res[1].Reference}, res[1].Groups[0]...)[i]
		a2, b2 := *a, *b
		a2.StepTime, b2.StepTime = 0, 0
		assert.Equal(t, a2, b2, "run %s", a.Variant.Name)
	}
	assert.Equal(t, r.Summaries, res[1].Summaries)
	assert.Equal(t, r.Wall, res[1].Wall)
	assert.Equal(t, r.Own, res[1].Own)
}
