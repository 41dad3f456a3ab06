package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/require"
)

// A small island (one body, at most smallIslandRows rows: islandSlot.small)
// is given no lcp.KKT, since lcp.BPP chooses the dual path for such a block
// anyway: solving each small island's sub-problem from its warm start once
// with the body-space description (lcp.KKT.SubTo of the world's) and once
// without gives the same bits of x, step after step, while five tilted
// boxes land on the ground one by one and settle (and a stack of two, not
// small, solves beside them).
func TestSmallIslandsSolveAsWithKKT(t *testing.T) {
	s := DefaultSettings()
	s.Sleep.On = false
	w, err := New(s)
	require.NoError(t, err)
	_, err = w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: Material{Friction: 0.5}})
	require.NoError(t, err)
	box := func(pos mgl64.Vec3, rot mgl64.Quat) {
		size := mgl64.Vec3{0.3, 0.2, 0.1}
		b, err := body.New(body.Params{Mass: 2, Inertia: body.BoxInertia(2, size[0], size[1], size[2]), Pos: pos, Rot: rot})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		shape, err := contact.NewBoxSize(size)
		require.NoError(t, err)
		_, err = w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}})
		require.NoError(t, err)
	}
	for k := range 5 {
		axis := mgl64.Vec3{1, float64(k), 0.5}.Normalize()
		box(mgl64.Vec3{float64(k), 0, 0.2 + 0.1*float64(k)}, mgl64.QuatRotate(0.3*float64(k), axis))
	}
	box(mgl64.Vec3{0, 2, 0.05}, mgl64.QuatIdent())
	box(mgl64.Vec3{0, 2, 0.151}, mgl64.QuatIdent())
	compared := 0
	var with, without lcp.BPP
	var kkt lcp.KKT
	var rw, rn lcp.Result
	for range 90 {
		_, err := w.Step()
		require.NoError(t, err)
		is := &w.ws.islands
		for _, sl := range is.active {
			if !sl.small() || len(sl.rows) == 0 {
				continue
			}
			require.Nil(t, sl.prob.KKT)
			require.NoError(t, is.world.KKT.SubTo(&kkt, sl.rows))
			p := sl.prob
			set := lcp.Settings{MaxIterations: w.Settings.Budget, Start: sl.start}
			p.KKT = &kkt
			errW := with.Solve(&rw, &p, set)
			p.KKT = nil
			errN := without.Solve(&rn, &p, set)
			require.Equal(t, errW, errN)
			require.Equal(t, len(rw.X), len(rn.X))
			for i := range rw.X {
				require.Equal(t, math.Float64bits(rw.X[i]), math.Float64bits(rn.X[i]), "island %d row %d", sl.key, i)
			}
			compared++
		}
	}
	require.Greater(t, compared, 300, "small islands compared")
}
