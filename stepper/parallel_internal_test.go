package stepper

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorigid/gorigid/constraint"
)

// BenchmarkWorkPoolJob times an empty job of two tasks on the workPool:
// what a stage pays to run on a second worker at all (start the worker,
// hand out the tasks, join). Run with -cpu 2; with one worker the tasks
// run in a loop and it measures nothing.
func BenchmarkWorkPoolJob(b *testing.B) {
	var p workPool
	n := 0
	task := func(int) { n++ }
	b.ReportAllocs()
	for b.Loop() {
		p.do(2, task)
	}
	_ = n
}

// settledPile returns pile(k) after three steps, its contact set and rows
// built.
func settledPile(b *testing.B, k int) *World {
	w := pile(b, k)
	for range 3 {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
	return w
}

// BenchmarkNarrowPhase times the narrow phase of a k×k×k pile of boxes
// (k² ground pairs and k²(k−1) stacked pairs, four points each) in one
// loop (serial) and in chunks on the workPool (pool): with -cpu 2 the
// sizes at which the pool starts to pay give narrowParallelPairs.
func BenchmarkNarrowPhase(b *testing.B) {
	for _, k := range []int{3, 4, 5, 6, 8} {
		w := settledPile(b, k)
		cs := &w.ws.contacts
		pairs := append([][2]int(nil), cs.pairs...)
		free, margin := &w.ws.mass, w.margin()
		b.Run(fmt.Sprintf("pairs=%d/serial", len(pairs)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cs.points, cs.pts = w.narrowPairs(cs.points[:0], cs.pts, pairs, 0, margin, free)
			}
		})
		b.Run(fmt.Sprintf("pairs=%d/pool", len(pairs)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cs.points = w.narrowChunks(cs.points[:0], pairs, margin, free)
			}
		})
	}
}

// BenchmarkContactRows times fillContactRows' work on a k×k×k pile in one
// loop (serial) and in chunks on the workPool (pool), for
// rowParallelPoints.
func BenchmarkContactRows(b *testing.B) {
	for _, k := range []int{3, 4, 5, 6, 8} {
		w := settledPile(b, k)
		cs, rs, m := &w.ws.contacts, &w.ws.build, &w.ws.mass
		nj := rs.nj
		rows, start := rs.rows[nj:], rs.start[nj:]
		b.Run(fmt.Sprintf("points=%d/serial", len(cs.points)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.fillContactRange(m, cs, nj, rows, start, 0, len(cs.points), 0)
			}
		})
		b.Run(fmt.Sprintf("points=%d/pool", len(cs.points)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w.fillContactChunks(m, cs, nj, rows, start)
			}
		})
	}
}

// TestWorkPoolRunsEachTaskOnce: 3 000 jobs of 1 to 64 tasks on one pool,
// GOMAXPROCS moving among 1, 2 and 4 every 100 jobs and a pause of
// 0.1 ms (beyond poolLinger: the helpers park and are woken again)
// every 7 jobs: when do returns, every task of its job has run exactly
// once, its write visible, and no task of another job ran meanwhile.
func TestWorkPoolRunsEachTaskOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var p workPool
	runs := make([]atomic.Int32, 64)
	var job atomic.Int32
	seen := make([]int32, 64)
	for j := range 3000 {
		if j%100 == 0 {
			runtime.GOMAXPROCS([]int{1, 2, 4}[j/100%3])
		}
		if j%7 == 0 {
			time.Sleep(100 * time.Microsecond)
		}
		n := 1 + j*37%64
		job.Store(int32(j))
		p.do(n, func(k int) {
			seen[k] = job.Load()
			runs[k].Add(1)
		})
		for k := range n {
			if r := runs[k].Swap(0); r != 1 || seen[k] != int32(j) {
				t.Fatalf("job %d (%d tasks, GOMAXPROCS %d): task %d ran %d times, last in job %d", j, n, runtime.GOMAXPROCS(0), k, r, seen[k])
			}
		}
		for k := n; k < len(runs); k++ {
			if r := runs[k].Load(); r != 0 {
				t.Fatalf("job %d (%d tasks): task %d outside the job ran %d times", j, n, k, r)
			}
		}
	}
}

// helpersExit fails t unless the helpers of the pool core core (fmt's %p),
// whose owner the caller dropped, exit within 5 s of garbage collections.
func helpersExit(t *testing.T, core string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for helperCount(core) > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := helperCount(core); got != 0 {
		t.Errorf("%d helpers still running 5 s after their owner was dropped, want 0", got)
	}
}

