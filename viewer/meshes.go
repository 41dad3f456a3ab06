package viewer

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// DefaultMaxTriangles is the default cap on the triangles /api/scene
// sends for a scene's hulls, triangle meshes and heightfields together
// (8.4 MB of JSON for a 633 × 633 heightfield drawn at stride 2, 199 712
// triangles, which headless Chromium on 2 cores draws 0.3 s after it
// opens the page: BenchmarkViewSceneBigField and .ci/viewer).
const DefaultMaxTriangles = 200_000

// boxTriangles is the triangle count of a bounding box drawn in place of
// a mesh over the cap.
const boxTriangles = 12

// meshJSON is the triangle data of one hull, triangle mesh or heightfield
// geom: Vertices x, y, z per vertex in the geom's frame, Faces three
// vertex indices per triangle (counter-clockwise seen from outside, or
// from above for a heightfield), and a note when the cap changed what is
// drawn.
type meshJSON struct {
	vertices []float64
	faces    []int32
	note     string
}

// shapeTriangles returns the triangle count of a hull (its faces fanned),
// triangle mesh or heightfield; 0 for the other kinds.
func shapeTriangles(s contact.Shape) int {
	switch s.Kind {
	case contact.Convex:
		n := 0
		for _, f := range s.Hull.Mesh().Faces {
			n += len(f) - 2
		}
		return n
	case contact.TriMesh:
		return s.Mesh.Triangles()
	case contact.Heightfield:
		nx, ny, _, _, _ := s.Field.Grid()
		return 2 * (nx - 1) * (ny - 1)
	}
	return 0
}

// meshBudget decides how each mesh geom of geoms is drawn under a cap of
// maxTris triangles: geoms are served in order of their triangle count
// (smallest first, ties by index), each whole if it fits what is left; a
// heightfield that does not fit is decimated to what is left, and a hull
// or triangle mesh that does not fit is drawn as its bounding box (12
// triangles, even past the cap). It returns the triangle data by geom
// index (nil for other kinds) and the page's notes.
func meshBudget(geoms []stepper.Geom, maxTris int) ([]*meshJSON, []string) {
	out := make([]*meshJSON, len(geoms))
	var order []int
	count := make([]int, len(geoms))
	for i, g := range geoms {
		if g.Shape.Validate() != nil {
			continue // New's World was built, so never; no panic if not
		}
		if n := shapeTriangles(g.Shape); n > 0 {
			order = append(order, i)
			count[i] = n
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(count[a], count[b]) })
	left := maxTris
	var notes []string
	for _, i := range order {
		s := geoms[i].Shape
		var m *meshJSON
		switch {
		case count[i] <= left:
			m = fullMesh(s)
		case s.Kind == contact.Heightfield:
			m = decimatedField(s.Field, left, maxTris)
		}
		if m == nil { // over the cap and not decimable
			lo, hi := localBounds(s)
			m = boxMesh(lo, hi)
			m.note = fmt.Sprintf("%s geom %d (%d triangles) is drawn as its bounding box: the viewer sends at most %d triangles", s.Kind, i, count[i], maxTris)
		}
		left -= len(m.faces) / 3
		if m.note != "" {
			notes = append(notes, m.note)
		}
		out[i] = m
	}
	return out, notes
}

// fullMesh returns every triangle of a hull, triangle mesh or heightfield.
func fullMesh(s contact.Shape) *meshJSON {
	m := &meshJSON{}
	switch s.Kind {
	case contact.Convex:
		h := s.Hull.Mesh()
		m.vertices = appendVecs(make([]float64, 0, 3*len(h.Vertices)), h.Vertices)
		for _, f := range h.Faces { // a fan: the faces are convex polygons
			for k := 1; k+1 < len(f); k++ {
				m.faces = append(m.faces, int32(f[0]), int32(f[k]), int32(f[k+1]))
			}
		}
	case contact.TriMesh:
		// Corners shared by triangles (equal bits) become one vertex, in
		// order of first use: deterministic, and the page's normals and
		// edges see the mesh's connectivity.
		idx := make(map[mgl64.Vec3]int32)
		n := s.Mesh.Triangles()
		m.faces = make([]int32, 0, 3*n)
		for t := range n {
			for _, v := range s.Mesh.Triangle(t) {
				k, ok := idx[v]
				if !ok {
					k = int32(len(m.vertices) / 3)
					idx[v] = k
					m.vertices = append(m.vertices, v[0], v[1], v[2])
				}
				m.faces = append(m.faces, k)
			}
		}
	case contact.Heightfield:
		nx, ny, _, _, _ := s.Field.Grid()
		return fieldMesh(s.Field, 1, nx, ny)
	}
	return m
}

