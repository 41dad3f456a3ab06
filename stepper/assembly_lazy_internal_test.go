package stepper

import (
	"fmt"
	"math"
	"testing"

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
// reads A (lcp.PGS, RowDot each sweep). Each step's state equals the
// eager world's (stateHash) and the fills ran; after two steps that read
// A in a row it is filled at once (reads).
func TestLazyAReadersMidStep(t *testing.T) {
	// Under the race detector (10× slower) 10 steps: still past the 8
	// remembered reads the assertions below need.
	steps := 30
	if raceOn {
		steps = 10
	}
	t.Run("dual", func(t *testing.T) {
		lazy, eager := lazyPair(t)
		for step := range steps {
			stepBoth(t, 1, lazy, eager)
			require.Equal(t, stateHash(eager), stateHash(lazy), "step %d", step+1)
		}
		eq := &lazy.ws.assembly.eq
		// Two reads in a row: A is filled at once from step 3 on.
		require.Equal(t, 2, eq.deferred)
		require.Equal(t, 2, eq.filledA, "BPP factors A every step")
		require.Equal(t, uint8(0xff), eq.reads)
	})
	t.Run("pgs", func(t *testing.T) {
		lazy, eager := lazyPair(t)
		for _, w := range []*World{lazy, eager} {
			w.Settings.Solver = &lcp.PGS{}
		}
		for step := range steps * 2 / 3 {
			stepBoth(t, 1, lazy, eager)
			require.Equal(t, stateHash(eager), stateHash(lazy), "step %d", step+1)
		}
		eq := &lazy.ws.assembly.eq
		require.Positive(t, eq.deferred)
		require.Equal(t, eq.deferred, eq.filledA, "PGS reads A every step")
	})
}

// An Assembly that puts A off (lazyA) gives, Assemble after Assemble, the
// A of one that does not, bit for bit, on refillFixture's rows (a row
// naming a body twice, one on the static body alone): after the first
// fill of the layout and after each refill A is pending, its diagonal (Problem.Diag) already the eager one's
// without a fill, then every entry the eager one's. A row whose Jacobian
// is 1e200 makes A's sums overflow: then A is filled at once (nothing
// pending) and Problem.Validate names the same entry as the eager one's.
func TestLazyAssembleSameBits(t *testing.T) {
	set, bodies, rows, fill := refillFixture(t)
	var lazy, eager Assembly
	lazy.lazyA = true
	var m Mass
	for round := range 5 {
		fill()
		if round == 4 {
			for k := range 6 {
				rows[1].J[0][k] *= 1e200
			}
		}
		m.Update(bodies, set.H, set.Gravity)
		lazy.reads = 0 // no reads remembered: every refill defers
		require.NoError(t, lazy.Assemble(set, &m, rows))
		require.NoError(t, eager.Assemble(set, &m, rows))
		pl, pe := lazy.Problem(), eager.Problem()
		if round == 4 {
			require.Equal(t, 4, lazy.deferred, "overflowing sums: filled at once")
			el, ee := pl.Validate(), pe.Validate()
			require.Error(t, ee)
			require.EqualError(t, el, ee.Error())
			continue
		}
		require.True(t, lazy.A.Pending(), "round %d: A put off", round)
		dl, de := pl.Diag(nil), pe.Diag(nil)
		for i := range dl {
			require.Equal(t, math.Float64bits(de[i]), math.Float64bits(dl[i]), "round %d: A[%d][%d]", round, i, i)
		}
		require.True(t, lazy.A.Pending(), "round %d: the diagonal fills nothing", round)
		require.NoError(t, pl.Validate())
		require.True(t, lazy.A.Pending(), "round %d: nor does Validate", round)
		requireSameA(t, &lazy, &eager, fmt.Sprintf("round %d", round))
		require.False(t, lazy.A.Pending())
	}
	require.Equal(t, 4, lazy.deferred)
	require.Equal(t, 4, lazy.filledA)
}
