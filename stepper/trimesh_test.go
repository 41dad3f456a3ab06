package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gridMesh returns the flat nx × ny grid of square cells of side c in the
// plane z = 0, starting at (x0, y0), each cell split along alternating
// diagonals (so that edges of both orientations are crossed).
func gridMesh(nx, ny int, c, x0, y0 float64) *mesh.Mesh {
	m := &mesh.Mesh{}
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			m.Vertices = append(m.Vertices, mgl64.Vec3{x0 + float64(i)*c, y0 + float64(j)*c, 0})
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

// slide runs a 0.2 m cube of 2 kg, resting on the static ground shape
// (pose gp) with incline normal n and downhill direction down, for 2 s at
// h = 1 ms, and returns its acceleration along the incline between 0.5 s
// and 2 s (from the speeds) and the largest speed along n after the first
// step (a catch on an edge kicks the box off the surface).
func slide(t *testing.T, ground contact.Shape, gp contact.Pose, n, down mgl64.Vec3, mu float64) (a, vn float64) {
	t.Helper()
	return slideWith(t, stepper.Settings{H: 0.001, Gravity: stepper.StandardGravity}, ground, gp, n, down, mu)
}

// slideWith is slide under the settings set (its step, 2 s of steps).
func slideWith(t *testing.T, set stepper.Settings, ground contact.Shape, gp contact.Pose, n, down mgl64.Vec3, mu float64) (a, vn float64) {
	t.Helper()
	w, err := stepper.New(set)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: ground, Local: gp, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	const s = 0.2
	rot := mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, n)
	b := addBox(t, w, 2, mgl64.Vec3{s, s, s}, gp.Pos.Add(n.Mul(s/2)).Add(down.Mul(-1.3)), rot, mu)
	steps, at := int(math.Round(2/set.H)), int(math.Round(0.5/set.H))-1
	var v1 float64
	for i := 0; i < steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		if i > 0 {
			vn = math.Max(vn, math.Abs(b.Vel.Dot(n)))
		}
		if i == at {
			v1 = b.Vel.Dot(down)
		}
	}
	return (b.Vel.Dot(down) - v1) / (float64(steps-1-at) * set.H), vn
}

// A box slides down a 20° incline made of 1 200 triangles of a 0.1 m grid
// (μ = 0.2) at a = g (sin θ − μ cos θ) within 2 % (the bound), as
// on a plane, and its speed off the incline stays below 1 mm/s: the box
// crosses some 30 shared edges without catching on them.
func TestBoxSlidesDownTriMeshIncline(t *testing.T) {
	const mu, g = 0.2, 9.81
	theta := 20 * math.Pi / 180
	tm, err := contact.NewTriMesh(gridMesh(60, 10, 0.1, -3, -0.5))
	require.NoError(t, err)
	rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
	n, down := rot.Rotate(mgl64.Vec3{0, 0, 1}), rot.Rotate(mgl64.Vec3{1, 0, 0})
	a, vn := slide(t, tm, contact.Pose{Rot: rot}, n, down, mu)
	want := g * (math.Sin(theta) - mu*math.Cos(theta))
	t.Logf("trimesh incline: a = %.4f m/s² vs %.4f (%.3f %%), max |v·n| = %.2e m/s", a, want, 100*(a/want-1), vn)
	assert.InEpsilon(t, want, a, 0.02)
	assert.Less(t, vn, 1e-3)
}

// The same slide on a heightfield whose heights fall by tan θ per metre
// along x (61 × 11 samples, 0.1 m apart): same 2 % and 1 mm/s.
func TestBoxSlidesDownHeightfieldIncline(t *testing.T) {
	const mu, g = 0.2, 9.81
	theta := 20 * math.Pi / 180
	hf := inclineField(t, theta)
	n := mgl64.Vec3{math.Sin(theta), 0, math.Cos(theta)}
	down := mgl64.Vec3{math.Cos(theta), 0, -math.Sin(theta)}
	a, vn := slide(t, hf, contact.IdentityPose(), n, down, mu)
	want := g * (math.Sin(theta) - mu*math.Cos(theta))
	t.Logf("heightfield incline: a = %.4f m/s² vs %.4f (%.3f %%), max |v·n| = %.2e m/s", a, want, 100*(a/want-1), vn)
	assert.InEpsilon(t, want, a, 0.02)
	assert.Less(t, vn, 1e-3)
}

