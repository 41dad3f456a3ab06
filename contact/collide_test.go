package contact

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

var (
	ex = mgl64.Vec3{1, 0, 0}
	ey = mgl64.Vec3{0, 1, 0}
	ez = mgl64.Vec3{0, 0, 1}
)

// Tolerances: closed-form results are computed with a handful of flops on
// O(1 m) numbers, so 1e-12 m is rounding; golden-section results
// (capsule–box) are good to ~1e-12 of the segment length.
const tight = 1e-12

func TestSpherePlane(t *testing.T) {
	plane := NewPlane()
	s := must(NewSphere(0.5))
	pts := Collide(nil, plane, IdentityPose(), s, at(0.3, -0.2, 0.7), 0.5)
	if len(pts) != 1 {
		t.Fatalf("got %d points", len(pts))
	}
	assertNear(t, 0.2, pts[0].Gap, tight, "gap = centre height − r")
	assertVec(t, ez, pts[0].Normal, tight, "normal")
	assertVec(t, mgl64.Vec3{0.3, -0.2, 0.1}, pts[0].Pos, tight, "pos midway")

	// Tilted plane through (0,0,1), normal R_x(30°) e_z; reversed order.
	pp := atRot(0, 0, 1, math.Pi/6, ex)
	n := pp.Rot.Rotate(ez)
	c := mgl64.Vec3{0.4, 0.1, 0.9}
	pts = Collide(nil, s, at(c[0], c[1], c[2]), plane, pp, 1)
	if len(pts) != 1 {
		t.Fatalf("got %d points", len(pts))
	}
	assertNear(t, n.Dot(c.Sub(pp.Pos))-0.5, pts[0].Gap, tight, "tilted gap")
	assertVec(t, n.Mul(-1), pts[0].Normal, tight, "normal from sphere to plane")

	// Beyond the margin: nothing.
	if pts := Collide(nil, plane, IdentityPose(), s, at(0, 0, 0.7), 0.1); len(pts) != 0 {
		t.Errorf("gap 0.2 > margin 0.1 gave %d points", len(pts))
	}
}

func TestSphereSphere(t *testing.T) {
	a, b := must(NewSphere(0.3)), must(NewSphere(0.2))
	d := mgl64.Vec3{0.3, 0.4, 0} // |d| = 0.5 → gap 0
	for _, tc := range []struct {
		name  string
		scale float64
	}{{"touching", 1}, {"penetrating", 0.8}, {"separated", 1.1}} {
		t.Run(tc.name, func(t *testing.T) {
			c := d.Mul(tc.scale)
			pts := Collide(nil, a, at(1, 1, 1), b, at(1+c[0], 1+c[1], 1+c[2]), 0.1)
			if len(pts) != 1 {
				t.Fatalf("got %d points", len(pts))
			}
			assertNear(t, 0.5*tc.scale-0.5, pts[0].Gap, tight, "gap = |d| − ra − rb")
			assertVec(t, d.Normalize(), pts[0].Normal, tight, "normal")
			// Midway between the surface points at ra and |d| − rb along n.
			want := mgl64.Vec3{1, 1, 1}.Add(d.Normalize().Mul((0.3 + 0.5*tc.scale - 0.2) / 2))
			assertVec(t, want, pts[0].Pos, tight, "pos")
		})
	}
}

func TestSphereBoxRegions(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{2, 1, 0.5}))
	pb := atRot(0.5, -1, 2, 0.7, mgl64.Vec3{1, 2, 3})
	const r = 0.1
	s := must(NewSphere(r))
	for _, tc := range []struct {
		name    string
		local   mgl64.Vec3 // sphere centre in the box frame
		gap     float64
		normal  mgl64.Vec3 // local
		feature uint32
	}{
		{"face +z", mgl64.Vec3{0.2, 0.1, 0.3}, 0.05 - r, ez, FeatureFace | 4},
		{"face -x", mgl64.Vec3{-1.2, 0.1, 0.1}, 0.2 - r, ex.Mul(-1), FeatureFace | 1},
		{"edge z at x+ y+", mgl64.Vec3{1.3, 0.7, 0.1}, math.Hypot(0.3, 0.2) - r, mgl64.Vec3{0.3, 0.2, 0}.Normalize(), FeatureEdge | 11},
		{"edge x at y- z+", mgl64.Vec3{0.1, -0.6, 0.35}, math.Hypot(0.1, 0.1) - r, mgl64.Vec3{0, -1, 1}.Normalize(), FeatureEdge | BoxEdge(0, mgl64.Vec3{0, -1, 1})},
		{"vertex x+ y- z-", mgl64.Vec3{1.2, -0.8, -0.5}, math.Sqrt(0.04+0.09+0.0625) - r, mgl64.Vec3{0.2, -0.3, -0.25}.Normalize(), FeatureVertex | 1},
		{"inside, nearest +x", mgl64.Vec3{0.9, 0, 0}, -0.1 - r, ex, FeatureFace}, // face 0
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := pb.Apply(tc.local)
			ps := at(c[0], c[1], c[2])
			pts := Collide(nil, s, ps, box, pb, 1)
			if len(pts) != 1 {
				t.Fatalf("got %d points", len(pts))
			}
			p := pts[0]
			assertNear(t, tc.gap, p.Gap, tight, "gap")
			// Collide(sphere, box): normal from the sphere to the box.
			assertVec(t, pb.Rot.Rotate(tc.normal).Mul(-1), p.Normal, tight, "normal")
			if p.Key != (Key{0, tc.feature}) {
				t.Errorf("key = %#x, want {0, %#x}", p.Key, tc.feature)
			}
			checkPoints(t, pts, s, ps, box, pb, 1, 1e-12)
		})
	}
}

