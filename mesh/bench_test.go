package mesh

import "testing"

// BenchmarkHullRandom1000: the hull of 1 000 points uniform in the unit
// ball (about 120 of them on the hull).
func BenchmarkHullRandom1000(b *testing.B) {
	pts := ballPoints(1000, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewHull(pts, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHullIcosphere642: the hull of a 642-vertex icosphere, every
// point a vertex (1 280 faces).
func BenchmarkHullIcosphere642(b *testing.B) {
	pts := icosphere(3, 1).Vertices
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewHull(pts, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHullMassProperties642: the mass properties of that hull.
func BenchmarkHullMassProperties642(b *testing.B) {
	h, err := NewHull(icosphere(3, 1).Vertices, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		h.MassProperties(1000)
	}
}
