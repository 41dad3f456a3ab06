package scenes

import (
	"bytes"
	"os"
	"testing"
)

// fuzzImport checks that a parsed model never panics, and that a model
// that imports without error builds a World (the importer validates the
// spec it returns).
func fuzzImport(t *testing.T, spec *SceneSpec, err error) {
	if err != nil {
		return
	}
	if len(spec.Bodies) > 200 {
		return // building is tested elsewhere; keep each input fast
	}
	if _, err := spec.World(); err != nil {
		t.Fatalf("imported spec does not build: %v", err)
	}
}

func addSeeds(f *testing.F, files ...string) {
	for _, p := range files {
		data, err := os.ReadFile(modelDir + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzLoadURDF(f *testing.F) {
	addSeeds(f, "double_pendulum.urdf", "arm.urdf")
	f.Add([]byte(`<robot><link name="a"/></robot>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseURDF(bytes.NewReader(data), "fuzz.urdf", ImportOptions{Ground: true})
		fuzzImport(t, s, err)
	})
}

func FuzzLoadMJCF(f *testing.F) {
	addSeeds(f, "double_pendulum.xml", "humanoid.xml", "mesh_box.xml")
	f.Add([]byte(`<mujoco><worldbody><body><freejoint/><geom size="1"/></body></worldbody></mujoco>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseMJCF(bytes.NewReader(data), "fuzz.xml", ImportOptions{})
		fuzzImport(t, s, err)
		// Split joints and the humanoid's keyframe name.
		s, _, err = ParseMJCF(bytes.NewReader(data), "fuzz.xml", ImportOptions{SplitJoints: 0.01, Keyframe: "crouch"})
		fuzzImport(t, s, err)
	})
}
