package stepper_test

import (
	"runtime"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAwakePilesRefillSameBits steps the piles scene's default with
// sleeping off, so that once the boxes rest most steps keep the last
// step's contact layout and Assemble refills A (its JMinv, Jacobian blocks
// and pairs island by island on the pool, with the record offsets of the
// last step), at GOMAXPROCS 1 and 2: the final poses and velocities are
// the same bits. TestPilesSameBitsAnyGOMAXPROCS covers the landings, in
// which the layout changes every step.
func TestAwakePilesRefillSameBits(t *testing.T) {
	steps := 260
	if testing.Short() || raceEnabled {
		t.Skip("260 steps of 400 awake boxes")
	}
	run := func(procs int) []uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		p := scenes.DefaultPilesParams()
		p.Settings.Sleep.On = false
		w, err := scenes.Piles(p)
		require.NoError(t, err)
		stepper.PoolAlwaysSharesForTest(w)
		for range steps {
			_, err := w.Step()
			require.NoError(t, err)
		}
		return stateBits(nil, w)
	}
	assert.Equal(t, run(1), run(2), "final state, GOMAXPROCS 2 against 1")
}
