package study

import (
	"context"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/require"
)

// budgetPicks, which derives all budgets from one observed solve, returns
// exactly what errmeasure.Solve returns with each budget and measure.
func TestBudgetPicksMatchSolve(t *testing.T) {
	run, err := runWall(context.Background(), 4, newMeter(Options{}, 4))
	require.NoError(t, err)
	var (
		sp    lcp.Sparse
		picks budgetPicks
		res   lcp.Result
	)
	for k, s := range run.problems {
		p := s.problem(&sp)
		picks.solve(&lcp.BPP{}, p, WallMaxBudget)
		for b := 1; b <= WallMaxBudget; b++ {
			for _, m := range ForkliftPicks {
				if m == errmeasure.EnergyExact && b != 1 && b != 3 && b != WallMaxBudget {
					continue // each such Solve inverts the wall's 564-row A: three budgets are enough
				}
				pk := errmeasure.NewPicker(m)
				_, _ = errmeasure.Solve(&res, p, &lcp.BPP{}, lcp.Settings{MaxIterations: b}, pk)
				require.Equal(t, res.X, picks.pick(m, b), "problem %d, budget %d, %s", k+1, b, m)
			}
		}
	}
}

// median is the nearest-rank median; NaN for no values.
func TestMedian(t *testing.T) {
	require.Equal(t, 2.0, median([]float64{3, 1, 2}))
	require.Equal(t, 2.0, median([]float64{4, 1, 3, 2}), "nearest rank: the lower middle")
	require.True(t, median(nil) != median(nil), "NaN")
}
