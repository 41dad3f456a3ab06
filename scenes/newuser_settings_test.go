package scenes_test

import (
	"path/filepath"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new user's scene files (testdata/newuser) give "h": 1/60, standard
// gravity and "sleep": {}, the file form of stepper.DefaultSettings: the
// world they load has exactly DefaultSettings, and each steps 60 times
// without an error.
func TestNewUserFilesAreDefaultSettings(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "newuser", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 7)
	for _, f := range files {
		w, err := scenes.LoadFile(f)
		require.NoError(t, err, f)
		assert.Equal(t, stepper.DefaultSettings(), w.Settings, f)
		for i := 0; i < 60; i++ {
			_, err := w.Step()
			require.NoError(t, err, f)
		}
	}
}
