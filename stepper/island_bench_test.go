package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/require"
)

// BenchmarkPilesAwake times one step of the piles scene's default (four
// random piles of 100 boxes, scenes.DefaultPilesParams) with sleeping off,
// after the 600 steps in which the piles land and settle: every box is in
// the step's MLCP, split into a few hundred islands (a box alone on the
// ground is one; the largest are a few dozen rows) that the pool solves on
// up to GOMAXPROCS goroutines. BenchmarkPiles4 times the same scene with
// sleeping on, in which every settled box sleeps and the step solves
// nothing. Run it with -cpu 1,2 for the ratio of the wall-clock times.
func BenchmarkPilesAwake(b *testing.B) {
	p := scenes.DefaultPilesParams()
	p.Settings.Sleep.On = false
	w, err := scenes.Piles(p)
	require.NoError(b, err)
	benchSteady(b, w, randomPileSteps)
}
