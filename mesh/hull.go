package mesh

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// The degenerate point sets Hull refuses. Hull's errors wrap one of these,
// so errors.Is tells the condition apart; the message adds the point
// indices and the tolerance.
var (
	ErrTooFewPoints = errors.New("a convex hull needs at least 4 points")
	ErrCoincident   = errors.New("all points coincide")
	ErrCollinear    = errors.New("all points are collinear")
	ErrCoplanar     = errors.New("all points are coplanar")
	// ErrNumerical reports a hull construction that rounding broke: the
	// horizon of a new point did not form one closed loop, or the faces
	// found do not form a convex polyhedron within the tolerance. Seen
	// only on fuzzed point sets whose extent is within a few thousand
	// ulps of their magnitude; a larger tol avoids it.
	ErrNumerical = errors.New("quickhull lost consistency to rounding")
)

// Hull is the convex hull of a point set: a closed convex polyhedron.
//
// Faces are convex polygons: coplanar triangles of the construction are
// merged, so a cube's hull has 6 quadrilateral faces. Each face lists
// indices into Vertices counter-clockwise seen from outside, and every
// vertex belongs to at least 3 faces. Vertices are in ascending order of
// their index in the input (Index); faces are in order of decreasing area
// of the triangle that seeded each polygon (ties in construction order),
// so the whole hull is a function of the input's values and order alone.
type Hull struct {
	Vertices []mgl64.Vec3 // the hull's corners
	Index    []int        // Vertices[i] is points[Index[i]] of the input
	Faces    [][]int      // vertex index loops, counter-clockwise seen from outside
	Normals  []mgl64.Vec3 // Normals[f]: outward unit normal of Faces[f]
	// Offsets[f] is the plane offset of Faces[f]: n·x ≤ Offsets[f] for
	// every point x of the hull (within Tol), with n = Normals[f].
	Offsets []float64
	Edges   []Edge // every edge once, in order of first appearance in Faces
	// Tol is the distance tolerance the hull meets (m): every input point
	// p has n·p ≤ Offsets[f] + Tol and every vertex v of face f has
	// n·v ≥ Offsets[f] − Tol. It is the tolerance NewHull was given (at
	// least DefaultTol), raised where merged faces or the rounding of
	// sliver faces' normals need more, and at most 3·tol + 1e-9·(largest
	// coordinate magnitude) — NewHull returns ErrNumerical otherwise.
	Tol float64
}

// Edge is one edge of a Hull: the vertices it joins (V[0] < V[1]) and the
// two faces that share it; the edge runs V[0] → V[1] in face F[0]'s loop
// and V[1] → V[0] in face F[1]'s.
type Edge struct {
	V [2]int
	F [2]int
}

// DefaultTol returns the smallest distance tolerance NewHull uses, and
// the one it uses when given tol ≤ 0:
// 3·ε·(max|x| + max|y| + max|z|) over the points, with ε the float64
// machine epsilon — the round-off bound on a plane distance that Barber,
// Dobkin and Huhdanpaa's qhull (1996) uses for its default precision.
// Points closer than this to a face count as on it.
func DefaultTol(points []mgl64.Vec3) float64 {
	var mx, my, mz float64
	for _, p := range points {
		mx = math.Max(mx, math.Abs(p[0]))
		my = math.Max(my, math.Abs(p[1]))
		mz = math.Max(mz, math.Abs(p[2]))
	}
	return 3 * 0x1p-52 * (mx + my + mz)
}

