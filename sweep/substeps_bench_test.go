package sweep

import (
	"strconv"
	"testing"
)

// BenchmarkJobSubsteps times one job of the shipped push experiment e3
// (60 frames of 10 ms) at the scene's h and at h/16, the cost of the
// smoother objective (docs/calibration.md).
func BenchmarkJobSubsteps(b *testing.B) {
	set := map[string]string{"push_speed": "0.5", "push_distance": "0.06", "object_x": "0.02"}
	meas := []Frame{{Step: 60}}
	for _, sub := range []int{1, 16} {
		b.Run("substeps="+strconv.Itoa(sub), func(b *testing.B) {
			j := Job{Scene: "push", Set: set, Solver: "bpp", Steps: 60, Substeps: sub, AngleLength: 0.05, Measured: meas}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Run(&j); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