func TestBoxPlane(t *testing.T) {
	plane := NewPlane()
	half := mgl64.Vec3{0.5, 0.3, 0.2}
	box := must(NewBoxSize(half.Mul(2)))
	t.Run("flat", func(t *testing.T) {
		pb := atRot(1, 2, 0.2+0.01, 0.7, ez)
		pts := Collide(nil, plane, IdentityPose(), box, pb, 0.02)
		if len(pts) != 4 {
			t.Fatalf("got %d points, want 4", len(pts))
		}
		seen := map[uint32]bool{}
		for _, p := range pts {
			v := int(p.Key.B &^ FeatureVertex)
			if p.Key.B&FeatureVertex == 0 || v > 7 || v&4 != 0 {
				t.Errorf("key %#x is not a bottom vertex", p.Key.B)
			}
			seen[p.Key.B] = true
			// The height above the plane is the box height minus half_z;
			// rotation about z costs a few ulps.
			assertNear(t, 0.01, p.Gap, 1e-15, "gap")
			assertVec(t, ez, p.Normal, 0, "normal")
			w := pb.Apply(box.BoxVertex(v))
			assertVec(t, w.Sub(ez.Mul(0.005)), p.Pos, 1e-15, "pos")
		}
		if len(seen) != 4 {
			t.Errorf("keys not distinct: %v", pts)
		}
	})
	t.Run("tilted about x: an edge, 2 points", func(t *testing.T) {
		pb := atRot(0, 0, 0.3, 0.35, ex)
		pts := Collide(nil, plane, IdentityPose(), box, pb, 0.05)
		if len(pts) != 2 {
			t.Fatalf("got %d points, want 2", len(pts))
		}
		// lowest vertices: z = 0.3 − 0.3 sin θ − 0.2 cos θ
		want := 0.3 - 0.3*math.Sin(0.35) - 0.2*math.Cos(0.35)
		for _, p := range pts {
			assertNear(t, want, p.Gap, tight, "gap")
		}
	})
	t.Run("tilted about x and y: a vertex, 1 point", func(t *testing.T) {
		pb := Pose{Pos: mgl64.Vec3{0, 0, 0.45}, Rot: mgl64.QuatRotate(0.35, ex).Mul(mgl64.QuatRotate(0.25, ey))}
		pts := Collide(nil, plane, IdentityPose(), box, pb, 0.05)
		want := math.Inf(1)
		for i := 0; i < 8; i++ {
			want = math.Min(want, pb.Apply(box.BoxVertex(i))[2])
		}
		if len(pts) != 1 {
			t.Fatalf("got %d points, want 1 (lowest vertex at %v)", len(pts), want)
		}
		assertNear(t, want, pts[0].Gap, tight, "gap")
	})
	t.Run("huge margin keeps the lowest face", func(t *testing.T) {
		// Tilted by less than 45° from lying on a face, the 4 vertices the
		// least turn brings to the plane are that face's.
		for _, pb := range []Pose{
			{Pos: mgl64.Vec3{0, 0, 0.45}, Rot: mgl64.QuatRotate(0.35, ex).Mul(mgl64.QuatRotate(0.25, ey))},
			// A plank lying nearly flat, 2 m × 0.3 m × 0.05 m tilted by
			// 1.5° about y: its lower end's top corners (0.05 m up) are
			// deeper than its raised end's bottom ones (0.052 m up), but
			// they reach the plane only after a quarter turn.
			{Pos: mgl64.Vec3{0, 0, 0.051}, Rot: mgl64.QuatRotate(0.0262, ey).Mul(mgl64.QuatRotate(math.Pi/2, ey))},
		} {
			b := box
			if pb.Pos[2] < 0.1 {
				b = must(NewBoxSize(mgl64.Vec3{0.05, 0.3, 2}))
			}
			pts := Collide(nil, plane, IdentityPose(), b, pb, 10)
			if len(pts) != 4 {
				t.Fatalf("got %d points", len(pts))
			}
			// The face: the box axis nearest the normal, on the plane's side.
			k, best := 0, 0.0
			for a := 0; a < 3; a++ {
				var e mgl64.Vec3
				e[a] = 1
				if c := math.Abs(pb.Rot.Rotate(e)[2]); c > best {
					k, best = a, c
				}
			}
			var e mgl64.Vec3
			e[k] = 1
			side := 0 // bit k clear: the face at −half_k
			if pb.Rot.Rotate(e)[2] < 0 {
				side = 1
			}
			for i := range pts {
				v := int(pts[i].Key.B &^ FeatureVertex)
				if (v>>k)&1 != side {
					t.Errorf("point %d (vertex %d, gap %v) is not on the lowest face (axis %d)", i, v, pts[i].Gap, k)
				}
				assertNear(t, pb.Apply(b.BoxVertex(v))[2], pts[i].Gap, tight, "gap")
				if i > 0 && pts[i].Key.B <= pts[i-1].Key.B {
					t.Errorf("not in vertex order: %v", pts)
				}
			}
		}
	})
	t.Run("a box resting flat keeps its point order under rounding", func(t *testing.T) {
		// Its four bottom vertices are at one depth up to rounding; the
		// order of the points (and of the step's MLCP rows) must not
		// follow that rounding.
		r := rand.New(rand.NewPCG(5, 6))
		base := Pose{Pos: mgl64.Vec3{0, 0, half[2]}, Rot: mgl64.QuatIdent()}
		ref := Collide(nil, plane, IdentityPose(), box, base, 0.01)
		if len(ref) != 4 {
			t.Fatalf("flat box: got %d points, want 4", len(ref))
		}
		for trial := 0; trial < 50; trial++ {
			pts := Collide(nil, plane, IdentityPose(), box, jiggle(base, 1e-12, r), 0.01)
			if len(pts) != 4 {
				t.Fatalf("trial %d: got %d points", trial, len(pts))
			}
			for i := range pts {
				if pts[i].Key != ref[i].Key {
					t.Fatalf("trial %d: point %d has key %v, want %v", trial, i, pts[i].Key, ref[i].Key)
				}
			}
		}
	})
}

