package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// Convex hull pairs (package documentation, "Pairs"): GJK and EPA
// (separation) give the gap and normal n (A → B); each shape then offers
// its feature facing the other — a face polygon (a hull's or box's face,
// a cylinder's end-face square), a segment (a capsule's core or a
// cylinder's side line lying across n), or a point — and when one of them
// is a face whose separation is within tolerance of the gap (the face
// normal is the contact normal, as box–box's face axes against its edge
// axes), the other's feature is clipped against the face's side planes
// (Sutherland–Hodgman) and reduced to at most 4 points (reduce4's rule).
// Otherwise (edge on edge, vertex on edge, curved on curved) the single
// GJK/EPA point is the contact.

const (
	// maxPoly is the most vertices a feature polygon keeps: a face with
	// more is sampled evenly around its loop (an inscribed polygon, still
	// convex), so the manifold runs in fixed arrays.
	maxPoly = 64
	// maxClip: a convex polygon of n vertices clipped by m half-planes
	// has at most n + m vertices.
	maxClip = 2 * maxPoly
	// sideLine is the line-id offset of reference side planes in the
	// incident half of a clipped key; incident edges are 0..127.
	sideLineID = 128
)

// polyFeat is one shape's feature facing the other, in the world.
type polyFeat struct {
	n    int
	p    [maxPoly]mgl64.Vec3 // corners (core points for a sphere or capsule), in loop order
	face bool                // a face with side planes (n ≥ 3)
	nrm  mgl64.Vec3          // a face's outward unit normal
	id   uint32              // Key half of a point on the face (reference)
	inc  uint32              // feature code in the incident half of clipped keys
	skin float64             // radius swept around the core (sphere, capsule)
}

// featureFacing fills out with the feature of shape s (frame f) whose
// outward normal is nearest the world direction d.
func featureFacing(s Shape, f *frame, d mgl64.Vec3, out *polyFeat) {
	out.n, out.face, out.skin = 0, false, 0
	put := func(p mgl64.Vec3) {
		out.p[out.n] = p
		out.n++
	}
	switch s.Kind {
	case Box:
		k := 0
		for i := 1; i < 3; i++ {
			if math.Abs(f.ax[i].Dot(d)) > math.Abs(f.ax[k].Dot(d)) {
				k = i
			}
		}
		sr := sgn(f.ax[k].Dot(d))
		u, v := (k+1)%3, (k+2)%3
		h := s.half()
		for _, c := range [4][2]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}} {
			var l mgl64.Vec3
			l[k], l[u], l[v] = sr*h[k], c[0]*h[u], c[1]*h[v]
			put(f.toWorld(l))
		}
		out.face, out.nrm = true, f.ax[k].Mul(sr)
		out.inc = BoxFace(k, sr)
		out.id = FeatureFace | out.inc
	case Convex:
		m := s.Hull.mesh
		dl := mgl64.Vec3{d.Dot(f.ax[0]), d.Dot(f.ax[1]), d.Dot(f.ax[2])}
		fi := s.Hull.face(dl)
		loop := m.Faces[fi]
		if len(loop) <= maxPoly {
			for _, v := range loop {
				put(f.toWorld(m.Vertices[v]))
			}
		} else {
			for k := 0; k < maxPoly; k++ {
				put(f.toWorld(m.Vertices[loop[k*len(loop)/maxPoly]]))
			}
		}
		out.face, out.nrm = true, f.vecToWorld(m.Normals[fi])
		out.inc = uint32(fi)
		out.id = FeatureFace | uint32(fi)&0xffff
	case triangleKind:
		t := s.tri
		for k := 0; k < 3; k++ {
			put(f.toWorld(t.v[k]))
		}
		nw := f.vecToWorld(t.n)
		out.face, out.nrm = true, nw.Mul(sgn(nw.Dot(d)))
		out.inc, out.id = 0, FeatureFace
	case Cylinder:
		a := f.ax[2]
		switch {
		case a.Cross(d).Len() <= cylFlatSin:
			e, nc, _ := cylCap(s, f, d.Mul(-1))
			for _, p := range capSquare(s, f, e, d.Mul(-1)) {
				put(p)
			}
			out.face, out.nrm = true, nc
			out.id = CylinderCap0 + uint32(e)
			out.inc = out.id
		case math.Abs(a.Dot(d)) <= cylFlatSin:
			p0, p1 := sideLine(s, f, d.Mul(-1))
			put(p0)
			put(p1)
			out.inc = CylinderSide
		default:
			c := newConvex(s, f)
			put(c.coreSupport(d))
			out.inc = cylFeatureAt(s, f.toLocal(out.p[0]))
		}
	case Capsule:
		out.skin = s.Radius
		a := f.ax[2]
		if s.Length > 0 && math.Abs(a.Dot(d)) <= cylFlatSin {
			p0, dd := segment(s, f)
			put(p0)
			put(p0.Add(dd))
			out.inc = CapsuleSide
		} else {
			c := newConvex(s, f)
			put(c.coreSupport(d))
			out.inc = CapsuleEnd0
			if a.Dot(d) > 0 {
				out.inc = CapsuleEnd1
			}
		}
	case Sphere:
		out.skin = s.Radius
		put(f.p)
	}
}

