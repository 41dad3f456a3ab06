package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Box–box contact, in the manner of ODE's dBoxBox and Box2D's polygon
// manifolds (our own code):
//
//  1. Separating axis test over the 15 axes: the 3 face normals of A, the 3
//     of B and the 9 edge cross products a_i × b_j (skipped when the edges
//     are parallel, |a_i × b_j| < 1e-6). The separation along unit axis L
//     is s = |d·L| − r_A(L) − r_B(L), d = c_B − c_A, r(L) = Σ_k h_k |e_k·L|.
//     Any s > margin: no contact.
//  2. The axis of largest s wins, biased for stability: B's face only if
//     s_B > s_A + tol, an edge axis only if s_E > s_face + tol + 0.05|s_face|,
//     tol = 1e-3·(largest half extent). Ties so go to A's face (Collide
//     makes A the lower box of a stack) and then to faces.
//  3. Edge axis: the closest points of the two supporting edges, keys
//     (edge of A, edge of B), and where an edge of a face at one of them
//     crosses the other within margin (a face across the other box's
//     edge; 1 to 4 points).
//  4. Face axis: the reference face (on the winning box, facing the other)
//     and the incident face (the other box's face most anti-parallel to it).
//     The incident quadrilateral, in reference-face coordinates (x, y along
//     the face, z height above it), is clipped against the four side planes
//     |x| ≤ h_u, |y| ≤ h_v (Sutherland–Hodgman); vertices with z ≤ margin
//     are contacts with Gap = z. More than 4 are reduced to 4 (reduce4).
//
// Keys of clipped points: the reference half is FeatureFace|face; the
// incident half is FeatureClip | lo<<8 | hi, lo < hi the ids of the two
// lines that cross at the point: 0..11 an edge of the incident box,
// 16..27 the side plane through edge (id−16) of the reference box. An
// incident vertex inside the face is the pair of its two edges, a corner of
// the reference face the pair of its two edges, and any other point one of
// each. Under small motions the same lines keep crossing, so keys persist.
// An incident vertex up to clipSnap·(largest half extent) outside a side
// plane counts as inside: equal-depth boxes stacked with coincident edges
// then keep the vertex's key whatever the sign of the rounding.

const (
	boxTol     = 1e-3 // relative to the largest half extent: face/edge preference and depth ties
	edgeRelTol = 0.05 // relative extra bias against edge axes
	refLine    = 16   // offset of reference-box edge ids among clip line ids
	// clipSnap, relative to the largest half extent: an incident vertex
	// this close outside a side plane counts as inside. Stacked boxes of
	// equal depth have incident edges on the reference side planes up to
	// rounding (~1e-15 relative); without the snap, that rounding decides
	// between the vertex and two clip crossings, and the keys flicker on a
	// resting stack. 1e-6 (0.1 µm on a 10 cm box) is far above rounding
	// and far below any geometric feature.
	clipSnap = 1e-6
)

type clipVert struct {
	x, y, z float64
	in, out uint8 // ids of the lines of the polygon edges entering and leaving the vertex
}

type clipPoly struct {
	v [8]clipVert
	n int
}

