package mesh

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
)

// boxCorners returns the 8 corners of the box of full sides s centred at c.
func boxCorners(c, s mgl64.Vec3) []mgl64.Vec3 {
	var p []mgl64.Vec3
	for i := 0; i < 8; i++ {
		v := c
		for k := 0; k < 3; k++ {
			if i>>k&1 == 1 {
				v[k] += s[k] / 2
			} else {
				v[k] -= s[k] / 2
			}
		}
		p = append(p, v)
	}
	return p
}

// icosphere is Icosphere for arguments the tests know to be valid.
func icosphere(level int, r float64) *Mesh {
	m, err := Icosphere(level, r)
	if err != nil {
		panic(err)
	}
	return m
}

func ballPoints(n int, seed uint64) []mgl64.Vec3 {
	rng := rand.New(rand.NewPCG(seed, 26))
	var p []mgl64.Vec3
	for len(p) < n {
		v := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		if v.Len() <= 1 {
			p = append(p, v)
		}
	}
	return p
}

// checkHull verifies the structural guarantees of a hull of points: Euler's
// formula, each edge in two faces in opposite directions, every vertex in
// ≥ 3 faces, faces convex and planar within tol, every input point inside
// within tol, vertices taken from the input.
func checkHull(t testing.TB, h *Hull, points []mgl64.Vec3) {
	t.Helper()
	V, E, F := len(h.Vertices), len(h.Edges), len(h.Faces)
	if V-E+F != 2 {
		t.Fatalf("Euler: V−E+F = %d−%d+%d = %d, want 2", V, E, F, V-E+F)
	}
	for i, e := range h.Edges {
		if e.F[0] < 0 || e.F[1] < 0 || e.F[0] == e.F[1] {
			t.Fatalf("edge %d %v: faces %v, want two distinct", i, e.V, e.F)
		}
	}
	// Face checks on the vertices scaled by a power of two into [−1, 1]
	// (exact), so that products of tiny or huge coordinates stay in range.
	var big float64
	for _, p := range points {
		big = max(big, math.Abs(p[0]), math.Abs(p[1]), math.Abs(p[2]))
	}
	_, exp := math.Frexp(big)
	sv := make([]mgl64.Vec3, V)
	for i, v := range h.Vertices {
		sv[i] = mgl64.Vec3{math.Ldexp(v[0], -exp), math.Ldexp(v[1], -exp), math.Ldexp(v[2], -exp)}
	}
	tol := math.Ldexp(h.Tol, -exp)
	inFaces := make([]int, V)
	for f, loop := range h.Faces {
		n, d := h.Normals[f], math.Ldexp(h.Offsets[f], -exp)
		if math.Abs(n.Len()-1) > 1e-12 {
			t.Fatalf("face %d normal %v not unit", f, n)
		}
		for i, v := range loop {
			inFaces[v]++
			// On its plane within tol (rounding of the offset allowed above).
			if dist := n.Dot(sv[v]) - d; dist > 1e-15 || dist < -tol {
				t.Fatalf("face %d vertex %d: distance %.3g to the plane, tol %.3g", f, v, dist, tol)
			}
			// Convex: each corner turns left about the normal (collinear within tol allowed).
			a, b, c := sv[loop[(i+len(loop)-1)%len(loop)]], sv[v], sv[loop[(i+1)%len(loop)]]
			if turn := b.Sub(a).Cross(c.Sub(b)).Dot(n); turn < -tol*(b.Sub(a).Len()+c.Sub(b).Len()) {
				t.Fatalf("face %d is not convex at vertex %d: turn %.3g", f, v, turn)
			}
		}
	}
	for v, c := range inFaces {
		if c < 3 {
			t.Fatalf("vertex %d in %d faces, want ≥ 3", v, c)
		}
		if points[h.Index[v]] != h.Vertices[v] {
			t.Fatalf("vertex %d is not points[%d]", v, h.Index[v])
		}
		if v > 0 && h.Index[v] <= h.Index[v-1] {
			t.Fatalf("Index not ascending at %d", v)
		}
	}
	for i, p := range points {
		if !h.Contains(p) {
			worst := math.Inf(-1)
			for f, n := range h.Normals {
				worst = math.Max(worst, n.Dot(p)-h.Offsets[f])
			}
			t.Fatalf("point %d %v outside the hull by %.3g (tol %.3g)", i, p, worst, h.Tol)
		}
	}
}

