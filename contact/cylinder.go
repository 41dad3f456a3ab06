package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// Cylinder feature ids beyond the rim points 0..7 of planeCylinder (the
// cylinder's half of a Key; package documentation).
const (
	CylinderCap0   uint32 = 8  // a point inside the end face at local z = −Length/2
	CylinderCap1   uint32 = 9  // a point inside the end face at local z = +Length/2
	CylinderSide   uint32 = 10 // a point on the curved side, off both rims
	CylinderCross0 uint32 = 11 // cap on cap: the first crossing of the two rims
	CylinderCross1 uint32 = 12 // cap on cap: the second crossing
)

const (
	// cylFlatSin: a cylinder's end face counts as facing a normal when
	// |axis × n| ≤ cylFlatSin, and its side as lying along it when
	// |axis · n| ≤ cylFlatSin (≈ 2.9°, the capsule's segFaceSin): beyond
	// that it touches on one rim point and a single point is right.
	cylFlatSin = 0.05
	// capFixedSin: below this tilt (sine, 1e-3 rad) of an end face
	// against the reference normal, the four points of the face are
	// fixed in the body (local ±x, ±y) instead of starting at the lowest
	// rim point: a cylinder standing still jitters by rounding, and a
	// square that turned with the jitter would move its points around
	// the rim. Their depth then errs by at most r·(1 − cos 45°)·1e-3 ≈
	// 2.9e-4 r.
	capFixedSin = 1e-3
	// manifoldRel, relative to the larger extent: a manifold of face
	// points is used only if its deepest point is within this of the GJK
	// or EPA gap (otherwise the closest features are not the faces and
	// the single point is right). 1e-3 covers capFixedSin's 2.9e-4 r.
	manifoldRel = 1e-3
	// featureRel, relative to the shape's extent: how close a witness
	// point must be to a face, edge or rim to be keyed as on it.
	featureRel = 1e-5
)

// cylCap returns the end e (0 at −Length/2, 1 at +Length/2) whose
// outward normal points against m, and that normal and the face centre.
func cylCap(c Shape, f *frame, m mgl64.Vec3) (e int, nc, cc mgl64.Vec3) {
	a := f.ax[2]
	if a.Dot(m) > 0 {
		return 0, a.Mul(-1), f.p.Sub(a.Mul(c.halfLength()))
	}
	return 1, a, f.p.Add(a.Mul(c.halfLength()))
}

// capSquare returns the four rim points of end e a quarter turn apart,
// starting from the lowest against m (the direction from the other shape
// to this one, as planeCylinder's plane normal): point q is rim feature
// e + 2q. Below capFixedSin of tilt the square is fixed in the body.
func capSquare(c Shape, f *frame, e int, m mgl64.Vec3) [4]mgl64.Vec3 {
	a := f.ax[2]
	w := m.Sub(a.Mul(m.Dot(a)))
	u := f.ax[0]
	if l := w.Len(); l > capFixedSin {
		u = w.Mul(1 / l)
	}
	v := a.Cross(u)
	cc := f.p.Add(a.Mul(float64(2*e-1) * c.halfLength()))
	dirs := [4]mgl64.Vec3{u.Mul(-1), v, u, v.Mul(-1)}
	var p [4]mgl64.Vec3
	for q := range dirs {
		p[q] = cc.Add(dirs[q].Mul(c.Radius))
	}
	return p
}

// sideLine returns the cylinder's side line lowest against m (the rim
// points of ends 0 and 1 in the direction of −m made perpendicular to the
// axis): the contact line of a cylinder lying on a face of normal m.
func sideLine(c Shape, f *frame, m mgl64.Vec3) (p0, p1 mgl64.Vec3) {
	a := f.ax[2]
	w := m.Sub(a.Mul(m.Dot(a)))
	u := num.AnyPerp(a)
	if l := w.Len(); l > 0 {
		u = w.Mul(1 / l)
	}
	base := f.p.Sub(u.Mul(c.Radius))
	return base.Sub(a.Mul(c.halfLength())), base.Add(a.Mul(c.halfLength()))
}