// NewHull returns the convex hull of points by the quickhull algorithm
// (Barber, Dobkin and Huhdanpaa, "The Quickhull algorithm for convex
// hulls", ACM Transactions on Mathematical Software 22(4), 1996).
//
// tol is the distance below which a point counts as on a face's plane
// (m); a tol below DefaultTol(points), the round-off bound, is raised to
// it, so tol ≤ 0 selects the default. Points within tol of the hull
// are not hull vertices, and adjacent faces whose vertices lie within tol
// of one plane are merged into one polygon.
//
// The construction runs on the points scaled by a power of two (exact)
// that brings the largest coordinate into [0.5, 1), so that no magnitude
// of finite input overflows or underflows in the plane computations.
//
// Errors: a non-finite point or tol (naming the index), fewer than 4
// points (ErrTooFewPoints), and point sets with no volume at tol —
// ErrCoincident, ErrCollinear, ErrCoplanar — naming the points that span
// the degenerate set. The result depends only on points and tol.
func NewHull(points []mgl64.Vec3, tol float64) (*Hull, error) {
	if !num.Finite(tol) {
		return nil, &num.FieldError{What: "hull", Field: "tol", Value: tol, Reason: fmt.Sprintf("must be finite, got %v", tol)}
	}
	for i, p := range points {
		if !num.FiniteVec(p) {
			return nil, &num.FieldError{What: "hull", Field: fmt.Sprintf("points[%d]", i), Value: p,
				Reason: fmt.Sprintf("must be finite, got %v", p)}
		}
	}
	if len(points) < 4 {
		return nil, fmt.Errorf("hull: %w, got %d", ErrTooFewPoints, len(points))
	}
	if len(points) > math.MaxInt32 {
		return nil, fmt.Errorf("hull: %d points, at most %d supported", len(points), math.MaxInt32)
	}
	tol = max(tol, DefaultTol(points))
	_, exp := frexpMax(points)
	scaled := scaleBy(points, exp)
	b := builder{pts: scaled, tol: math.Ldexp(tol, -exp), exp: exp}
	if err := b.simplex(); err != nil {
		return nil, err
	}
	if err := b.grow(); err != nil {
		return nil, err
	}
	h := b.polygons(true)
	if !h.valid() {
		h = b.polygons(false)
		if !h.valid() {
			return nil, fmt.Errorf("hull: %w: the triangles do not form a convex polyhedron at tol %.3g; a larger tol merges the near-degenerate faces", ErrNumerical, tol)
		}
	}
	achieved := b.achieved(h)
	// In scaled units the largest coordinate is in [0.5, 1).
	if limit := 3*b.tol + maxRelativeSlack; achieved > limit {
		return nil, fmt.Errorf("hull: %w: an input point lies %.3g outside the hull found, beyond the %.3g allowed by tol %.3g; the points' features are too close to tol against their magnitude, a larger tol merges them",
			ErrNumerical, b.user(achieved), b.user(limit), tol)
	}
	// Back to the caller's units: exact, the scale is a power of two.
	for i, p := range h.Index {
		h.Vertices[i] = points[p]
	}
	for f := range h.Offsets {
		h.Offsets[f] = math.Ldexp(h.Offsets[f], exp)
	}
	h.Tol = max(tol, math.Ldexp(achieved, exp))
	return h, nil
}

// achieved returns the tolerance h (in scaled units) meets: the largest
// of tol, the depth of any face vertex below its face's plane, and the
// height of any input point above any face's plane. Points inside the
// ball about the vertex centroid that every face plane clears are inside
// the hull; the others are searched per face in a ball tree, so the
// exact maximum costs about O(F log n) rather than O(F n).
func (b *builder) achieved(h *Hull) float64 {
	t := b.tol
	for f, loop := range h.Faces {
		for _, v := range loop {
			t = max(t, h.Offsets[f]-h.Normals[f].Dot(h.Vertices[v]))
		}
	}
	c := centroid(h.Vertices)
	rin := math.Inf(1)
	for f, n := range h.Normals {
		rin = min(rin, h.Offsets[f]-n.Dot(c))
	}
	idx := b.created[:0]
	for i, p := range b.pts {
		if p.Sub(c).Len() >= rin {
			idx = append(idx, int32(i))
		}
	}
	tree := newBallTree(b.pts, idx)
	for f, n := range h.Normals {
		t = tree.maxAbove(b.pts, n, h.Offsets[f], t)
	}
	b.created = idx
	return t
}

// ballTree is a bounding-sphere hierarchy over points, for the largest
// n·p − d over the points by branch and bound.
type ballTree struct {
	idx   []int32 // point indices, each node a contiguous range
	nodes []ballNode
}

type ballNode struct {
	c           mgl64.Vec3
	r           float64 // covers every point of the node, with margin for rounding
	lo, hi      int32   // idx[lo:hi]
	left, right int32   // children, -1 for a leaf
}

const ballLeaf = 8

func newBallTree(pts []mgl64.Vec3, idx []int32) *ballTree {
	t := &ballTree{idx: idx}
	if len(idx) > 0 {
		t.build(pts, 0, int32(len(idx)))
	}
	return t
}