func TestHullCube(t *testing.T) {
	// A 2×3×4 m box away from the origin: 8 corners → 6 quadrilaterals,
	// 12 edges, volume 24 m³ and inertia body.BoxInertia, to rounding
	// (1e-12 relative: a few dozen flops on numbers of order 10).
	c, s := mgl64.Vec3{5, -7, 3}, mgl64.Vec3{2, 3, 4}
	pts := boxCorners(c, s)
	h, err := NewHull(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts)
	if h.Tol != DefaultTol(pts) {
		t.Fatalf("Tol %g, want the default %g: the box is exact", h.Tol, DefaultTol(pts))
	}
	if len(h.Vertices) != 8 || len(h.Faces) != 6 || len(h.Edges) != 12 {
		t.Fatalf("V, F, E = %d, %d, %d, want 8, 6, 12", len(h.Vertices), len(h.Faces), len(h.Edges))
	}
	for f, loop := range h.Faces {
		if len(loop) != 4 {
			t.Fatalf("face %d has %d corners, want 4", f, len(loop))
		}
		n := h.Normals[f]
		axis := 0
		for k := 1; k < 3; k++ {
			if math.Abs(n[k]) > math.Abs(n[axis]) {
				axis = k
			}
		}
		if math.Abs(math.Abs(n[axis])-1) > 1e-15 {
			t.Fatalf("face %d normal %v not along an axis", f, n)
		}
		if want := math.Copysign(1, n[axis])*c[axis] + s[axis]/2; math.Abs(h.Offsets[f]-want) > 1e-14 {
			t.Fatalf("face %d offset %v, want %v", f, h.Offsets[f], want)
		}
	}
	const rho = 7800.0
	m, com, I, err := h.MassProperties(rho)
	if err != nil {
		t.Fatal(err)
	}
	wantM := rho * 24
	if math.Abs(m-wantM) > 1e-12*wantM {
		t.Fatalf("mass %v, want %v", m, wantM)
	}
	if com.Sub(c).Len() > 1e-12 {
		t.Fatalf("com %v, want %v", com, c)
	}
	wantI := body.BoxInertia(wantM, s[0], s[1], s[2])
	for i := range I {
		if math.Abs(I[i]-wantI[i]) > 1e-12*wantI[0] {
			t.Fatalf("inertia %v, want %v", I, wantI)
		}
	}
}

func TestHullCubeWithPointsOnItsBoundary(t *testing.T) {
	// Face centres, edge midpoints, interior points and duplicates of a
	// unit cube are not hull vertices: still 8 corners and 6 quadrilaterals
	// (the coplanar triangles merged, collinear edge points dropped).
	var pts []mgl64.Vec3
	for _, x := range []float64{-0.5, 0, 0.5} {
		for _, y := range []float64{-0.5, 0, 0.5} {
			for _, z := range []float64{-0.5, 0, 0.5} {
				pts = append(pts, mgl64.Vec3{x, y, z})
			}
		}
	}
	for _, p := range ballPoints(50, 3) {
		pts = append(pts, p.Mul(0.5))
	}
	pts = append(pts, boxCorners(mgl64.Vec3{}, mgl64.Vec3{1, 1, 1})...) // the corners again, at indices 77..84
	h, err := NewHull(pts, 1e-9)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, pts)
	if h.Tol != 1e-9 {
		t.Fatalf("Tol %g, want the 1e-9 given", h.Tol)
	}
	if len(h.Vertices) != 8 || len(h.Faces) != 6 {
		t.Fatalf("V, F = %d, %d, want 8, 6: faces %v", len(h.Vertices), len(h.Faces), h.Faces)
	}
	for _, f := range h.Faces {
		if len(f) != 4 {
			t.Fatalf("faces %v, want quadrilaterals", h.Faces)
		}
	}
	if v := h.Volume(); math.Abs(v-1) > 1e-14 {
		t.Fatalf("volume %v, want 1", v)
	}
}

