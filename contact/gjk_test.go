package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// GJK stops when |v| is within tol = 1e-9·(larger extent) of the distance
// (extents here ≤ 1 m), and EPA when its nearest face is within tol of
// D's boundary, so both are good to about 1e-9 m; 2e-9 m leaves room for
// rounding in the witness points.
const gjkTight = 2e-9

type distCase struct {
	name   string
	a      Shape
	pa     Pose
	b      Shape
	pb     Pose
	gap    float64    // analytic signed distance, m
	normal mgl64.Vec3 // analytic normal A → B (zero: not checked)
}

func distCases() []distCase {
	box := must(NewBoxSize(mgl64.Vec3{1, 0.8, 0.6}))
	cyl := must(NewCylinderLength(0.1, 0.4))
	sph := must(NewSphere(0.25))
	capsule := must(NewCapsuleLength(0.05, 0.6))
	const th = 0.4 // tilt of a cylinder about x, rad
	// A cylinder tilted by th about x: its lowest point is a rim point
	// hl·cos th + r·sin th below its centre.
	tiltDrop := 0.2*math.Cos(th) + 0.1*math.Sin(th)
	// A sphere of radius 0.25 near the rim of the end z = +0.2 of cyl: the
	// closest point of the cylinder is the rim point.
	rimX, rimZ := 0.1+0.3, 0.2+0.2
	return []distCase{
		{"sphere-box face", sph, at(0.1, 0.1, 0.8), box, at(0, 0, 0), 0.8 - 0.3 - 0.25, ez.Mul(-1)},
		{"sphere-box edge", sph, at(0.8, 0.6, 0), box, at(0, 0, 0), math.Hypot(0.3, 0.2) - 0.25, mgl64.Vec3{-0.3, -0.2, 0}.Normalize()},
		{"box-box rotated on top", box, at(0, 0, 0), box, atRot(0.1, 0, 0.75, 0.3, ez), 0.75 - 0.6, ez},
		{"box-cylinder standing", box, at(0, 0, 0), cyl, at(0.2, 0.1, 0.3+0.2+0.07), 0.07, ez},
		{"box-cylinder lying", box, at(0, 0, 0), cyl, atRot(0.2, 0.1, 0.3+0.1+0.03, math.Pi/2, ex), 0.03, ez},
		{"box-cylinder tilted", box, at(0, 0, 0), cyl, atRot(0, 0, 0.3+tiltDrop+0.02, th, ex), 0.02, ez},
		{"cylinder-cylinder side by side", cyl, at(0, 0, 0), cyl, at(0.3, 0.4, 0.05), 0.5 - 0.2, mgl64.Vec3{0.6, 0.8, 0}},
		{"cylinder-cylinder crossed", cyl, atRot(0, 0, 0, math.Pi/2, ex), cyl, atRot(0, 0, 0.25, math.Pi/2, ey), 0.05, ez},
		{"cylinder-sphere rim", cyl, at(0, 0, 0), sph, at(rimX, 0, rimZ), math.Hypot(0.3, 0.2) - 0.25, mgl64.Vec3{0.3, 0, 0.2}.Normalize()},
		{"capsule-cylinder", capsule, atRot(0, 0, 0.2+0.05+0.01, math.Pi/2, ey), cyl, at(0, 0, 0), 0.01, ez.Mul(-1)},
		{"capsule-box", capsule, at(0, 0, 0.3+0.3+0.05+0.02), box, at(0, 0, 0), 0.02, ez.Mul(-1)},
	}
}

// TestDistanceAnalytic: GJK distances and normals against closed forms.
func TestDistanceAnalytic(t *testing.T) {
	for _, tc := range distCases() {
		t.Run(tc.name, func(t *testing.T) {
			want, n, pb := tc.gap, tc.normal, tc.pb
			sep, ok := Distance(tc.a, tc.pa, tc.b, pb)
			if !ok {
				t.Fatal("not ok")
			}
			t.Logf("gap %.12g m, %d iterations", sep.Gap, sep.Iterations)
			assertNear(t, want, sep.Gap, gjkTight, "gap")
			if n != (mgl64.Vec3{}) {
				// The normal is the gradient of the distance; at the
				// tolerance it is good to tol/|features| ≈ 1e-8.
				assertVec(t, n.Normalize(), sep.Normal, 1e-7, "normal")
			}
			assertVec(t, sep.OnA.Add(sep.Normal.Mul(sep.Gap)), sep.OnB, gjkTight, "OnB = OnA + Gap·Normal")
			if d := signedDist(tc.a, tc.pa, sep.OnA); !near(d, 0, gjkTight) {
				t.Errorf("OnA at signed distance %v from A", d)
			}
			if d := signedDist(tc.b, pb, sep.OnB); !near(d, 0, gjkTight) {
				t.Errorf("OnB at signed distance %v from B", d)
			}
		})
	}
}

