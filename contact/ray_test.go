package contact

import (
	"math"
	"math/rand"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// rayTol (m) is the rounding allowance of an analytic hit at unit scale:
// a handful of operations of relative error 2⁻⁵³ on lengths ≤ 10 m.
const rayTol = 1e-12

func wantHit(t *testing.T, what string, s Shape, p Pose, o, d mgl64.Vec3, max, dist float64, point, normal mgl64.Vec3) {
	t.Helper()
	h, ok := Raycast(s, p, o, d, max)
	if !ok {
		t.Fatalf("%s: no hit, want distance %v", what, dist)
	}
	assertNear(t, dist, h.Dist, rayTol, what+" Dist")
	assertVec(t, point, h.Point, rayTol, what+" Point")
	assertVec(t, normal, h.Normal, rayTol, what+" Normal")
}

func wantMiss(t *testing.T, what string, s Shape, p Pose, o, d mgl64.Vec3, max float64) {
	t.Helper()
	if h, ok := Raycast(s, p, o, d, max); ok {
		t.Errorf("%s: hit %+v, want a miss", what, h)
	}
}

// TestRaycastAnalytic checks each kind against hand-computed hits: the
// distance, point and outward normal, through a rotated and translated
// pose (the answers are exact in the world, so the pose's rounding is the
// whole error).
func TestRaycastAnalytic(t *testing.T) {
	down := mgl64.Vec3{0, 0, -1}
	x := mgl64.Vec3{1, 0, 0}
	inf := math.Inf(1)

	// Plane z = 0.5 tilted 30° about x: a vertical ray from (0, 0, 3) meets
	// it where z = 0.5 (the plane passes through its origin).
	th := math.Pi / 6
	pl := atRot(0, 0, 0.5, th, x)
	n := mgl64.Vec3{0, -math.Sin(th), math.Cos(th)}
	wantHit(t, "plane", NewPlane(), pl, mgl64.Vec3{0, 0, 3}, down, inf, 2.5, mgl64.Vec3{0, 0, 0.5}, n)
	wantHit(t, "plane slanted ray", NewPlane(), at(0, 0, 0), mgl64.Vec3{0, 0, 1}, mgl64.Vec3{3, 0, -4}, inf, 1.25, mgl64.Vec3{0.75, 0, 0}, mgl64.Vec3{0, 0, 1})
	wantMiss(t, "plane parallel", NewPlane(), at(0, 0, 0), mgl64.Vec3{0, 0, 1}, x, inf)
	wantMiss(t, "plane away", NewPlane(), at(0, 0, 0), mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, 1}, inf)
	wantMiss(t, "plane beyond maxDist", NewPlane(), at(0, 0, 0), mgl64.Vec3{0, 0, 1}, down, 0.999)

	// Sphere r = 0.5 at (1, 2, 3): along x from x = −4 the hit is at 4.5.
	sp := must(NewSphere(0.5))
	ps := atRot(1, 2, 3, 1.1, mgl64.Vec3{1, 2, 3})
	wantHit(t, "sphere", sp, ps, mgl64.Vec3{-4, 2, 3}, mgl64.Vec3{2, 0, 0}, inf, 4.5, mgl64.Vec3{0.5, 2, 3}, mgl64.Vec3{-1, 0, 0})
	// Offset by 0.3 in y: chord half-width 0.4 (3-4-5), hit at x = 1 − 0.4.
	wantHit(t, "sphere off-centre", sp, ps, mgl64.Vec3{-4, 2.3, 3}, x, inf, 4.6, mgl64.Vec3{0.6, 2.3, 3}, mgl64.Vec3{-0.8, 0.6, 0})
	// Grazing: offset exactly r touches at one point.
	wantHit(t, "sphere grazing", sp, at(1, 2, 3), mgl64.Vec3{-4, 2.5, 3}, x, inf, 5, mgl64.Vec3{1, 2.5, 3}, mgl64.Vec3{0, 1, 0})
	wantMiss(t, "sphere passing", sp, at(1, 2, 3), mgl64.Vec3{-4, 2.5000001, 3}, x, inf)
	wantMiss(t, "sphere behind", sp, ps, mgl64.Vec3{4, 2, 3}, x, inf)

	// Box 2 × 1 × 0.5 turned 90° about z: its world x half extent is 0.5.
	bx := must(NewBoxSize(mgl64.Vec3{2, 1, 0.5}))
	pb := atRot(0, 0, 1, math.Pi/2, mgl64.Vec3{0, 0, 1})
	wantHit(t, "box +x face", bx, pb, mgl64.Vec3{5, 0.9, 1.1}, mgl64.Vec3{-1, 0, 0}, inf, 4.5, mgl64.Vec3{0.5, 0.9, 1.1}, x)
	wantHit(t, "box top", bx, pb, mgl64.Vec3{0.2, -0.7, 4}, down, inf, 2.75, mgl64.Vec3{0.2, -0.7, 1.25}, mgl64.Vec3{0, 0, 1})
	// Diagonal through the corner region: enters the y face first.
	wantHit(t, "box slanted", bx, pb, mgl64.Vec3{-0.5, -2, 1}, mgl64.Vec3{0.3, 0.4, 0}, inf, 1.25, mgl64.Vec3{0.25, -1, 1}, mgl64.Vec3{0, -1, 0})
	// Grazing along the top face (z = 1.25 exactly): touches it at its edge.
	wantHit(t, "box along face", bx, at(0, 0, 1), mgl64.Vec3{-3, 0, 1.25}, x, inf, 2, mgl64.Vec3{-1, 0, 1.25}, mgl64.Vec3{-1, 0, 0})
	wantMiss(t, "box parallel above", bx, at(0, 0, 1), mgl64.Vec3{-3, 0, 1.2500001}, x, inf)
	wantMiss(t, "box miss", bx, pb, mgl64.Vec3{0.6, 0, 4}, down, inf)

	// Cylinder r = 0.5, length 2, lying along world x (axis turned about y).
	cy := must(NewCylinderLength(0.5, 2))
	pc := atRot(0, 0, 0, math.Pi/2, mgl64.Vec3{0, 1, 0})
	wantHit(t, "cylinder side", cy, pc, mgl64.Vec3{0.7, 0, 3}, down, inf, 2.5, mgl64.Vec3{0.7, 0, 0.5}, mgl64.Vec3{0, 0, 1})
	wantHit(t, "cylinder side off-axis", cy, pc, mgl64.Vec3{0.7, 0.3, 3}, down, inf, 2.6, mgl64.Vec3{0.7, 0.3, 0.4}, mgl64.Vec3{0, 0.6, 0.8})
	wantHit(t, "cylinder end face", cy, pc, mgl64.Vec3{-4, 0.2, 0.1}, x, inf, 3, mgl64.Vec3{-1, 0.2, 0.1}, mgl64.Vec3{-1, 0, 0})
	wantMiss(t, "cylinder past end", cy, pc, mgl64.Vec3{1.01, 0, 3}, down, inf)
	wantMiss(t, "cylinder parallel outside", cy, pc, mgl64.Vec3{-4, 0.51, 0}, x, inf)
	wantHit(t, "cylinder grazing rim", cy, at(0, 0, 0), mgl64.Vec3{0.5, 0, -4}, mgl64.Vec3{0, 0, 1}, inf, 3, mgl64.Vec3{0.5, 0, -1}, mgl64.Vec3{0, 0, -1})

	// Capsule r = 0.5, straight length 2 along world x.
	ca := must(NewCapsuleLength(0.5, 2))
	wantHit(t, "capsule side", ca, pc, mgl64.Vec3{0.7, 0, 3}, down, inf, 2.5, mgl64.Vec3{0.7, 0, 0.5}, mgl64.Vec3{0, 0, 1})
	wantHit(t, "capsule cap", ca, pc, mgl64.Vec3{-4, 0, 0}, x, inf, 2.5, mgl64.Vec3{-1.5, 0, 0}, mgl64.Vec3{-1, 0, 0})
	// Over the cap centre at x = 1.3: the ball of the end at x = 1 has
	// z = √(0.25 − 0.09) = 0.4 there.
	wantHit(t, "capsule cap from above", ca, pc, mgl64.Vec3{1.3, 0, 3}, down, inf, 2.6, mgl64.Vec3{1.3, 0, 0.4}, mgl64.Vec3{0.6, 0, 0.8})
	wantMiss(t, "capsule past cap", ca, pc, mgl64.Vec3{1.51, 0, 3}, down, inf)
	wantHit(t, "sphere-like capsule", must(NewCapsuleLength(0.5, 0)), at(0, 0, 0), mgl64.Vec3{0, 0, 2}, down, inf, 1.5, mgl64.Vec3{0, 0, 0.5}, mgl64.Vec3{0, 0, 1})

	// Convex hull of a unit cube's corners: the same hits as the box.
	hu := cubeHull(t, mgl64.Vec3{1, 1, 1})
	cube := must(NewBoxSize(mgl64.Vec3{1, 1, 1}))
	ph := atRot(0.2, -0.1, 0.3, 0.7, mgl64.Vec3{1, 1, 0})
	r := rand.New(rand.NewSource(7))
	hits := 0
	for i := 0; i < 2000; i++ {
		o := mgl64.Vec3{r.Float64()*4 - 2, r.Float64()*4 - 2, r.Float64()*4 - 2}
		d := mgl64.Vec3{r.Float64()*1.6 - 0.8, r.Float64()*1.6 - 0.8, r.Float64()*1.6 - 0.8}.Add(ph.Pos).Sub(o) // towards the cube, missing at times
		hb, okb := Raycast(cube, ph, o, d, inf)
		hh, okh := Raycast(hu, ph, o, d, inf)
		if okb != okh {
			t.Fatalf("ray %d from %v along %v: box hit %v, hull hit %v", i, o, d, okb, okh)
		}
		if !okb {
			continue
		}
		hits++
		// 1e-9: the hull's planes carry its construction tolerance
		// (mesh.DefaultTol scale) where the box's slabs are exact.
		assertNear(t, hb.Dist, hh.Dist, 1e-9, "hull Dist")
		if hb.Dist > 0 {
			assertVec(t, hb.Normal, hh.Normal, 1e-9, "hull Normal")
			if sd := signedDist(cube, ph, hh.Point); math.Abs(sd) > 1e-9 {
				t.Errorf("ray %d: hull point %v is %g m off the cube's surface", i, hh.Point, sd)
			}
		}
	}
	if hits < 200 {
		t.Errorf("only %d of 2000 random rays hit the cube: the comparison is too weak", hits)
	}
}

