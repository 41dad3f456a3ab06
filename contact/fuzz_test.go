package contact

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// FuzzCollide: any valid shapes at any finite poses give finite points
// with unit normals, Gap ≤ margin, at most 8 points, and the mirror image
// when the arguments are swapped. The seed corpus runs in plain go test.
func FuzzCollide(f *testing.F) {
	f.Add(uint8(1), uint8(1), 0.5, 0.4, 0.3, 0.2, 0.1, 0.3, 0.2, 0.9, 1.0, 0.1, 0.2, 0.3, 0.05)
	f.Add(uint8(0), uint8(4), 0.3, 0.1, 0.3, 0.1, 0.0, 0.0, 0.3, 0.7, 0.7, 0.0, 0.0, 0.0, 0.01)
	f.Add(uint8(3), uint8(1), 0.1, 0.5, 0.2, 0.3, 0.0, 0.1, 0.55, 1.0, 0.0, 1.0, 0.0, 0.0, 0.1)
	f.Add(uint8(2), uint8(3), 0.2, 0.0, 0.1, 0.4, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.1) // coincident centres
	f.Add(uint8(3), uint8(3), 0.2, 0.3, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.1) // coincident capsules
	f.Add(uint8(1), uint8(1), 0.5, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.1) // coincident boxes
	f.Add(uint8(1), uint8(2), 1e-6, 1e3, 1e-3, 5.0, 1e3, -2.0, 3.0, 0.3, -0.2, 0.9, 0.1, 0.2, 1e6)
	f.Fuzz(func(t *testing.T, ka, kb uint8, s1, s2, s3, s4, x, y, z, qw, qx, qy, qz, tilt, margin float64) {
		mk := func(k uint8, p, q, r float64) Shape {
			return Shape{Kind: Kind(k % 5), Size: mgl64.Vec3{2 * p, 2 * q, 2 * r}, Radius: p, Length: 2 * q}
		}
		a, b := mk(ka, s1, s2, s3), mk(kb, s4, s3, s2)
		if a.Validate() != nil || b.Validate() != nil || math.IsNaN(margin) {
			return
		}
		for _, v := range []float64{s1, s2, s3, s4, x, y, z, qw, qx, qy, qz, tilt, margin} {
			if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e6 {
				return
			}
		}
		qb := mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
		if qb.Len() < 1e-6 {
			return
		}
		pa := Pose{Pos: mgl64.Vec3{0.1, -0.2, 0}, Rot: mgl64.QuatRotate(tilt, mgl64.Vec3{0.6, 0, 0.8})}
		pb := Pose{Pos: mgl64.Vec3{x, y, z}, Rot: qb.Normalize()}
		checkCollide(t, a, pa, b, pb, margin, 8)
	})
}

// checkCollide runs Collide both ways and fails unless it gives at most
// most points, each finite with a unit normal and Gap ≤ margin, and the
// swapped call their exact mirror image.
func checkCollide(t *testing.T, a Shape, pa Pose, b Shape, pb Pose, margin float64, most int) {
	t.Helper()
	ab := Collide(nil, a, pa, b, pb, margin)
	ba := Collide(nil, b, pb, a, pa, margin)
	if len(ab) > most || len(ab) != len(ba) {
		t.Fatalf("%d points, reversed %d", len(ab), len(ba))
	}
	for i, p := range ab {
		if !num.FiniteVec(p.Pos) || !num.Finite(p.Gap) || !num.FiniteVec(p.Normal) {
			t.Fatalf("point %d not finite: %+v", i, p)
		}
		if math.Abs(p.Normal.Len()-1) > 1e-9 {
			t.Fatalf("point %d: |Normal| = %v", i, p.Normal.Len())
		}
		if p.Gap > margin {
			t.Fatalf("point %d: gap %v > margin %v", i, p.Gap, margin)
		}
		q := ba[i]
		if p.Pos != q.Pos || p.Gap != q.Gap || p.Normal != q.Normal.Mul(-1) || p.Key != (Key{q.Key.B, q.Key.A}) {
			t.Fatalf("point %d not mirrored: %+v vs %+v", i, p, q)
		}
	}
}