func TestHullExtremeScales(t *testing.T) {
	// The hull is computed on the points scaled by a power of two, and so
	// are the mass integrals: a box of sides 2×3×4 scaled by s = 1e±60
	// (inertia ~1e±300) has the same 6 quadrilaterals, volume 24·s³ and
	// inertia BoxInertia·s⁵ to rounding (1e-12).
	for _, sc := range []float64{1e-60, 1e-30, 1e30, 1e60} {
		size := mgl64.Vec3{2, 3, 4}.Mul(sc)
		pts := boxCorners(mgl64.Vec3{1, 2, 3}.Mul(sc), size)
		h, err := NewHull(pts, 0)
		if err != nil {
			t.Fatal(sc, err)
		}
		if len(h.Faces) != 6 || len(h.Vertices) != 8 {
			t.Fatalf("scale %g: %d faces, %d vertices", sc, len(h.Faces), len(h.Vertices))
		}
		m, _, I, err := h.MassProperties(1)
		if err != nil {
			t.Fatal(sc, err)
		}
		want := 24 * sc * sc * sc
		wantI := body.BoxInertia(want, size[0], size[1], size[2])
		if math.Abs(m-want) > 1e-12*want || math.Abs(I[0]-wantI[0]) > 1e-12*wantI[0] {
			t.Fatalf("scale %g: volume %g Ixx %g, want %g, %g", sc, m, I[0], want, wantI[0])
		}
	}
	// Beyond float64: the inertia of a box of side 1e70 (1e350) is an error.
	h, _ := NewHull(boxCorners(mgl64.Vec3{}, mgl64.Vec3{1e70, 1e70, 1e70}), 0)
	if _, _, _, err := h.MassProperties(1); err == nil || !strings.Contains(err.Error(), "beyond float64 range") {
		t.Fatalf("overflowing inertia: %v", err)
	}
}

func TestHullMergedPolygons(t *testing.T) {
	// A 9×9×9 grid of the unit cube (729 points, 602 on its surface, many
	// collinear along the edges): 8 corners, 6 quadrilaterals.
	var grid []mgl64.Vec3
	for i := 0; i <= 8; i++ {
		for j := 0; j <= 8; j++ {
			for k := 0; k <= 8; k++ {
				grid = append(grid, mgl64.Vec3{float64(i) / 8, float64(j) / 8, float64(k) / 8})
			}
		}
	}
	h, err := NewHull(grid, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, grid)
	if len(h.Vertices) != 8 || len(h.Faces) != 6 || h.Volume() != 1 {
		t.Fatalf("grid: V, F = %d, %d, volume %v, want 8, 6, 1", len(h.Vertices), len(h.Faces), h.Volume())
	}
	// A regular 20-gon prism of radius 1 and height 2: two 20-gons and 20
	// quadrilaterals; volume (20/2)·sin(2π/20)·2 exactly for the polygon.
	var prism []mgl64.Vec3
	for _, z := range []float64{-1, 1} {
		for i := 0; i < 20; i++ {
			a := 2 * math.Pi * float64(i) / 20
			prism = append(prism, mgl64.Vec3{math.Cos(a), math.Sin(a), z})
		}
	}
	h, err = NewHull(prism, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, prism)
	counts := map[int]int{}
	for _, f := range h.Faces {
		counts[len(f)]++
	}
	if len(h.Faces) != 22 || counts[20] != 2 || counts[4] != 20 {
		t.Fatalf("prism: faces by corner count %v, want 2 of 20 and 20 of 4", counts)
	}
	if want := 10 * math.Sin(2*math.Pi/20) * 2; math.Abs(h.Volume()-want) > 1e-14*want {
		t.Fatalf("prism volume %v, want %v", h.Volume(), want)
	}
}

