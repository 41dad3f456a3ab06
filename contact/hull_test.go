package contact

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/mesh"
)

// cubeHull returns the hull of the 8 corners of a box of full size s, in
// box vertex order (BoxVertex), so hull vertex i is box vertex i.
func cubeHull(t testing.TB, s mgl64.Vec3) Shape {
	t.Helper()
	box := Shape{Kind: Box, Size: s}
	pts := make([]mgl64.Vec3, 8)
	for i := range pts {
		pts[i] = box.BoxVertex(i)
	}
	c, err := NewConvex(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// icosphere returns the vertices of mesh.Icosphere(n, r).
func icosphere(r float64, n int) []mgl64.Vec3 {
	m, err := mesh.Icosphere(n, r)
	if err != nil {
		panic(err)
	}
	return m.Vertices
}

func TestNewConvexErrors(t *testing.T) {
	if _, err := NewConvex([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, 0); !errors.Is(err, mesh.ErrCoplanar) {
		t.Errorf("coplanar points: %v, want ErrCoplanar", err)
	}
	if _, err := NewConvexHull(nil); err == nil || !strings.Contains(err.Error(), "convex: Hull") {
		t.Errorf("nil hull: %v", err)
	}
	err := Shape{Kind: Convex}.Validate()
	if err == nil || !strings.Contains(err.Error(), "convex: Hull: must be set") {
		t.Errorf("Convex without Hull: %v", err)
	}
	if got := Collide(nil, Shape{Kind: Convex}, IdentityPose(), NewPlane(), IdentityPose(), 1); len(got) != 0 {
		t.Errorf("invalid convex collided: %v", got)
	}
}

// The hull's support mapping is the vertex scan's for small hulls and the
// graph climb for large ones: both must give the farthest vertex.
func TestHullSupportClimb(t *testing.T) {
	ico := must(NewConvex(icosphere(1, 3), 0)) // 642 vertices: the climb
	h := ico.Hull
	if n := len(h.mesh.Vertices); n != 642 {
		t.Fatalf("icosphere hull has %d vertices, want 642", n)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		d := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		best := math.Inf(-1)
		for _, v := range h.mesh.Vertices {
			best = math.Max(best, v.Dot(d))
		}
		if got := h.mesh.Vertices[h.support(d)].Dot(d); got != best {
			t.Fatalf("support along %v: %v, scan %v", d, got, best)
		}
	}
}

// The AABB of a posed hull is the box of its posed vertices: a cube hull
// gives Box's bounds (to rounding).
func TestConvexBounds(t *testing.T) {
	size := mgl64.Vec3{0.4, 0.2, 0.1}
	c := cubeHull(t, size)
	p := atRot(1, 2, 3, 0.7, mgl64.Vec3{1, 2, 3})
	got, want := c.Bounds(p, 0.01), Shape{Kind: Box, Size: size}.Bounds(p, 0.01)
	assertVec(t, want.Min, got.Min, 1e-15, "Min")
	assertVec(t, want.Max, got.Max, 1e-15, "Max")
}

// A hull of a box's 8 corners gives the box's contacts: against a plane
// the same points bit for bit (the hull's vertices are the box's, in the
// same order), against another box (both hulls) the same points, gaps and
// normals to 1e-12 m — the hull clips in world coordinates, box–box in
// the reference face's, so rounding differs — for a box resting on
// another turned by a multiple of 90° about the normal, shifted and tilted
// (the clipped polygon has at most 4 corners). Turned by any other angle
// the polygon has up to 8 corners, and which 4 of them reduce4 keeps
// depends on the polygon's starting corner (box–box starts at a fixed
// corner of the incident box, the hull at its face loop's first vertex):
// then the same number of points, the same normal and the same deepest gap.
func TestCubeHullMatchesBox(t *testing.T) {
	size := mgl64.Vec3{0.4, 0.3, 0.2}
	box := Shape{Kind: Box, Size: size}
	hull := cubeHull(t, size)
	r := rand.New(rand.NewPCG(3, 4))
	plane := NewPlane()
	nFace := 0
	for i := 0; i < 400; i++ {
		pb := Pose{Pos: mgl64.Vec3{r.Float64(), r.Float64(), 0.05 + 0.2*r.Float64()}, Rot: randQuat(r)}
		want := Collide(nil, plane, IdentityPose(), box, pb, 0.02)
		got := Collide(nil, plane, IdentityPose(), hull, pb, 0.02)
		if len(got) != len(want) {
			t.Fatalf("plane %d: %d points, box %d", i, len(got), len(want))
		}
		for k := range got {
			if got[k] != want[k] {
				t.Fatalf("plane %d point %d: %+v, box %+v", i, k, got[k], want[k])
			}
		}
		// Box on box: the upper one resting near flat, shifted and turned.
		tilt := 0.0
		if i%2 == 1 {
			tilt = 0.02 * r.NormFloat64()
		}
		turn := float64(r.IntN(4)) * math.Pi / 2
		aligned := i%4 < 2
		if !aligned {
			turn = r.Float64() * math.Pi
		}
		rot := mgl64.QuatRotate(turn, mgl64.Vec3{0, 0, 1}).Mul(mgl64.QuatRotate(tilt, mgl64.Vec3{1, 0, 0}))
		pa := IdentityPose()
		pu := Pose{Pos: mgl64.Vec3{0.2 * r.NormFloat64(), 0.2 * r.NormFloat64(), 0.2 + 0.004*r.NormFloat64()}, Rot: rot}
		want = Collide(nil, box, pa, box, pu, 0.01)
		got = Collide(nil, hull, pa, hull, pu, 0.01)
		if len(want) == 0 && len(got) == 1 && got[0].Gap > 0 {
			// Apart by less than the margin with the upper box's face
			// clipped away over the lower one's edge: box–box, having
			// chosen the face axis, finds no point; the hull falls back
			// to GJK's single point (a speculative contact).
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("box–box %d: %d points, box %d\n%+v\n%+v", i, len(got), len(want), got, want)
		}
		if len(got) > 1 {
			nFace++
		}
		if len(want) == 0 {
			continue
		}
		if want[0].Key.A&0xffff0000 != FeatureFace && want[0].Key.B&0xffff0000 != FeatureFace {
			// Box–box edge on edge: SAT's separation along the edge axis,
			// a lower bound of the distance when apart; GJK's is exact.
			if got[0].Gap < want[0].Gap-1e-12 {
				t.Fatalf("box–box %d: edge gap %v below SAT's %v", i, got[0].Gap, want[0].Gap)
			}
			continue
		}
		if !aligned {
			gmin, wmin := math.Inf(1), math.Inf(1)
			for k := range got {
				gmin, wmin = math.Min(gmin, got[k].Gap), math.Min(wmin, want[k].Gap)
				if got[k].Normal.Sub(want[0].Normal).Len() > 1e-12 {
					t.Fatalf("box–box %d: normal %v, box %v", i, got[k].Normal, want[0].Normal)
				}
			}
			if math.Abs(gmin-wmin) > 1e-12 {
				t.Fatalf("box–box %d: deepest gap %v, box %v", i, gmin, wmin)
			}
			continue
		}
		matched := make([]bool, len(want))
		for _, g := range got {
			ok := false
			for k, w := range want {
				if !matched[k] && g.Pos.Sub(w.Pos).Len() <= 1e-12 && math.Abs(g.Gap-w.Gap) <= 1e-12 && g.Normal.Sub(w.Normal).Len() <= 1e-12 {
					matched[k], ok = true, true
					break
				}
			}
			if !ok {
				t.Fatalf("box–box %d: hull point %+v not among the box's %+v", i, g, want)
			}
		}
	}
	if nFace < 100 {
		t.Errorf("only %d of 400 box–box cases were face contacts", nFace)
	}
}

// A hull resting on a hull keeps its keys while it jitters by 1e-9 m and
// 1e-9 rad, as box–box does.
func TestConvexKeysPersist(t *testing.T) {
	base := must(NewConvex(icosphere(0.5, 0), 0)) // icosahedron: triangles
	top := cubeHull(t, mgl64.Vec3{0.2, 0.2, 0.2})
	pa := IdentityPose()
	n := Collide(nil, top, IdentityPose(), base, pa, 0)
	_ = n
	// Put the cube's bottom face on the icosahedron's top face.
	h := base.Hull.mesh
	f := base.Hull.face(mgl64.Vec3{0, 0, 1})
	nrm := h.Normals[f]
	q := mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, nrm)
	var c mgl64.Vec3
	for _, v := range h.Faces[f] {
		c = c.Add(h.Vertices[v])
	}
	c = c.Mul(1.0 / 3)
	pt := Pose{Pos: c.Add(nrm.Mul(0.1 - 1e-4)), Rot: q}
	ref := Collide(nil, base, pa, top, pt, 1e-3)
	if len(ref) < 3 {
		t.Fatalf("cube on a triangle face: %d points, want ≥ 3: %+v", len(ref), ref)
	}
	for _, p := range ref {
		assertNear(t, -1e-4, p.Gap, 1e-12, "gap")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100; i++ {
		pj := Pose{Pos: pt.Pos.Add(mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Mul(1e-9)),
			Rot: mgl64.QuatRotate(1e-9*r.NormFloat64(), mgl64.Vec3{1, 0, 0}).Mul(pt.Rot)}
		got := Collide(nil, base, pa, top, pj, 1e-3)
		if len(got) != len(ref) {
			t.Fatalf("jitter %d: %d points, want %d", i, len(got), len(ref))
		}
		for k := range got {
			if got[k].Key != ref[k].Key {
				t.Fatalf("jitter %d point %d: key %v, want %v", i, k, got[k].Key, ref[k].Key)
			}
		}
	}
}

// Every convex pair: points on both surfaces (signedDist of the two
// surface points within 1e-9 of 0 for the analytic shapes), the mirror
// image when swapped, gaps matching Distance's for separated pairs.
func TestConvexPairsAgainstDistance(t *testing.T) {
	hull := must(NewConvex(icosphere(0.3, 1), 0))
	others := []Shape{
		{Kind: Box, Size: mgl64.Vec3{0.4, 0.3, 0.2}},
		{Kind: Sphere, Radius: 0.2},
		{Kind: Capsule, Radius: 0.1, Length: 0.4},
		{Kind: Cylinder, Radius: 0.2, Length: 0.3},
		cubeHull(t, mgl64.Vec3{0.3, 0.2, 0.4}),
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, o := range others {
		for i := 0; i < 300; i++ {
			pa := Pose{Pos: mgl64.Vec3{0, 0, 0}, Rot: randQuat(r)}
			dir := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize()
			pb := Pose{Pos: dir.Mul(0.3 + 0.4*r.Float64()), Rot: randQuat(r)}
			sep, ok := Distance(o, pa, hull, pb)
			if !ok {
				t.Fatal("Distance refused")
			}
			ab := Collide(nil, o, pa, hull, pb, 0.05)
			ba := Collide(nil, hull, pb, o, pa, 0.05)
			if len(ab) != len(ba) || len(ab) > 4 {
				t.Fatalf("%v: %d points, swapped %d", o.Kind, len(ab), len(ba))
			}
			if (sep.Gap <= 0.05) != (len(ab) > 0) {
				t.Fatalf("%v: Distance gap %v but %d points", o.Kind, sep.Gap, len(ab))
			}
			minG := math.Inf(1)
			for k, p := range ab {
				q := ba[k]
				if p.Pos != q.Pos || p.Gap != q.Gap || p.Normal != q.Normal.Mul(-1) || p.Key != (Key{q.Key.B, q.Key.A}) {
					t.Fatalf("%v: point %d not mirrored: %+v vs %+v", o.Kind, k, p, q)
				}
				if !num.FiniteVec(p.Pos) || math.Abs(p.Normal.Len()-1) > 1e-12 || p.Gap > 0.05 {
					t.Fatalf("%v: bad point %+v", o.Kind, p)
				}
				minG = math.Min(minG, p.Gap)
			}
			// The deepest point is the true gap: to 1e-9 when the single
			// point is used; a face manifold is used when its face's
			// separation is within boxTol·extent + 5 % of the gap
			// (box–box's bias towards faces) and its deepest point within
			// manifoldRel·extent of the gap.
			if tol := (boxTol+manifoldRel)*0.4 + edgeRelTol*math.Abs(sep.Gap); len(ab) > 0 && math.Abs(minG-sep.Gap) > tol {
				t.Fatalf("%v: deepest gap %v, Distance %v", o.Kind, minG, sep.Gap)
			}
		}
	}
}

// FuzzCollideConvex: a hull of 4–8 fuzzed points against each kind at any
// finite pose never panics and gives finite points with unit normals,
// Gap ≤ margin, at most 4 points, and the mirror image when swapped.
func FuzzCollideConvex(f *testing.F) {
	f.Add(uint8(0), 0.1, 0.2, 0.3, 0.5, -0.1, 0.2, 0.0, 0.1, 0.3, 1.0, 0.0, 0.0, 0.0, 0.05)
	f.Add(uint8(1), 0.3, 0.2, 0.1, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1)
	f.Add(uint8(5), 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.1, 0.2, 0.25, 0.7, 0.7, 0.0, 0.0, 0.01)
	f.Add(uint8(4), 1e-6, 1e3, 2.0, 1e-3, 0.5, 0.5, 1e3, -2.0, 3.0, 0.3, -0.2, 0.9, 0.1, 1e6)
	f.Add(uint8(3), 0.2, 0.1, 0.05, 0.2, 0.1, 0.05, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.1)
	f.Fuzz(func(t *testing.T, kb uint8, a1, a2, a3, b1, b2, b3, x, y, z, qw, qx, qy, qz, margin float64) {
		for _, v := range []float64{a1, a2, a3, b1, b2, b3, x, y, z, qw, qx, qy, qz, margin} {
			if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e6 {
				return
			}
		}
		pts := []mgl64.Vec3{{a1, 0, 0}, {0, a2, 0}, {0, 0, a3}, {-b1, 0, 0}, {0, -b2, 0}, {0, 0, -b3}, {a1, a2, a3}, {-b1, b2, -a3}}
		hull, err := NewConvex(pts, 0)
		if err != nil {
			return
		}
		var o Shape
		switch kb % 6 {
		case 0:
			o = NewPlane()
		case 1:
			o = Shape{Kind: Box, Size: mgl64.Vec3{math.Abs(b1), math.Abs(b2), math.Abs(b3)}}
		case 2:
			o = Shape{Kind: Sphere, Radius: math.Abs(b1)}
		case 3:
			o = Shape{Kind: Capsule, Radius: math.Abs(b1), Length: math.Abs(b2)}
		case 4:
			o = Shape{Kind: Cylinder, Radius: math.Abs(b1), Length: math.Abs(b2)}
		case 5:
			o = must(NewConvex(icosphere(0.2, 1), 0))
		}
		if o.Validate() != nil {
			return
		}
		qb := mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
		if qb.Len() < 1e-6 {
			return
		}
		pa := Pose{Pos: mgl64.Vec3{0.1, -0.2, 0}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{0.6, 0, 0.8})}
		pb := Pose{Pos: mgl64.Vec3{x, y, z}, Rot: qb.Normalize()}
		checkCollide(t, o, pa, hull, pb, margin, 4)
	})
}

func BenchmarkCollideConvexConvex(b *testing.B) {
	ico := must(NewConvex(icosphere(0.1, 2), 0)) // 162 vertices
	cube := cubeHull(b, mgl64.Vec3{0.2, 0.2, 0.2})
	for _, bc := range []struct {
		name string
		a, c Shape
		pb   Pose
	}{
		{"cube-on-cube", cube, cube, atRot(0.03, 0.02, 0.1995, 0.3, mgl64.Vec3{0, 0, 1})},
		{"ico162-on-cube", cube, ico, at(0.01, 0.02, 0.1995)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]Point, 0, MaxPoints)
			pa := IdentityPose()
			n := len(Collide(dst, bc.a, pa, bc.c, bc.pb, 0.01))
			if n == 0 {
				b.Fatal("no contact")
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dst = Collide(dst[:0], bc.a, pa, bc.c, bc.pb, 0.01)
			}
			b.ReportMetric(float64(n), "points")
		})
	}
}

