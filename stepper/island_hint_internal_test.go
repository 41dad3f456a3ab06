package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
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

// The user's case: a 0.2 m box dropped from 1 m onto the ground with
// DefaultSettings (h = 1/60 s, sleeping on, solved by island; the default
// Material is frictionless). Its landing step has new contacts, four
// coplanar corners whose normal rows have rank 3, but no new frictional
// one, so no pre-solve runs (presolve.cold stays false): the sweeps of
// seedNewNormals choose the new normal rows' start in the step's own
// problem (counted in Stats.SeedSweeps, with no pre-solve iterations),
// and the structural hint, which only a cold step's solves take, is never
// given: the landing solve finds the singular face itself, in a dense
// block of at most 4 rows. Landings estimated against old
// contacts (estimateLocally, a frictional box onto a resting pile) get
// no hint either: given it, the 100-box random pile's 63 such steps over
// 600 (2 953 island solves hinted) kept every bit and iteration, since
// each island's BPP already starts them in regularized mode, inherited
// from its last solve (lcp.BPP). Every step converges, and the box comes
// to rest on its face, its centre at half its side (0.1 m; within 1e-4 m,
// the contact margin's order) and asleep within 2 s.
func TestDroppedBoxSemidefiniteHint(t *testing.T) {
	w, err := New(DefaultSettings())
	require.NoError(t, err)
	_, err = w.AddGeom(Geom{Body: constraint.World, Shape: contact.Shape{Kind: contact.Plane}})
	require.NoError(t, err)
	addBox(t, w, 0.2, mgl64.Vec3{0, 0, 1}, mgl64.QuatIdent())
	b := w.Bodies[0]
	cold, hinted, landing := 0, 0, 0
	for step := 1; step <= 120; step++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, lcp.Converged, st.Status, "step %d", step)
		if landing == 0 && st.Contacts > 0 {
			landing = step
			assert.Positive(t, st.SeedSweeps, "landing step %d: the new normals' start from the sweeps", step)
			assert.Zero(t, st.PreSolveIterations, "landing step %d: no pre-solve", step)
		}
		if w.ws.presolve.cold {
			cold++
		}
		for _, sl := range w.ws.islands.active {
			h := sl.semidefinite(w)
			assert.Equal(t, w.ws.presolve.cold, h, "step %d: hint only where the full pre-solve ran", step)
			if h {
				hinted++
			}
		}
	}
	t.Logf("landing at step %d, cold steps %d, hinted island solves %d, rest height %.6f m, asleep %v", landing, cold, hinted, b.Pos[2], w.sleep.asleepAt(0))
	assert.Positive(t, landing, "the box lands")
	assert.Zero(t, cold, "a frictionless landing is seeded, not pre-solved")
	assert.InDelta(t, 0.1, b.Pos[2], 1e-4, "resting on its face")
	assert.True(t, w.sleep.asleepAt(0), "asleep within 2 s")
}
