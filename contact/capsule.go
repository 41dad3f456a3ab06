package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// parallelSin2 is the squared sine of the angle below which two segments
// count as parallel and get a two-point contact (angle 1e-3 rad): beyond it
// the single closest point is well defined and moves continuously.
const parallelSin2 = 1e-6

// closestSegSeg returns the parameters s, t ∈ [0, 1] of the closest points
// p1 + s d1 and p2 + t d2 of two segments (Ericson, Real-Time Collision
// Detection, §5.1.9). For parallel segments it returns one of the closest
// pairs.
func closestSegSeg(p1, d1, p2, d2 mgl64.Vec3) (s, t float64) {
	r := p1.Sub(p2)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	if a == 0 && e == 0 {
		return 0, 0
	}
	if a == 0 {
		return 0, clamp01(f / e)
	}
	c := d1.Dot(r)
	if e == 0 {
		return clamp01(-c / a), 0
	}
	b := d1.Dot(d2)
	if denom := a*e - b*b; denom > 1e-14*a*e {
		s = clamp01((b*f - c*e) / denom)
	}
	t = (b*s + f) / e
	if t < 0 {
		t, s = 0, clamp01(-c/a)
	} else if t > 1 {
		t, s = 1, clamp01((b-c)/a)
	}
	return s, t
}

