package scenes

import (
	"fmt"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
)

// resolveMeshes makes every relative convex mesh path relative to the
// directory of the scene file name (as a model's meshes are), so that the
// spec reads them from any working directory.
func (s *SceneSpec) resolveMeshes(name string) {
	if name == "" {
		return
	}
	dir := filepath.Dir(name)
	fix := func(sh []ShapeSpec) {
		for i := range sh {
			if m := sh[i].Mesh; (sh[i].Type == contact.Convex || sh[i].Type == contact.TriMesh) && m != "" && !filepath.IsAbs(m) {
				sh[i].Mesh = filepath.Join(dir, m)
			}
		}
	}
	fix(s.WorldShapes)
	for i := range s.Bodies {
		fix(s.Bodies[i].Shapes)
	}
}

// convexHull returns the convex shape's hull moved so that its centroid is
// the origin, with its volume (m³) and its inertia about the centroid at
// unit density (kg·m² per kg/m³): the hull of Points, or of the vertices
// of the mesh file (mesh.Load, scaled by Scale, zero meaning {1, 1, 1}).
// The error names the field at fault.
func (s *ShapeSpec) convexHull() (h *mesh.Hull, vol float64, inertia mgl64.Mat3, field string, err error) {
	pts, field := s.Points, "points"
	if s.Mesh != "" {
		field = "mesh"
		scale := s.Scale
		if scale == (mgl64.Vec3{}) {
			scale = mgl64.Vec3{1, 1, 1}
		}
		m, err := mesh.Load(s.Mesh, scale)
		if err != nil {
			return nil, 0, mgl64.Mat3{}, field, err
		}
		pts = m.Vertices
	}
	h, err = mesh.NewHull(pts, 0)
	if err != nil {
		return nil, 0, mgl64.Mat3{}, field, err
	}
	vol, com, inertia, err := h.MassProperties(1)
	if err != nil {
		return nil, 0, mgl64.Mat3{}, field, err
	}
	return h.Translated(com.Mul(-1)), vol, inertia, field, nil
}

// convexShape returns the contact shape of a convex ShapeSpec (an invalid
// Convex shape, which World refuses, if the hull cannot be built).
func (s *ShapeSpec) convexShape() contact.Shape {
	h, _, _, _, err := s.convexHull()
	if err != nil {
		return contact.Shape{Kind: contact.Convex}
	}
	c, err := contact.NewConvexHull(h)
	if err != nil {
		return contact.Shape{Kind: contact.Convex}
	}
	return c
}

// convexVolume is volume for a convex shape: its volume and its inertia
// about its centroid (the shape's origin) for mass m.
func (s *ShapeSpec) convexVolume(m float64) (float64, mgl64.Mat3) {
	_, vol, inertia, _, err := s.convexHull()
	if err != nil || !(vol > 0) {
		return 0, mgl64.Mat3{}
	}
	return vol, inertia.Mul(m / vol)
}

// validateConvex checks a convex shape: points or mesh (not both), the
// points finite, the scale finite and non-zero, and a hull with volume.
func (s *ShapeSpec) validateConvex(p *problems, path string) {
	n := len(p.list)
	switch {
	case len(s.Points) > 0 && s.Mesh != "":
		p.add(path, "give points or mesh, not both")
	case len(s.Points) == 0 && s.Mesh == "":
		p.add(path+".points", "required (or mesh: an STL or OBJ file)")
	}
	for i, q := range s.Points {
		chkVec(p, fmt.Sprintf("%s.points[%d]", path, i), q)
	}
	if s.Mesh == "" && s.Scale != (mgl64.Vec3{}) {
		p.add(path+".scale", "applies to a mesh only")
	}
	if s.Scale != (mgl64.Vec3{}) {
		for i, x := range s.Scale {
			if x == 0 {
				p.addv(fmt.Sprintf("%s.scale[%d]", path, i), x, "must be finite and non-zero, got %v", x)
			}
		}
		chkVec(p, path+".scale", s.Scale)
	}
	if len(p.list) > n {
		return
	}
	if _, _, _, field, err := s.convexHull(); err != nil {
		p.add(path+"."+field, "%v", err)
	}
}
