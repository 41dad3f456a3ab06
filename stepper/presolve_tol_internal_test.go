package stepper

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Step 1 of walls and pyramids built at rest, with the pre-solve at
// preSolveTolerance (10⁻⁶ of max|b|) and at BPP's default (10⁻¹⁰): the
// looser one takes no more block-pivoting iterations (on the pyramids
// fewer: 4 against 7 at 55 bricks, 4 against 5 at 210), and both answers solve the pre-solve's
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
