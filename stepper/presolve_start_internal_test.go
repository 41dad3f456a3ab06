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
// law does not allow (41 of 145 new patches of the 55-brick pyramid, 4 of
// 47 of the 30-brick wall, 506 of 1 426 of the 496-brick pyramid). The
// main solve, whose bounds ±μ x̂ₙ follow from that answer, then moves
// away from it: 3 iterations on the pyramid and 2 on the wall (5 at 496
// bricks), against 1, and it ends with contacts at their friction bounds,
// which the next steps exchange again (step 2: 5 and 3 iterations, each
// with a refactorization, against 1 with none). The measured counts are
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

// touchingWall is masonry with no gaps between neighbours in a course
// (pitch 0.2 m, the brick's length): each end face touches the next
// brick's, an upright contact patch of four points.
func touchingWall(tb testing.TB, rows int) *World { return masonryPitch(tb, rows, 0.6, 0.2) }

// Step 1 of structures built at rest whose neighbours in a course touch
// end to end, with and without startUprightPatches: from its start the
// pre-solve takes one block-pivoting iteration fewer (55- and 210-brick
// pyramids: 3 against 4, the face that dropped the lower corners of
// every end-to-end patch gone; 30-brick touching wall: 4 against 5), the
// main solve the same, and the step is the same to the solver's
// tolerance: the pre-solve solves the same MLCP to preSolveTolerance from
// either start, its answers may differ only in how a patch's load is
// shared by its corners (A's null space), and the bodies' velocities after
// the step agree within 10⁻⁶ of max|b|, the main solve's tolerance on a
// semidefinite A (lcp.BPP's regularized mode). Walls with gaps between
// neighbours (masonry) have no upright patch: the same iterations.
func TestUprightPatchesStart(t *testing.T) {
	cases := []struct {
		name   string
		build  func(testing.TB, int) *World
		size   int
		before int  // measured pre-solve iterations without the start
		saves  bool // the scene has upright patches
	}{{"wall 30, gaps", masonry, 12, 4, false}, {"wall 30, touching", touchingWall, 12, 5, true}, {"pyramid 55", touchingPyramid, 10, 4, true}, {"pyramid 210", touchingPyramid, 20, 4, true}}
	if testing.Short() || raceOn {
		cases = cases[:3]
	}
	for _, c := range cases {
		var pre, main [2]int
		var vel [2][]float64
		scale := 0.0
		for k, off := range []bool{false, true} {
			w := c.build(t, c.size)
			w.ws.presolve.noUpright = off
			st, err := w.Step()
			require.NoError(t, err)
			require.Equal(t, lcp.Converged, st.Status, "%s off %v", c.name, off)
			require.Equal(t, lcp.Converged, w.ws.presolve.eres.Status, "%s off %v: the pre-solve", c.name, off)
			pre[k], main[k] = st.PreSolveIterations, st.Iterations
			scale = num.MaxAbs(w.LastProblem().B)
			for _, b := range w.Bodies {
				vel[k] = append(vel[k], b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2])
			}
		}
		dv := 0.0
		for i := range vel[0] {
			dv = math.Max(dv, math.Abs(vel[0][i]-vel[1][i]))
		}
		t.Logf("%s: pre-solve %d iterations from the upright start, %d without; main solve %d and %d; velocities differ by %.3g m/s (bound %.3g)",
			c.name, pre[0], pre[1], main[0], main[1], dv, 1e-6*scale)
		assert.Equal(t, c.before, pre[1], "%s: the pre-solve without the start, as measured", c.name)
		if c.saves {
			assert.Equal(t, pre[1]-1, pre[0], "%s: one pre-solve iteration fewer", c.name)
		} else {
			assert.Equal(t, pre[1], pre[0], "%s: no upright patch, the same pre-solve", c.name)
		}
		assert.Equal(t, main[1], main[0], "%s: the same main solve", c.name)
		assert.LessOrEqual(t, dv, 1e-6*scale, "%s: velocities within the solver's tolerance", c.name)
	}
}

// startUprightPatches on hand-made patches: a four-point patch on an
// upright face starts its two lower points (along gravity) unloaded and
// its upper ones free; a patch on a level face, one with an old point, a
// two-point patch and any patch without gravity keep their start.
func TestStartUprightPatches(t *testing.T) {
	g := mgl64.Vec3{0, 0, -9.81}
	patch := func(row int, n mgl64.Vec3, fresh bool, z ...float64) []point {
		pts := make([]point, len(z))
		for i := range pts {
			pts[i].Row, pts[i].Normal, pts[i].Fresh = row+3*i, n, true
			pts[i].Point = mgl64.Vec3{float64(i), 0, z[i]}
		}
		pts[0].manifold = len(z)
		pts[len(z)-1].Fresh = fresh
		return pts
	}
	var pts []point
	pts = append(pts, patch(0, mgl64.Vec3{1, 0, 0}, true, 0.1, 0, 0.1, 0)...)         // upright: rows 0 3 6 9
	pts = append(pts, patch(12, mgl64.Vec3{0, 0, 1}, true, 0.1, 0, 0.1, 0)...)        // level normal: 12 15 18 21
	pts = append(pts, patch(24, mgl64.Vec3{1, 0, 0}, false, 0.1, 0, 0.1, 0)...)       // an old point: 24 27 30 33
	pts = append(pts, patch(36, mgl64.Vec3{0, 1, 0}, true, 0.1, 0)...)                // two points: 36 39
	pts = append(pts, patch(42, mgl64.Vec3{0.999, 0, 0.02}, true, 0.1, 0, 0.1, 0)...) // tilted 1.1°: 42 45 48 51
	start := make([]lcp.State, 54)
	for i := range start {
		start[i] = lcp.AtUpper // a marker: rows the rule leaves alone keep it
	}
	startUprightPatches(start, pts, mgl64.Vec3{})
	for i, s := range start {
		require.Equal(t, lcp.AtUpper, s, "row %d: no gravity, no change", i)
	}
	startUprightPatches(start, pts, g)
	assert.Equal(t, []lcp.State{lcp.Free, lcp.AtLower, lcp.Free, lcp.AtLower}, []lcp.State{start[0], start[3], start[6], start[9]}, "upright patch: upper free, lower unloaded")
	for _, r := range []int{12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51} {
		assert.Equal(t, lcp.AtUpper, start[r], "row %d keeps its start", r)
	}
}