// jiggle moves p by up to d metres and d radians, seeded.
func jiggle(p Pose, d float64, r *rand.Rand) Pose {
	dp := mgl64.Vec3{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}.Mul(d)
	axis := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	return Pose{Pos: p.Pos.Add(dp), Rot: mgl64.QuatRotate(d, axis.Normalize()).Mul(p.Rot)}
}

func keysOf(pts []Point) map[Key]bool {
	m := map[Key]bool{}
	for _, p := range pts {
		m[p.Key] = true
	}
	return m
}

func TestBoxOnBox(t *testing.T) {
	bottom := must(NewBoxSize(mgl64.Vec3{2, 2, 1}))
	pBottom := at(0, 0, 0)
	for _, tc := range []struct {
		name    string
		top     Shape
		sep     float64
		inside  bool // the top footprint lies within the bottom face: the points are the top box's bottom vertices
		x, y, θ float64
	}{
		{"small on big, 30°", must(NewBoxSize(mgl64.Vec3{0.6, 0.4, 0.2})), 0.01, true, 0.2, 0.1, math.Pi / 6},
		{"small on big, penetrating", must(NewBoxSize(mgl64.Vec3{0.6, 0.4, 0.2})), -0.02, true, 0.2, 0.1, math.Pi / 6},
		{"equal, offset and 30°: clipped octagon-ish reduced to 4", must(NewBoxSize(mgl64.Vec3{2, 2, 1})), 0.005, false, 0.6, 0.4, math.Pi / 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pTop := atRot(tc.x, tc.y, 0.5+tc.top.half()[2]+tc.sep, tc.θ, ez)
			const margin = 0.02
			pts := Collide(nil, bottom, pBottom, tc.top, pTop, margin)
			if len(pts) != 4 {
				t.Fatalf("got %d points, want 4: %v", len(pts), pts)
			}
			for _, p := range pts {
				assertNear(t, tc.sep, p.Gap, 1e-14, "gap = separation")
				assertVec(t, ez, p.Normal, 1e-15, "normal")
				// Inside both footprints (to rounding).
				lt := pTop.Rot.Conjugate().Rotate(p.Pos.Sub(pTop.Pos))
				if math.Abs(p.Pos[0]) > 1+1e-12 || math.Abs(p.Pos[1]) > 1+1e-12 ||
					math.Abs(lt[0]) > tc.top.half()[0]+1e-12 || math.Abs(lt[1]) > tc.top.half()[1]+1e-12 {
					t.Errorf("point %v outside the overlap", p.Pos)
				}
				if p.Key.A != FeatureFace|4 || p.Key.B&0xffff0000 != FeatureClip {
					t.Errorf("key %#x: want reference face +z of the bottom box and a clip id", p.Key)
				}
			}
			checkPoints(t, pts, bottom, pBottom, tc.top, pTop, margin, 1e-12)
			if tc.inside {
				for _, p := range pts {
					found := false
					for i := 0; i < 4; i++ { // bottom vertices of the top box
						if pTop.Apply(tc.top.BoxVertex(i)).Sub(p.Pos.Add(ez.Mul(tc.sep/2))).Len() < 1e-12 {
							found = true
						}
					}
					if !found {
						t.Errorf("point %v is not a bottom vertex of the top box", p.Pos)
					}
				}
			}
			// Keys survive a 1e-4 m / 1e-4 rad jiggle of the top box.
			want := keysOf(pts)
			r := rand.New(rand.NewPCG(1, 2))
			for k := 0; k < 50; k++ {
				pj := jiggle(pTop, 1e-4, r)
				got := Collide(nil, bottom, pBottom, tc.top, pj, margin)
				gk := keysOf(got)
				if len(got) != 4 || len(gk) != 4 {
					t.Fatalf("jiggle %d: %d points", k, len(got))
				}
				for key := range gk {
					if !want[key] {
						t.Fatalf("jiggle %d: key %#x not in %v", k, key, want)
					}
				}
			}
			// Reversed order: same points, flipped normal.
			rev := Collide(nil, tc.top, pTop, bottom, pBottom, margin)
			if len(rev) != len(pts) {
				t.Fatalf("reversed: %d points", len(rev))
			}
			for i := range rev {
				if rev[i].Pos != pts[i].Pos || rev[i].Gap != pts[i].Gap || rev[i].Normal != pts[i].Normal.Mul(-1) || rev[i].Key != (Key{pts[i].Key.B, pts[i].Key.A}) {
					t.Errorf("reversed point %d = %+v, want mirror of %+v", i, rev[i], pts[i])
				}
			}
		})
	}
}

func TestBoxBoxEdgeEdge(t *testing.T) {
	// A unit cube turned 45° about y presents its top edge along y at
	// height √2/2; B turned 45° about x presents its bottom edge along x
	// at z_B − √2/2. They cross above the origin at distance z_B − √2.
	box := must(NewBoxSize(mgl64.Vec3{1, 1, 1}))
	pa := atRot(0, 0, 0, math.Pi/4, ey)
	for _, gap := range []float64{0.01, -0.003} {
		zb := math.Sqrt2 + gap
		pb := atRot(0, 0, zb, math.Pi/4, ex)
		pts := Collide(nil, box, pa, box, pb, 0.02)
		if len(pts) != 1 {
			t.Fatalf("gap %v: got %d points, want 1: %v", gap, len(pts), pts)
		}
		p := pts[0]
		assertNear(t, gap, p.Gap, tight, "edge-edge gap")
		assertVec(t, ez, p.Normal, tight, "normal")
		assertVec(t, mgl64.Vec3{0, 0, math.Sqrt2/2 + gap/2}, p.Pos, tight, "pos")
		if p.Key.A&0xffff0000 != FeatureEdge || p.Key.B&0xffff0000 != FeatureEdge {
			t.Errorf("key %#x: want two edges", p.Key)
		}
		// A's edge runs along its local y (axis 1); after the turn local
		// −x and +z point partly up, so the top edge is at x−, z+.
		if want := FeatureEdge | BoxEdge(1, mgl64.Vec3{-1, 0, 1}); p.Key.A != want {
			t.Errorf("edge of A = %d, want %d", p.Key.A&0xffff, want&0xffff)
		}
		checkPoints(t, pts, box, pa, box, pb, 0.02, 1e-12)
	}
}

