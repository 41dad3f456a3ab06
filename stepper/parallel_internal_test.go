package stepper

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
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
				cs.points, cs.pts = w.narrowPairs(cs.points[:0], cs.pts, pairs, margin, free)
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
// 0.1 ms (beyond poolLinger: the helpers exit and are started again)
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