// startedHelpers returns helperCount(core) once it reaches want, or after
// 5 s. A helper counts once its loop has run: a goroutine started but not
// yet scheduled shows only the method value's wrapper in the dump, without
// the core's address, and on a loaded machine (4 Ps on 2 cores in CI) a
// helper of the first job may not have run when the job returns.
func startedHelpers(core string, want int) int {
	got := helperCount(core)
	for deadline := time.Now().Add(5 * time.Second); got < want && time.Now().Before(deadline); got = helperCount(core) {
		time.Sleep(time.Millisecond)
	}
	return got
}

// helperCount returns the number of goroutines running the helpers of
// the pool core whose address is core (fmt's %p), from the goroutine dump.
func helperCount(core string) int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	return strings.Count(string(buf), "stepper.(*poolCore).helper("+core)
}

// TestWorkPoolHelpersPark: jobs of 8 tasks at GOMAXPROCS 4, each after a
// pause of 1 ms (20 times poolLinger, so the helpers have parked), start
// the 3 helpers once and then wake them: the helpers counted in the
// goroutine dump stay 3, and the jobs after the first allocate nothing
// (testing.AllocsPerRun, 50 jobs; a helper started again for a job
// allocates its goroutine when the runtime has no exited one to reuse,
// the sporadic 1–3 allocations of the pyramid benchmarks at -benchtime
// 5x). Dropping the pool's owner lets a garbage collection run its
// cleanup: the helpers exit (counted again, within 5 s of collections).
func TestWorkPoolHelpersPark(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	type owner struct {
		_    [3]int
		pool workPool
	}
	o := &owner{}
	var ran atomic.Int32
	task := func(int) { ran.Add(1) }
	o.pool.do(8, task)
	core := fmt.Sprintf("%p", o.pool.c)
	allocs := testing.AllocsPerRun(50, func() {
		time.Sleep(time.Millisecond)
		o.pool.do(8, task)
	})
	if allocs != 0 {
		t.Errorf("a job after the helpers parked: %v allocations, want 0", allocs)
	}
	if got := ran.Load(); got != 8*52 {
		t.Errorf("%d tasks ran, want %d", got, 8*52)
	}
	if got := startedHelpers(core, 3); got != 3 {
		t.Errorf("%d helpers after 52 jobs at GOMAXPROCS 4, want 3", got)
	}
	// o is not used after its last job: without this a collection during
	// the count (helperCount allocates its dump buffer) could run the
	// pool's cleanup and the helpers would exit before they are counted.
	runtime.KeepAlive(o)
	o = nil
	helpersExit(t, core)
}

// TestDroppedWorldStopsHelpers: a 7×7×7 pile of boxes (343 bodies, above
// bodyParallel) stepped twice at GOMAXPROCS 2 runs its passes on the
// World's pool, which starts one helper; once the World is unreachable, a
// garbage collection runs the pool's cleanup and the helper exits (within
// 5 s of collections), so Worlds made and dropped in a loop do not pile
// up goroutines.
func TestDroppedWorldStopsHelpers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	w := pile(t, 7)
	for range 2 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if w.ws.pool.c == nil {
		t.Fatal("the pile's steps ran no job on the pool")
	}
	core := fmt.Sprintf("%p", w.ws.pool.c)
	if got := startedHelpers(core, 1); got != 1 {
		t.Fatalf("%d helpers after the steps at GOMAXPROCS 2, want 1", got)
	}
	runtime.KeepAlive(w) // alive while counted (TestWorkPoolHelpersPark)
	w = nil
	helpersExit(t, core)
}

// TestFirstNonFiniteAnyGOMAXPROCS: in a 7×7×7 pile (343 bodies, above
// bodyParallel, so the check runs in chunks of 64 on the pool) with body
// 300's position and body 200's angular velocity made not finite, the
// first such body in body order, 200, is the one checkFinite names, under
// GOMAXPROCS 1, 2 and 4; with both repaired none is found.
func TestFirstNonFiniteAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	w := pile(t, 7)
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	pos, av := w.Bodies[300].Pos, w.Bodies[200].AngVel
	w.Bodies[300].Pos[0] = math.Inf(1)
	w.Bodies[200].AngVel[1] = math.NaN()
	for _, p := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(p)
		if i := w.firstNonFinite(); i != 200 {
			t.Errorf("GOMAXPROCS %d: first body not finite %d, want 200", p, i)
		}
		err := w.checkFinite("in the test")
		if err == nil || !strings.Contains(err.Error(), "body 200 ") {
			t.Errorf("GOMAXPROCS %d: checkFinite = %v, want an error naming body 200", p, err)
		}
	}
	w.Bodies[300].Pos, w.Bodies[200].AngVel = pos, av
	if i := w.firstNonFinite(); i != -1 {
		t.Errorf("repaired: first body not finite %d, want -1", i)
	}
}

