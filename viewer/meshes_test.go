package viewer

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// meshScene is a world heightfield of nx × ny samples (a tilted, bumpy
// grid), a world triangle mesh (a pyramid's 4 sides), a rock (the convex
// hull of 6 points, polygon faces included) and an icosphere hull (level
// 2: 162 vertices, 320 faces) on moving bodies.
func meshScene(t *testing.T, nx, ny int) *stepper.World {
	t.Helper()
	var rows []string
	for j := range ny {
		var r []string
		for i := range nx {
			r = append(r, fmt.Sprint(0.1*float64(i)+0.05*math.Sin(float64(3*i+7*j))))
		}
		rows = append(rows, "["+strings.Join(r, ",")+"]")
	}
	ico, err := mesh.Icosphere(2, 0.2)
	require.NoError(t, err)
	var pts []string
	for _, v := range ico.Vertices {
		pts = append(pts, fmt.Sprintf("[%v,%v,%v]", v[0], v[1], v[2]))
	}
	src := `{"version": 1, "settings": {"h": 0.01},
  "world_shapes": [
    {"type": "plane"},
    {"type": "heightfield", "size": [4, 3, 0.5], "position": [0, 0, -1], "heights": [` + strings.Join(rows, ",") + `]},
    {"type": "trimesh", "position": [3, 0, 0], "orientation": [0.9238795325112867, 0, 0, 0.3826834323650898],
     "vertices": [[-0.5,-0.5,0],[0.5,-0.5,0],[0.5,0.5,0],[-0.5,0.5,0],[0,0,0.7]],
     "triangles": [[0,1,4],[1,2,4],[2,3,4],[3,0,4]]}],
  "bodies": [
    {"name": "rock", "mass": 2, "inertia": [0.01, 0.01, 0.01], "position": [0, 0, 0.3], "orientation": [0.9835, 0.1004, 0.1505, 0],
     "shapes": [{"type": "convex", "position": [0.05, 0, 0],
                 "points": [[0.12, 0, -0.05], [-0.1, 0.06, -0.05], [-0.04, -0.09, -0.05], [0.12, 0.1, -0.05],
                            [0.02, 0.01, 0.09], [0.06, 0.07, 0.02], [-0.07, -0.02, 0.04]]}]},
    {"name": "ball", "density": 1000, "position": [1, 0, 0.5],
     "shapes": [{"type": "convex", "points": [` + strings.Join(pts, ",") + `]}]}
  ]}`
	w, err := scenes.Load(strings.NewReader(src), "meshes.json")
	require.NoError(t, err)
	return w
}

// oneFrame is a one-frame trajectory of w's bodies at their initial poses.
func oneFrame(w *stepper.World) *Trajectory {
	tr := &Trajectory{Bodies: len(w.Bodies), Steps: []int64{0}, Times: []float64{0}}
	for _, b := range w.Bodies {
		tr.Poses = append(tr.Poses, float32(b.Pos[0]), float32(b.Pos[1]), float32(b.Pos[2]),
			float32(b.Rot.W), float32(b.Rot.V[0]), float32(b.Rot.V[1]), float32(b.Rot.V[2]))
	}
	return tr
}

func sceneOf(t *testing.T, w *stepper.World, o Options) (viewSceneJSON, viewMetaJSON) {
	t.Helper()
	v, err := New(w, oneFrame(w), nil, o)
	require.NoError(t, err)
	var sj viewSceneJSON
	var mj viewMetaJSON
	require.NoError(t, json.Unmarshal(v.scene, &sj))
	require.NoError(t, json.Unmarshal(v.meta, &mj))
	return sj, mj
}

func vert(g viewGeomJSON, k int32) mgl64.Vec3 {
	return mgl64.Vec3{g.Vertices[3*k], g.Vertices[3*k+1], g.Vertices[3*k+2]}
}

