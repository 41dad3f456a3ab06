package contact

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/mesh"
)

// Triangle meshes and heightfields (package documentation, "Triangle
// meshes"): each triangle is a convex shape of three vertices and collides
// with a convex shape through GJK and EPA (separation) and the face
// manifold of convexPair, at most 4 points per triangle; points repeated
// by neighbouring triangles are merged (dedupe) and each group of points
// sharing a normal (within 2.6°) is reduced to 4 (reduceMesh). Internal edges
// are handled as in Bullet's btAdjustInternalEdgeContacts (Coumans, Bullet
// Physics SDK, btInternalEdgeUtility, 2010): a contact normal of a point on an edge that
// is flat or concave (the triangle and its neighbour bend by less than
// flatSin, or towards each other), or on a vertex whose two edges in the
// triangle are both such, is replaced by the triangle's face normal and
// the manifold is clipped against the triangle as reference face; on a
// convex edge a normal outside the wedge of the two face normals belongs
// to the neighbour's face and is dropped. A box sliding across a flat
// triangulated plane so sees one plane. A sphere takes the closest-feature
// rule of sphereTri instead.

// flatSin is the sine of the largest dihedral bend (radians, about) under
// which a shared edge counts as flat: 1e-3 rad, far above the rounding of
// a triangulated plane (1e-16) and below any bend a terrain means.
const flatSin = 1e-3

// maxMeshTris is the most triangles a TriMesh or Heightfield may have: the
// triangle index fills the low 24 bits of the mesh's Key half.
const maxMeshTris = 1 << 24

// meshTri is one triangle in the local frame of its mesh or heightfield.
type meshTri struct {
	v      [3]mgl64.Vec3
	n      mgl64.Vec3    // unit normal, right-hand rule over v[0], v[1], v[2]
	convex [3]bool       // edge k (v[k] → v[k+1]) is a real edge: convex, or open (no neighbour)
	flat   [3]bool       // edge k bends by less than flatSin either way (neither convex nor concave)
	adjN   [3]mgl64.Vec3 // the neighbour's unit normal across edge k (any bend), 0 for an open edge
	adjOff [3]mgl64.Vec3 // the neighbour's vertex off edge k
	nbr    [3]mgl64.Vec3 // the neighbour's unit normal across a convex edge k, else 0
	extent float64       // largest distance from the centroid to a vertex, m
}

// support returns the vertex farthest along the local direction l (the
// lowest index on ties).
func (t *meshTri) support(l mgl64.Vec3) mgl64.Vec3 {
	k, best := 0, t.v[0].Dot(l)
	for i := 1; i < 3; i++ {
		if d := t.v[i].Dot(l); d > best {
			k, best = i, d
		}
	}
	return t.v[k]
}

// finish sets n and extent from v; it reports false for a degenerate
// (zero-area) triangle.
func (t *meshTri) finish() bool {
	c := t.v[1].Sub(t.v[0]).Cross(t.v[2].Sub(t.v[0]))
	l := c.Len()
	if !(l > 0) || !num.Finite(l) {
		return false
	}
	t.n = c.Mul(1 / l)
	m := t.v[0].Add(t.v[1]).Add(t.v[2]).Mul(1.0 / 3)
	t.extent = 0
	for _, v := range t.v {
		t.extent = math.Max(t.extent, v.Sub(m).Len())
	}
	return true
}

// setEdge classifies edge k of t against the neighbour whose unit normal
// is m and whose vertex off the edge is r.
func (t *meshTri) setEdge(k int, m, r mgl64.Vec3) {
	t.adjN[k], t.adjOff[k] = m, r
	d := r.Sub(t.v[k])
	up := t.n.Dot(d)
	if up < -flatSin*d.Len() {
		t.convex[k], t.flat[k], t.nbr[k] = true, false, m
		return
	}
	t.convex[k], t.flat[k], t.nbr[k] = false, up <= flatSin*d.Len(), mgl64.Vec3{}
}

// MeshTree is the triangles of a TriMesh shape in its local frame with an AABB tree
// over its triangles, built once by NewTriMesh (median splits along the
// longest axis of the centroids, ties by triangle index: the same mesh
// gives the same tree). It is immutable and may be shared by any number
// of shapes and goroutines.
type MeshTree struct {
	tris   []meshTri
	nodes  []bvhNode
	order  []int32 // triangle indices in leaf order
	lo, hi mgl64.Vec3
}