// featureKey keys the point on of shape s (frame f) whose outward normal
// is d, for the single-point contact.
func featureKey(s Shape, f *frame, on, d mgl64.Vec3) uint32 {
	switch s.Kind {
	case Box:
		return boxFeatureAt(s.half(), f.toLocal(on))
	case Capsule:
		return capsuleFeatureAt(s, f, on, d)
	case Cylinder:
		return cylFeatureAt(s, f.toLocal(on))
	case Convex:
		return hullFeatureAt(s.Hull, mgl64.Vec3{d.Dot(f.ax[0]), d.Dot(f.ax[1]), d.Dot(f.ax[2])})
	}
	return 0
}

// faceSep is the separation of A and B along A's outward face normal n:
// min over B of n·x minus max over A of n·x.
func faceSep(A, B *convex, n mgl64.Vec3) float64 {
	return n.Dot(B.support(n.Mul(-1))) - n.Dot(A.support(n))
}

// convexPair is the contact of a Convex shape b with any shape a of kind
// Box, Capsule, Sphere, Cylinder or Convex.
func convexPair(dst []Point, a Shape, fa *frame, b Shape, fb *frame, margin float64) []Point {
	A, B := newConvex(a, fa), newConvex(b, fb)
	sep := separation(&A, &B)
	if !(sep.Gap <= margin) || !num.FiniteVec(sep.Normal) {
		return dst
	}
	return convexManifold(dst, a, fa, &A, b, fb, &B, sep, margin)
}

// convexManifold is convexPair's manifold from the separation sep of A
// (shape a) and B (shape b): a clipped face manifold, or the single point.
func convexManifold(dst []Point, a Shape, fa *frame, A *convex, b Shape, fb *frame, B *convex, sep Separation, margin float64) []Point {
	n := sep.Normal
	ext := math.Max(A.extent(), B.extent())
	tol := boxTol * ext
	var fA, fB, inc polyFeat
	featureFacing(a, fa, n, &fA)
	featureFacing(b, fb, n.Mul(-1), &fB)
	sA, sB := math.Inf(-1), math.Inf(-1)
	if fA.face {
		sA = faceSep(A, B, fA.nrm)
	}
	if fB.face {
		sB = faceSep(B, A, fB.nrm)
	}
	refA := fA.face && !(fB.face && sB > sA+tol)
	sF := sA
	if !refA {
		sF = sB
	}
	if (refA || fB.face) && sep.Gap <= sF+tol+edgeRelTol*math.Abs(sF) {
		n0 := len(dst)
		var minZ float64
		var ok bool
		if refA {
			featureFacing(b, fb, fA.nrm.Mul(-1), &inc)
			dst, minZ, ok = clipManifold(dst, &fA, &inc, true, margin, ext)
		} else {
			featureFacing(a, fa, fB.nrm.Mul(-1), &inc)
			dst, minZ, ok = clipManifold(dst, &fB, &inc, false, margin, ext)
		}
		if ok && minZ <= sep.Gap+manifoldRel*ext {
			return dst
		}
		dst = dst[:n0]
	}
	return emit(dst, sep.OnA, n, sep.Gap, featureKey(a, fa, sep.OnA, n), featureKey(b, fb, sep.OnB, n.Mul(-1)))
}