// cylFeatureAt keys a point q (local) on cylinder c: rim e, cap e or side.
func cylFeatureAt(c Shape, q mgl64.Vec3) uint32 {
	tol := featureRel * math.Max(c.Radius, c.halfLength())
	e := uint32(0)
	if q[2] > 0 {
		e = 1
	}
	onCap := math.Abs(math.Abs(q[2])-c.halfLength()) <= tol
	onRim := math.Abs(math.Hypot(q[0], q[1])-c.Radius) <= tol
	switch {
	case onCap && onRim:
		return e
	case onCap:
		return CylinderCap0 + e
	}
	return CylinderSide
}

// boxFeatureAt keys a point q (local) on a box: the face, edge or vertex
// whose bounds it touches (the nearest face for a point inside).
func boxFeatureAt(half, q mgl64.Vec3) uint32 {
	tol := featureRel * math.Max(half[0], math.Max(half[1], half[2]))
	var s mgl64.Vec3
	at, free := 0, -1
	for i := 0; i < 3; i++ {
		s[i] = sgn(q[i])
		if math.Abs(q[i]) >= half[i]-tol {
			at++
		} else {
			free = i
		}
	}
	switch at {
	case 3:
		return FeatureVertex | vertexIndex(s)
	case 2:
		return FeatureEdge | BoxEdge(free, s)
	}
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(q[i])-half[i] > math.Abs(q[k])-half[k] {
			k = i
		}
	}
	return FeatureFace | BoxFace(k, s[k])
}

// capsuleFeatureAt keys a point x (world) on capsule c's surface whose
// outward normal is n: the segment point under it is an end or inside.
func capsuleFeatureAt(c Shape, f *frame, x, n mgl64.Vec3) uint32 {
	core := f.toLocal(x.Sub(n.Mul(c.Radius)))
	tol := featureRel * math.Max(c.Radius, c.halfLength())
	switch {
	case core[2] <= -c.halfLength()+tol:
		return CapsuleEnd0
	case core[2] >= c.halfLength()-tol:
		return CapsuleEnd1
	}
	return CapsuleSide
}

// sphereCylinder is closed form: the point of the cylinder closest to the
// sphere's centre (a centre inside leaves through the nearer of the side
// and the end face), keyed by the cylinder's rim, cap or side.
func sphereCylinder(dst []Point, rs float64, fs *frame, c Shape, fc *frame, margin float64) []Point {
	q := fc.toLocal(fs.p)
	rho := math.Hypot(q[0], q[1])
	var radial mgl64.Vec3 // unit radial direction of q (local x on the axis)
	if rho > 0 {
		radial = mgl64.Vec3{q[0] / rho, q[1] / rho, 0}
	} else {
		radial = mgl64.Vec3{1, 0, 0}
	}
	e := uint32(0)
	zs := -1.0
	if q[2] > 0 {
		e, zs = 1, 1
	}
	var cl, nl mgl64.Vec3 // closest point on the cylinder, normal out of it towards q (local)
	var dist float64
	var feat uint32
	switch {
	case rho <= c.Radius && math.Abs(q[2]) <= c.halfLength():
		if dSide, dCap := c.Radius-rho, c.halfLength()-math.Abs(q[2]); dCap <= dSide {
			cl, nl, dist, feat = mgl64.Vec3{q[0], q[1], zs * c.halfLength()}, mgl64.Vec3{0, 0, zs}, -dCap, CylinderCap0+e
		} else {
			cl, nl, dist, feat = radial.Mul(c.Radius).Add(mgl64.Vec3{0, 0, q[2]}), radial, -dSide, CylinderSide
		}
	default:
		cl = mgl64.Vec3{q[0], q[1], math.Max(-c.halfLength(), math.Min(c.halfLength(), q[2]))}
		feat = CylinderSide
		if rho > c.Radius {
			cl[0], cl[1] = radial[0]*c.Radius, radial[1]*c.Radius
			if math.Abs(q[2]) > c.halfLength() {
				feat = e
			}
		} else {
			feat = CylinderCap0 + e
		}
		d := q.Sub(cl)
		dist = d.Len()
		switch {
		case dist > 0:
			nl = d.Mul(1 / dist)
		case feat == CylinderCap0+e:
			nl = mgl64.Vec3{0, 0, zs} // on the surface to rounding: the face's normal
		default:
			nl = radial
		}
	}
	g := dist - rs
	if !(g <= margin) {
		return dst
	}
	n := fc.vecToWorld(nl).Mul(-1) // sphere → cylinder
	return emit(dst, fs.p.Add(n.Mul(rs)), n, g, 0, feat)
}