func TestCapsule(t *testing.T) {
	plane := NewPlane()
	c := must(NewCapsuleLength(0.1, 1))
	lying := atRot(0, 0, 0.12, math.Pi/2, ey) // axis along −x… +x
	t.Run("lying on plane: 2 points", func(t *testing.T) {
		pts := Collide(nil, plane, IdentityPose(), c, lying, 0.05)
		if len(pts) != 2 {
			t.Fatalf("got %d points", len(pts))
		}
		for _, p := range pts {
			assertNear(t, 0.02, p.Gap, tight, "gap")
			assertNear(t, 0.5, math.Abs(p.Pos[0]), tight, "|x| of the ends")
		}
		checkPoints(t, pts, plane, IdentityPose(), c, lying, 0.05, tight)
	})
	t.Run("upright on plane: 1 point", func(t *testing.T) {
		pts := Collide(nil, c, at(0, 0, 0.62), plane, IdentityPose(), 0.05)
		if len(pts) != 1 || pts[0].Key != (Key{CapsuleEnd0, 0}) {
			t.Fatalf("got %v", pts)
		}
		assertNear(t, 0.02, pts[0].Gap, tight, "gap")
		assertVec(t, ez.Mul(-1), pts[0].Normal, 0, "normal capsule → plane")
	})
	t.Run("parallel capsules: 2 points", func(t *testing.T) {
		pb := atRot(0.3, 0, 0.25, math.Pi/2, ey)
		pts := Collide(nil, c, lying, c, pb, 0.1)
		if len(pts) != 2 {
			t.Fatalf("got %d points", len(pts))
		}
		xs := []float64{-0.2, 0.5} // the overlap of [−0.5, 0.5] and [−0.2, 0.8]
		for i, p := range pts {
			assertNear(t, 0.25-0.12-0.2, p.Gap, tight, "gap")
			assertVec(t, ez, p.Normal, tight, "normal")
			assertNear(t, xs[i], math.Min(p.Pos[0], 0.5), tight, "x")
		}
		if pts[0].Key == pts[1].Key {
			t.Errorf("keys equal: %v", pts)
		}
		checkPoints(t, pts, c, lying, c, pb, 0.1, tight)
	})
	t.Run("crossed capsules: 1 point", func(t *testing.T) {
		pb := atRot(0.1, 0.2, 0.35, math.Pi/2, ex) // along y
		pts := Collide(nil, c, lying, c, pb, 0.1)
		if len(pts) != 1 {
			t.Fatalf("got %d points", len(pts))
		}
		assertNear(t, 0.35-0.12-0.2, pts[0].Gap, tight, "gap")
		assertVec(t, ez, pts[0].Normal, tight, "normal")
		assertVec(t, mgl64.Vec3{0.1, 0, (0.12 + 0.1 + 0.35 - 0.1) / 2}, pts[0].Pos, tight, "pos")
		if pts[0].Key != (Key{CapsuleSide, CapsuleSide}) {
			t.Errorf("key %v", pts[0].Key)
		}
	})
	t.Run("capsule-sphere", func(t *testing.T) {
		s := must(NewSphere(0.2))
		pts := Collide(nil, s, at(0.7, 0, 0.12), c, lying, 0.1) // beyond end 1 along the axis
		if len(pts) != 1 {
			t.Fatalf("got %d points", len(pts))
		}
		assertNear(t, 0.2-0.3, pts[0].Gap, tight, "gap")
		assertVec(t, ex.Mul(-1), pts[0].Normal, tight, "normal sphere → capsule")
		if pts[0].Key != (Key{0, CapsuleEnd1}) {
			t.Errorf("key %v", pts[0].Key)
		}
	})
	box := must(NewBoxSize(mgl64.Vec3{2, 2, 1}))
	// Golden-section search: positions to ~1e-12 of the segment length.
	const gtol = 1e-11
	t.Run("capsule lying on a box face: 2 points", func(t *testing.T) {
		pc := Pose{Pos: mgl64.Vec3{0.1, 0.2, 0.5 + 0.1 + 0.03}, Rot: mgl64.QuatRotate(0.4, ez).Mul(mgl64.QuatRotate(math.Pi/2, ey))}
		pts := Collide(nil, box, at(0, 0, 0), c, pc, 0.05)
		if len(pts) != 2 {
			t.Fatalf("got %d points", len(pts))
		}
		for _, p := range pts {
			assertNear(t, 0.03, p.Gap, gtol, "gap")
			assertVec(t, ez, p.Normal, 0, "normal")
			if p.Key.A != FeatureFace|4 {
				t.Errorf("key %v", p.Key)
			}
		}
		checkPoints(t, pts, box, at(0, 0, 0), c, pc, 0.05, gtol)
	})
	t.Run("capsule standing on a box: 1 point", func(t *testing.T) {
		pc := at(0.3, 0.2, 0.5+0.1+0.5+0.02)
		pts := Collide(nil, c, pc, box, at(0, 0, 0), 0.05)
		if len(pts) != 1 || pts[0].Key != (Key{CapsuleEnd0, FeatureFace | 4}) {
			t.Fatalf("got %v", pts)
		}
		assertNear(t, 0.02, pts[0].Gap, gtol, "gap")
	})
	t.Run("capsule along a box edge: 2 points", func(t *testing.T) {
		// The line contact of a capsule rolling over a table's edge: the
		// ends of the segment's overlap with the edge (y = ±0.5), not one
		// point anywhere along it.
		pc := atRot(1.05, 0, 0.55, math.Pi/2, ex) // along y, off the x+ z+ edge
		pts := Collide(nil, box, at(0, 0, 0), c, pc, 0.05)
		if len(pts) != 2 {
			t.Fatalf("got %d points", len(pts))
		}
		for _, p := range pts {
			assertNear(t, math.Hypot(0.05, 0.05)-0.1, p.Gap, gtol, "gap")
			assertVec(t, mgl64.Vec3{1, 0, 1}.Normalize(), p.Normal, gtol, "normal")
			assertNear(t, 0.5, math.Abs(p.Pos[1]), gtol, "|y| of the ends")
		}
		assertNear(t, 0, pts[0].Pos[1]+pts[1].Pos[1], gtol, "the two ends")
		checkPoints(t, pts, box, at(0, 0, 0), c, pc, 0.05, gtol)
	})
	t.Run("capsule tilted across a box corner region", func(t *testing.T) {
		pc := Pose{Pos: mgl64.Vec3{1.2, 0.9, 0.7}, Rot: mgl64.QuatRotate(0.8, mgl64.Vec3{1, -1, 0.3}.Normalize())}
		pts := Collide(nil, box, at(0, 0, 0), c, pc, 1)
		if len(pts) != 1 {
			t.Fatalf("got %d points", len(pts))
		}
		// Brute force: the least signed distance along the segment.
		best := math.Inf(1)
		for i := 0; i <= 200000; i++ {
			z := -0.5 + float64(i)/200000
			best = math.Min(best, signedDist(box, at(0, 0, 0), pc.Apply(mgl64.Vec3{0, 0, z})))
		}
		assertNear(t, best-0.1, pts[0].Gap, 1e-9, "gap vs sampled minimum (step 5e-6 m, error second order)")
		checkPoints(t, pts, box, at(0, 0, 0), c, pc, 1, gtol)
	})
}

