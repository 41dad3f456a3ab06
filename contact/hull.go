package contact

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/mesh"
)

// Hull is a convex polyhedron prepared for collision: a mesh.Hull (in the
// shape's local frame) with the vertex adjacency that the support mapping
// climbs and the length scale the tolerances use. Build it with
// NewConvexHull or NewConvex; it is read-only afterwards and may be shared
// by any number of shapes and goroutines.
type Hull struct {
	mesh   *mesh.Hull
	adjOff []int32 // vertex v's neighbours are adj[adjOff[v]:adjOff[v+1]]
	adj    []int32
	vfOff  []int32 // vertex v's faces are vf[vfOff[v]:vfOff[v+1]]
	vf     []int32
	ffOff  []int32 // face f's neighbours across its edges are ff[ffOff[f]:ffOff[f+1]]
	ff     []int32
	extent float64 // half the largest side of the vertices' box, m: the hull's size, wherever its origin
}

// climbMin is the vertex (face) count from which the support mapping (the
// best-aligned face) climbs the vertex (face) graph instead of scanning
// every vertex (face): below it a scan is as fast.
const climbMin = 32

// Mesh returns the hull's polyhedron (read-only: Collide relies on it not
// changing).
func (h *Hull) Mesh() *mesh.Hull { return h.mesh }

// newHull prepares m for collision.
func newHull(m *mesh.Hull) (*Hull, error) {
	if m == nil {
		return nil, errors.New("nil hull")
	}
	nv := len(m.Vertices)
	if nv < 4 || len(m.Faces) < 4 || len(m.Normals) != len(m.Faces) || len(m.Offsets) != len(m.Faces) {
		return nil, fmt.Errorf("hull has %d vertices, %d faces, %d normals and %d offsets: want at least 4 vertices and one normal and offset per face (mesh.NewHull builds one)", nv, len(m.Faces), len(m.Normals), len(m.Offsets))
	}
	h := &Hull{mesh: m}
	lo, hi := m.Vertices[0], m.Vertices[0]
	for i, v := range m.Vertices {
		if !num.FiniteVec(v) {
			return nil, fmt.Errorf("hull vertex %d is not finite: %v", i, v)
		}
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = math.Min(lo[k], v[k]), math.Max(hi[k], v[k])
		}
	}
	for k := 0; k < 3; k++ {
		h.extent = math.Max(h.extent, 0.5*(hi[k]-lo[k]))
	}
	for f, loop := range m.Faces {
		if len(loop) < 3 {
			return nil, fmt.Errorf("hull face %d has %d vertices, want ≥ 3", f, len(loop))
		}
		for _, v := range loop {
			if v < 0 || v >= nv {
				return nil, fmt.Errorf("hull face %d: vertex index %d out of range [0, %d)", f, v, nv)
			}
		}
		if !num.FiniteVec(m.Normals[f]) || !num.Finite(m.Offsets[f]) {
			return nil, fmt.Errorf("hull face %d: normal %v or offset %v is not finite", f, m.Normals[f], m.Offsets[f])
		}
	}
	if !(h.extent > 0) || math.IsInf(h.extent, 0) {
		return nil, fmt.Errorf("hull extent %v: want finite and > 0", h.extent)
	}
	nf := len(m.Faces)
	for _, e := range m.Edges {
		if e.V[0] < 0 || e.V[0] >= nv || e.V[1] < 0 || e.V[1] >= nv || e.F[0] < 0 || e.F[0] >= nf || e.F[1] < 0 || e.F[1] >= nf {
			return nil, fmt.Errorf("hull edge %v (faces %v) out of range: %d vertices, %d faces", e.V, e.F, nv, nf)
		}
	}
	h.adjOff, h.adj = csr(nv, func(emit func(int, int32)) {
		for _, e := range m.Edges {
			emit(e.V[0], int32(e.V[1]))
			emit(e.V[1], int32(e.V[0]))
		}
	})
	h.vfOff, h.vf = csr(nv, func(emit func(int, int32)) {
		for f, loop := range m.Faces {
			for _, v := range loop {
				emit(v, int32(f))
			}
		}
	})
	h.ffOff, h.ff = csr(nf, func(emit func(int, int32)) {
		for _, e := range m.Edges {
			emit(e.F[0], int32(e.F[1]))
			emit(e.F[1], int32(e.F[0]))
		}
	})
	return h, nil
}

