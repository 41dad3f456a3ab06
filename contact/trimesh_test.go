package contact

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/mesh"
)

// flatGrid is the plane z = 0 over [x0, x0 + nx c] × [y0, y0 + ny c] as a
// grid of cells of side c, each split in two along alternating diagonals,
// with heights z(x, y) if z is not nil.
func flatGrid(nx, ny int, c, x0, y0 float64, z func(x, y float64) float64) *mesh.Mesh {
	m := &mesh.Mesh{}
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			x, y := x0+float64(i)*c, y0+float64(j)*c
			h := 0.0
			if z != nil {
				h = z(x, y)
			}
			m.Vertices = append(m.Vertices, mgl64.Vec3{x, y, h})
		}
	}
	v := func(i, j int) int { return j*(nx+1) + i }
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a, b, cc, d := v(i, j), v(i+1, j), v(i+1, j+1), v(i, j+1)
			if (i+j)%2 == 0 {
				m.Triangles = append(m.Triangles, [3]int{a, b, cc}, [3]int{a, cc, d})
			} else {
				m.Triangles = append(m.Triangles, [3]int{a, b, d}, [3]int{b, cc, d})
			}
		}
	}
	return m
}

// On a flat triangulated plane every convex kind gets the contact the
// plane gives: every normal +z and the least gap equal to the plane's to
// 1e-9 m (GJK/EPA's tolerance, 1e-9 of the extent), for shapes resting
// tilted and level, 1 mm apart and 1 mm deep; the heightfield of the same
// plane gives the same least gap. Collide with the arguments swapped is
// the exact mirror.
func TestMeshMatchesPlane(t *testing.T) {
	tm := must(NewTriMesh(flatGrid(10, 10, 0.1, -0.5, -0.5, nil)))
	hf := must(NewHeightfield(11, 11, 0.1, 0.1, make([]float64, 121)))
	shapes := []Shape{
		must(NewBoxSize(mgl64.Vec3{0.2, 0.15, 0.1})),
		must(NewSphere(0.05)),
		must(NewCapsuleLength(0.04, 0.2)),
		must(NewCylinderLength(0.05, 0.12)),
		cubeHull(t, mgl64.Vec3{0.12, 0.1, 0.08}),
	}
	plane := NewPlane()
	for _, s := range shapes {
		for _, rot := range []mgl64.Quat{mgl64.QuatIdent(), mgl64.QuatRotate(0.3, mgl64.Vec3{1, 2, 0.5}.Normalize())} {
			for _, d := range []float64{1e-3, -1e-3} {
				p := Pose{Pos: mgl64.Vec3{0.037, -0.021, 0}, Rot: rot}
				low := s.Bounds(p, 0).Min[2]
				p.Pos[2] = d - low
				want := Collide(nil, plane, IdentityPose(), s, p, 0.01)
				if len(want) == 0 {
					t.Fatalf("%v: no plane contact", s.Kind)
				}
				for _, g := range []Shape{tm, hf} {
					got := Collide(nil, g, IdentityPose(), s, p, 0.01)
					if len(got) == 0 {
						t.Errorf("%v on %v: no contact", s.Kind, g.Kind)
						continue
					}
					minG := math.Inf(1)
					for _, q := range got {
						assertVec(t, mgl64.Vec3{0, 0, 1}, q.Normal, 1e-9, s.Kind.String()+" normal")
						minG = math.Min(minG, q.Gap)
					}
					assertNear(t, minGap(want), minG, 1e-9, s.Kind.String()+" on "+g.Kind.String()+" least gap")
					mir := Collide(nil, s, p, g, IdentityPose(), 0.01)
					if len(mir) != len(got) {
						t.Fatalf("mirror: %d points, want %d", len(mir), len(got))
					}
					for i := range got {
						if mir[i].Pos != got[i].Pos || mir[i].Gap != got[i].Gap || mir[i].Normal != got[i].Normal.Mul(-1) || mir[i].Key != (Key{got[i].Key.B, got[i].Key.A}) {
							t.Errorf("mirror point %d: %+v vs %+v", i, mir[i], got[i])
						}
					}
				}
			}
		}
	}
}

