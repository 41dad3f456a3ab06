package scenes_test

import (
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sleepScene is a 0.2 m box dropped 0.1 m onto a floor, with the settings
// object sleep.
func sleepScene(sleep string) string {
	return `{"version": 1, "settings": {"h": 0.01` + sleep + `},
  "world_shapes": [{"type": "plane", "material": {"friction": 0.5}}],
  "bodies": [{"name": "box", "mass": 1, "position": [0, 0, 0.2],
    "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2], "material": {"friction": 0.5}}]}]}`
}

// A scene file's sleep object turns sleeping on, its keys the thresholds
// (absent: stepper's defaults); without it sleeping is off, as in the
// built-in scenes. The box of sleepScene lands in 0.14 s (15 steps at
// h = 0.01 s) and sleeps ⌈time/h⌉ steps later: with "time": 0.2 at step
// 35 ± 1, with the default 0.5 s at step 65 ± 1; without the object it is
// awake after 2 s.
func TestSceneFileSleep(t *testing.T) {
	for _, c := range []struct {
		sleep string
		want  stepper.Sleep
		at    int // step at which the box sleeps, 0 = never
	}{
		{``, stepper.Sleep{}, 0},
		{`, "sleep": {}`, stepper.Sleep{On: true}, 65},
		{`, "sleep": {"time": 0.2, "linear_speed": 0.01, "angular_speed": 0.02}`, stepper.Sleep{On: true, Time: 0.2, LinearSpeed: 0.01, AngularSpeed: 0.02}, 35},
	} {
		spec, err := scenes.ReadSpec(strings.NewReader(sleepScene(c.sleep)), "sleep.json")
		require.NoError(t, err, c.sleep)
		w, err := spec.World()
		require.NoError(t, err)
		assert.Equal(t, c.want, w.Settings.Sleep, c.sleep)
		at := 0
		for s := 1; s <= 200 && at == 0; s++ {
			st, err := w.Step()
			require.NoError(t, err)
			if st.Sleeping == 1 {
				at = s
			}
		}
		if c.at == 0 {
			assert.Zero(t, at, "sleeping off")
		} else {
			assert.InDelta(t, c.at, at, 1, "%s: asleep at step %d", c.sleep, at)
		}
	}
}

// A bad threshold is an error naming its path.
func TestSceneFileSleepErrors(t *testing.T) {
	for sleep, want := range map[string]string{
		`, "sleep": {"time": -1}`:         "settings.sleep.time: must be finite and ≥ 0 s, got -1",
		`, "sleep": {"linear_speed": -2}`: "settings.sleep.linear_speed: must be finite and ≥ 0 m/s, got -2",
		`, "sleep": {"tme": 1}`:           "settings.sleep.tme: unknown key",
		`, "sleep": true`:                 "settings.sleep",
	} {
		_, err := scenes.ReadSpec(strings.NewReader(sleepScene(sleep)), "sleep.json")
		if err == nil {
			spec, _ := scenes.ReadSpec(strings.NewReader(sleepScene(sleep)), "sleep.json")
			_, err = spec.World()
		}
		require.Error(t, err, sleep)
		assert.Contains(t, err.Error(), want)
	}
}