func TestCylinderPlane(t *testing.T) {
	plane := NewPlane()
	const r, hl = 0.3, 0.1
	wheel := must(NewCylinderLength(r, 2*hl))
	t.Run("upright wheel: 2 rim points", func(t *testing.T) {
		pw := atRot(2, 1, r+0.005, math.Pi/2, ex) // axis along ∓y
		pts := Collide(nil, plane, IdentityPose(), wheel, pw, 0.01)
		if len(pts) != 2 {
			t.Fatalf("got %d points, want 2", len(pts))
		}
		for e, p := range pts {
			if p.Key != (Key{0, uint32(e)}) {
				t.Errorf("key %v, want {0 %d}", p.Key, e)
			}
			assertNear(t, 0.005, p.Gap, tight, "gap = rim height")
			rim := pw.Apply(mgl64.Vec3{0, 0, float64(2*e-1) * hl}).Sub(ez.Mul(r))
			assertVec(t, rim.Sub(ez.Mul(0.0025)), p.Pos, tight, "rim end of the contact line")
		}
		checkPoints(t, pts, plane, IdentityPose(), wheel, pw, 0.01, tight)
	})
	t.Run("tilted wheel: lowest rim points", func(t *testing.T) {
		// Camber 10°: the axis rises by sin 10° per metre; each end
		// circle's lowest point is r·cos 10° below its centre.
		const tilt = 10 * math.Pi / 180
		pw := Pose{Pos: mgl64.Vec3{0, 0, 0.31}, Rot: mgl64.QuatRotate(tilt, ex).Mul(mgl64.QuatRotate(math.Pi/2, ex))}
		a := pw.Rot.Rotate(ez)
		pts := Collide(nil, plane, IdentityPose(), wheel, pw, 0.1)
		if len(pts) != 2 {
			t.Fatalf("got %d points, want 2: %v", len(pts), pts)
		}
		for e, p := range pts {
			want := 0.31 + float64(2*e-1)*hl*a[2] - r*math.Sqrt(1-a[2]*a[2])
			assertNear(t, want, p.Gap, tight, "gap of the lowest rim point")
			rimZ := p.Pos[2] + p.Gap/2 // the surface point on the wheel
			assertNear(t, r*math.Cos(tilt), 0.31+float64(2*e-1)*hl*a[2]-rimZ, tight, "rim point depth below its circle centre")
		}
		checkPoints(t, pts, plane, IdentityPose(), wheel, pw, 0.1, tight)
	})
	t.Run("standing on an end face: 4 points", func(t *testing.T) {
		pc := atRot(0, 0, hl+0.001, 0.3, ez)
		pts := Collide(nil, plane, IdentityPose(), wheel, pc, 0.01)
		if len(pts) != 4 {
			t.Fatalf("got %d points, want 4", len(pts))
		}
		for _, p := range pts {
			assertNear(t, 0.001, p.Gap, tight, "gap")
		}
		checkPoints(t, pts, plane, IdentityPose(), wheel, pc, 0.01, tight)
	})
	t.Run("plane-plane is the one unsupported pair", func(t *testing.T) {
		dst := make([]Point, 1, 4)
		got := Collide(dst, NewPlane(), at(0, 0, 0), NewPlane(), at(0, 0, -1), 1)
		if len(got) != 1 {
			t.Errorf("unsupported pair changed dst: %v", got)
		}
	})
}