// bvhNode is a node of the AABB tree: a leaf holds order[start :
// start+count]; an inner node (count = 0) has children at index+1 and
// right.
type bvhNode struct {
	lo, hi              mgl64.Vec3
	right, start, count int32
}

// bvhLeaf is the most triangles a leaf holds.
const bvhLeaf = 4

// NewTriMesh returns a TriMesh shape of the triangles of m (local frame,
// m), corners counter-clockwise seen from the side that pushes (the
// right-hand normal points out of the solid, as STL and OBJ have it). It
// fails, naming the triangle or vertex, on an invalid mesh
// (mesh.Mesh.Validate), a zero-area triangle, no triangles, or more than
// 2²⁴ triangles. Edges shared by exactly two consistently wound
// triangles are classified once as convex or flat/concave for the
// internal-edge rule (package documentation).
func NewTriMesh(m *mesh.Mesh) (Shape, error) {
	if m == nil || len(m.Triangles) == 0 {
		return Shape{}, &FieldError{What: "trimesh", Field: "Triangles", Value: 0, Reason: "must have at least one triangle, got 0"}
	}
	if err := m.Validate(); err != nil {
		return Shape{}, fmt.Errorf("trimesh: %w", err)
	}
	if len(m.Triangles) > maxMeshTris {
		return Shape{}, &FieldError{What: "trimesh", Field: "Triangles", Value: len(m.Triangles), Reason: fmt.Sprintf("at most %d triangles, got %d", maxMeshTris, len(m.Triangles))}
	}
	tm := &MeshTree{tris: make([]meshTri, len(m.Triangles))}
	for i, tr := range m.Triangles {
		t := &tm.tris[i]
		for k := 0; k < 3; k++ {
			t.v[k] = m.Vertices[tr[k]]
		}
		if !t.finish() {
			return Shape{}, &FieldError{What: "trimesh", Field: fmt.Sprintf("Triangles[%d]", i), Value: tr, Reason: fmt.Sprintf("has zero area (vertices %v %v %v)", t.v[0], t.v[1], t.v[2])}
		}
	}
	// Edge adjacency by sorting (lo, hi, triangle, edge) records: no map,
	// so the result does not depend on iteration order.
	type rec struct{ lo, hi, t, k int }
	recs := make([]rec, 0, 3*len(m.Triangles))
	for i, tr := range m.Triangles {
		for k := 0; k < 3; k++ {
			a, b := tr[k], tr[(k+1)%3]
			recs = append(recs, rec{min(a, b), max(a, b), i, k})
		}
	}
	slices.SortFunc(recs, func(x, y rec) int {
		return cmp.Or(cmp.Compare(x.lo, y.lo), cmp.Compare(x.hi, y.hi), cmp.Compare(x.t, y.t), cmp.Compare(x.k, y.k))
	})
	for i := range tm.tris {
		tm.tris[i].convex = [3]bool{true, true, true} // open until a neighbour is found
	}
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && recs[j].lo == recs[i].lo && recs[j].hi == recs[i].hi {
			j++
		}
		if j-i == 2 {
			x, y := recs[i], recs[i+1]
			// Consistent winding: the two run the edge in opposite directions.
			if m.Triangles[x.t][x.k] == m.Triangles[y.t][(y.k+1)%3] {
				tx, ty := &tm.tris[x.t], &tm.tris[y.t]
				tx.setEdge(x.k, ty.n, ty.v[(y.k+2)%3])
				ty.setEdge(y.k, tx.n, tx.v[(x.k+2)%3])
			}
		}
		i = j
	}
	tm.build()
	return Shape{Kind: TriMesh, Mesh: tm}, nil
}

// Triangles returns the number of triangles.
func (m *MeshTree) Triangles() int { return len(m.tris) }

// Triangle returns the corners of triangle i in the local frame.
func (m *MeshTree) Triangle(i int) [3]mgl64.Vec3 { return m.tris[i].v }

// Bounds returns the local AABB of all triangles.
func (m *MeshTree) Bounds() (lo, hi mgl64.Vec3) { return m.lo, m.hi }

func triBox(t *meshTri) (lo, hi mgl64.Vec3) {
	lo, hi = t.v[0], t.v[0]
	for k := 1; k < 3; k++ {
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = math.Min(lo[i], t.v[k][i]), math.Max(hi[i], t.v[k][i])
		}
	}
	return lo, hi
}

