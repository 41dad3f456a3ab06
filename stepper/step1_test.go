package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// Step 1 of the 210-brick pyramid (base 20, 7 080 rows) built at rest:
// every contact new, A's pattern and the factor's ordering built from
// scratch, the new contacts' pre-solve; against BenchmarkPyramidSteady, the
// cost of a cold start on a two-dimensional contact graph.
func BenchmarkPyramidStep1(b *testing.B) { benchPyramidStep1(b, 20) }

// Step 1 of the 496-brick pyramid (base 31), against
// BenchmarkPyramidSteadyLarge.
func BenchmarkPyramidStep1Large(b *testing.B) { benchPyramidStep1(b, 31) }

// benchPyramidStep1 times step 1 of a pyramid of the given base built at
// rest, with its iterations and stage times per step (reportTimings).
func benchPyramidStep1(b *testing.B, base int) {
	p := scenes.DefaultPyramidParams()
	p.Base = base
	b.ReportAllocs()
	iters, pre := 0, 0
	var sum stepper.Timings
	for b.Loop() {
		b.StopTimer()
		w, err := scenes.Pyramid(p)
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
}
