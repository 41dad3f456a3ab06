package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// RayHit is where a ray first meets a shape's surface.
type RayHit struct {
	// Dist is the distance (m) from the ray's origin along its unit
	// direction: 0 when the origin lies inside or on the shape.
	Dist float64
	// Point is origin + Dist·dir/|dir| (world, m).
	Point mgl64.Vec3
	// Normal is the shape's outward unit normal at Point (world); for an
	// origin inside the shape, where no surface is crossed, it is −dir/|dir|.
	Normal mgl64.Vec3
}

// RaySupported reports whether Raycast has a routine for shapes of kind k:
// every kind from Plane to Heightfield. A shape kind added later plugs in
// by a case in Raycast's switch and here; until then Raycast reports no
// hit for it.
func RaySupported(k Kind) bool { return k >= Plane && k <= Heightfield }

// Raycast intersects the ray origin + t·dir/|dir|, 0 ≤ t ≤ maxDist (m),
// with shape s at pose p and returns the first point of the solid it meets
// and true, or false when the ray misses within maxDist.
//
// The shape is solid: a ray whose origin lies inside it (or on its surface)
// hits at Dist 0 with Normal −dir/|dir|, as PhysX reports an initial
// overlap; exclude a sensor's own geom to see past it. A ray that only
// touches the surface (grazing a sphere, running along a box face) hits at
// the touching point. Each kind is intersected analytically in the shape's
// frame: a plane by its half-space, a sphere by the quadratic, a box by
// its three slabs (Kay and Kajiya, "Ray tracing complex scenes", 1986), a
// cylinder as the slab |z| ≤ Length/2 clipped by the infinite cylinder, a
// capsule as its two end spheres and the side of its cylinder, a convex
// hull by clipping the ray against its face planes (Cyrus and Beck,
// "Generalized two- and three-dimensional clipping", 1978).
//
// Invalid input reports no hit and never panics: an invalid shape or pose
// (see Bounds), a non-finite origin, a zero or non-finite dir, maxDist NaN
// or < 0 (+Inf is allowed), and a kind RaySupported refuses. It does not
// allocate.
func Raycast(s Shape, p Pose, origin, dir mgl64.Vec3, maxDist float64) (hit RayHit, ok bool) {
	f, fok := frameOf(p)
	if !fok || !s.valid() || !num.FiniteVec(origin) || !num.FiniteVec(dir) || !(maxDist >= 0) {
		return RayHit{}, false
	}
	l := dir.Len()
	if !(l > 0) || math.IsInf(l, 0) {
		return RayHit{}, false
	}
	d := dir.Mul(1 / l)
	o := f.toLocal(origin)
	dl := mgl64.Vec3{d.Dot(f.ax[0]), d.Dot(f.ax[1]), d.Dot(f.ax[2])}
	var t float64
	var n mgl64.Vec3
	switch s.Kind {
	case Plane:
		t, n, ok = rayPlane(o, dl)
	case Sphere:
		t, n, ok = raySphere(o, dl, s.Radius)
	case Box:
		t, n, ok = rayBox(o, dl, s.half())
	case Cylinder:
		t, n, ok = rayCylinder(o, dl, s.Radius, s.halfLength())
	case Capsule:
		t, n, ok = rayCapsule(o, dl, s.Radius, s.halfLength())
	case Convex:
		t, n, ok = rayHull(o, dl, s.Hull)
	case TriMesh, Heightfield:
		// A surface, not a solid: the first triangle crossed, its normal
		// facing the ray's origin (MeshTree.Raycast, HeightGrid.Raycast).
		var th TriangleHit
		if s.Kind == TriMesh {
			th, ok = s.Mesh.Raycast(o, dl, maxDist)
		} else {
			th, ok = s.Field.Raycast(o, dl, maxDist)
		}
		t, n = th.T, th.Normal
	}
	if !ok || t > maxDist || !num.Finite(t) {
		return RayHit{}, false
	}
	if t <= 0 {
		return RayHit{Dist: 0, Point: origin, Normal: d.Mul(-1)}, true
	}
	return RayHit{Dist: t, Point: origin.Add(d.Mul(t)), Normal: f.vecToWorld(n)}, true
}

// The ray routines below work in the shape's frame with a unit direction
// d. They return the entry distance t and the outward local normal there,
// or t ≤ 0 when the origin o is inside (Raycast then reports Dist 0), and
// false on a miss.

// rayPlane: the half-space z ≤ 0.
func rayPlane(o, d mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	if o[2] <= 0 {
		return 0, mgl64.Vec3{}, true
	}
	if !(d[2] < 0) {
		return 0, mgl64.Vec3{}, false
	}
	return -o[2] / d[2], mgl64.Vec3{0, 0, 1}, true
}

// raySphere: |x − c| ≤ r, with c the origin of the frame.
func raySphere(o, d mgl64.Vec3, r float64) (float64, mgl64.Vec3, bool) {
	t, ok := raySphereAt(o, d, r)
	if !ok || t <= 0 {
		return t, mgl64.Vec3{}, ok
	}
	return t, sphereNormal(o.Add(d.Mul(t)), r), true
}