// build makes the AABB tree: nodes in depth-first order.
func (m *MeshTree) build() {
	n := len(m.tris)
	m.order = make([]int32, n)
	cent := make([]mgl64.Vec3, n)
	for i := range m.tris {
		m.order[i] = int32(i)
		t := &m.tris[i]
		cent[i] = t.v[0].Add(t.v[1]).Add(t.v[2]).Mul(1.0 / 3)
	}
	m.nodes = make([]bvhNode, 0, 2*n/bvhLeaf+1)
	m.split(0, n, cent)
	m.lo, m.hi = m.nodes[0].lo, m.nodes[0].hi
}

func (m *MeshTree) split(start, end int, cent []mgl64.Vec3) int32 {
	idx := int32(len(m.nodes))
	m.nodes = append(m.nodes, bvhNode{})
	lo, hi := triBox(&m.tris[m.order[start]])
	clo, chi := cent[m.order[start]], cent[m.order[start]]
	for _, t := range m.order[start+1 : end] {
		l, h := triBox(&m.tris[t])
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = math.Min(lo[i], l[i]), math.Max(hi[i], h[i])
			clo[i], chi[i] = math.Min(clo[i], cent[t][i]), math.Max(chi[i], cent[t][i])
		}
	}
	nd := bvhNode{lo: lo, hi: hi}
	if end-start <= bvhLeaf {
		nd.start, nd.count = int32(start), int32(end-start)
		m.nodes[idx] = nd
		return idx
	}
	ax := 0
	for i := 1; i < 3; i++ {
		if chi[i]-clo[i] > chi[ax]-clo[ax] {
			ax = i
		}
	}
	slices.SortFunc(m.order[start:end], func(a, b int32) int {
		return cmp.Or(cmp.Compare(cent[a][ax], cent[b][ax]), cmp.Compare(a, b))
	})
	mid := (start + end) / 2
	m.split(start, mid, cent)
	nd.right = m.split(mid, end, cent)
	m.nodes[idx] = nd
	return idx
}

// HeightGrid is the static grid of a Heightfield shape of heights in its local frame: nx × ny
// samples, spacing dx along x and dy along y, centred on the local origin
// (sample (i, j) at x = (i − (nx−1)/2)·dx, y = (j − (ny−1)/2)·dy, z =
// heights[j·nx + i]); the solid is below. Cell (i, j) is the two
// triangles (i,j)(i+1,j)(i+1,j+1) (index 2c) and (i,j)(i+1,j+1)(i,j+1)
// (index 2c+1), c = j·(nx−1) + i, which collide as a TriMesh's do,
// internal edges included. It is immutable once built.
type HeightGrid struct {
	nx, ny  int
	dx, dy  float64
	h       []float64
	x0, y0  float64
	lo, hi  mgl64.Vec3
	cellMin []float64 // per cell, the lowest of its four heights
	cellMax []float64
}