func minGap(ps []Point) float64 {
	m := math.Inf(1)
	for _, p := range ps {
		m = math.Min(m, p.Gap)
	}
	return m
}

// A sphere over a ridge (two triangles meeting at a convex 20° bend) gets
// the normal from the ridge line to its centre when it lies over the
// ridge, and the face normal over a face: the convex edge keeps its
// Voronoi region; its gap is the distance to the ridge minus the radius.
func TestMeshConvexEdgeNormal(t *testing.T) {
	s := math.Sin(10 * math.Pi / 180)
	c := math.Cos(10 * math.Pi / 180)
	m := &mesh.Mesh{
		Vertices:  []mgl64.Vec3{{-c, -1, -s}, {0, -1, 0}, {0, 1, 0}, {-c, 1, -s}, {c, -1, -s}, {c, 1, -s}},
		Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {1, 4, 5}, {1, 5, 2}},
	}
	tm := must(NewTriMesh(m))
	sp := must(NewSphere(0.1))
	got := Collide(nil, tm, IdentityPose(), sp, at(0, 0.2, 0.099), 0.01)
	if len(got) != 1 {
		t.Fatalf("over the ridge: %d points, want 1: %+v", len(got), got)
	}
	assertVec(t, mgl64.Vec3{0, 0, 1}, got[0].Normal, 1e-9, "ridge normal")
	assertNear(t, -0.001, got[0].Gap, 1e-9, "ridge gap")
	// Over the right face, 0.3 m from the ridge: the face normal.
	n := mgl64.Vec3{s, 0, c}
	on := mgl64.Vec3{0.3 * c, 0.2, -0.3 * s}
	got = Collide(nil, tm, IdentityPose(), sp, at(on.Add(n.Mul(0.1))[0], on[1], on.Add(n.Mul(0.1))[2]), 0.01)
	if len(got) != 1 {
		t.Fatalf("over the face: %d points, want 1", len(got))
	}
	assertVec(t, n, got[0].Normal, 1e-9, "face normal")
	assertNear(t, 0, got[0].Gap, 1e-9, "face gap")
}

// Keys persist: a box resting on a triangulated plane, moved by 1 µm and
// turned by 1 µrad, keeps every key; no two points of the pair share one.
func TestMeshKeysPersist(t *testing.T) {
	tm := must(NewTriMesh(flatGrid(10, 10, 0.1, -0.5, -0.5, nil)))
	box := must(NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2}))
	a := Collide(nil, tm, IdentityPose(), box, at(0.013, 0.021, 0.0999), 0.01)
	b := Collide(nil, tm, IdentityPose(), box, atRot(0.013+1e-6, 0.021, 0.0999, 1e-6, mgl64.Vec3{0, 0, 1}), 0.01)
	if len(a) != len(b) || len(a) < 4 {
		t.Fatalf("%d vs %d points", len(a), len(b))
	}
	seen := map[Key]bool{}
	for i := range a {
		if a[i].Key != b[i].Key {
			t.Errorf("point %d: key %v became %v", i, a[i].Key, b[i].Key)
		}
		if seen[a[i].Key] {
			t.Errorf("point %d: key %v repeated", i, a[i].Key)
		}
		seen[a[i].Key] = true
	}
}

// Bad input names the field and value.
func TestTriMeshErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(NewTriMesh(&mesh.Mesh{})), "Triangles"},
		{second(NewTriMesh(&mesh.Mesh{Vertices: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, Triangles: [][3]int{{0, 1, 2}}})), "Triangles[0]: has zero area"},
		{second(NewTriMesh(&mesh.Mesh{Vertices: []mgl64.Vec3{{0, 0, 0}}, Triangles: [][3]int{{0, 1, 2}}})), "trimesh:"},
		{second(NewHeightfield(1, 3, 1, 1, make([]float64, 3))), "nx: must be ≥ 2, got 1"},
		{second(NewHeightfield(2, 2, 0, 1, make([]float64, 4))), "dx: must be finite and > 0, got 0"},
		{second(NewHeightfield(2, 2, 1, 1, make([]float64, 3))), "heights: must have nx·ny = 4 values, got 3"},
		{second(NewHeightfield(2, 2, 1, 1, []float64{0, 0, math.NaN(), 0})), "heights[2]: must be finite, got NaN"},
		{Shape{Kind: TriMesh}.Validate(), "Mesh"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want it to contain %q", c.err, c.want)
		}
		var fe *FieldError
		if c.want != "trimesh:" && !errors.As(c.err, &fe) {
			t.Errorf("%v: not a FieldError", c.err)
		}
	}
	if !StaticOnly(TriMesh) || !StaticOnly(Heightfield) || Supported(TriMesh, Plane) || !Supported(TriMesh, Convex) {
		t.Error("StaticOnly/Supported")
	}
}