func TestHullRandomBall(t *testing.T) {
	for _, n := range []int{4, 10, 100, 1000, 5000} {
		pts := ballPoints(n, uint64(n))
		h, err := NewHull(pts, 0)
		if err != nil {
			t.Fatal(n, err)
		}
		checkHull(t, h, pts)
		if h.Tol != DefaultTol(pts) {
			t.Fatalf("n=%d: Tol raised from %.3g to %.3g", n, DefaultTol(pts), h.Tol)
		}
		// Random points in general position: every face a triangle.
		for _, f := range h.Faces {
			if len(f) != 3 {
				t.Fatalf("n=%d: a face of %d corners", n, len(f))
			}
		}
		// Support agrees with the brute-force maximum over the input.
		for _, d := range ballPoints(20, 99) {
			sv, _ := h.Support(d)
			best := math.Inf(-1)
			for _, p := range pts {
				best = math.Max(best, p.Dot(d))
			}
			if sv.Dot(d) != best {
				t.Fatalf("n=%d: support along %v is %v, brute force %v", n, d, sv.Dot(d), best)
			}
		}
	}
}

func TestHullSpherePointsAllVertices(t *testing.T) {
	// Every vertex of an icosphere is on the hull: 642 vertices, 1280
	// triangles, 1920 edges.
	s := icosphere(3, 2)
	h, err := s.Hull(0)
	if err != nil {
		t.Fatal(err)
	}
	checkHull(t, h, s.Vertices)
	if h.Tol != DefaultTol(s.Vertices) {
		t.Fatalf("Tol raised from %.3g to %.3g", DefaultTol(s.Vertices), h.Tol)
	}
	if len(h.Vertices) != 642 || len(h.Faces) != 1280 || len(h.Edges) != 1920 {
		t.Fatalf("V, F, E = %d, %d, %d, want 642, 1280, 1920", len(h.Vertices), len(h.Faces), len(h.Edges))
	}
}

func TestHullTranslated(t *testing.T) {
	// Moving the hull of random points to its centre of mass: the moved
	// hull equals the hull of the moved points in topology, its offsets
	// shift by n·d (1e-13 absolute: coordinates of order 10), and its
	// centre of mass is the origin.
	pts := ballPoints(200, 4)
	for i := range pts {
		pts[i] = pts[i].Add(mgl64.Vec3{3, -4, 5})
	}
	h, _ := NewHull(pts, 0)
	_, com, _, _ := h.MassProperties(1)
	c := h.Translated(com.Mul(-1))
	_, com2, _, _ := c.MassProperties(1)
	if com2.Len() > 1e-13 {
		t.Fatalf("centre of mass after Translated(−com): %v", com2)
	}
	moved := make([]mgl64.Vec3, len(pts))
	for i, p := range pts {
		moved[i] = p.Sub(com)
	}
	checkHull(t, c, moved)
	for f := range c.Faces {
		if d := c.Offsets[f] - c.Normals[f].Dot(c.Vertices[c.Faces[f][0]]); math.Abs(d) > 1e-13 {
			t.Fatalf("face %d: offset off its vertex by %v", f, d)
		}
	}
	if &c.Faces[0][0] == &h.Faces[0][0] || h.Vertices[0] != pts[h.Index[0]] {
		t.Fatal("Translated shares or changes the original")
	}
}

func TestHullDeterministic(t *testing.T) {
	pts := ballPoints(2000, 7)
	a, err := NewHull(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewHull(append([]mgl64.Vec3(nil), pts...), 0)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two hulls of the same points differ")
	}
}

