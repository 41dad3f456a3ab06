package stepper

import (
	"fmt"
	"testing"
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
