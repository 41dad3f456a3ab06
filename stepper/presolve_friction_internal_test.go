package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Why the pre-solve pins the new contacts' friction rows at zero instead
// of leaving them free (static friction everywhere), on step 1 of a wall
// and a pyramid built at rest (estimateNewContacts).
//
// Pinned: the pre-solve's x̂ leaves no tangential velocity at the new
// contacts, |w_t| = |(A x̂ + b)_t| within 10⁻⁶ of max|b| (lcp.BPP's
// regularized tolerance; 2.8·10⁻¹⁰ measured on the 55-brick pyramid,
// 1.1·10⁻⁸ on the 496-brick one), so x̂ with those rows free at 0, inside
// their bounds ±μ x̂ₙ, is a solution of the step's MLCP: the main solve,
// centred on it (Settings.Reference), takes 1 iteration.
//
// Free: the pre-solve's answer is the solution regularized mode reaches
// from 0, which on these semidefinite problems carries load through
// friction (a patch's friction takes part of a brick's load where its
// corners' normals would otherwise), and on some contact patches it
// exceeds μ times the patch's own normal impulse: the friction Coulomb's
// law does not allow (39 of 145 new patches of the 55-brick pyramid, 4 of
// 47 of the 30-brick wall, 500 of 1 426 of the 496-brick pyramid). The
// main solve, whose bounds ±μ x̂ₙ follow from that answer, then moves
// away from it: 3 iterations on the pyramid and 2 on the wall, against
// 1, and it ends with contacts at their friction bounds, which the next
// steps exchange again (step 2: 4 and 3 iterations, each with a
// refactorization, against 1 with none). The measured counts are
// logged; the test pins that the pinned pre-solve's answer is static
// friction and that the free one costs the main solve iterations.
func TestPreSolvePinsNewFriction(t *testing.T) {
	cases := []struct {
		name  string
		build func(testing.TB, int) *World
		size  int
	}{{"wall 30", masonry, 12}, {"pyramid 55", touchingPyramid, 10}}
	for _, c := range cases {
		var main, next [2]int
		for k, free := range []bool{false, true} {
			w := c.build(t, c.size)
			w.ws.presolve.freeFriction = free
			st, err := w.Step()
			require.NoError(t, err)
			require.Equal(t, lcp.Converged, st.Status, "%s free %v", c.name, free)
			require.Positive(t, st.PreSolveIterations, "step 1: every contact is new")
			res := &w.ws.presolve.eres
			require.Equal(t, lcp.Converged, res.Status, "%s free %v: the pre-solve", c.name, free)
			p := w.LastProblem()
			scale := num.MaxAbs(p.B)
			wv := make([]float64, p.N())
			p.Residual(wv, res.X)
			wt, outside, patches := 0.0, 0, 0
			pts := w.ws.contacts.points
			for i := 0; i < len(pts); i += max(pts[i].manifold, 1) {
				var f mgl64.Vec3
				xn, fresh := 0.0, false
				for j := i; j < i+max(pts[i].manifold, 1); j++ {
					pt := &pts[j]
					fresh = fresh || pt.Fresh
					xn += math.Max(0, res.X[pt.Row])
					if pt.Rows < 3 {
						continue
					}
					f = f.Add(pt.T1.Mul(res.X[pt.Row+1])).Add(pt.T2.Mul(res.X[pt.Row+2]))
					if pt.Fresh {
						wt = math.Max(wt, math.Max(math.Abs(wv[pt.Row+1]), math.Abs(wv[pt.Row+2])))
					}
				}
				if !fresh {
					continue
				}
				patches++
				// Beyond Coulomb's μ Σ xₙ by more than the pre-solve's
				// tolerance (10⁻⁶ of max|b| in velocity units, here read
				// relative to the patch's friction bound).
				if f.Len() > pts[i].Mu*xn*(1+1e-6) {
					outside++
				}
			}
			main[k] = st.Iterations
			st2, err := w.Step()
			require.NoError(t, err)
			next[k] = st2.Iterations
			t.Logf("%s free %v: pre-solve %d iterations, new friction rows' |w_t| ≤ %.3g of max|b|, %d of %d new patches with friction beyond μ Σxₙ; main solve %d iterations, step 2 %d",
				c.name, free, st.PreSolveIterations, wt/scale, outside, patches, main[k], next[k])
			if !free {
				assert.LessOrEqual(t, wt, 1e-6*scale, "%s: the pinned pre-solve's answer is static friction", c.name)
				assert.Zero(t, outside, "%s: pinned friction is inside every cone", c.name)
				assert.Equal(t, 1, main[k], "%s: the main solve confirms the pre-solve's answer", c.name)
			} else {
				assert.Positive(t, outside, "%s: free friction beyond Coulomb's cone", c.name)
			}
		}
		assert.Greater(t, main[1], main[0], "%s: the free pre-solve costs the main solve iterations", c.name)
		assert.Greater(t, next[1], next[0], "%s: and step 2 iterations", c.name)
	}
}
