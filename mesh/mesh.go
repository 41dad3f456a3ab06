package mesh

import (
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// ErrNotClosed is wrapped by the error of a mesh that does not bound a
// solid: an edge without a partner, or two triangles running one edge in
// the same direction (inconsistent orientation or more than two
// triangles on an edge).
var ErrNotClosed = errors.New("mesh is not closed and consistently oriented")

// Mesh is a triangle mesh: vertex positions and triangles indexing them.
// A triangle's corners run counter-clockwise seen from outside (the
// right-hand normal points out), as in STL and OBJ files.
type Mesh struct {
	Vertices  []mgl64.Vec3
	Triangles [][3]int
}

// Validate reports every vertex that is not finite and every triangle
// index out of range, joined with errors.Join, or nil.
func (m *Mesh) Validate() error {
	var errs []error
	for i, v := range m.Vertices {
		if !num.FiniteVec(v) {
			errs = append(errs, &num.FieldError{What: "mesh", Field: fmt.Sprintf("Vertices[%d]", i), Value: v,
				Reason: fmt.Sprintf("must be finite, got %v", v)})
		}
	}
	for t, tri := range m.Triangles {
		for k, i := range tri {
			if i < 0 || i >= len(m.Vertices) {
				errs = append(errs, &num.FieldError{What: "mesh", Field: fmt.Sprintf("Triangles[%d][%d]", t, k), Value: i,
					Reason: fmt.Sprintf("vertex index %d out of range [0, %d)", i, len(m.Vertices))})
			}
		}
	}
	return errors.Join(errs...)
}

// degenerate reports whether a triangle repeats a vertex index; such a
// triangle encloses nothing and is skipped by Closed and MassProperties.
func degenerate(t [3]int) bool { return t[0] == t[1] || t[1] == t[2] || t[2] == t[0] }

// Closed returns nil if m (valid) bounds a solid: every edge of its
// non-degenerate triangles is run once in each direction. Otherwise the
// error wraps ErrNotClosed and names the edge and triangle. Vertices must
// be shared by index: coincident copies of a vertex do not join edges
// (ReadSTL welds exact copies).
func (m *Mesh) Closed() error {
	type half struct{ u, w, tri int }
	hs := make([]half, 0, 3*len(m.Triangles))
	for t, tri := range m.Triangles {
		if degenerate(tri) {
			continue
		}
		for i := 0; i < 3; i++ {
			hs = append(hs, half{tri[i], tri[(i+1)%3], t})
		}
	}
	cmp := func(a, b half) int {
		if a.u != b.u {
			return a.u - b.u
		}
		if a.w != b.w {
			return a.w - b.w
		}
		return a.tri - b.tri
	}
	slices.SortFunc(hs, cmp)
	for i, h := range hs {
		if i > 0 && hs[i-1].u == h.u && hs[i-1].w == h.w {
			return fmt.Errorf("mesh: %w: triangles %d and %d both run edge %d→%d in the same direction", ErrNotClosed, hs[i-1].tri, h.tri, h.u, h.w)
		}
		if _, ok := slices.BinarySearchFunc(hs, half{h.w, h.u, -1}, func(a, b half) int {
			if a.u != b.u {
				return a.u - b.u
			}
			return a.w - b.w
		}); !ok {
			return fmt.Errorf("mesh: %w: edge %d→%d of triangle %d has no triangle on its other side (a hole or a flipped triangle)", ErrNotClosed, h.u, h.w, h.tri)
		}
	}
	return nil
}

// MassProperties returns the mass (kg), centre of mass (m) and inertia
// tensor about the centre of mass (kg·m²) of the solid m bounds, at
// uniform density (kg/m³), by the method of Hull.MassProperties. The
// mesh must be valid and closed (Closed); the error names the problem.
// An inside-out mesh (all triangles clockwise from outside) has negative
// volume and is an error.
func (m *Mesh) MassProperties(density float64) (mass float64, com mgl64.Vec3, inertia mgl64.Mat3, err error) {
	if err := checkDensity("mesh", density); err != nil {
		return 0, com, inertia, err
	}
	if err := m.Validate(); err != nil {
		return 0, com, inertia, err
	}
	if err := m.Closed(); err != nil {
		return 0, com, inertia, err
	}
	in := newIntegrals(m.Vertices)
	for _, t := range m.Triangles {
		if !degenerate(t) {
			in.add(m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]])
		}
	}
	vol, c, I := in.result()
	return scaled("mesh", density, vol, c, I)
}

// Hull returns the convex hull of m's vertices (NewHull), the shape a
// mesh given for a moving body takes.
func (m *Mesh) Hull(tol float64) (*Hull, error) { return NewHull(m.Vertices, tol) }

// Scale multiplies every vertex coordinate by s componentwise. A scale
// with an odd number of negative components mirrors the mesh; the
// triangles are then reversed so that they still run counter-clockwise
// seen from outside. Every component must be finite and non-zero.
func (m *Mesh) Scale(s mgl64.Vec3) error {
	for k := 0; k < 3; k++ {
		if !num.Finite(s[k]) || s[k] == 0 {
			return &num.FieldError{What: "mesh", Field: fmt.Sprintf("scale[%d]", k), Value: s[k],
				Reason: fmt.Sprintf("must be finite and non-zero, got %v", s[k])}
		}
	}
	for i, v := range m.Vertices {
		m.Vertices[i] = mgl64.Vec3{v[0] * s[0], v[1] * s[1], v[2] * s[2]}
	}
	neg := 0
	for _, c := range s {
		if c < 0 {
			neg++
		}
	}
	if neg%2 == 1 {
		for i, t := range m.Triangles {
			m.Triangles[i] = [3]int{t[0], t[2], t[1]}
		}
	}
	return nil
}