func TestHullErrors(t *testing.T) {
	nan := math.NaN()
	line := []mgl64.Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {0.5, 0.5, 0.5}, {3, 3, 3}}
	plane := []mgl64.Vec3{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}, {0.3, 0.2, 1}}
	cases := []struct {
		name   string
		pts    []mgl64.Vec3
		tol    float64
		is     error
		substr string
	}{
		{"empty", nil, 0, ErrTooFewPoints, "got 0"},
		{"three", plane[:3], 0, ErrTooFewPoints, "got 3"},
		{"coincident", []mgl64.Vec3{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, 0, ErrCoincident, "4 points"},
		{"coincident within tol", []mgl64.Vec3{{1, 2, 3}, {1, 2, 3.001}, {1.001, 2, 3}, {1, 2, 3}}, 0.01, ErrCoincident, "tol 0.01"},
		{"collinear", line, 0, ErrCollinear, "line through points 0 and 4"},
		{"coplanar", plane, 0, ErrCoplanar, "plane through points"},
		{"coplanar within tol", append(plane, mgl64.Vec3{0.5, 0.5, 1.001}), 0.01, ErrCoplanar, "tol 0.01"},
		{"NaN point", append(plane, mgl64.Vec3{nan, 0, 0}), 0, nil, "points[5]"},
		{"Inf point", []mgl64.Vec3{{0, 0, math.Inf(1)}}, 0, nil, "points[0]"},
		{"NaN tol", plane, nan, nil, "tol"},
	}
	for _, c := range cases {
		h, err := NewHull(c.pts, c.tol)
		if err == nil {
			t.Fatalf("%s: no error, hull %v", c.name, h.Vertices)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Fatalf("%s: error %q does not wrap %q", c.name, err, c.is)
		}
		if !strings.Contains(err.Error(), c.substr) {
			t.Fatalf("%s: error %q does not contain %q", c.name, err, c.substr)
		}
	}
}

// analyticTet returns the mass, centre and inertia about the centre of the
// tetrahedron (0, a e₁, b e₂, c e₃) at density rho, from ∫x² dV = a³bc/60
// and ∫xy dV = a²b²c/120 over it (the unit tetrahedron's 1/60 and 1/120
// scaled), and the parallel-axis theorem.
func analyticTet(a, b, c, rho float64) (float64, mgl64.Vec3, mgl64.Mat3) {
	m := rho * a * b * c / 6
	x2, y2, z2 := rho*a*a*a*b*c/60, rho*a*b*b*b*c/60, rho*a*b*c*c*c/60
	xy, yz, zx := rho*a*a*b*b*c/120, rho*a*b*b*c*c/120, rho*a*a*b*c*c/120
	o := mgl64.Mat3{y2 + z2, -xy, -zx, -xy, x2 + z2, -yz, -zx, -yz, x2 + y2} // about the origin
	com := mgl64.Vec3{a / 4, b / 4, c / 4}
	shift := mgl64.Ident3().Mul(com.Dot(com)).Sub(com.OuterProd3(com)).Mul(m)
	return m, com, o.Sub(shift)
}

