package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Point is one contact point between shapes A and B.
type Point struct {
	Pos    mgl64.Vec3 // world point, midway between the two surfaces, m
	Normal mgl64.Vec3 // unit, world, pointing from A towards B (B is pushed along +Normal)
	Gap    float64    // signed distance along Normal: > 0 separated, < 0 penetration, m
	Key    Key        // persistent feature pair: the same features in contact give the same Key
}

// Key identifies a contact point by the features of A and B that make it,
// so that a stepper can carry impulses from one step to the next. The
// encoding of each half is in the package documentation (Feature*).
type Key struct{ A, B uint32 }

// Feature-id tags of box features: id = tag | index (package documentation).
const (
	FeatureVertex uint32 = 1 << 16 // | vertex 0..7
	FeatureEdge   uint32 = 2 << 16 // | edge 0..11
	FeatureFace   uint32 = 3 << 16 // | face 0..5
	FeatureClip   uint32 = 4 << 16 // | lo<<8 | hi: a clipped box-box point (package documentation)
)

// Capsule feature ids.
const (
	CapsuleEnd0 uint32 = 0 // the end at local z = −Length/2 (or the lower-parameter point of a two-point contact)
	CapsuleEnd1 uint32 = 1 // the end at local z = +Length/2 (or the higher-parameter point)
	CapsuleSide uint32 = 2 // a point strictly inside the segment
)

// BoxVertex returns vertex i (0..7) of the box s in its local frame:
// coordinate k is +Size[k]/2 if bit k of i is set, else −Size[k]/2.
func (s Shape) BoxVertex(i int) mgl64.Vec3 { return boxVertex(s.half(), i) }

// boxVertex is BoxVertex for a box of half extents h.
func boxVertex(h mgl64.Vec3, i int) mgl64.Vec3 {
	var v mgl64.Vec3
	for k := 0; k < 3; k++ {
		if i>>k&1 == 1 {
			v[k] = h[k]
		} else {
			v[k] = -h[k]
		}
	}
	return v
}

// BoxFace returns the feature index (0..5) of the box face with outward
// normal sign·e_axis: 2·axis for sign > 0, 2·axis+1 for sign < 0.
func BoxFace(axis int, sign float64) uint32 {
	if sign < 0 {
		return uint32(2*axis + 1)
	}
	return uint32(2 * axis)
}

// BoxEdge returns the feature index (0..11) of the box edge parallel to
// local axis k whose other two coordinates have the signs of s[(k+1)%3]
// and s[(k+2)%3]: 4k + [s[(k+1)%3] > 0] + 2·[s[(k+2)%3] > 0].
func BoxEdge(k int, s mgl64.Vec3) uint32 {
	id := uint32(4 * k)
	if s[(k+1)%3] > 0 {
		id++
	}
	if s[(k+2)%3] > 0 {
		id += 2
	}
	return id
}

// MaxPoints is the most points one Collide call appends (cylinder–plane,
// and plane–convex in CollideApproach; every other pair gives at most 4) for every pair but those with a
// TriMesh or Heightfield, which give up to 4 per group of normals over the
// triangles under the shape (reuse dst across calls for those). Size dst
// with it to avoid allocation.
const MaxPoints = 8

// rank orders kinds for dispatch: each pair routine takes the lower rank
// first and returns normals from it to the other.
var rank = [...]int{Plane: 0, TriMesh: 0, Heightfield: 0, Box: 1, Capsule: 2, Sphere: 3, Cylinder: 4, Convex: 5}

// Collide appends to dst the contact points between shape a at pose pa and
// shape b at pose pb whose Gap ≤ margin (m), and returns dst. Normal points
// from a to b and Key.A is a's feature, whatever the order of the
// arguments: Collide(b, …, a, …) gives the same points with Normal negated
// and the Key halves swapped (bit for bit). It does not allocate when dst
// has spare capacity (at most 4 points per pair except cylinder–plane,
// which gives up to 8, and a TriMesh or Heightfield pair, up to 4 per
// group of normals within 2.6° over the triangles under the shape).
//
// Every pair of kinds is supported except two static-only kinds (plane,
// trimesh, heightfield; dst is returned unchanged; Supported). Cylinder and convex pairs other than
// plane–cylinder and plane–convex go through GJK and EPA (Distance) and a
// manifold of up to 4 points (package documentation). Invalid shapes (Shape.Validate),
// poses with a non-finite Pos or a zero or non-finite Rot, and a NaN margin
// also give no points.
func Collide(dst []Point, a Shape, pa Pose, b Shape, pb Pose, margin float64) []Point {
	return collidePair(dst, a, pa, b, pb, margin, nil, nil)
}