// NewHeightfield returns a Heightfield shape of nx × ny heights (m; row j
// is heights[j·nx : (j+1)·nx], along x) spaced dx and dy (m). It fails,
// naming the field and value, when nx or ny < 2, dx or dy is not finite
// and > 0, len(heights) ≠ nx·ny, a height is not finite, or the grid has
// more than 2²⁴ triangles.
func NewHeightfield(nx, ny int, dx, dy float64, heights []float64) (Shape, error) {
	const what = "heightfield"
	switch {
	case nx < 2:
		return Shape{}, &FieldError{What: what, Field: "nx", Value: nx, Reason: fmt.Sprintf("must be ≥ 2, got %d", nx)}
	case ny < 2:
		return Shape{}, &FieldError{What: what, Field: "ny", Value: ny, Reason: fmt.Sprintf("must be ≥ 2, got %d", ny)}
	case !(dx > 0) || math.IsInf(dx, 0):
		return Shape{}, &FieldError{What: what, Field: "dx", Value: dx, Reason: fmt.Sprintf("must be finite and > 0, got %v", dx)}
	case !(dy > 0) || math.IsInf(dy, 0):
		return Shape{}, &FieldError{What: what, Field: "dy", Value: dy, Reason: fmt.Sprintf("must be finite and > 0, got %v", dy)}
	case len(heights) != nx*ny:
		return Shape{}, &FieldError{What: what, Field: "heights", Value: len(heights), Reason: fmt.Sprintf("must have nx·ny = %d values, got %d", nx*ny, len(heights))}
	case 2*(nx-1)*(ny-1) > maxMeshTris:
		return Shape{}, &FieldError{What: what, Field: "nx", Value: nx, Reason: fmt.Sprintf("at most %d triangles, got %d", maxMeshTris, 2*(nx-1)*(ny-1))}
	}
	hf := &HeightGrid{nx: nx, ny: ny, dx: dx, dy: dy, h: slices.Clone(heights),
		x0: -0.5 * float64(nx-1) * dx, y0: -0.5 * float64(ny-1) * dy}
	zlo, zhi := math.Inf(1), math.Inf(-1)
	for i, z := range heights {
		if !num.Finite(z) {
			return Shape{}, &FieldError{What: what, Field: fmt.Sprintf("heights[%d]", i), Value: z, Reason: fmt.Sprintf("must be finite, got %v", z)}
		}
		zlo, zhi = math.Min(zlo, z), math.Max(zhi, z)
	}
	hf.lo = mgl64.Vec3{hf.x0, hf.y0, zlo}
	hf.hi = mgl64.Vec3{-hf.x0, -hf.y0, zhi}
	nc := (nx - 1) * (ny - 1)
	hf.cellMin, hf.cellMax = make([]float64, nc), make([]float64, nc)
	for j := 0; j < ny-1; j++ {
		for i := 0; i < nx-1; i++ {
			a, b, c, d := hf.at(i, j), hf.at(i+1, j), hf.at(i+1, j+1), hf.at(i, j+1)
			hf.cellMin[j*(nx-1)+i] = math.Min(math.Min(a, b), math.Min(c, d))
			hf.cellMax[j*(nx-1)+i] = math.Max(math.Max(a, b), math.Max(c, d))
		}
	}
	return Shape{Kind: Heightfield, Field: hf}, nil
}

// Grid returns the field's sample counts, spacings and heights (the
// slice is the field's own: do not modify it).
func (h *HeightGrid) Grid() (nx, ny int, dx, dy float64, heights []float64) {
	return h.nx, h.ny, h.dx, h.dy, h.h
}

func (h *HeightGrid) at(i, j int) float64 { return h.h[j*h.nx+i] }

func (h *HeightGrid) vert(i, j int) mgl64.Vec3 {
	return mgl64.Vec3{h.x0 + float64(i)*h.dx, h.y0 + float64(j)*h.dy, h.at(i, j)}
}

// plainTri returns triangle s (0 or 1) of cell (i, j), its normal and
// extent set but not its edges; ok false outside the grid.
func (h *HeightGrid) plainTri(i, j, s int) (t meshTri, ok bool) {
	if i < 0 || j < 0 || i >= h.nx-1 || j >= h.ny-1 {
		return t, false
	}
	a, b, c, d := h.vert(i, j), h.vert(i+1, j), h.vert(i+1, j+1), h.vert(i, j+1)
	if s == 0 {
		t.v = [3]mgl64.Vec3{a, b, c}
	} else {
		t.v = [3]mgl64.Vec3{a, c, d}
	}
	t.finish() // grid triangles have area dx·dy/2 > 0
	return t, true
}

// tri returns triangle s of cell (i, j) with its edges classified against
// the neighbouring triangles (open at the border of the grid).
func (h *HeightGrid) tri(i, j, s int) meshTri {
	t, _ := h.plainTri(i, j, s)
	t.convex = [3]bool{true, true, true}
	// Edge k of t and the neighbour across it: cell, triangle and the
	// neighbour's vertex off the edge.
	type nb struct{ i, j, s, off int }
	var ns [3]nb
	if s == 0 { // (a, b, c): a→b below, b→c right, c→a the diagonal
		ns = [3]nb{{i, j - 1, 1, 0}, {i + 1, j, 1, 2}, {i, j, 1, 2}}
	} else { // (a, c, d): a→c the diagonal, c→d above, d→a left
		ns = [3]nb{{i, j, 0, 1}, {i, j + 1, 0, 0}, {i - 1, j, 0, 0}}
	}
	for k, q := range ns {
		if u, ok := h.plainTri(q.i, q.j, q.s); ok {
			t.setEdge(k, u.n, u.v[q.off])
		}
	}
	return t
}