func BenchmarkCollideConvexPlane(b *testing.B) {
	ico := must(NewConvex(icosphere(0.1, 2), 0))
	cube := cubeHull(b, mgl64.Vec3{0.2, 0.2, 0.2})
	for _, bc := range []struct {
		name string
		c    Shape
		pb   Pose
	}{
		{"cube", cube, atRot(0, 0, 0.0995, 0.3, mgl64.Vec3{0, 0, 1})},
		{"ico162", ico, at(0, 0, 0.0995)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dst := make([]Point, 0, MaxPoints)
			plane := NewPlane()
			pa := IdentityPose()
			if len(Collide(dst, plane, pa, bc.c, bc.pb, 0.01)) == 0 {
				b.Fatal("no contact")
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dst = Collide(dst[:0], plane, pa, bc.c, bc.pb, 0.01)
			}
		})
	}
}

// A capsule lying on a cube hull's face, partly beyond its edge, gives the
// two points of box–capsule (its side line clipped to the face) to 1e-12
// m, never one point twice. Where box–capsule's search for the nearest
// point lands beyond the face (the capsule crosses an edge) it gives that
// single point; the hull still clips the segment to the face: 2 points,
// the deepest of them as deep.
func TestConvexCapsuleLyingMatchesBox(t *testing.T) {
	size := mgl64.Vec3{0.4, 0.3, 0.2}
	box := Shape{Kind: Box, Size: size}
	hull := cubeHull(t, size)
	cp := Shape{Kind: Capsule, Radius: 0.05, Length: 0.4}
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 200; i++ {
		turn := r.Float64() * math.Pi
		rot := mgl64.QuatRotate(turn, mgl64.Vec3{0, 0, 1}).Mul(mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}))
		pc := Pose{Pos: mgl64.Vec3{0.3 * r.NormFloat64(), 0.2 * r.NormFloat64(), 0.15 - 0.001*r.Float64()}, Rot: rot}
		want := Collide(nil, box, IdentityPose(), cp, pc, 0.01)
		got := Collide(nil, hull, IdentityPose(), cp, pc, 0.01)
		if len(want) == 1 && len(got) == 2 {
			if g := math.Min(got[0].Gap, got[1].Gap); math.Abs(g-want[0].Gap) > 1e-9 {
				t.Fatalf("case %d: deepest gap %v, box %v", i, g, want[0].Gap)
			}
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("case %d: %d points, box %d\n%+v\n%+v", i, len(got), len(want), got, want)
		}
		tol := 1e-12
		if len(got) == 1 {
			tol = 1e-9 // a single closest point: GJK's tolerance against box–capsule's search
		}
		for k := range got {
			if got[k].Pos.Sub(want[k].Pos).Len() > tol || math.Abs(got[k].Gap-want[k].Gap) > tol {
				t.Fatalf("case %d point %d: %+v, box %+v", i, k, got[k], want[k])
			}
		}
		if len(got) == 2 && got[0].Pos.Sub(got[1].Pos).Len() < 1e-9 {
			t.Fatalf("case %d: the same point twice: %+v", i, got)
		}
	}
}

