package scenes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// A scene file's time step outside [stepper.MinH, stepper.MaxH]
// (FuzzLoadStep's seed h = 1e-300, whose first step reported +Inf J
// without an error): Load refuses it naming settings.h and the value,
// and accepts the bounds themselves, which step.
func TestLoadTimeStepRange(t *testing.T) {
	file := func(h string) string {
		return `{"version": 1, "settings": {"h": ` + h + `}, "bodies": [{"name": "a", "mass": 1, "shapes": [{"type": "sphere", "radius": 0.1}]}]}`
	}
	for _, c := range []struct {
		h    string
		v    float64
		want string
	}{
		{"1e-300", 1e-300, "f.json: settings.h: must be in [1e-09, 1000] s (stepper.MinH, stepper.MaxH), got 1e-300"},
		{"9e11", 9e11, "f.json: settings.h: must be in [1e-09, 1000] s (stepper.MinH, stepper.MaxH), got 9e+11"},
	} {
		_, err := scenes.Load(strings.NewReader(file(c.h)), "f.json")
		require.EqualError(t, err, c.want)
		var fe *num.FieldError
		require.True(t, errors.As(err, &fe), "%v", err)
		assert.Equal(t, c.v, fe.Value)
	}
	for _, h := range []string{"1e-9", "1000"} {
		w, err := scenes.Load(strings.NewReader(file(h)), "f.json")
		require.NoError(t, err, h)
		st, err := w.Step()
		require.NoError(t, err, h)
		assert.True(t, num.Finite(st.Kinetic), "h %s: kinetic %v", h, st.Kinetic)
		assert.True(t, w.Settings.H == stepper.MinH || w.Settings.H == stepper.MaxH)
	}
}