// csr builds an adjacency list of n rows from the (row, value) pairs that
// each calls emit with (called twice: counting, then filling), in order.
func csr(n int, each func(emit func(int, int32))) (off, list []int32) {
	off = make([]int32, n+1)
	each(func(r int, _ int32) { off[r+1]++ })
	for r := 0; r < n; r++ {
		off[r+1] += off[r]
	}
	list = make([]int32, off[n])
	fill := make([]int32, n)
	each(func(r int, v int32) {
		list[off[r]+fill[r]] = v
		fill[r]++
	})
	return off, list
}

// NewConvexHull returns a Convex shape of the hull m (in the shape's local
// frame, as mesh.NewHull built it), or an error if m is nil or
// inconsistent (non-finite vertices, faces of fewer than 3 vertices,
// indices out of range).
func NewConvexHull(m *mesh.Hull) (Shape, error) {
	h, err := newHull(m)
	if err != nil {
		return Shape{}, &FieldError{What: "convex", Field: "Hull", Value: nil, Reason: err.Error()}
	}
	return Shape{Kind: Convex, Hull: h}, nil
}

// NewConvex returns a Convex shape of the convex hull of points (local
// frame, m) by mesh.NewHull with distance tolerance tol (m; ≤ 0 for the
// round-off default). Degenerate point sets (fewer than 4 points,
// coincident, collinear or coplanar) give mesh's error, wrapped.
func NewConvex(points []mgl64.Vec3, tol float64) (Shape, error) {
	m, err := mesh.NewHull(points, tol)
	if err != nil {
		return Shape{}, fmt.Errorf("convex: %w", err)
	}
	return NewConvexHull(m)
}

// support returns the index of the hull vertex farthest along the local
// direction d: a scan for small hulls, else a climb from vertex 0 over the
// vertex graph to a vertex no neighbour improves on, which on a convex
// polyhedron is the maximum (ties go to the first vertex found).
func (h *Hull) support(d mgl64.Vec3) int {
	vs := h.mesh.Vertices
	if len(vs) < climbMin {
		best, bd := 0, vs[0].Dot(d)
		for i := 1; i < len(vs); i++ {
			if x := vs[i].Dot(d); x > bd {
				best, bd = i, x
			}
		}
		return best
	}
	return climb(vs, h.adjOff, h.adj, d, 0, vs[0].Dot(d))
}

// climb moves from node cur (score cd) to its best neighbour (off, list:
// the graph's adjacency) while that improves on p[node]·d, and returns the
// node none improves on: bounded by the node count.
func climb(p []mgl64.Vec3, off, list []int32, d mgl64.Vec3, cur int, cd float64) int {
	for steps := 0; steps < len(p); steps++ {
		next := -1
		for _, j := range list[off[cur]:off[cur+1]] {
			if x := p[j].Dot(d); x > cd {
				next, cd = int(j), x
			}
		}
		if next < 0 {
			break
		}
		cur = next
	}
	return cur
}

// face returns the face whose outward normal is most aligned with the
// local direction d: on a hull of fewer than climbMin faces by a scan (the
// first on ties); on a larger one the best of the faces around the support
// vertex along d, then across edges to any better neighbour until none is
// (a face touching the support vertex, or better aligned still).
func (h *Hull) face(d mgl64.Vec3) int {
	ns := h.mesh.Normals
	best, bd := 0, math.Inf(-1)
	if len(ns) < climbMin {
		for f, n := range ns {
			if x := n.Dot(d); x > bd {
				best, bd = f, x
			}
		}
		return best
	}
	v := h.support(d)
	for _, f := range h.vf[h.vfOff[v]:h.vfOff[v+1]] {
		if x := ns[f].Dot(d); x > bd {
			best, bd = int(f), x
		}
	}
	return climb(ns, h.ffOff, h.ff, d, best, bd)
}

// hullFeatureAt keys the point of hull h touching along the outward local
// direction d: the face most aligned with d.
func hullFeatureAt(h *Hull, d mgl64.Vec3) uint32 {
	return FeatureFace | uint32(h.face(d))&0xffff
}
