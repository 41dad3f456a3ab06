package contact

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/mesh"
)

// TestEveryPairCollides: for every pair of kinds Supported accepts, Collide
// finds the contact of two shapes overlapping by 1 cm, in both orders; for
// the pairs it refuses (two static-only kinds) it returns nothing. The
// shapes stand upright with flat or round ends facing each other, so the
// exact answer is known: the deepest point's gap is −0.01 m and every
// normal is +z from the lower shape to the upper one. The five kinds a
// body can move with (sphere, box, capsule, cylinder, convex) rest 1 cm
// into each static-only kind (a plane, a flat two-triangle mesh and a flat
// 3 × 3 heightfield, all at z = 0) and into each other. Every pair,
// GJK and EPA's included, gives −0.01 m and +z to 1e-15 here (the faces
// meet face to face, where EPA's polytope ends on their own planes); the
// tolerance, 1e-12 m and 1e-12 in the normal, is room for rounding.
func TestEveryPairCollides(t *testing.T) {
	hex := make([]mgl64.Vec3, 0, 12) // a hexagonal prism, r = 0.07 m, 0.12 m tall
	for i := 0; i < 6; i++ {
		a := float64(i) * math.Pi / 3
		for _, z := range []float64{-0.06, 0.06} {
			hex = append(hex, mgl64.Vec3{0.07 * math.Cos(a), 0.07 * math.Sin(a), z})
		}
	}
	// Each moving shape and its half height (the extent along ±z).
	movers := []struct {
		s    Shape
		half float64
	}{
		{must(NewSphere(0.1)), 0.1},
		{must(NewBoxSize(mgl64.Vec3{0.3, 0.2, 0.1})), 0.05},
		{must(NewCapsuleLength(0.05, 0.2)), 0.15},
		{must(NewCylinderLength(0.08, 0.15)), 0.075},
		{must(NewConvex(hex, 0)), 0.06},
	}
	tri := must(NewTriMesh(&mesh.Mesh{
		Vertices:  []mgl64.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
		Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
	}))
	field := must(NewHeightfield(3, 3, 1, 1, make([]float64, 9)))
	floors := []Shape{NewPlane(), tri, field}

	const depth, tol = 0.01, 1e-12
	check := func(name string, a Shape, pa Pose, b Shape, pb Pose) {
		t.Helper()
		ab := Collide(nil, a, pa, b, pb, 0)
		ba := Collide(nil, b, pb, a, pa, 0)
		if len(ab) == 0 || len(ba) != len(ab) {
			t.Errorf("%s: %d points, %d in the other order", name, len(ab), len(ba))
			return
		}
		deepest := math.Inf(1)
		for i, p := range ab {
			deepest = math.Min(deepest, p.Gap)
			if p.Normal.Sub(mgl64.Vec3{0, 0, 1}).Len() > tol || ba[i].Normal.Add(mgl64.Vec3{0, 0, 1}).Len() > tol {
				t.Errorf("%s: point %d normal %v (the other order %v), want +z", name, i, p.Normal, ba[i].Normal)
			}
			if p.Gap < -depth-tol {
				t.Errorf("%s: point %d gap %.12g below −%g m", name, i, p.Gap, depth)
			}
		}
		if math.Abs(deepest+depth) > tol {
			t.Errorf("%s: deepest gap %.12g m, want −%g", name, deepest, depth)
		}
	}
	for _, f := range floors {
		for _, m := range movers {
			// Off the origin, inside one triangle of the mesh and of the
			// heightfield's cell.
			check(f.Kind.String()+"–"+m.s.Kind.String(), f, at(0, 0, 0), m.s, at(0.3, -0.2, m.half-depth))
		}
		for _, g := range floors {
			if Supported(f.Kind, g.Kind) {
				t.Errorf("%v–%v supported", f.Kind, g.Kind)
			}
			if pts := Collide(nil, f, at(0, 0, 0), g, at(0, 0, -0.5), 0); len(pts) != 0 {
				t.Errorf("%v–%v: %d points from an unsupported pair", f.Kind, g.Kind, len(pts))
			}
		}
	}
	for _, a := range movers {
		for _, b := range movers {
			if !Supported(a.s.Kind, b.s.Kind) {
				t.Errorf("%v–%v not supported", a.s.Kind, b.s.Kind)
			}
			check(a.s.Kind.String()+"–"+b.s.Kind.String(), a.s, at(0, 0, 0), b.s, at(0, 0, a.half+b.half-depth))
		}
	}
}