// clip keeps the part of p with sgn·coord ≤ lim (coord x if k == 0, else
// y) in out; the new edge along the plane gets line id. A vertex with
// sgn·coord ≤ lim + snap counts as inside and is kept as it is.
func (p *clipPoly) clip(out *clipPoly, k int, sgn, lim, snap float64, id uint8) {
	out.n = 0
	if p.n == 0 {
		return
	}
	c := func(v *clipVert) float64 {
		if k == 0 {
			return sgn * v.x
		}
		return sgn * v.y
	}
	prev := &p.v[p.n-1]
	cp := c(prev)
	for i := 0; i < p.n; i++ {
		cur := &p.v[i]
		cc := c(cur)
		inPrev, inCur := cp <= lim+snap, cc <= lim+snap
		if inPrev != inCur {
			t := (lim - cp) / (cc - cp)
			x := clipVert{
				x: prev.x + t*(cur.x-prev.x),
				y: prev.y + t*(cur.y-prev.y),
				z: prev.z + t*(cur.z-prev.z),
			}
			if inPrev { // leaving: along the edge, then along the plane
				x.in, x.out = prev.out, id
			} else { // entering
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

// boxBox collides two boxes by separating axes (faces of A, of B, edge
// pairs), then clips a face or joins two edges. reach (when not nil) is
// lowered by every test against margin that fails (CollideReach).
func boxBox(dst []Point, ha mgl64.Vec3, fa *frame, hb mgl64.Vec3, fb *frame, margin float64, reach *float64) []Point {
	d := fb.p.Sub(fa.p)
	var absC [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			absC[i][j] = math.Abs(fa.ax[i].Dot(fb.ax[j]))
		}
	}
	sA, iA := math.Inf(-1), 0
	for i := 0; i < 3; i++ {
		s := math.Abs(d.Dot(fa.ax[i])) - ha[i] - (hb[0]*absC[i][0] + hb[1]*absC[i][1] + hb[2]*absC[i][2])
		if s > margin {
			lower(reach, s)
			return dst
		}
		if s > sA {
			sA, iA = s, i
		}
	}
	sB, iB := math.Inf(-1), 0
	for j := 0; j < 3; j++ {
		s := math.Abs(d.Dot(fb.ax[j])) - hb[j] - (ha[0]*absC[0][j] + ha[1]*absC[1][j] + ha[2]*absC[2][j])
		if s > margin {
			lower(reach, s)
			return dst
		}
		if s > sB {
			sB, iB = s, j
		}
	}
	sE, eA, eB := math.Inf(-1), -1, -1
	var lE mgl64.Vec3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			l := fa.ax[i].Cross(fb.ax[j])
			ll := l.Len()
			if ll < 1e-6 {
				continue
			}
			l = l.Mul(1 / ll)
			rA := ha[0]*math.Abs(fa.ax[0].Dot(l)) + ha[1]*math.Abs(fa.ax[1].Dot(l)) + ha[2]*math.Abs(fa.ax[2].Dot(l))
			rB := hb[0]*math.Abs(fb.ax[0].Dot(l)) + hb[1]*math.Abs(fb.ax[1].Dot(l)) + hb[2]*math.Abs(fb.ax[2].Dot(l))
			s := math.Abs(d.Dot(l)) - rA - rB
			if s > margin {
				lower(reach, s)
				return dst
			}
			if s > sE {
				sE, eA, eB, lE = s, i, j, l
			}
		}
	}
	scale := max(max(max(ha[0], ha[1]), max(ha[2], hb[0])), max(hb[1], hb[2]))
	tol := boxTol * scale
	useB := sB > sA+tol
	sF := sA
	if useB {
		sF = sB
	}
	if eA >= 0 && sE > sF+tol+edgeRelTol*math.Abs(sF) {
		return boxEdgeEdge(dst, ha, fa, hb, fb, eA, eB, lE, d, margin, reach)
	}
	if useB {
		// B's face is the reference: run with the roles swapped, then
		// turn normals and keys back to A → B.
		n0 := len(dst)
		dst = boxFace(dst, hb, fb, ha, fa, iB, d.Mul(-1), margin, tol, reach)
		for i := n0; i < len(dst); i++ {
			p := &dst[i]
			p.Normal = p.Normal.Mul(-1)
			p.Key = Key{A: p.Key.B, B: p.Key.A}
		}
		return dst
	}
	return boxFace(dst, ha, fa, hb, fb, iA, d, margin, tol, reach)
}

// boxEdgeEdge emits the closest points of A's edge along axis i and B's
// edge along axis j that support the unit axis l.
func boxEdgeEdge(dst []Point, ha mgl64.Vec3, fa *frame, hb mgl64.Vec3, fb *frame, i, j int, l, d mgl64.Vec3, margin float64, reach *float64) []Point {
	if d.Dot(l) < 0 {
		l = l.Mul(-1)
	}
	var sa, sb mgl64.Vec3 // local signs of the supporting edges
	pa, pb := fa.p, fb.p
	for k := 0; k < 3; k++ {
		sa[k], sb[k] = 1, 1
		if fa.ax[k].Dot(l) < 0 {
			sa[k] = -1
		}
		if fb.ax[k].Dot(l) > 0 {
			sb[k] = -1
		}
		if k != i {
			pa = pa.Add(fa.ax[k].Mul(sa[k] * ha[k]))
		}
		if k != j {
			pb = pb.Add(fb.ax[k].Mul(sb[k] * hb[k]))
		}
	}
	pa = pa.Sub(fa.ax[i].Mul(ha[i]))
	pb = pb.Sub(fb.ax[j].Mul(hb[j]))
	s, t := closestSegSeg(pa, fa.ax[i].Mul(2*ha[i]), pb, fb.ax[j].Mul(2*hb[j]))
	qa := pa.Add(fa.ax[i].Mul(2 * ha[i] * s))
	qb := pb.Add(fb.ax[j].Mul(2 * hb[j] * t))
	g := qb.Sub(qa).Dot(l)
	if g > margin {
		lower(reach, g)
		return dst
	}
	n0 := len(dst)
	dst = emit(dst, qa, l, g, FeatureEdge|BoxEdge(i, sa), FeatureEdge|BoxEdge(j, sb))
	// A face resting across an edge of the other box touches it where the
	// edge crosses the face's border: when the face tilts, at one crossing
	// (this edge pair), while the edge coming down crosses the same edge
	// within the margin. Add those crossings: each other edge of the two
	// faces at A's edge against B's edge, then B's against A's, to 4
	// points. Without them a speculative step misses the edge coming down
	// and the position projection lifts the box out after it falls in.
	da, db := fa.ax[i].Mul(2*ha[i]), fb.ax[j].Mul(2*hb[j])
	type side struct {
		h, s    mgl64.Vec3
		f       *frame
		i       int        // the box's edge's axis
		q, dq   mgl64.Vec3 // the other box's edge
		id      uint32
		swapped bool
	}
	for _, sd := range [2]side{{ha, sa, fa, i, pb, db, BoxEdge(j, sb), false}, {hb, sb, fb, j, pa, da, BoxEdge(i, sa), true}} {
		for k := 0; k < 3; k++ {
			if k == sd.i {
				continue
			}
			for _, e := range faceEdges(sd.h, sd.f, sd.s, sd.i, 3-sd.i-k) {
				if len(dst)-n0 < 4 {
					dst = edgeCross(dst, e, sd.q, sd.dq, sd.id, l, margin, reach, sd.swapped)
				}
			}
		}
	}
	return dst
}

// edgeSeg is a box edge: from p along d (its full length), with its id.
type edgeSeg struct {
	p, d mgl64.Vec3
	id   uint32
}

// faceEdges returns the edges of the face of box (h, f) across axis k ≠ i
// (the face of signs s that holds the edge along axis i) other than that
// edge: along axis i with s[m] flipped (m the third axis), then the two
// along m at both signs of i.
func faceEdges(h mgl64.Vec3, f *frame, s mgl64.Vec3, i, m int) [3]edgeSeg {
	seg := func(axis int, s mgl64.Vec3) edgeSeg {
		p := f.p.Sub(f.ax[axis].Mul(h[axis]))
		for k := 0; k < 3; k++ {
			if k != axis {
				p = p.Add(f.ax[k].Mul(s[k] * h[k]))
			}
		}
		return edgeSeg{p, f.ax[axis].Mul(2 * h[axis]), BoxEdge(axis, s)}
	}
	par, lo, hi := s, s, s
	par[m] = -par[m]
	lo[i], hi[i] = -1, 1
	return [3]edgeSeg{seg(i, par), seg(m, lo), seg(m, hi)}
}

// edgeCross emits where edge e of one box crosses the segment q + t·dq of
// the other (0 < t < 1, and inside e) when their gap along n = e × dq,
// turned to the side of l (the edge axis, from A to B), is within margin:
// boxEdgeEdge's further crossings. e is B's when swapped, and the key's
// halves swap to stay (A, B). A pair whose n is more than 60° from l (or
// parallel edges) is no crossing of a face across the other's edge.
func edgeCross(dst []Point, e edgeSeg, q, dq mgl64.Vec3, idq uint32, l mgl64.Vec3, margin float64, reach *float64, swapped bool) []Point {
	n := e.d.Cross(dq)
	nl := n.Len()
	if nl == 0 {
		return dst
	}
	n = n.Mul(1 / nl)
	if n.Dot(l) < 0 {
		n = n.Mul(-1)
	}
	if n.Dot(l) < 0.5 {
		return dst
	}
	s, t := closestSegSeg(e.p, e.d, q, dq)
	if s <= 0 || s >= 1 || t <= 0 || t >= 1 {
		return dst
	}
	pe, pq := e.p.Add(e.d.Mul(s)), q.Add(dq.Mul(t))
	ka, kb := FeatureEdge|e.id, FeatureEdge|idq
	pa, pb := pe, pq
	if swapped {
		ka, kb = kb, ka
		pa, pb = pq, pe
	}
	g := pb.Sub(pa).Dot(n)
	if g > margin {
		lower(reach, g)
		return dst
	}
	return emit(dst, pa, n, g, ka, kb)
}

// boxFace clips the incident face of box I against the reference face
// (axis i of box R, facing d = c_I − c_R). Normals point from R to I; Key.A
// is R's face.
func boxFace(dst []Point, hr mgl64.Vec3, fr *frame, hi mgl64.Vec3, fi *frame, i int, d mgl64.Vec3, margin, tol float64, reach *float64) []Point {
	sr := 1.0
	if d.Dot(fr.ax[i]) < 0 {
		sr = -1
	}
	n := fr.ax[i].Mul(sr)
	u, v := (i+1)%3, (i+2)%3
	center := fr.p.Add(n.Mul(hr[i]))

	// Incident face: most anti-parallel to n.
	j, best := 0, -1.0
	for k := 0; k < 3; k++ {
		if c := math.Abs(fi.ax[k].Dot(n)); c > best {
			j, best = k, c
		}
	}
	var s mgl64.Vec3
	s[j] = 1
	if fi.ax[j].Dot(n) > 0 {
		s[j] = -1
	}
	p, q := (j+1)%3, (j+2)%3
	// Corners in order (+,+), (−,+), (−,−), (+,−) in (p, q); edge k runs
	// from corner k to corner k+1.
	signs := [4][2]float64{{1, 1}, {-1, 1}, {-1, -1}, {1, -1}}
	var poly, tmp clipPoly
	poly.n = 4
	var edges [4]uint8
	for k := 0; k < 4; k++ {
		a, b := signs[k], signs[(k+1)%4]
		var es mgl64.Vec3
		es[j], es[p], es[q] = s[j], a[0], a[1]
		if a[0] != b[0] {
			edges[k] = uint8(BoxEdge(p, es))
		} else {
			edges[k] = uint8(BoxEdge(q, es))
		}
	}
	for k := 0; k < 4; k++ {
		var l mgl64.Vec3
		l[j], l[p], l[q] = s[j]*hi[j], signs[k][0]*hi[p], signs[k][1]*hi[q]
		w := fi.toWorld(l).Sub(center)
		poly.v[k] = clipVert{x: w.Dot(fr.ax[u]), y: w.Dot(fr.ax[v]), z: w.Dot(n), in: edges[(k+3)%4], out: edges[k]}
	}
	// Side planes, each through an edge of the reference face.
	var es mgl64.Vec3
	es[i] = sr
	side := func(axis int, sgnU, sgnV float64) uint8 {
		es[u], es[v] = sgnU, sgnV
		return uint8(refLine + BoxEdge(axis, es))
	}
	snap := clipSnap * max(hr[0], max(hr[1], hr[2]))
	poly.clip(&tmp, 0, 1, hr[u], snap, side(v, 1, 1))
	tmp.clip(&poly, 0, -1, hr[u], snap, side(v, -1, 1))
	poly.clip(&tmp, 1, 1, hr[v], snap, side(u, 1, 1))
	tmp.clip(&poly, 1, -1, hr[v], snap, side(u, 1, -1))

	m := 0
	for k := 0; k < poly.n; k++ {
		if poly.v[k].z <= margin {
			poly.v[m] = poly.v[k]
			m++
		} else {
			lower(reach, poly.v[k].z) // a NaN lowers nothing
		}
	}
	poly.n = m
	keep := reduce4(&poly, tol)
	face := FeatureFace | BoxFace(i, sr)
	for k := 0; k < poly.n; k++ {
		if keep&(1<<k) == 0 {
			continue
		}
		c := &poly.v[k]
		lo, hiID := c.in, c.out
		if lo > hiID {
			lo, hiID = hiID, lo
		}
		wa := center.Add(fr.ax[u].Mul(c.x)).Add(fr.ax[v].Mul(c.y))
		dst = emit(dst, wa, n, c.z, face, FeatureClip|uint32(lo)<<8|uint32(hiID))
	}
	return dst
}

// reduce4 returns a bit set of at most 4 of p's vertices to keep, all if
// there are ≤ 4: the deepest (least z; depths within tol count as equal
// and the first in polygon order wins, so that jitter does not change the
// choice), the one farthest from it, the one that makes the largest
// triangle with those two, and the one that adds the most area to that
// triangle.
func reduce4(p *clipPoly, tol float64) uint8 {
	if p.n <= 4 {
		return 1<<p.n - 1
	}
	i := pick4(p.v[:p.n], tol)
	return 1<<i[0] | 1<<i[1] | 1<<i[2] | 1<<i[3]
}

// pick4 returns the indices of the 4 vertices of v (more than 4) that
// reduce4 keeps.
func pick4(v []clipVert, tol float64) [4]int {
	p := struct {
		v []clipVert
		n int
	}{v, len(v)}
	minZ := math.Inf(1)
	for k := 0; k < p.n; k++ {
		minZ = min(minZ, p.v[k].z)
	}
	i0 := 0
	for k := 0; k < p.n; k++ {
		if p.v[k].z <= minZ+tol {
			i0 = k
			break
		}
	}
	x0, y0 := p.v[i0].x, p.v[i0].y
	i1, best := -1, -1.0
	for k := 0; k < p.n; k++ {
		if dx, dy := p.v[k].x-x0, p.v[k].y-y0; k != i0 && dx*dx+dy*dy > best {
			i1, best = k, dx*dx+dy*dy
		}
	}
	x1, y1 := p.v[i1].x, p.v[i1].y
	i2, best2, sgn := -1, -1.0, 1.0
	for k := 0; k < p.n; k++ {
		if k == i0 || k == i1 {
			continue
		}
		a := (x1-x0)*(p.v[k].y-y0) - (y1-y0)*(p.v[k].x-x0)
		if math.Abs(a) > best2 {
			i2, best2 = k, math.Abs(a)
			sgn = math.Copysign(1, a)
		}
	}
	// Triangle i0, i1, i2 with orientation sgn; the fourth point maximizes
	// the area outside any of its edges.
	tri := [3]int{i0, i1, i2}
	i3, best3 := -1, math.Inf(-1)
	for k := 0; k < p.n; k++ {
		if k == i0 || k == i1 || k == i2 {
			continue
		}
		out := math.Inf(-1)
		for e := 0; e < 3; e++ {
			a, b := &p.v[tri[e]], &p.v[tri[(e+1)%3]]
			c := -sgn * ((b.x-a.x)*(p.v[k].y-a.y) - (b.y-a.y)*(p.v[k].x-a.x))
			out = max(out, c)
		}
		if out > best3 {
			i3, best3 = k, out
		}
	}
	return [4]int{i0, i1, i2, i3}
}