// decimatedField returns the heightfield on every s-th sample along x and
// y (and the last row and column), with the smallest s whose triangles fit
// maxTris, and a note saying so that names the whole scene's cap; nil if
// not even one cell fits.
func decimatedField(h *contact.HeightGrid, maxTris, sceneCap int) *meshJSON {
	nx, ny, _, _, _ := h.Grid()
	for s := 2; ; s++ {
		cx, cy := strided(nx, s), strided(ny, s)
		if n := 2 * (cx - 1) * (cy - 1); n <= maxTris {
			m := fieldMesh(h, s, nx, ny)
			m.note = fmt.Sprintf("heightfield %d × %d (%d triangles) is drawn with a sample stride of %d (%d × %d samples, %d triangles): the viewer sends at most %d triangles in all",
				nx, ny, 2*(nx-1)*(ny-1), s, cx, cy, n, sceneCap)
			return m
		}
		if cx == 2 && cy == 2 {
			return nil
		}
	}
}

// strided is the number of samples 0, s, 2s, … of n, with n−1 added when
// the stride misses it.
func strided(n, s int) int { return (n-2)/s + 2 }

// fieldMesh returns the heightfield's vertices on samples 0, s, 2s, …
// (and the last) along x and y, triangulated as contact.HeightGrid
// triangulates a cell: (i,j)(i+1,j)(i+1,j+1) and (i,j)(i+1,j+1)(i,j+1).
// With s = 1 the triangles are the field's own, 2c and 2c+1 of cell c.
func fieldMesh(h *contact.HeightGrid, s, nx, ny int) *meshJSON {
	_, _, dx, dy, z := h.Grid()
	pick := func(n int) []int {
		var k []int
		for i := 0; i < n-1; i += s {
			k = append(k, i)
		}
		return append(k, n-1)
	}
	xs, ys := pick(nx), pick(ny)
	x0, y0 := -0.5*float64(nx-1)*dx, -0.5*float64(ny-1)*dy
	m := &meshJSON{vertices: make([]float64, 0, 3*len(xs)*len(ys)), faces: make([]int32, 0, 6*(len(xs)-1)*(len(ys)-1))}
	for _, j := range ys {
		for _, i := range xs {
			m.vertices = append(m.vertices, x0+float64(i)*dx, y0+float64(j)*dy, z[j*nx+i])
		}
	}
	w := int32(len(xs))
	for j := range int32(len(ys) - 1) {
		for i := range w - 1 {
			a, b, c, d := j*w+i, j*w+i+1, (j+1)*w+i+1, (j+1)*w+i
			m.faces = append(m.faces, a, b, c, a, c, d)
		}
	}
	return m
}

// localBounds returns the shape's bounding box in its own frame.
func localBounds(s contact.Shape) (lo, hi mgl64.Vec3) {
	b := s.Bounds(contact.IdentityPose(), 0)
	return b.Min, b.Max
}

// boxMesh returns the box [lo, hi] as 8 vertices and 12 outward triangles.
func boxMesh(lo, hi mgl64.Vec3) *meshJSON {
	m := &meshJSON{}
	for k := range 8 { // corner k: bit 0 picks x, bit 1 y, bit 2 z
		c := [2]mgl64.Vec3{lo, hi}
		m.vertices = append(m.vertices, c[k&1][0], c[k>>1&1][1], c[k>>2&1][2])
	}
	m.faces = []int32{
		0, 2, 3, 0, 3, 1, // z = lo
		4, 5, 7, 4, 7, 6, // z = hi
		0, 1, 5, 0, 5, 4, // y = lo
		2, 6, 7, 2, 7, 3, // y = hi
		0, 4, 6, 0, 6, 2, // x = lo
		1, 3, 7, 1, 7, 5, // x = hi
	}
	return m
}

func appendVecs(b []float64, vs []mgl64.Vec3) []float64 {
	for _, v := range vs {
		b = append(b, v[0], v[1], v[2])
	}
	return b
}

// meshReach returns how far the mesh's vertices reach from the body's
// centre of mass, the geom placed at pos with rotation q (unit, [w,x,y,z]).
func meshReach(vertices []float64, pos [3]float64, q [4]float64) float64 {
	r := 0.0
	rot := mgl64.Quat{W: q[0], V: mgl64.Vec3{q[1], q[2], q[3]}}
	for i := 0; i+2 < len(vertices); i += 3 {
		p := rot.Rotate(mgl64.Vec3{vertices[i], vertices[i+1], vertices[i+2]}).Add(pos)
		r = math.Max(r, p.Len())
	}
	return r
}
