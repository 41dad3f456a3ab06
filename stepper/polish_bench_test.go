package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/scenes"
)

// BenchmarkForkliftBudgetedStep times one forklift step (81 rows) under a
// budget of 15 pivots with the energy pick, with 5 polish sweeps, and with
// the energy-exact pick (a dense pseudoinverse per step), from step 101 on
// (each rule on its own trajectory, so the steps are not identical).
func BenchmarkForkliftBudgetedStep(b *testing.B) {
	for _, c := range []struct {
		name   string
		pick   errmeasure.Measure
		polish int
	}{
		{"energy", errmeasure.Energy, 0},
		{"energy+polish5", errmeasure.Energy, 5},
		{"energy-exact", errmeasure.EnergyExact, 0},
		{"energy-exact+polish5", errmeasure.EnergyExact, 5},
	} {
		b.Run(c.name, func(b *testing.B) {
			w, err := scenes.Forklift(scenes.DefaultForkliftParams())
			if err != nil {
				b.Fatal(err)
			}
			w.Settings.Budget, w.Settings.Pick, w.Settings.Polish = 15, c.pick, c.polish
			for i := 0; i < 100; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
