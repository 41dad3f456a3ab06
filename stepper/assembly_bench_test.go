package stepper_test

import (
	"syscall"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// BenchmarkAssemblePyramid times Assemble alone on the rows of the
// 496-brick pyramid (scenes.DefaultPyramidParams: base 31, 17 112 rows)
// after 3 steps: steady, into the world's own Assembly (A refilled into
// its kept pattern, as in a steady step), and cold, into a new Assembly
// (A's pattern built and every buffer allocated, as at step 1). It also
// reports the process's CPU time per op (cpu-ns/op, getrusage), steadier
// than the wall clock on a loaded machine.
func BenchmarkAssemblePyramid(b *testing.B) { benchAssemblePyramid(b, 31) }

// BenchmarkAssemblePyramid210 is BenchmarkAssemblePyramid on the
// 210-brick pyramid (base 20, 7 080 rows), the scene of
// BenchmarkPyramidStep1.
func BenchmarkAssemblePyramid210(b *testing.B) { benchAssemblePyramid(b, 20) }

func benchAssemblePyramid(b *testing.B, base int) {
	p := scenes.DefaultPyramidParams()
	p.Base = base
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

// Step 1's assembly of the 55-brick pyramid and of the 30-brick wall
// (every contact new: A's pattern built from the bodies' rows,
// lcp.Sparse.ResetCliques) equals A recorded call by call and compressed
// by lcp.Sparse.Finish (the assembly before the first fill), entry by
// entry, bit for bit; so do step 2's refill of that pattern, a new
// Assembly's first fill of step 2's rows and a first fill into an
// Assembly that held another layout (stepper.FirstFillForTest).
func TestFirstFillSameBits(t *testing.T) {
	pyr := scenes.DefaultPyramidParams()
	pyr.Base = 10
	wall := scenes.DefaultBrickWallParams()
	wall.Rows = 12
	for _, c := range []struct {
		name  string
		build func() (*stepper.World, error)
	}{
		{"pyramid55", func() (*stepper.World, error) { return scenes.Pyramid(pyr) }},
		{"wall30", func() (*stepper.World, error) { return scenes.BrickWall(wall) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := c.build()
			require.NoError(t, err)
			for step := 1; step <= 2; step++ {
				_, err := w.Step()
				require.NoError(t, err)
				filled, refilled, err := stepper.FirstFillForTest(w)
				require.NoError(t, err, "step %d", step)
				require.Equal(t, step == 1, filled, "step %d: A's pattern built from the cliques", step)
				require.Equal(t, step == 2, refilled, "step %d: A refilled into the last step's pattern", step)
			}
		})
	}
}

// The user's case of the first fill: 30 random boxes dropped with
// stepper.DefaultSettings (h = 1/60 s, sleeping on), 90 steps of falls,
// landings and settling, whose contact layout changes on most steps while
// boxes land. After every step the world's A equals A recorded call by
// call, whether the step built its pattern from the cliques or refilled
// the last one, and both paths are taken.
func TestFirstFillSameBitsDroppedPile(t *testing.T) {
	p := scenes.DefaultRandomPileParams()
	p.Boxes = 30
	w, err := scenes.RandomPile(p)
	require.NoError(t, err)
	fills, refills := 0, 0
	for step := 1; step <= 90; step++ {
		_, err := w.Step()
		require.NoError(t, err)
		filled, refilled, err := stepper.FirstFillForTest(w)
		require.NoError(t, err, "step %d", step)
		if filled {
			fills++
		}
		if refilled {
			refills++
		}
	}
	t.Logf("90 steps: %d first fills, %d refills", fills, refills)
	require.Positive(t, fills, "steps that built A's pattern from the cliques")
	require.Positive(t, refills, "steps that refilled the last pattern")
}