// Motion is a body's rigid velocity: its point x moves at V + W × (x −
// Center) (m/s; W in rad/s).
type Motion struct{ V, W, Center mgl64.Vec3 }

// at is the velocity of the point x.
func (m *Motion) at(x mgl64.Vec3) mgl64.Vec3 {
	return m.V.Add(m.W.Cross(x.Sub(m.Center)))
}

// Approach is a step's motion of a pair for CollideApproach: A and B move
// shapes a and b, H is the step (s) and Margin the gap within which a
// point is always kept (m).
type Approach struct {
	A, B      Motion
	H, Margin float64
}

// closes reports whether the point of gap g at x with normal n (A → B)
// can close within the step, g ≤ Margin or g + H·rate ≤ Margin with rate
// = min(0, n·v_B(x)) − max(0, n·v_A(x)), each body's own approach without
// the other's retreat (a speculative stepper's test of a point), and
// returns the gap the step's approach leaves, g + H·rate.
func (ap *Approach) closes(x, n mgl64.Vec3, g float64) (float64, bool) {
	rate := math.Min(0, ap.B.at(x).Dot(n)) - math.Max(0, ap.A.at(x).Dot(n))
	left := g + ap.H*rate
	return left, g <= ap.Margin || left <= ap.Margin
}

// pointPos is emit's Pos of the point whose surface point on A is wa.
func pointPos(wa, n mgl64.Vec3, g float64) mgl64.Vec3 {
	return wa.Add(n.Mul(g / 2))
}

// CollideApproach is Collide within the look-ahead look for a stepper
// that keeps only the points that close within its step (the gap within
// ap.Margin, or closing to it at the motions' rates over ap.H: g + H·rate
// ≤ Margin with rate = min(0, n·v_b) − max(0, n·v_a) at the point). A
// plane and a convex hull choose among the hull's vertices within look
// those that close and emit only those, so that a
// vertex the step brings down is not left out for one that a large
// look-ahead reaches but the motion lifts away; and they keep every
// vertex that closes, up to MaxPoints, when one comes from beyond
// ap.Margin (the closing vertices of a hull landing or rolling need not
// lie on one face; over MaxPoints, 4 spread by area by the gap the
// approach leaves). Every other pair gives Collide's points (a hull's
// face clipped on another shape's face is one face's points already);
// with look ≤ ap.Margin the points are Collide's.
func CollideApproach(dst []Point, a Shape, pa Pose, b Shape, pb Pose, look float64, ap Approach) []Point {
	return collidePair(dst, a, pa, b, pb, look, nil, &ap)
}

// CollideReach is Collide that also returns reach: Collide gives the same
// points, bit for bit, for every margin m with margin ≤ m < reach (+Inf
// when no larger margin changes them). The points depend on the margin
// only through its tests (a separating axis or a gap against it), so
// reach is the least tested quantity that failed its test and would pass
// it under a larger margin. It is computed for box–box and plane–box
// pairs; for the other kinds reach is margin (nothing known beyond it).
// A stepper that collided at the same poses with the margin may reuse the
// points for a larger look-ahead below reach instead of colliding again.
func CollideReach(dst []Point, a Shape, pa Pose, b Shape, pb Pose, margin float64) ([]Point, float64) {
	reach := margin
	dst = collidePair(dst, a, pa, b, pb, margin, &reach, nil)
	return dst, reach
}

// lower sets *reach to the smaller of it and x (reach nil: not asked).
func lower(reach *float64, x float64) {
	if reach != nil && x < *reach {
		*reach = x
	}
}