// Plane against a large hull fills the vertex graph from the deepest
// vertex: it finds exactly the vertices a scan finds within margin (all
// of them when at most 4, else 4 of them including the deepest to
// reduce4's tolerance), for a
// 642-vertex icosphere at random poses and depths.
func TestPlaneConvexFillMatchesScan(t *testing.T) {
	ico := must(NewConvex(icosphere(0.1, 3), 0))
	vs := ico.Hull.mesh.Vertices
	r := rand.New(rand.NewPCG(11, 12))
	plane := NewPlane()
	for i := 0; i < 300; i++ {
		margin := 0.002 * r.Float64()
		pb := Pose{Pos: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), 0.1 + 0.003*r.NormFloat64()}, Rot: randQuat(r)}
		var want []uint32
		deepest, dg := uint32(0), math.Inf(1)
		for k, v := range vs {
			if g := pb.Apply(v)[2]; g <= margin {
				want = append(want, FeatureVertex|uint32(k))
				if g < dg {
					deepest, dg = FeatureVertex|uint32(k), g
				}
			}
		}
		got := Collide(nil, plane, IdentityPose(), ico, pb, margin)
		if len(want) <= 4 {
			if len(got) != len(want) {
				t.Fatalf("case %d: %d points, scan %d", i, len(got), len(want))
			}
			for k := range got {
				if got[k].Key.B != want[k] {
					t.Fatalf("case %d: vertex %x, scan %x", i, got[k].Key.B, want[k])
				}
			}
			continue
		}
		if len(got) != 4 {
			t.Fatalf("case %d: %d points of %d within margin, want 4", i, len(got), len(want))
		}
		// reduce4's first point: the first in vertex order within boxTol of
		// the deepest (1e-4 m here), so that rounding does not swap it.
		found := false
		for _, p := range got {
			found = found || p.Gap <= dg+boxTol*ico.Hull.extent
		}
		if !found {
			t.Fatalf("case %d: the deepest vertex %x (gap %v) is not among %+v", i, deepest, dg, got)
		}
	}
}