// TestRaycastInside: an origin inside (or on) a solid hits at distance 0
// with normal −dir, whatever the kind.
func TestRaycastInside(t *testing.T) {
	hu := cubeHull(t, mgl64.Vec3{1, 1, 1})
	shapes := []Shape{NewPlane(), must(NewSphere(0.5)), must(NewBoxSize(mgl64.Vec3{1, 1, 1})), must(NewCapsuleLength(0.4, 0.5)), must(NewCylinderLength(0.4, 0.5)), hu}
	p := atRot(1, 1, 1, 0.3, mgl64.Vec3{0, 1, 1})
	d := mgl64.Vec3{0, 3, 4}
	for _, s := range shapes {
		for _, o := range []mgl64.Vec3{{1, 1, 1}, p.Apply(mgl64.Vec3{0.1, -0.05, -0.1})} {
			h, ok := Raycast(s, p, o, d, 0)
			if !ok || h.Dist != 0 || h.Point != o {
				t.Errorf("%v: from inside %v: hit %v %+v, want distance 0 at the origin", s.Kind, o, ok, h)
				continue
			}
			assertVec(t, mgl64.Vec3{0, -0.6, -0.8}, h.Normal, rayTol, s.Kind.String()+" inside Normal")
		}
	}
	// On the surface counts as inside: the top of a unit box at z = 0.5.
	h, ok := Raycast(must(NewBoxSize(mgl64.Vec3{1, 1, 1})), at(0, 0, 0), mgl64.Vec3{0, 0, 0.5}, mgl64.Vec3{0, 0, 1}, 1)
	if !ok || h.Dist != 0 {
		t.Errorf("from a box's surface outwards: %v %+v, want distance 0", ok, h)
	}
}