func clamp01(x float64) float64 {
	if x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

// segFeature is the capsule feature of segment parameter s ∈ [0, 1].
func segFeature(s float64) uint32 {
	switch s {
	case 0:
		return CapsuleEnd0
	case 1:
		return CapsuleEnd1
	}
	return CapsuleSide
}

// segment returns the capsule's segment as start point and direction
// (start + s·dir, s ∈ [0, 1]) in the frame's parent coordinates.
func segment(c Shape, f *frame) (p0, d mgl64.Vec3) {
	ax := f.ax[2]
	return f.p.Sub(ax.Mul(c.halfLength())), ax.Mul(c.Length)
}

func capsuleSphere(dst []Point, c Shape, fc *frame, r float64, fs *frame, margin float64) []Point {
	p0, d := segment(c, fc)
	s := 0.0
	if dd := d.Dot(d); dd > 0 {
		s = clamp01(fs.p.Sub(p0).Dot(d) / dd)
	}
	p := p0.Add(d.Mul(s))
	diff := fs.p.Sub(p)
	dist := diff.Len()
	g := dist - c.Radius - r
	if g > margin {
		return dst
	}
	var n mgl64.Vec3
	if dist > 0 {
		n = diff.Mul(1 / dist)
	} else {
		n = num.AnyPerp(fc.ax[2])
	}
	return emit(dst, p.Add(n.Mul(c.Radius)), n, g, segFeature(s), 0)
}

// capsuleCapsule: the closest points of the two segments, or, for
// parallel segments whose projections overlap, the two ends of the
// overlap (keys: the point nearer each capsule's end 0 gets 0, the other 1).
func capsuleCapsule(dst []Point, a Shape, fa *frame, b Shape, fb *frame, margin float64) []Point {
	axA, axB := fa.ax[2], fb.ax[2]
	if a.halfLength() > 0 && b.halfLength() > 0 {
		if cr := axA.Cross(axB); cr.Dot(cr) < parallelSin2 {
			t0 := fb.p.Sub(axB.Mul(b.halfLength())).Sub(fa.p).Dot(axA)
			t1 := fb.p.Add(axB.Mul(b.halfLength())).Sub(fa.p).Dot(axA)
			lo := math.Max(-a.halfLength(), math.Min(t0, t1))
			hi := math.Min(a.halfLength(), math.Max(t0, t1))
			if hi-lo > 1e-9*(a.halfLength()+b.halfLength()) {
				ts := [2]float64{lo, hi}
				var pa, pb [2]mgl64.Vec3
				var tb [2]float64
				for i, t := range ts {
					pa[i] = fa.p.Add(axA.Mul(t))
					tb[i] = math.Max(-b.halfLength(), math.Min(b.halfLength(), pa[i].Sub(fb.p).Dot(axB)))
					pb[i] = fb.p.Add(axB.Mul(tb[i]))
				}
				for i := range ts {
					diff := pb[i].Sub(pa[i])
					dist := diff.Len()
					g := dist - a.Radius - b.Radius
					if g > margin {
						continue
					}
					var n mgl64.Vec3
					if dist > 1e-12*(a.halfLength()+b.halfLength()) {
						n = diff.Mul(1 / dist)
					} else {
						n = orientTowards(num.AnyPerp(axA), fb.p.Sub(fa.p))
					}
					kb := uint32(0)
					if tb[i] > tb[1-i] || (tb[i] == tb[1-i] && i == 1) {
						kb = 1
					}
					dst = emit(dst, pa[i].Add(n.Mul(a.Radius)), n, g, uint32(i), kb)
				}
				return dst
			}
		}
	}
	p0, d0 := segment(a, fa)
	q0, e0 := segment(b, fb)
	s, t := closestSegSeg(p0, d0, q0, e0)
	pa := p0.Add(d0.Mul(s))
	pb := q0.Add(e0.Mul(t))
	diff := pb.Sub(pa)
	dist := diff.Len()
	g := dist - a.Radius - b.Radius
	if g > margin {
		return dst
	}
	var n mgl64.Vec3
	if dist > 0 {
		n = diff.Mul(1 / dist)
	} else if cr := axA.Cross(axB); cr.Dot(cr) > parallelSin2 {
		n = orientTowards(cr.Normalize(), fb.p.Sub(fa.p))
	} else {
		n = orientTowards(num.AnyPerp(axA), fb.p.Sub(fa.p))
	}
	return emit(dst, pa.Add(n.Mul(a.Radius)), n, g, segFeature(s), segFeature(t))
}

// orientTowards returns n or −n, whichever has n·d ≥ 0.
func orientTowards(n, d mgl64.Vec3) mgl64.Vec3 {
	if n.Dot(d) < 0 {
		return n.Mul(-1)
	}
	return n
}

// boxClosest returns, for a point q in the box's local frame, the closest
// point cl on the box surface, the local unit normal nl from the box
// towards q, the signed distance (< 0 inside), the box feature of the
// Voronoi region of q, and the face axis and sign when that feature is a
// face (axis −1 otherwise). A point inside leaves through the nearest face.
func boxClosest(half, q mgl64.Vec3) (cl, nl mgl64.Vec3, dist float64, feat uint32, faceAxis int, faceSign float64) {
	var sgn mgl64.Vec3
	out := 0
	for i := 0; i < 3; i++ {
		sgn[i] = 1
		if q[i] < 0 {
			sgn[i] = -1
		}
		cl[i] = q[i]
		if math.Abs(q[i]) > half[i] {
			cl[i] = sgn[i] * half[i]
			out++
		}
	}
	if out == 0 {
		k := 0
		for i := 1; i < 3; i++ {
			if math.Abs(q[i])-half[i] > math.Abs(q[k])-half[k] {
				k = i
			}
		}
		nl[k] = sgn[k]
		cl[k] = sgn[k] * half[k]
		return cl, nl, math.Abs(q[k]) - half[k], FeatureFace | BoxFace(k, sgn[k]), k, sgn[k]
	}
	diff := q.Sub(cl)
	dist = diff.Len()
	nl = diff.Mul(1 / dist)
	faceAxis = -1
	switch out {
	case 1:
		for i := 0; i < 3; i++ {
			if cl[i] != q[i] {
				feat, faceAxis, faceSign = FeatureFace|BoxFace(i, sgn[i]), i, sgn[i]
			}
		}
	case 2:
		for i := 0; i < 3; i++ {
			if cl[i] == q[i] {
				feat = FeatureEdge | BoxEdge(i, sgn)
			}
		}
	default:
		feat = FeatureVertex | vertexIndex(sgn)
	}
	return cl, nl, dist, feat, faceAxis, faceSign
}

// boxSignedDist is the signed distance (m) of the local point q to the box
// (negative inside); a convex function of q.
func boxSignedDist(half, q mgl64.Vec3) float64 {
	var out2 float64
	in := math.Inf(-1)
	for i := 0; i < 3; i++ {
		d := math.Abs(q[i]) - half[i]
		if d > 0 {
			out2 += d * d
		}
		in = math.Max(in, d)
	}
	if out2 > 0 {
		return math.Sqrt(out2)
	}
	return in
}

// boxCapsule finds the point of the capsule's segment with the least
// signed distance to the box. The signed distance of a convex set is convex,
// so along the segment it is a convex function of the parameter and a
// golden-section search finds its minimum (to 0.618⁶⁰ ≈ 3e-13 of the
// segment length); the two ends are checked exactly. If the nearest box
// feature is a face and the segment is within segFaceSin of parallel to
// it, the contact is the capsule's lowest side line clipped to the face
// rectangle: two points (capsule keys 0 at the lower and 1 at the higher
// parameter), both on the capsule's cylindrical side, so a slightly tilted
// capsule's lower end is (r(1 − cos θ) ≤ 1.3e-3 r) shallower than its cap.
// Otherwise it is the single closest point.
func boxCapsule(dst []Point, half mgl64.Vec3, fb *frame, c Shape, fc *frame, margin float64) []Point {
	ps, pd := segment(c, fc)
	p0 := fb.toLocal(ps)
	dir := fb.toLocal(ps.Add(pd)).Sub(p0)
	f := func(t float64) float64 { return boxSignedDist(half, p0.Add(dir.Mul(t))) }
	t, ft := 0.0, f(0)
	if c.halfLength() > 0 {
		const gr = 0.6180339887498949
		lo, hi := 0.0, 1.0
		x1, x2 := hi-gr, gr
		f1, f2 := f(x1), f(x2)
		for it := 0; it < 60; it++ {
			if f1 <= f2 {
				hi, x2, f2 = x2, x1, f1
				x1 = hi - gr*(hi-lo)
				f1 = f(x1)
			} else {
				lo, x1, f1 = x1, x2, f2
				x2 = lo + gr*(hi-lo)
				f2 = f(x2)
			}
		}
		if tm := (lo + hi) / 2; f(tm) < ft {
			t, ft = tm, f(tm)
		}
		if f1 := f(1); f1 <= ft {
			t = 1
		}
	}
	q := p0.Add(dir.Mul(t))
	cl, nl, dist, feat, k, sgn := boxClosest(half, q)
	const segFaceSin = 0.05 // ≈ 2.9°: a capsule lying on a face, not yet tipped onto an end
	if k >= 0 && c.halfLength() > 0 && math.Abs(dir.Dot(nl)) <= segFaceSin*dir.Len() {
		// The line of the capsule's lowest side points, s(t) = axis(t) − r·u
		// with u the face normal made perpendicular to the axis, lies on the
		// capsule; clip it to the face rectangle.
		ax := dir.Normalize()
		u := nl.Sub(ax.Mul(nl.Dot(ax))).Normalize()
		s0 := p0.Sub(u.Mul(c.Radius))
		lo, hi := 0.0, 1.0
		// A line within snap of a side plane at both ends is on the face
		// (boxFaceCylinder's rule): clipped there, a capsule lying along
		// the face's edge lost one end of its line to rounding, at a
		// crossing anywhere along it.
		snap := clipSnap * math.Max(half[0], math.Max(half[1], half[2]))
		for i := 0; i < 3 && lo <= hi; i++ {
			if i == k {
				continue
			}
			if math.Abs(s0[i]) <= half[i]+snap && math.Abs(s0[i]+dir[i]) <= half[i]+snap {
				continue
			}
			if dir[i] == 0 {
				if math.Abs(s0[i]) > half[i] {
					lo, hi = 1, 0
				}
				continue
			}
			ta, tb := (-half[i]-s0[i])/dir[i], (half[i]-s0[i])/dir[i]
			if ta > tb {
				ta, tb = tb, ta
			}
			lo, hi = math.Max(lo, ta), math.Min(hi, tb)
		}
		if hi-lo > 1e-9 {
			n := fb.vecToWorld(nl)
			for i, tt := range [2]float64{lo, hi} {
				sp := s0.Add(dir.Mul(tt))
				if g := sgn*sp[k] - half[k]; g <= margin {
					sp[k] = sgn * half[k]
					dst = emit(dst, fb.toWorld(sp), n, g, feat, uint32(i))
				}
			}
			return dst
		}
	}
	if k < 0 && feat&^0xff == FeatureEdge && c.halfLength() > 0 {
		if pts, ok := boxEdgeCapsule(dst, half, fb, p0, dir, c.Radius, feat, margin); ok {
			return pts
		}
	}
	if g := dist - c.Radius; g <= margin {
		dst = emit(dst, fb.toWorld(cl), fb.vecToWorld(nl), g, feat, segFeature(t))
	}
	return dst
}

// boxEdgeCapsule is boxCapsule's line contact along a box edge: when the
// nearest box feature is the edge feat (box frame) and the capsule's
// segment p0 + t·dir (box frame) lies within segFaceSin of parallel to it
// (a capsule rolling over a table's edge), the distance along their overlap
// is flat and the golden-section search's single point sat at either end
// of it from step to step; the capsule rolling off a box at 0.5 m/s turned
// about the vertical, drifted 9 cm sideways in 3 s and a step added 0.01 J.
// The points are the overlap's two ends, each with its own gap (distance
// from the segment point to the edge less the radius) and normal (from
// the edge to the segment), keys (edge, 0) and (edge, 1) at the lower and
// higher segment parameter; false when the capsule does not lie along the
// edge or the overlap is empty.
func boxEdgeCapsule(dst []Point, half mgl64.Vec3, fb *frame, p0, dir mgl64.Vec3, r float64, feat uint32, margin float64) ([]Point, bool) {
	const segFaceSin = 0.05 // as boxCapsule's
	j := int(feat&0xff) / 4 // BoxEdge: 4j + …, the edge along axis j
	l := dir.Len()
	if j > 2 || !(l > 0) || math.Hypot(dir[(j+1)%3], dir[(j+2)%3]) > segFaceSin*l {
		return dst, false
	}
	// The segment's parameters whose axis-j coordinate lies on the edge.
	lo, hi := 0.0, 1.0
	if dir[j] != 0 {
		ta, tb := (-half[j]-p0[j])/dir[j], (half[j]-p0[j])/dir[j]
		if ta > tb {
			ta, tb = tb, ta
		}
		lo, hi = math.Max(lo, ta), math.Min(hi, tb)
	}
	if !(hi-lo > 1e-9) {
		return dst, false
	}
	n0 := len(dst)
	for i, t := range [2]float64{lo, hi} {
		q := p0.Add(dir.Mul(t))
		cl, nl, dist, f, _, _ := boxClosest(half, q)
		if f != feat || !(dist > 0) {
			return dst[:n0], false // off the edge's region: a face or a corner is nearer
		}
		if g := dist - r; g <= margin {
			dst = emit(dst, fb.toWorld(cl), fb.vecToWorld(nl), g, feat, uint32(i))
		}
	}
	return dst, true
}