// pairCases are configurations within margin for every supported pair.
func pairCases() []struct {
	name   string
	a      Shape
	pa     Pose
	b      Shape
	pb     Pose
	margin float64
} {
	box := must(NewBoxSize(mgl64.Vec3{1, 0.8, 0.6}))
	sph := must(NewSphere(0.25))
	capsule := must(NewCapsuleLength(0.15, 0.8))
	cyl := must(NewCylinderLength(0.3, 0.2))
	tilted := Pose{Pos: mgl64.Vec3{0.1, 0.2, 0.6}, Rot: mgl64.QuatRotate(0.5, mgl64.Vec3{1, 2, 0.5}.Normalize())}
	return []struct {
		name   string
		a      Shape
		pa     Pose
		b      Shape
		pb     Pose
		margin float64
	}{
		{"plane-sphere", NewPlane(), IdentityPose(), sph, at(0, 0, 0.24), 0.1},
		{"plane-box", NewPlane(), IdentityPose(), box, tilted, 0.5},
		{"plane-capsule", NewPlane(), IdentityPose(), capsule, tilted, 0.5},
		{"plane-cylinder", NewPlane(), IdentityPose(), cyl, tilted, 0.5},
		{"box-box", box, at(0, 0, 0), box, tilted, 0.1},
		{"box-box face B", box, tilted, box, at(0, 0, 0.2), 0.1},
		{"box-capsule", box, at(0, 0, 0), capsule, tilted, 0.1},
		{"box-sphere", box, at(0, 0, 0), sph, tilted, 0.1},
		{"capsule-capsule", capsule, at(0, 0, 0), capsule, tilted, 0.1},
		{"capsule-sphere", capsule, at(0, 0, 0), sph, tilted, 0.1},
		{"sphere-sphere", sph, at(0, 0, 0), sph, tilted, 0.2},
		{"box-cylinder", box, at(0, 0, 0), cyl, tilted, 0.1},
		{"box-cylinder standing", box, at(0, 0, 0), cyl, at(0.1, 0.2, 0.4), 0.01},
		{"box-cylinder lying", box, at(0, 0, 0), cyl, atRot(0.1, 0.2, 0.6, math.Pi/2, ex), 0.01},
		{"capsule-cylinder", capsule, tilted, cyl, at(0, 0, 0), 0.1},
		{"sphere-cylinder", sph, at(0.3, 0.1, 0.2), cyl, tilted, 0.1},
		{"cylinder-cylinder", cyl, at(0, 0, 0), cyl, Pose{Pos: mgl64.Vec3{0.1, 0.2, 0.3}, Rot: tilted.Rot}, 0.1},
		{"cylinder-cylinder stacked", cyl, at(0, 0, 0), cyl, at(0.05, 0, 0.2), 0.01},
	}
}

func TestSymmetry(t *testing.T) {
	for _, tc := range pairCases() {
		t.Run(tc.name, func(t *testing.T) {
			ab := Collide(nil, tc.a, tc.pa, tc.b, tc.pb, tc.margin)
			ba := Collide(nil, tc.b, tc.pb, tc.a, tc.pa, tc.margin)
			if len(ab) == 0 {
				t.Fatalf("no contact")
			}
			if len(ab) != len(ba) {
				t.Fatalf("%d vs %d points", len(ab), len(ba))
			}
			for i := range ab {
				p, q := ab[i], ba[i]
				if p.Pos != q.Pos || p.Gap != q.Gap || p.Normal != q.Normal.Mul(-1) || p.Key != (Key{q.Key.B, q.Key.A}) {
					t.Errorf("point %d: %+v vs %+v", i, p, q)
				}
			}
			checkPoints(t, ab, tc.a, tc.pa, tc.b, tc.pb, tc.margin, 1e-11)
		})
	}
}

// TestRandomSurfaceInvariants checks, on seeded random poses, that every
// point's two surface points lie on the two shapes.
func TestRandomSurfaceInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	shapes := []Shape{
		must(NewBoxSize(mgl64.Vec3{1, 0.4, 0.6})), must(NewBoxSize(mgl64.Vec3{0.2, 1.2, 0.4})),
		must(NewSphere(0.3)), must(NewCapsuleLength(0.2, 1)), must(NewCapsuleLength(0.1, 0)),
	}
	n := 0
	for it := 0; it < 4000; it++ {
		a, b := shapes[r.IntN(len(shapes))], shapes[r.IntN(len(shapes))]
		pa := Pose{Pos: mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(0.6), Rot: randQuat(r)}
		pb := Pose{Pos: mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(0.6), Rot: randQuat(r)}
		pts := Collide(nil, a, pa, b, pb, 0.05)
		n += len(pts)
		// Deep penetrations: the clipped incident point may sit on its face
		// while the reference projection leaves the reference face; the
		// invariant is for the contact surfaces, tolerance 1e-9 m.
		for _, p := range pts {
			if p.Gap < -0.05 {
				continue
			}
			checkPoints(t, []Point{p}, a, pa, b, pb, 0.05, 1e-9)
		}
		if t.Failed() {
			t.Fatalf("iteration %d: %v %+v / %v %+v", it, a.Kind, pa, b.Kind, pb)
		}
	}
	if n < 1000 {
		t.Errorf("only %d points in 4000 random pairs: test too weak", n)
	}
}