// TestRaycastBadInput: invalid rays and shapes report no hit.
func TestRaycastBadInput(t *testing.T) {
	s := must(NewSphere(1))
	o, d := mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0, 0, -1}
	nan := math.NaN()
	cases := []struct {
		name string
		s    Shape
		p    Pose
		o, d mgl64.Vec3
		max  float64
	}{
		{"zero dir", s, at(0, 0, 0), o, mgl64.Vec3{}, 10},
		{"NaN dir", s, at(0, 0, 0), o, mgl64.Vec3{nan, 0, -1}, 10},
		{"Inf origin", s, at(0, 0, 0), mgl64.Vec3{math.Inf(1), 0, 0}, d, 10},
		{"negative maxDist", s, at(0, 0, 0), o, d, -1},
		{"NaN maxDist", s, at(0, 0, 0), o, d, nan},
		{"zero pose", s, Pose{}, o, d, 10},
		{"bad radius", Shape{Kind: Sphere, Radius: -1}, at(0, 0, 0), o, d, 10},
		{"hull-less convex", Shape{Kind: Convex}, at(0, 0, 0), o, d, 10},
		{"unknown kind", Shape{Kind: Kind(99)}, at(0, 0, 0), o, d, 10},
	}
	for _, c := range cases {
		if h, ok := Raycast(c.s, c.p, c.o, c.d, c.max); ok {
			t.Errorf("%s: hit %+v, want none", c.name, h)
		}
	}
	if RaySupported(Kind(99)) || !RaySupported(Convex) || !RaySupported(Plane) || !RaySupported(Heightfield) {
		t.Error("RaySupported: want Plane..Heightfield only")
	}
	// A direction's length does not matter; maxDist is in metres.
	h, ok := Raycast(s, at(0, 0, 0), o, mgl64.Vec3{0, 0, -1e-3}, 4)
	if !ok || h.Dist != 4 {
		t.Errorf("short dir: %v %+v, want distance 4", ok, h)
	}
}