// A pool whose process gets no more than one core's worth of CPU time over
// a window (here a process clock that runs as fast as the wall clock) runs
// the next poolProbe−1 windows' jobs on the caller alone: no two tasks at
// once, the tasks in order. The window after them measures again and, at
// two cores' worth (a clock running twice as fast), keeps its helpers,
// which then run tasks beside the caller (tasks that sleep 100 µs, so a
// helper takes one even on a loaded machine).
func TestWorkPoolAloneWhenStarved(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var p workPool
	t0, rate := time.Now(), 1.0
	p.processCPU = func() (time.Duration, bool) {
		return time.Duration(rate * float64(time.Since(t0))), true
	}
	var running, most atomic.Int32
	var order []int
	task := func(sleep bool) func(int) {
		return func(k int) {
			if r := running.Add(1); r > most.Load() {
				most.Store(r) // racy max: only ever raised above 1 by a second worker
			}
			if sleep {
				time.Sleep(100 * time.Microsecond)
			}
			order = append(order, k) // a data race, caught by -race, unless the tasks run in turn
			running.Add(-1)
		}
	}
	for range poolWindow { // the measuring window, at one core's worth
		order = order[:0]
		p.do(2, func(int) {})
	}
	if p.alone != poolProbe {
		t.Fatalf("after a window at one core's worth: %d windows alone, want %d", p.alone, poolProbe)
	}
	for w := range poolProbe - 1 {
		for j := range poolWindow {
			order = order[:0]
			p.do(8, task(j%16 == 0))
			if len(order) != 8 || !slices.IsSorted(order) || order[0] != 0 || order[7] != 7 {
				t.Fatalf("window %d alone, job %d: tasks ran in order %v, want 0…7", w+1, j, order)
			}
		}
	}
	if m := most.Load(); m != 1 {
		t.Fatalf("windows alone: %d tasks ran at once, want 1", m)
	}
	rate = 2
	t0 = time.Now()
	var seen atomic.Int32
	for range poolWindow {
		p.do(4, func(int) {
			if r := running.Add(1); r > 1 {
				seen.Store(r)
			}
			time.Sleep(100 * time.Microsecond)
			running.Add(-1)
		})
	}
	if p.alone != 0 {
		t.Fatalf("after a window at two cores' worth: %d windows alone, want 0", p.alone)
	}
	if seen.Load() < 2 {
		t.Fatal("the probing window ran no two tasks at once: its helpers took none")
	}
}

// A caller that pauses between jobs longer than poolGap (a game loop
// waiting for its next frame) gets no window measured, even at one core's
// worth over the jobs: its CPU time over the window's wall-clock time
// would count the pauses as cores the helpers lack. It keeps its helpers.
func TestWorkPoolPausesMeasureNothing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var p workPool
	t0 := time.Now()
	p.processCPU = func() (time.Duration, bool) { return time.Since(t0) / 2, true }
	for range poolWindow + 8 {
		time.Sleep(poolGap + poolGap/2)
		p.do(2, func(int) {})
	}
	if p.alone != 0 || p.jobs > 1 {
		t.Fatalf("jobs %v apart: %d windows alone, %d jobs in the window, want 0 and at most 1", poolGap+poolGap/2, p.alone, p.jobs)
	}
	for range poolWindow - p.jobs { // the same jobs back to back complete the window
		p.do(2, func(int) {})
	}
	if p.alone != poolProbe {
		t.Fatalf("jobs back to back at half a core: %d windows alone, want %d", p.alone, poolProbe)
	}
}

