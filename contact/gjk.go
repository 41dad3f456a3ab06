package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// GJK (Gilbert, Johnson and Keerthi 1988) on the configuration-space
// obstacle D = A − B = {a − b}: the shapes are separated by |v| where v is
// the point of D closest to the origin, and overlap when D holds it. The
// iteration keeps a simplex of up to four support points w = s_A(−v) −
// s_B(v) of D (each with its two witnesses a, b), replaces v by the point
// of the simplex closest to the origin (Johnson's sub-algorithm, written
// here as the Voronoi-region tests of Ericson, Real-Time Collision
// Detection, 2005, §5.1.5–5.1.6) and drops the vertices that do not carry
// it. It stops (the criterion of van den Bergen 2003) when
//
//	|v|² − v·w ≤ tol·|v|,
//
// i.e. when |v| is within tol (m) of the distance, when w repeats a
// vertex, when |v| stops decreasing (rounding), when the simplex is a
// tetrahedron holding the origin or |v| ≤ tol (overlap or touching), or
// after gjkMaxIter iterations.

const (
	gjkMaxIter = 64
	// gjkRelTol is GJK's and EPA's tolerance relative to the larger of
	// the two shapes' extents: 1e-9 (1e-10 m on 10 cm), far below any
	// contact margin and far above rounding of O(1) coordinates.
	gjkRelTol = 1e-9
)

// simplex is GJK's simplex: vertices w = a − b with the support points a
// on A and b on B, and the barycentric weights of the closest point.
type simplex struct {
	n       int
	w, a, b [4]mgl64.Vec3
	lam     [4]float64
}

// add appends a vertex.
func (s *simplex) add(a, b mgl64.Vec3) {
	s.a[s.n], s.b[s.n], s.w[s.n] = a, b, a.Sub(b)
	s.n++
}

// keep reduces the simplex to the vertices whose weight in l is positive,
// in order, and stores their weights.
func (s *simplex) keep(l [4]float64) {
	m := 0
	for i := 0; i < s.n; i++ {
		if l[i] > 0 {
			s.w[m], s.a[m], s.b[m], s.lam[m] = s.w[i], s.a[i], s.b[i], l[i]
			m++
		}
	}
	if m == 0 { // cannot happen for weights that sum to one; keep the first vertex
		s.lam[0] = 1
		m = 1
	}
	s.n = m
}

// point returns Σ λᵢ xᵢ over the simplex.
func (s *simplex) point(x *[4]mgl64.Vec3) mgl64.Vec3 {
	var p mgl64.Vec3
	for i := 0; i < s.n; i++ {
		p = p.Add(x[i].Mul(s.lam[i]))
	}
	return p
}

// segWeights returns the weights of the point of segment p0 p1 closest to
// the origin.
func segWeights(p0, p1 mgl64.Vec3) (l0, l1 float64) {
	d := p1.Sub(p0)
	dd := d.Dot(d)
	if !(dd > 0) {
		return 1, 0
	}
	t := -p0.Dot(d) / dd
	switch {
	case t <= 0:
		return 1, 0
	case t >= 1:
		return 0, 1
	}
	return 1 - t, t
}

// triWeights returns the barycentric weights of the point of triangle
// p0 p1 p2 closest to the origin (Ericson 2005, §5.1.5, with P = 0). A
// degenerate (collinear) triangle takes the best of its edges.
func triWeights(p0, p1, p2 mgl64.Vec3) (l0, l1, l2 float64) {
	ab, ac := p1.Sub(p0), p2.Sub(p0)
	d1, d2 := -ab.Dot(p0), -ac.Dot(p0)
	if d1 <= 0 && d2 <= 0 {
		return 1, 0, 0
	}
	d3, d4 := -ab.Dot(p1), -ac.Dot(p1)
	if d3 >= 0 && d4 <= d3 {
		return 0, 1, 0
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return 1 - v, v, 0
	}
	d5, d6 := -ab.Dot(p2), -ac.Dot(p2)
	if d6 >= 0 && d5 <= d6 {
		return 0, 0, 1
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		w := d2 / (d2 - d6)
		return 1 - w, 0, w
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return 0, 1 - w, w
	}
	den := va + vb + vc
	if !(den > 0) || math.IsInf(den, 0) {
		// Collinear: the closest of the three edges.
		best := math.Inf(1)
		try := func(i, j int, pi, pj mgl64.Vec3) {
			a, b := segWeights(pi, pj)
			q := pi.Mul(a).Add(pj.Mul(b))
			if d := q.Dot(q); d < best {
				best = d
				var l [3]float64
				l[i], l[j] = a, b
				l0, l1, l2 = l[0], l[1], l[2]
			}
		}
		try(0, 1, p0, p1)
		try(1, 2, p1, p2)
		try(0, 2, p0, p2)
		return l0, l1, l2
	}
	v, w := vb/den, vc/den
	return 1 - v - w, v, w
}

