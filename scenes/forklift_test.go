package scenes_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stepForklift steps w once. Block pivoting may end a step with
// ErrSingular when nearly parallel friction rows make its proximal
// iteration stall (see the report of the forklift study); the step still
// uses the solver's best iterate, so such steps are counted, not fatal.
func stepForklift(t testing.TB, w *stepper.World, failed *int) stepper.Stats {
	t.Helper()
	st, err := w.Step()
	if err != nil {
		require.ErrorIs(t, err, lcp.ErrSingular, "step %d", w.Steps())
		*failed++
	}
	return st
}

// The reference run (block pivoting, no budget) drives one full circle:
// the chassis' heading turns by 2π, and it is then back within 10 % of the
// circle's diameter of its start; once settled (t ≥ 6 s) its speed stays
// within 2 % of its mean.
func TestForkliftClosesCircle(t *testing.T) {
	p := scenes.DefaultForkliftParams()
	w, err := scenes.Forklift(p)
	require.NoError(t, err)
	require.Len(t, w.Bodies, 10)
	start := w.Bodies[scenes.ForkliftChassis].Pos
	prev, yaw := scenes.ForkliftHeading(w), 0.0
	minX, maxX := start[0], start[0]
	var speeds []float64
	failed := 0
	for yaw < 2*math.Pi {
		require.Less(t, w.Steps(), 1500, "no full circle in 25 s")
		st := stepForklift(t, w, &failed)
		require.Equal(t, 81, st.Rows, "step %d", st.Step)
		h := scenes.ForkliftHeading(w)
		d := h - prev
		yaw += d - 2*math.Pi*math.Round(d/(2*math.Pi))
		prev = h
		c := w.Bodies[scenes.ForkliftChassis]
		minX, maxX = math.Min(minX, c.Pos[0]), math.Max(maxX, c.Pos[0])
		if w.Time() >= 6 {
			speeds = append(speeds, c.Vel.Len())
		}
	}
	c := w.Bodies[scenes.ForkliftChassis]
	diam := maxX - minX
	radius := scenes.ForkliftTurnRadius(p)
	// The measured diameter is the kinematic one to within a few percent:
	// the wheels creep a little in the curve.
	assert.InEpsilon(t, 2*radius, diam, 0.05, "diameter vs 2·ForkliftTurnRadius")
	back := c.Pos.Sub(start)
	back[2] = 0
	assert.Less(t, back.Len(), 0.1*diam, "back near the start after one circle (%d steps)", w.Steps())
	mean := 0.0
	for _, v := range speeds {
		mean += v
	}
	mean /= float64(len(speeds))
	lo, hi := slices.Min(speeds), slices.Max(speeds)
	assert.Less(t, (hi-mean)/mean, 0.02, "speed steady: max %v, mean %v", hi, mean)
	assert.Less(t, (mean-lo)/mean, 0.02, "speed steady: min %v, mean %v", lo, mean)
	assert.InDelta(t, 0.35, c.Pos[2], 0.01, "chassis stays level on its wheels")
	// Circle within 700–900 steps at h = 1/60 s, as documented.
	assert.True(t, w.Steps() > 700 && w.Steps() < 900, "steps per circle %d", w.Steps())
	assert.Less(t, failed, w.Steps()/10, "steps whose BPP ended with ErrSingular")
	// The engine is a longitudinal shaft: its spin is about the chassis' x.
	engine := w.Bodies[scenes.ForkliftEngine].AngVel.Dot(c.LocalToWorldVec(mgl64.Vec3{1, 0, 0}))
	t.Logf("circle: %d steps, diameter %.3f m, back within %.3f m, speed %.4f m/s (±%.2g %%), engine %.1f rad/s, %d BPP failures",
		w.Steps(), diam, back.Len(), mean, 100*math.Max(hi-mean, mean-lo)/mean, math.Abs(engine), failed)

	// The differential lets the outer (right) front wheel turn faster.
	ws := scenes.ForkliftWheelSpeeds(w)
	assert.Greater(t, ws[1], ws[0], "outer front wheel faster")
	assert.Greater(t, ws[0], 0.0)
}

// recorder wraps a solver and keeps a copy of every iterate the solver
// reports (the stepper's Picker still sees them all).
type recorder struct {
	inner lcp.Solver
	xs    [][]float64
	ws    [][]float64
	iters []int
}

func (r *recorder) Name() string { return r.inner.Name() }

func (r *recorder) Solve(dst *lcp.Result, p *lcp.Problem, s lcp.Settings) error {
	r.xs, r.ws, r.iters = r.xs[:0], r.ws[:0], r.iters[:0]
	next := s.Observer
	s.Observer = lcp.ObserverFunc(func(it lcp.Iterate) {
		r.xs = append(r.xs, slices.Clone(it.X))
		r.ws = append(r.ws, slices.Clone(it.W))
		r.iters = append(r.iters, it.Iter)
		if next != nil {
			next.Observe(it)
		}
	})
	return r.inner.Solve(dst, p, s)
}

