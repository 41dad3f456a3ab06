package stepper_test

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The piles scene's default (four random piles of 100 boxes) through its
// landings: 150 steps in which the geoms' boxes, the broad phase's sweep,
// Mass.Update, integrate's pass, the energies and the projection's inverse
// inertias (above 256 bodies or geoms), the narrow phase (above 128
// candidate pairs), the contact rows (above 256 points), Assemble's and the
// energy model's row passes, the applied work's and A's pairs island by
// island (above 2 048 rows) and the islands' solves all run on the worker
// pool once more than one worker is allowed. Every
// step's contact count and the final poses and velocities are the same
// bits under GOMAXPROCS 1, 2 and 4. The piles land with over 1 000 contact
// points and 3 000 rows (asserted; the boxes then fall asleep), so every
// parallel path runs in several chunks. Each step's Stats.EnergyAdded,
// Kinetic and Potential (summed over terms computed on the pool) are the
// same bits too, and Kinetic and Potential those of World.Energy's
// serial loop. Under the race detector it runs
// the first 60 steps (over 4 000 rows from step 45) at GOMAXPROCS 1 and 2.
func TestPilesSameBitsAnyGOMAXPROCS(t *testing.T) {
	steps, procs := 150, []int{2, 4}
	if raceEnabled {
		steps, procs = 60, []int{2}
	}
	run := func(procs int) ([]uint64, []int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w, err := scenes.Piles(scenes.DefaultPilesParams())
		require.NoError(t, err)
		stepper.PoolAlwaysSharesForTest(w) // the helpers take tasks on a loaded machine too
		var contacts, rows []int
		var energies []uint64
		for k := range steps {
			st, err := w.Step()
			require.NoError(t, err)
			contacts = append(contacts, st.Contacts)
			rows = append(rows, st.Rows)
			energies = append(energies, math.Float64bits(st.EnergyAdded), math.Float64bits(st.Kinetic), math.Float64bits(st.Potential))
			if kin, pot := w.Energy(); kin != st.Kinetic || pot != st.Potential {
				t.Fatalf("GOMAXPROCS %d, step %d: Stats' energies %v, %v J; World.Energy %v, %v J", procs, k, st.Kinetic, st.Potential, kin, pot)
			}
		}
		require.Greater(t, slices.Max(contacts), 1000, "the piles land: many contact points")
		require.Greater(t, slices.Max(rows), 3000, "and many rows")
		return append(stateBits(nil, w), energies...), contacts
	}
	bits, contacts := run(1)
	for _, p := range procs {
		b, c := run(p)
		assert.Equal(t, contacts, c, "contact points per step, GOMAXPROCS %d", p)
		assert.Equal(t, bits, b, "final state and each step's EnergyAdded, Kinetic and Potential, GOMAXPROCS %d", p)
	}
}