// tetFaces lists each face of a tetrahedron with the vertex opposite it.
var tetFaces = [4][4]int{{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}}

// closest moves the simplex to its sub-simplex that carries the point
// closest to the origin and returns that point; inside reports a
// tetrahedron that holds the origin.
func (s *simplex) closest() (v mgl64.Vec3, inside bool) {
	var l [4]float64
	switch s.n {
	case 1:
		l[0] = 1
	case 2:
		l[0], l[1] = segWeights(s.w[0], s.w[1])
	case 3:
		l[0], l[1], l[2] = triWeights(s.w[0], s.w[1], s.w[2])
	case 4:
		// The origin is outside face (i, j, k) when it lies on the other
		// side of the face's plane from the fourth vertex. A flat
		// tetrahedron (volume below rounding) tests every face.
		w := &s.w
		vol := w[1].Sub(w[0]).Cross(w[2].Sub(w[0])).Dot(w[3].Sub(w[0]))
		scale := w[1].Sub(w[0]).Len() * w[2].Sub(w[0]).Len() * w[3].Sub(w[0]).Len()
		flat := !(math.Abs(vol) > 1e-12*scale)
		best, any := math.Inf(1), false
		for _, fc := range tetFaces {
			i, j, k, o := fc[0], fc[1], fc[2], fc[3]
			nrm := w[j].Sub(w[i]).Cross(w[k].Sub(w[i]))
			so, sp := nrm.Dot(w[o].Sub(w[i])), -nrm.Dot(w[i])
			if !flat && so*sp >= 0 {
				continue
			}
			a, b, c := triWeights(w[i], w[j], w[k])
			q := w[i].Mul(a).Add(w[j].Mul(b)).Add(w[k].Mul(c))
			if d := q.Dot(q); d < best {
				best, any = d, true
				l = [4]float64{}
				l[i], l[j], l[k] = a, b, c
			}
		}
		if !any {
			return mgl64.Vec3{}, true
		}
	}
	s.keep(l)
	return s.point(&s.w), false
}

// gjkResult is the outcome of gjk.
type gjkResult struct {
	dist    float64    // |v|, m (0 when overlapping)
	pa, pb  mgl64.Vec3 // closest points on A and B (witnesses), world
	overlap bool       // the simplex holds the origin, or |v| ≤ tol
	iters   int
}

// gjk runs GJK on A − B with their cores (skin false) or whole shapes
// (skin true), leaving its final simplex in s.
func gjk(A, B *convex, skin bool, tol float64, s *simplex) gjkResult {
	sup := func(c *convex, d mgl64.Vec3) mgl64.Vec3 {
		if skin {
			return c.support(d)
		}
		return c.coreSupport(d)
	}
	v := A.f.p.Sub(B.f.p)
	if v.Dot(v) == 0 {
		v = mgl64.Vec3{1, 0, 0}
	}
	s.n = 0
	var prev simplex
	res := gjkResult{}
	for res.iters = 1; res.iters <= gjkMaxIter; res.iters++ {
		a, b := sup(A, v.Mul(-1)), sup(B, v)
		w := a.Sub(b)
		vv := v.Dot(v)
		if s.n > 0 && vv-v.Dot(w) <= tol*math.Sqrt(vv) {
			break
		}
		dup := false
		for i := 0; i < s.n; i++ {
			if s.w[i] == w {
				dup = true
			}
		}
		if dup {
			break
		}
		prev = *s
		s.add(a, b)
		nv, inside := s.closest()
		if inside {
			res.overlap = true
			return res
		}
		if prev.n > 0 && nv.Dot(nv) >= vv {
			*s = prev // rounding: no progress
			break
		}
		v = nv
		if v.Dot(v) <= tol*tol {
			res.overlap = true
			break
		}
	}
	res.iters = min(res.iters, gjkMaxIter)
	res.pa, res.pb = s.point(&s.a), s.point(&s.b)
	if !res.overlap {
		res.dist = res.pa.Sub(res.pb).Len()
	}
	return res
}

// Separation is the result of Distance: how far apart two convex shapes
// are and where.
type Separation struct {
	// Gap is the signed distance, m: > 0 the length of the shortest
	// segment between the shapes, < 0 minus the penetration depth (the
	// shortest translation of B that separates them).
	Gap float64
	// Normal is unit, world, from A towards B: moving B by −Gap·Normal
	// (for Gap < 0) separates the shapes; for Gap > 0 it is the direction
	// of OnB − OnA.
	Normal mgl64.Vec3
	// OnA and OnB are the witness points on A's and B's surfaces (world,
	// m): OnB = OnA + Gap·Normal up to the tolerance.
	OnA, OnB mgl64.Vec3
	// Iterations counts GJK and EPA iterations (support-point queries).
	Iterations int
}

