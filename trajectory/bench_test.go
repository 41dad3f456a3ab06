package trajectory

import (
	"io"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// The cost of recording one step of the 30-brick wall (a frame of 30
// bodies and a statistics row), without the step itself: after the first
// frame the writers reuse their buffers and allocate nothing.
func BenchmarkRecordWall(b *testing.B) {
	sc, err := scenes.Lookup("brickwall")
	if err != nil {
		b.Fatal(err)
	}
	w, err := sc.Build(nil)
	if err != nil {
		b.Fatal(err)
	}
	st, err := w.Step()
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range []Format{CSV, JSON} {
		b.Run(f.String(), func(b *testing.B) {
			tw, err := NewWriter(io.Discard, f, w)
			if err != nil {
				b.Fatal(err)
			}
			sw, err := NewStatsWriter(io.Discard)
			if err != nil {
				b.Fatal(err)
			}
			record := func(st *stepper.Stats) {
				if err := tw.WriteFrame(w); err != nil {
					b.Fatal(err)
				}
				if err := sw.Write(st); err != nil {
					b.Fatal(err)
				}
			}
			record(&st) // grow the buffers
			b.ReportAllocs()
			for b.Loop() {
				record(&st)
			}
		})
	}
}

// The per-step memory check of Options.MaxMemory: one runtime/metrics
// read of the heap's object bytes, allocating nothing.
func BenchmarkHeapWatch(b *testing.B) {
	h := newHeapWatch()
	b.ReportAllocs()
	for b.Loop() {
		if h.bytes() <= 0 {
			b.Fatal("no heap")
		}
	}
}
