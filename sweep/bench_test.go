package sweep

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// benchJobs returns n jobs of the test spec (40 steps of the push scene
// each, bpp).
func benchJobs(b *testing.B, n int) ([]Job, *Spec) {
	b.Helper()
	spec := parseTestSpec(b, testSpec)
	jobs, err := spec.Jobs(BuildID())
	if err != nil {
		b.Fatal(err)
	}
	out := make([]Job, 0, n)
	for len(out) < n {
		for _, j := range jobs {
			if j.Solver == "bpp" && len(out) < n {
				out = append(out, j)
			}
		}
	}
	return out, spec
}

// BenchmarkPlainLoop runs the jobs one after another in this process:
// the baseline of the queue's overhead. Reports jobs/s.
func BenchmarkPlainLoop(b *testing.B) {
	jobs, _ := benchJobs(b, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		RunLocal(jobs)
	}
	b.ReportMetric(float64(len(jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(len(jobs)*b.N), "µs/job")
}

// BenchmarkQueue runs the same jobs through the embedded JetStream
// server with 1, 2 and 4 in-process workers; each iteration is a fresh
// sweep (unique job ids). Reports jobs/s and µs per job; the queue's
// overhead per job is µs/job (1 worker) minus the plain loop's.
func BenchmarkQueue(b *testing.B) {
	for _, workers := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			jobs, spec := benchJobs(b, 100)
			s, err := Open(spec, Options{Out: b.TempDir(), Workers: workers})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				batch := make([]Job, len(jobs))
				copy(batch, jobs)
				for k := range batch {
					batch[k].ID = fmt.Sprintf("b%d-%d-%d", workers, i, k)
				}
				if _, err := s.Run(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(len(jobs)*b.N), "µs/job")
		})
	}
}
