package scenes

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goOnlySettings are the stepper.Settings fields a scene file cannot hold:
// Go values of the running program.
var goOnlySettings = []string{"Context", "Observer"}

// Every other stepper.Settings field reaches a scene file and comes back:
// a Go scene's Settings (specSettings, as the built-in scenes export
// theirs) written by Marshal and read by ReadSpec build a World with the
// same Settings. The input sets every field to a value other than its
// zero, so a field added to stepper.Settings fails here until the scene
// format carries it (file.go, export.go, filedecode.go, fileencode.go,
// filevalidate.go, scene.schema.json, doc.go) or goOnlySettings lists it.
func TestSettingsReachTheFile(t *testing.T) {
	solver := func(name string) lcp.Solver {
		s, err := lcp.New(name)
		require.NoError(t, err)
		return s
	}
	in := stepper.Settings{
		H: 0.004, Gravity: mgl64.Vec3{0.5, -1, -9}, Solver: solver("pgs"), Budget: 7, Tolerance: 1e-9,
		Pick: errmeasure.FB, Polish: 3, ProjectAbove: 0.002, MaxCorrectingSpeed: 0.3,
		Stabilization: stepper.Baumgarte, Baumgarte: 20, PostSolver: solver("lemke"),
		ContactMargin: 0.001, BounceSpeed: 0.5, Impacts: stepper.PropagatedImpacts,
		Sleep:         stepper.Sleep{On: true, LinearSpeed: 0.01, AngularSpeed: 0.02, Time: 2},
		SingleProblem: true, Coherent: stepper.CoherentOff, JointCorrection: stepper.JointProjection,
		TurnFriction: true, CoulombBounds: true,
	}
	v := reflect.ValueOf(in)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		goOnly := false
		for _, n := range goOnlySettings {
			goOnly = goOnly || n == name
		}
		if !goOnly {
			assert.False(t, v.Field(i).IsZero(), "set Settings.%s to a non-zero value here", name)
		}
	}
	var b bytes.Buffer
	require.NoError(t, (&SceneSpec{Settings: specSettings(in)}).Marshal(&b))
	s, err := ReadSpec(&b, "settings.json")
	require.NoError(t, err, b.String())
	out := s.Settings.stepperSettings()
	got := reflect.ValueOf(out)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		a, g := v.Field(i).Interface(), got.Field(i).Interface()
		if sa, ok := a.(lcp.Solver); ok {
			sg, ok := g.(lcp.Solver)
			require.True(t, ok, "Settings.%s: no solver read back", name)
			assert.Equal(t, sa.Name(), sg.Name(), "Settings.%s", name)
			continue
		}
		goOnly := false
		for _, n := range goOnlySettings {
			goOnly = goOnly || n == name
		}
		if goOnly {
			continue
		}
		assert.Equal(t, a, g, "Settings.%s does not survive the scene file:\n%s", name, b.String())
	}
}

// A scene file's settings.coherent is a tri-state: true is
// stepper.CoherentOn, false CoherentOff, absent CoherentDefault (whatever
// the stepper's default is), and Marshal writes back what was read; a
// value other than true or false is an error naming the key and the value.
func TestSettingsCoherentKey(t *testing.T) {
	for _, c := range []struct {
		key  string
		want stepper.Coherence
	}{{``, stepper.CoherentDefault}, {`, "coherent": true`, stepper.CoherentOn}, {`, "coherent": false`, stepper.CoherentOff}} {
		s, err := ReadSpec(bytes.NewBufferString(`{"version": 1, "settings": {"h": 0.01`+c.key+`}}`), "f.json")
		require.NoError(t, err, c.key)
		assert.Equal(t, c.want, s.Settings.Coherent, c.key)
		assert.Equal(t, c.want, s.Settings.stepperSettings().Coherent, c.key)
		var b bytes.Buffer
		require.NoError(t, s.Marshal(&b))
		back, err := ReadSpec(&b, "back.json")
		require.NoError(t, err, b.String())
		assert.Equal(t, c.want, back.Settings.Coherent, "written back: %s", b.String())
	}
	_, err := ReadSpec(bytes.NewBufferString(`{"version": 1, "settings": {"h": 0.01, "coherent": "yes"}}`), "f.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `f.json: settings.coherent: must be true or false, got the string "yes"`)
	bad := SceneSpec{Settings: SettingsSpec{H: 0.01, Coherent: 7}}
	_, err = bad.World()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "settings.coherent: unknown value 7")
	_, err = stepper.New(stepper.Settings{H: 0.01, Coherent: -1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Coherent")
}