// collidePair is Collide, keeping reach (CollideReach) when it is not nil
// and choosing among the closing points (CollideApproach) when ap is not nil.
func collidePair(dst []Point, a Shape, pa Pose, b Shape, pb Pose, margin float64, reach *float64, ap *Approach) []Point {
	if math.IsNaN(margin) || !a.valid() || !b.valid() {
		return dst
	}
	fa, ok := frameOf(pa)
	if !ok {
		return dst
	}
	fb, ok := frameOf(pb)
	if !ok {
		return dst
	}
	swap := rank[a.Kind] > rank[b.Kind] || (a.Kind == b.Kind && sameKindSwap(a, &pa, &fa, b, &pb, &fb))
	if swap {
		a, b = b, a
		fa, fb = fb, fa
		if ap != nil {
			ap.A, ap.B = ap.B, ap.A
		}
	}
	n0 := len(dst)
	if reach != nil && (a.Kind == Box && b.Kind == Box || a.Kind == Plane && b.Kind == Box) {
		*reach = math.Inf(1) // lowered by the tests that fail (boxBox, planeBox)
	} else {
		reach = nil // nothing known beyond margin: reach stays margin
	}
	dst = collide(dst, a, &fa, b, &fb, margin, reach, ap)
	if swap {
		for i := n0; i < len(dst); i++ {
			p := &dst[i]
			p.Normal = mgl64.Vec3{-p.Normal[0], -p.Normal[1], -p.Normal[2]}
			p.Key = Key{A: p.Key.B, B: p.Key.A}
		}
	}
	return dst
}

// sameKindSwap picks a canonical order for two shapes of one kind so that
// Collide is exactly symmetric: the first shape is the one lower along the
// world axis of largest centre separation; for coincident centres the shape
// fields, then the rotations, decide. For a stack along z the lower box
// becomes the first shape, and its top face is the preferred reference
// face, which keeps box-box keys persistent. Axes whose separations are
// within swapTie of the largest count as tied, and the lowest of them is
// taken: in a running bond (bricks offset by half a length that equals
// twice their height, as in a pyramid) |d_x| = |d_z| up to rounding, and
// the order, and with it every key of the pair, would otherwise flip from
// step to step with the rounding of a resting stack.
func sameKindSwap(a Shape, pa *Pose, fa *frame, b Shape, pb *Pose, fb *frame) bool {
	d := fb.p.Sub(fa.p)
	m := max(max(math.Abs(d[0]), math.Abs(d[1])), math.Abs(d[2]))
	k := 0
	for k < 2 && math.Abs(d[k]) < m*(1-swapTie) {
		k++
	}
	if d[k] != 0 {
		return d[k] < 0
	}
	ka := [...]float64{a.Size[0], a.Size[1], a.Size[2], a.Radius, a.Length, hullSize(a), pa.Rot.W, pa.Rot.V[0], pa.Rot.V[1], pa.Rot.V[2]}
	kb := [...]float64{b.Size[0], b.Size[1], b.Size[2], b.Radius, b.Length, hullSize(b), pb.Rot.W, pb.Rot.V[0], pb.Rot.V[1], pb.Rot.V[2]}
	for i := range ka {
		if ka[i] != kb[i] {
			return kb[i] < ka[i]
		}
	}
	return false
}

// hullSize orders hulls in sameKindSwap: vertex count and extent (0 for
// other kinds).
func hullSize(s Shape) float64 {
	if s.Kind != Convex {
		return 0
	}
	return float64(len(s.Hull.mesh.Vertices)) + s.Hull.extent
}

// swapTie is the relative difference below which two axes' centre
// separations count as equal in sameKindSwap: 1e-6 (0.1 µm on 10 cm), far
// above rounding and far below any placement a scene means, as clipSnap.
const swapTie = 1e-6

