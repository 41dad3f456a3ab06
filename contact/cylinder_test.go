package contact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// keyList returns the keys of pts in order.
func keyList(pts []Point) []Key {
	k := make([]Key, len(pts))
	for i, p := range pts {
		k[i] = p.Key
	}
	return k
}

func TestBoxCylinderManifolds(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{2, 2, 1}))
	const r, hl = 0.1, 0.1
	cyl := must(NewCylinderLength(r, 2*hl))
	top := FeatureFace | BoxFace(2, 1)
	t.Run("standing: the four rim points of the square", func(t *testing.T) {
		pc := atRot(0.2, 0.1, 0.5+hl+1e-4, 0.4, ez)
		pts := Collide(nil, box, at(0, 0, 0), cyl, pc, 0.01)
		want := []Key{{top, 0}, {top, 2}, {top, 4}, {top, 6}}
		if !slices.Equal(keyList(pts), want) {
			t.Fatalf("keys %v, want %v", keyList(pts), want)
		}
		for q, p := range pts {
			assertNear(t, 1e-4, p.Gap, tight, "gap")
			assertVec(t, ez, p.Normal, tight, "normal")
			// Body-fixed square: rim point q at local angle π − qπ/2 (−x, +y, +x, −y).
			ang := math.Pi - float64(q)*math.Pi/2
			rim := pc.Apply(mgl64.Vec3{r * math.Cos(ang), r * math.Sin(ang), -hl})
			assertVec(t, rim.Sub(ez.Mul(0.5e-4)), p.Pos, 1e-12, "rim point")
		}
		checkPoints(t, pts, box, at(0, 0, 0), cyl, pc, 0.01, 1e-12)
	})
	t.Run("standing keys persist under jitter", func(t *testing.T) {
		base := keyList(Collide(nil, box, at(0, 0, 0), cyl, at(0.2, 0.1, 0.5+hl-1e-5), 0.01))
		rng := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < 100; i++ {
			// Rounding-level to micro-scale jitter of a resting cylinder.
			s := 1e-9 * math.Pow(10, 3*rng.Float64())
			pc := Pose{Pos: mgl64.Vec3{0.2 + s*rng.NormFloat64(), 0.1 + s*rng.NormFloat64(), 0.5 + hl - 1e-5 + s*rng.NormFloat64()},
				Rot: mgl64.QuatRotate(s*rng.NormFloat64(), mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), 0}.Normalize())}
			if got := keyList(Collide(nil, box, at(0, 0, 0), cyl, pc, 0.01)); !slices.Equal(got, base) {
				t.Fatalf("jitter %g: keys %v, want %v", s, got, base)
			}
		}
	})
	t.Run("standing over an edge: clipped", func(t *testing.T) {
		pc := at(0.95, 0.1, 0.5+hl)
		pts := Collide(nil, box, at(0, 0, 0), cyl, pc, 0.01)
		if len(pts) != 4 {
			t.Fatalf("got %d points: %v", len(pts), pts)
		}
		// Rim points −x, +y, −y keep their ids; the +x point is cut off
		// at x = 1 by the box's side plane through edge +x,+z (BoxEdge(1, (1,·,1)) = 7),
		// between the square's edges 0 (−x→+y) … the crossing on edge 1 (+y → +x).
		var clipped int
		for _, p := range pts {
			if p.Key.B&FeatureClip != 0 {
				clipped++
				assertNear(t, 1, p.Pos[0], tight, "crossing on the box edge x = 1")
				if p.Key.B != FeatureClip|1<<8|(refLine+7) && p.Key.B != FeatureClip|2<<8|(refLine+7) {
					t.Errorf("crossing key %#x", p.Key.B)
				}
			}
		}
		if clipped != 2 && clipped != 1 {
			t.Errorf("%d crossing points", clipped)
		}
		checkPoints(t, pts, box, at(0, 0, 0), cyl, pc, 0.01, 1e-12)
	})
	t.Run("lying: the side line, keys towards each end", func(t *testing.T) {
		pc := atRot(0.3, 0, 0.5+r-1e-4, math.Pi/2, ex) // axis along −y: end 0 at +y
		pts := Collide(nil, box, at(0, 0, 0), cyl, pc, 0.01)
		if !slices.Equal(keyList(pts), []Key{{top, 0}, {top, 1}}) {
			t.Fatalf("keys %v", keyList(pts))
		}
		assertVec(t, mgl64.Vec3{0.3, hl, 0.5 - 0.5e-4}, pts[0].Pos, 1e-12, "end 0")
		assertVec(t, mgl64.Vec3{0.3, -hl, 0.5 - 0.5e-4}, pts[1].Pos, 1e-12, "end 1")
		for _, p := range pts {
			assertNear(t, -1e-4, p.Gap, tight, "gap")
		}
		checkPoints(t, pts, box, at(0, 0, 0), cyl, pc, 0.01, 1e-12)
	})
	t.Run("tilted on a rim: one point", func(t *testing.T) {
		const th = 0.5
		drop := hl*math.Cos(th) + r*math.Sin(th)
		pc := atRot(0.3, 0, 0.5+drop+0.003, th, ex)
		pts := Collide(nil, box, at(0, 0, 0), cyl, pc, 0.01)
		if len(pts) != 1 {
			t.Fatalf("got %d points", len(pts))
		}
		assertNear(t, 0.003, pts[0].Gap, gjkTight, "gap of the lowest rim point")
		if pts[0].Key != (Key{top, 0}) {
			t.Errorf("key %v, want {face +z, rim of end 0}", pts[0].Key)
		}
		checkPoints(t, pts, box, at(0, 0, 0), cyl, pc, 0.01, gjkTight)
	})
	t.Run("a box edge across an end face: the chord's two ends", func(t *testing.T) {
		// A 0.4 m box turned 0.5 rad about x (neither of its faces at
		// the edge parallel to the face) lies with its lowest edge, along
		// x at y = d, across the standing cylinder's top face: the
		// contact is the chord x = ±√(r² − d²), not one point. The single
		// GJK/EPA point sat at either end of the chord, from step to step
		// (a box under a cylinder's end in the bin pile, whose other end
		// then sank 0.8–0.97 mm and was pushed out by Φ/h: 2.7 mJ a step).
		small := must(NewBoxSize(mgl64.Vec3{0.4, 0.1, 0.06}))
		const d = 0.04
		c := math.Sqrt(r*r - d*d)
		for _, g := range []float64{2e-4, -5e-4} {
			pb := atRot(0, 0, 0, 0.5, ex)
			edge := pb.Apply(mgl64.Vec3{0, -0.05, -0.03}) // the lowest edge's middle
			pb.Pos = mgl64.Vec3{0, d, hl + g}.Sub(edge)
			pts := Collide(nil, small, pb, cyl, at(0, 0, 0), 0.01)
			if !slices.Equal(keyList(pts), []Key{{0, CylinderCap1}, {1, CylinderCap1}}) {
				t.Fatalf("gap %g: keys %v, want the chord's ends on end face 1", g, keyList(pts))
			}
			for i, sx := range []float64{-c, c} {
				assertNear(t, g, pts[i].Gap, tight, "gap: the edge's height over the face")
				assertVec(t, ez.Mul(-1), pts[i].Normal, tight, "normal: the face's")
				assertVec(t, mgl64.Vec3{sx, d, hl + g/2}, pts[i].Pos, 1e-12, "chord end")
			}
			checkPoints(t, pts, small, pb, cyl, at(0, 0, 0), 0.01, 1e-12)
		}
		// The same edge 5 mm below the face and 1 mm into the side: the
		// rim at (0, r, hl) is in the box's face at the edge (outward
		// normal m) by m·(rim − edge) = 3.27 mm, the one GJK/EPA point's;
		// the chord under the face, 5 mm deep along −z, is not the
		// contact.
		pb := atRot(0, 0, 0, 0.5, ex)
		e := mgl64.Vec3{0, r - 1e-3, hl - 5e-3}
		pb.Pos = e.Sub(pb.Apply(mgl64.Vec3{0, -0.05, -0.03}))
		m := pb.Rot.Rotate(mgl64.Vec3{0, -1, 0})
		pts := Collide(nil, small, pb, cyl, at(0, 0, 0), 0.01)
		if len(pts) != 1 {
			t.Fatalf("edge in the side: %d points %v, want the one GJK/EPA point", len(pts), pts)
		}
		assertNear(t, m.Dot(mgl64.Vec3{0, r, hl}.Sub(e)), pts[0].Gap, gjkTight, "depth of the rim in the box's face")
		assertVec(t, m, pts[0].Normal, gjkTight, "normal: the box's face's")
	})
	t.Run("beyond margin", func(t *testing.T) {
		if pts := Collide(nil, box, at(0, 0, 0), cyl, at(0, 0, 0.5+hl+0.02), 0.01); len(pts) != 0 {
			t.Errorf("%v", pts)
		}
	})
}

