package contact

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/mesh"
)

// valley is a V of two triangles meeting at the crease x = 0 (y from −1
// to 1), each flank rising at beta to x = ∓cos beta: a concave edge.
func valley(beta float64) *mesh.Mesh {
	s, c := math.Sin(beta), math.Cos(beta)
	return &mesh.Mesh{
		Vertices:  []mgl64.Vec3{{0, -1, 0}, {0, 1, 0}, {-c, 0, s}, {c, 0, s}},
		Triangles: [][3]int{{0, 1, 2}, {0, 3, 1}},
	}
}

// A sphere (r = 0.1 m) resting on the left flank of a valley bent by 20°,
// d = 0.05 m from the crease: its centre is over the left triangle, and
// the right triangle's closest point is the crease (d > r tan 20° =
// 0.0364 m). The contact is the left face's (gap 0) and, within the
// margin, the right face's plane (the concave edge takes the face normal,
// as in Bullet's btAdjustInternalEdgeContacts), at its distance from the
// centre less r, d sin 20° + r cos 20° − r = 0.0110703 m, on the line
// from the centre along the normal: a stepper sees the right flank coming
// before the ball's centre is over it (before, the right triangle gave
// nothing until then, and the ball arrived 1e-4 m deep on a 3° crease).
// The plane extended under the left flank is exact for a ball on it: its
// gap reaches 0 where the ball touches both flanks. Closer to the crease
// than r tan 20° the right face's own contact takes over, continuously.
func TestMeshConcaveEdgeSphere(t *testing.T) {
	const beta, r, d = 10 * math.Pi / 180, 0.1, 0.05
	tm := must(NewTriMesh(valley(beta)))
	sp := must(NewSphere(r))
	s, c := math.Sin(beta), math.Cos(beta)
	n1, n2 := mgl64.Vec3{s, 0, c}, mgl64.Vec3{-s, 0, c}
	on := mgl64.Vec3{-d * c, 0.2, d * s}
	ctr := on.Add(n1.Mul(r))
	got := Collide(nil, tm, IdentityPose(), sp, at(ctr[0], ctr[1], ctr[2]), 0.02)
	if len(got) != 2 {
		t.Fatalf("%d points, want 2 (left face, crease): %+v", len(got), got)
	}
	var face, edge Point
	for _, p := range got {
		if p.Normal.Dot(n1) > p.Normal.Dot(n2) {
			face = p
		} else {
			edge = p
		}
	}
	// 1e-12: one square root and rounding of 0.1 m lengths.
	assertVec(t, n1, face.Normal, 1e-12, "left face normal")
	assertNear(t, 0, face.Gap, 1e-12, "left face gap")
	assertVec(t, n2, edge.Normal, 1e-12, "crease point normal (right face's)")
	assertNear(t, d*math.Sin(2*beta)+r*math.Cos(2*beta)-r, edge.Gap, 1e-12, "right plane gap")
	assertVec(t, ctr.Sub(n2.Mul(r+edge.Gap/2)), edge.Pos, 1e-12, "point on the line from the centre along the normal")

	// Along the flank towards the crease the right triangle's gap falls
	// without a jump where the edge's region gives way to the face's (at
	// d = r tan 20°): a distance moves no faster than the centre, so steps
	// of 0.1 mm change it by no more than 0.1 mm (1e-9 relative: rounding).
	prev := math.NaN()
	for i := 600; i >= 0; i-- {
		dd := 1e-4 * float64(i)
		on := mgl64.Vec3{-dd * c, 0.2, dd * s}
		ctr := on.Add(n1.Mul(r))
		g := math.Inf(1)
		for _, p := range Collide(nil, tm, IdentityPose(), sp, at(ctr[0], ctr[1], ctr[2]), 0.02) {
			if p.Normal.Dot(n2) > 1-1e-12 {
				g = p.Gap
			}
		}
		if math.IsInf(g, 1) {
			t.Fatalf("d = %.4f m: no point of the right triangle", dd)
		}
		if !math.IsNaN(prev) && math.Abs(g-prev) > 1e-4*(1+1e-9) {
			t.Fatalf("d = %.4f m: right gap jumps %.3g → %.3g m", dd, prev, g)
		}
		prev = g
	}
	// At the crease the ball is r(1 − cos 20°) into the right face's plane.
	assertNear(t, -r*(1-math.Cos(2*beta)), prev, 1e-12, "right gap at the crease")
}

// On a flat triangulated plane a sphere gets one point, the plane's,
// wherever it is: over a face, on a diagonal, on a vertex shared by six
// triangles (the flat edges emit nothing, and the points the triangles
// sharing an edge or vertex find are one point).
func TestMeshFlatSphereOnePoint(t *testing.T) {
	tm := must(NewTriMesh(flatGrid(4, 4, 0.1, -0.2, -0.2, nil)))
	sp := must(NewSphere(0.05))
	for _, xy := range [][2]float64{{0.037, -0.021}, {0.05, 0.05}, {0, 0}, {0.1, 0}, {0.0001, 0.00005}} {
		for _, z := range []float64{0.049, 0.05, 0.051} {
			got := Collide(nil, tm, IdentityPose(), sp, at(xy[0], xy[1], z), 0.01)
			if len(got) != 1 {
				t.Fatalf("at %v, %.3f: %d points, want 1: %+v", xy, z, len(got), got)
			}
			assertVec(t, mgl64.Vec3{0, 0, 1}, got[0].Normal, 1e-15, "normal")
			assertNear(t, z-0.05, got[0].Gap, 1e-15, "gap")
		}
	}
}
