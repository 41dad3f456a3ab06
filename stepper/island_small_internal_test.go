package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A dense island (at most denseIslandRows rows: islandSlot.isDense) is
// solved on its dense A block, with no lcp.KKT; the same sub-problem solved
// as the sparse path would (lcp.Sparse.Submatrix with the body-space form
// lcp.KKT.SubTo of the world's) from the same warm start gives the same
// answer: the same status, w (the island's velocities, unique) within
// 1e-12 of the problem's velocity scale max|b| and x within 1e-8 of its
// impulse scale max|x| (4.4e-15 and 6.3e-10 measured), step after step,
// while five tilted boxes land on the ground one by one and settle beside
// a stack of two. The dense and the sparse factor round differently, and
// the blocks of redundant box contacts are semidefinite, so x is unique
// only through lcp.BPP's regularization (A + εD, ε = 1e-6), which
// magnifies rounding by about 1/ε: x agrees to about 1e-16/ε, w to
// rounding.
func TestDenseIslandsSolveAsSparse(t *testing.T) {
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
	compared, stacks := 0, 0
	worstW, worstX := 0.0, 0.0
	var dense, sparse lcp.BPP
	var a lcp.Sparse
	var kkt lcp.KKT
	var rd, rs lcp.Result
	for range 90 {
		_, err := w.Step()
		require.NoError(t, err)
		is := &w.ws.islands
		for _, sl := range is.active {
			if !sl.isDense() || len(sl.rows) == 0 {
				continue
			}
			require.Nil(t, sl.prob.KKT)
			require.Same(t, &sl.dense, sl.prob.A)
			if len(sl.bodies) > 1 {
				stacks++
			}
			set := lcp.Settings{MaxIterations: w.Settings.Budget, Start: sl.start}
			p := sl.prob
			errD := dense.Solve(&rd, &p, set)
			a.Submatrix(is.world.A.(*lcp.Sparse), sl.rows, nil)
			require.NoError(t, is.world.KKT.SubTo(&kkt, sl.rows))
			p.A, p.KKT = &a, &kkt
			errS := sparse.Solve(&rs, &p, set)
			require.NoError(t, errD)
			require.NoError(t, errS)
			require.Equal(t, rs.Status, rd.Status, "island %d", sl.key)
			sw, sx := 0.0, 0.0
			for i := range p.B {
				sw = math.Max(sw, math.Abs(p.B[i]))
				sx = math.Max(sx, math.Abs(rs.X[i]))
			}
			for i := range rs.X {
				dw := math.Abs(rd.W[i]-rs.W[i]) / sw
				dx := math.Abs(rd.X[i]-rs.X[i]) / math.Max(sx, 1e-300)
				worstW, worstX = math.Max(worstW, dw), math.Max(worstX, dx)
				require.LessOrEqual(t, dw, 1e-12, "island %d row %d: w", sl.key, i)
				require.LessOrEqual(t, dx, 1e-8, "island %d row %d: x", sl.key, i)
			}
			compared++
		}
	}
	t.Logf("%d dense island solves compared (%d of a stack), largest difference: w %.2g of max|b|, x %.2g of max|x|", compared, stacks, worstW, worstX)
	assert.Greater(t, compared, 300, "dense islands compared")
	assert.Greater(t, stacks, 60, "solves of the stack of two compared")
}
