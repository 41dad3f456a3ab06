package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// `sim export MODEL` writes a scene file that runs bit for bit as the
// imported model: 200 steps of the humanoid-like MJCF models (contacts,
// limits, a fall; the second with split bodies and tendons) and of the
// URDF arm give the same poses, and each import warning is printed once.
func TestExportImportedModel(t *testing.T) {
	for _, path := range []string{"../../testdata/models/humanoid.xml", "../../testdata/models/arm.urdf", "../../testdata/models/humanoid_multi.xml"} {
		var out, errb bytes.Buffer
		require.NoError(t, simExport([]string{path}, &out, &errb))
		direct, ws, err := scenes.LoadModel(path, cliImportOptions)
		require.NoError(t, err)
		assert.Equal(t, len(ws), strings.Count(errb.String(), "warning: "), "%s: one line per warning", path)
		exported, err := scenes.ReadSpec(&out, "exported.json")
		require.NoError(t, err)
		wa, err := direct.World()
		require.NoError(t, err)
		wb, err := exported.World()
		require.NoError(t, err)
		for i := 0; i < 200; i++ {
			_, err := wa.Step()
			require.NoError(t, err)
			_, err = wb.Step()
			require.NoError(t, err)
		}
		for k := range wa.Bodies {
			assert.Equal(t, wa.Bodies[k].Pos, wb.Bodies[k].Pos, "%s: body %d", path, k)
			assert.Equal(t, wa.Bodies[k].Rot, wb.Bodies[k].Rot, "%s: body %d", path, k)
		}
	}
}

// `sim run MODEL.xml` runs an MJCF model; a malformed one is a usage
// error naming file:line and element.
func TestRunImportedModel(t *testing.T) {
	var out, errb bytes.Buffer
	err := simRun(context.Background(), []string{"../../testdata/models/double_pendulum.urdf", "--steps", "5", "--quiet"}, &out, &errb)
	require.NoError(t, err)
	assert.Contains(t, errb.String(), "double_pendulum.urdf:33: <limit>: effort and velocity limits have no effect")
	bad := t.TempDir() + "/bad.xml"
	require.NoError(t, os.WriteFile(bad, []byte("<mujoco>\n<worldbody>\n<body><geom size=\"-1\"/></body>\n</worldbody></mujoco>"), 0o644))
	err = simRun(context.Background(), []string{bad, "--steps", "5", "--quiet"}, &out, &errb)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bad.xml:3: <geom>: size: the radius (size[0]) must be > 0 m for a sphere, got -1")
}

// `sim run MODEL.xml --keyframe NAME` starts an MJCF model at its <key>:
// the test quadruped's knees (range [−2.7, −0.9] rad) sit at 0 in the
// file's own pose, which the import warns about joint by joint, and at
// −1.6 in its "home" key, which is quiet. `sim export --keyframe` writes
// the keyed model (a hinge's reference is its qpos there). A key the file
// does not have, or --keyframe on a URDF model or a built-in scene, is a
// usage error naming it.
func TestRunKeyframe(t *testing.T) {
	const quad = "../../testdata/models/quadruped/scene.xml"
	var out, errb bytes.Buffer
	require.NoError(t, simRun(context.Background(), []string{quad, "--steps", "2", "--quiet"}, &out, &errb))
	assert.Contains(t, errb.String(), `<joint>: joint "FR_knee" starts at 0 rad, outside its range [-2.7, -0.9] rad`)
	assert.Equal(t, 4, strings.Count(errb.String(), "_knee\" starts at 0 rad"), "one warning per knee")

	errb.Reset()
	require.NoError(t, simRun(context.Background(), []string{quad, "--keyframe", "home", "--steps", "2", "--quiet"}, &out, &errb))
	assert.NotContains(t, errb.String(), "outside its range")

	err := simRun(context.Background(), []string{quad, "--keyframe", "nope", "--steps", "2", "--quiet"}, &out, &errb)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `keyframe "nope" not found (the model's: "home")`)
	for _, arg := range []string{"../../testdata/models/arm.urdf", "rod"} {
		err = simRun(context.Background(), []string{arg, "--keyframe", "home", "--steps", "2", "--quiet"}, &out, &errb)
		require.Error(t, err, arg)
		assert.Contains(t, err.Error(), "only an MJCF model has keyframes", arg)
	}

	out.Reset()
	require.NoError(t, simExport([]string{"../../testdata/models/arm7.xml", "--keyframe", "home"}, &out, &errb))
	s, err := scenes.ReadSpec(&out, "arm7-home.json")
	require.NoError(t, err)
	for _, j := range s.Joints {
		if j.Name == "j2" {
			require.NotNil(t, j.Reference)
			assert.Equal(t, 0.3, *j.Reference, "j2's qpos in the home key")
		}
	}
}
