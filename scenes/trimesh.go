package scenes

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
)

// staticMeshNode writes the keys of a trimesh or heightfield shape.
func (s *ShapeSpec) staticMeshNode(n *jnode) {
	if s.Type == contact.Heightfield {
		n.set("size", jvec(s.Size))
		rows := jarr()
		for _, r := range s.Heights {
			rows.arr = append(rows.arr, jnums(r...))
		}
		n.set("heights", rows)
		return
	}
	if s.Mesh != "" {
		n.set("mesh", jstr(s.Mesh))
	}
	setVec(n, "scale", s.Scale)
	if len(s.Vertices) > 0 {
		vs := jarr()
		for _, v := range s.Vertices {
			vs.arr = append(vs.arr, jvec(v))
		}
		n.set("vertices", vs)
	}
	if len(s.Triangles) > 0 {
		ts := jarr()
		for _, t := range s.Triangles {
			ts.arr = append(ts.arr, jnums(float64(t[0]), float64(t[1]), float64(t[2])))
		}
		n.set("triangles", ts)
	}
}

// staticMeshShape builds the contact shape of a trimesh or heightfield
// spec; on failure it returns the invalid shape of the kind (which World
// refuses), the field at fault and the error.
func (s *ShapeSpec) staticMeshShape() (contact.Shape, string, error) {
	bad := contact.Shape{Kind: s.Type}
	if s.Type == contact.Heightfield {
		ny := len(s.Heights)
		if ny < 2 {
			return bad, "heights", fmt.Errorf("must have at least 2 rows, got %d", ny)
		}
		nx := len(s.Heights[0])
		h := make([]float64, 0, nx*ny)
		for j, r := range s.Heights {
			if len(r) != nx {
				return bad, fmt.Sprintf("heights[%d]", j), fmt.Errorf("must have %d values as row 0 has, got %d", nx, len(r))
			}
			for _, z := range r {
				h = append(h, z*s.Size[2])
			}
		}
		if nx < 2 {
			return bad, "heights[0]", fmt.Errorf("must have at least 2 values, got %d", nx)
		}
		for i := 0; i < 3; i++ {
			if !(s.Size[i] > 0) || math.IsInf(s.Size[i], 0) {
				return bad, fmt.Sprintf("size[%d]", i), fmt.Errorf("must be finite and > 0, got %v", s.Size[i])
			}
		}
		sh, err := contact.NewHeightfield(nx, ny, s.Size[0]/float64(nx-1), s.Size[1]/float64(ny-1), h)
		if err != nil {
			return bad, "heights", err
		}
		return sh, "", nil
	}
	var m *mesh.Mesh
	field := "vertices"
	switch {
	case s.Mesh != "" && (len(s.Vertices) > 0 || len(s.Triangles) > 0):
		return bad, "mesh", fmt.Errorf("give mesh or vertices and triangles, not both")
	case s.Mesh != "":
		field = "mesh"
		scale := s.Scale
		if scale == (mgl64.Vec3{}) {
			scale = mgl64.Vec3{1, 1, 1}
		}
		var err error
		if m, err = mesh.Load(s.Mesh, scale); err != nil {
			return bad, field, err
		}
	case len(s.Triangles) == 0:
		return bad, "triangles", fmt.Errorf("required (or mesh: an STL or OBJ file)")
	default:
		if s.Scale != (mgl64.Vec3{}) {
			return bad, "scale", fmt.Errorf("applies to a mesh only")
		}
		m = &mesh.Mesh{Vertices: s.Vertices, Triangles: s.Triangles}
	}
	sh, err := contact.NewTriMesh(m)
	if err != nil {
		return bad, field, err
	}
	return sh, "", nil
}

// validateStaticMesh checks a trimesh or heightfield shape: static, and
// buildable (the error names the field).
func (s *ShapeSpec) validateStaticMesh(p *problems, path string, static bool) {
	if !static {
		p.add(path+".type", "a %s must be a world shape or belong to a static body", s.Type)
	}
	if _, field, err := s.staticMeshShape(); err != nil {
		p.add(path+"."+field, "%v", err)
	}
}

// hfieldAsset reads an MJCF <hfield> asset with inline elevation data:
// nrow × ncol values, row r at y from −size[1] (r = 0) to +size[1], column
// c along x from −size[0] to +size[0], normalized to [0, 1] (MuJoCo
// normalizes elevation data) and scaled by size[2]; the base depth
// size[3] is not needed (the solid lies below the surface). An asset with
// a file reads it (hfieldFile: PNG or MuJoCo's binary form).
func (m *mjcf) hfieldAsset(a *xnode) error {
	name, ok := a.attr("name")
	file, hasFile := a.attr("file")
	if !ok {
		base := filepath.Base(file)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	e := elem{xnode: a}
	size, _, err := m.efloats(e, "size", 4)
	if err != nil {
		return err
	}
	if len(size) != 4 || !(size[0] > 0) || !(size[1] > 0) || !(size[2] > 0) || size[3] < 0 {
		return m.errAt(a, "size: want 4 numbers radius_x, radius_y, elevation_z > 0 and base_z ≥ 0 (m), got %v", size)
	}
	var nr, nc float64
	var el []float64
	if hasFile {
		if nr, nc, el, err = m.hfieldAssetFile(a, name, file); err != nil || el == nil {
			return err
		}
	} else {
		nr, _ = m.efloat(e, "nrow", 0)
		nc, _ = m.efloat(e, "ncol", 0)
		if nr < 2 || nc < 2 || nr != math.Trunc(nr) || nc != math.Trunc(nc) || nr*nc > 1<<24 {
			return m.errAt(a, "nrow, ncol: want integers ≥ 2 (with inline elevation), got %v and %v", nr, nc)
		}
		el, _, err = m.efloats(e, "elevation", int(nr*nc))
		if err != nil {
			return err
		}
		if len(el) != int(nr*nc) {
			return m.errAt(a, "elevation: want nrow·ncol = %d values, got %d", int(nr*nc), len(el))
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, z := range el {
		lo, hi = math.Min(lo, z), math.Max(hi, z)
	}
	span := hi - lo
	if !(span > 0) {
		span = 1 // a flat field: all heights 0
	}
	sh := ShapeSpec{Type: contact.Heightfield, Size: mgl64.Vec3{2 * size[0], 2 * size[1], size[2]}}
	for r := 0; r < int(nr); r++ {
		row := make([]float64, int(nc))
		for c := range row {
			row[c] = (el[r*int(nc)+c] - lo) / span
		}
		sh.Heights = append(sh.Heights, row)
	}
	if m.hfields == nil {
		m.hfields = map[string]ShapeSpec{}
	}
	if _, dup := m.hfields[name]; dup {
		return m.errAt(a, "hfield asset %q defined twice", clip(name))
	}
	m.hfields[name] = sh
	return nil
}

// hfieldGeom makes sh the heightfield of the geom's hfield asset; the geom
// must be static (the worldbody or a static body).
func (m *mjcf) hfieldGeom(e elem, n *xnode, static bool, sh *ShapeSpec) error {
	name, _ := e.get("hfield")
	a, ok := m.hfields[name]
	if !ok {
		return m.errAt(n, "hfield: no hfield asset %q with inline elevation", clip(name))
	}
	if !static {
		return m.errAt(n, "an hfield geom must be in the worldbody or a static body")
	}
	sh.Type, sh.Size, sh.Heights = a.Type, a.Size, a.Heights
	return nil
}