// boxCylinder: GJK/EPA for the gap and normal, then, when the normal is
// (nearly) a box face's and the cylinder stands on an end or lies on its
// side against it, the face manifold of boxFaceCylinder; a box edge along
// the cylinder's side (boxEdgeCylinder) or across its end face
// (boxEdgeCap) gives its two line ends; otherwise the single GJK/EPA
// point.
func boxCylinder(dst []Point, half mgl64.Vec3, fb *frame, c Shape, fc *frame, margin float64) []Point {
	A, B := newConvex(Shape{Kind: Box, Size: half.Mul(2)}, fb), newConvex(c, fc)
	sep := separation(&A, &B)
	if !(sep.Gap <= margin) {
		return dst
	}
	n := sep.Normal
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(n.Dot(fb.ax[i])) > math.Abs(n.Dot(fb.ax[k])) {
			k = i
		}
	}
	n0 := len(dst)
	var minZ float64
	var ok bool
	dst, minZ, ok = boxFaceCylinder(dst, half, fb, k, sgn(n.Dot(fb.ax[k])), c, fc, margin)
	if ok && minZ <= sep.Gap+manifoldRel*math.Max(A.extent(), B.extent()) {
		return dst
	}
	dst = dst[:n0]
	dst, minZ, ok = boxEdgeCylinder(dst, half, fb, c, fc, n, margin)
	if ok && minZ <= sep.Gap+manifoldRel*math.Max(A.extent(), B.extent()) {
		return dst
	}
	dst = dst[:n0]
	dst, minZ, ok = boxEdgeCap(dst, half, fb, c, fc, n, margin)
	// Both ways: an edge sunk past the rim into the side is deeper below
	// the face than the GJK/EPA depth, and the face's normal is wrong.
	if ok && math.Abs(minZ-sep.Gap) <= manifoldRel*math.Max(A.extent(), B.extent()) {
		return dst
	}
	dst = dst[:n0]
	return emit(dst, sep.OnA, n, sep.Gap, boxFeatureAt(half, fb.toLocal(sep.OnA)), cylFeatureAt(c, fc.toLocal(sep.OnB)))
}

// boxEdgeCap emits the line contact of a box edge lying across cylinder
// c's end face (the edge within cylFlatSin of the face's plane), n the
// GJK/EPA normal from the box to the cylinder: the box edge nearest n,
// clipped to the disk (lineOnDisk), its two ends the points, each with its
// height above the face as gap and the face's normal, keys (i, cap) as a
// capsule on the face. It returns the least height and whether the edge
// crosses the disk.
func boxEdgeCap(dst []Point, half mgl64.Vec3, fb *frame, c Shape, fc *frame, n mgl64.Vec3, margin float64) ([]Point, float64, bool) {
	a := fc.ax[2]
	if math.Abs(a.Dot(n)) <= cylFlatSin {
		return dst, math.Inf(1), false // the side faces n: boxEdgeCylinder's
	}
	j := 0
	for i := 1; i < 3; i++ {
		if math.Abs(fb.ax[i].Dot(a)) < math.Abs(fb.ax[j].Dot(a)) {
			j = i
		}
	}
	e := fb.ax[j]
	if math.Abs(e.Dot(a)) > cylFlatSin {
		return dst, math.Inf(1), false
	}
	u, v := (j+1)%3, (j+2)%3
	mid := fb.p.Add(fb.ax[u].Mul(sgn(n.Dot(fb.ax[u])) * half[u])).Add(fb.ax[v].Mul(sgn(n.Dot(fb.ax[v])) * half[v]))
	ec, nc, cc := cylCap(c, fc, n)
	return lineOnDisk(dst, mid.Sub(e.Mul(half[j])), mid.Add(e.Mul(half[j])), cc, nc, c.Radius, CylinderCap0+uint32(ec), false, margin)
}

