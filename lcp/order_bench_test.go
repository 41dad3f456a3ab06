package lcp_test

import (
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// The structural flops and nnz L of a settled scene's K̃ (the face of its
// last solve) under the minimum degree order the factor uses (md-) and
// under the structured order that eliminates every constraint row first,
// then the bodies by minimum degree on the body graph (rowsfirst-; see
// lcp.KKTOrderings). The structured order would cost almost nothing to
// compute (the body graph has 6 rows a body), but on the 496-brick
// pyramid its factor is 3.9 % more flops (13.00 M against 12.52 M) and
// 0.7 % more nnz L: minimum degree eliminates some bodies before the last
// rows that touch them. It stays, with its ~3 ms per new pattern.
func BenchmarkKKTOrderingRowsFirst(b *testing.B) {
	for _, sc := range []struct {
		name       string
		rows, base int
	}{{"wall30", 12, 0}, {"wall100", 40, 0}, {"pyramid55", 0, 10}, {"pyramid210", 0, 20}, {"pyramid496", 0, 31}} {
		prob, res := settledFace(b, wallOrPyramid(b, sc.rows, sc.base), 5)
		b.Run(sc.name, func(b *testing.B) {
			var md, mn, rf, rn int
			for b.Loop() {
				md, mn, rf, rn = lcp.KKTOrderings(prob, res.States)
			}
			b.ReportMetric(float64(md), "md-flops")
			b.ReportMetric(float64(mn), "md-nnzL")
			b.ReportMetric(float64(rf), "rowsfirst-flops")
			b.ReportMetric(float64(rn), "rowsfirst-nnzL")
			b.ReportMetric(float64(rf)/float64(md), "flops-ratio")
		})
	}
}

// BenchmarkKKTAnalyze/pyramid496's analysis into a new factor each time,
// its arrays allocated again: what step 1 pays for its first pattern
// (10.3 ms of CPU and 21 MB in 96 allocations against 7.2 ms reusing the
// arrays, measured on the loaded 2-core machine).
func BenchmarkKKTAnalyzeCold(b *testing.B) {
	prob, res := settledFace(b, wallOrPyramid(b, 0, 31), 5)
	analyze := lcp.KKTAnalyzeCold(prob, res.States)
	b.ReportAllocs()
	nnzL, sn := 0, false
	c0 := lcp.ProcessCPU()
	for b.Loop() {
		nnzL, sn = analyze()
	}
	b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(nnzL), "nnzL")
	if !sn {
		b.Fatal("the cold analysis did not choose supernodes, as the step's factor does")
	}
}