// hullClipVert is a vertex of the incident feature during clipping: its
// world point and the ids of the lines that make it (clipVert's rule;
// orig ≥ 0 for an unclipped incident corner, its loop position).
type hullClipVert struct {
	p       mgl64.Vec3
	in, out uint8
	orig    int16
}

type hullClipPoly struct {
	v [maxClip]hullClipVert
	n int
}

// clip keeps the part of p with m·x ≤ lim (+ snap, as clipPoly.clip) in
// out; the new edge along the plane gets line id.
func (p *hullClipPoly) clip(out *hullClipPoly, m mgl64.Vec3, lim, snap float64, id uint8) {
	out.n = 0
	if p.n == 0 {
		return
	}
	if p.n == 2 {
		// A segment: its two "edges" are one line, which the polygon rule
		// would cross twice at the same point. Keep the inside part, in
		// order, its cut end on the plane.
		a, b := p.v[0], p.v[1]
		ca, cb := m.Dot(a.p), m.Dot(b.p)
		inA, inB := ca <= lim+snap, cb <= lim+snap
		switch {
		case inA && inB:
			out.v[0], out.v[1], out.n = a, b, 2
		case inA || inB:
			t := (lim - ca) / (cb - ca)
			x := hullClipVert{p: a.p.Add(b.p.Sub(a.p).Mul(t)), in: a.out, out: id, orig: -1}
			if inA {
				out.v[0], out.v[1] = a, x
			} else {
				out.v[0], out.v[1] = x, b
			}
			out.n = 2
		}
		return
	}
	prev := &p.v[p.n-1]
	cp := m.Dot(prev.p)
	for i := 0; i < p.n; i++ {
		cur := &p.v[i]
		cc := m.Dot(cur.p)
		inPrev, inCur := cp <= lim+snap, cc <= lim+snap
		if inPrev != inCur && p.n > 1 {
			t := (lim - cp) / (cc - cp)
			x := hullClipVert{p: prev.p.Add(cur.p.Sub(prev.p).Mul(t)), orig: -1}
			if inPrev {
				x.in, x.out = prev.out, id
			} else {
				x.in, x.out = id, prev.out
			}
			if out.n < len(out.v) {
				out.v[out.n] = x
				out.n++
			}
		}
		if inCur && out.n < len(out.v) {
			out.v[out.n] = *cur
			out.n++
		}
		prev, cp = cur, cc
	}
}

