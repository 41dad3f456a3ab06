package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On a cold step (the pre-solve of the whole problem ran: a scene built at
// rest) each island's solve is told when its first face is singular by
// structure (islandSlot.semidefinite, lcp.Settings.Semidefinite), as the
// world's solve is (pickSolve): a 30-brick wall (a sparse island with the
// world's KKT rows) and a brick resting alone 3 m away (a dense island of
// 12 rows, no KKT of its own: its Jacobians are read from the world's)
// both are, a brick on four coplanar points having four normal rows of
// rank 3. On the next step, with no new contact, no pre-solve ran and
// neither is told.
func TestIslandsSemidefiniteOnColdSteps(t *testing.T) {
	w := masonry(t, 12)
	b, err := body.New(body.Params{Mass: 4, Inertia: body.BoxInertia(4, 0.2, 0.1, 0.1),
		Pos: mgl64.Vec3{0, 3, 0.05}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	g := w.Geoms[1] // the first brick's geometry (geom 0 is the ground)
	g.Body = id
	_, err = w.AddGeom(g)
	require.NoError(t, err)
	for step := 1; step <= 2; step++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Len(t, st.Islands, 2, "step %d: the wall and the brick", step)
		cold := step == 1
		assert.Equal(t, cold, w.ws.presolve.cold, "step %d: the pre-solve ran", step)
		assert.Equal(t, cold, st.PreSolveIterations > 0, "step %d: pre-solve iterations", step)
		for _, sl := range w.ws.islands.active {
			assert.Equal(t, cold, sl.semidefinite(w), "step %d: island %d (%d rows, dense %v)", step, sl.key, len(sl.rows), sl.isDense())
		}
		dense := w.ws.islands.active[len(w.ws.islands.active)-1]
		assert.True(t, dense.isDense(), "the brick's island is dense")
		assert.Nil(t, dense.prob.KKT, "a dense island carries no KKT")
		assert.Equal(t, lcp.Converged, st.Status, "step %d", step)
	}
}
