package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A row of k boxes on the floor (μ = 0.4) at 30° to the contacts' fixed
// frame, pushed from behind as in TestEverydayPushedThroughContact: the
// push step's first solve finds the front boxes' floor friction outside
// Coulomb's circle, and turnHeldFriction turns their frames and solves
// again, three times: to the friction (32.9°), then by regula falsi
// between the frames of residuals of both signs (−3.2°, 0.24°), after
// which the friction lies along the frame (turning to the friction each
// time, by 32.9°, −3.5°, 0.70° and 0.14°, it was still 1 mrad off after
// maxResolves = 4). Each
// solve again starts from the last one's index sets, the turned rows' at
// the bound their projected friction reaches, and from its x as proximal
// centre: the first face it solves is the answer, 1 iteration (counted by
// an Observer, which sees every solve's iterates from 1). From the turned
// rows free, t₁ along +f and the last step's impulses as proximal centre,
// each took 2 (two boxes), 4 (three) and 5 (four). The first solve is the
// same either way: 5, 6 and 7 iterations.
func TestTurnedFrictionSolvesAgainInOneIteration(t *testing.T) {
	const mu, deg = 0.4, 30.0
	for _, k := range []int{2, 3, 4} {
		w := nuWorld(t, 0)
		pushedBoxRow(t, w, k, deg, mu)
		var its []int // per solve of the push step
		w.Settings.Observer = lcp.ObserverFunc(func(it lcp.Iterate) {
			if it.Iter == 1 {
				its = append(its, 0)
			}
			its[len(its)-1]++
		})
		_, st := nuStep(t, w, 1)
		t.Logf("%d boxes at %.0f°: iterations per solve %v", k, deg, its)
		require.Equal(t, 3, st.Resolves, "the turns of a 30° row settle in 3 solves again")
		require.Len(t, its, 1+st.Resolves)
		for i, n := range its[1:] {
			assert.Equal(t, 1, n, "%d boxes: solve again %d", k, i+1)
		}
		all := 0
		for _, n := range its {
			all += n
		}
		assert.Equal(t, all, st.Iterations+st.ResolveIterations, "Stats count every solve")
	}
}