// TestPenetrationAnalytic: EPA depths against closed forms for overlaps
// whose minimal translation is known.
func TestPenetrationAnalytic(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{1, 0.8, 0.6}))
	cyl := must(NewCylinderLength(0.1, 0.4))
	const th = 0.3
	tiltDrop := 0.2*math.Cos(th) + 0.1*math.Sin(th)
	// Tolerances: EPA's depth is good to its tolerance (2e-9 m) where D's
	// boundary near the answer is flat (box faces, a cylinder's end or side
	// against a box face). Where it is curved both ways (two round sides,
	// a sphere in a cylinder) EPA's nearest face's normal is only good to
	// about √(2·tol/R) ≈ 5e-5 for D's radius of curvature R ≈ 0.2 m, though
	// the depth still is to tol; the refining GJK run brings the normal to
	// 2.5e-7 for two sides (bound 1e-6) and 6e-6 for a point in a side
	// (bound 1e-5; GJK's own √ limit on a curved surface). Coincident cylinders have a whole
	// circle of minimal translations: EPA runs to its 64 vertices and its
	// polygon of that circle is r(1 − cos(π/k)) short, 1e-5 m here, which
	// the refining GJK run (B moved apart along that normal) removes.
	for _, tc := range []struct {
		distCase
		depthTol, normalTol float64
	}{
		{distCase{"box-box", box, at(0, 0, 0), box, atRot(0.05, 0.02, 0.6-0.05, 0.2, ez), -0.05, ez}, gjkTight, 1e-9},
		{distCase{"box-cylinder standing", box, at(0, 0, 0), cyl, at(0.2, 0.1, 0.5-0.02), -0.02, ez}, gjkTight, 1e-9},
		{distCase{"box-cylinder lying", box, at(0, 0, 0), cyl, atRot(0.2, 0.1, 0.4-0.03, math.Pi/2, ex), -0.03, ez}, gjkTight, 1e-7},
		{distCase{"box-cylinder tilted", box, at(0, 0, 0), cyl, atRot(0, 0, 0.3+tiltDrop-0.01, th, ex), -0.01, ez}, gjkTight, 1e-7},
		{distCase{"cylinder-cylinder stacked", cyl, at(0, 0, 0), cyl, at(0.03, 0.01, 0.4-0.04), -0.04, ez}, gjkTight, 1e-9},
		{distCase{"cylinder-cylinder side by side", cyl, at(0, 0, 0), cyl, at(0.18, 0, 0.05), -0.02, ex}, gjkTight, 1e-6},
		{distCase{"sphere in cylinder", must(NewSphere(0.2)), at(0.1, 0, 0.05), cyl, at(0, 0, 0), -0.2, ex.Mul(-1)}, gjkTight, 1e-5},
		{distCase{"capsule-cylinder", must(NewCapsuleLength(0.05, 0.6)), atRot(0, 0, 0.2+0.05-0.01, math.Pi/2, ey), cyl, at(0, 0, 0), -0.01, ez.Mul(-1)}, gjkTight, 1e-9},
		{distCase{"coincident cylinders", cyl, at(0, 0, 0), cyl, at(0, 0, 0), -0.2, mgl64.Vec3{}}, gjkTight, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sep, ok := Distance(tc.a, tc.pa, tc.b, tc.pb)
			if !ok {
				t.Fatal("not ok")
			}
			t.Logf("gap %.12g m, %d iterations", sep.Gap, sep.Iterations)
			assertNear(t, tc.gap, sep.Gap, tc.depthTol, "gap = −depth")
			if tc.normal != (mgl64.Vec3{}) {
				assertVec(t, tc.normal, sep.Normal, tc.normalTol, "normal")
			}
			if !near(sep.Normal.Len(), 1, 1e-12) {
				t.Errorf("|normal| = %v", sep.Normal.Len())
			}
			// Moving B by −Gap·Normal leaves the shapes touching (to the
			// depth tolerance and the normal's error times the depth).
			pb := tc.pb
			pb.Pos = pb.Pos.Sub(sep.Normal.Mul(sep.Gap))
			after, _ := Distance(tc.a, tc.pa, tc.b, pb)
			assertNear(t, 0, after.Gap, tc.depthTol+1e-8, "gap after the minimal translation")
		})
	}
}

