package scenes_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The default wall has 30 bricks of 4 kg in 12 rows and ~188 contact
// points resting face on face (4 per brick-on-brick or brick-on-ground
// overlap: 12 on the ground, 11 row interfaces × 4 overlaps × 4).
func TestBrickWallLayout(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(t, err)
	require.Len(t, w.Bodies, 30)
	assert.InDelta(t, 4.0, w.Bodies[0].Mass, 1e-12)
	st, err := w.Step()
	require.NoError(t, err)
	assert.Equal(t, 188, st.Contacts)
	assert.Equal(t, 3*188, st.Rows)
}

// The wall stands under exact block pivoting. The full 500-step run is
// `sim study brickwall`; 100 steps (1.7 s) here keep go test fast.
func TestBrickWallStands(t *testing.T) {
	p := scenes.DefaultBrickWallParams()
	w, err := scenes.BrickWall(p)
	require.NoError(t, err)
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	steps := 100
	if testing.Short() {
		steps = 20
	}
	for i := 0; i < steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	worst := 0.0
	for i, b := range w.Bodies {
		d := 0.0
		for c := 0; c < 3; c++ {
			d += (b.Pos[c] - start[i][c]) * (b.Pos[c] - start[i][c])
		}
		worst = math.Max(worst, math.Sqrt(d))
	}
	t.Logf("max brick displacement after %d steps: %.3g m", steps, worst)
	assert.Less(t, worst, 1e-3)
}

func TestBrickWallErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*scenes.BrickWallParams)
		want string
	}{
		{func(p *scenes.BrickWallParams) { p.Rows = 0 }, "brickwall: Rows: must be in [1, 1000], got 0"},
		{func(p *scenes.BrickWallParams) { p.Depth = -0.1 }, "brickwall: Depth: must be finite and > 0 m, got -0.1"},
		{func(p *scenes.BrickWallParams) { p.Friction = math.NaN() }, "brickwall: Friction: must be finite and ≥ 0, got NaN"},
		{func(p *scenes.BrickWallParams) { p.Gap = math.Inf(1) }, "brickwall: Gap: must be finite and ≥ 0 m, got +Inf"},
	} {
		p := scenes.DefaultBrickWallParams()
		c.mod(&p)
		_, err := scenes.BrickWall(p)
		assert.EqualError(t, err, c.want)
	}
}