// The bounds of a large hull (support climbs in the local frame) are those
// of its posed vertices (a scan of world coordinates), to 1e-15 m: two
// vertices within rounding of the extreme may trade places.
func TestConvexBoundsClimb(t *testing.T) {
	ico := must(NewConvex(icosphere(0.3, 3), 0))
	r := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < 100; i++ {
		p := Pose{Pos: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}, Rot: randQuat(r)}
		got := ico.Bounds(p, 0.01)
		lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
		hi := lo.Mul(-1)
		f, _ := frameOf(p)
		for _, v := range ico.Hull.mesh.Vertices {
			w := f.toWorld(v)
			for k := 0; k < 3; k++ {
				lo[k], hi[k] = math.Min(lo[k], w[k]), math.Max(hi[k], w[k])
			}
		}
		m := mgl64.Vec3{0.01, 0.01, 0.01}
		if got.Min.Sub(lo.Sub(m)).Len() > 1e-15 || got.Max.Sub(hi.Add(m)).Len() > 1e-15 {
			t.Fatalf("pose %d: bounds %v, scan %v %v", i, got, lo.Sub(m), hi.Add(m))
		}
	}
}

// A hull whose points lie far from its frame's origin (a mesh in a CAD
// file's coordinates) collides as the same hull centred: its tolerances
// scale with its size, not with its distance from the origin. Points,
// gaps and normals agree to 1e-12 m (the rounding of coordinates of 100 m).
func TestConvexOffsetHull(t *testing.T) {
	off := mgl64.Vec3{100, -50, 20}
	pts := icosphere(0.2, 1)
	far := make([]mgl64.Vec3, len(pts))
	for i, p := range pts {
		far[i] = p.Add(off)
	}
	near, farS := must(NewConvex(pts, 0)), must(NewConvex(far, 0))
	assertNear(t, near.Hull.extent, farS.Hull.extent, 1e-13, "extent")
	box := Shape{Kind: Box, Size: mgl64.Vec3{0.6, 0.6, 0.2}}
	r := rand.New(rand.NewPCG(15, 16))
	for i := 0; i < 100; i++ {
		rot := randQuat(r)
		p := Pose{Pos: mgl64.Vec3{0.1 * r.NormFloat64(), 0.1 * r.NormFloat64(), 0.29 + 0.02*r.Float64()}, Rot: rot}
		pf := Pose{Pos: p.Pos.Sub(rot.Rotate(off)), Rot: rot}
		want := Collide(nil, box, IdentityPose(), near, p, 0.01)
		got := Collide(nil, box, IdentityPose(), farS, pf, 0.01)
		if len(got) != len(want) {
			t.Fatalf("case %d: %d points, centred %d", i, len(got), len(want))
		}
		for k := range got {
			if got[k].Pos.Sub(want[k].Pos).Len() > 1e-12 || math.Abs(got[k].Gap-want[k].Gap) > 1e-12 || got[k].Normal.Sub(want[k].Normal).Len() > 1e-12 {
				t.Fatalf("case %d point %d: %+v, centred %+v", i, k, got[k], want[k])
			}
		}
	}
}