func second(_ Shape, err error) error { return err }

// terrain is a 10 000-triangle rolling mesh, 50 × 100 cells of 0.1 m.
func terrain() Shape {
	return must(NewTriMesh(flatGrid(50, 100, 0.1, -2.5, -5, func(x, y float64) float64 {
		return 0.05 * math.Sin(1.3*x) * math.Cos(0.9*y)
	})))
}

// A box resting on a 10 000-triangle terrain: the tree narrows the pair to
// the triangles under it; steady calls allocate nothing.
func BenchmarkCollideBoxTriMesh(b *testing.B) {
	tm := terrain()
	box := must(NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2}))
	p := at(0.31, 0.47, 0)
	p.Pos[2] = 0.05*math.Sin(1.3*0.31)*math.Cos(0.9*0.47) + 0.099
	dst := make([]Point, 0, 256)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		dst = Collide(dst[:0], tm, IdentityPose(), box, p, 0.005)
		n = len(dst)
	}
	b.ReportMetric(float64(n), "points")
}

// Rays down onto the rolling terrain hit it at the height of the surface
// there (the mesh interpolates z linearly: checked against the hit
// triangle's plane to 1e-12 m and the analytic surface to 0.1 × the
// curvature error c²·|z”|/8 ≈ 1e-4 m), on the mesh and on the heightfield
// of the same samples alike (same T to 1e-12); a ray that misses reports
// false.
func TestMeshRaycast(t *testing.T) {
	z := func(x, y float64) float64 { return 0.05 * math.Sin(1.3*x) * math.Cos(0.9*y) }
	tm := must(NewTriMesh(flatGrid(50, 100, 0.1, -2.5, -5, z)))
	const nx, ny = 51, 101
	h := make([]float64, nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			h[j*nx+i] = z(-2.5+0.1*float64(i), -5+0.1*float64(j))
		}
	}
	hf := must(NewHeightfield(nx, ny, 0.1, 0.1, h))
	for _, p := range [][2]float64{{0.31, 0.47}, {-1.234, 3.3}, {2.2, -4.9}} {
		from := mgl64.Vec3{p[0], p[1], 1}
		hit, ok := tm.Mesh.Raycast(from, mgl64.Vec3{0, 0, -1}, 5)
		if !ok {
			t.Fatalf("%v: no hit", p)
		}
		tr := tm.Mesh.Triangle(hit.Triangle)
		x := from.Add(mgl64.Vec3{0, 0, -hit.T})
		assertNear(t, 0, hit.Normal.Dot(x.Sub(tr[0])), 1e-12, "hit on the triangle's plane")
		assertNear(t, z(p[0], p[1]), x[2], 1e-4, "hit height")
		hh, ok := hf.Field.Raycast(from, mgl64.Vec3{0, 0, -1}, 5)
		if !ok {
			t.Fatalf("%v: heightfield no hit", p)
		}
		assertNear(t, hit.T, hh.T, 1e-3, "heightfield T") // the grids split cells along different diagonals
		if hit.Normal[2] <= 0 {
			t.Errorf("normal %v does not face the ray", hit.Normal)
		}
	}
	if _, ok := tm.Mesh.Raycast(mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, 1}, 5); ok {
		t.Error("a ray pointing away hit")
	}
	if _, ok := hf.Field.Raycast(mgl64.Vec3{10, 0, 1}, mgl64.Vec3{0, 0, -1}, 5); ok {
		t.Error("a ray beside the field hit")
	}
}