func (t *ballTree) build(pts []mgl64.Vec3, lo, hi int32) int32 {
	ps := t.idx[lo:hi]
	bmin, bmax := pts[ps[0]], pts[ps[0]]
	for _, i := range ps {
		for k := 0; k < 3; k++ {
			bmin[k] = min(bmin[k], pts[i][k])
			bmax[k] = max(bmax[k], pts[i][k])
		}
	}
	c := bmin.Add(bmax).Mul(0.5)
	var r float64
	for _, i := range ps {
		r = max(r, pts[i].Sub(c).Len())
	}
	me := int32(len(t.nodes))
	t.nodes = append(t.nodes, ballNode{c: c, r: r*(1+1e-12) + 1e-300, lo: lo, hi: hi, left: -1, right: -1})
	if hi-lo <= ballLeaf {
		return me
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if bmax[k]-bmin[k] > bmax[axis]-bmin[axis] {
			axis = k
		}
	}
	slices.SortFunc(ps, func(a, b int32) int {
		if pa, pb := pts[a][axis], pts[b][axis]; pa != pb {
			return cmp.Compare(pa, pb)
		}
		return int(a - b)
	})
	mid := lo + (hi-lo)/2
	l := t.build(pts, lo, mid)
	r2 := t.build(pts, mid, hi)
	t.nodes[me].left, t.nodes[me].right = l, r2
	return me
}

// maxAbove returns the larger of best and the largest n·p − d over the
// tree's points, visiting only nodes whose sphere reaches above best.
func (t *ballTree) maxAbove(pts []mgl64.Vec3, n mgl64.Vec3, d, best float64) float64 {
	if len(t.nodes) == 0 {
		return best
	}
	var stack [64]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		nd := &t.nodes[stack[sp]]
		if n.Dot(nd.c)+nd.r-d <= best {
			continue
		}
		if nd.left < 0 {
			for _, i := range t.idx[nd.lo:nd.hi] {
				best = max(best, n.Dot(pts[i])-d)
			}
			continue
		}
		stack[sp], stack[sp+1] = nd.left, nd.right
		sp += 2
	}
	return best
}

// qface is one triangle of the quickhull construction.
type qface struct {
	v    [3]int32   // point indices, counter-clockwise seen from outside
	adj  [3]int32   // adj[i]: the face across edge v[i] → v[(i+1)%3]
	n    mgl64.Vec3 // outward unit normal
	d    float64    // plane offset, n·x = d on the plane
	head int32      // first point of the outside set, -1 if empty
	far  int32      // farthest point of the outside set
	farD float64    // its distance to the plane
	vis  int32      // the step in which the face was found visible, -1 never
	dead bool       // replaced by the cone of a later point
}

// builder holds the quickhull state and its scratch space.
type builder struct {
	pts   []mgl64.Vec3 // the input scaled by 2^−exp
	tol   float64      // the tolerance scaled by 2^−exp
	exp   int
	faces []qface
	next  []int32 // next[p]: the point after p in its face's outside set
	// scratch of one step
	visible []int32
	horizon []horizonEdge
	startAt []int32 // startAt[a]: the new face whose horizon edge starts at a
	created []int32
	loopBuf []int32 // backing of the polygon loops
	near    []int32 // points within tol of the hull, or covered vertices: to check at the end
	mark    []int32 // per point: the step (+1) or repair round (−2−round) that listed it
}

type horizonEdge struct{ a, b, across int32 }

// user converts a scaled length back to the caller's units.
func (b *builder) user(x float64) float64 { return math.Ldexp(x, b.exp) }

func (b *builder) dist(f *qface, p int32) float64 {
	return f.n.Dot(b.pts[p]) - f.d
}

// addFace appends the triangle (a, b, c) with its plane and returns its index.
func (b *builder) addFace(a, c1, c2 int32) int32 {
	pa, pb, pc := b.pts[a], b.pts[c1], b.pts[c2]
	n := triangleNormal(pa, pb, pc)
	// The offset from the centroid averages the rounding of the three corners.
	d := n.Dot(pa.Add(pb).Add(pc).Mul(1.0 / 3))
	b.faces = append(b.faces, qface{v: [3]int32{a, c1, c2}, adj: [3]int32{-1, -1, -1}, n: n, d: d, head: -1, far: -1, vis: -1})
	return int32(len(b.faces) - 1)
}

