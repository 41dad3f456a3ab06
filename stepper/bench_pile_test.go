package stepper_test

import (
	"testing"
	"time"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// The unstructured scenes of issue 25 as benchmarks a peer can compare
// (ODE's dWorldStep on the same pile at the same h):
//
//	go test ./stepper -run '^$' -bench 'RandomPile|Piles4' -benchmem -benchtime 1x -cpu 1,2
//
// randomPileSteps is the run: 600 steps of 1/60 s (10 s; the
// default pile is at rest from 5.2 s).
const randomPileSteps = 600

// BenchmarkRandomPile100Mean steps the default random pile (100 boxes)
// from its start for 600 steps per op, the landing included, and reports
// ns per step (the "mean"), block-pivoting iterations per step (the
// mean, and the most of any step), the steps over 30 iterations and budget
// hits per op. The build (a few hundred µs) is inside the timing. Those
// count the step's last solve (Stats.Iterations); a step that solves again
// (Settings.TurnFriction, Stats.Resolves) also ran the solves before it:
// all-iterations/step, most-all-iterations and steps-all-over-30/op count
// them too (Iterations + ResolveIterations), resolves/op the solves again.
// Measured: 1.51 iterations per step, 27 at most; with the solves again
// 1.70, 27 at most (step 44's first solve), no step over 30, 20 solves
// again (1.76, 32, 2 and 37 before a manifold's sliding points counted in
// its friction and circle and its frame turned by regula falsi once
// residuals of both signs bracketed it, turnHeldFriction: at step 32 a
// held corner's frame swung by about 41° in each of 4 solves again, 16 +
// 2 + 3 + 8 + 3 iterations, and now turns by 2.4° and 0.13°, 16 + 4 + 1;
// over seeds 1–8 of the pile, steps over 30 went from 28 to 17 in all and
// the most in a step from 32–69 to 28–48; 1.80, 40, 4 and 34
// before a manifold within μ Σ x̂ₙ or whose load moved to other points
// stopped being turned and a point stopped being turned back to its last
// frame; 2.61, 48, 6 and 83
// before a manifold lifting off stopped being turned, turnLoad, and
// box–box contacts gave a face's crossings of the other box's edge;
// 2.91, 60 and 6 when a solve again started the turned rows free,
// turnHeldFriction).
// Later 1.622, 34 (step 56, the one step over 30), 24 and 5. Step 56 is
// 21 + 12 + 1 iterations, the block pivots of lcp.BPP on semidefinite
// islands, not the turns' starts: its first solve's 21 are one 27-row
// island (box 11 on four floor points, and the box it leans on), whose
// block pivots raise the infeasible count (17, 11, 20, 18, 8, 9) until
// the damped mode ends it; two manifolds then turn (boxes 11 and 14, by
// regula falsi's first step), and the solve again starts that island one
// row off its answer (a row that did not turn; the turned rows' index
// sets were all right), yet its block pivots go 4, 10, 3, 14, 15
// infeasible rows before 5 damped iterations (12), and box 14's 18-row
// island, four rows off, takes 11; a last turn of box 11 by −0.28° takes
// 1. Starting a turned row free where its projected friction lies
// inside its bounds, instead of keeping its old index set, made it worse
// (seed 2024: 1.657 and 56; 1 000 boxes: 4.67 and 85), and a solve
// again allowed one failed block pivot instead of 3 (MaxBlockFailures 1
// on solves again only) barely helped: 34 → 33, seeds 1–4's peaks the
// same but seed 3's 44 → 42, 1 000 boxes 4.23 and 60.
func BenchmarkRandomPile100Mean(b *testing.B) {
	randomPileMean(b, scenes.DefaultRandomPileParams())
}

// BenchmarkRandomPile1000Mean is BenchmarkRandomPile100Mean for a pile of
// 1 000 boxes (the same scene with boxes=1000, on a 32 × 32 grid): issue
// 25 asks that its 600 steps hit no budget. Measured: 0 budget hits,
// 4.95 iterations per step, 59 at most, 20 steps over 30 (14.4, 157 and
// 88 with single pivots before lcp.BPP's damped mode on its semidefinite
// islands), about 5.6 ms of CPU time per step. Later, counting the solves
// again: 7.52 iterations per step, 119 at most (a first solve alone takes
// 69 at step 46), 33 steps over 30, 262 solves again (7.99, 156, 45 and
// 207 when a solve again started the turned rows free; one box rocks on
// its corner until step 365 instead of 176 and turns it every few steps).
// Then 5.67 per step, 82 at most, 36 steps over 30 and 194 solves again
// (5.81, 83, 33 and 194 before turnLoad and the box–box crossings, which
// stopped box 337 rocking on box 338's edge by step ~100 instead of
// 135–240: the projection no longer lifts it each swing). Then 5.38 per
// step, 80 at most, 31 steps over 30, 162 solves again; the peaks are
// first solves whose warm start leaves 12–23 rows infeasible, and after 3
// failed block pivots lcp.BPP's damped mode takes 25–45 iterations (34 at
// step 108, 57 at step 90; more block pivots first made them worse). Then
// 4.66 per step, 68 at most, 20 steps over 30 and 112 solves again once
// sliding points counted in a manifold's friction and its frame turned by
// regula falsi (turnHeldFriction); first solves of 24–50 iterations
// remain at the peaks (step 43: 43 + 7 + 5 + 4).
func BenchmarkRandomPile1000Mean(b *testing.B) {
	p := scenes.DefaultRandomPileParams()
	p.Boxes = 1000
	randomPileMean(b, p)
}

// randomPileMean is the body of the RandomPile…Mean benchmarks.
func randomPileMean(b *testing.B, p scenes.RandomPileParams) {
	b.ReportAllocs()
	iters, most, over, hits, ops := 0, 0, 0, 0, 0
	all, mostAll, overAll, resolves := 0, 0, 0, 0
	for b.Loop() {
		w, err := scenes.RandomPile(p)
		require.NoError(b, err)
		for k := 0; k < randomPileSteps; k++ {
			st, err := w.Step()
			require.NoError(b, err)
			iters += st.Iterations
			most = max(most, st.Iterations)
			if st.Iterations > 30 {
				over++
			}
			if st.BudgetHit {
				hits++
			}
			a := st.Iterations + st.ResolveIterations
			all += a
			mostAll = max(mostAll, a)
			if a > 30 {
				overAll++
			}
			resolves += st.Resolves
		}
		ops++
	}
	steps := float64(ops * randomPileSteps)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
	b.ReportMetric(float64(iters)/steps, "iterations/step")
	b.ReportMetric(float64(most), "most-iterations")
	b.ReportMetric(float64(over)/float64(ops), "steps-over-30/op")
	b.ReportMetric(float64(hits)/float64(ops), "budget-hits/op")
	b.ReportMetric(float64(all)/steps, "all-iterations/step")
	b.ReportMetric(float64(mostAll), "most-all-iterations")
	b.ReportMetric(float64(overAll)/float64(ops), "steps-all-over-30/op")
	b.ReportMetric(float64(resolves)/float64(ops), "resolves/op")
}

// BenchmarkRandomPile100Steady times one step of the default random pile
// after its 600 steps (settled: every box slower than 0.05 m/s from
// 5.2 s); a steady step allocates nothing.
func BenchmarkRandomPile100Steady(b *testing.B) {
	w, err := scenes.RandomPile(scenes.DefaultRandomPileParams())
	require.NoError(b, err)
	benchSteady(b, w, randomPileSteps)
}

// BenchmarkPiles4 times one step of four separate 100-box random piles
// (the piles scene's default: 400 boxes in four contact islands that never
// touch) after 600 steps of settling. Run it with -cpu 1,2 (or 1,2,4) to
// see what a step gains from more cores; the final state is the same for
// any GOMAXPROCS (scenes' TestDeterminism).
func BenchmarkPiles4(b *testing.B) {
	w, err := scenes.Piles(scenes.DefaultPilesParams())
	require.NoError(b, err)
	benchSteady(b, w, randomPileSteps)
}

// landingFrom and landingTo bound the landing steps of the default random
// pile (issue 25): from step 20 the boxes reach the ground and each other,
// and by step 60 most have come to rest.
const landingFrom, landingTo = 20, 60

// BenchmarkRandomPile100Landing times the landing steps 20–60 of the
// default random pile (steps 1–20 run untimed on a pile built per op) and
// reports ns per landing step with each stage of Stats.Timings per step
// (<stage>-ns/op over the 40 steps, so per step) — where the landing's
// time goes, and what the position projection (which detects the
// contacts again) costs beside the step's own detection. It loops to b.N
// so that -cpu applies to the timed runs.
func BenchmarkRandomPile100Landing(b *testing.B) {
	b.ReportAllocs()
	var sum stepper.Timings
	for range b.N {
		b.StopTimer()
		w, err := scenes.RandomPile(scenes.DefaultRandomPileParams())
		require.NoError(b, err)
		for range landingFrom {
			_, err := w.Step()
			require.NoError(b, err)
		}
		b.StartTimer()
		for range landingTo - landingFrom {
			st, err := w.Step()
			require.NoError(b, err)
			addTimings(&sum, st.Timings)
		}
	}
	b.StopTimer()
	steps := float64(b.N * (landingTo - landingFrom))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
	// reportTimings divides by b.N: scale the sums to per step.
	per := float64(landingTo - landingFrom)
	for _, d := range []*time.Duration{&sum.FreeVelocities, &sum.Contacts, &sum.Rows, &sum.Assembly, &sum.PreSolve, &sum.Solve, &sum.Integrate, &sum.Projection, &sum.Total} {
		*d = time.Duration(float64(*d) / per)
	}
	reportTimings(b, sum)
}