// extentOfLocalBox returns the Extent of the local box [lo, hi] placed by
// f (its centre and world half extents).
func extentOfLocalBox(f *frame, lo, hi mgl64.Vec3) Extent {
	c := f.toWorld(lo.Add(hi).Mul(0.5))
	e := hi.Sub(lo).Mul(0.5)
	var ext mgl64.Vec3
	for i := 0; i < 3; i++ {
		ext[i] = math.Abs(f.ax[0][i])*e[0] + math.Abs(f.ax[1][i])*e[1] + math.Abs(f.ax[2][i])*e[2]
	}
	return Extent{form: extentCentred, a: c, b: ext}
}

// meshPair is the contact of the TriMesh or Heightfield a with the convex
// shape b: every triangle under b's box in a's frame (the tree, or the
// grid cells) collides with b by triContact.
func meshPair(dst []Point, a Shape, fa *frame, b Shape, fb *frame, margin float64) []Point {
	// b's frame seen from a's, and b's box there.
	fl := frame{p: fa.toLocal(fb.p)}
	for k := 0; k < 3; k++ {
		d := fb.ax[k]
		fl.ax[k] = mgl64.Vec3{d.Dot(fa.ax[0]), d.Dot(fa.ax[1]), d.Dot(fa.ax[2])}
	}
	box := b.boundsIn(&fl, math.Max(margin, 0))
	B := newConvex(b, fb)
	tol := boxTol * B.extent()
	n0 := len(dst)
	if a.Kind == Heightfield {
		return reduceMesh(fieldPair(dst, a.Field, fa, box, b, fb, margin), n0, tol)
	}
	m := a.Mesh
	var stack [64]int32
	sp := 1
	for sp > 0 {
		sp--
		ni := stack[sp]
		nd := &m.nodes[ni]
		if !boxOverlap(nd.lo, nd.hi, box) {
			continue
		}
		if nd.count > 0 {
			for _, ti := range m.order[nd.start : nd.start+nd.count] {
				t := &m.tris[ti]
				lo, hi := triBox(t)
				if boxOverlap(lo, hi, box) {
					dst = dedupe(triContact(dst, t, uint32(ti), fa, b, fb, margin), n0, len(dst))
				}
			}
			continue
		}
		if sp+2 > len(stack) {
			continue // unreachable: a median-split tree of ≤ 2²⁴ triangles is ≤ 23 deep
		}
		stack[sp], stack[sp+1] = nd.right, ni+1 // left (ni+1) first
		sp += 2
	}
	return reduceMesh(dst, n0, tol)
}

// maxReduce is the most points of one mesh pair reduceMesh handles; a
// pair with more keeps them all.
const maxReduce = 256

// groupCos is the cosine above which reduceMesh puts two normals in one
// group: 1 − 1e-3, normals within 2.6°, so that a box on a gently curved
// terrain (neighbouring triangles bent by a fraction of a degree) keeps 4
// points per bump instead of 4 per triangle.
const groupCos = 1 - 1e-3

// reduceMesh reduces each group of the points dst[n0:] whose normals are
// within groupCos of the group's first to at most 4 by reduce4's rule (pick4: the
// deepest, the farthest from it, the largest triangle, the most added
// area; depth ties within tol), keeping their order: a shape resting on
// coplanar triangles gets the manifold it would get on their plane.
func reduceMesh(dst []Point, n0 int, tol float64) []Point {
	n := len(dst) - n0
	if n <= 4 || n > maxReduce {
		return dst
	}
	pts := dst[n0:]
	var lead [maxReduce]int16
	var keep [maxReduce]bool
	var members [maxReduce]int
	var cand [maxReduce]clipVert
	for i := range pts {
		lead[i] = int16(i)
		for j := 0; j < i; j++ {
			if lead[j] == int16(j) && pts[j].Normal.Dot(pts[i].Normal) >= groupCos {
				lead[i] = int16(j)
				break
			}
		}
	}
	for l := range pts {
		if lead[l] != int16(l) {
			continue
		}
		m := 0
		for i := l; i < n; i++ {
			if lead[i] == int16(l) {
				members[m] = i
				m++
			}
		}
		if m <= 4 {
			for _, i := range members[:m] {
				keep[i] = true
			}
			continue
		}
		nl := pts[l].Normal
		t1 := num.AnyPerp(nl)
		t2 := nl.Cross(t1)
		for k, i := range members[:m] {
			cand[k] = clipVert{x: t1.Dot(pts[i].Pos), y: t2.Dot(pts[i].Pos), z: pts[i].Gap}
		}
		for _, k := range pick4(cand[:m], tol) {
			keep[members[k]] = true
		}
	}
	out := 0
	for i := range pts {
		if keep[i] {
			pts[out] = pts[i]
			out++
		}
	}
	return dst[:n0+out]
}