// raySphereAt is the entry distance of the ray into the ball |x| ≤ r: 0
// if o is inside, false on a miss. With b = o·d and c = |o|² − r², the
// roots are −b ± √(b² − c); the nearer one is taken in the form that does
// not cancel (the distance to the closest point of the line, −b, less
// the half chord).
func raySphereAt(o, d mgl64.Vec3, r float64) (float64, bool) {
	c := o.Dot(o) - r*r
	if c <= 0 {
		return 0, true
	}
	b := o.Dot(d)
	if b > 0 { // outside and moving away
		return 0, false
	}
	// b² − c computed as r² − |o + (−b) d|², the squared half chord: exact
	// for a far origin, where b² − c would cancel.
	q := o.Sub(d.Mul(b))
	h := r*r - q.Dot(q)
	if h < 0 {
		return 0, false
	}
	return -b - math.Sqrt(h), true
}

// sphereNormal is x/|x| for a point x on the sphere of radius r (x/r when
// rounding left x at the centre).
func sphereNormal(x mgl64.Vec3, r float64) mgl64.Vec3 {
	if l := x.Len(); l > 0 {
		return x.Mul(1 / l)
	}
	return mgl64.Vec3{0, 0, 1}
}

// slab intersects the ray's coordinate o + t d with the interval
// [lo, hi] and narrows [t0, t1]: it returns the new interval and whether
// the entry t0 moved to this slab's entering face (then side is −1 for
// lo, +1 for hi). A ray parallel to the slab (d = 0) keeps the interval if
// o lies within it and empties it otherwise.
func slab(o, d, lo, hi, t0, t1 float64) (float64, float64, float64, bool) {
	if d == 0 {
		if o < lo || o > hi {
			return 1, 0, 0, false // empty
		}
		return t0, t1, 0, false
	}
	a, b := (lo-o)/d, (hi-o)/d
	side := -1.0
	if d < 0 {
		a, b = b, a
		side = 1
	}
	moved := false
	if a > t0 {
		t0, moved = a, true
	}
	t1 = math.Min(t1, b)
	return t0, t1, side, moved
}

// rayBox: the slabs |x_i| ≤ h_i.
func rayBox(o, d, h mgl64.Vec3) (float64, mgl64.Vec3, bool) {
	t0, t1 := math.Inf(-1), math.Inf(1)
	var n mgl64.Vec3
	for i := 0; i < 3; i++ {
		var side float64
		var moved bool
		t0, t1, side, moved = slab(o[i], d[i], -h[i], h[i], t0, t1)
		if t0 > t1 {
			return 0, mgl64.Vec3{}, false
		}
		if moved {
			n = mgl64.Vec3{}
			n[i] = side
		}
	}
	if t1 < 0 { // the box lies behind the origin
		return 0, mgl64.Vec3{}, false
	}
	return t0, n, true // t0 ≤ 0: inside
}

// infiniteCylinder narrows [t0, t1] to where the ray is within radius r of
// the z axis, as slab does for a slab; moved reports that the entry is on
// the curved side.
func infiniteCylinder(o, d mgl64.Vec3, r, t0, t1 float64) (float64, float64, bool) {
	a := d[0]*d[0] + d[1]*d[1]
	c := o[0]*o[0] + o[1]*o[1] - r*r
	if a == 0 { // parallel to the axis
		if c > 0 {
			return 1, 0, false
		}
		return t0, t1, false
	}
	b := o[0]*d[0] + o[1]*d[1]
	// Half chord in the xy projection, as in raySphereAt: r² − |q|² with q
	// the projected point closest to the axis.
	s := -b / a
	qx, qy := o[0]+s*d[0], o[1]+s*d[1]
	h := (r*r - qx*qx - qy*qy) / a
	if h < 0 {
		return 1, 0, false
	}
	w := math.Sqrt(h)
	e, x := s-w, s+w
	moved := false
	if e > t0 {
		t0, moved = e, true
	}
	t1 = math.Min(t1, x)
	return t0, t1, moved
}

// rayCylinder: |z| ≤ hl and x² + y² ≤ r².
func rayCylinder(o, d mgl64.Vec3, r, hl float64) (float64, mgl64.Vec3, bool) {
	t0, t1, side, _ := slab(o[2], d[2], -hl, hl, math.Inf(-1), math.Inf(1))
	n := mgl64.Vec3{0, 0, side}
	t0, t1, curved := infiniteCylinder(o, d, r, t0, t1)
	if t0 > t1 || t1 < 0 {
		return 0, mgl64.Vec3{}, false
	}
	if curved && t0 > 0 {
		x := o.Add(d.Mul(t0))
		n = sideNormal(x)
	}
	return t0, n, true
}

