package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/require"
)

// lazyPair returns two 3×3×3 piles of boxes (pile) solved as one problem,
// the first putting A's values off its diagonal off (the world's
// default), the second filling them at every Assemble (eagerA).
func lazyPair(t *testing.T) (lazy, eager *World) {
	lazy, eager = pile(t, 3), pile(t, 3)
	for _, w := range []*World{lazy, eager} {
		w.Settings.SingleProblem = true
	}
	eager.ws.assembly.eq.eagerA = true
	return lazy, eager
}

// Readers of A within a step fill it then, with the bits of an eager
// fill: BPP's dual factorization (the 27-box pile's 324 rows are cheaper
// to factor as A than in body space: every step fills), a solver that
// reads A (lcp.PGS, RowDot each sweep) and the pre-solve of new contacts
// (a box dropped onto the resting pile at step 20). Each step's state
// equals the eager world's (stateHash) and the fills ran.
func TestLazyAReadersMidStep(t *testing.T) {
	t.Run("dual", func(t *testing.T) {
		lazy, eager := lazyPair(t)
		for step := range 30 {
			stepBoth(t, 1, lazy, eager)
			require.Equal(t, stateHash(eager), stateHash(lazy), "step %d", step+1)
		}
		eq := &lazy.ws.assembly.eq
		require.Equal(t, 30, eq.deferred)
		require.Equal(t, 30, eq.filledA, "BPP factors A every step")
	})
	t.Run("pgs", func(t *testing.T) {
		lazy, eager := lazyPair(t)
		for _, w := range []*World{lazy, eager} {
			w.Settings.Solver = &lcp.PGS{}
		}
		for step := range 20 {
			stepBoth(t, 1, lazy, eager)
			require.Equal(t, stateHash(eager), stateHash(lazy), "step %d", step+1)
		}
		eq := &lazy.ws.assembly.eq
		require.Positive(t, eq.deferred)
		require.Equal(t, eq.deferred, eq.filledA, "PGS reads A every step")
	})
	t.Run("drop", func(t *testing.T) {
		lazy, eager := lazyPair(t)
		for step := range 40 {
			if step == 20 {
				for _, w := range []*World{lazy, eager} {
					addBox(t, w, 0.1, mgl64.Vec3{0.1, 0.1, 0.4}, mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize()))
				}
				lazy.ws.assembly.eq.filledA = 0
			}
			stepBoth(t, 1, lazy, eager)
			require.Equal(t, stateHash(eager), stateHash(lazy), "step %d", step+1)
		}
		require.Positive(t, lazy.ws.assembly.eq.filledA, "fills after the drop")
	})
}