func boxOverlap(lo, hi mgl64.Vec3, b AABB) bool {
	return lo[0] <= b.Max[0] && b.Min[0] <= hi[0] &&
		lo[1] <= b.Max[1] && b.Min[1] <= hi[1] &&
		lo[2] <= b.Max[2] && b.Min[2] <= hi[2]
}

// fieldPair collides b with the triangles of the cells under its local
// box, row by row.
func fieldPair(dst []Point, h *HeightGrid, fa *frame, box AABB, b Shape, fb *frame, margin float64) []Point {
	cell := func(x, x0, d float64, n int) int {
		c := math.Floor((x - x0) / d)
		return int(math.Max(0, math.Min(float64(n-2), c)))
	}
	if box.Max[0] < h.lo[0] || box.Min[0] > h.hi[0] || box.Max[1] < h.lo[1] || box.Min[1] > h.hi[1] {
		return dst
	}
	i0, i1 := cell(box.Min[0], h.x0, h.dx, h.nx), cell(box.Max[0], h.x0, h.dx, h.nx)
	j0, j1 := cell(box.Min[1], h.y0, h.dy, h.ny), cell(box.Max[1], h.y0, h.dy, h.ny)
	n0 := len(dst)
	for j := j0; j <= j1; j++ {
		for i := i0; i <= i1; i++ {
			c := j*(h.nx-1) + i
			if h.cellMin[c] > box.Max[2] || h.cellMax[c] < box.Min[2] {
				continue
			}
			for s := 0; s < 2; s++ {
				t := h.tri(i, j, s)
				dst = dedupe(triContact(dst, &t, uint32(2*c+s), fa, b, fb, margin), n0, len(dst))
			}
		}
	}
	return dst
}

// dupTol (m) is how close two points of one mesh pair with the same
// normal must be to count as one: a point on an edge or vertex shared by
// several triangles is found by each of them, equal up to rounding.
const dupTol = 1e-9

// dedupe drops the points of dst[from:] that repeat (dupTol, normals
// within 1e-12) a point of dst[n0:from], keeping the earlier one (the
// traversal order is fixed, so the survivor is too), and returns dst.
func dedupe(dst []Point, n0, from int) []Point {
	out := from
	for i := from; i < len(dst); i++ {
		dup := false
		for j := n0; j < from; j++ {
			if dst[j].Pos.Sub(dst[i].Pos).Len() <= dupTol && dst[j].Normal.Dot(dst[i].Normal) >= 1-1e-12 {
				dup = true
				break
			}
		}
		if !dup {
			dst[out] = dst[i]
			out++
		}
	}
	return dst[:out]
}

// triContact appends the contact of triangle t (index id, in the frame fa)
// with shape b, the internal-edge rule applied (package documentation),
// and rewrites the points' mesh halves as meshKey.
func triContact(dst []Point, t *meshTri, id uint32, fa *frame, b Shape, fb *frame, margin float64) []Point {
	if b.Kind == Sphere {
		return sphereTri(dst, t, id, fa, fb.p, b.Radius, margin)
	}
	ts := Shape{Kind: triangleKind, tri: t}
	A, B := newConvex(ts, fa), newConvex(b, fb)
	N := fa.vecToWorld(t.n)
	x := B.support(N.Mul(-1))
	sF := N.Dot(x.Sub(fa.toWorld(t.v[0]))) // B's separation from the face's plane
	if sF > margin {
		return dst // the face plane separates them (a separating axis): no GJK
	}
	// A triangle without a convex edge takes the face normal whatever GJK
	// finds (faceRule): no GJK.
	face := false
	var sep Separation
	if !t.convex[0] && !t.convex[1] && !t.convex[2] {
		face = true
	} else {
		sep = separation(&A, &B)
		if !(sep.Gap <= margin) || !num.FiniteVec(sep.Normal) {
			return dst
		}
		var drop bool
		if face, drop = faceRule(t, fa, N, sep, sF); drop {
			return dst
		}
	}
	ext := math.Max(A.extent(), B.extent())
	n0 := len(dst)
	if face {
		var R, inc polyFeat
		featureFacing(ts, fa, N, &R)
		featureFacing(b, fb, N.Mul(-1), &inc)
		dst, _, _ = clipManifold(dst, &R, &inc, true, margin, ext)
	} else {
		dst = convexManifold(dst, ts, fa, &A, b, fb, &B, sep, margin)
	}
	for i := n0; i < len(dst); i++ {
		dst[i].Key.A = meshKey(id, dst[i].Key.A)
	}
	return dst
}