// boxEdgeCylinder emits the line contact of cylinder c lying on its side
// across a box edge parallel to its axis (|axis · n| ≤ cylFlatSin and the
// edge within cylFlatSin of the axis), n the GJK/EPA normal from the box
// to the cylinder between two faces: a cylinder rolling over a table's
// edge. The edge nearest n is clipped to the cylinder's length and its two
// ends are the points, each with its exact gap (distance to the axis less
// the radius) and normal (from the point to the axis), keys (edge, 0) and
// (edge, 1) towards the edge's −axis and +axis ends. It returns the least
// gap of the two (whether or not within margin) and whether the cylinder
// lies along an edge at all. The single GJK/EPA point it replaces sat at
// either end of the line, changing from step to step, and its gap was off
// by up to 1e-3 m: a cylinder rolling off a box at 0.5 m/s wobbled about
// the other two axes and drifted 7 cm sideways in 5 m after landing.
func boxEdgeCylinder(dst []Point, half mgl64.Vec3, fb *frame, c Shape, fc *frame, n mgl64.Vec3, margin float64) ([]Point, float64, bool) {
	a := fc.ax[2]
	minZ := math.Inf(1)
	if math.Abs(a.Dot(n)) > cylFlatSin {
		return dst, minZ, false
	}
	j := 0
	for i := 1; i < 3; i++ {
		if math.Abs(fb.ax[i].Dot(a)) > math.Abs(fb.ax[j].Dot(a)) {
			j = i
		}
	}
	e := fb.ax[j]
	if e.Cross(a).Len() > cylFlatSin {
		return dst, minZ, false
	}
	u, v := (j+1)%3, (j+2)%3
	var s mgl64.Vec3
	s[u], s[v] = sgn(n.Dot(fb.ax[u])), sgn(n.Dot(fb.ax[v]))
	mid := fb.p.Add(fb.ax[u].Mul(s[u] * half[u])).Add(fb.ax[v].Mul(s[v] * half[v]))
	sc := fc.p.Sub(mid).Dot(e)
	hl := c.halfLength() * math.Abs(a.Dot(e))
	lo, hi := math.Max(-half[j], sc-hl), math.Min(half[j], sc+hl)
	if !(hi-lo > 1e-9) {
		return dst, minZ, false
	}
	key := FeatureEdge | BoxEdge(j, s)
	n0 := len(dst)
	for i, t := range [2]float64{lo, hi} {
		p := mid.Add(e.Mul(t))
		d := p.Sub(fc.p)
		radial := d.Sub(a.Mul(d.Dot(a))) // from the axis to p
		l := radial.Len()
		if !(l > 1e-12*c.Radius) {
			return dst[:n0], math.Inf(1), false // the edge on the axis: deep inside
		}
		g := l - c.Radius
		minZ = math.Min(minZ, g)
		if g <= margin {
			dst = emit(dst, p, radial.Mul(-1/l), g, key, uint32(i))
		}
	}
	return dst, minZ, true
}

