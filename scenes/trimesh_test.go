package scenes

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/contact"
)

// settle steps w for n steps and returns the z and speed of body name.
func settle(t *testing.T, s *SceneSpec, n int, name string) (z, v float64) {
	t.Helper()
	w, err := s.World()
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	b, _, err := w.Body(name)
	if err != nil {
		t.Fatal(err)
	}
	return b.Pos[2], b.Vel.Len()
}

// A scene file with a trimesh (inline, two triangles) and a heightfield
// world shape: each catches a 0.2 m cube dropped 5 cm, which comes to rest
// with its centre 0.1 m above the surface (1e-3 m: the contacts'
// regularized position error at rest is far below it; a shape that did not
// collide would leave it metres below). The file survives Marshal and
// ReadSpec unchanged; a trimesh on a moving body, a ragged heightfield and
// a bad triangle index are errors naming the field.
func TestSceneTriMeshHeightfield(t *testing.T) {
	const doc = `{"version": 1, "settings": {"h": 0.005},
 "world_shapes": [
  {"type": "trimesh", "vertices": [[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], "triangles": [[0, 1, 2], [0, 2, 3]]},
  {"type": "heightfield", "position": [5, 0, 0.5], "size": [2, 2, 0.5], "heights": [[1, 1, 1], [1, 1, 1], [1, 1, 1]]}],
 "bodies": [
  {"name": "a", "position": [0.3, 0.2, 0.15], "density": 1000, "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2]}]},
  {"name": "b", "position": [5.1, 0.3, 1.15], "density": 1000, "shapes": [{"type": "box", "size": [0.2, 0.2, 0.2]}]}]}`
	s, err := ReadSpec(strings.NewReader(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	if s.WorldShapes[0].Type != contact.TriMesh || s.WorldShapes[1].Type != contact.Heightfield {
		t.Fatalf("types %v %v", s.WorldShapes[0].Type, s.WorldShapes[1].Type)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"a", 0.1}, {"b", 0.5 + 0.5 + 0.1}} {
		z, v := settle(t, s, 300, c.name)
		if math.Abs(z-c.want) > 1e-3 || v > 1e-3 {
			t.Errorf("%s at z = %v moving %v m/s, want at rest at %v", c.name, z, v, c.want)
		}
	}
	var buf bytes.Buffer
	if err := s.Marshal(&buf); err != nil {
		t.Fatal(err)
	}
	first := buf.String()
	s2, err := ReadSpec(&buf, "")
	if err != nil {
		t.Fatal(err)
	}
	var buf2 bytes.Buffer
	if err := s2.Marshal(&buf2); err != nil {
		t.Fatal(err)
	}
	if a, b := first, buf2.String(); a != b {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		t.Errorf("round trip changed the file at byte %d: %q vs %q", i, a[max(0, i-80):min(len(a), i+80)], b[max(0, i-80):min(len(b), i+80)])
	}
	for _, c := range []struct{ doc, want string }{
		{`{"version": 1, "settings": {"h": 0.01}, "bodies": [{"name": "a", "density": 1, "shapes": [{"type": "box", "size": [1, 1, 1]}, {"type": "trimesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 2]]}]}]}`, "shapes[1].type: a trimesh must be a world shape or belong to a static body"},
		{`{"version": 1, "settings": {"h": 0.01}, "world_shapes": [{"type": "heightfield", "size": [1, 1, 1], "heights": [[0, 0], [0]]}]}`, "world_shapes[0].heights[1]: must have 2 values as row 0 has, got 1"},
		{`{"version": 1, "settings": {"h": 0.01}, "world_shapes": [{"type": "trimesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 7]]}]}`, "world_shapes[0].vertices: trimesh:"},
		{`{"version": 1, "settings": {"h": 0.01}, "world_shapes": [{"type": "trimesh", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0]], "triangles": [[0, 1, 1.5]]}]}`, "triangles[0][2]: must be a vertex index"},
	} {
		_, err := ReadSpec(strings.NewReader(c.doc), "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", err, c.want)
		}
	}
}

// MJCF: a static mesh geom (cube.obj scaled to [0, 0.2]³ in the
// worldbody) becomes a trimesh, with no warning, and catches a falling box
// at 0.2 + 0.1 m; an hfield asset with inline elevation (a flat field, 0.3
// m up) becomes a heightfield that catches another at 0.4 m; an hfield geom
// on a moving body is an error.
func TestMJCFStaticMeshAndHfield(t *testing.T) {
	cube, err := filepath.Abs(modelDir + "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	doc := `<mujoco><asset><mesh name="cube" file="` + cube + `" scale="0.1 0.1 0.1"/>
<hfield name="flat" nrow="3" ncol="4" size="1 1 0.2 0.1" elevation="0 0 0 0 0 0 0 0 0 0 0 0"/></asset>
<worldbody>
 <geom type="mesh" mesh="cube"/>
 <geom type="hfield" hfield="flat" pos="5 0 0.3"/>
 <body name="a" pos="0.1 0.1 0.35"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
 <body name="b" pos="5.2 0.1 0.45"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
</worldbody></mujoco>`
	s, ws := parseMJCFString(t, doc)
	for _, w := range ws {
		if len(w.Meshes) > 0 || strings.Contains(w.Msg, "hfield") {
			t.Errorf("warning %v", w)
		}
	}
	kinds := []contact.Kind{}
	for _, sh := range s.WorldShapes {
		kinds = append(kinds, sh.Type)
	}
	if len(kinds) != 2 || kinds[0] != contact.Heightfield || kinds[1] != contact.TriMesh {
		t.Fatalf("world shapes %v, want heightfield, then trimesh (meshes come last)", kinds)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"a", 0.3}, {"b", 0.4}} {
		z, v := settle(t, s, 500, c.name)
		if math.Abs(z-c.want) > 1e-3 || v > 1e-3 {
			t.Errorf("%s at z = %v moving %v m/s, want at rest at %v", c.name, z, v, c.want)
		}
	}
	_, _, err = ParseMJCF(strings.NewReader(`<mujoco><asset><hfield name="f" nrow="2" ncol="2" size="1 1 1 0" elevation="0 1 0 1"/></asset>
<worldbody><body name="a"><freejoint/><geom type="hfield" hfield="f" mass="1"/></body></worldbody></mujoco>`), "t.xml", ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "an hfield geom must be in the worldbody or a static body") {
		t.Errorf("error %v", err)
	}
}
