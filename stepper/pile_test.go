package stepper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pileRun steps w for n steps and reports what the pile tests assert: the
// steps that hit the budget, the largest energy one step added as a
// fraction of the system's energy at that step (kinetic plus potential
// above the ground, z = 0), the mean and largest iteration counts, and the
// time after which no body moved faster than restSpeed.
type pileRun struct {
	hits, maxIts     int
	meanIts, maxGain float64
	restAt           float64
	// its and preIts are each step's solver and pre-solve iterations
	// (Stats.Iterations, Stats.PreSolveIterations).
	its, preIts []int
}

const restSpeed = 0.05 // m/s: "at rest" in the pile tests

func runPile(t *testing.T, w *stepper.World, n int, onStep func(), onStats ...func(stepper.Stats)) pileRun {
	t.Helper()
	var r pileRun
	its := 0
	for s := 0; s < n; s++ {
		k0, u0 := w.Energy()
		st, err := w.Step()
		require.NoError(t, err)
		if st.BudgetHit {
			r.hits++
		}
		its += st.Iterations
		r.maxIts = max(r.maxIts, st.Iterations)
		r.its = append(r.its, st.Iterations)
		r.preIts = append(r.preIts, st.PreSolveIterations)
		// The potential is measured from z = 0, the ground, so the
		// system's energy is positive.
		r.maxGain = math.Max(r.maxGain, st.EnergyAdded/(k0+u0))
		for _, b := range w.Bodies {
			if b.Vel.Len() > restSpeed {
				r.restAt = w.Time()
				break
			}
		}
		if onStep != nil {
			onStep()
		}
		for _, f := range onStats {
			f(st)
		}
	}
	r.meanIts = float64(its) / float64(n)
	return r
}

// dominoes: ten 0.02 × 0.1 × 0.2 m dominoes (700 kg/m³, 0.28 kg) standing
// on a ground plane at a pitch of 0.12 m along x, μ = 0.4, the first
// tipped over its front edge at 3 rad/s.
func dominoes(t *testing.T, h float64) (*stepper.World, []*body.Body) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.4)
	size := mgl64.Vec3{0.02, 0.1, 0.2}
	m := 700 * size[0] * size[1] * size[2]
	var bs []*body.Body
	for i := 0; i < 10; i++ {
		bs = append(bs, addBox(t, w, m, size, mgl64.Vec3{0.12 * float64(i), 0, 0.1}, mgl64.QuatIdent(), 0.4))
	}
	// Turning about its bottom edge at x = +0.01: ω × (c − edge).
	bs[0].AngVel = mgl64.Vec3{0, 3, 0}
	bs[0].Vel = bs[0].AngVel.Cross(mgl64.Vec3{-0.01, 0, 0.1})
	return w, bs
}

// tilt returns the angle (rad) between b's local z axis and the world's.
func tilt(b *body.Body) float64 {
	return math.Acos(math.Min(1, b.Rot.Rotate(mgl64.Vec3{0, 0, 1})[2]))
}

// Ten dominoes topple one another and come to rest leaning on each other.
// Once they leaned, block pivoting's single pivots crawled on the
// semidefinite MLCPs (redundant box–box and ground contacts, 130–160
// rows): at h = 1/120 s, 431 of 600 steps hit the budget (1 140
// iterations a step) and the pile jittered; at h = 1/60 s, 57 of 300 hit
// it and one step added 4.8 J. Now every step ends in an exact solution
// (the damped mode of lcp.BPP). Issue 24 measured the leaning pile
// jittering at 0.2 m/s where MuJoCo's was still to 1e-4 m/s: no domino
// moves faster than that in the last of the 5 s (measured 2.9e-13 and
// 3.3e-13 m/s at h = 1/120 s and 1/60 s).
func TestLeaningDominoes(t *testing.T) {
	for _, h := range []float64{1.0 / 120, 1.0 / 60} {
		w, bs := dominoes(t, h)
		fallen := math.Inf(1) // when the last domino lies flat
		jitter := 0.0         // the largest speed of a domino over the last second (m/s)
		r := runPile(t, w, int(math.Round(5/h)), func() {
			if math.IsInf(fallen, 1) && tilt(bs[9]) > 85*math.Pi/180 {
				fallen = w.Time()
			}
			if w.Time() > 4 {
				for _, b := range bs {
					jitter = math.Max(jitter, b.Vel.Len())
				}
			}
		})
		t.Logf("h = %.4f s: %d budget hits, iterations mean %.1f max %d, largest step gain %.2g of the energy, last domino down at %.2f s, at rest (≤ %.2f m/s) from %.2f s, largest speed in the last second %.1e m/s; tilts %.0f° … %.0f°",
			h, r.hits, r.meanIts, r.maxIts, r.maxGain, fallen, restSpeed, r.restAt, jitter, tilt(bs[0])*180/math.Pi, tilt(bs[8])*180/math.Pi)
		assert.Zero(t, r.hits, "budget hits")
		assert.LessOrEqual(t, r.maxGain, 0.01, "no step adds more than 1 % of the energy")
		require.False(t, math.IsInf(fallen, 1), "the last domino fell")
		assert.LessOrEqual(t, r.restAt, fallen+2, "at rest within 2 s of the last fall")
		assert.LessOrEqual(t, jitter, 1e-4, "as still as MuJoCo's leaning dominoes in the last second")
		for i, b := range bs[:9] {
			// Leaning on the next one: between upright and flat.
			assert.Greater(t, tilt(b), 60*math.Pi/180, "domino %d toppled", i)
			assert.Less(t, tilt(b), 88*math.Pi/180, "domino %d leans on the next", i)
		}
	}
}

