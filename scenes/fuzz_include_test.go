package scenes

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzMJCFInclude: a model and the file it includes (inc.xml, beside it;
// either may include itself or the other, nest, or repeat <worldbody>)
// never make the importer panic or hang. Missing meshes are skipped as the command line skips them.
func FuzzMJCFInclude(f *testing.F) {
	scene, err := os.ReadFile(modelDir + "quadruped/scene.xml")
	if err != nil {
		f.Fatal(err)
	}
	robot, err := os.ReadFile(modelDir + "quadruped/quadruped.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`<mujoco><include file="inc.xml"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>`), robot)
	f.Add(scene, robot)
	f.Add([]byte(`<mujoco><include file="inc.xml"/></mujoco>`), []byte(`<mujoco><include file="main.xml"/></mujoco>`))
	f.Add([]byte(`<mujoco><worldbody><body><freejoint/><geom size="1"/></body></worldbody><include file="inc.xml"/></mujoco>`),
		[]byte(`<mujoco><worldbody><body pos="0 0 3"><freejoint/><geom type="mesh" mesh="m"/></body></worldbody><asset><mesh name="m" file="none.stl"/></asset></mujoco>`))
	f.Fuzz(func(t *testing.T, main, inc []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "main.xml")
		if err := os.WriteFile(path, main, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "inc.xml"), inc, 0o644); err != nil {
			t.Fatal(err)
		}
		// 20 s: the seeds import in about 20 ms; an import still running
		// then is a hang, and the panic keeps its input as a failure.
		hang := time.AfterFunc(20*time.Second, func() { panic("LoadMJCF: still importing after 20 s") })
		_, _, _ = LoadMJCF(path, ImportOptions{SkipMissingMeshes: true, SplitJoints: 0.01})
		hang.Stop()
	})
}
