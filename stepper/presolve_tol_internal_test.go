package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Step 1 of walls and pyramids built at rest, with the pre-solve at
// preSolveTolerance (10⁻⁶ of max|b|) and at BPP's default (10⁻¹⁰): the
// looser one takes no more block-pivoting iterations (on the pyramids
// fewer: 3 against 4 at 55 and 210 bricks), and both answers solve the pre-solve's
// MLCP to 10⁻⁶ of max|b|: each x̂ within its bounds to that in velocity
// units (x̂_i·a_ii), each w = A x̂ + b complementary to it within that.
// The main solve after either takes the same iterations and ends at a
// solution of its MLCP with the same body velocities within 10⁻⁶ of
// max|b|, the main solve's own tolerance on a semidefinite A (lcp.BPP's
// regularized mode). The measured differences are logged.
func TestPreSolveToleranceSameStep(t *testing.T) {
	cases := []struct {
		name  string
		build func(testing.TB, int) *World
		size  int
		fewer bool // measured: strictly fewer pre-solve iterations
	}{{"wall 30", masonry, 12, false}, {"pyramid 55", touchingPyramid, 10, true}, {"pyramid 210", touchingPyramid, 20, true}}
	if testing.Short() || raceOn {
		cases = cases[:2]
	}
	for _, c := range cases {
		var pre, main [2]int
		var vel [2][]float64
		scale := 0.0
		for k, strict := range []bool{false, true} {
			w := c.build(t, c.size)
			w.ws.presolve.strictTol = strict
			st, err := w.Step()
			require.NoError(t, err)
			require.Equal(t, lcp.Converged, st.Status, "%s strict %v", c.name, strict)
			require.Positive(t, st.PreSolveIterations, "step 1: every contact is new")
			pre[k], main[k] = st.PreSolveIterations, st.Iterations
			p, res := &w.ws.presolve.eprob, &w.ws.presolve.eres
			require.Equal(t, lcp.Converged, res.Status, "%s strict %v: the pre-solve", c.name, strict)
			scale = num.MaxAbs(p.B)
			wv := make([]float64, p.N())
			p.Residual(wv, res.X)
			worst := 0.0
			for i, x := range res.X {
				a := p.A.At(i, i)
				lo, hi := p.Lo[i], p.Hi[i]
				worst = math.Max(worst, math.Max(lo-x, x-hi)*a) // outside the bounds
				switch {
				case lo == hi:
				case x <= lo:
					worst = math.Max(worst, -wv[i]) // at its lower bound, w ≥ 0
				case x >= hi:
					worst = math.Max(worst, wv[i])
				default:
					worst = math.Max(worst, math.Abs(wv[i])) // between its bounds, w = 0
				}
			}
			t.Logf("%s strict %v: pre-solve %d iterations, complementarity residual %.3g of max|b|; main solve %d", c.name, strict, pre[k], worst/scale, main[k])
			assert.LessOrEqual(t, worst, 1e-6*scale, "%s strict %v: the pre-solve's MLCP solved", c.name, strict)
			for _, b := range w.Bodies {
				vel[k] = append(vel[k], b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2])
			}
		}
		dv := 0.0
		for i := range vel[0] {
			dv = math.Max(dv, math.Abs(vel[0][i]-vel[1][i]))
		}
		t.Logf("%s: velocities differ by %.3g m/s (bound %.3g)", c.name, dv, 1e-6*scale)
		assert.LessOrEqual(t, pre[0], pre[1], "%s: the looser pre-solve costs no iteration", c.name)
		if c.fewer {
			assert.Less(t, pre[0], pre[1], "%s: the looser pre-solve saves iterations", c.name)
		}
		assert.Equal(t, main[1], main[0], "%s: the main solve's iterations", c.name)
		assert.LessOrEqual(t, dv, 1e-6*scale, "%s: the same body velocities", c.name)
	}
}

// The user's dropped stack: three 0.2 m boxes of 1 kg (friction 0.5)
// dropped from rest one above another with 0.1 m between them, onto
// ground of friction 0.5, with DefaultSettings (h = 1/60 s, sleeping on,
// solved by island). Each landing puts new frictional contacts among as
// many old ones or fewer, so the whole pre-solve runs, in regularized
// mode (a box on four coplanar corners; steps 9, 12 and 15). Two such
// worlds run side by side, the pre-solve at preSolveTolerance and at
// BPP's default; the second's bodies are set to the first's after each
// step, so each step compares one state's two solves. Each step
// converges in both; the looser pre-solve takes no more iterations, and
// the bodies' velocities after the step agree within 10⁻⁶ of the
// pre-solve's max|b|, the main solve's own tolerance on a semidefinite A
// (measured: the same iterations, 1 and 2, and the same bits: a landing's
// corners approach, none is degenerate at w ≈ 0 as on a pile built at
// rest). The boxes come to rest stacked, within 1 mm.
func TestPreSolveToleranceDroppedStack(t *testing.T) {
	build := func(strict bool) *World {
		w, err := New(DefaultSettings())
		require.NoError(t, err)
		_, err = w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: Material{Friction: 0.5}})
		require.NoError(t, err)
		for k := range 3 {
			addBox(t, w, 0.2, mgl64.Vec3{0, 0, 0.2 + 0.3*float64(k)}, mgl64.QuatIdent())
		}
		w.ws.presolve.strictTol = strict
		return w
	}
	loose, strict := build(false), build(true)
	cold, worstRel := 0, 0.0
	for step := 1; step <= 90; step++ {
		sl, err := loose.Step()
		require.NoError(t, err)
		ss, err := strict.Step()
		require.NoError(t, err)
		require.Equal(t, lcp.Converged, sl.Status, "step %d", step)
		require.Equal(t, lcp.Converged, ss.Status, "step %d strict", step)
		if !loose.ws.presolve.cold {
			require.Equal(t, sl.PreSolveIterations, ss.PreSolveIterations, "step %d", step)
		} else {
			cold++
			scale := num.MaxAbs(loose.ws.presolve.eprob.B)
			dv := 0.0
			for i, b := range loose.Bodies {
				c := strict.Bodies[i]
				for j := range 3 {
					dv = math.Max(dv, math.Max(math.Abs(b.Vel[j]-c.Vel[j]), math.Abs(b.AngVel[j]-c.AngVel[j])))
				}
			}
			t.Logf("step %d: %d new points of %d; pre-solve %d iterations (strict %d), main %d (%d); velocities differ by %.3g m/s, max|b| %.3g",
				step, loose.freshPoints(), sl.Contacts, sl.PreSolveIterations, ss.PreSolveIterations, sl.Iterations, ss.Iterations, dv, scale)
			assert.LessOrEqual(t, sl.PreSolveIterations, ss.PreSolveIterations, "step %d: the looser pre-solve costs no iteration", step)
			assert.LessOrEqual(t, dv, 1e-6*scale, "step %d: the same body velocities", step)
			if scale > 0 {
				worstRel = math.Max(worstRel, dv/scale)
			}
		}
		for i, b := range loose.Bodies {
			c := strict.Bodies[i]
			c.Pos, c.Rot, c.Vel, c.AngVel = b.Pos, b.Rot, b.Vel, b.AngVel
		}
	}
	t.Logf("%d steps pre-solved in full; worst velocity difference %.3g of max|b|", cold, worstRel)
	assert.Positive(t, cold, "the landings are pre-solved in full")
	for i, b := range loose.Bodies {
		assert.InDelta(t, 0.1+0.2*float64(i), b.Pos[2], 1e-3, "box %d rests on the one below", i)
	}
}