// simplex builds the initial tetrahedron from extreme points and assigns
// every other point to the face it lies farthest outside of.
func (b *builder) simplex() error {
	pts := b.pts
	var ext [6]int // min x, max x, min y, max y, min z, max z
	for i, p := range pts {
		for k := 0; k < 3; k++ {
			if p[k] < pts[ext[2*k]][k] {
				ext[2*k] = i
			}
			if p[k] > pts[ext[2*k+1]][k] {
				ext[2*k+1] = i
			}
		}
	}
	i0, i1, best := ext[0], ext[1], -1.0
	for k := 0; k < 3; k++ {
		if d := pts[ext[2*k+1]].Sub(pts[ext[2*k]]).Len(); d > best {
			i0, i1, best = ext[2*k], ext[2*k+1], d
		}
	}
	if best <= b.tol {
		return fmt.Errorf("hull: %w: the %d points span at most %.3g along each axis, within tol %.3g", ErrCoincident, len(pts), b.user(best), b.user(b.tol))
	}
	u := pts[i1].Sub(pts[i0]).Normalize()
	i2, best := -1, -1.0
	for i, p := range pts {
		if d := p.Sub(pts[i0]).Cross(u).Len(); d > best {
			i2, best = i, d
		}
	}
	if best <= b.tol {
		return fmt.Errorf("hull: %w: every point lies within %.3g of the line through points %d and %d (tol %.3g)", ErrCollinear, b.user(best), i0, i1, b.user(b.tol))
	}
	n := pts[i1].Sub(pts[i0]).Cross(pts[i2].Sub(pts[i0])).Normalize()
	i3, best, side := -1, -1.0, 0.0
	for i, p := range pts {
		s := n.Dot(p.Sub(pts[i0]))
		if d := math.Abs(s); d > best {
			i3, best, side = i, d, s
		}
	}
	if best <= b.tol {
		return fmt.Errorf("hull: %w: every point lies within %.3g of the plane through points %d, %d and %d (tol %.3g)", ErrCoplanar, b.user(best), i0, i1, i2, b.user(b.tol))
	}
	a, c, e, d := int32(i0), int32(i1), int32(i2), int32(i3)
	if side > 0 { // d is on the normal's side of (a, c, e): reverse that face
		c, e = e, c
	}
	// (a, c, e) faces away from d; the other three follow with a
	// consistent orientation, every edge shared by opposite directions.
	b.faces = make([]qface, 0, 4+2*len(pts))
	b.addFace(a, c, e)
	b.addFace(a, d, c)
	b.addFace(c, d, e)
	b.addFace(e, d, a)
	for f := range b.faces {
		for i := 0; i < 3; i++ {
			u, w := b.faces[f].v[i], b.faces[f].v[(i+1)%3]
			for g := range b.faces {
				if j := edgeIndex(&b.faces[g], w, u); j >= 0 {
					b.faces[f].adj[i] = int32(g)
				}
			}
		}
	}
	b.next = make([]int32, len(pts))
	b.startAt = make([]int32, len(pts))
	for i := range b.startAt {
		b.startAt[i] = -1
	}
	for i := range pts {
		p := int32(i)
		if p == a || p == c || p == d || p == e {
			continue
		}
		b.assign(p, []int32{0, 1, 2, 3})
	}
	return nil
}

// edgeIndex returns i with f.v[i] = u and f.v[(i+1)%3] = w, or -1.
func edgeIndex(f *qface, u, w int32) int {
	for i := 0; i < 3; i++ {
		if f.v[i] == u && f.v[(i+1)%3] == w {
			return i
		}
	}
	return -1
}

// assign puts point p in the outside set of the face among cands it lies
// farthest outside of, if that distance exceeds tol. Otherwise p is
// inside the hull within tol; if it is less than tol inside every
// candidate it is kept in near, to be checked against the final faces.
func (b *builder) assign(p int32, cands []int32) {
	bestF, bestD := int32(-1), math.Inf(-1)
	for _, f := range cands {
		if d := b.dist(&b.faces[f], p); d > bestD {
			bestF, bestD = f, d
		}
	}
	if bestD <= b.tol {
		if bestD >= -b.tol {
			b.near = append(b.near, p)
		}
		return
	}
	b.push(bestF, p, bestD)
}