// On a large hull the best-aligned face is found by climbing from the
// faces around the support vertex; on an icosphere (1280 faces) it is the
// scan's answer for every one of 2000 random directions.
func TestHullFaceClimb(t *testing.T) {
	h := must(NewConvex(icosphere(1, 3), 0)).Hull
	r := rand.New(rand.NewPCG(17, 18))
	for i := 0; i < 2000; i++ {
		d := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		best, bd := 0, math.Inf(-1)
		for f, n := range h.mesh.Normals {
			if x := n.Dot(d); x > bd {
				best, bd = f, x
			}
		}
		if got := h.face(d); h.mesh.Normals[got].Dot(d) != bd {
			t.Fatalf("direction %v: face %d (%v), scan %d (%v)", d, got, h.mesh.Normals[got].Dot(d), best, bd)
		}
	}
}

// A 12-gon prism hull (vertex radius 0.1 m, 0.2 m long along y) falling
// onto the plane at 3 m/s while turning at 8 rad/s about y, at h = 1/60
// s, the look-ahead its sweep h (|v| + |ω| r): Collide keeps 4 of the
// vertices within it spread by area, CollideApproach every vertex that
// closes within the step (8 here, 4 lines of 2: the landing of
// hull-off-edge.json), found here by brute force over the 24 vertices,
// and both halves of each line (the pose is symmetric about y = 0).
// With the look-ahead at the margin, CollideApproach is Collide, bit for
// bit; and with the shapes swapped it gives the same points, normals
// negated.
func TestCollideApproachPlaneConvex(t *testing.T) {
	const R, L, h, margin = 0.1, 0.2, 1.0 / 60, 0.005
	var pts []mgl64.Vec3
	for k := 0; k < 12; k++ {
		th := (15 + 30*float64(k)) * math.Pi / 180
		pts = append(pts, mgl64.Vec3{R * math.Cos(th), -L / 2, R * math.Sin(th)}, mgl64.Vec3{R * math.Cos(th), L / 2, R * math.Sin(th)})
	}
	prism, err := NewConvex(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	plane := NewPlane()
	rot := mgl64.QuatRotate(0.1, mgl64.Vec3{0, 1, 0})
	pose := Pose{Pos: mgl64.Vec3{0.2, 0, 0.0965 + 0.01}, Rot: rot}
	mv := Motion{V: mgl64.Vec3{0.46, 0, -3}, W: mgl64.Vec3{0, 8, 0}, Center: pose.Pos}
	look := margin + h*(mv.V.Len()+mv.W.Len()*R)
	ap := Approach{B: mv, H: h, Margin: margin}
	var want []uint32
	for i, p := range prism.Hull.Mesh().Vertices {
		w := pose.Pos.Add(rot.Rotate(p))
		g := w[2]
		x := w.Sub(mgl64.Vec3{0, 0, g / 2})
		if g <= look && (g <= margin || g+h*math.Min(0, mv.at(x)[2]) <= margin) {
			want = append(want, FeatureVertex|uint32(i))
		}
	}
	if len(want) != 8 {
		t.Fatalf("%d vertices close, the scene wants 8", len(want))
	}
	got := CollideApproach(nil, plane, Pose{Rot: mgl64.QuatIdent()}, prism, pose, look, ap)
	var keys []uint32
	for _, p := range got {
		keys = append(keys, p.Key.B)
	}
	if len(got) != len(want) || !equalKeys(keys, want) {
		t.Errorf("CollideApproach kept %x, want every closing vertex %x", keys, want)
	}
	if n := len(Collide(nil, plane, Pose{Rot: mgl64.QuatIdent()}, prism, pose, look)); n != 4 {
		t.Errorf("Collide: %d points, want 4 (the rule without the approach)", n)
	}
	sw := CollideApproach(nil, prism, pose, plane, Pose{Rot: mgl64.QuatIdent()}, look, Approach{A: mv, H: h, Margin: margin})
	if len(sw) != len(got) {
		t.Fatalf("swapped: %d points, want %d", len(sw), len(got))
	}
	for i := range sw {
		if sw[i].Pos != got[i].Pos || sw[i].Normal != got[i].Normal.Mul(-1) || sw[i].Key != (Key{got[i].Key.B, got[i].Key.A}) {
			t.Errorf("swapped point %d: %+v, want %+v mirrored", i, sw[i], got[i])
		}
	}
	// At rest on a face, within the margin: Collide's points.
	rest := Pose{Pos: mgl64.Vec3{0, 0, R*math.Cos(15*math.Pi/180) + 1e-4}, Rot: mgl64.QuatIdent()}
	a := CollideApproach(nil, plane, Pose{Rot: mgl64.QuatIdent()}, prism, rest, margin, ap)
	b := Collide(nil, plane, Pose{Rot: mgl64.QuatIdent()}, prism, rest, margin)
	if len(a) != 4 || len(a) != len(b) {
		t.Fatalf("resting: %d and %d points, want 4", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("resting point %d: %+v, Collide %+v", i, a[i], b[i])
		}
	}
}

// equalKeys reports whether a and b hold the same keys, in any order.
func equalKeys(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[uint32]int{}
	for _, k := range a {
		seen[k]++
	}
	for _, k := range b {
		seen[k]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
