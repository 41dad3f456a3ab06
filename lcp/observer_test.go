package lcp

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingObserver copies every iterate it sees.
type recordingObserver struct {
	iters []int
	xs    [][]float64
}

func (r *recordingObserver) Observe(it Iterate) {
	r.iters = append(r.iters, it.Iter)
	r.xs = append(r.xs, append([]float64(nil), it.X...))
}

// A Stopper composed with two plain observers stops every solver after
// iterate k: the solve reports exactly k iterations, Status Stopped and an
// error wrapping ErrStopped and the Stopper's own error, and each member
// of the composition saw the same k iterates, in order.
func TestObserverStopsEverySolver(t *testing.T) {
	p := randomProblem(rand.New(rand.NewPCG(18, 1)), 8, genMixed)
	all := append(solvers(), &Auto{})
	errEnough := errors.New("enough")
	for _, s := range all {
		t.Run(s.Name(), func(t *testing.T) {
			var free Result
			_ = s.Solve(&free, p, Settings{}) // a breakdown still counts its iterations
			full := free.Iterations
			if full < 2 {
				t.Skipf("%s solves this problem in %d iteration: nothing to stop", s.Name(), full)
			}
			k := full / 2
			a, b := &recordingObserver{}, &recordingObserver{}
			stop := NewStopper(func(it Iterate) error {
				if it.Iter >= k {
					return errEnough
				}
				return nil
			})
			var r Result
			err := s.Solve(&r, p, Settings{Observer: Compose(a, nil, stop, b)})
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrStopped)
			assert.ErrorIs(t, err, errEnough)
			assert.Equal(t, Stopped, r.Status)
			assert.Contains(t, r.Reason, "enough")
			assert.Equal(t, k, r.Iterations)
			require.Len(t, r.X, p.N())
			want := make([]int, k)
			for i := range want {
				want[i] = i + 1
			}
			assert.Equal(t, want, a.iters, "the first member saw iterates 1…k")
			assert.Equal(t, a.iters, b.iters, "the member after the Stopper saw the iterate that stopped the solve too")
			assert.Equal(t, a.xs, b.xs, "both members saw the same iterates")

			// The stop does not leak into the next solve: the same
			// Stopper, now content, lets the solve run to its end.
			k = full + 1
			var r2 Result
			_ = s.Solve(&r2, p, Settings{Observer: stop})
			assert.Equal(t, free.Status, r2.Status)
			assert.Equal(t, full, r2.Iterations)
		})
	}
}

// A stop requested on the iterate that solves the problem comes too late:
// the solve keeps its Converged status.
func TestStopOnConvergedIterate(t *testing.T) {
	p := rodProblem()
	var free Result
	require.NoError(t, (&BPP{}).Solve(&free, p, Settings{}))
	require.Equal(t, Converged, free.Status)
	stop := NewStopper(func(it Iterate) error {
		if it.Iter == free.Iterations {
			return errors.New("late")
		}
		return nil
	})
	var r Result
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{Observer: stop}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, free.X, r.X)
}

func TestCompose(t *testing.T) {
	assert.Nil(t, Compose())
	assert.Nil(t, Compose(nil, nil))
	a := &recordingObserver{}
	assert.Same(t, a, Compose(nil, a), "a single observer is returned as is")
	assert.Len(t, Compose(a, a).(Observers), 2)
	assert.NoError(t, Observers{a, nil}.Stop(), "plain observers never stop")
}

func TestStatusStoppedRoundTrip(t *testing.T) {
	st, err := ParseStatus(Stopped.String())
	require.NoError(t, err)
	assert.Equal(t, Stopped, st)
	assert.Equal(t, "stopped", Stopped.String())
}