// push adds p, at distance d outside face fi, to the face's outside set.
func (b *builder) push(fi, p int32, d float64) {
	f := &b.faces[fi]
	b.next[p] = f.head
	f.head = p
	if f.far < 0 || d > f.farD {
		f.far, f.farD = p, d
	}
}

// maxRelativeSlack is the rounding of plane distances NewHull accepts
// beyond three times its tolerance, relative to the largest coordinate
// magnitude: ample for the ε/sin θ error of a sliver face's normal.
const maxRelativeSlack = 1e-9

// maxRepairs bounds the rounds of repair, each of which re-adds only the
// points that rounding left outside the faces of the round before.
const maxRepairs = 16

// grow adds outside points one at a time: for each face with a non-empty
// outside set, in creation order, the farthest point replaces the faces it
// sees by the cone from its horizon. Then it checks the points that ended
// within tol of a face (and the vertices the cones covered) against the
// final faces: rounding and the tolerance can leave one more than tol
// outside a face built later, and such points go back into the outside
// sets for another round.
func (b *builder) grow() error {
	b.mark = make([]int32, len(b.pts))
	for round := 0; ; round++ {
		for fi := int32(0); int(fi) < len(b.faces); fi++ {
			if b.faces[fi].dead || b.faces[fi].head < 0 {
				continue
			}
			if err := b.addPoint(fi); err != nil {
				return err
			}
		}
		near := b.near
		b.near = nil
		stamp := int32(-2 - round)
		for fi := range b.faces { // hull vertices are not checked
			if f := &b.faces[fi]; !f.dead {
				b.mark[f.v[0]], b.mark[f.v[1]], b.mark[f.v[2]] = stamp, stamp, stamp
			}
		}
		readded := 0
		for _, p := range near {
			if b.mark[p] == stamp {
				continue
			}
			b.mark[p] = stamp
			bestF, bestD := int32(-1), math.Inf(-1)
			for fi := range b.faces {
				if f := &b.faces[fi]; !f.dead {
					if d := b.dist(f, p); d > bestD {
						bestF, bestD = int32(fi), d
					}
				}
			}
			if bestD > b.tol {
				if round == maxRepairs {
					return fmt.Errorf("hull: %w: point %d stays %.3g outside a face after %d repairs (tol %.3g)", ErrNumerical, p, b.user(bestD), round, b.user(b.tol))
				}
				b.push(bestF, p, bestD)
				readded++
			} else if bestD >= -b.tol {
				b.near = append(b.near, p)
			}
		}
		if readded == 0 {
			return nil
		}
	}
}

func (b *builder) addPoint(f0 int32) error {
	eye := b.faces[f0].far
	step := f0
	b.visible = append(b.visible[:0], f0)
	b.horizon = b.horizon[:0]
	b.faces[f0].vis = step
	for k := 0; k < len(b.visible); k++ {
		f := b.visible[k]
		for i := 0; i < 3; i++ {
			g := b.faces[f].adj[i]
			if b.faces[g].vis == step {
				continue
			}
			if b.dist(&b.faces[g], eye) > b.tol {
				b.faces[g].vis = step
				b.visible = append(b.visible, g)
				continue
			}
			b.horizon = append(b.horizon, horizonEdge{b.faces[f].v[i], b.faces[f].v[(i+1)%3], g})
		}
	}
	// The cone: one new face (a, b, eye) per horizon edge a → b.
	b.created = b.created[:0]
	for _, h := range b.horizon {
		if b.startAt[h.a] >= 0 {
			b.resetStart()
			return fmt.Errorf("hull: %w: the horizon of point %d passes twice through point %d", ErrNumerical, eye, h.a)
		}
		nf := b.addFace(h.a, h.b, eye)
		b.startAt[h.a] = nf
		b.created = append(b.created, nf)
		b.faces[nf].adj[0] = h.across
		g := &b.faces[h.across]
		j := edgeIndex(g, h.b, h.a)
		if j < 0 { // the adjacency is built consistent; this guards it
			b.resetStart()
			return fmt.Errorf("hull: %w: the face across horizon edge %d→%d of point %d does not share it", ErrNumerical, h.a, h.b, eye)
		}
		g.adj[j] = nf
	}
	for _, nf := range b.created {
		f := &b.faces[nf]
		nb := b.startAt[f.v[1]]
		if nb < 0 {
			b.resetStart()
			return fmt.Errorf("hull: %w: the horizon of point %d is not closed at point %d", ErrNumerical, eye, f.v[1])
		}
		f.adj[1] = nb
		b.faces[nb].adj[2] = nf
	}
	b.resetStart()
	for _, f := range b.visible {
		b.faces[f].dead = true
		for _, p := range b.faces[f].v { // covered vertices, or horizon ones
			if p != eye && b.mark[p] != step+1 {
				b.mark[p] = step + 1
				b.near = append(b.near, p)
			}
		}
	}
	for _, f := range b.visible {
		for p := b.faces[f].head; p >= 0; {
			nx := b.next[p]
			if p != eye {
				b.assign(p, b.created)
			}
			p = nx
		}
		b.faces[f].head = -1
	}
	return nil
}