// faceRule reports whether the contact sep of triangle t (frame fa, world
// normal N, B's separation sF from the face's plane) takes the face normal
// by the internal-edge rule: inside the face, on a flat or concave edge,
// or on a vertex whose two edges are such; or from the back side when the
// face's plane is the shallower way out. drop reports a contact the
// triangle does not own: from the back side with the face's plane the
// deeper way (B lies behind the face, as inside a closed mesh near another
// face), or on a convex edge with a normal beyond the neighbour's face
// normal (the neighbour's face contact).
func faceRule(t *meshTri, fa *frame, N mgl64.Vec3, sep Separation, sF float64) (face, drop bool) {
	n := sep.Normal
	if n.Dot(N) < 0 {
		return sF >= sep.Gap, sF < sep.Gap
	}
	if n.Dot(N) >= 1-1e-9 {
		return false, false
	}
	k, vertex := t.featureAt(fa.toLocal(sep.OnA), boxTol)
	switch {
	case k < 0:
		return true, false
	case vertex:
		return !t.convex[k] && !t.convex[(k+2)%3], false
	case !t.convex[k]:
		return true, false
	case t.nbr[k] != (mgl64.Vec3{}):
		M := fa.vecToWorld(t.nbr[k])
		c := N.Dot(M)
		if n.Dot(N) < c-1e-9 {
			return false, true // beyond the neighbour's normal
		}
		return n.Dot(M) < c-1e-9, false // tilted away from the neighbour
	}
	return false, false
}

// meshKey is the mesh's Key half of a point of triangle id whose key half
// as a lone triangle was k: the triangle index in the low 24 bits and 8
// bits folded from k (the face, or the clipped corner) above.
func meshKey(id, k uint32) uint32 {
	return id&(maxMeshTris-1) | (k*2654435761)>>24<<24
}

// featureAt returns the feature of t nearest the local point q (on the
// triangle up to rounding): k = −1 inside; an edge k (v[k] → v[k+1]) with
// vertex false; vertex k with vertex true. rel is the barycentric weight
// below which q counts as on an edge.
func (t *meshTri) featureAt(q mgl64.Vec3, rel float64) (k int, vertex bool) {
	var w [3]float64
	area := t.v[1].Sub(t.v[0]).Cross(t.v[2].Sub(t.v[0])).Dot(t.n)
	for i := 0; i < 3; i++ {
		p, r := t.v[(i+1)%3], t.v[(i+2)%3]
		w[i] = r.Sub(p).Cross(q.Sub(p)).Dot(t.n) / area // weight of v[i]
	}
	small := [3]bool{w[0] <= rel, w[1] <= rel, w[2] <= rel}
	for i := 0; i < 3; i++ {
		if small[(i+1)%3] && small[(i+2)%3] {
			return i, true
		}
	}
	for i := 0; i < 3; i++ {
		if small[(i+2)%3] {
			return i, false // weight of the vertex off edge i is 0
		}
	}
	return -1, false
}