func TestCylinderCylinderManifolds(t *testing.T) {
	const r, hl = 0.1, 0.1
	cyl := must(NewCylinderLength(r, 2*hl))
	t.Run("stacked, coaxial: B's square", func(t *testing.T) {
		pb := at(0, 0, 2*hl-1e-4)
		pts := Collide(nil, cyl, at(0, 0, 0), cyl, pb, 0.01)
		if !slices.Equal(keyList(pts), []Key{{CylinderCap1, 0}, {CylinderCap1, 2}, {CylinderCap1, 4}, {CylinderCap1, 6}}) {
			t.Fatalf("keys %v", keyList(pts))
		}
		for _, p := range pts {
			assertNear(t, -1e-4, p.Gap, tight, "gap")
			assertVec(t, ez, p.Normal, tight, "normal")
		}
		checkPoints(t, pts, cyl, at(0, 0, 0), cyl, pb, 0.01, 1e-12)
	})
	t.Run("stacked, offset: lens", func(t *testing.T) {
		pb := at(0.12, 0, 2*hl)
		pts := Collide(nil, cyl, at(0, 0, 0), cyl, pb, 0.01)
		if len(pts) < 3 {
			t.Fatalf("got %d points: %v", len(pts), pts)
		}
		checkPoints(t, pts, cyl, at(0, 0, 0), cyl, pb, 0.01, 1e-12)
	})
	t.Run("lying across an end face", func(t *testing.T) {
		pb := atRot(0.01, 0, 2*hl-1e-4, math.Pi/2, ey) // axis along x, 0.2 long, over a 0.2 disk
		pts := Collide(nil, cyl, at(0, 0, 0), cyl, pb, 0.01)
		if !slices.Equal(keyList(pts), []Key{{CylinderCap1, 0}, {CylinderCap1, 1}}) {
			t.Fatalf("keys %v", keyList(pts))
		}
		// The side line x ∈ [0.01 − 0.1, 0.01 + 0.1] clipped to the disk |x| ≤ 0.1.
		assertNear(t, 0.01-hl, math.Min(pts[0].Pos[0], pts[1].Pos[0]), tight, "line end")
		assertNear(t, r, math.Max(pts[0].Pos[0], pts[1].Pos[0]), tight, "rim crossing")
		checkPoints(t, pts, cyl, at(0, 0, 0), cyl, pb, 0.01, 1e-12)
	})
	t.Run("logs side by side", func(t *testing.T) {
		pa, pb := atRot(0, 0, 0, math.Pi/2, ey), atRot(0.05, 0, 2*r+1e-3, math.Pi/2, ey)
		pts := Collide(nil, cyl, pa, cyl, pb, 0.01)
		if len(pts) != 2 {
			t.Fatalf("got %d points", len(pts))
		}
		for _, p := range pts {
			assertNear(t, 1e-3, p.Gap, tight, "gap")
		}
		checkPoints(t, pts, cyl, pa, cyl, pb, 0.01, 1e-12)
	})
}

