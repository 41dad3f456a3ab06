package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 10-link chain (testdata/newuser/chain10.json) at h = 1/240 s: as
// shipped (DefaultSettings, the joints' errors fed back as φ/h) a step
// adds more than 1 % of the system's energy as the chain snaps taut, and
// the warning comes with the note naming the setting; with
// "joint_correction": "projection" no step does and sim stays quiet.
func TestRunJointFeedbackHint(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "newuser", "chain10.json")
	args := []string{"--dt", "0.004166666666666667", "--steps", "1200", "--quiet"}
	_, stderr, code := runSim(t, append([]string{"run", src}, args...)...)
	require.Equal(t, 0, code, stderr)
	t.Log(stderr)
	assert.Equal(t, 1, strings.Count(stderr, "warning:"), stderr)
	assert.Contains(t, stderr, `"joint_correction": "projection" leaves them to the position projection`)

	data, err := os.ReadFile(src)
	require.NoError(t, err)
	pr := strings.Replace(string(data), `"sleep": {}`, `"sleep": {}, "joint_correction": "projection"`, 1)
	require.NotEqual(t, string(data), pr)
	file := filepath.Join(t.TempDir(), "chain10-projection.json")
	require.NoError(t, os.WriteFile(file, []byte(pr), 0o644))
	_, stderr, code = runSim(t, append([]string{"run", file}, args...)...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning:", "projection: no step adds 1 %")
}