// FuzzRaycast: Raycast never panics, its hits are finite, at most maxDist
// away, on the ray, with a unit normal, and (outside the shape) on its
// surface with the normal facing the ray.
func FuzzRaycast(f *testing.F) {
	f.Add(uint8(1), 0.5, 0.3, 0.2, 0.0, 0.0, 3.0, 0.1, 0.0, -1.0, 1.0, 0.1, 0.2, 0.3, 10.0)
	f.Add(uint8(2), 0.5, 0.3, 0.2, 0.0, 0.5, 3.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 10.0)
	f.Add(uint8(3), 0.1, 0.5, 0.2, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.7, 0.7, 0.0, 0.0, 1.0)
	f.Add(uint8(4), 0.1, 0.5, 0.2, 0.1, 0.0, 9.0, 0.0, 0.0, -1.0, 1.0, 0.0, 0.0, 0.0, 1e9)
	f.Add(uint8(5), 0.4, 0.5, 0.2, -3.0, 0.2, 0.1, 1.0, 1e-9, 0.0, 0.9, 0.1, 0.0, 0.3, 5.0)
	f.Add(uint8(0), 0.4, 0.5, 0.2, -3.0, 0.2, 1e6, 1.0, 0.0, -1e-12, 1.0, 0.0, 0.0, 0.0, 1e18)
	hull := must(NewConvex([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.7, 0.7, 0.7}}, 0))
	f.Fuzz(func(t *testing.T, k uint8, s1, s2, s3, ox, oy, oz, dx, dy, dz, qw, qx, qy, qz, max float64) {
		s := Shape{Kind: Kind(k % 6), Size: mgl64.Vec3{2 * s1, 2 * s2, 2 * s3}, Radius: s1, Length: 2 * s2}
		if s.Kind == Convex {
			s.Hull = hull.Hull
		}
		p := Pose{Pos: mgl64.Vec3{0.1, -0.2, 0.3}, Rot: mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}}
		o, d := mgl64.Vec3{ox, oy, oz}, mgl64.Vec3{dx, dy, dz}
		h, ok := Raycast(s, p, o, d, max)
		if !ok {
			return
		}
		if !(h.Dist >= 0 && h.Dist <= max) || !num3(h.Point) || !num3(h.Normal) {
			t.Fatalf("hit %+v: want 0 ≤ Dist ≤ %v and finite", h, max)
		}
		if l := h.Normal.Len(); math.Abs(l-1) > 1e-9 {
			t.Fatalf("normal %v has length %v", h.Normal, l)
		}
		u := d.Normalize()
		scale := 1 + o.Len() + h.Dist + math.Abs(s1) + math.Abs(s2) + math.Abs(s3)
		if h.Point.Sub(o.Add(u.Mul(h.Dist))).Len() > 1e-9*scale {
			t.Fatalf("point %v is not on the ray at %v", h.Point, h.Dist)
		}
		if h.Dist > 0 && h.Normal.Dot(u) > 1e-9 {
			t.Fatalf("entry normal %v faces along the ray %v", h.Normal, u)
		}
		if h.Dist > 0 && s.Kind != Convex && s.Validate() == nil && p.Validate() == nil {
			if sd := signedDist(s, p, h.Point); math.Abs(sd) > 1e-6*scale {
				t.Fatalf("%v: point %v is %g m off the surface", s.Kind, h.Point, sd)
			}
		}
	})
}