// Under a budget, the x each step uses is, for each measure, the iterate
// of least error among all iterates the solver reported in that step,
// recomputed independently with errmeasure.Compute; under Last it is the
// last iterate. Steps on which that iterate would have added energy are
// the safeguard's (stepper.Stats.Safeguard): there the picked x was moved
// part of the way towards an anchor (0 ≤ Scale < 1).
func TestForkliftPickIsLeastError(t *testing.T) {
	const budget, steps = 4, 150
	for _, m := range []errmeasure.Measure{errmeasure.Energy, errmeasure.FB, errmeasure.Residual, errmeasure.Last} {
		t.Run(m.String(), func(t *testing.T) {
			p := scenes.DefaultForkliftParams()
			rec := &recorder{inner: &lcp.BPP{}}
			p.Settings.Solver, p.Settings.Budget, p.Settings.Pick = rec, budget, m
			w, err := scenes.Forklift(p)
			require.NoError(t, err)
			hits, notLast, guarded := 0, 0, 0
			for k := 0; k < steps; k++ {
				st, err := w.Step()
				if err != nil && !errors.Is(err, lcp.ErrSingular) {
					require.NoError(t, err)
				}
				if !st.BudgetHit {
					continue
				}
				hits++
				prob := w.LastProblem()
				x, _ := w.LastSolution()
				require.Len(t, rec.xs, budget)
				if st.Safeguard.Gain > 0 {
					guarded++
					assert.NotEqual(t, errmeasure.AnchorNone, st.Safeguard.Anchor, "step %d", st.Step)
					// The pick had a gain, so the largest t with none is < 1.
					assert.GreaterOrEqual(t, st.Safeguard.Scale, 0.0, "step %d", st.Step)
					assert.Less(t, st.Safeguard.Scale, 1.0, "step %d", st.Step)
					// Not asserted: that f = ½xᵀAx + bᵀx of the applied x stays
					// below the gain removed. f is not the safeguard's exact
					// balance (it lacks the position terms and the free
					// motion's own energy), and whether it holds depends on
					// the trajectory: over this test's 24 runs with one scene
					// parameter changed by ≤ 1e-7 of its value it failed on
					// one guarded step in 2 (f 2.9 times the gain) before
					// integrate stopped turning hinged bodies about their held
					// axes and in 2 after (1.3 and 6.2 times).
					continue
				}
				want := len(rec.xs) - 1
				if m != errmeasure.Last {
					// The Picker's documented rule: the least (class, value),
					// class 0 for a finite total with x inside its bounds (to
					// 1e-10·max|b|/aᵢ), 1 finite outside, 2 infinite; ties to
					// the later iterate.
					mass := errmeasure.InverseMass(nil, prob)
					sw := 0.0
					for _, b := range prob.B {
						sw = math.Max(sw, math.Abs(b))
					}
					if sw == 0 {
						sw = 1
					}
					best, bestCls := math.Inf(1), 3
					for i := range rec.xs {
						v := errmeasure.Compute(prob, rec.xs[i], rec.ws[i], nil).Of(m)
						cls := 0
						if math.IsInf(v, 1) {
							cls = 2
						} else {
							for r, xr := range rec.xs[i] {
								tol := 1e-10 * sw / mass[r]
								if xr < prob.Lo[r]-tol || xr > prob.Hi[r]+tol {
									cls = 1
								}
							}
						}
						if cls < bestCls || (cls == bestCls && v <= best) {
							best, bestCls, want = v, cls, i
						}
					}
				}
				require.Equal(t, rec.xs[want], x, "step %d: x is iterate %d", st.Step, rec.iters[want])
				require.Equal(t, rec.iters[want], st.Picked, "step %d", st.Step)
				if want != len(rec.xs)-1 {
					notLast++
				}
			}
			require.Greater(t, hits, steps/5, "the budget binds")
			require.Greater(t, hits-guarded, steps/10, "the pick is applied as it is on most budget-bound steps")
			t.Logf("%s: budget hit on %d of %d steps, picked an earlier iterate on %d, safeguard on %d", m, hits, steps, notLast, guarded)
		})
	}
}

func TestForkliftRegistered(t *testing.T) {
	s, err := scenes.Lookup("forklift")
	require.NoError(t, err)
	for _, prm := range s.Params {
		assert.NotEmpty(t, prm.Doc, prm.Name)
	}
	w, err := s.Build(map[string]string{"steer": "0.2", "max_torque": "500"})
	require.NoError(t, err)
	assert.Len(t, w.Bodies, 10)
	_, err = s.Build(map[string]string{"wheel_radius": "-1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "wheel_radius")
	_, err = s.Build(map[string]string{"steer": "1.5"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Steer")
}

// benchForklift steps a forklift 300 steps into its circle, then times
// single steps.
func benchForklift(b *testing.B, budget int, m errmeasure.Measure) {
	p := scenes.DefaultForkliftParams()
	p.Settings.Budget, p.Settings.Pick = budget, m
	w, err := scenes.Forklift(p)
	require.NoError(b, err)
	failed := 0
	for k := 0; k < 300; k++ {
		stepForklift(b, w, &failed)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stepForklift(b, w, &failed)
	}
}

func BenchmarkForkliftStep(b *testing.B) {
	b.Run("unbudgeted", func(b *testing.B) { benchForklift(b, 0, errmeasure.Last) })
	b.Run("budget15-energy", func(b *testing.B) { benchForklift(b, 15, errmeasure.Energy) })
	b.Run("budget15-last", func(b *testing.B) { benchForklift(b, 15, errmeasure.Last) })
}