// A box resting on a closed mesh (the cube [0, 0.2]³, its 12 triangles)
// exactly over its top face, 1 mm apart, 0.1 mm and 5 mm deep: only the
// top face's 4 corners, normal +z, gap as given to 1e-12 m; the side
// faces, which the box lies behind, give nothing (their back side is the
// deeper way out).
func TestClosedMeshTop(t *testing.T) {
	m, err := mesh.Load("../testdata/models/cube.obj", mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	tm := must(NewTriMesh(m))
	box := must(NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2}))
	for _, g := range []float64{1e-3, -1e-4, -5e-3} {
		ps := Collide(nil, tm, IdentityPose(), box, at(0.1, 0.1, 0.3+g), 0.005)
		if len(ps) != 4 {
			t.Fatalf("gap %v: %d points, want 4: %+v", g, len(ps), ps)
		}
		for _, p := range ps {
			assertVec(t, mgl64.Vec3{0, 0, 1}, p.Normal, 1e-12, "normal")
			assertNear(t, g, p.Gap, 1e-12, "gap")
		}
	}
}

// FuzzCollideMesh: a box, sphere, capsule or cylinder at any finite pose
// against a rumpled 200-triangle mesh and the heightfield of the same
// samples gives finite points with unit normals and Gap ≤ margin, and
// the exact mirror when the arguments are swapped. The seeds run in plain
// go test.
func FuzzCollideMesh(f *testing.F) {
	f.Add(uint8(1), 0.1, 0.05, 0.03, 0.2, -0.1, 0.05, 1.0, 0.1, 0.2, 0.0, 0.01)
	f.Add(uint8(2), 0.05, 0.1, 0.03, 0.0, 0.0, -0.5, 0.3, 0.9, 0.1, 0.2, 0.01)  // deep under the surface
	f.Add(uint8(3), 0.04, 0.2, 0.03, -0.5, 0.5, 0.02, 0.7, 0.0, 0.7, 0.0, 0.05) // on the border
	f.Add(uint8(4), 0.3, 0.1, 0.3, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
	z := func(x, y float64) float64 { return 0.03*math.Sin(7*x) + 0.02*math.Cos(5*y) }
	tm := must(NewTriMesh(flatGrid(10, 10, 0.1, -0.5, -0.5, z)))
	h := make([]float64, 121)
	for j := 0; j < 11; j++ {
		for i := 0; i < 11; i++ {
			h[j*11+i] = z(-0.5+0.1*float64(i), -0.5+0.1*float64(j))
		}
	}
	hf := must(NewHeightfield(11, 11, 0.1, 0.1, h))
	f.Fuzz(func(t *testing.T, k uint8, s1, s2, s3, x, y, zz, qw, qx, qy, qz, margin float64) {
		for _, v := range []float64{s1, s2, s3, x, y, zz, qw, qx, qy, qz, margin} {
			if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e3 {
				return
			}
		}
		s := Shape{Kind: Kind(1 + k%4), Size: mgl64.Vec3{2 * s1, 2 * s2, 2 * s3}, Radius: s1, Length: 2 * s2}
		q := mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
		if s.Validate() != nil || q.Len() < 1e-6 || margin < 0 {
			return
		}
		p := Pose{Pos: mgl64.Vec3{x, y, zz}, Rot: q.Normalize()}
		for _, g := range []Shape{tm, hf} {
			got := Collide(nil, g, IdentityPose(), s, p, margin)
			for _, c := range got {
				if !num.FiniteVec(c.Pos) || math.Abs(c.Normal.Len()-1) > 1e-9 || !(c.Gap <= margin) {
					t.Fatalf("%v on %v: bad point %+v", s.Kind, g.Kind, c)
				}
			}
			mir := Collide(nil, s, p, g, IdentityPose(), margin)
			if len(mir) != len(got) {
				t.Fatalf("mirror: %d points, want %d", len(mir), len(got))
			}
			for i := range got {
				if mir[i].Pos != got[i].Pos || mir[i].Normal != got[i].Normal.Mul(-1) || mir[i].Gap != got[i].Gap {
					t.Fatalf("mirror point %d differs", i)
				}
			}
		}
	})
}