func num3(v mgl64.Vec3) bool {
	return !math.IsNaN(v[0]+v[1]+v[2]) && !math.IsInf(v[0]+v[1]+v[2], 0)
}

// AABB.Ray: the slab test's entry distance, 0 from inside, parallel rays
// inside and outside a slab, maxDist, and the empty box of Bounds.
func TestAABBRay(t *testing.T) {
	b := AABB{Min: mgl64.Vec3{-1, -1, 0}, Max: mgl64.Vec3{1, 1, 2}}
	check := func(what string, o, d mgl64.Vec3, max, want float64, wantOK bool) {
		t.Helper()
		got, ok := b.Ray(o, d, max)
		if ok != wantOK || (ok && got != want) {
			t.Errorf("%s: %v %v, want %v %v", what, got, ok, want, wantOK)
		}
	}
	check("down onto the top", mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0, 0, -1}, 10, 3, true)
	check("short of it", mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0, 0, -1}, 2.9, 0, false)
	check("inside", mgl64.Vec3{0.5, 0, 1}, mgl64.Vec3{0, 0, -1}, 10, 0, true)
	check("parallel within the slab", mgl64.Vec3{-5, 0.5, 1}, mgl64.Vec3{1, 0, 0}, 10, 4, true)
	check("parallel outside the slab", mgl64.Vec3{-5, 1.5, 1}, mgl64.Vec3{1, 0, 0}, 10, 0, false)
	check("behind", mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0, 0, 1}, 10, 0, false)
	empty := Shape{Kind: Sphere, Radius: -1}.Bounds(IdentityPose(), 0)
	if _, ok := empty.Ray(mgl64.Vec3{}, mgl64.Vec3{0, 0, 1}, math.Inf(1)); ok {
		t.Error("the empty box of an invalid shape was hit")
	}
}

// BoundingRadius holds the shape: every surface point a ray finds from
// outside lies within it of the shape's origin (to rounding).
func TestBoundingRadius(t *testing.T) {
	hull := must(NewConvex([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.7, 0.7, 0.7}}, 0))
	shapes := []Shape{must(NewSphere(0.3)), must(NewBoxSize(mgl64.Vec3{0.4, 0.3, 0.2})), must(NewCapsuleLength(0.1, 0.6)), must(NewCylinderLength(0.2, 0.5)), hull}
	want := []float64{0.3, math.Sqrt(0.04 + 0.0225 + 0.01), 0.4, math.Hypot(0.2, 0.25), math.Sqrt(3 * 0.49)}
	r := rand.New(rand.NewSource(5))
	for i, s := range shapes {
		rad := s.BoundingRadius()
		assertNear(t, want[i], rad, 1e-15, s.Kind.String()+" BoundingRadius")
		for k := 0; k < 500; k++ {
			d := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			h, ok := Raycast(s, IdentityPose(), d.Normalize().Mul(3), d.Mul(-1).Add(mgl64.Vec3{0.1 * r.NormFloat64(), 0.1 * r.NormFloat64(), 0}), math.Inf(1))
			if ok && h.Point.Len() > rad*(1+1e-12) {
				t.Fatalf("%v: hit %v is %v from the origin, radius %v", s.Kind, h.Point, h.Point.Len(), rad)
			}
		}
	}
	if !math.IsInf(NewPlane().BoundingRadius(), 1) || (Shape{Kind: Box}).BoundingRadius() != 0 {
		t.Error("plane: want +Inf; invalid box: want 0")
	}
}

// BenchmarkRaycast: one ray against each kind at a turned pose, hitting.
func BenchmarkRaycast(b *testing.B) {
	hull := cubeHull(b, mgl64.Vec3{0.4, 0.4, 0.4})
	for _, s := range []Shape{NewPlane(), must(NewSphere(0.2)), must(NewBoxSize(mgl64.Vec3{0.4, 0.3, 0.2})), must(NewCapsuleLength(0.1, 0.3)), must(NewCylinderLength(0.15, 0.3)), hull} {
		b.Run(s.Kind.String(), func(b *testing.B) {
			p := atRot(0, 0, 0, 0.4, mgl64.Vec3{1, 2, 3})
			o, d := mgl64.Vec3{0.03, 0.02, 2}, mgl64.Vec3{0.01, 0, -1}
			if _, ok := Raycast(s, p, o, d, 10); !ok {
				b.Fatal("no hit")
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Raycast(s, p, o, d, 10)
			}
		})
	}
}