// collide dispatches with rank[a.Kind] ≤ rank[b.Kind]; reach, when not
// nil, is lowered by boxBox and planeBox (CollideReach).
func collide(dst []Point, a Shape, fa *frame, b Shape, fb *frame, margin float64, reach *float64, ap *Approach) []Point {
	switch a.Kind {
	case TriMesh, Heightfield:
		if b.Kind >= Box && b.Kind <= Convex {
			return meshPair(dst, a, fa, b, fb, margin)
		}
		return dst
	case Plane:
		switch b.Kind {
		case Box:
			return planeBox(dst, fa, b.half(), fb, margin, reach)
		case Capsule:
			return planeCapsule(dst, fa, b, fb, margin)
		case Sphere:
			return planeSphere(dst, fa, b.Radius, fb, margin)
		case Cylinder:
			return planeCylinder(dst, fa, b, fb, margin)
		}
	case Box:
		switch b.Kind {
		case Box:
			return boxBox(dst, a.half(), fa, b.half(), fb, margin, reach)
		case Capsule:
			return boxCapsule(dst, a.half(), fa, b, fb, margin)
		case Sphere:
			return boxSphere(dst, a.half(), fa, b.Radius, fb, margin)
		case Cylinder:
			return boxCylinder(dst, a.half(), fa, b, fb, margin)
		}
	case Capsule:
		switch b.Kind {
		case Capsule:
			return capsuleCapsule(dst, a, fa, b, fb, margin)
		case Sphere:
			return capsuleSphere(dst, a, fa, b.Radius, fb, margin)
		case Cylinder:
			return capsuleCylinder(dst, a, fa, b, fb, margin)
		}
	case Sphere:
		switch b.Kind {
		case Sphere:
			return sphereSphere(dst, a.Radius, fa, b.Radius, fb, margin)
		case Cylinder:
			return sphereCylinder(dst, a.Radius, fa, b, fb, margin)
		}
	case Cylinder:
		if b.Kind == Cylinder {
			return cylinderCylinder(dst, a, fa, b, fb, margin)
		}
	}
	if b.Kind == Convex {
		if a.Kind == Plane {
			return planeConvex(dst, fa, b.Hull, fb, margin, ap)
		}
		return convexPair(dst, a, fa, b, fb, margin)
	}
	return dst
}

// emit appends the point whose surface point on A is wa, with unit normal
// n (A → B) and gap g: Pos = wa + n g/2.
func emit(dst []Point, wa, n mgl64.Vec3, g float64, ka, kb uint32) []Point {
	return append(dst, Point{Pos: wa.Add(n.Mul(g / 2)), Normal: n, Gap: g, Key: Key{ka, kb}})
}

// planeOf returns the plane's world normal and offset n·x = off.
func planeOf(f *frame) (mgl64.Vec3, float64) {
	n := f.ax[2]
	return n, n.Dot(f.p)
}

func planeSphere(dst []Point, fp *frame, r float64, fs *frame, margin float64) []Point {
	n, off := planeOf(fp)
	h := n.Dot(fs.p) - off
	if g := h - r; g <= margin {
		dst = emit(dst, fs.p.Sub(n.Mul(h)), n, g, 0, 0)
	}
	return dst
}

// planeBox emits the box vertices within margin, at most 4, in vertex
// order: those the least turn of the box brings to the plane first
// (vertexTurn), ties by depth and then vertex index. Ranked by depth
// alone, a long thin box (a plank) lying nearly flat kept the 4 vertices
// of its lower end, whose top corners are only its thickness up, and
// dropped its other end's bottom corners, which a turn of a degree or
// two brings down: the plank falling flat crashed its far end through
// the floor in one step.
func planeBox(dst []Point, fp *frame, half mgl64.Vec3, fb *frame, margin float64, reach *float64) []Point {
	return planeBoxVertices(dst, fp, half, fb, margin, true, reach)
}