func TestViewMeshGeoms(t *testing.T) {
	w := meshScene(t, 9, 7)
	sj, mj := sceneOf(t, w, Options{})
	require.Len(t, sj.Geoms, len(w.Geoms))
	assert.Equal(t, DefaultMaxTriangles, sj.MaxTriangles)
	assert.Empty(t, sj.Notes, "the scene is far below the cap")
	hulls := 0
	for i, g := range sj.Geoms {
		s := w.Geoms[i].Shape
		assert.Equal(t, s.Kind.String(), g.Kind)
		switch s.Kind {
		case contact.Convex:
			// The faces, sent through JSON, close the solid: by the
			// divergence theorem Σ v0·(v1 × v2)/6 over the triangles is
			// the volume, which mesh.Hull.Volume computes by Mirtich's
			// integrals. 1e-12 relative: a few roundings per triangle of
			// terms ≤ the volume's size, over ≤ 320 triangles.
			hulls++
			h := s.Hull.Mesh()
			require.Len(t, g.Vertices, 3*len(h.Vertices))
			vol := 0.0
			for f := 0; f < len(g.Faces); f += 3 {
				vol += vert(g, g.Faces[f]).Dot(vert(g, g.Faces[f+1]).Cross(vert(g, g.Faces[f+2]))) / 6
			}
			assert.InDelta(t, 1, vol/h.Volume(), 1e-12, "hull %d: volume %v from the faces, %v from the hull", i, vol, h.Volume())
			assert.Equal(t, shapeTriangles(s), len(g.Faces)/3)
			assert.Equal(t, len(h.Vertices)*2-4, len(g.Faces)/3, "Euler: a closed triangulated polyhedron has 2V − 4 triangles")
		case contact.TriMesh:
			require.Equal(t, s.Mesh.Triangles(), len(g.Faces)/3)
			for k := range s.Mesh.Triangles() {
				tri := s.Mesh.Triangle(k)
				for c := range 3 {
					assert.Equal(t, tri[c], vert(g, g.Faces[3*k+c]), "triangle %d corner %d", k, c)
				}
			}
			assert.Len(t, g.Vertices, 3*5, "the pyramid's 5 corners, shared by the triangles")
		case contact.Heightfield:
			nx, ny, _, _, heights := s.Field.Grid()
			require.Equal(t, 2*(nx-1)*(ny-1), len(g.Faces)/3)
			assert.Equal(t, 2*(nx-1)*(ny-1), g.Triangles)
			require.Len(t, g.Vertices, 3*nx*ny)
			for k, z := range heights {
				assert.Equal(t, z, g.Vertices[3*k+2], "height %d", k)
			}
			// Each triangle is the field's own: a ray down through its
			// centroid hits contact's triangle of the same index.
			for k := 0; k < len(g.Faces)/3; k++ {
				a, b, c := vert(g, g.Faces[3*k]), vert(g, g.Faces[3*k+1]), vert(g, g.Faces[3*k+2])
				cen := a.Add(b).Add(c).Mul(1.0 / 3)
				hit, ok := s.Field.Raycast(cen.Add(mgl64.Vec3{0, 0, 10}), mgl64.Vec3{0, 0, -1}, 20)
				require.True(t, ok, "triangle %d", k)
				assert.Equal(t, k, hit.Triangle)
				assert.Greater(t, b.Sub(a).Cross(c.Sub(a))[2], 0.0, "triangle %d is counter-clockwise seen from above", k)
			}
		default:
			assert.Nil(t, g.Vertices)
		}
	}
	assert.Equal(t, 2, hulls)

	// The bounds cover the world's heightfield and triangle mesh, and the
	// hulls at their bodies' poses.
	box := contact.AABB{Min: mgl64.Vec3(mj.BoundsMin), Max: mgl64.Vec3(mj.BoundsMax)}
	for i, g := range w.Geoms {
		pose := g.Local
		if g.Body >= 0 {
			b := w.Bodies[g.Body]
			pose = contact.Pose{Pos: b.Pos.Add(b.Rot.Rotate(g.Local.Pos)), Rot: b.Rot.Mul(g.Local.Rot)}
		}
		if g.Shape.Kind == contact.Plane {
			continue
		}
		if pose.Rot == (mgl64.Quat{}) {
			pose.Rot = mgl64.QuatIdent()
		}
		bb := g.Shape.Bounds(pose, 0)
		for k := range 3 { // the float32 trajectory: 1e-6 m slack
			assert.LessOrEqual(t, box.Min[k], bb.Min[k]+1e-6, "geom %d axis %d", i, k)
			assert.GreaterOrEqual(t, box.Max[k], bb.Max[k]-1e-6, "geom %d axis %d", i, k)
		}
	}
}