func TestMassPropertiesTetrahedron(t *testing.T) {
	a, b, c, rho := 1.5, 0.7, 2.2, 1000.0
	pts := []mgl64.Vec3{{}, {a, 0, 0}, {0, b, 0}, {0, 0, c}}
	h, err := NewHull(pts, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, com, I, err := h.MassProperties(rho)
	if err != nil {
		t.Fatal(err)
	}
	wm, wc, wI := analyticTet(a, b, c, rho)
	// Rounding only: 1e-13 relative to the largest entry.
	if math.Abs(m-wm) > 1e-13*wm || com.Sub(wc).Len() > 1e-13 {
		t.Fatalf("mass, com = %v, %v, want %v, %v", m, com, wm, wc)
	}
	for i := range I {
		if math.Abs(I[i]-wI[i]) > 1e-13*wI[8] {
			t.Fatalf("inertia\n%v\nwant\n%v", I, wI)
		}
	}
	if wI[1] == 0 || wI[5] == 0 {
		t.Fatal("the test tetrahedron must have products of inertia")
	}
}

func TestMassPropertiesIcosphere(t *testing.T) {
	// The icosphere is inscribed in the sphere of radius r and contains
	// the ball of radius r_in = its smallest face offset, so its volume
	// and (COM-axis) moments lie between the balls': 4/3 π ρ r³ and
	// 8/15 π ρ r⁵ (= 2/5 m r²). Both bounds tighten as 1 − r_in/r, which
	// falls about 4× per subdivision; the ratio I/(m r²) → 2/5.
	const r, rho = 0.3, 500.0
	prev := math.Inf(1)
	for level := 0; level <= 4; level++ {
		s := icosphere(level, r)
		h, err := s.Hull(0)
		if err != nil {
			t.Fatal(err)
		}
		m, com, I, err := h.MassProperties(rho)
		if err != nil {
			t.Fatal(err)
		}
		rin := math.Inf(1)
		for _, d := range h.Offsets {
			rin = math.Min(rin, d)
		}
		if com.Len() > 1e-15 {
			t.Fatalf("level %d: com %v, want 0 by symmetry", level, com)
		}
		vol := m / rho
		if lo, hi := 4*math.Pi/3*math.Pow(rin, 3), 4*math.Pi/3*math.Pow(r, 3); vol < lo || vol > hi {
			t.Fatalf("level %d: volume %v outside [%v, %v]", level, vol, lo, hi)
		}
		for k := 0; k < 3; k++ {
			ik := I.At(k, k)
			if lo, hi := 8*math.Pi/15*rho*math.Pow(rin, 5), 8*math.Pi/15*rho*math.Pow(r, 5); ik < lo || ik > hi {
				t.Fatalf("level %d: I[%d][%d] = %v outside [%v, %v]", level, k, k, ik, lo, hi)
			}
		}
		ratio := I.At(0, 0) / (m * r * r)
		gap := 0.4 - ratio
		t.Logf("level %d: %4d vertices, 1−r_in/r = %.3g, I/(m r²) = %.6f", level, len(h.Vertices), 1-rin/r, ratio)
		// From the bounds above, I/(m r²) ≥ (2/5)(r_in/r)⁵.
		if bound := 0.4 * (1 - math.Pow(rin/r, 5)); gap > bound {
			t.Fatalf("level %d: 2/5 − I/(m r²) = %.3g > (2/5)(1 − (r_in/r)⁵) = %.3g", level, gap, bound)
		}
		if !(gap > 0 && gap < prev/3) {
			t.Fatalf("level %d: 2/5 − I/(m r²) = %.3g, previous %.3g: not converging 3× per level", level, gap, prev)
		}
		prev = gap
		// Mesh and hull integrate the same solid.
		mm, _, mI, err := s.MassProperties(rho)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(mm-m) > 1e-12*m || math.Abs(mI.At(2, 2)-I.At(2, 2)) > 1e-12*I.At(2, 2) {
			t.Fatalf("level %d: mesh mass %v, Izz %v; hull %v, %v", level, mm, mI.At(2, 2), m, I.At(2, 2))
		}
	}
	// Measured: 2/5 − I/(m r²) = 0.110, 0.034, 0.0091, 0.0023, 0.00058
	// at 12 … 2562 vertices, half of 1 − r_in/r.
	if prev > 0.001 {
		t.Fatalf("at 2562 vertices 2/5 − I/(m r²) = %.3g, want < 0.001", prev)
	}
}

func TestMassPropertiesInvariance(t *testing.T) {
	// The hull of random points, moved by a rotation R and a translation
	// far from the origin: same mass, com moved, inertia R I Rᵀ, within
	// 1e-11 relative (rounding of coordinates of size 100 against a body
	// of size 1).
	pts := ballPoints(300, 11)
	h, _ := NewHull(pts, 0)
	m, com, I, err := h.MassProperties(1200)
	if err != nil {
		t.Fatal(err)
	}
	q := mgl64.QuatRotate(0.9, mgl64.Vec3{1, -2, 0.5}.Normalize())
	R := q.Mat4().Mat3()
	shift := mgl64.Vec3{100, -50, 20}
	moved := make([]mgl64.Vec3, len(pts))
	for i, p := range pts {
		moved[i] = R.Mul3x1(p).Add(shift)
	}
	h2, err := NewHull(moved, 0)
	if err != nil {
		t.Fatal(err)
	}
	m2, com2, I2, err := h2.MassProperties(1200)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m2-m) > 1e-11*m {
		t.Fatalf("mass %v → %v", m, m2)
	}
	if d := com2.Sub(R.Mul3x1(com).Add(shift)).Len(); d > 1e-11*100 {
		t.Fatalf("com off by %v", d)
	}
	want := R.Mul3(I).Mul3(R.Transpose())
	for i := range I2 {
		if math.Abs(I2[i]-want[i]) > 1e-11*I[0] {
			t.Fatalf("inertia\n%v\nwant R I Rᵀ\n%v", I2, want)
		}
	}
}