func TestCollideAllocs(t *testing.T) {
	dst := make([]Point, 0, 16)
	for _, tc := range pairCases() {
		allocs := testing.AllocsPerRun(100, func() {
			dst = Collide(dst[:0], tc.a, tc.pa, tc.b, tc.pb, tc.margin)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Collide", tc.name, allocs)
		}
	}
}

func TestInvalidInputs(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{2, 2, 2}))
	for _, tc := range []struct {
		name   string
		a      Shape
		pa     Pose
		margin float64
	}{
		{"zero pose", box, Pose{}, 1},
		{"NaN pos", box, Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}, 1},
		{"bad box", Shape{Kind: Box, Size: mgl64.Vec3{2, -2, 2}}, IdentityPose(), 1},
		{"unknown kind", Shape{Kind: 9}, IdentityPose(), 1},
		{"NaN margin", box, IdentityPose(), math.NaN()},
	} {
		if got := Collide(nil, tc.a, tc.pa, box, IdentityPose(), tc.margin); len(got) != 0 {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
	if got := Collide(nil, NewPlane(), IdentityPose(), NewPlane(), at(0, 0, -1), 1); len(got) != 0 {
		t.Errorf("plane-plane: %v", got)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		s    Shape
		want string
	}{
		{Shape{Kind: Box, Size: mgl64.Vec3{1, -0.1, 1}}, "box: Size[1]: must be finite and > 0, got -0.1"},
		{Shape{Kind: Sphere, Radius: math.NaN()}, "sphere: Radius: must be finite and > 0, got NaN"},
		{Shape{Kind: Capsule, Radius: 1, Length: -1}, "capsule: Length: must be finite and ≥ 0, got -1"},
		{Shape{Kind: Cylinder, Radius: math.Inf(1), Length: 1}, "cylinder: Radius: must be finite and > 0, got +Inf"},
		{Shape{Kind: 9}, "shape: Kind: unknown kind 9 (want Plane, Box, Sphere, Capsule, Cylinder, Convex, TriMesh or Heightfield)"},
		{NewPlane(), ""},
		{Shape{Kind: Capsule, Radius: 1}, ""},
	} {
		err := tc.s.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.s, got, tc.want)
		}
	}
	if _, err := NewBoxSize(mgl64.Vec3{2, 4, 0}); err == nil {
		t.Error("NewBoxSize with a zero extent: no error")
	}
	if err := (Pose{}).Validate(); err == nil {
		t.Error("zero Pose validated")
	}
	if err := IdentityPose().Validate(); err != nil {
		t.Error(err)
	}
}

func TestPoseMul(t *testing.T) {
	p := atRot(1, 2, 3, 0.4, mgl64.Vec3{1, 1, 0})
	q := atRot(-0.5, 0.2, 0.1, 1.1, mgl64.Vec3{0, 1, 2})
	x := mgl64.Vec3{0.3, -0.7, 0.9}
	assertVec(t, p.Apply(q.Apply(x)), p.Mul(q).Apply(x), 1e-14, "(p·q)(x) = p(q(x))")
}

func TestBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	shapes := []Shape{must(NewBoxSize(mgl64.Vec3{1, 0.4, 0.6})), must(NewSphere(0.3)), must(NewCapsuleLength(0.2, 1)), must(NewCylinderLength(0.3, 0.2))}
	for it := 0; it < 200; it++ {
		s := shapes[it%len(shapes)]
		p := Pose{Pos: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}, Rot: randQuat(r)}
		bb := s.Bounds(p, 0.01)
		// Every point on the surface (sampled by shooting rays from the
		// centre, bisecting the signed distance) is inside, and each
		// side is touched to within the margin.
		var lo, hi mgl64.Vec3 = p.Pos, p.Pos
		for k := 0; k < 400; k++ {
			d := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize()
			a, b := 0.0, 2.0
			for j := 0; j < 60; j++ {
				m := (a + b) / 2
				if signedDist(s, p, p.Pos.Add(d.Mul(m))) < 0 {
					a = m
				} else {
					b = m
				}
			}
			x := p.Pos.Add(d.Mul(a))
			for i := 0; i < 3; i++ {
				lo[i], hi[i] = math.Min(lo[i], x[i]), math.Max(hi[i], x[i])
			}
		}
		for i := 0; i < 3; i++ {
			if lo[i] < bb.Min[i]+0.01-1e-12 || hi[i] > bb.Max[i]-0.01+1e-12 {
				t.Fatalf("%v: surface [%v, %v] not inside bounds %v", s.Kind, lo, hi, bb)
			}
		}
		// Tight: the exact extremes of box (vertices), sphere and capsule
		// (end spheres) plus the margin.
		var ext mgl64.Vec3
		switch s.Kind {
		case Box:
			for v := 0; v < 8; v++ {
				w := p.Rot.Rotate(s.BoxVertex(v))
				for i := 0; i < 3; i++ {
					ext[i] = math.Max(ext[i], math.Abs(w[i]))
				}
			}
		case Sphere:
			ext = mgl64.Vec3{0.3, 0.3, 0.3}
		case Capsule:
			w := p.Rot.Rotate(mgl64.Vec3{0, 0, s.halfLength()})
			for i := 0; i < 3; i++ {
				ext[i] = math.Abs(w[i]) + s.Radius
			}
		default:
			continue
		}
		for i := 0; i < 3; i++ {
			assertNear(t, p.Pos[i]+ext[i]+0.01, bb.Max[i], 1e-12, "Max")
			assertNear(t, p.Pos[i]-ext[i]-0.01, bb.Min[i], 1e-12, "Min")
		}
	}
	g := NewPlane().Bounds(at(0, 0, -0.5), 0.01)
	if !g.Unbounded() || g.Max[2] != -0.49 || g.Min[2] != -PlaneExtent || g.Max[0] != PlaneExtent {
		t.Errorf("ground bounds %v", g)
	}
	if tp := NewPlane().Bounds(atRot(0, 0, 0, 0.1, ex), 0); tp.Max[2] != PlaneExtent {
		t.Errorf("tilted plane bounds %v", tp)
	}
}