func TestCapsuleSphereCylinder(t *testing.T) {
	const r, hl = 0.1, 0.1
	cyl := must(NewCylinderLength(r, 2*hl))
	t.Run("capsule lying on an end face", func(t *testing.T) {
		c := must(NewCapsuleLength(0.05, 0.16))
		pc := atRot(0, 0.02, hl+0.05+2e-4, math.Pi/2, ey)
		pts := Collide(nil, c, pc, cyl, at(0, 0, 0), 0.01)
		if !slices.Equal(keyList(pts), []Key{{0, CylinderCap1}, {1, CylinderCap1}}) {
			t.Fatalf("keys %v", keyList(pts))
		}
		for _, p := range pts {
			assertNear(t, 2e-4, p.Gap, tight, "gap")
			assertVec(t, ez.Mul(-1), p.Normal, tight, "normal capsule → cylinder")
		}
		checkPoints(t, pts, c, pc, cyl, at(0, 0, 0), 0.01, 1e-12)
	})
	t.Run("sphere regions", func(t *testing.T) {
		s := must(NewSphere(0.05))
		pc := atRot(0.3, -0.2, 0.1, 0.7, mgl64.Vec3{1, 2, 3})
		for _, tc := range []struct {
			name  string
			local mgl64.Vec3
			gap   float64
			key   uint32
		}{
			{"cap +z", mgl64.Vec3{0.03, 0.02, hl + 0.07}, 0.02, CylinderCap1},
			{"side", mgl64.Vec3{0, -0.17, 0.05}, 0.02, CylinderSide},
			{"rim of end 0", mgl64.Vec3{r + 0.03, 0, -hl - 0.04}, math.Hypot(0.03, 0.04) - 0.05, 0},
			{"inside, nearer the side", mgl64.Vec3{0.08, 0, 0}, -0.02 - 0.05, CylinderSide},
			{"on the axis, inside", mgl64.Vec3{0, 0, 0.095}, -0.005 - 0.05, CylinderCap1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := pc.Apply(tc.local)
				ps := at(c[0], c[1], c[2])
				pts := Collide(nil, s, ps, cyl, pc, 0.1)
				if len(pts) != 1 {
					t.Fatalf("got %d points", len(pts))
				}
				assertNear(t, tc.gap, pts[0].Gap, tight, "gap")
				if pts[0].Key != (Key{0, tc.key}) {
					t.Errorf("key %v, want {0 %d}", pts[0].Key, tc.key)
				}
				checkPoints(t, pts, s, ps, cyl, pc, 0.1, 1e-12)
				sep, _ := Distance(s, ps, cyl, pc)
				assertNear(t, sep.Gap, pts[0].Gap, 1e-8, "closed form vs GJK/EPA (EPA's tolerance on curved D)")
			})
		}
	})
}