// randomPile adds a pile of n boxes with random sides of 0.05–0.3 m
// (500 kg/m³, masses 0.06–13.5 kg) and random orientations, dropped from
// 0.5–3 m onto a ground plane (μ = 0.5), on a grid of 0.35 m, ten to a
// row, from (x0, y0); seed picks the sizes and heights.
func randomPile(t testing.TB, w *stepper.World, x0, y0 float64, seed uint64, n int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 24))
	type placed struct {
		c mgl64.Vec3
		r float64
	}
	var boxes []placed
	for i := 0; i < n; i++ {
		// A 10 × 10 grid 0.35 m apart, close enough for boxes to land on
		// and against each other (about 1 200 rows once they rest); a
		// height is drawn again while the box's bounding sphere meets one
		// already placed, so none overlap at the start.
		s := mgl64.Vec3{0.05 + 0.25*rng.Float64(), 0.05 + 0.25*rng.Float64(), 0.05 + 0.25*rng.Float64()}
		r := s.Len() / 2
		pos := mgl64.Vec3{x0 + 0.35*float64(i%10) + 0.05*rng.Float64(), y0 + 0.35*float64(i/10) + 0.05*rng.Float64(), 0}
		for clear := false; !clear; {
			pos[2] = 0.5 + 2.5*rng.Float64()
			clear = true
			for _, o := range boxes {
				clear = clear && o.c.Sub(pos).Len() > o.r+r
			}
		}
		boxes = append(boxes, placed{pos, r})
		axis := mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Normalize()
		addBox(t, w, 500*s[0]*s[1]*s[2], s, pos, mgl64.QuatRotate(math.Pi*rng.Float64(), axis), 0.5)
	}
}

// pileWorld is the ground and one randomPile of 100 boxes (seed 2024), at
// h = 1/60 s.
func pileWorld(t testing.TB, single bool) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity, SingleProblem: single})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	randomPile(t, w, 0, 0, 2024, 100)
	return w
}

// The random pile (pileWorld) for 600 steps, solved as one problem and by
// island: every step solved within the default budget, no step adding
// more than 1 % of the energy, and the pile at rest within 2 s of the
// last landing, both ways, and each within pileCost's bounds. A step
// takes 4.29 block-pivoting iterations on average and 58 at most as one
// problem; by island (up to 96 islands while the boxes land one by one)
// 2.95 and 30 (the largest island's, Stats.Iterations), since a landing
// re-pivots its own island only; by island no step takes over 30. (With
// Settings.Coherent off 6.31 and 51, 4.96 and 27; 6.50, 53, 5.12 and 31
// before lcp.BPP counted its least infeasibility afresh after a proximal
// move, counted a cycling semidefinite block's new least infeasibility
// count that does not halve the last as a failed block pivot and took its
// damped mode's first step towards a face solution in hand; with single
// pivots before lcp.BPP's damped mode on these semidefinite problems, a
// face solve after every damped step and the damped mode's proximal moves
// going on at any cut below regTol: 11.0 and 277, 10.6 and 128.) The test
// asserts by island at most the single problem's mean and largest count
// (0.69 and 0.52 of them
// measured); each island's pivots cost far less than the world's, which
// BenchmarkRandomPile measures.
func TestRandomBoxPile(t *testing.T) {
	if raceEnabled {
		t.Skip("600 steps of a 1 200-row pile take minutes under the race detector; one goroutine, nothing for it to find")
	}
	var runs [2]pileRun
	for k, single := range []bool{true, false} {
		w := pileWorld(t, single)
		landed := 0.0 // the last step a body fell faster than 0.5 m/s
		islands := 0
		r := runPile(t, w, 600, func() {
			for _, b := range w.Bodies {
				if b.Vel[2] < -0.5 {
					landed = w.Time()
					break
				}
			}
		}, func(st stepper.Stats) { islands = max(islands, len(st.Islands)) })
		t.Logf("single problem %v: %d budget hits, iterations mean %.2f max %d, up to %d islands, largest step gain %.2g of the energy, last fall at %.2f s, at rest (≤ %.2f m/s) from %.2f s",
			single, r.hits, r.meanIts, r.maxIts, islands, r.maxGain, landed, restSpeed, r.restAt)
		assert.Zero(t, r.hits, "budget hits")
		assert.LessOrEqual(t, r.maxGain, 0.01, "no step adds more than 1 % of the energy")
		assert.LessOrEqual(t, r.restAt, landed+2, "at rest within 2 s of the last fall")
		runs[k] = r
	}
	// At rest each solve starts at the last step's impulses
	// (Settings.Coherent, the default) and repeats last step's face: 1
	// iteration a step both ways (measured; with Coherent off a heap's
	// redundant contacts take lcp.BPP's regularized mode from 0, 3.5 a
	// step, at most 4; the whole run 6.31 mean, 51 at most as one problem,
	// 4.96 and 27 by island, against 4.29 and 58, 2.95 and 30 coherent).
	pileCost(t, runs[0], 1)
	pileCost(t, runs[1], 1)
	assert.LessOrEqual(t, runs[1].meanIts, runs[0].meanIts, "mean iterations by island vs as one problem")
	assert.LessOrEqual(t, runs[1].maxIts, runs[0].maxIts, "largest iterations by island vs as one problem")
	assert.LessOrEqual(t, runs[1].maxIts, 30, "largest iterations of a step by island (issue 25's target; 30 measured, 27 with Settings.Coherent off)")
}

