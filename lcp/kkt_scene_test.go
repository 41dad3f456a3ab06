package lcp_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// settled returns the step MLCP of a world after steps steps, with the
// index sets of its answer.
func settled(t *testing.T, w *stepper.World, steps int) (*lcp.Problem, []lcp.State) {
	t.Helper()
	for i := 0; i < steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	p := w.LastProblem()
	require.NotNil(t, p)
	require.NotNil(t, p.KKT, "the stepper's symmetric assembly describes A in body space")
	var s lcp.BPP
	var res lcp.Result
	require.NoError(t, s.Solve(&res, p, lcp.Settings{}))
	return p, append([]lcp.State(nil), res.States...)
}

var sceneCache map[string]*lcp.Problem

// sceneProblems are the brick wall (30 and 100 bricks) and the 210-brick
// pyramid of scale_test.go, settled; the pyramid not under -short or
// the race detector.
func sceneProblems(t *testing.T) map[string]*lcp.Problem {
	large := !testing.Short() && !raceEnabled // the pyramid: 12 s here, minutes under -race
	if sceneCache != nil && (!large || sceneCache["pyramid210"] != nil) {
		return sceneCache
	}
	out := map[string]*lcp.Problem{}
	defer func() { sceneCache = out }()
	walls := []int{12, 40}
	if raceEnabled {
		walls = walls[:1] // the 30-brick wall: the race detector slows stepping twentyfold
	}
	for _, rows := range walls {
		p := scenes.DefaultBrickWallParams()
		p.Rows = rows
		w, err := scenes.BrickWall(p)
		require.NoError(t, err)
		out[fmt.Sprintf("wall%d", rows)], _ = settled(t, w, 60)
	}
	if large {
		p := scenes.DefaultPyramidParams()
		p.Base = 20
		w, err := scenes.Pyramid(p)
		require.NoError(t, err)
		out["pyramid210"], _ = settled(t, w, 30)
	}
	return out
}

// The stepper's KKT describes its A: J M⁻¹ Jᵀ + C, with M⁻¹ inverted
// here, matches every entry of A to rounding (A uses m⁻¹ and R I⁻¹ Rᵀ, KKT
// m and R I Rᵀ: relative 1e-12 of the largest entry of each row).
func TestKKTSceneDescribesA(t *testing.T) {
	for name, p := range sceneProblems(t) {
		k := p.KKT
		n := p.N()
		minv := make([]*mat.Dense, len(k.Mass))
		for b := range k.Mass {
			minv[b] = mat.NewDense(6, 6, nil)
			require.NoError(t, minv[b].Inverse(mat.NewDense(6, 6, append([]float64(nil), k.Mass[b][:]...))))
		}
		type slot struct{ row, s int }
		byBody := make([][]slot, len(k.Mass))
		for i, bs := range k.Body {
			for s, b := range bs {
				if b >= 0 {
					byBody[b] = append(byBody[b], slot{i, s})
				}
			}
		}
		got := map[[2]int]float64{}
		for b, list := range byBody {
			for _, u := range list {
				var mj [6]float64
				for r := 0; r < 6; r++ {
					for c := 0; c < 6; c++ {
						mj[r] += minv[b].At(r, c) * k.J[u.row][u.s][c]
					}
				}
				for _, v := range list {
					s := 0.0
					for r := 0; r < 6; r++ {
						s += k.J[v.row][v.s][r] * mj[r]
					}
					got[[2]int{u.row, v.row}] += s
				}
			}
		}
		rowMax := make([]float64, n)
		for i := 0; i < n; i++ {
			got[[2]int{i, i}] += k.C[i]
			rowMax[i] = math.Abs(p.A.At(i, i))
		}
		for ij, v := range got {
			want := p.A.At(ij[0], ij[1])
			require.InDelta(t, want, v, 1e-12*rowMax[ij[0]], "%s: A[%d][%d]", name, ij[0], ij[1])
		}
		assert.Positive(t, len(got), name)
	}
}

