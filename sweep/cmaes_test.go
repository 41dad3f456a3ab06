package sweep

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CMA-ES on the Rosenbrock function in 4 dimensions, scaled into the unit
// cube with its minimum (f = 0) at x = (0.3, 0.3, 0.3, 0.3): a curved
// valley a local descent follows slowly. Hansen's tutorial reports about
// 10³ evaluations for n = 4 to f < 1e-10 with λ = 8; the budget here is
// 3 000 and the start the cube's corner region (0.9, 0.1, 0.9, 0.1).
// The same seed gives the same points, bit for bit.
func TestCMAESRosenbrock(t *testing.T) {
	rosen := func(u []float64) float64 {
		f := 0.0
		for i := 0; i+1 < len(u); i++ {
			a, b := 4*u[i]-0.2, 4*u[i+1]-0.2 // (1, 1, …) at u = 0.3
			f += 100*(b-a*a)*(b-a*a) + (1-a)*(1-a)
		}
		return f
	}
	run := func() *cmaes {
		calls := 0
		c := &cmaes{d: 4, seed: 7, sigma0: 0.1, budget: 3000, eval: func(_ context.Context, us [][]float64) ([]float64, error) {
			calls++
			f := make([]float64, len(us))
			for i, u := range us {
				for _, v := range u {
					require.True(t, v >= 0 && v <= 1, "evaluated outside the cube: %v", u)
				}
				f[i] = rosen(u)
			}
			return f, nil
		}}
		require.NoError(t, c.minimize(context.Background(), []float64{0.9, 0.1, 0.9, 0.1}))
		return c
	}
	c := run()
	t.Logf("f = %.3g at %v after %d evaluations, %d runs", c.bestF, c.best, c.used, c.runs)
	assert.Less(t, c.bestF, 1e-10)
	for _, v := range c.best {
		// Near the minimum f ≥ (a − 1)², so f < 1e-10 puts a within 1e-5 of
		// 1 and u within 2.5e-6 of 0.3 (the last a within 2e-5: tolerance 1e-5).
		assert.InDelta(t, 0.3, v, 1e-5)
	}
	assert.Equal(t, 3000, c.used, "the budget is spent, in restarts once converged")
	d := run()
	assert.Equal(t, math.Float64bits(c.bestF), math.Float64bits(d.bestF), "deterministic")
	assert.Equal(t, c.best, d.best)
}