// The rows' layout check on the workPool (Assembly.checkLayout, in chunks
// of layoutChunk rows) gives sameLayout's verdict, recorded layout and
// error at GOMAXPROCS 1, 2 and 4, on the rows of a 343-box pile after one
// step (thousands of rows, several chunks): the same rows (same), a body
// changed in the third chunk or in the last row, a row fewer (each
// differs, and the new layout is recorded), and two bad rows, in the
// fourth chunk and the second, the error naming the earlier (row 600),
// as the serial check's does.
func TestCheckLayoutAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	w := pile(t, 7)
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	m := &w.ws.mass
	rows := slices.Clone(w.ws.build.rows)
	if len(rows) < max(rowParallel, 4*layoutChunk) {
		t.Fatalf("%d rows, want at least %d", len(rows), max(rowParallel, 4*layoutChunk))
	}
	other := func(r *constraint.Row) { // another dynamic body than the row's first
		r.Body[r.N-1] = (r.Body[r.N-1] + 1) % len(m.Bodies)
	}
	variants := []struct {
		name string
		edit func(rs []constraint.Row) []constraint.Row
	}{
		{"same", func(rs []constraint.Row) []constraint.Row { return rs }},
		{"third chunk", func(rs []constraint.Row) []constraint.Row { other(&rs[2*layoutChunk+7]); return rs }},
		{"last row", func(rs []constraint.Row) []constraint.Row { other(&rs[len(rs)-1]); return rs }},
		{"a row fewer", func(rs []constraint.Row) []constraint.Row { return rs[:len(rs)-1] }},
		{"bad rows", func(rs []constraint.Row) []constraint.Row {
			rs[3*layoutChunk+5].Body[0] = -1
			rs[600].N = constraint.MaxBodies + 1
			return rs
		}},
	}
	for _, p := range []int{1, 2, 4} {
		runtime.GOMAXPROCS(p)
		for _, v := range variants {
			var ref, got Assembly
			got.par = w.forRange
			if _, err := ref.sameLayout(m, rows); err != nil {
				t.Fatal(err)
			}
			if err := got.checkLayout(m, rows); err != nil {
				t.Fatal(err)
			}
			ref.layOK, got.layOK = true, true // as after an Assemble of rows
			got.pre.set = false
			edited := v.edit(slices.Clone(rows))
			want, werr := ref.sameLayout(m, edited)
			gerr := got.checkLayout(m, edited)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("GOMAXPROCS %d, %s: error %v, want %v", p, v.name, gerr, werr)
				continue
			}
			if werr != nil {
				if !strings.HasPrefix(werr.Error(), "row 600: ") || got.pre.set {
					t.Errorf("GOMAXPROCS %d, %s: error %v (verdict kept %v), want row 600's and no verdict", p, v.name, werr, got.pre.set)
				}
				continue
			}
			if !got.pre.set || got.pre.same != want || want != (v.name == "same") {
				t.Errorf("GOMAXPROCS %d, %s: verdict %v (set %v), sameLayout's %v", p, v.name, got.pre.same, got.pre.set, want)
			}
			if !slices.Equal(got.layout.rows, ref.layout.rows) || got.layout.n != len(edited) {
				t.Errorf("GOMAXPROCS %d, %s: recorded layout differs from sameLayout's", p, v.name)
			}
			if same, _ := got.layoutVerdict(m, edited); same != want || got.pre.set {
				t.Errorf("GOMAXPROCS %d, %s: Assemble's verdict %v, want %v once", p, v.name, same, want)
			}
		}
	}
}

// The projection's recorded narrow phase (pairReuse: its points, pairs,
// index by first geom and poses) and the step's island statistics
// (Stats.Islands and the totals gatherIslands sums from each island's
// islandSum) are the same on one worker, where the recording is written
// in one pass after the narrow phase and the islands' solves run in
// order, as on two, where each chunk of pairs records itself in the
// narrow phase's copy task and each island's task writes its own summary:
// the 36-box pile of cancelPile falling, landing and settling, 90 steps,
// compared after every step. The comparison is exact (bits): both record
// and sum the same values in the same order. It also checks that the
// recording holds (complete, over 100 pairs, the 144-pair pile runs in
// chunks at two workers) at the end, so that the comparison compares
// something.
func TestRecordingAndIslandSumsAnyGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	one, two := cancelPile(t, 6), cancelPile(t, 6)
	for s := 1; s <= 90; s++ {
		runtime.GOMAXPROCS(1)
		st1, err := one.Step()
		if err != nil {
			t.Fatal(err)
		}
		runtime.GOMAXPROCS(2)
		st2, err := two.Step()
		if err != nil {
			t.Fatal(err)
		}
		r1, r2 := &one.ws.contacts.reuse, &two.ws.contacts.reuse
		if r1.ok != r2.ok || r1.complete != r2.complete || r1.margin != r2.margin ||
			!slices.Equal(r1.pairs, r2.pairs) || (r1.ok && (!slices.Equal(r1.first, r2.first) ||
			!slices.Equal(r1.pts, r2.pts) || !slices.Equal(r1.geoms, r2.geoms))) {
			t.Fatalf("step %d: the recordings differ (ok %v, %v; %d, %d pairs; %d, %d points)", s, r1.ok, r2.ok, len(r1.pairs), len(r2.pairs), len(r1.pts), len(r2.pts))
		}
		if !slices.Equal(st1.Islands, st2.Islands) || st1.Errors != st2.Errors || st1.LastErrors != st2.LastErrors ||
			math.Float64bits(st1.Bound) != math.Float64bits(st2.Bound) || st1.Safeguard != st2.Safeguard ||
			st1.Iterations != st2.Iterations || st1.Status != st2.Status || st1.PolishSweeps != st2.PolishSweeps {
			t.Fatalf("step %d: the island statistics differ:\n%+v\n%+v", s, st1.Islands, st2.Islands)
		}
	}
	r := &two.ws.contacts.reuse
	if !r.complete || len(r.pairs) < 100 || len(r.pts) == 0 {
		t.Errorf("the last recording: complete %v, %d pairs, %d points; want a complete one of over 100 pairs", r.complete, len(r.pairs), len(r.pts))
	}
	t.Logf("last recording: %d pairs, %d points; %d islands", len(r.pairs), len(r.pts), len(two.ws.islands.stats))
}
