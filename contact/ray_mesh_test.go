package contact

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/mesh"
)

// Raycast on the static surfaces: a ray straight down onto a two-triangle
// square (TriMesh) and onto a flat 3 × 3 heightfield, both placed 0.5 m
// up, hits at the distance to the surface with the surface's normal facing
// the ray; a ray beside them misses, and one that stops short misses.
func TestRaycastTriMeshAndHeightfield(t *testing.T) {
	tm, err := NewTriMesh(&mesh.Mesh{
		Vertices:  []mgl64.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
		Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	hf, err := NewHeightfield(3, 3, 1, 1, make([]float64, 9))
	if err != nil {
		t.Fatal(err)
	}
	p := Pose{Pos: mgl64.Vec3{0, 0, 0.5}, Rot: mgl64.QuatIdent()}
	for _, s := range []Shape{tm, hf} {
		if !RaySupported(s.Kind) {
			t.Errorf("%v: RaySupported false", s.Kind)
		}
		o, d := mgl64.Vec3{0.2, 0.3, 2}, mgl64.Vec3{0, 0, -3}
		wantHit(t, s.Kind.String()+" from above", s, p, o, d, 10, 1.5, mgl64.Vec3{0.2, 0.3, 0.5}, mgl64.Vec3{0, 0, 1})
		wantHit(t, s.Kind.String()+" from below", s, p, mgl64.Vec3{0.2, 0.3, -1}, mgl64.Vec3{0, 0, 1}, 10, 1.5, mgl64.Vec3{0.2, 0.3, 0.5}, mgl64.Vec3{0, 0, -1})
		if _, ok := Raycast(s, p, mgl64.Vec3{3, 0, 2}, d, 10); ok {
			t.Errorf("%v: a ray beside the surface hit", s.Kind)
		}
		if _, ok := Raycast(s, p, o, d, 1.4); ok {
			t.Errorf("%v: a ray stopping 0.1 m short hit", s.Kind)
		}
		if r := s.BoundingRadius(); !(r >= 1.414) {
			t.Errorf("%v: BoundingRadius %v, want ≥ √2", s.Kind, r)
		}
	}
}