// planeBoxVertices is planeBox; reject false computes every vertex's world
// position and gap (its tests' reference for the early rejection). reach
// (when not nil) is lowered to the least rejected vertex's height when
// fewer than four vertices are kept: under a larger margin it would join
// them. With four kept, a vertex above margin would rank after them all.
func planeBoxVertices(dst []Point, fp *frame, half mgl64.Vec3, fb *frame, margin float64, reject bool, reach *float64) []Point {
	n, off := planeOf(fp)
	var idx [8]int
	var gap, turn [8]float64
	var pos [8]mgl64.Vec3
	// Each vertex's height over the plane from the centre's and the
	// axes' (c ± d₀ ± d₁ ± d₂, three sums) rules out the vertices above
	// margin by more than slack, a bound far above the rounding of either
	// sum (about 10 ulps of S); the others' gaps are computed as before,
	// so the points are the same bits.
	c := n.Dot(fb.p) - off
	d := [3]float64{half[0] * n.Dot(fb.ax[0]), half[1] * n.Dot(fb.ax[1]), half[2] * n.Dot(fb.ax[2])}
	slack := 1e-12 * (math.Abs(fb.p[0]) + math.Abs(fb.p[1]) + math.Abs(fb.p[2]) + math.Abs(off) + math.Abs(half[0]) + math.Abs(half[1]) + math.Abs(half[2]))
	// Vertex i's estimate is ((c ± d₀) ± d₁) ± d₂, the sign of d_k + for
	// bit k of i set, summed in that order for every vertex.
	var ests [8]float64
	e0, e1 := c-d[0], c+d[0]
	ests[0], ests[1], ests[2], ests[3] = e0-d[1], e1-d[1], e0+d[1], e1+d[1]
	for i := 0; i < 4; i++ {
		ests[i+4] = ests[i] + d[2]
		ests[i] -= d[2]
	}
	lim := margin + slack
	m := 0
	// The rejected vertices' heights and turns (reach): under a larger
	// margin one would join the kept ones, displacing the last when it
	// ranks before it.
	var rejGap, rejTurn [8]float64
	nr := 0
	for i := 0; i < 8; i++ {
		est := ests[i]
		tu := vertexTurn(n, fb, i)
		if reject && est > lim {
			// Rejected for every margin m with m + slack < est: below
			// est − 2·slack, whatever the rounding of m + slack.
			rejGap[nr], rejTurn[nr] = est-2*slack, tu
			nr++
			continue
		}
		v := fb.toWorld(boxVertex(half, i))
		g := n.Dot(v) - off
		if !(g <= margin) {
			if g > margin {
				rejGap[nr], rejTurn[nr] = g, tu
				nr++
			}
			continue
		}
		// insertion sort by (turn, gap, index)
		j := m
		for j > 0 && (turn[j-1] > tu || turn[j-1] == tu && gap[j-1] > g) {
			idx[j], gap[j], turn[j], pos[j] = idx[j-1], gap[j-1], turn[j-1], pos[j-1]
			j--
		}
		idx[j], gap[j], turn[j], pos[j] = i, g, tu, v
		m++
	}
	// Reach: the least rejected height of a vertex that would be kept
	// under a margin above it: every one while fewer than four are kept,
	// with four those of a smaller turn than the fourth's (on a tie its
	// larger gap ranks it after).
	for r := 0; r < nr; r++ {
		if m < 4 || rejTurn[r] < turn[3] {
			lower(reach, rejGap[r])
		}
	}
	// The (up to) four first, emitted in vertex order: a box resting
	// flat has four vertices at one depth up to rounding, and an order by
	// depth would reshuffle its points (and the rows of the step's MLCP)
	// from step to step.
	m = min(m, 4)
	for j := 1; j < m; j++ {
		for k := j; k > 0 && idx[k-1] > idx[k]; k-- {
			idx[k], idx[k-1] = idx[k-1], idx[k]
			gap[k], gap[k-1] = gap[k-1], gap[k]
			pos[k], pos[k-1] = pos[k-1], pos[k]
		}
	}
	for j := 0; j < m; j++ {
		dst = emit(dst, pos[j].Sub(n.Mul(gap[j])), n, gap[j], 0, FeatureVertex|uint32(idx[j]))
	}
	return dst
}

