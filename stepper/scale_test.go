package stepper_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// Step 1 of a brick wall built at rest (the cold start: every contact is
// new, the new-contact pre-solve and the main solve start from scratch),
// with its iterations and stage times per step (reportTimings).
func BenchmarkWallStep1(b *testing.B) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		b.Run(fmt.Sprintf("bricks=%d", c.bricks), func(b *testing.B) {
			p := scenes.DefaultBrickWallParams()
			p.Rows = c.rows
			b.ReportAllocs()
			iters, pre := 0, 0
			var sum stepper.Timings
			for b.Loop() {
				b.StopTimer()
				w, err := scenes.BrickWall(p)
				require.NoError(b, err)
				b.StartTimer()
				st, err := w.Step()
				require.NoError(b, err)
				iters += st.Iterations
				pre += st.PreSolveIterations
				addTimings(&sum, st.Timings)
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
			b.ReportMetric(float64(pre)/float64(b.N), "presolve-its/op")
			reportTimings(b, sum)
		})
	}
}

// A steady brick-wall step: the wall after 60 steps (1 s) of settling.
func BenchmarkWallSteady(b *testing.B) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		b.Run(fmt.Sprintf("bricks=%d", c.bricks), func(b *testing.B) {
			p := scenes.DefaultBrickWallParams()
			p.Rows = c.rows
			w, err := scenes.BrickWall(p)
			require.NoError(b, err)
			benchSteady(b, w, 60)
		})
	}
}

// A steady step of a 55-brick pyramid (base 10) after 30 steps of
// settling: the smallest pyramid of issue 25's table, the size where the
// per-step overheads, not the factorization, decide.
func BenchmarkPyramidSteadySmall(b *testing.B) { benchPyramid(b, 10) }

// A steady step of a 210-brick pyramid (base 20, 7 080 rows) after 30
// steps of settling: a two-dimensional contact graph, where the factor's
// row modifications and the stale factor's refinement carry the step.
func BenchmarkPyramidSteady(b *testing.B) { benchPyramid(b, 20) }

// A steady step of a 496-brick pyramid (base 31, 17 112 rows) after 30
// steps of settling: its dual A's LDLᵀ is 1.7 GFlop, the body-space
// factorization lcp.BPP uses (the quasi-definite [M Jᵀ; J −C]) 12.5 MFlop.
func BenchmarkPyramidSteadyLarge(b *testing.B) { benchPyramid(b, 31) }

// BenchmarkCoherentOffSteady is the steady wall and pyramid steps above
// with Settings.Coherent off: each solve starts its proximal centre at 0,
// as before the last step's impulses became the default centre.
func BenchmarkCoherentOffSteady(b *testing.B) {
	b.Run("wall=30", func(b *testing.B) {
		p := scenes.DefaultBrickWallParams()
		p.Rows = 12
		p.Settings.Coherent = stepper.CoherentOff
		w, err := scenes.BrickWall(p)
		require.NoError(b, err)
		benchSteady(b, w, 60)
	})
	for _, base := range []int{10, 20, 31} {
		b.Run(fmt.Sprintf("pyramid=%d", base*(base+1)/2), func(b *testing.B) {
			p := scenes.DefaultPyramidParams()
			p.Base = base
			p.Settings.Coherent = stepper.CoherentOff
			w, err := scenes.Pyramid(p)
			require.NoError(b, err)
			benchSteady(b, w, 30)
		})
	}
}

// benchPyramid times the steady steps of a pyramid of the given base
// after 30 steps of settling.
func benchPyramid(b *testing.B, base int) {
	p := scenes.DefaultPyramidParams()
	p.Base = base
	w, err := scenes.Pyramid(p)
	require.NoError(b, err)
	benchSteady(b, w, 30)
}

// benchSteady steps w settle times, then times one step per op and
// reports the block-pivoting iterations per step and each stage's time
// per step (Stats.Timings, as <stage>-ns/op).
func benchSteady(b *testing.B, w *stepper.World, settle int) {
	for i := 0; i < settle; i++ {
		_, err := w.Step()
		require.NoError(b, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	iters := 0
	var sum stepper.Timings
	// A loop to b.N, not b.Loop: b.Loop times everything in the
	// benchmark's first call, which the testing package makes before it
	// sets the first -cpu value's GOMAXPROCS, so "-cpu 1" would time the
	// process's default.
	for range b.N {
		st, err := w.Step()
		require.NoError(b, err)
		iters += st.Iterations
		addTimings(&sum, st.Timings)
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
	reportTimings(b, sum)
}

// addTimings adds t's stages to sum.
func addTimings(sum *stepper.Timings, t stepper.Timings) {
	sum.FreeVelocities += t.FreeVelocities
	sum.Contacts += t.Contacts
	sum.Rows += t.Rows
	sum.Assembly += t.Assembly
	sum.PreSolve += t.PreSolve
	sum.Solve += t.Solve
	sum.Integrate += t.Integrate
	sum.Projection += t.Projection
	sum.Total += t.Total
}

// reportTimings reports sum's stages per op as <stage>-ns/op metrics.
func reportTimings(b *testing.B, sum stepper.Timings) {
	n := float64(b.N)
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"free", sum.FreeVelocities}, {"contacts", sum.Contacts}, {"rows", sum.Rows}, {"assembly", sum.Assembly},
		{"presolve", sum.PreSolve}, {"solve", sum.Solve}, {"integrate", sum.Integrate}, {"projection", sum.Projection}} {
		b.ReportMetric(float64(m.d)/n, m.name+"-ns/op")
	}
}

// A brick wall built at rest keeps its contact keys: every contact is new
// on step 1 only, so the new-contact pre-solve runs on step 1 and never
// again. (Before the box–box clip snap, rounding-level drift flipped keys
// of bricks with coincident long edges, and the pre-solve ran on 221 of
// 300 steps of the 30-brick wall.)
func TestWallAtRestKeepsContactKeys(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(t, err)
	steps := 120 // 2 s: the old flicker showed on more than half the steps
	if testing.Short() {
		steps = 30
	}
	for i := 1; i <= steps; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		if i == 1 {
			require.Positive(t, st.PreSolveIterations, "step 1: every contact is new")
			continue
		}
		require.Zero(t, st.PreSolveIterations, "step %d: a new contact key on a wall at rest", i)
	}
}