// Distance returns the separation of the convex shapes a at pa and b at
// pb: by GJK (Gilbert, Johnson and Keerthi 1988) when they are apart and by
// EPA (van den Bergen 2001) when they overlap, to a tolerance of 1e-9 of
// the larger shape's extent. It is the general routine under Collide's
// cylinder and convex pairs and works for any two of box, sphere, capsule,
// cylinder and convex hulls; ok is false for a plane (not bounded), an invalid shape or pose.
func Distance(a Shape, pa Pose, b Shape, pb Pose) (sep Separation, ok bool) {
	if a.Kind == Plane || b.Kind == Plane || !a.valid() || !b.valid() {
		return Separation{}, false
	}
	fa, ok := frameOf(pa)
	if !ok {
		return Separation{}, false
	}
	fb, ok := frameOf(pb)
	if !ok {
		return Separation{}, false
	}
	A, B := newConvex(a, &fa), newConvex(b, &fb)
	return separation(&A, &B), true
}

// separation runs GJK on the cores and, when they are within tolerance of
// touching, GJK on the whole shapes then EPA for the depth and normal.
//
// EPA's witness points are a weighted mean of its nearest face's support
// points, which on a sliver face can mix different features of a shape and
// lie inside it, and its normal on a surface curved both ways is only good
// to about √(tol/R). Both are then refined as Bullet does after its
// penetration query: B is moved apart along EPA's normal n by the depth
// plus witnessGap, where GJK's closest points and normal n' are accurate,
// and moved back: OnB −= t n, Gap = |v| − t (n·n'), Normal = n' (exact
// for flat contact features, second order in t|n − n'| otherwise).
func separation(A, B *convex) Separation {
	ext := math.Max(A.extent(), B.extent())
	tol := gjkRelTol * ext
	var s simplex
	r := gjk(A, B, false, tol, &s)
	if !r.overlap && r.dist > tol {
		sep := coreSeparation(A, B, r)
		sep.Iterations = r.iters
		return sep
	}
	it := r.iters
	if A.skin > 0 || B.skin > 0 {
		r = gjk(A, B, true, tol, &s)
		it += r.iters
		if !r.overlap && r.dist > tol {
			// Rounding only: the whole shapes hold the cores, which touch.
			n := r.pb.Sub(r.pa).Mul(1 / r.dist)
			return Separation{Gap: r.dist, Normal: n, OnA: r.pa, OnB: r.pb, Iterations: it}
		}
	}
	sep := epa(A, B, &s, tol)
	it += sep.Iterations
	// Each pass moves B along the best normal so far; one pass leaves an
	// error of order t|n − n'|, a second its square.
	for pass := 0; pass < 3; pass++ {
		t := -sep.Gap + witnessGap*ext
		fb := *B.f
		fb.p = fb.p.Add(sep.Normal.Mul(t))
		B2 := *B
		B2.f = &fb
		r = gjk(A, &B2, false, tol, &s)
		it += r.iters
		if r.overlap || !(r.dist > tol) {
			break // EPA was off by more than witnessGap: keep its answer
		}
		ref := coreSeparation(A, &B2, r)
		ref.OnB = ref.OnB.Sub(sep.Normal.Mul(t))
		ref.Gap -= t * sep.Normal.Dot(ref.Normal)
		moved := ref.Normal.Sub(sep.Normal).Len()
		sep = ref
		if moved <= gjkRelTol {
			break
		}
	}
	// GJK's normal is good to about √(tol/R) where both surfaces are
	// curved (two rims); the witnesses are on the surfaces to tol. Where
	// they are far enough apart, their difference is the normal: the
	// point then lies on both surfaces exactly, as the Point convention asks.
	if d := sep.OnA.Sub(sep.OnB); d.Len() > witnessGap*ext {
		l := d.Len()
		sep.Normal, sep.Gap = d.Mul(1/l), -l
	}
	sep.Iterations = it
	return sep
}

// witnessGap, relative to the larger extent: how far apart separation
// moves overlapping shapes to find their witness points by GJK. Far above
// EPA's tolerance (1e-9), small enough that the second-order error of
// moving back is negligible.
const witnessGap = 1e-3

// coreSeparation turns a GJK result on the cores (separated by more than
// the tolerance) into a Separation of the whole shapes.
func coreSeparation(A, B *convex, r gjkResult) Separation {
	n := r.pb.Sub(r.pa).Mul(1 / r.dist)
	return Separation{
		Gap:    r.dist - A.skin - B.skin,
		Normal: n,
		OnA:    r.pa.Add(n.Mul(A.skin)),
		OnB:    r.pb.Sub(n.Mul(B.skin)),
	}
}
