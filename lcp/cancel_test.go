package lcp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A canceled context stops every solver at its next iteration: the solve
// returns Canceled, an error wrapping context.Canceled, and an iterate of
// the right size with W = A X + B.
func TestSolversHonourContext(t *testing.T) {
	p := randomProblem(rand.New(rand.NewPCG(18, 1)), 8, genMixed)
	for _, s := range solvers() {
		t.Run(s.Name(), func(t *testing.T) {
			// Canceled before the first iteration.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			var r Result
			err := s.Solve(&r, p, Settings{Context: ctx})
			require.Error(t, err)
			assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			assert.Equal(t, Canceled, r.Status)
			// Lemke's initial pivot (iteration 1) precedes its loop.
			assert.LessOrEqual(t, r.Iterations, 1)
			assert.Contains(t, r.Reason, "canceled")
			require.Len(t, r.X, p.N())

			// Canceled by the observer of iteration 1: the solver stops
			// before iteration 2.
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			seen := 0
			obs := ObserverFunc(func(it Iterate) { seen = it.Iter; cancel() })
			var r2 Result
			err = s.Solve(&r2, p, Settings{Context: ctx, Observer: obs})
			if r2.Status == Converged {
				// Solved in the one iteration the observer saw: nothing
				// to cancel.
				require.NoError(t, err)
				t.Logf("converged in %d iteration", r2.Iterations)
				return
			}
			require.Error(t, err)
			assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			assert.Equal(t, Canceled, r2.Status)
			assert.Equal(t, seen, r2.Iterations)
			require.Len(t, r2.X, p.N())
			if _, ok := s.(*Lemke); ok {
				return // Lemke's basic solutions do not satisfy Eq. 2
			}
			w := p.Residual(nil, r2.X)
			for i := range w {
				// 1e-9: rounding of A x + b with entries of order 10.
				assert.InDelta(t, w[i], r2.W[i], 1e-9*math.Max(1, math.Abs(w[i])), "w[%d]", i)
			}
		})
	}
}

func TestStatusCanceledRoundTrip(t *testing.T) {
	st, err := ParseStatus(Canceled.String())
	require.NoError(t, err)
	assert.Equal(t, Canceled, st)
}
