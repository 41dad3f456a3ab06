package scenes_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A convex shape given by points gets the solid hull's mass and inertia
// from density, with its centroid at the body origin: the 8 corners of a
// 0.4 × 0.2 × 0.1 m box shifted by (1, 2, 3) give body.BoxInertia of the
// box's mass (1e-12 relative: the hull's integrals are exact up to
// rounding) and a hull centred on the body.
func TestConvexPointsMassProperties(t *testing.T) {
	const doc = `{"version": 1, "settings": {"h": 0.01}, "bodies": [{"name": "b", "density": 500, "shapes": [{"type": "convex",
	  "points": [[0.8,1.9,2.95],[1.2,1.9,2.95],[0.8,2.1,2.95],[1.2,2.1,2.95],[0.8,1.9,3.05],[1.2,1.9,3.05],[0.8,2.1,3.05],[1.2,2.1,3.05],[1,2,3]]}]}]}`
	assert.Empty(t, newValidator(t).check(t, []byte(doc)), "points scene against the schema")
	w, err := scenes.Load(strings.NewReader(doc), "cube.json")
	require.NoError(t, err)
	b := w.Bodies[0]
	m := 500 * 0.4 * 0.2 * 0.1
	assert.InEpsilon(t, m, b.Mass, 1e-12)
	want := body.BoxInertia(m, 0.4, 0.2, 0.1)
	for i := 0; i < 9; i++ {
		assert.InDelta(t, want[i], b.Inertia[i], 1e-12*want[0], "inertia[%d]", i)
	}
	g := w.Geoms[0]
	require.Equal(t, contact.Convex, g.Shape.Kind)
	box := g.Shape.Bounds(contact.IdentityPose(), 0)
	assert.InDelta(t, -0.2, box.Min[0], 1e-12)
	assert.InDelta(t, 0.05, box.Max[2], 1e-12)
	assert.Len(t, g.Shape.Hull.Mesh().Vertices, 8, "the centre point is not a hull vertex")

	spec, err := scenes.ReadSpec(strings.NewReader(doc), "cube.json")
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, spec.Marshal(&out))
	assert.Empty(t, newValidator(t).check(t, out.Bytes()), "export against the schema")
	back, err := scenes.ReadSpec(bytes.NewReader(out.Bytes()), "")
	require.NoError(t, err)
	assert.Equal(t, spec.Bodies[0].Shapes, back.Bodies[0].Shapes, "points round trip")
}

// A mesh path is relative to the scene file's directory: a scene loaded
// from elsewhere finds its STL, scaled, and its hull is the scaled
// mesh's. Exporting and reading back gives the same spec.
func TestConvexMeshRelativeToScene(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "meshes"), 0o755))
	// A unit tetrahedron-like wedge: the hull of 6 points, written as a
	// closed triangle mesh of a unit cube.
	cube := &mesh.Mesh{Triangles: [][3]int{{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4}, {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}}}
	for i := 0; i < 8; i++ {
		cube.Vertices = append(cube.Vertices, mgl64.Vec3{float64(i & 1), float64(i >> 1 & 1), float64(i >> 2 & 1)})
	}
	require.NoError(t, cube.Closed())
	var buf bytes.Buffer
	require.NoError(t, mesh.WriteSTL(&buf, cube))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "meshes", "part.stl"), buf.Bytes(), 0o644))
	doc := `{"version": 1, "settings": {"h": 0.01}, "world_shapes": [{"type": "plane"}], "bodies": [{"name": "part", "density": 1000, "position": [0, 0, 1],
	  "shapes": [{"type": "convex", "mesh": "meshes/part.stl", "scale": [0.2, 0.1, 0.3]}]}]}`
	scene := filepath.Join(dir, "part.json")
	require.NoError(t, os.WriteFile(scene, []byte(doc), 0o644))
	w, err := scenes.LoadFile(scene)
	require.NoError(t, err)
	b := w.Bodies[0]
	assert.InEpsilon(t, 1000*0.2*0.1*0.3, b.Mass, 1e-12)
	assert.InEpsilon(t, body.BoxInertia(b.Mass, 0.2, 0.1, 0.3)[0], b.Inertia[0], 1e-6, "float32 STL corners")
	box := w.Geoms[1].Shape.Bounds(contact.IdentityPose(), 0)
	assert.InDelta(t, 0.15, box.Max[2], 1e-7, "centred: half the scaled height")

	spec, err := scenes.ReadSpec(bytes.NewReader([]byte(doc)), scene)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "meshes", "part.stl"), spec.Bodies[0].Shapes[0].Mesh)
	var out bytes.Buffer
	require.NoError(t, spec.Marshal(&out))
	sv := newValidator(t)
	assert.Empty(t, sv.check(t, out.Bytes()), "exported mesh scene against the schema")
	assert.Empty(t, sv.check(t, []byte(doc)), "mesh scene against the schema")
	back, err := scenes.ReadSpec(bytes.NewReader(out.Bytes()), "")
	require.NoError(t, err, out.String())
	assert.Equal(t, spec.Bodies[0].Shapes, back.Bodies[0].Shapes)
	// It falls and rests on the plane: a settled hull at its half height.
	for i := 0; i < 300; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.InDelta(t, 0.15, b.Pos[2], 1e-3)
	assert.Less(t, b.Vel.Len(), 1e-3)
}

