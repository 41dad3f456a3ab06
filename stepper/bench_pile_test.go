package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/scenes"
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
// ns per step (the "mean"), block-pivoting iterations per step and
// budget hits per op. The build (a few hundred µs) is inside the timing.
func BenchmarkRandomPile100Mean(b *testing.B) {
	b.ReportAllocs()
	iters, hits, ops := 0, 0, 0
	for b.Loop() {
		w, err := scenes.RandomPile(scenes.DefaultRandomPileParams())
		require.NoError(b, err)
		for k := 0; k < randomPileSteps; k++ {
			st, err := w.Step()
			require.NoError(b, err)
			iters += st.Iterations
			if st.BudgetHit {
				hits++
			}
		}
		ops++
	}
	steps := float64(ops * randomPileSteps)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/steps, "ns/step")
	b.ReportMetric(float64(iters)/steps, "iterations/step")
	b.ReportMetric(float64(hits)/float64(ops), "budget-hits/op")
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
