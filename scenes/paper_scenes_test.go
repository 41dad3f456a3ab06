package scenes_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The registered rod and wall expose every field of their parameter
// structs, keep the paper's time steps and build what the functions build.
func TestPaperScenesRegistered(t *testing.T) {
	want := map[string][]string{
		"rod":       {"mass", "length", "radius", "torque", "gravity", "friction"},
		"brickwall": {"rows", "length", "depth", "height", "density", "gap", "friction"},
	}
	units := map[string]map[string]string{
		"rod":       {"mass": "kg", "length": "m", "radius": "m", "torque": "N·m", "gravity": "m/s²", "friction": ""},
		"brickwall": {"rows": "", "length": "m", "depth": "m", "height": "m", "density": "kg/m³", "gap": "m", "friction": ""},
	}
	for name, params := range want {
		s, err := scenes.Lookup(name)
		require.NoError(t, err)
		var got []string
		for _, p := range s.Params {
			got = append(got, p.Name)
			assert.Equal(t, units[name][p.Name], p.Unit, "%s %s", name, p.Name)
		}
		assert.Equal(t, params, got, name)
	}

	rod, err := scenes.Lookup("rod")
	require.NoError(t, err)
	w, err := rod.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, 0.01, w.Settings.H)
	assert.Equal(t, -9.81, w.Settings.Gravity[2])
	w, err = rod.Build(map[string]string{"mass": "2", "gravity": "1.62"})
	require.NoError(t, err)
	assert.Equal(t, 2.0, w.Bodies[0].Mass)
	assert.Equal(t, -1.62, w.Settings.Gravity[2])
	_, err = rod.Build(map[string]string{"friction": "-1"})
	assert.ErrorContains(t, err, "rod: --set friction=-1: friction must be ≥ 0")

	wall, err := scenes.Lookup("brickwall")
	require.NoError(t, err)
	w, err = wall.Build(nil)
	require.NoError(t, err)
	assert.Equal(t, 1.0/60, w.Settings.H)
	assert.Len(t, w.Bodies, 30)
	assert.True(t, math.Abs(w.Bodies[0].Mass-4) < 1e-12, "brick mass %v", w.Bodies[0].Mass)
	w, err = wall.Build(map[string]string{"rows": "3"})
	require.NoError(t, err)
	assert.Len(t, w.Bodies, 8)
	_, err = wall.Build(map[string]string{"rows": "0"})
	assert.ErrorContains(t, err, "brickwall: --set rows=0: rows must be ≥ 1")
}
