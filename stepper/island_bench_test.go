package stepper_test

import (
	"os"
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
// (Stats.Timings.Total and Solve) at each, and the ratio (2 over 1) of
// the medians of the step, of each stage of Stats.Timings and of the rest
// (the step less its stages: the energies, the checks, the sleep update):
// the two are timed interleaved under the same machine load, which on a
// shared machine moves separate runs' times by half. The pool runs its
// jobs on the caller alone on a machine whose other work holds the cores
// (workPool); with GORIGID_POOL_ALWAYS set it keeps its helpers
// (settledAwakePiles). The piles have settled, so
// every step solves the same islands (1 BPP iteration each) at either
// GOMAXPROCS, whose bits do not depend on it.
func BenchmarkPilesAwakeScaling(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	w := settledAwakePiles(b)
	// stages[k][s]: GOMAXPROCS k+1, stage s of scalingStages.
	var stages [2][len(scalingStages)][]time.Duration
	for k := range 2 {
		for s := range scalingStages {
			stages[k][s] = make([]time.Duration, 0, 10*b.N)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for k := range 2 {
			runtime.GOMAXPROCS(k + 1)
			for range 10 {
				st, err := w.Step()
				require.NoError(b, err)
				for s, g := range scalingStages {
					stages[k][s] = append(stages[k][s], g.get(&st.Timings))
				}
			}
		}
	}
	b.StopTimer()
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2])
	}
	for s, g := range scalingStages {
		t1, t2 := med(stages[0][s]), med(stages[1][s])
		if g.name == "step" || g.name == "solve" {
			b.ReportMetric(t1, g.name+"1-ns")
			b.ReportMetric(t2, g.name+"2-ns")
		}
		if t1 > 0 {
			b.ReportMetric(t2/t1, g.name+"-ratio")
		}
	}
}

// scalingStages are the Timings that BenchmarkPilesAwakeScaling reports
// the ratios of (the median at GOMAXPROCS 2 over that at 1), Total as
// "step".
var scalingStages = [...]struct {
	name string
	get  func(*stepper.Timings) time.Duration
}{
	{"step", func(t *stepper.Timings) time.Duration { return t.Total }},
	{"solve", func(t *stepper.Timings) time.Duration { return t.Solve }},
	{"free", func(t *stepper.Timings) time.Duration { return t.FreeVelocities }},
	{"contacts", func(t *stepper.Timings) time.Duration { return t.Contacts }},
	{"rows", func(t *stepper.Timings) time.Duration { return t.Rows }},
	{"assembly", func(t *stepper.Timings) time.Duration { return t.Assembly }},
	{"presolve", func(t *stepper.Timings) time.Duration { return t.PreSolve }},
	{"integrate", func(t *stepper.Timings) time.Duration { return t.Integrate }},
	{"projection", func(t *stepper.Timings) time.Duration { return t.Projection }},
	{"rest", func(t *stepper.Timings) time.Duration {
		return t.Total - t.FreeVelocities - t.Contacts - t.Rows - t.Assembly - t.PreSolve - t.Solve - t.Integrate - t.Projection
	}},
}

// settledAwakePiles returns the piles scene's default with sleeping off
// after the randomPileSteps steps in which its piles land and settle. With
// GORIGID_POOL_ALWAYS set in the environment its pool keeps its helpers on
// a machine whose other work holds the cores (PoolAlwaysSharesForTest):
// the benchmarks then measure what the helpers overlap, not the pool's
// rule against a starved machine.
func settledAwakePiles(b *testing.B) *stepper.World {
	p := scenes.DefaultPilesParams()
	p.Settings.Sleep.On = false
	w, err := scenes.Piles(p)
	require.NoError(b, err)
	for range randomPileSteps {
		_, err := w.Step()
		require.NoError(b, err)
	}
	if os.Getenv("GORIGID_POOL_ALWAYS") != "" {
		stepper.PoolAlwaysSharesForTest(w)
	}
	return w
}

// BenchmarkPilesAwakeStretches runs BenchmarkPilesAwake's settled piles
// with every pool job's tasks run in turn on the caller and timed one by
// one (stepper.PoolTraceForTest), b.N steps, and reports the medians over
// the steps of: the step's time outside the jobs (serial-ns, the stages'
// serial parts), the longest stretch between two jobs of a step
// (longest-gap-ns: a helper that watched for work longer than
// poolLinger parks, and the next job waits for it to wake), the stretches
// over 50 µs (gaps-over-50us), and the jobs a step runs (jobs); model2-ns
// and model-ratio are the step on two workers as if each job's tasks were
// dealt, in order, to whichever of two workers is free first, with no
// cost to start or join a job (each task at its median time over the
// steps), over the step on one. The times are a single worker's, so the
// load of a shared machine moves them less than the helpers' overlap.
func BenchmarkPilesAwakeStretches(b *testing.B) {
	w := settledAwakePiles(b)
	type step struct {
		total, serial, longest time.Duration
		over                   int
		tasks                  [][]time.Duration
	}
	steps := make([]step, 0, b.N)
	var cur *step
	var last time.Time
	stepper.PoolTraceForTest(w, func(n int, task func(k int)) func(k int) {
		t0 := time.Now()
		if !last.IsZero() {
			gap := t0.Sub(last)
			cur.longest = max(cur.longest, gap)
			if gap > 50*time.Microsecond {
				cur.over++
			}
		}
		d := make([]time.Duration, n)
		for k := range n {
			s := time.Now()
			task(k)
			d[k] = time.Since(s)
		}
		cur.tasks = append(cur.tasks, d)
		last = time.Now()
		cur.serial -= last.Sub(t0)
		return nil
	})
	defer stepper.PoolTraceForTest(w, nil)
	b.ResetTimer()
	for range b.N {
		steps = append(steps, step{})
		cur, last = &steps[len(steps)-1], time.Time{}
		st, err := w.Step()
		require.NoError(b, err)
		cur.total = st.Timings.Total
		cur.serial += st.Timings.Total
	}
	b.StopTimer()
	med := func(f func(s *step) time.Duration) time.Duration {
		d := make([]time.Duration, len(steps))
		for i := range steps {
			d[i] = f(&steps[i])
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	serial := med(func(s *step) time.Duration { return s.serial })
	// Each task's median over the steps that ran the same jobs.
	var one, two time.Duration
	jobs := steps[0].tasks
	for j := range jobs {
		var fin [2]time.Duration
		for k := range jobs[j] {
			t := med(func(s *step) time.Duration {
				if j < len(s.tasks) && k < len(s.tasks[j]) {
					return s.tasks[j][k]
				}
				return 0
			})
			one += t
			fin[0] += t
			if fin[0] > fin[1] {
				fin[0], fin[1] = fin[1], fin[0]
			}
		}
		two += fin[1]
	}
	b.ReportMetric(float64(serial), "serial-ns")
	b.ReportMetric(float64(med(func(s *step) time.Duration { return s.longest })), "longest-gap-ns")
	b.ReportMetric(float64(med(func(s *step) time.Duration { return time.Duration(s.over) })), "gaps-over-50us")
	b.ReportMetric(float64(len(jobs)), "jobs")
	b.ReportMetric(float64(serial+two), "model2-ns")
	b.ReportMetric(float64(serial+two)/float64(serial+one), "model-ratio")
}
