package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exportTo runs `sim export args...` and writes its output to dir/name.
func exportTo(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	out, stderr, code := runSim(t, append([]string{"export"}, args...)...)
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	return path
}

// Exporting a built-in scene and running the file gives byte-identical
// trajectory and statistics files to running the scene, with every flag
// of sim run applied the same way.
func TestExportRunIdentical(t *testing.T) {
	for _, c := range []struct {
		scene string
		set   []string // --set NAME=VALUE, for both the export and the built-in run
		flags []string
		steps string
	}{
		{"pendulum", nil, nil, "50"},
		{"chain6", nil, nil, "50"},
		{"rod", nil, nil, "30"},
		{"brickwall", nil, nil, "20"},
		{"forklift", nil, nil, "40"},
		{"chain6", []string{"links=3", "stabilization=post"}, []string{"--dt", "0.002", "--solver", "pgs", "--budget", "7"}, "30"},
		{"forklift", []string{"steer=-0.2", "max_torque=500"}, []string{"--budget", "5", "--pick", "last", "--every", "3"}, "30"},
		{"brickwall", []string{"rows=4", "friction=0.4"}, []string{"--budget", "3", "--pick", "fb"}, "20"},
		{"rod", []string{"friction=0.3"}, []string{"--solver", "lemke", "--dt", "0.005"}, "30"},
		{"push", []string{"pusher_angle=0.5", "object_x=0.01", "push_speed=0.5"}, []string{"--dt", "0.005"}, "120"},
	} {
		t.Run(c.scene+strings.Join(c.set, ","), func(t *testing.T) {
			dir := t.TempDir()
			var sets []string
			for _, s := range c.set {
				sets = append(sets, "--set", s)
			}
			file := exportTo(t, dir, "scene.json", append([]string{c.scene}, sets...)...)
			run := func(scene string, extra []string, tag string) (traj, stats []byte) {
				tp, sp := filepath.Join(dir, tag+".csv"), filepath.Join(dir, tag+"-stats.csv")
				args := append([]string{"run", scene, "--steps", c.steps, "--quiet", "--out", tp, "--stats", sp}, c.flags...)
				_, stderr, code := runSim(t, append(args, extra...)...)
				require.Equal(t, 0, code, stderr)
				traj, err := os.ReadFile(tp)
				require.NoError(t, err)
				stats, err = os.ReadFile(sp)
				require.NoError(t, err)
				return traj, stats
			}
			wantTraj, wantStats := run(c.scene, sets, "builtin")
			gotTraj, gotStats := run(file, nil, "file")
			require.Greater(t, strings.Count(string(wantTraj), "\n"), 10)
			assert.True(t, string(wantTraj) == string(gotTraj), "trajectories differ")
			assert.True(t, string(wantStats) == string(gotStats), "statistics differ")
		})
	}
}

func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export"}, "sim: export: want one scene name, got 0 arguments (exportable: " + strings.Join(scenes.Exportable(), ", ") + ")\n"},
		{[]string{"export", "chian6"}, `unknown scene "chian6"`},
		{[]string{"export", "chain6", "--set", "links=x"}, "chain6: --set links=x: want an integer"},
		{[]string{"export", "--schema", "rod"}, "export --schema: takes no scene and no --set"},
	} {
		_, stderr, code := runSim(t, c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}

	// A bad file is rejected before the run, with the JSON path.
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 1, "settings": {"h": 0.01},
  "bodies": [{"name": "a", "mass": 1, "shapes": [{"type": "box", "size": [0.1, -0.1, 0.1]}]}]}`), 0o644))
	out := filepath.Join(dir, "t.csv")
	_, stderr, code := runSim(t, "run", bad, "--steps", "5", "--out", out)
	assert.Equal(t, 2, code)
	assert.Equal(t, "sim: "+bad+": bodies[0].shapes[0].size[1]: must be > 0 m, got -0.1\n", stderr)
	assert.NoFileExists(t, out)

	file := exportTo(t, dir, "rod.json", "rod")
	_, stderr, code = runSim(t, "run", file, "--set", "mass=2")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--set: a scene file has no parameters")
	_, stderr, code = runSim(t, "run", filepath.Join(dir, "missing.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "missing.json")

	schema, stderr, code := runSim(t, "export", "--schema")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, string(scenes.Schema), schema)
}
