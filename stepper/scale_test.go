package stepper_test

import (
	"fmt"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/require"
)

// Step 1 of a brick wall built at rest (the cold start: every contact is
// new, the new-contact pre-solve and the main solve start from scratch).
func BenchmarkWallStep1(b *testing.B) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		b.Run(fmt.Sprintf("bricks=%d", c.bricks), func(b *testing.B) {
			p := scenes.DefaultBrickWallParams()
			p.Rows = c.rows
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				b.StopTimer()
				w, err := scenes.BrickWall(p)
				require.NoError(b, err)
				b.StartTimer()
				st, err := w.Step()
				require.NoError(b, err)
				iters += st.Iterations
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
		})
	}
}

// A steady brick-wall step: the wall after 60 steps (1 s) of settling.
func BenchmarkWallSteady(b *testing.B) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		b.Run(fmt.Sprintf("bricks=%d", c.bricks), func(b *testing.B) {
			p := scenes.DefaultBrickWallParams()
			p.Rows = c.rows
			w, err := scenes.BrickWall(p)
			require.NoError(b, err)
			for i := 0; i < 60; i++ {
				_, err := w.Step()
				require.NoError(b, err)
			}
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				st, err := w.Step()
				require.NoError(b, err)
				iters += st.Iterations
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
		})
	}
}