// On the wall and pyramid MLCPs the body-space path gives the dual path's
// answer: the same iterations and index sets, x within 1e-8 of max|x|
// (or, where a degenerate row ends apart, the same w: degenerateApart),
// from a cold start and warm-started from the stepper's index sets. Both
// solve each face to a componentwise backward error of about 1e-13, which
// the regularized faces' condition numbers (up to 1/ε = 1e6) amplify; the
// measured differences are 1e-9 of max|x|, far below the tolerance these
// semidefinite problems are solved to (regTol: 1e-6 of max|b|).
func TestKKTSceneSameAnswer(t *testing.T) {
	for name, p := range sceneProblems(t) {
		var ref lcp.BPP
		var r0 lcp.Result
		require.NoError(t, ref.Solve(&r0, p, lcp.Settings{}))
		start := append([]lcp.State(nil), r0.States...)
		for _, set := range []lcp.Settings{{}, {Start: start}} {
			var viaKKT, viaDual lcp.BPP
			lcp.KKTPath(&viaKKT, 1)
			lcp.KKTPath(&viaDual, 2)
			var r1, r2 lcp.Result
			require.NoError(t, viaKKT.Solve(&r1, p, set))
			require.NoError(t, viaDual.Solve(&r2, p, set))
			solves, fallbacks, _, _, _ := lcp.KKTStats(&viaKKT)
			t.Logf("%s warm=%v: iterations %d/%d, KKT solves %d, fallbacks %d", name, set.Start != nil, r1.Iterations, r2.Iterations, solves, fallbacks)
			assert.Positive(t, solves, name)
			assert.Equal(t, r2.Status, r1.Status, name)
			if degenerateApart(t, name, p, &r1, &r2) {
				continue
			}
			assert.Equal(t, r2.Iterations, r1.Iterations, name)
			assert.Equal(t, r2.States, r1.States, name)
			scale := 0.0
			for _, v := range r2.X {
				scale = math.Max(scale, math.Abs(v))
			}
			worst := 0.0
			for i := range r1.X {
				worst = math.Max(worst, math.Abs(r1.X[i]-r2.X[i]))
			}
			t.Logf("%s: max|Δx| = %.3g of max|x| %.3g", name, worst, scale)
			assert.LessOrEqual(t, worst, 1e-8*scale, name)
		}
	}
}

// degenerateApart reports whether the two paths' answers r1 and r2 end in
// different index sets only at degenerate rows: rows whose w is zero (to
// 1e-9 of max|b|) in both, a contact that touches without pushing, which
// a face at rounding leaves at its bound in one path and free with a
// small x in the other (the settled 210-brick pyramid has one such row,
// x 0 against 1.04e-5 N·s, w −1.4e-11 and −1.2e-11 m/s). Both are then
// solutions of the semidefinite MLCP, apart in A's null space: it checks
// that they have the same w to 1e-9 of max|b| (2.9e-12 m/s measured),
// and that the iterations are within one (the face that moves the row).
// With the same index sets it reports false: the caller compares x.
func degenerateApart(t *testing.T, name string, p *lcp.Problem, r1, r2 *lcp.Result) bool {
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	apart := 0
	for i := range r1.States {
		if r1.States[i] == r2.States[i] {
			continue
		}
		apart++
		assert.LessOrEqual(t, math.Max(math.Abs(r1.W[i]), math.Abs(r2.W[i])), 1e-9*sw,
			"%s: row %d is %v and %v, not degenerate", name, i, r1.States[i], r2.States[i])
	}
	if apart == 0 {
		return false
	}
	dw := 0.0
	for i := range r1.W {
		dw = math.Max(dw, math.Abs(r1.W[i]-r2.W[i]))
	}
	t.Logf("%s: %d degenerate rows apart, max|Δw| = %.3g of max|b| %.3g", name, apart, dw, sw)
	assert.LessOrEqual(t, dw, 1e-9*sw, name)
	assert.InDelta(t, r2.Iterations, r1.Iterations, 1, name)
	return true
}