// boxFaceCylinder emits the points of cylinder c against face (k, sr) of
// the box, Normal the face normal, and returns the least height of the
// clipped points above the face (whether or not within margin) and
// whether the cylinder stands or lies on the face at all:
//
//   - on an end (|axis × n| ≤ cylFlatSin): the square of four rim points
//     of capSquare, in face coordinates, clipped against the face's four
//     side planes (Sutherland–Hodgman, as box–box) and reduced to ≤ 4;
//     keys (face, rim e + 2q) for an unclipped rim point and (face,
//     FeatureClip | lo<<8 | hi) for a crossing, lo < hi the ids of the two
//     lines: 4e + q the square's edge from point q to q + 1, 16 + edge the
//     box's side plane (as box–box);
//   - on its side (|axis · n| ≤ cylFlatSin): its lowest side line clipped
//     to the face rectangle, keys (face, 0) and (face, 1) for the points
//     towards ends 0 and 1 (the wheel's keys on a plane).
func boxFaceCylinder(dst []Point, half mgl64.Vec3, fb *frame, k int, sr float64, c Shape, fc *frame, margin float64) ([]Point, float64, bool) {
	nf := fb.ax[k].Mul(sr)
	u, v := (k+1)%3, (k+2)%3
	center := fb.p.Add(nf.Mul(half[k]))
	a := fc.ax[2]
	face := FeatureFace | BoxFace(k, sr)
	snap := clipSnap * math.Max(half[0], math.Max(half[1], half[2]))
	toFace := func(p mgl64.Vec3) (x, y, z float64) {
		d := p.Sub(center)
		return d.Dot(fb.ax[u]), d.Dot(fb.ax[v]), d.Dot(nf)
	}
	minZ := math.Inf(1)
	switch {
	case a.Cross(nf).Len() <= cylFlatSin:
		e, _, _ := cylCap(c, fc, nf)
		sq := capSquare(c, fc, e, nf)
		var poly, tmp clipPoly
		poly.n = 4
		for q := 0; q < 4; q++ {
			x, y, z := toFace(sq[q])
			poly.v[q] = clipVert{x: x, y: y, z: z, in: uint8(4*e + (q+3)%4), out: uint8(4*e + q)}
		}
		var es mgl64.Vec3
		es[k] = sr
		side := func(axis int, sgnU, sgnV float64) uint8 {
			es[u], es[v] = sgnU, sgnV
			return uint8(refLine + BoxEdge(axis, es))
		}
		poly.clip(&tmp, 0, 1, half[u], snap, side(v, 1, 1))
		tmp.clip(&poly, 0, -1, half[u], snap, side(v, -1, 1))
		poly.clip(&tmp, 1, 1, half[v], snap, side(u, 1, 1))
		tmp.clip(&poly, 1, -1, half[v], snap, side(u, 1, -1))
		if poly.n == 0 {
			return dst, minZ, false
		}
		m := 0
		for i := 0; i < poly.n; i++ {
			minZ = math.Min(minZ, poly.v[i].z)
			if poly.v[i].z <= margin {
				poly.v[m] = poly.v[i]
				m++
			}
		}
		poly.n = m
		keep := reduce4(&poly, boxTol*math.Max(c.Radius, c.halfLength()))
		for i := 0; i < poly.n; i++ {
			if keep&(1<<i) == 0 {
				continue
			}
			cv := &poly.v[i]
			var kb uint32
			if cv.in < refLine && cv.out < refLine {
				kb = uint32(e) + 2*uint32(cv.out-uint8(4*e)) // an unclipped rim point
			} else {
				lo, hi := cv.in, cv.out
				if lo > hi {
					lo, hi = hi, lo
				}
				kb = FeatureClip | uint32(lo)<<8 | uint32(hi)
			}
			wa := center.Add(fb.ax[u].Mul(cv.x)).Add(fb.ax[v].Mul(cv.y))
			dst = emit(dst, wa, nf, cv.z, face, kb)
		}
		return dst, minZ, true
	case math.Abs(a.Dot(nf)) <= cylFlatSin:
		p0, p1 := sideLine(c, fc, nf)
		x0, y0, z0 := toFace(p0)
		x1, y1, z1 := toFace(p1)
		lo, hi := 0.0, 1.0
		for _, ax := range [2]struct{ s, d, h float64 }{{x0, x1 - x0, half[u]}, {y0, y1 - y0, half[v]}} {
			if math.Abs(ax.s) <= ax.h+snap && math.Abs(ax.s+ax.d) <= ax.h+snap {
				continue
			}
			if ax.d == 0 {
				lo, hi = 1, 0
				break
			}
			ta, tb := (-ax.h-ax.s)/ax.d, (ax.h-ax.s)/ax.d
			if ta > tb {
				ta, tb = tb, ta
			}
			lo, hi = math.Max(lo, ta), math.Min(hi, tb)
		}
		if !(hi-lo > 1e-9) {
			return dst, minZ, false
		}
		for i, t := range [2]float64{lo, hi} {
			x, y, z := x0+t*(x1-x0), y0+t*(y1-y0), z0+t*(z1-z0)
			minZ = math.Min(minZ, z)
			if z <= margin {
				wa := center.Add(fb.ax[u].Mul(x)).Add(fb.ax[v].Mul(y))
				dst = emit(dst, wa, nf, z, face, uint32(i))
			}
		}
		return dst, minZ, true
	}
	return dst, minZ, false
}