// A pile of 20 boxes (4 × 5, two layers) settling on a 10 000-triangle
// rolling terrain: the step time once the pile has landed (1 s simulated
// first), with allocations.
func BenchmarkPileOnTriMesh(b *testing.B) {
	const nx, ny, c = 50, 100, 0.1
	m := &mesh.Mesh{}
	z := func(x, y float64) float64 { return 0.05 * math.Sin(1.3*x) * math.Cos(0.9*y) }
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			x, y := -2.5+float64(i)*c, -5+float64(j)*c
			m.Vertices = append(m.Vertices, mgl64.Vec3{x, y, z(x, y)})
		}
	}
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a := j*(nx+1) + i
			m.Triangles = append(m.Triangles, [3]int{a, a + 1, a + nx + 2}, [3]int{a, a + nx + 2, a + nx + 1})
		}
	}
	tm, err := contact.NewTriMesh(m)
	require.NoError(b, err)
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(b, err)
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: tm, Local: contact.IdentityPose(), Material: stepper.Material{Friction: 0.5}})
	require.NoError(b, err)
	for k := 0; k < 20; k++ {
		i, j, l := k%4, (k/4)%5, k/10
		x, y := -0.45+0.3*float64(i), -0.6+0.3*float64(j)
		if l == 1 {
			x, y = x+0.1, y+0.1
		}
		addBox(b, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{x, y, 0.2 + 0.25*float64(l) + z(x, y)}, mgl64.QuatIdent(), 0.5)
	}
	for i := 0; i < 100; i++ {
		_, err := w.Step()
		require.NoError(b, err)
	}
	b.ReportAllocs()
	contacts := 0
	for b.Loop() {
		st, err := w.Step()
		if err != nil {
			b.Fatal(err)
		}
		contacts = st.Contacts
	}
	b.ReportMetric(float64(contacts), "contacts")
}

// flatMeshes returns a 2 × 2 grid of 1 m cells from the origin (gridMesh(2,
// 2, 1, 0, 0), 8 triangles)
// and a 2 × 2 heightfield of zeros 1 m apart, both flat at z = 0.
func flatMeshes(t *testing.T) (tm, hf contact.Shape) {
	t.Helper()
	tm, err := contact.NewTriMesh(gridMesh(2, 2, 1, 0, 0))
	require.NoError(t, err)
	hf, err = contact.NewHeightfield(2, 2, 1, 1, make([]float64, 4))
	require.NoError(t, err)
	return tm, hf
}

// A triangle mesh or heightfield on a moving body is refused by AddGeom
// with an error naming the kind, as a plane is: they have no mass
// properties and collide only as static geometry.
func TestStaticOnlyShapesOnMovingBodies(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	b := &body.Body{Mass: 1, Inertia: body.BoxInertia(1, 1, 1, 1), Rot: mgl64.QuatIdent()}
	i, err := w.AddBody(b)
	require.NoError(t, err)
	tm, hf := flatMeshes(t)
	for _, s := range []contact.Shape{tm, hf} {
		_, err := w.AddGeom(stepper.Geom{Body: i, Shape: s})
		require.Error(t, err)
		assert.Contains(t, err.Error(), s.Kind.String())
		_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: s})
		assert.NoError(t, err, "%v on the world", s.Kind)
	}
}

// The user's case of the two slides above: the same box on the same
// triangulated and heightfield inclines under DefaultSettings (h = 1/60 s,
// sleeping on), where it crosses a shared edge every few steps and moves
// up to 2.4 cm per step: the same 2 % on the acceleration and 1 mm/s off
// the surface (measured −0.21 % on the mesh, −1.16 % on the heightfield,
// under 2e-7 m/s off both).
func TestBoxSlidesDownMeshInclinesAtGameStep(t *testing.T) {
	const mu, g = 0.2, 9.81
	theta := 20 * math.Pi / 180
	want := g * (math.Sin(theta) - mu*math.Cos(theta))
	rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
	n, down := rot.Rotate(mgl64.Vec3{0, 0, 1}), rot.Rotate(mgl64.Vec3{1, 0, 0})
	tm, err := contact.NewTriMesh(gridMesh(60, 10, 0.1, -3, -0.5))
	require.NoError(t, err)
	a, vn := slideWith(t, stepper.DefaultSettings(), tm, contact.Pose{Rot: rot}, n, down, mu)
	t.Logf("trimesh incline at h = 1/60 s: a = %.4f m/s² vs %.4f (%.3f %%), max |v·n| = %.2e m/s", a, want, 100*(a/want-1), vn)
	assert.InEpsilon(t, want, a, 0.02)
	assert.Less(t, vn, 1e-3)

	hf := inclineField(t, theta)
	dn := mgl64.Vec3{math.Sin(theta), 0, math.Cos(theta)}
	dd := mgl64.Vec3{math.Cos(theta), 0, -math.Sin(theta)}
	a, vn = slideWith(t, stepper.DefaultSettings(), hf, contact.IdentityPose(), dn, dd, mu)
	t.Logf("heightfield incline at h = 1/60 s: a = %.4f m/s² vs %.4f (%.3f %%), max |v·n| = %.2e m/s", a, want, 100*(a/want-1), vn)
	assert.InEpsilon(t, want, a, 0.02)
	assert.Less(t, vn, 1e-3)
}

// inclineField is a heightfield whose heights fall by tan θ per metre
// along x: 61 × 11 samples 0.1 m apart, centred on its pose.
func inclineField(t *testing.T, theta float64) contact.Shape {
	t.Helper()
	const nx, ny, c = 61, 11, 0.1
	h := make([]float64, nx*ny)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			h[j*nx+i] = -math.Tan(theta) * (float64(i) - (nx-1)/2.0) * c
		}
	}
	hf, err := contact.NewHeightfield(nx, ny, c, c, h)
	require.NoError(t, err)
	return hf
}