// Step 1 of the 210-brick pyramid built at rest, on a BPP of the test's
// (Settings.Solver: the pre-solve and the step's solve): every contact is
// new and the faces are semidefinite, so both solves run in regularized
// mode, where refinement against K stalls at a componentwise backward
// error of 1e-13 to 3e-12 (the factor's growth, up to 1/ε = 1e6). The
// body-space path accepts those faces (kktStall) and gives up none: the
// pre-solve starts in regularized mode (its four coplanar normal rows per
// brick face are dependent: Problem.RedundantRigid, Settings.Semidefinite)
// instead of finding out by a failed unregularized face, and the main
// solve inherits the mode (7 of 15 faces went to the dual's 75 times
// dearer factorization before the body-space path, 1 before the hint). The
// step is the dual path's: iterations within one (a face at rounding can
// move a borderline index: 8 + 7 against 7 + 7 measured), velocities
// within 1e-9 m/s (measured 2e-14: both paths solve each face to rounding, which
// the regularized faces' condition number 1e6 amplifies; the solve's own
// tolerance, regTol, is 1e-6 of max|b|, about 1e-8 m/s here).
func TestKKTSceneStep1Regularized(t *testing.T) {
	if testing.Short() {
		t.Skip("factors the 210-brick pyramid's dual")
	}
	step := func(path int8) (*stepper.World, stepper.Stats, *lcp.BPP) {
		pp := scenes.DefaultPyramidParams()
		pp.Base = 20
		w, err := scenes.Pyramid(pp)
		require.NoError(t, err)
		s := &lcp.BPP{}
		lcp.KKTPath(s, path)
		w.Settings.Solver = s
		st, err := w.Step()
		require.NoError(t, err)
		return w, st, s
	}
	w1, st1, s1 := step(0)
	w2, st2, _ := step(2)
	solves, fallbacks, _, _, _ := lcp.KKTStats(s1)
	t.Logf("pre-solve %d + %d iterations, KKT solves %d, fallbacks %d", st1.PreSolveIterations, st1.Iterations, solves, fallbacks)
	assert.Equal(t, 0, fallbacks, "no unregularized face is tried")
	assert.Equal(t, st1.PreSolveIterations+st1.Iterations, solves)
	assert.InDelta(t, st2.PreSolveIterations+st2.Iterations, st1.PreSolveIterations+st1.Iterations, 1)
	worst := 0.0
	for i, b := range w1.Bodies {
		for k := 0; k < 3; k++ {
			worst = math.Max(worst, math.Abs(b.Vel[k]-w2.Bodies[i].Vel[k]))
			worst = math.Max(worst, math.Abs(b.AngVel[k]-w2.Bodies[i].AngVel[k]))
		}
	}
	t.Logf("max velocity difference against the dual path: %.3g", worst)
	assert.LessOrEqual(t, worst, 1e-9)
}

// A settled scene's K̃ is worth a stale or modified factor (worthModify)
// when its refactorization, at the measured per-flop costs, exceeds the
// refinement steps such a factor may add: the walls' K̃ (57 200 and
// 204 760 structural flops, 1.71 and 1.77 refinement steps' worth, times
// 3 by up-looking rows) pass the four steps, as the 210-brick pyramid's
// (5.8, times 1.5 by supernodes) does; a fixed floor of 2 MFlop kept the
// walls refactoring although a refactorization costs them about twelve
// solves (BenchmarkFactorSolveCost).
func TestKKTSceneWorthModify(t *testing.T) {
	for name, p := range sceneProblems(t) {
		var s lcp.BPP
		var res lcp.Result
		require.NoError(t, s.Solve(&res, p, lcp.Settings{}))
		full, step, worth := lcp.KKTWorthModify(p, res.States)
		t.Logf("%s: K̃ %d flops, a refinement step %d (%.2f)", name, full, step, float64(full)/float64(step))
		assert.Greater(t, full, step, "%s: a factorization costs more flops than a refinement step", name)
		assert.True(t, worth, "%s", name)
	}
}