// lineOnDisk emits the part of segment p0 p1 (on the surface of shape L,
// towards the end face) over the end face of centre cc, outward unit normal
// nc and radius r (on cylinder D): the segment parameters whose projection
// along nc falls in the disk, at most two points, keyed i = 0 towards p0
// and 1 towards p1 on L's side and capKey on D's. The gap is the height
// above the face. With capFirst D is A (Normal nc), else L is A (Normal
// −nc). It returns the least height and whether the segment crosses the
// disk.
func lineOnDisk(dst []Point, p0, p1, cc, nc mgl64.Vec3, r float64, capKey uint32, capFirst bool, margin float64) ([]Point, float64, bool) {
	d := p1.Sub(p0)
	q0 := p0.Sub(cc)
	// Planar parts: x(t) = x0 + t·dx, |x(t)|² ≤ r².
	x0 := q0.Sub(nc.Mul(q0.Dot(nc)))
	dx := d.Sub(nc.Mul(d.Dot(nc)))
	qa, qb, qc := dx.Dot(dx), 2*x0.Dot(dx), x0.Dot(x0)-r*r
	lo, hi := 0.0, 1.0
	if qa > 0 {
		disc := qb*qb - 4*qa*qc
		if disc < 0 {
			return dst, math.Inf(1), false
		}
		sq := math.Sqrt(disc)
		lo, hi = math.Max(lo, (-qb-sq)/(2*qa)), math.Min(hi, (-qb+sq)/(2*qa))
	} else if qc > 0 {
		return dst, math.Inf(1), false
	}
	if !(hi-lo > 1e-9) {
		return dst, math.Inf(1), false
	}
	minZ := math.Inf(1)
	for i, t := range [2]float64{lo, hi} {
		p := p0.Add(d.Mul(t))
		z := p.Sub(cc).Dot(nc)
		minZ = math.Min(minZ, z)
		if z > margin {
			continue
		}
		if capFirst {
			dst = emit(dst, p.Sub(nc.Mul(z)), nc, z, capKey, uint32(i))
		} else {
			dst = emit(dst, p, nc.Mul(-1), z, uint32(i), capKey)
		}
	}
	return dst, minZ, true
}

// parallelAxes is the line contact of two round bodies lying side by side
// with parallel axes (centre c, unit axis a, half length h, radius r each,
// as capsuleCapsule): the two ends of the overlap of the axes, keyed i = 0
// and 1 on A (the end of the overlap towards A's end i) and 0 or 1 on B.
// It returns the least gap and whether the axes overlap.
func parallelAxes(dst []Point, ca, aa mgl64.Vec3, ha, ra float64, cb, ab mgl64.Vec3, hb, rb, margin float64) ([]Point, float64, bool) {
	t0 := cb.Sub(ab.Mul(hb)).Sub(ca).Dot(aa)
	t1 := cb.Add(ab.Mul(hb)).Sub(ca).Dot(aa)
	lo := math.Max(-ha, math.Min(t0, t1))
	hi := math.Min(ha, math.Max(t0, t1))
	if !(hi-lo > 1e-9*(ha+hb)) {
		return dst, math.Inf(1), false
	}
	ts := [2]float64{lo, hi}
	var pa, pb [2]mgl64.Vec3
	var tb [2]float64
	for i, t := range ts {
		pa[i] = ca.Add(aa.Mul(t))
		tb[i] = math.Max(-hb, math.Min(hb, pa[i].Sub(cb).Dot(ab)))
		pb[i] = cb.Add(ab.Mul(tb[i]))
	}
	minG := math.Inf(1)
	for i := range ts {
		diff := pb[i].Sub(pa[i])
		dist := diff.Len()
		if !(dist > 1e-12*(ha+hb)) {
			return dst, math.Inf(1), false // axes on one line: not lying side by side
		}
		n := diff.Mul(1 / dist)
		g := dist - ra - rb
		minG = math.Min(minG, g)
		if g > margin {
			continue
		}
		kb := uint32(0)
		if tb[i] > tb[1-i] || (tb[i] == tb[1-i] && i == 1) {
			kb = 1
		}
		dst = emit(dst, pa[i].Add(n.Mul(ra)), n, g, uint32(i), kb)
	}
	return dst, minG, true
}