// pileCost asserts what the random pile's 600 steps cost (issue 25), each
// bound a margin above the value measured on this pile (the run is the
// same bits every time: the margin is room for changes elsewhere, not for
// noise). As one problem, before estimateLocally (new contacts among old
// ones estimated against the old ones' last impulses instead of by a full
// pre-solve): iterations mean 27.4 per step, 159 steps over 30, pre-solve
// iterations mean 5.7 and at most 208; after: 11.0, 46, 0.2 and 48; with
// lcp.BPP's damped mode at once on a stalled semidefinite solve and its
// proximal moves below regTol only while they halve the residual: 6.49,
// 26, 0.2 and 26 (by island 5.11, 1, 0.24 and 48); with a cycling
// semidefinite block sent to the damped mode sooner and the damped mode's
// first step taken towards a face solution in hand: 6.31, 17, 0.19 and 27
// (by island 4.96, 0, 0.24 and 48). The resting pile
// (steps 401–600) takes 3.5 iterations per step (3.0 before, in another
// resting configuration): one block pivot of a friction row on the edge
// of its cone, one proximal move of lcp.BPP's regularized mode, the last
// solve. restBound is the most iterations a resting step may take.
// The pre-solve's most in a step moves most with the pile's path: with a
// new resting contact's friction frame fixed in its box instead of built
// from the world's axes (bodyTangent) this pile's went from 28 to 67 (as
// one problem; 28 to 36 by island), while over the piles of seeds
// 2020–2031 it ranged over 14–66 before and 10–72 after (mean 38 and 44,
// as one problem; the solves' own mean iterations 3.81 and 3.75, steps
// over 30 17.8 and 16.3): its bound is 80, above that spread.
func pileCost(t *testing.T, r pileRun, restBound int) {
	t.Helper()
	over, pre, preMax, rest, restMax := 0, 0, 0, 0, 0
	for i, n := range r.its {
		if n > 30 {
			over++
		}
		pre += r.preIts[i]
		preMax = max(preMax, r.preIts[i])
		if i >= 400 {
			rest += n
			restMax = max(restMax, n)
		}
	}
	meanPre := float64(pre) / float64(len(r.its))
	meanRest := float64(rest) / float64(len(r.its)-400)
	t.Logf("cost: %d steps over 30 iterations, pre-solve iterations mean %.2f max %d, at rest (steps 401–%d) %.2f iterations per step, at most %d",
		over, meanPre, preMax, len(r.its), meanRest, restMax)
	assert.LessOrEqual(t, r.meanIts, 8.0, "iterations per step, mean (6.31 measured)")
	assert.LessOrEqual(t, over, 35, "steps over 30 iterations (17 measured)")
	assert.LessOrEqual(t, meanPre, 1.0, "pre-solve iterations per step, mean (0.2 measured)")
	assert.LessOrEqual(t, preMax, 80, "pre-solve iterations of a step, most (67 measured)")
	assert.LessOrEqual(t, meanRest, float64(restBound), "iterations per step at rest, mean")
	assert.LessOrEqual(t, restMax, restBound, "iterations per step at rest, most")
}