// Bad convex shapes give one clear error each, naming the field.
func TestConvexErrors(t *testing.T) {
	for _, tc := range []struct{ shape, want string }{
		{`{"type": "convex"}`, `shapes[0].points: required (or mesh: an STL or OBJ file)`},
		{`{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[1,1,0]]}`, `shapes[0].points: hull: all points are coplanar`},
		{`{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0]]}`, `shapes[0].points: hull: a convex hull needs at least 4 points, got 3`},
		{`{"type": "convex", "points": [[0,0,0],[1,0],[0,1,0]]}`, `shapes[0].points[1]: must be an array of 3 numbers`},
		{`{"type": "convex", "mesh": "nowhere.stl"}`, `shapes[0].mesh: `},
		{`{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "mesh": "a.stl"}`, `shapes[0]: give points or mesh, not both`},
		{`{"type": "convex", "mesh": "a.stl", "scale": [1, 0, 1]}`, `shapes[0].scale[1]: must be finite and non-zero, got 0`},
		{`{"type": "convex", "points": [[0,0,0],[1,0,0],[0,1,0],[0,0,1]], "scale": [1, 1, 1]}`, `shapes[0].scale: applies to a mesh only`},
	} {
		doc := `{"version": 1, "settings": {"h": 0.01}, "bodies": [{"name": "b", "density": 1, "shapes": [` + tc.shape + `]}]}`
		_, err := scenes.Load(strings.NewReader(doc), "f.json")
		require.Error(t, err, tc.shape)
		assert.Contains(t, err.Error(), "f.json: bodies[0]."+tc.want, tc.shape)
		assert.Equal(t, 1, strings.Count(err.Error(), "\n")+1, "one line: %v", err)
	}
}

// The rock of docs/scene-files.md loads, falls 0.2 m onto a corner, tips
// onto one of its hull faces and rests there: after 3 s its speed is below
// 1e-3 m/s and its lowest hull vertex is on the ground within 1e-4 m.
func TestDocsConvexRock(t *testing.T) {
	w, err := scenes.Load(strings.NewReader(docsJSON(t, "rock.json")), "rock.json")
	require.NoError(t, err)
	b := w.Bodies[0]
	g := w.Geoms[1]
	require.Equal(t, contact.Convex, g.Shape.Kind)
	for i := 0; i < 300; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	low := g.Shape.Bounds(contact.Pose{Pos: b.Pos, Rot: b.Rot}, 0).Min[2]
	t.Logf("rock: mass %.3f kg, at rest at z = %.4f m, lowest vertex %.2e m, speed %.2e m/s", b.Mass, b.Pos[2], low, b.Vel.Len())
	assert.Less(t, b.Vel.Len(), 1e-3)
	assert.Less(t, b.AngVel.Len()*0.1, 1e-3)
	assert.InDelta(t, 0, low, 1e-4)
}
