package stepper_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// BenchmarkPilesAwake times one step of the piles scene's default (four
// random piles of 100 boxes, scenes.DefaultPilesParams) with sleeping off,
// after the 600 steps in which the piles land and settle: every box is in
// the step's MLCP, split into a few hundred islands (a box alone on the
// ground is one; the largest are a few dozen rows) that the pool solves on
// up to GOMAXPROCS goroutines. BenchmarkPiles4 times the same scene with
// sleeping on, in which every settled box sleeps and the step solves
// nothing. Run it with -cpu 1,2 for the ratio of the wall-clock times; it
// reports the GOMAXPROCS its timed steps ran at (procs).
//
// It loops to b.N rather than with b.Loop: the testing package runs a
// benchmark once with b.N = 1 before it sets GOMAXPROCS to the first -cpu
// value (golang/go issue 49980), and a b.Loop benchmark does all its
// timing in that first run, so its first -cpu entry would be timed at the
// GOMAXPROCS the previous benchmark left (the machine's default for the
// first). Here that first run is one step, and the b.N run that is reported
// comes after GOMAXPROCS is set.
func BenchmarkPilesAwake(b *testing.B) {
	w := settledAwakePiles(b)
	b.ReportAllocs()
	iters := 0
	var sum stepper.Timings
	b.ResetTimer()
	for range b.N {
		st, err := w.Step()
		require.NoError(b, err)
		iters += st.Iterations
		addTimings(&sum, st.Timings)
	}
	b.StopTimer()
	b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
	reportTimings(b, sum)
}

// BenchmarkPilesAwakeScaling steps BenchmarkPilesAwake's settled piles
// with GOMAXPROCS switched between 1 and 2 every 10 steps, b.N rounds of
// 20 steps, and reports the medians of the steps' wall-clock times
// (Stats.Timings.Total and Solve) at each and their ratios (2 over 1): the
// two are timed interleaved under the same machine load, which on a shared
// machine moves separate runs' times by half. The piles have settled, so
// every step solves the same islands (1 BPP iteration each) at either
// GOMAXPROCS, whose bits do not depend on it.
func BenchmarkPilesAwakeScaling(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	w := settledAwakePiles(b)
	var total, solve [2][]time.Duration
	for k := range 2 {
		total[k], solve[k] = make([]time.Duration, 0, 10*b.N), make([]time.Duration, 0, 10*b.N)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for k := range 2 {
			runtime.GOMAXPROCS(k + 1)
			for range 10 {
				st, err := w.Step()
				require.NoError(b, err)
				total[k] = append(total[k], st.Timings.Total)
				solve[k] = append(solve[k], st.Timings.Solve)
			}
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2])
	}
	t1, t2, s1, s2 := med(total[0]), med(total[1]), med(solve[0]), med(solve[1])
	b.ReportMetric(t1, "step1-ns")
	b.ReportMetric(t2, "step2-ns")
	b.ReportMetric(t2/t1, "step-ratio")
	b.ReportMetric(s1, "solve1-ns")
	b.ReportMetric(s2, "solve2-ns")
	b.ReportMetric(s2/s1, "solve-ratio")
}

// settledAwakePiles returns the piles scene's default with sleeping off
// after the randomPileSteps steps in which its piles land and settle.
func settledAwakePiles(b *testing.B) *stepper.World {
	p := scenes.DefaultPilesParams()
	p.Settings.Sleep.On = false
	w, err := scenes.Piles(p)
	require.NoError(b, err)
	for range randomPileSteps {
		_, err := w.Step()
		require.NoError(b, err)
	}
	return w
}
