package stepper_test

import (
	"runtime"
	"slices"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The piles scene's default (four random piles of 100 boxes) through its
// landings: 150 steps in which the geoms' boxes and integrate's passes
// (above 256 bodies or geoms), the narrow phase (above 128 candidate
// pairs), the contact rows (above 256 points) and the islands' solves all
// run on the worker pool once more than one worker is allowed. Every
// step's contact count and the final poses and velocities are the same
// bits under GOMAXPROCS 1, 2 and 4. The piles land with over 1 000 contact
// points (asserted), so every parallel path runs in many chunks. Under the
// race detector it runs 60 steps (about 500 points) at GOMAXPROCS 1 and 2.
func TestPilesSameBitsAnyGOMAXPROCS(t *testing.T) {
	steps, most, procs := 150, 1000, []int{2, 4}
	if raceEnabled {
		steps, most, procs = 60, 300, []int{2}
	}
	run := func(procs int) ([]uint64, []int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w, err := scenes.Piles(scenes.DefaultPilesParams())
		require.NoError(t, err)
		var contacts []int
		for range steps {
			st, err := w.Step()
			require.NoError(t, err)
			contacts = append(contacts, st.Contacts)
		}
		require.Greater(t, slices.Max(contacts), most, "the piles land: many contact points")
		return stateBits(nil, w), contacts
	}
	bits, contacts := run(1)
	for _, p := range procs {
		b, c := run(p)
		assert.Equal(t, contacts, c, "contact points per step, GOMAXPROCS %d", p)
		assert.Equal(t, bits, b, "final state, GOMAXPROCS %d", p)
	}
}
