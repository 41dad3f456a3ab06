package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// touchingPyramid returns a pyramid of base bricks (0.2 × 0.1 × 0.1 m,
// 4 kg, μ = 0.6) built at rest on the ground, rows of base, base − 1, …, 1,
// each brick on the two below and touching its neighbours in the row (the
// scenes package's pyramid).
func touchingPyramid(tb testing.TB, base int) *World {
	w, err := New(Settings{H: 1.0 / 60, Gravity: StandardGravity})
	require.NoError(tb, err)
	mat := Material{Friction: 0.6}
	_, err = w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: mat})
	require.NoError(tb, err)
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.1, 0.1})
	require.NoError(tb, err)
	for r := 0; r < base; r++ {
		n := base - r
		for k := 0; k < n; k++ {
			b, err := body.New(body.Params{Mass: 4, Inertia: body.BoxInertia(4, 0.2, 0.1, 0.1),
				Pos: mgl64.Vec3{-float64(n-1)*0.1 + float64(k)*0.2, 0, 0.05 + 0.1*float64(r)}, Rot: mgl64.QuatIdent()})
			require.NoError(tb, err)
			id, err := w.AddBody(b)
			require.NoError(tb, err)
			_, err = w.AddGeom(Geom{Body: id, Shape: shape, Material: mat})
			require.NoError(tb, err)
		}
	}
	return w
}

// Step 1 of a wall or pyramid built at rest, with the new points of loaded manifolds
// started free (spreadPatchLoad) and with the seed sweeps' index sets
// alone, the pre-solve at BPP's default tolerance (presolveStage.strictTol,
// whose regularized mode reaches the same solution from any start): the
// pre-solve takes fewer block-pivoting iterations (4 against 5
// on the 30-brick wall, 4 against 6 on the 100-brick one; 7 and 7 on the
// 55-brick pyramid, 5 against 6 on the 210-brick one of BenchmarkPyramidStep1) and ends at the same answer, being
// the same MLCP solved from another start. Its new normal impulses x̂ₙ,
// which give the main MLCP its friction bounds, agree in velocity units
// (|Δx̂ₙ|·a_nn) within the pre-solve's tolerance on a semidefinite A,
// 10⁻⁶ of max|b| (lcp.BPP's regularized mode), and so do the bodies'
// velocities after the step (the measured differences are logged).
func TestSpreadPatchLoadSameAnswer(t *testing.T) {
	for _, c := range []struct {
		name  string
		build func(testing.TB, int) *World
		size  int
		fewer bool // measured: strictly fewer iterations
	}{{"wall 30", masonry, 12, true}, {"wall 100", masonry, 40, true}, {"pyramid 55", touchingPyramid, 10, false}} {
		var its [2]int
		var xn [2][]float64
		var vel [2][]float64
		var diag []float64
		scale := 0.0
		for k, off := range []bool{false, true} {
			w := c.build(t, c.size)
			w.ws.presolve.noSpread = off
			w.ws.presolve.strictTol = true
			st, err := w.Step()
			require.NoError(t, err)
			require.Positive(t, st.PreSolveIterations, "step 1: every contact is new")
			its[k] = st.PreSolveIterations
			a := w.ws.presolve.eprob.A
			for i := range w.ws.contacts.points {
				pt := &w.ws.contacts.points[i]
				xn[k] = append(xn[k], pt.XN)
				if k == 0 {
					diag = append(diag, a.At(pt.Row, pt.Row))
				}
			}
			for _, b := range w.Bodies {
				vel[k] = append(vel[k], b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2])
			}
			for _, v := range w.ws.presolve.eprob.B {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		require.Len(t, xn[1], len(xn[0]), "the same contacts")
		dx, dv := 0.0, 0.0
		for i := range xn[0] {
			dx = math.Max(dx, math.Abs(xn[0][i]-xn[1][i])*diag[i])
		}
		for i := range vel[0] {
			dv = math.Max(dv, math.Abs(vel[0][i]-vel[1][i]))
		}
		t.Logf("%s: pre-solve %d iterations spread, %d from the sweeps alone; x̂ₙ differ by %.3g m/s, velocities by %.3g m/s (bound %.3g)",
			c.name, its[0], its[1], dx, dv, 1e-6*scale)
		assert.LessOrEqual(t, its[0], its[1], "%s: the spread start costs no iteration", c.name)
		if c.fewer {
			assert.Less(t, its[0], its[1], "%s: the spread start saves iterations", c.name)
		}
		assert.LessOrEqual(t, dx, 1e-6*scale, "%s: the same pre-solve answer", c.name)
		assert.LessOrEqual(t, dv, 1e-6*scale, "%s: the same body velocities", c.name)
	}
}