func (b *builder) resetStart() {
	for _, h := range b.horizon {
		b.startAt[h.a] = -1
	}
}

// polygons merges coplanar neighbouring triangles into convex polygons
// (if merge), drops vertices only two faces share (collinear points on an
// edge), and numbers vertices and faces. It returns nil if a face
// collapses to fewer than 3 vertices.
func (b *builder) polygons(merge bool) *Hull {
	var tri []int32
	for f := range b.faces {
		if !b.faces[f].dead {
			tri = append(tri, int32(f))
		}
	}
	// Seeds in order of decreasing area, so a polygon's reference plane is
	// that of its largest triangle, whose normal rounding disturbs least.
	area := make([]float64, len(b.faces))
	for _, f := range tri {
		v := b.faces[f].v
		area[f] = b.pts[v[1]].Sub(b.pts[v[0]]).Cross(b.pts[v[2]].Sub(b.pts[v[0]])).Len()
	}
	seeds := append([]int32(nil), tri...)
	sort.SliceStable(seeds, func(i, j int) bool { return area[seeds[i]] > area[seeds[j]] })
	group := make([]int32, len(b.faces))
	for i := range group {
		group[i] = -1
	}
	var loops [][]int32
	var members []int32
	nextOf := b.startAt // all -1 between steps; reused as the boundary successor
	for _, s := range seeds {
		if group[s] >= 0 {
			continue
		}
		gid := int32(len(loops))
		members = append(members[:0], s)
		group[s] = gid
		ref := &b.faces[s]
		for k := 0; k < len(members); k++ {
			f := &b.faces[members[k]]
			for i := 0; i < 3; i++ {
				g := f.adj[i]
				if !merge || group[g] >= 0 || b.faces[g].n.Dot(ref.n) <= 0 {
					continue
				}
				flat := true
				for _, p := range b.faces[g].v {
					if math.Abs(b.dist(ref, p)) > b.tol {
						flat = false
						break
					}
				}
				if flat {
					group[g] = gid
					members = append(members, g)
				}
			}
		}
		loop := b.boundary(members, group, gid, nextOf)
		if loop == nil { // not a disc: keep the triangles apart
			for _, m := range members[1:] {
				group[m] = -1
			}
			members = members[:1]
			v := b.faces[s].v
			at := len(b.loopBuf)
			b.loopBuf = append(b.loopBuf, v[0], v[1], v[2])
			loop = b.loopBuf[at:len(b.loopBuf):len(b.loopBuf)]
		}
		loops = append(loops, loop)
	}
	// A vertex in only two faces lies on their common edge: remove it.
	count := make([]int32, len(b.pts))
	for _, l := range loops {
		for _, p := range l {
			count[p]++
		}
	}
	for li, l := range loops {
		kept := l[:0]
		for _, p := range l {
			if count[p] >= 3 {
				kept = append(kept, p)
			}
		}
		if len(kept) < 3 { // merging collapsed a face: not a polyhedron
			return nil
		}
		loops[li] = kept
	}
	// Vertices in ascending input order.
	var used []int32
	for p, c := range count {
		if c >= 3 {
			used = append(used, int32(p))
		}
	}
	h := &Hull{Tol: b.tol, Vertices: make([]mgl64.Vec3, len(used)), Index: make([]int, len(used))}
	vid := count // reused: count[p] ≥ 3 is no longer needed
	for i, p := range used {
		vid[p] = int32(i)
		h.Vertices[i] = b.pts[p]
		h.Index[i] = int(p)
	}
	total := 0
	for _, l := range loops {
		total += len(l)
	}
	backing := make([]int, 0, total) // one allocation for all loops
	h.Faces = make([][]int, 0, len(loops))
	h.Normals = make([]mgl64.Vec3, 0, len(loops))
	h.Offsets = make([]float64, 0, len(loops))
	for _, l := range loops {
		start := len(backing)
		for _, p := range l {
			backing = append(backing, int(vid[p]))
		}
		face := backing[start:len(backing):len(backing)]
		h.Faces = append(h.Faces, face)
		n := newell(h.Vertices, face)
		off := math.Inf(-1)
		for _, v := range face {
			off = math.Max(off, n.Dot(h.Vertices[v]))
		}
		h.Normals = append(h.Normals, n)
		h.Offsets = append(h.Offsets, off)
	}
	h.Edges = edges(h.Faces)
	return h
}

