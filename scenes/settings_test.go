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
		SingleProblem: true, Coherent: true,
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