// clipManifold clips the incident feature I against the side planes of
// the reference face R (R is shape A when refA) and emits the points
// within margin, at most 4 (reduce4's choice, emitted in polygon order),
// with Normal R's face normal (negated when R is B). Keys: R's half is
// R.id; I's half is FeatureClip | I.inc<<19 | lo<<8 | hi with lo ≤ hi: an
// unclipped corner j of I is (j, j), any other point the two lines that
// cross there, I's edge k (from corner k to k + 1) as k and R's side plane
// through its edge k as 128 + k (ids mod 128, I.inc mod 2¹³). It returns
// the least gap of the clipped points (within margin or not) and whether
// any part of I lies over R.
func clipManifold(dst []Point, R, I *polyFeat, refA bool, margin, ext float64) ([]Point, float64, bool) {
	nR := R.nrm
	var bufA, bufB hullClipPoly
	poly, tmp := &bufA, &bufB
	for j := 0; j < I.n; j++ {
		v := &poly.v[j]
		v.p, v.orig = I.p[j], int16(j)
		v.in, v.out = uint8((j+I.n-1)%I.n&127), uint8(j&127)
	}
	poly.n = I.n
	var c mgl64.Vec3
	for k := 0; k < R.n; k++ {
		c = c.Add(R.p[k])
	}
	c = c.Mul(1 / float64(R.n))
	snap := clipSnap * ext
	for k := 0; k < R.n; k++ {
		p, q := R.p[k], R.p[(k+1)%R.n]
		m := q.Sub(p).Cross(nR)
		l := m.Len()
		if !(l > 0) {
			continue
		}
		m = m.Mul(1 / l)
		if m.Dot(c.Sub(p)) > 0 {
			m = m.Mul(-1)
		}
		poly.clip(tmp, m, m.Dot(p), snap, uint8(sideLineID+k&127))
		poly, tmp = tmp, poly
	}
	if poly.n == 0 {
		return dst, math.Inf(1), false
	}
	off := nR.Dot(R.p[0])
	t1 := num.AnyPerp(nR)
	t2 := nR.Cross(t1)
	var cand [maxClip]clipVert
	var idx [maxClip]int
	minZ := math.Inf(1)
	m := 0
	for i := 0; i < poly.n; i++ {
		x := poly.v[i].p
		z := nR.Dot(x) - off - I.skin
		minZ = math.Min(minZ, z)
		if z <= margin {
			cand[m] = clipVert{x: t1.Dot(x), y: t2.Dot(x), z: z}
			idx[m] = i
			m++
		}
	}
	var keep [maxClip]bool
	if m <= 4 {
		for i := 0; i < m; i++ {
			keep[i] = true
		}
	} else {
		for _, i := range pick4(cand[:m], boxTol*ext) {
			keep[i] = true
		}
	}
	for i := 0; i < m; i++ {
		if !keep[i] {
			continue
		}
		v := &poly.v[idx[i]]
		lo, hi := v.in, v.out
		if v.orig >= 0 {
			lo, hi = uint8(v.orig&127), uint8(v.orig&127)
		} else if lo > hi {
			lo, hi = hi, lo
		}
		kI := FeatureClip | (I.inc&0x1fff)<<19 | uint32(lo)<<8 | uint32(hi)
		z := cand[i].z
		onI := v.p.Sub(nR.Mul(I.skin)) // I's surface point
		if refA {
			dst = emit(dst, onI.Sub(nR.Mul(z)), nR, z, R.id, kI)
		} else {
			dst = emit(dst, onI, nR.Mul(-1), z, kI, R.id)
		}
	}
	return dst, minZ, true
}