// valid reports whether h is a convex polyhedron within its tolerance:
// at least 4 faces of at least 3 vertices, every edge between two faces
// (V − E + F = 2 follows for the sphere-like surface), every face convex
// seen along its normal and its vertices within 2·Tol below its plane.
// Merging with a tolerance that is large against the point set's extent
// can fail this; NewHull then keeps the triangles unmerged.
func (h *Hull) valid() bool {
	if h == nil || len(h.Faces) < 4 || len(h.Vertices)-len(h.Edges)+len(h.Faces) != 2 {
		return false
	}
	for _, e := range h.Edges {
		if e.F[0] < 0 || e.F[1] < 0 || e.F[0] == e.F[1] {
			return false
		}
	}
	for f, loop := range h.Faces {
		if len(loop) < 3 {
			return false
		}
		n, off := h.Normals[f], h.Offsets[f]
		if !num.FiniteVec(n) {
			return false
		}
		for i, v := range loop {
			a, c := h.Vertices[loop[(i+len(loop)-1)%len(loop)]], h.Vertices[loop[(i+1)%len(loop)]]
			p := h.Vertices[v]
			if n.Dot(p)-off < -2*h.Tol || p.Sub(a).Cross(c.Sub(p)).Dot(n) < -h.Tol*(p.Sub(a).Len()+c.Sub(p).Len()) {
				return false
			}
		}
	}
	return true
}

// boundary returns the boundary loop of the triangles members (all in
// group gid), starting at its smallest point index, or nil if the
// boundary is not one simple loop.
func (b *builder) boundary(members []int32, group []int32, gid int32, nextOf []int32) []int32 {
	var starts []int32
	ok := true
	for _, m := range members {
		f := &b.faces[m]
		for i := 0; i < 3; i++ {
			if group[f.adj[i]] == gid {
				continue
			}
			u, w := f.v[i], f.v[(i+1)%3]
			if nextOf[u] >= 0 {
				ok = false
			}
			nextOf[u] = w
			starts = append(starts, u)
		}
	}
	var loop []int32
	if ok && len(starts) > 0 { // no boundary: the group is the whole surface
		first := starts[0]
		for _, u := range starts {
			first = min(first, u)
		}
		// The loop goes into loopBuf: earlier loops keep their (possibly
		// older) backing arrays when it grows.
		at := len(b.loopBuf)
		for p := first; ; {
			b.loopBuf = append(b.loopBuf, p)
			p = nextOf[p]
			if n := len(b.loopBuf) - at; p < 0 || p == first || n > len(starts) {
				if p == first && n == len(starts) {
					loop = b.loopBuf[at:len(b.loopBuf):len(b.loopBuf)]
				} else {
					b.loopBuf = b.loopBuf[:at]
				}
				break
			}
		}
	}
	for _, u := range starts {
		nextOf[u] = -1
	}
	return loop
}

// newell returns the unit normal of the polygon loop by Newell's method
// (the sum of the edges' cross products), robust for nearly collinear
// corners and for corners slightly off one plane.
func newell(v []mgl64.Vec3, loop []int) mgl64.Vec3 {
	if len(loop) == 3 {
		return triangleNormal(v[loop[0]], v[loop[1]], v[loop[2]])
	}
	var n mgl64.Vec3
	c := v[loop[0]]
	for i := 1; i+1 < len(loop); i++ {
		n = n.Add(v[loop[i]].Sub(c).Cross(v[loop[i+1]].Sub(c)))
	}
	return n.Mul(1 / n.Len())
}

