package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/require"
)

// BenchmarkRandomPile100Awake is BenchmarkRandomPile100Mean with sleeping
// off (Settings.Sleep.On = false): the 600 steps of the default random
// pile from its start, every box simulated to the end, as ODE's
// dWorldStep without auto-disable (testdata/peers/ode_pile.c without
// "sleep"). It reports ns per step.
func BenchmarkRandomPile100Awake(b *testing.B) {
	b.ReportAllocs()
	ops := 0
	for b.Loop() {
		w, err := scenes.RandomPile(scenes.DefaultRandomPileParams())
		require.NoError(b, err)
		w.Settings.Sleep.On = false
		for range randomPileSteps {
			_, err := w.Step()
			require.NoError(b, err)
		}
		ops++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops*randomPileSteps), "ns/step")
}