// planeConvex emits the hull vertices within margin of the plane (found by
// a scan of a small hull, else by a fill over the vertex graph from the
// deepest vertex): all of them if at most 4, else 4 chosen by reduce4's
// rule (the deepest, the farthest from it, the largest triangle, the most
// added area) over the up to maxClip found, emitted in vertex order with keys (0,
// FeatureVertex | vertex index). A cube's hull so gives exactly the points
// of planeBox. With ap not nil (CollideApproach) only the vertices that
// close (Approach.closes) are chosen and emitted: within a large
// look-ahead, a hull landing tilted has vertices far up that its motion
// lifts away, and spread by area they displaced the ones that closed.
func planeConvex(dst []Point, fp *frame, h *Hull, fb *frame, margin float64, ap *Approach) []Point {
	n, off := planeOf(fp)
	var idx [maxClip]int
	var gap [maxClip]float64
	var pos [maxClip]mgl64.Vec3
	m := 0
	vs := h.mesh.Vertices
	add := func(i int, w mgl64.Vec3, g float64) {
		if m == maxClip {
			if g >= gap[m-1] {
				return
			}
			m-- // drop the shallowest
		}
		j := m
		for j > 0 && gap[j-1] > g {
			idx[j], gap[j], pos[j] = idx[j-1], gap[j-1], pos[j-1]
			j--
		}
		idx[j], gap[j], pos[j] = i, g, w
		m++
	}
	if len(vs) < climbMin {
		for i, v := range vs {
			w := fb.toWorld(v)
			if g := n.Dot(w) - off; g <= margin {
				add(i, w, g)
			}
		}
	} else {
		// The vertices within margin are those below a plane, which on a
		// convex polyhedron form a connected part of its vertex graph
		// holding the deepest vertex: fill it from there.
		nl := mgl64.Vec3{-n.Dot(fb.ax[0]), -n.Dot(fb.ax[1]), -n.Dot(fb.ax[2])}
		var queue [maxClip]int32
		s := h.support(nl)
		w := fb.toWorld(vs[s])
		if g := n.Dot(w) - off; !(g <= margin) {
			return dst
		}
		queue[0] = int32(s)
		for head, nq := 0, 1; head < nq; head++ {
			v := queue[head]
			w := fb.toWorld(vs[v])
			add(int(v), w, n.Dot(w)-off)
			for _, u := range h.adj[h.adjOff[v]:h.adjOff[v+1]] {
				if nq == len(queue) {
					break
				}
				wu := fb.toWorld(vs[u])
				if !(n.Dot(wu)-off <= margin) {
					continue
				}
				seen := false
				for _, q := range queue[:nq] {
					if q == u {
						seen = true
						break
					}
				}
				if !seen {
					queue[nq] = u
					nq++
				}
			}
		}
	}
	// Chosen by the gap the step's approach leaves (ap), else the gap.
	var left [maxClip]float64
	keepAll := 4
	if ap != nil {
		k := 0
		for j := 0; j < m; j++ {
			if l, ok := ap.closes(pointPos(pos[j].Sub(n.Mul(gap[j])), n, gap[j]), n, gap[j]); ok {
				idx[k], gap[k], pos[k], left[k] = idx[j], gap[j], pos[j], l
				if gap[k] > ap.Margin {
					// A vertex the step brings down from beyond the
					// margin: the closing ones need not lie on one face
					// (a 12-gon prism landing closes 4 lines of 2), and
					// each left out falls through.
					keepAll = MaxPoints
				}
				k++
			}
		}
		m = k
	}
	if keepAll == 4 {
		// All within margin (or no approach): by the gap, as Collide.
		copy(left[:m], gap[:m])
	}
	// Vertex order, as planeBox: depth order would reshuffle the points
	// of a hull resting flat from step to step with rounding.
	for j := 1; j < m; j++ {
		for k := j; k > 0 && idx[k-1] > idx[k]; k-- {
			idx[k], idx[k-1] = idx[k-1], idx[k]
			gap[k], gap[k-1] = gap[k-1], gap[k]
			pos[k], pos[k-1] = pos[k-1], pos[k]
			left[k], left[k-1] = left[k-1], left[k]
		}
	}
	var keep [maxClip]bool
	if m <= keepAll {
		for j := 0; j < m; j++ {
			keep[j] = true
		}
	} else {
		t1 := num.AnyPerp(n)
		t2 := n.Cross(t1)
		var cand [maxClip]clipVert
		for j := 0; j < m; j++ {
			cand[j] = clipVert{x: t1.Dot(pos[j]), y: t2.Dot(pos[j]), z: left[j]}
		}
		for _, j := range pick4(cand[:m], boxTol*h.extent) {
			keep[j] = true
		}
	}
	for j := 0; j < m; j++ {
		if keep[j] {
			dst = emit(dst, pos[j].Sub(n.Mul(gap[j])), n, gap[j], 0, FeatureVertex|uint32(idx[j])&0xffff)
		}
	}
	return dst
}