// capsuleCylinder: GJK/EPA, then a two-point line contact when the
// capsule lies on the cylinder's end face (its lowest side line over the
// disk; keys (i, cap)) or lies along the cylinder's side with parallel
// axes (parallelAxes), else the single point.
func capsuleCylinder(dst []Point, cp Shape, fa *frame, c Shape, fc *frame, margin float64) []Point {
	A, B := newConvex(cp, fa), newConvex(c, fc)
	sep := separation(&A, &B)
	if !(sep.Gap <= margin) {
		return dst
	}
	n := sep.Normal
	sa, ab := fa.ax[2], fc.ax[2]
	tol := manifoldRel * math.Max(A.extent(), B.extent())
	n0 := len(dst)
	if cp.halfLength() > 0 && math.Abs(sa.Dot(n)) <= cylFlatSin {
		var minZ float64
		ok := false
		switch {
		case ab.Cross(n).Len() <= cylFlatSin:
			e, nc, cc := cylCap(c, fc, n)
			// The capsule's side line lowest towards the face.
			w := nc.Sub(sa.Mul(nc.Dot(sa))).Normalize()
			p0, d := segment(cp, fa)
			off := w.Mul(-cp.Radius)
			dst, minZ, ok = lineOnDisk(dst, p0.Add(off), p0.Add(d).Add(off), cc, nc, c.Radius, CylinderCap0+uint32(e), false, margin)
		case math.Abs(ab.Dot(n)) <= cylFlatSin && sa.Cross(ab).LenSqr() < parallelSin2:
			dst, minZ, ok = parallelAxes(dst, fa.p, sa, cp.halfLength(), cp.Radius, fc.p, ab, c.halfLength(), c.Radius, margin)
		}
		if ok && minZ <= sep.Gap+tol {
			return dst
		}
		dst = dst[:n0]
	}
	return emit(dst, sep.OnA, n, sep.Gap, capsuleFeatureAt(cp, fa, sep.OnA, n), cylFeatureAt(c, fc.toLocal(sep.OnB)))
}

// cylinderCylinder: GJK/EPA, then by how each cylinder meets the normal:
// end face on end face (capCap), an end face under the other's side line
// (lineOnDisk), sides with parallel axes (parallelAxes), else the single
// point.
func cylinderCylinder(dst []Point, a Shape, fa *frame, b Shape, fb *frame, margin float64) []Point {
	A, B := newConvex(a, fa), newConvex(b, fb)
	sep := separation(&A, &B)
	if !(sep.Gap <= margin) {
		return dst
	}
	n := sep.Normal
	aa, ab := fa.ax[2], fb.ax[2]
	capA, capB := aa.Cross(n).Len() <= cylFlatSin, ab.Cross(n).Len() <= cylFlatSin
	sideA, sideB := math.Abs(aa.Dot(n)) <= cylFlatSin, math.Abs(ab.Dot(n)) <= cylFlatSin
	tol := manifoldRel * math.Max(A.extent(), B.extent())
	n0 := len(dst)
	var minZ float64
	ok := false
	switch {
	case capA && capB:
		dst, minZ, ok = capCap(dst, a, fa, b, fb, n, margin)
	case capA && sideB:
		e, nc, cc := cylCap(a, fa, n.Mul(-1))
		p0, p1 := sideLine(b, fb, nc)
		dst, minZ, ok = lineOnDisk(dst, p0, p1, cc, nc, a.Radius, CylinderCap0+uint32(e), true, margin)
	case sideA && capB:
		e, nc, cc := cylCap(b, fb, n)
		p0, p1 := sideLine(a, fa, nc)
		dst, minZ, ok = lineOnDisk(dst, p0, p1, cc, nc, b.Radius, CylinderCap0+uint32(e), false, margin)
	case sideA && sideB && aa.Cross(ab).LenSqr() < parallelSin2:
		dst, minZ, ok = parallelAxes(dst, fa.p, aa, a.halfLength(), a.Radius, fb.p, ab, b.halfLength(), b.Radius, margin)
	}
	if ok && minZ <= sep.Gap+tol {
		return dst
	}
	dst = dst[:n0]
	return emit(dst, sep.OnA, n, sep.Gap, cylFeatureAt(a, fa.toLocal(sep.OnA)), cylFeatureAt(b, fb.toLocal(sep.OnB)))
}