func TestViewMeshCap(t *testing.T) {
	w := meshScene(t, 41, 31) // 2400 heightfield triangles
	// 330 triangles: the rock (10) and the pyramid (4) fit, then the
	// icosphere (320 > 316 left) becomes its box (12), and the heightfield
	// gets the 304 left.
	sj, mj := sceneOf(t, w, Options{MaxTriangles: 330})
	require.Len(t, sj.Notes, 2, "%q", sj.Notes)
	total := 0
	for i, g := range sj.Geoms {
		s := w.Geoms[i].Shape
		total += len(g.Faces) / 3
		switch s.Kind {
		case contact.Convex:
			if g.Triangles == 320 {
				assert.Len(t, g.Faces, 3*boxTriangles)
				assert.Contains(t, g.Note, "bounding box")
				lo, hi := localBounds(s)
				for k := range int32(8) {
					v := vert(g, k)
					for a := range 3 {
						assert.True(t, v[a] == lo[a] || v[a] == hi[a])
					}
				}
			} else {
				assert.Empty(t, g.Note)
			}
		case contact.Heightfield:
			nx, ny, _, _, heights := s.Field.Grid()
			// Stride 2 gives 21 × 16 samples, 2·20·15 = 600 triangles > 304;
			// stride 3: 0, 3, …, 39, 40 (15) by 0, 3, …, 30 (11), 2·14·10 = 280.
			assert.Equal(t, 2*14*10, len(g.Faces)/3)
			assert.Contains(t, g.Note, "heightfield 41 × 31 (2400 triangles) is drawn with a sample stride of 3 (15 × 11 samples, 280 triangles): the viewer sends at most 330 triangles in all")
			require.Len(t, g.Vertices, 3*15*11)
			xs := []int{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 40}
			for jj, j := range []int{0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30} {
				for ii, i := range xs {
					assert.Equal(t, heights[j*nx+i], g.Vertices[3*(jj*len(xs)+ii)+2])
				}
			}
			assert.Equal(t, 2*(nx-1)*(ny-1), g.Triangles)
		}
	}
	assert.Equal(t, 10+4+boxTriangles+280, total)
	// The bounds are those of the full shapes, not of their drawings.
	_, full := sceneOf(t, w, Options{})
	assert.Equal(t, full.BoundsMin, mj.BoundsMin)
	assert.Equal(t, full.BoundsMax, mj.BoundsMax)

	// Below one heightfield cell, the field is a box too.
	sj, _ = sceneOf(t, w, Options{MaxTriangles: 1})
	for _, g := range sj.Geoms {
		if g.Vertices != nil {
			assert.Len(t, g.Faces, 3*boxTriangles, g.Kind)
		}
	}
	assert.Len(t, sj.Notes, 4)
}

// BenchmarkViewSceneBigField measures New on a 633 × 633 heightfield
// (798 848 triangles), which the default cap draws with a sample stride
// of 2 (199 712 triangles, the most it sends), and reports the
// /api/scene size.
func BenchmarkViewSceneBigField(b *testing.B) {
	const n = 633
	h := make([]float64, n*n)
	for k := range h {
		h[k] = 0.1 * math.Sin(float64(k%n)/30) * math.Cos(float64(k/n)/40)
	}
	s, err := contact.NewHeightfield(n, n, 0.01, 0.01, h)
	require.NoError(b, err)
	w := &stepper.World{Geoms: []stepper.Geom{{Body: -1, Shape: s, Local: contact.IdentityPose()}}}
	tr := &Trajectory{Steps: []int64{0}, Times: []float64{0}}
	var v *Viewer
	for b.Loop() {
		v, err = New(w, tr, nil, Options{})
		require.NoError(b, err)
	}
	b.ReportMetric(float64(len(v.scene))/1e6, "MB/scene")
}