// triangleNormal returns the unit normal of triangle (a, b, c) by the
// right-hand rule, or zero if it has no area: the cross product of the two
// edges at the corner opposite the longest edge, whose rounding error is
// smallest for a sliver (two long, nearly parallel edges would cancel).
func triangleNormal(a, b, c mgl64.Vec3) mgl64.Vec3 {
	ab, bc, ca := b.Sub(a).LenSqr(), c.Sub(b).LenSqr(), a.Sub(c).LenSqr()
	var n mgl64.Vec3
	switch {
	case ab >= bc && ab >= ca:
		n = a.Sub(c).Cross(b.Sub(c))
	case bc >= ca:
		n = b.Sub(a).Cross(c.Sub(a))
	default:
		n = c.Sub(b).Cross(a.Sub(b))
	}
	if l := n.Len(); l > 0 {
		n = n.Mul(1 / l)
	}
	return n
}

// edges lists each edge of the face loops once, in order of first
// appearance, with the faces on either side.
func edges(faces [][]int) []Edge {
	at := make(map[[2]int]int)
	var out []Edge
	for f, l := range faces {
		for i, u := range l {
			w := l[(i+1)%len(l)]
			key, side := [2]int{u, w}, 0
			if w < u {
				key, side = [2]int{w, u}, 1
			}
			k, ok := at[key]
			if !ok {
				k = len(out)
				at[key] = k
				out = append(out, Edge{V: key, F: [2]int{-1, -1}})
			}
			out[k].F[side] = f
		}
	}
	return out
}

// Support returns the vertex of h farthest along d (the first in Vertices
// order on ties) and its index: the support mapping of GJK-type collision
// routines.
func (h *Hull) Support(d mgl64.Vec3) (mgl64.Vec3, int) {
	best, bi := math.Inf(-1), 0
	for i, v := range h.Vertices {
		if s := v.Dot(d); s > best {
			best, bi = s, i
		}
	}
	return h.Vertices[bi], bi
}

// Translated returns a copy of h moved by d: vertices shifted, offsets
// raised by n·d, everything else shared in value (a body frame at the
// centre of mass takes the hull Translated by −com).
func (h *Hull) Translated(d mgl64.Vec3) *Hull {
	c := &Hull{
		Vertices: make([]mgl64.Vec3, len(h.Vertices)),
		Index:    slices.Clone(h.Index),
		Faces:    make([][]int, len(h.Faces)),
		Normals:  slices.Clone(h.Normals),
		Offsets:  make([]float64, len(h.Offsets)),
		Edges:    slices.Clone(h.Edges),
		Tol:      h.Tol,
	}
	for i, v := range h.Vertices {
		c.Vertices[i] = v.Add(d)
	}
	for f, loop := range h.Faces {
		c.Faces[f] = slices.Clone(loop)
		c.Offsets[f] = h.Offsets[f] + h.Normals[f].Dot(d)
	}
	return c
}

// Contains reports whether p lies inside h or within h.Tol of its
// boundary: n·p − offset ≤ Tol for every face.
func (h *Hull) Contains(p mgl64.Vec3) bool {
	for f, n := range h.Normals {
		if n.Dot(p)-h.Offsets[f] > h.Tol {
			return false
		}
	}
	return true
}

// frexpMax returns the largest absolute coordinate of points as f·2^exp
// with f in [0.5, 1) (0, 0 when all are zero).
func frexpMax(points []mgl64.Vec3) (float64, int) {
	var big float64
	for _, p := range points {
		big = max(big, math.Abs(p[0]), math.Abs(p[1]), math.Abs(p[2]))
	}
	return math.Frexp(big)
}

// scaleBy returns points multiplied by 2^−exp, exactly barring underflow.
func scaleBy(points []mgl64.Vec3, exp int) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, len(points))
	for i, p := range points {
		out[i] = mgl64.Vec3{math.Ldexp(p[0], -exp), math.Ldexp(p[1], -exp), math.Ldexp(p[2], -exp)}
	}
	return out
}