// TestDistanceGradient: the normal is the gradient of the signed distance
// with respect to translating B (separated: GJK; overlapping: EPA refined
// by GJK), checked by central differences on seeded random poses of
// cylinder pairs. Step 1e-5 m: the tolerance's noise 2·1e-9/2ε ≈ 1e-4 and
// the curvature term O(ε/R) ≈ 1e-4 stay below 1e-3. Deep overlaps have
// ridges where two translations tie and the gradient jumps; poses whose
// one-sided differences disagree by more than 1e-3 are on one and skipped.
func TestDistanceGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	shapes := []Shape{must(NewCylinderLength(0.1, 0.4)), must(NewCylinderLength(0.3, 0.1)), must(NewBoxSize(mgl64.Vec3{0.6, 0.2, 0.4})),
		must(NewSphere(0.15)), must(NewCapsuleLength(0.1, 0.4))}
	const eps = 1e-5
	checked, kinks := 0, 0
	for it := 0; it < 300; it++ {
		a, b := shapes[r.IntN(2)], shapes[r.IntN(len(shapes))]
		pa := Pose{Pos: mgl64.Vec3{}, Rot: randQuat(r)}
		pb := Pose{Pos: mgl64.Vec3{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}.Mul(0.8), Rot: randQuat(r)}
		sep, _ := Distance(a, pa, b, pb)
		if math.Abs(sep.Gap) < 1e-3 {
			continue // at touching the gradient jumps between GJK and EPA normals
		}
		for k := 0; k < 3; k++ {
			var d mgl64.Vec3
			d[k] = eps
			p1, p2 := pb, pb
			p1.Pos, p2.Pos = pb.Pos.Add(d), pb.Pos.Sub(d)
			s1, _ := Distance(a, pa, b, p1)
			s2, _ := Distance(a, pa, b, p2)
			if math.Abs((s1.Gap-sep.Gap)-(sep.Gap-s2.Gap))/eps > 1e-3 {
				kinks++
				continue
			}
			fd := (s1.Gap - s2.Gap) / (2 * eps)
			if !near(fd, sep.Normal[k], 1e-3) {
				t.Errorf("it %d (%v–%v, gap %.4g): ∂gap/∂x_%d = %.6f, normal %.6f", it, a.Kind, b.Kind, sep.Gap, k, fd, sep.Normal[k])
			}
		}
		checked++
	}
	t.Logf("%d poses, %d derivatives on ridges skipped", checked, kinks)
	if checked < 200 || kinks > checked/5 {
		t.Errorf("%d poses checked, %d derivatives skipped", checked, kinks)
	}
}

func TestDistanceInvalid(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{2, 2, 2}))
	for _, tc := range []struct {
		name string
		a    Shape
		pa   Pose
	}{
		{"plane", NewPlane(), IdentityPose()},
		{"zero pose", box, Pose{}},
		{"NaN pos", box, Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}},
		{"bad cylinder", Shape{Kind: Cylinder, Radius: 1}, IdentityPose()},
	} {
		if _, ok := Distance(tc.a, tc.pa, box, IdentityPose()); ok {
			t.Errorf("%s: ok", tc.name)
		}
	}
}

func TestSupported(t *testing.T) {
	for a := Plane; a <= Heightfield; a++ {
		for b := Plane; b <= Heightfield; b++ {
			if got, want := Supported(a, b), !(StaticOnly(a) && StaticOnly(b)); got != want {
				t.Errorf("Supported(%v, %v) = %v", a, b, got)
			}
		}
	}
	if Supported(Kind(8), Box) || Supported(Box, Kind(-1)) || Supported(triangleKind, Box) {
		t.Error("unknown kinds supported")
	}
}

func BenchmarkDistanceBoxCylinder(b *testing.B) {
	box := must(NewBoxSize(mgl64.Vec3{1, 0.8, 0.6}))
	cyl := must(NewCylinderLength(0.1, 0.4))
	for _, c := range []struct {
		name string
		z    float64
	}{{"apart", 0.55}, {"overlap", 0.45}} {
		b.Run(c.name, func(b *testing.B) {
			pb := atRot(0.1, 0, c.z, 0.3, ex)
			b.ReportAllocs()
			for b.Loop() {
				Distance(box, at(0, 0, 0), cyl, pb)
			}
		})
	}
}