func TestMeshMassPropertiesErrors(t *testing.T) {
	// The closed cube first: volume 1, inertia body.BoxInertia(1, 1, 1, 1).
	cube := cubeMesh()
	m, com, I, err := cube.MassProperties(1)
	if err != nil {
		t.Fatal(err)
	}
	wantI := body.BoxInertia(1, 1, 1, 1)
	if math.Abs(m-1) > 1e-15 || com.Sub(mgl64.Vec3{0.5, 0.5, 0.5}).Len() > 1e-15 || !I.ApproxEqualThreshold(wantI, 1e-15) {
		t.Fatalf("unit cube mesh: mass %v com %v inertia %v, want 1, (½, ½, ½), %v", m, com, I, wantI)
	}
	holed := &Mesh{Vertices: cube.Vertices, Triangles: cube.Triangles[1:]}
	_, _, _, err = holed.MassProperties(1)
	if !errors.Is(err, ErrNotClosed) || !strings.Contains(err.Error(), "no triangle on its other side") {
		t.Fatalf("open mesh: %v", err)
	}
	flipped := &Mesh{Vertices: cube.Vertices, Triangles: append([][3]int(nil), cube.Triangles...)}
	tr := flipped.Triangles[3]
	flipped.Triangles[3] = [3]int{tr[0], tr[2], tr[1]}
	if _, _, _, err := flipped.MassProperties(1); !errors.Is(err, ErrNotClosed) || !strings.Contains(err.Error(), "triangle 3") {
		t.Fatalf("flipped triangle: %v", err)
	}
	inside := &Mesh{Vertices: cube.Vertices}
	for _, tr := range cube.Triangles {
		inside.Triangles = append(inside.Triangles, [3]int{tr[0], tr[2], tr[1]})
	}
	if _, _, _, err := inside.MassProperties(1); err == nil || !strings.Contains(err.Error(), "not positive") {
		t.Fatalf("inside-out mesh: %v", err)
	}
	bad := &Mesh{Vertices: cube.Vertices, Triangles: [][3]int{{0, 1, 9}}}
	if _, _, _, err := bad.MassProperties(1); err == nil || !strings.Contains(err.Error(), "Triangles[0][2]") {
		t.Fatalf("index out of range: %v", err)
	}
	for _, rho := range []float64{0, -1, math.NaN()} {
		if _, _, _, err := cube.MassProperties(rho); err == nil || !strings.Contains(err.Error(), "density") {
			t.Fatalf("density %v: %v", rho, err)
		}
	}
}

// cubeMesh is the unit cube [0,1]³ as 12 outward triangles.
func cubeMesh() *Mesh {
	v := boxCorners(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{1, 1, 1}) // index bit k set: +k side
	quads := [][4]int{{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}}
	m := &Mesh{Vertices: v}
	for _, q := range quads {
		m.Triangles = append(m.Triangles, [3]int{q[0], q[1], q[2]}, [3]int{q[0], q[2], q[3]})
	}
	return m
}

func TestMeshScale(t *testing.T) {
	// Scaling by (2, −3, 0.5) multiplies volume by |−3| and mirrors: the
	// triangles are reversed, so the mesh stays closed with positive volume.
	m := cubeMesh()
	if err := m.Scale(mgl64.Vec3{2, -3, 0.5}); err != nil {
		t.Fatal(err)
	}
	mass, com, _, err := m.MassProperties(1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mass-3) > 1e-15 || com.Sub(mgl64.Vec3{1, -1.5, 0.25}).Len() > 1e-15 {
		t.Fatalf("scaled cube: volume %v com %v, want 3, (1, −1.5, 0.25)", mass, com)
	}
	if err := m.Scale(mgl64.Vec3{1, 0, 1}); err == nil || !strings.Contains(err.Error(), "scale[1]") {
		t.Fatalf("zero scale: %v", err)
	}
}