// Bricks of equal depth stacked in running bond: the top brick's long
// edges lie on the bottom brick's side planes up to rounding. Shifts and
// turns of rounding size (1e-15..1e-9 m or rad, as a resting wall's
// bricks drift by per step) must not change the keys: before the clip
// snap, the sign of the rounding chose between the top brick's vertex
// and two clip crossings, and the stepper saw new contacts every step.
func TestBoxOnBoxCoincidentEdgesKeys(t *testing.T) {
	brick := must(NewBoxSize(mgl64.Vec3{0.2, 0.1, 0.1}))
	bottom := at(0, 0, 0)
	const margin = 0.001
	ref := Collide(nil, brick, bottom, brick, at(0.1005, 0, 0.1), margin)
	if len(ref) != 4 {
		t.Fatalf("got %d points, want 4 (the corners of the 0.0995 × 0.1 overlap): %v", len(ref), ref)
	}
	want := keysOf(ref)
	for _, d := range []float64{1e-15, -1e-15, 1e-12, -1e-12, 1e-9, -1e-9} {
		for _, top := range []Pose{
			at(0.1005, d, 0.1), at(0.1005, 0, 0.1+d),
			atRot(0.1005, 0, 0.1, d, ez), atRot(0.1005, d, 0.1, d, ex), atRot(0.1005, -d, 0.1, d, ey),
		} {
			for _, order := range []bool{false, true} {
				var pts []Point
				if order {
					pts = Collide(nil, brick, top, brick, bottom, margin)
					for i := range pts {
						pts[i].Key = Key{pts[i].Key.B, pts[i].Key.A}
					}
				} else {
					pts = Collide(nil, brick, bottom, brick, top, margin)
				}
				got := keysOf(pts)
				if len(pts) != 4 || len(got) != 4 {
					t.Fatalf("d = %g, pose %v: %d points", d, top, len(pts))
				}
				for key := range got {
					if !want[key] {
						t.Errorf("d = %g, pose %v, reversed %v: key %#x not in %v", d, top, order, key, want)
					}
				}
			}
		}
	}
}

// planeBoxAll is planeBox without its early rejection: every vertex's gap
// computed from its world position, the reference planeBox must equal.
func planeBoxAll(dst []Point, fp *frame, half mgl64.Vec3, fb *frame, margin float64) []Point {
	return planeBoxVertices(dst, fp, half, fb, margin, false, nil)
}

// planeBox's early rejection of the vertices far above the margin leaves
// its points the same bits as computing every vertex (planeBoxAll): 200 000
// random boxes on random planes, placed so that a vertex's gap is the
// margin to within 10⁻¹⁵ to 10⁻³ m (the rejection's edge), resting flat
// (four vertices at one height) or far away (|p| up to 10⁶ m).
func TestPlaneBoxRejectSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 25))
	unit := func() mgl64.Vec3 {
		v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		return v.Normalize()
	}
	var got, want []Point
	points := 0
	for trial := range 200000 {
		qp := mgl64.QuatRotate(rng.Float64()*math.Pi, unit())
		qb := mgl64.QuatRotate(rng.Float64()*math.Pi, unit())
		if trial%4 == 0 {
			qp, qb = mgl64.QuatIdent(), mgl64.QuatIdent() // flat on a level floor
		}
		scale := math.Pow(10, rng.Float64()*6)
		fp, ok := frameOf(Pose{Pos: unit().Mul(scale * rng.Float64()), Rot: qp})
		if !ok {
			t.Fatal("plane frame")
		}
		half := mgl64.Vec3{0.01 + rng.Float64(), 0.01 + rng.Float64(), 0.01 + rng.Float64()}
		margin := 0.01 * rng.Float64()
		fb, ok := frameOf(Pose{Pos: unit().Mul(scale * rng.Float64()), Rot: qb})
		if !ok {
			t.Fatal("box frame")
		}
		// Move the box along the normal so that vertex k's gap is the
		// margin plus a small offset.
		n, off := planeOf(&fp)
		k := rng.IntN(8)
		g := n.Dot(fb.toWorld(boxVertex(half, k))) - off
		eps := math.Pow(10, -15+12*rng.Float64()) * float64(1-2*rng.IntN(2))
		fb.p = fb.p.Add(n.Mul(margin + eps - g))
		got = planeBox(got[:0], &fp, half, &fb, margin, nil)
		want = planeBoxAll(want[:0], &fp, half, &fb, margin)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
		points += len(got)
	}
	t.Logf("%d points compared", points)
	if points == 0 {
		t.Fatal("no points: the test compares nothing")
	}
}

// BenchmarkPlaneBox times the box on the ground of a settled pile, a unit
// box resting flat and slightly turned (four vertices within the margin):
// "reject" is planeBox, "all" planeBoxAll, the same points computing all
// eight vertices.
func BenchmarkPlaneBox(b *testing.B) {
	fp, _ := frameOf(Pose{Rot: mgl64.QuatIdent()})
	fb, _ := frameOf(Pose{Pos: mgl64.Vec3{0.3, -0.2, 0.0499}, Rot: mgl64.QuatRotate(0.4, mgl64.Vec3{0, 0, 1})})
	half := mgl64.Vec3{0.05, 0.05, 0.05}
	for _, c := range []struct {
		name string
		f    func([]Point, *frame, mgl64.Vec3, *frame, float64) []Point
	}{{"reject", func(dst []Point, fp *frame, half mgl64.Vec3, fb *frame, margin float64) []Point {
		return planeBox(dst, fp, half, fb, margin, nil)
	}}, {"all", planeBoxAll}} {
		b.Run(c.name, func(b *testing.B) {
			var pts []Point
			for b.Loop() {
				pts = c.f(pts[:0], &fp, half, &fb, 0.005)
			}
			if len(pts) != 4 {
				b.Fatalf("%d points, want 4", len(pts))
			}
		})
	}
}