// sphereTri appends the contact of triangle t (index id, in the frame fa)
// with the sphere of radius r centred at the world point c by the
// closest-feature rule: the point q of the triangle nearest the centre
// (on its face, an edge or a vertex; Ericson, Real-Time Collision
// Detection, 2005, §5.1.5), the normal from q to the centre and the gap
// |c − q| − r, reported when the gap is within margin, so that a
// speculative stepper sees a neighbouring triangle coming before the
// centre is over it. The internal-edge rule (after Coumans, Bullet
// Physics SDK, btAdjustInternalEdgeContacts, 2010) applies to the edges
// of t the centre lies beyond (outside the edge's line, seen along t's
// normal): beyond a flat edge the point is the coplanar neighbour's
// (dropped: the neighbour, or the next triangle on, reports it); beyond a
// convex edge with a normal past the neighbour's face normal it is the
// neighbour's face contact (dropped: no ghost normal); beyond a concave
// edge it is t's plane, the face normal and the centre's distance from
// the plane less r, reported only when the centre is over the neighbour
// across that edge (ownsAcross). That plane, extended under the
// neighbour, is exact for a sphere on the neighbour (its gap reaches 0
// where the sphere touches both), and equals the face contact where the
// centre crosses into t's face; restricting it to the neighbour of the
// triangle under the centre keeps the planes of farther facets, which a
// sphere in a bowl has dozens of within reach, out. A centre behind the
// face (the solid's side) gives nothing. The point lies on the line from
// the centre along the normal (no torque on the sphere, as a plane's),
// and its key is the triangle's whatever the feature, so that its
// impulse carries over as the sphere moves from t's edge onto its face.
func sphereTri(dst []Point, t *meshTri, id uint32, fa *frame, c mgl64.Vec3, r, margin float64) []Point {
	p := fa.toLocal(c)
	q, k, vertex := t.closest(p)
	d := p.Sub(q)
	L := d.Len()
	g := L - r
	if !(g <= margin) || d.Dot(t.n) < 0 {
		return dst
	}
	n := t.n
	if k >= 0 && L > 0 {
		n = d.Mul(1 / L)
		edges := [2]int{k, k}
		if vertex {
			edges[1] = (k + 2) % 3 // the edge into vertex k
		}
		concave := false
		for _, e := range edges {
			o := t.v[(e+1)%3].Sub(t.v[e]).Cross(t.n) // outward across edge e, in the plane
			if !(d.Dot(o) > 0) {
				continue // not beyond edge e
			}
			switch {
			case t.flat[e]:
				return dst
			case !t.convex[e]:
				if !t.ownsAcross(e, p) {
					return dst
				}
				concave = true
			case t.nbr[e] != (mgl64.Vec3{}):
				// Past the neighbour's normal M in the turn about the
				// edge from the face normal N towards it: the
				// neighbour's face contact.
				M := t.nbr[e]
				if n.Dot(o)*M.Dot(t.n)-n.Dot(t.n)*M.Dot(o) > 1e-12*o.Len() {
					return dst
				}
			}
		}
		if concave {
			n, g = t.n, d.Dot(t.n)-r
		}
	}
	wa := fa.toWorld(p.Sub(n.Mul(r + g))) // q unless the plane was taken
	return emit(dst, wa, fa.vecToWorld(n), g, meshKey(id, 0), 0)
}

// closest returns the point of t nearest the local point p and its
// feature as featureAt does: k = −1 on the face, edge k (v[k] → v[k+1])
// with vertex false, vertex k with vertex true (Ericson, Real-Time
// Collision Detection, 2005, §5.1.5, by the regions of the vertices, the
// edges and the face in turn).
func (t *meshTri) closest(p mgl64.Vec3) (q mgl64.Vec3, k int, vertex bool) {
	a, b, c := t.v[0], t.v[1], t.v[2]
	ab, ac := b.Sub(a), c.Sub(a)
	ap := p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a, 0, true
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b, 1, true
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Mul(d1 / (d1 - d3))), 0, false
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c, 2, true
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Mul(d2 / (d2 - d6))), 2, false
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Mul((d4 - d3) / ((d4 - d3) + (d5 - d6)))), 1, false
	}
	den := 1 / (va + vb + vc)
	return a.Add(ab.Mul(vb * den)).Add(ac.Mul(vc * den)), -1, false
}

// ownsAcross reports whether the local point p lies over the neighbour
// across edge e (seen along the neighbour's normal, edges included).
func (t *meshTri) ownsAcross(e int, p mgl64.Vec3) bool {
	m := t.adjN[e]
	if m == (mgl64.Vec3{}) {
		return false
	}
	a, b, c := t.v[(e+1)%3], t.v[e], t.adjOff[e] // the neighbour, wound about m
	return b.Sub(a).Cross(p.Sub(a)).Dot(m) >= 0 && c.Sub(b).Cross(p.Sub(b)).Dot(m) >= 0 && a.Sub(c).Cross(p.Sub(c)).Dot(m) >= 0
}