// FuzzCylinderPairs: a cylinder against any convex kind through Collide
// (GJK/EPA and the cylinder manifolds) and Distance: finite points, unit
// normals, Gap ≤ margin, at most MaxPoints, exact mirroring, and a finite
// Distance with a unit normal. The seeds are the degenerate cases:
// touching exactly, coincident, deep overlap, parallel faces and axes.
func FuzzCylinderPairs(f *testing.F) {
	f.Add(uint8(1), 0.1, 0.1, 0.5, 0.0, 0.0, 0.6, 1.0, 0.0, 0.0, 0.0, 0.01)         // standing on a box, touching
	f.Add(uint8(4), 0.1, 0.1, 0.1, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.01)         // coincident cylinders
	f.Add(uint8(4), 0.1, 0.1, 0.1, 0.0, 0.0, 0.2, 1.0, 0.0, 0.0, 0.0, 0.01)         // stacked, faces touching
	f.Add(uint8(4), 0.1, 0.2, 0.1, 0.2, 0.0, 0.0, 0.7071, 0.7071, 0.0, 0.0, 0.01)   // logs side by side, touching
	f.Add(uint8(3), 0.1, 0.1, 0.05, 0.0, 0.0, 0.15, 0.7071, 0.0, 0.7071, 0.0, 0.01) // capsule lying on the end face
	f.Add(uint8(2), 0.1, 0.1, 0.2, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.01)         // sphere centre on the axis
	f.Add(uint8(1), 0.1, 0.1, 0.5, 0.01, 0.02, 0.03, 0.9, 0.1, 0.2, 0.3, 0.1)       // deep in a box
	f.Add(uint8(1), 1e-3, 1e3, 1e-3, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1e3)        // needle and speck
	f.Add(uint8(4), 0.3, 1e-4, 0.3, 0.0, 0.0, 2e-4, 1.0, 1e-9, 0.0, 0.0, 0.01)      // coins, faces parallel to rounding
	f.Fuzz(func(t *testing.T, kb uint8, r, hl, s, x, y, z, qw, qx, qy, qz, margin float64) {
		for _, v := range []float64{r, hl, s, x, y, z, qw, qx, qy, qz, margin} {
			if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e6 {
				return
			}
		}
		a := Shape{Kind: Cylinder, Radius: r, Length: 2 * hl}
		b := Shape{Kind: Kind(1 + kb%4), Size: mgl64.Vec3{2 * s, 2 * hl, 2 * r}, Radius: s, Length: 2 * hl}
		if a.Validate() != nil || b.Validate() != nil {
			return
		}
		qb := mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
		if qb.Len() < 1e-6 {
			return
		}
		pa := Pose{Pos: mgl64.Vec3{0, 0, 0}, Rot: mgl64.QuatIdent()}
		pb := Pose{Pos: mgl64.Vec3{x, y, z}, Rot: qb.Normalize()}
		ab := Collide(nil, a, pa, b, pb, margin)
		ba := Collide(nil, b, pb, a, pa, margin)
		if len(ab) > MaxPoints || len(ab) != len(ba) {
			t.Fatalf("%d points, reversed %d", len(ab), len(ba))
		}
		for i, p := range ab {
			if !num.FiniteVec(p.Pos) || !num.Finite(p.Gap) || !num.FiniteVec(p.Normal) {
				t.Fatalf("point %d not finite: %+v", i, p)
			}
			if math.Abs(p.Normal.Len()-1) > 1e-9 {
				t.Fatalf("point %d: |Normal| = %v", i, p.Normal.Len())
			}
			if p.Gap > margin {
				t.Fatalf("point %d: gap %v > margin %v", i, p.Gap, margin)
			}
			q := ba[i]
			if p.Pos != q.Pos || p.Gap != q.Gap || p.Normal != q.Normal.Mul(-1) || p.Key != (Key{q.Key.B, q.Key.A}) {
				t.Fatalf("point %d not mirrored: %+v vs %+v", i, p, q)
			}
		}
		sep, ok := Distance(a, pa, b, pb)
		if !ok || !num.Finite(sep.Gap) || !num.FiniteVec(sep.OnA) || !num.FiniteVec(sep.OnB) || math.Abs(sep.Normal.Len()-1) > 1e-9 {
			t.Fatalf("Distance: ok %v, %+v", ok, sep)
		}
	})
}