// vertexTurn is how far the box of frame fb must turn before its vertex i
// is the one nearest the plane of normal n: sin² of the angle from −n to
// the vertex's normal cone, the octant of directions whose component
// along each box axis k has the sign s_k of the vertex (bit k of i set:
// +), which is Σ (n·a_k)² over the axes where s_k (n·a_k) > 0. The
// deepest vertices have 0; a box lying flat has 0 at its four bottom
// vertices and 1 at its top ones; a plank tilted by α has sin² α at its
// raised end's bottom vertices and cos² α at its lower end's top ones.
func vertexTurn(n mgl64.Vec3, fb *frame, i int) float64 {
	var t float64
	for k := 0; k < 3; k++ {
		c := n.Dot(fb.ax[k])
		if (i>>k)&1 == 0 {
			c = -c
		}
		if c > 0 {
			t += c * c
		}
	}
	return t
}

// planeCapsule emits the two segment ends within margin, end 0 first.
func planeCapsule(dst []Point, fp *frame, c Shape, fc *frame, margin float64) []Point {
	n, off := planeOf(fp)
	ax := fc.ax[2]
	for e := 0; e < 2; e++ {
		p := fc.p.Add(ax.Mul(float64(2*e-1) * c.halfLength()))
		h := n.Dot(p) - off
		if g := h - c.Radius; g <= margin {
			dst = emit(dst, p.Sub(n.Mul(h)), n, g, 0, uint32(e))
		}
	}
	return dst
}

// planeCylinder is the line contact of a wheel: for each end circle e (0 at
// local z = −Length/2, 1 at +Length/2) the rim point lowest towards the
// plane (key e), then the rim points a quarter, half and three quarter turn
// from it (keys e+2, e+4, e+6), each emitted if within margin. A wheel
// standing on its tread gives the two points of keys 0 and 1 at the ends of
// the contact line; a cylinder standing on an end face gives four rim
// points. When the axis is parallel to the normal the "lowest" direction is
// the cylinder's local x axis.
func planeCylinder(dst []Point, fp *frame, c Shape, fc *frame, margin float64) []Point {
	n, off := planeOf(fp)
	a := fc.ax[2]
	w := n.Sub(a.Mul(n.Dot(a))) // n projected on the end-circle plane
	var u mgl64.Vec3
	if l := w.Len(); l > 1e-12 {
		u = w.Mul(1 / l)
	} else {
		u = fc.ax[0]
	}
	v := a.Cross(u)
	dirs := [4]mgl64.Vec3{u.Mul(-1), v, u, v.Mul(-1)}
	for q := 0; q < 4; q++ {
		for e := 0; e < 2; e++ {
			p := fc.p.Add(a.Mul(float64(2*e-1) * c.halfLength())).Add(dirs[q].Mul(c.Radius))
			g := n.Dot(p) - off
			if g <= margin {
				dst = emit(dst, p.Sub(n.Mul(g)), n, g, 0, uint32(e+2*q))
			}
		}
	}
	return dst
}

func sphereSphere(dst []Point, ra float64, fa *frame, rb float64, fb *frame, margin float64) []Point {
	d := fb.p.Sub(fa.p)
	dist := d.Len()
	if dist-ra-rb > margin {
		return dst
	}
	n := mgl64.Vec3{0, 0, 1} // coincident centres: any direction is as good
	if dist > 0 {
		n = d.Mul(1 / dist)
	}
	g := dist - ra - rb
	return emit(dst, fa.p.Add(n.Mul(ra)), n, g, 0, 0)
}

// boxSphere: the closest point of the box to the sphere centre. The box
// feature is the face, edge or vertex of the Voronoi region the centre is
// in; a centre inside the box is pushed out through the nearest face.
func boxSphere(dst []Point, half mgl64.Vec3, fb *frame, r float64, fs *frame, margin float64) []Point {
	cl, nl, dist, feat, _, _ := boxClosest(half, fb.toLocal(fs.p))
	if g := dist - r; g <= margin {
		dst = emit(dst, fb.toWorld(cl), fb.vecToWorld(nl), g, feat, 0)
	}
	return dst
}

// vertexIndex returns the box vertex with coordinate signs s (boxVertex).
func vertexIndex(s mgl64.Vec3) uint32 {
	var i uint32
	for k := 0; k < 3; k++ {
		if s[k] > 0 {
			i |= 1 << k
		}
	}
	return i
}
