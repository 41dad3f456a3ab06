package scenes_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default pyramid has 31 + 30 + … + 1 = 496 bricks of 4 kg; the top
// brick sits 30 brick heights up, centred over x = 0.
func TestPyramidLayout(t *testing.T) {
	w, err := scenes.Pyramid(scenes.DefaultPyramidParams())
	require.NoError(t, err)
	require.Len(t, w.Bodies, 496)
	assert.InDelta(t, 4.0, w.Bodies[0].Mass, 1e-12)
	top := w.Bodies[495].Pos
	assert.InDelta(t, 0, top.X(), 1e-12)
	assert.InDelta(t, 0.05+30*0.1, top.Z(), 1e-12)
	// Neighbours in a row touch: the bottom row spans 31 brick lengths.
	assert.InDelta(t, 30*0.2, w.Bodies[30].Pos.X()-w.Bodies[0].Pos.X(), 1e-12)
}

// A 6-row pyramid (21 bricks) stands: after 60 steps (1 s) no brick has
// moved 1 mm (the brick wall's criterion). Every brick touches its
// neighbours end to end, so the contact rows are redundant sideways as well
// as downwards; no step may need the default budget.
func TestPyramidStands(t *testing.T) {
	p := scenes.DefaultPyramidParams()
	p.Base = 6
	w, err := scenes.Pyramid(p)
	require.NoError(t, err)
	require.Len(t, w.Bodies, 21)
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	for i := 0; i < 60; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.False(t, st.BudgetHit, "step %d", i+1)
	}
	worst := 0.0
	for i, b := range w.Bodies {
		worst = math.Max(worst, b.Pos.Sub(start[i]).Len())
	}
	t.Logf("max brick displacement after 60 steps: %.3g m", worst)
	assert.Less(t, worst, 1e-3)
}

func TestPyramidErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*scenes.PyramidParams)
		want string
	}{
		{func(p *scenes.PyramidParams) { p.Base = 0 }, "pyramid: Base: must be in [1, 200], got 0"},
		{func(p *scenes.PyramidParams) { p.Height = 0 }, "pyramid: Height: must be finite and > 0 m, got 0"},
		{func(p *scenes.PyramidParams) { p.Friction = -1 }, "pyramid: Friction: must be finite and ≥ 0, got -1"},
	} {
		p := scenes.DefaultPyramidParams()
		c.mod(&p)
		_, err := scenes.Pyramid(p)
		assert.EqualError(t, err, c.want)
	}
	s, err := scenes.Lookup("pyramid")
	require.NoError(t, err)
	_, err = s.Build(map[string]string{"base": "0"})
	assert.ErrorContains(t, err, "base")
}