// sideNormal is the outward normal (x, y, 0)/|(x, y)| of the curved side
// at x (+x on the axis, where rounding alone can put it).
func sideNormal(x mgl64.Vec3) mgl64.Vec3 {
	if l := math.Hypot(x[0], x[1]); l > 0 {
		return mgl64.Vec3{x[0] / l, x[1] / l, 0}
	}
	return mgl64.Vec3{1, 0, 0}
}

// rayCapsule: the points within r of the segment z ∈ [−hl, hl] on the z
// axis: the union of the two end balls and the cylinder between them. The
// cylinder's flat ends lie inside the balls, so the first entry is the
// nearest of the balls' entries and the cylinder's entry through its side.
func rayCapsule(o, d mgl64.Vec3, r, hl float64) (float64, mgl64.Vec3, bool) {
	best, n, hit := math.Inf(1), mgl64.Vec3{}, false
	for _, z := range [2]float64{-hl, hl} {
		c := mgl64.Vec3{0, 0, z}
		if t, ok := raySphereAt(o.Sub(c), d, r); ok && t < best {
			best, hit = t, true
			n = sphereNormal(o.Add(d.Mul(t)).Sub(c), r)
		}
	}
	t0, t1, _, _ := slab(o[2], d[2], -hl, hl, math.Inf(-1), math.Inf(1))
	t0, t1, curved := infiniteCylinder(o, d, r, t0, t1)
	if t0 <= t1 && t1 >= 0 && (curved || t0 <= 0) && t0 < best {
		best, hit = t0, true
		n = sideNormal(o.Add(d.Mul(t0)))
	}
	if !hit {
		return 0, mgl64.Vec3{}, false
	}
	return best, n, true
}

// rayHull: n_f·x ≤ Offsets[f] for every face f of the hull.
func rayHull(o, d mgl64.Vec3, h *Hull) (float64, mgl64.Vec3, bool) {
	m := h.mesh
	t0, t1 := math.Inf(-1), math.Inf(1)
	face := -1
	for f, nf := range m.Normals {
		den := nf.Dot(d)
		dist := m.Offsets[f] - nf.Dot(o) // ≥ 0: o on the inner side
		switch {
		case den == 0:
			if dist < 0 {
				return 0, mgl64.Vec3{}, false
			}
			continue
		case den < 0: // entering through face f
			if t := dist / den; t > t0 {
				t0, face = t, f
			}
		default: // leaving through face f
			t1 = math.Min(t1, dist/den)
		}
		if t0 > t1 {
			return 0, mgl64.Vec3{}, false
		}
	}
	if t1 < 0 || t0 > t1 {
		return 0, mgl64.Vec3{}, false
	}
	if face < 0 { // never entered: inside on every face (only with t0 = −Inf)
		return 0, mgl64.Vec3{}, true
	}
	return t0, m.Normals[face], true
}

// Ray returns the distance t ≥ 0 (m) at which the ray origin + t·dir
// enters the box (0 if origin is inside) and true, or false if it misses
// the box within maxDist: the slab test (Kay and Kajiya 1986). dir should
// be a unit vector for t to be in metres; a zero component makes the ray
// parallel to that slab. An empty box (Min > Max, the Bounds of an invalid
// shape) is never hit.
func (a AABB) Ray(origin, dir mgl64.Vec3, maxDist float64) (float64, bool) {
	t0, t1 := 0.0, maxDist
	for i := 0; i < 3; i++ {
		t0, t1, _, _ = slab(origin[i], dir[i], a.Min[i], a.Max[i], t0, t1)
		if !(t0 <= t1) {
			return 0, false
		}
	}
	return t0, true
}

// BoundingRadius returns the radius (m) of a ball about the shape's local
// origin that holds the whole shape: +Inf for a plane, 0 for an invalid
// shape. A ray farther than that from the posed origin misses the shape,
// the cheapest test before Bounds and Raycast. A hull's radius is a scan
// of its vertices.
func (s Shape) BoundingRadius() float64 {
	if !s.valid() {
		return 0
	}
	switch s.Kind {
	case Plane:
		return math.Inf(1)
	case Box:
		return s.half().Len()
	case Sphere:
		return s.Radius
	case Capsule:
		return s.Radius + s.halfLength()
	case Cylinder:
		return math.Hypot(s.Radius, s.halfLength())
	case Convex:
		var r2 float64
		for _, v := range s.Hull.mesh.Vertices {
			r2 = math.Max(r2, v.Dot(v))
		}
		return math.Sqrt(r2)
	case TriMesh:
		return boxRadius(s.Mesh.Bounds())
	case Heightfield:
		return boxRadius(s.Field.lo, s.Field.hi)
	}
	return 0
}

// boxRadius is the radius about the origin of the ball holding the local
// box [lo, hi].
func boxRadius(lo, hi mgl64.Vec3) float64 {
	var r2 float64
	for i := 0; i < 3; i++ {
		m := math.Max(math.Abs(lo[i]), math.Abs(hi[i]))
		r2 += m * m
	}
	return math.Sqrt(r2)
}