// TestRandomCylinderInvariants: on seeded random poses, the points of the
// cylinder pairs lie on both surfaces (to GJK/EPA's tolerance, 1e-9 m, or
// for a cap on a slightly tilted cap the rim crossing's r(1 − cos θ) ≤
// 1.3e-4 m), the deepest is within manifoldRel of Distance's gap, and the
// pair is mirrored exactly.
func TestRandomCylinderInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	cyls := []Shape{must(NewCylinderLength(0.3, 0.2)), must(NewCylinderLength(0.1, 0.8))}
	others := []Shape{must(NewBoxSize(mgl64.Vec3{1, 0.4, 0.6})), must(NewSphere(0.3)), must(NewCapsuleLength(0.2, 1)), cyls[0], cyls[1]}
	n, pairs := 0, 0
	for it := 0; it < 3000; it++ {
		a, b := cyls[r.IntN(2)], others[r.IntN(len(others))]
		pa := Pose{Pos: mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(0.6), Rot: randQuat(r)}
		pb := Pose{Pos: mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(0.6), Rot: randQuat(r)}
		pts := Collide(nil, a, pa, b, pb, 0.05)
		back := Collide(nil, b, pb, a, pa, 0.05)
		if len(pts) != len(back) {
			t.Fatalf("it %d: %d vs %d points", it, len(pts), len(back))
		}
		if len(pts) == 0 {
			continue
		}
		pairs++
		n += len(pts)
		sep, _ := Distance(a, pa, b, pb)
		deepest := math.Inf(1)
		for i, p := range pts {
			q := back[i]
			if p.Pos != q.Pos || p.Gap != q.Gap || p.Normal != q.Normal.Mul(-1) || p.Key != (Key{q.Key.B, q.Key.A}) {
				t.Fatalf("it %d point %d not mirrored", it, i)
			}
			deepest = math.Min(deepest, p.Gap)
			if p.Gap > -0.05 {
				checkPoints(t, []Point{p}, a, pa, b, pb, 0.05, 1.3e-4)
			}
		}
		if sep.Gap > -0.05 && !near(deepest, sep.Gap, 1e-3*0.5) {
			t.Errorf("it %d (%v–%v): deepest point %v, Distance %v", it, a.Kind, b.Kind, deepest, sep.Gap)
		}
		if t.Failed() {
			t.Fatalf("iteration %d: %v %+v / %v %+v", it, a.Kind, pa, b.Kind, pb)
		}
	}
	t.Logf("%d points in %d touching pairs", n, pairs)
	if pairs < 500 {
		t.Errorf("only %d touching pairs: test too weak", pairs)
	}
}

// A sphere centre on the cylinder's surface up to rounding (just outside
// the side, on a rim) gets a finite unit normal.
func TestSphereOnCylinderSurface(t *testing.T) {
	cyl := must(NewCylinderLength(0.3, 0.2))
	s := must(NewSphere(0.05))
	for _, c := range []mgl64.Vec3{
		{math.Nextafter(0.3, 1), 0, 0},
		{0.3 * math.Cos(1), math.Nextafter(0.3*math.Sin(1), 1), 0.05},
		{0.3, 0, math.Nextafter(0.1, 1)},
		{0, 0, math.Nextafter(0.1, 1)},
	} {
		pts := Collide(nil, s, at(c[0], c[1], c[2]), cyl, at(0, 0, 0), 0.01)
		if len(pts) != 1 || !num.FiniteVec(pts[0].Normal) || !near(pts[0].Normal.Len(), 1, 1e-12) {
			t.Errorf("centre %v: %+v", c, pts)
			continue
		}
		assertNear(t, -0.05, pts[0].Gap, 1e-15, "gap = −r")
	}
}