// capCap is the manifold of two end faces against each other: A's face
// (the reference, Normal its outward normal) and B's face. Candidates, on
// B's face over A's disk or A's face under B's disk, with the height of B's
// face above A's plane as the gap:
//
//  1. B's capSquare points over A's disk (within clipSnap), keys
//     (CylinderCap_e of A, rim id of B); if all four are, only these;
//  2. A's capSquare points under B's disk, keys (rim id of A, cap of B);
//  3. the two crossings of the rims, keys (CylinderCross_i, CylinderCross_i),
//     i = 0 on the left of the line from A's to B's centre seen along the
//     normal;
//
// reduced to ≤ 4 as box–box (reduce4).
func capCap(dst []Point, a Shape, fa *frame, b Shape, fb *frame, n mgl64.Vec3, margin float64) ([]Point, float64, bool) {
	eA, nf, ccA := cylCap(a, fa, n.Mul(-1))
	eB, nB, ccB := cylCap(b, fb, n)
	den := nf.Dot(nB) // ≈ −1: the faces are within 2·cylFlatSin of parallel
	if !(den < -0.5) {
		return dst, math.Inf(1), false
	}
	capA, capB := CylinderCap0+uint32(eA), CylinderCap0+uint32(eB)
	e1 := num.AnyPerp(nf)
	e2 := nf.Cross(e1)
	var poly clipPoly
	var keys [8]Key
	var onA [8]mgl64.Vec3
	add := func(wa mgl64.Vec3, z float64, k Key) {
		if poly.n == len(poly.v) {
			return
		}
		d := wa.Sub(ccA)
		poly.v[poly.n] = clipVert{x: d.Dot(e1), y: d.Dot(e2), z: z}
		keys[poly.n], onA[poly.n] = k, wa
		poly.n++
	}
	snapA, snapB := 1+clipSnap, 1+clipSnap
	// 1. B's square over A's disk.
	sqB := capSquare(b, fb, eB, nf)
	for q, p := range sqB {
		d := p.Sub(ccA)
		z := d.Dot(nf)
		if r := d.Sub(nf.Mul(z)); r.Len() <= a.Radius*snapA {
			add(p.Sub(nf.Mul(z)), z, Key{capA, uint32(eB) + 2*uint32(q)})
		}
	}
	if poly.n < 4 {
		// 2. A's square under B's disk: up along nf to B's face plane.
		sqA := capSquare(a, fa, eA, nf.Mul(-1))
		for q, p := range sqA {
			t := ccB.Sub(p).Dot(nB) / den
			if p.Add(nf.Mul(t)).Sub(ccB).Len() <= b.Radius*snapB {
				add(p, t, Key{uint32(eA) + 2*uint32(q), capB})
			}
		}
		// 3. The rims' crossings in A's plane (B's rim projected along nf).
		dc := ccB.Sub(ccA)
		dc = dc.Sub(nf.Mul(dc.Dot(nf)))
		if dl := dc.Len(); dl > math.Abs(a.Radius-b.Radius) && dl < a.Radius+b.Radius {
			al := (a.Radius*a.Radius - b.Radius*b.Radius + dl*dl) / (2 * dl)
			hh := math.Sqrt(math.Max(0, a.Radius*a.Radius-al*al))
			dir := dc.Mul(1 / dl)
			base := ccA.Add(dir.Mul(al))
			left := nf.Cross(dir)
			for i, s := range [2]float64{1, -1} {
				p := base.Add(left.Mul(s * hh))
				t := ccB.Sub(p).Dot(nB) / den
				add(p, t, Key{CylinderCross0 + uint32(i), CylinderCross0 + uint32(i)})
			}
		}
	}
	if poly.n == 0 {
		return dst, math.Inf(1), false
	}
	minZ := math.Inf(1)
	m := 0
	for i := 0; i < poly.n; i++ {
		minZ = math.Min(minZ, poly.v[i].z)
		if poly.v[i].z <= margin {
			poly.v[m], keys[m], onA[m] = poly.v[i], keys[i], onA[i]
			m++
		}
	}
	poly.n = m
	keep := reduce4(&poly, boxTol*math.Max(math.Max(a.Radius, a.halfLength()), math.Max(b.Radius, b.halfLength())))
	for i := 0; i < poly.n; i++ {
		if keep&(1<<i) != 0 {
			dst = emit(dst, onA[i], nf, poly.v[i].z, keys[i].A, keys[i].B)
		}
	}
	return dst, minZ, true
}
