package stepper_test

import (
	"syscall"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// BenchmarkAssemblePyramid times Assemble alone on the rows of the
// 210-brick pyramid (base 20, 7 080 rows) after 3 steps: steady, into the
// world's own Assembly (A refilled into its kept pattern, as in a steady
// step), and cold, into a new Assembly (A's pattern built and every
// buffer allocated, as at step 1). It also reports the process's CPU time
// per op (cpu-ns/op, getrusage), steadier than the wall clock on a loaded
// machine.
func BenchmarkAssemblePyramid(b *testing.B) {
	p := scenes.DefaultPyramidParams()
	w, err := scenes.Pyramid(p)
	require.NoError(b, err)
	for range 3 {
		_, err := w.Step()
		require.NoError(b, err)
	}
	for _, cold := range []bool{false, true} {
		name := "steady"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			require.NoError(b, stepper.ReassembleForTest(w, cold))
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if err := stepper.ReassembleForTest(w, cold); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU returns the process's user and system CPU time in
// nanoseconds (getrusage RUSAGE_SELF).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
