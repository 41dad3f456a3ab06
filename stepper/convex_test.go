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

// cubeCorners returns the 8 corners of a box of full sides s in
// contact.Shape.BoxVertex order, so the hull's vertex i is the box's.
func cubeCorners(s mgl64.Vec3) []mgl64.Vec3 {
	box := contact.Shape{Kind: contact.Box, Size: s}
	p := make([]mgl64.Vec3, 8)
	for i := range p {
		p[i] = box.BoxVertex(i)
	}
	return p
}

// icospherePoints returns the vertices of mesh.Icosphere(n, r).
func icospherePoints(r float64, n int) []mgl64.Vec3 {
	m, err := mesh.Icosphere(n, r)
	if err != nil {
		panic(err)
	}
	return m.Vertices
}

// addShapeBody adds a body of mass m and inertia I with shape s at pos.
func addShapeBody(t testing.TB, w *stepper.World, s contact.Shape, m float64, inertia mgl64.Mat3, pos mgl64.Vec3, rot mgl64.Quat, mu float64) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Mass: m, Inertia: inertia, Pos: pos, Rot: rot})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	return b
}

// hullBody returns the convex shape of points moved so that its centre of
// mass is the body origin, with the mass and inertia at density rho.
func hullBody(t testing.TB, points []mgl64.Vec3, rho float64) (contact.Shape, float64, mgl64.Mat3) {
	t.Helper()
	h, err := mesh.NewHull(points, 0)
	require.NoError(t, err)
	m, com, inertia, err := h.MassProperties(rho)
	require.NoError(t, err)
	s, err := contact.NewConvexHull(h.Translated(com.Mul(-1)))
	require.NoError(t, err)
	return s, m, inertia
}

// A hull of a box's 8 corners behaves as the box: a box dropped tilted on
// the ground, and a box dropped tilted onto another resting on the ground,
// follow the same 300-step trajectories (h = 0.01 s) as with Box shapes,
// every position, orientation and velocity within 1e-8 (the contacts are
// the same points to 1e-12 m, TestCubeHullMatchesBox; what remains is
// rounding in the MLCP, whose rows come in another order, through the
// landings' solves: on the ground 0, on a box 1.2e-9 measured since
// speculative contacts count each body's own approach, which brings the
// falling box's rows on the lower one in at once).
func TestConvexCubeMatchesBoxTrajectory(t *testing.T) {
	size := mgl64.Vec3{0.4, 0.3, 0.2}
	const m = 2.0
	inertia := body.BoxInertia(m, size[0], size[1], size[2])
	boxShape, err := contact.NewBoxSize(size)
	require.NoError(t, err)
	hullShape, err := contact.NewConvex(cubeCorners(size), 0)
	require.NoError(t, err)
	tilt := mgl64.QuatRotate(0.3, mgl64.Vec3{1, 0.5, 0}.Normalize())
	for _, tc := range []struct {
		name  string
		stack bool
	}{{"on the ground", false}, {"on a box", true}} {
		run := func(s contact.Shape) [][4]mgl64.Vec3 {
			w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
			require.NoError(t, err)
			_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: 0.5}})
			require.NoError(t, err)
			var bs []*body.Body
			z := 0.4
			if tc.stack {
				bs = append(bs, addShapeBody(t, w, s, m, inertia, mgl64.Vec3{0, 0, size[2] / 2}, mgl64.QuatIdent(), 0.5))
				z += size[2]
			}
			bs = append(bs, addShapeBody(t, w, s, m, inertia, mgl64.Vec3{0.05, -0.03, z}, tilt, 0.5))
			var traj [][4]mgl64.Vec3
			for i := 0; i < 300; i++ {
				_, err := w.Step()
				require.NoError(t, err)
				for _, b := range bs {
					traj = append(traj, [4]mgl64.Vec3{b.Pos, b.Rot.V.Add(mgl64.Vec3{b.Rot.W, 0, 0}), b.Vel, b.AngVel})
				}
			}
			return traj
		}
		want, got := run(boxShape), run(hullShape)
		worst := 0.0
		for i := range want {
			for k := 0; k < 4; k++ {
				worst = math.Max(worst, got[i][k].Sub(want[i][k]).Len())
			}
		}
		t.Logf("%s: largest difference over 300 steps %.2e (final z %.6f m)", tc.name, worst, want[len(want)-1][0][2])
		assert.Less(t, worst, 1e-8, tc.name)
	}
}

// An icosphere hull (162 vertices, vertex radius r = 0.1 m, inertia from
// the hull's mass properties) rolls down a 30° incline (μ = 0.6 >
// (2/7) tan 30° = 0.165, so it rolls without slipping). A rolling solid
// sphere would accelerate at (5/7) g sin θ = 3.5036 m/s²; the polyhedron
// rolls from facet to facet, each vertex landing an inelastic impact that
// costs kinetic energy in proportion to 1 − cos α, a loss that grows with
// speed (its inertia, 0.391 m r² for the sphere's 0.4, gives +0.6 %). Its
// own answer is the step's limit: at h = 0.25 ms (1 ms gives the same to
// 0.06 %) it accelerates at 3.3779 m/s², 3.6 % below the sphere, losing
// 17 % of the energy it releases to the landings, no step adding any.
// At h = 5 ms it must be within 1 % of that (measured −0.57 %: a landing
// a step late or early), and the limit within 5 % below the sphere's and
// 1 % above (the inertia). Measured from the distance travelled in the
// first 0.4 s, a = 2 s/t², while the speed is below 1.3 m/s. Before the
// plane's contact chose its vertices among those that close within the
// step (contact.CollideApproach), a vertex landing was sometimes left
// out: the hull hopped (0.94 points a step), a step added up to 0.0045 J
// and it ran at 3.4766 m/s², 2.9 % above its own limit.
func TestConvexIcosphereRollsDownIncline(t *testing.T) {
	const T = 0.4
	fine := icosphereRolls(t, stepper.Settings{H: 0.00025, Gravity: stepper.StandardGravity}, T)
	lim := 2 * fine.s / (T * T)
	set := stepper.Settings{H: 0.005, Gravity: stepper.StandardGravity}
	roll := icosphereRolls(t, set, T)
	a := 2 * roll.s / (T * T)
	t.Logf("icosphere(162): a = %.4f m/s² at h = 0.25 ms (%.2f %% from (5/7) g sin θ = %.4f); at h = %.4g s a = %.4f (%.2f %% from the limit), speed %.3f m/s, off the incline %.2e m, largest step gain %.2g J",
		lim, 100*(lim/roll.want-1), roll.want, set.H, a, 100*(a/lim-1), roll.speed, roll.off, roll.added)
	assert.InEpsilon(t, lim, a, 0.01, "against the step's limit")
	assert.Less(t, lim, 1.01*roll.want, "the polyhedron above the sphere")
	assert.Greater(t, lim, 0.95*roll.want, "the polyhedron's landings")
	// 1e-9 J: rounding on a 5 J roll; a landing vertex left to the
	// projection adds mm·m g (0.004 J).
	assert.Less(t, math.Max(roll.added, fine.added), 1e-9, "energy added in a step")
}

// The user's case: the same icosphere hull on the same incline under
// DefaultSettings (h = 1/60 s, sleeping on). At this step neither the end
// distance nor the end speed measures the mean acceleration: 2s/T²
// carries semi-implicit Euler's factor 1 + 1/N over N = 24 steps (x_n = a
// h² n(n+1)/2: +4.2 %), and the speed dips at each of the few vertex
// landings. So a is fitted, by least squares, to the scheme's own x_n = a
// t_n(t_n + h)/2 over every step, and compared with the step's limit
// (TestConvexIcosphereRollsDownIncline). The hull crosses a facet (0.03
// m) in under two steps: the vertex ahead closes within the step, and its
// speculative row lets it reach the plane only along its straight-line
// approach, so the hull loses more at each landing than its limit.
// Measured: −6.0 % (−9.3 % from the sphere). Before the plane's contact
// chose among the closing vertices it left some landings out and ran
// +3.7 % from the sphere (+7.5 % from the limit), falling into the incline: 3 projections,
// up to 0.04 J (0.8 % of the total) added in one step. The bound is 7 %
// of the limit, with no step adding energy: a defect of the step, seen
// here so that it cannot grow unnoticed.
func TestConvexIcosphereRollsAtGameStep(t *testing.T) {
	fine := icosphereRolls(t, stepper.Settings{H: 0.00025, Gravity: stepper.StandardGravity}, 0.4)
	lim := 2 * fine.s / (0.4 * 0.4)
	set := stepper.DefaultSettings()
	roll := icosphereRolls(t, set, 0.4)
	var num, den float64
	for k, x := range roll.path {
		tn := float64(k+1) * set.H
		q := tn * (tn + set.H) / 2
		num, den = num+x*q, den+q*q
	}
	a := num / den
	t.Logf("icosphere(162), h = 1/60 s: a = %.4f m/s² vs the limit %.4f (%.2f %%; (5/7) g sin θ = %.4f, %.2f %%), speed %.3f m/s, off the incline %.2e m, largest step gain %.2g J, %d projections",
		a, lim, 100*(a/lim-1), roll.want, 100*(a/roll.want-1), roll.speed, roll.off, roll.added, roll.projections)
	assert.InEpsilon(t, lim, a, 0.07)
	// 1e-9 J: rounding on a 5 J roll (0.04 J before).
	assert.Less(t, roll.added, 1e-9, "energy added in a step")
	assert.Zero(t, roll.projections, "a vertex fell into the incline")
}

// rolled is what icosphereRolls measures: the distance s rolled down the
// incline (m) at the end and after each step (path), the speed (m/s),
// the centre's offset along the normal (m), (5/7) g sin θ, and what
// the steps added.
type rolled struct {
	s, speed, off, want float64
	path                []float64
	added               float64 // the most energy a step added (J)
	projections         int     // the position projections over the run
}

// icosphereRolls rolls the 162-vertex icosphere hull (r = 0.1 m, 1000
// kg/m³) from rest on its lowest vertex down a 30° plane (μ = 0.6) for T
// seconds under set.
func icosphereRolls(t *testing.T, set stepper.Settings, T float64) rolled {
	t.Helper()
	const r, mu, g = 0.1, 0.6, 9.81
	theta := 30 * math.Pi / 180
	shape, m, inertia := hullBody(t, icospherePoints(r, 2), 1000)
	require.InDelta(t, 0.391, inertia[0]/(m*r*r), 1e-3, "I/(m r²) of the 162-vertex icosphere")
	require.Equal(t, 162, len(shape.Hull.Mesh().Vertices))
	w, err := stepper.New(set)
	require.NoError(t, err)
	rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
	n := rot.Rotate(mgl64.Vec3{0, 0, 1})
	down := rot.Rotate(mgl64.Vec3{1, 0, 0})
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Local: contact.Pose{Rot: rot}, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	// Resting on its lowest vertex against the incline.
	low := math.Inf(1)
	for _, v := range shape.Hull.Mesh().Vertices {
		low = math.Min(low, v.Dot(n))
	}
	start := n.Mul(-low)
	b := addShapeBody(t, w, shape, m, inertia, start, mgl64.QuatIdent(), mu)
	var out rolled
	for i := 0; i < int(math.Round(T/set.H)); i++ {
		st, err := w.Step()
		require.NoError(t, err)
		out.path = append(out.path, b.Pos.Sub(start).Dot(down))
		out.added = math.Max(out.added, st.EnergyAdded)
		out.projections += st.Projections
	}
	out.s = b.Pos.Sub(start).Dot(down)
	out.speed, out.off = b.Vel.Len(), b.Pos.Sub(start).Dot(n)
	out.want = 5.0 / 7 * g * math.Sin(theta)
	return out
}

// A sphere, a capsule lying, a cylinder standing and a cube hull resting on
// a static hexagonal prism hull, a cube hull on a static cylinder's end
// face, the prism on a static cube hull, a box on the prism and the prism
// on a box settle after a 2 cm drop: after
// 2 s every speed (and rim speed 0.1 m·|ω|) is below 1e-3 m/s (no jitter),
// no contact key is new in the last second (the manifold's keys persist,
// so warm starts carry), and the penetration (the deepest contact over the
// run) stays below 2e-4 m (measured ≤ 1.1e-4 m). Each lands tilted by
// 0.1 rad on a corner or rim and tips flat: while it turns about the
// landing point its other corners join the manifold only once the face's
// separation wins (box–box's rule), and may sink for a step. Box on box,
// the existing path, on the same drop sinks 5.8e-4 m (checked only to
// rest: it is the reference).
func TestConvexRestingContactsSettle(t *testing.T) {
	cube, cm, ci := hullBody(t, cubeCorners(mgl64.Vec3{0.2, 0.2, 0.2}), 500)
	prism := func() []mgl64.Vec3 { // a hexagonal prism, 0.3 m across, 0.1 m high
		var p []mgl64.Vec3
		for k := 0; k < 6; k++ {
			a := float64(k) * math.Pi / 3
			p = append(p, mgl64.Vec3{0.15 * math.Cos(a), 0.15 * math.Sin(a), -0.05}, mgl64.Vec3{0.15 * math.Cos(a), 0.15 * math.Sin(a), 0.05})
		}
		return p
	}
	hex, hm, hi := hullBody(t, prism(), 500)
	sphere := contact.Shape{Kind: contact.Sphere, Radius: 0.1}
	capsule := contact.Shape{Kind: contact.Capsule, Radius: 0.05, Length: 0.2}
	cylinder := contact.Shape{Kind: contact.Cylinder, Radius: 0.1, Length: 0.1}
	box := contact.Shape{Kind: contact.Box, Size: mgl64.Vec3{0.2, 0.2, 0.2}}
	for _, tc := range []struct {
		name    string
		base    contact.Shape
		baseRot mgl64.Quat
		baseTop float64 // height of the base's top above its origin
		top     contact.Shape
		topRot  mgl64.Quat
		m       float64
		inertia mgl64.Mat3
		topHalf float64 // height of the top body's origin above its lowest point
	}{
		{"sphere on hull", hex, mgl64.QuatIdent(), 0.05, sphere, mgl64.QuatIdent(), 1, body.SphereInertia(1, 0.1), 0.1},
		{"hull on cylinder", cylinder, mgl64.QuatIdent(), 0.05, cube, mgl64.QuatIdent(), cm, ci, 0.1},
		{"hull on hull", hex, mgl64.QuatIdent(), 0.05, cube, mgl64.QuatRotate(0.4, mgl64.Vec3{0, 0, 1}), cm, ci, 0.1},
		{"capsule on hull", hex, mgl64.QuatIdent(), 0.05, capsule, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}), 1, body.CapsuleInertia(1, 0.05, 0.2), 0.05},
		{"cylinder on hull", hex, mgl64.QuatIdent(), 0.05, cylinder, mgl64.QuatIdent(), 1, body.CylinderInertia(1, 0.1, 0.1), 0.05},
		{"hull standing on hull face", cube, mgl64.QuatIdent(), 0.1, hex, mgl64.QuatIdent(), hm, hi, 0.05},
		{"box on hull", hex, mgl64.QuatIdent(), 0.05, box, mgl64.QuatRotate(0.4, mgl64.Vec3{0, 0, 1}), cm, ci, 0.1},
		{"hull on box", box, mgl64.QuatIdent(), 0.1, hex, mgl64.QuatRotate(0.2, mgl64.Vec3{0, 0, 1}), hm, hi, 0.05},
		{"box on box", box, mgl64.QuatIdent(), 0.1, box, mgl64.QuatRotate(0.2, mgl64.Vec3{0, 0, 1}), cm, ci, 0.1},
	} {
		w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		base, err := body.New(body.Params{Static: true, Pos: mgl64.Vec3{}, Rot: tc.baseRot})
		require.NoError(t, err)
		id, err := w.AddBody(base)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: tc.base, Material: stepper.Material{Friction: 0.8}})
		require.NoError(t, err)
		// Tilted by 0.1 rad: it lands on a corner or rim and tips flat.
		rot := mgl64.QuatRotate(0.1, mgl64.Vec3{1, 0.3, 0}.Normalize()).Mul(tc.topRot)
		b := addShapeBody(t, w, tc.top, tc.m, tc.inertia, mgl64.Vec3{0.005, -0.003, tc.baseTop + tc.topHalf + 0.02}, rot, 0.8)
		pen, maxLate, fresh := 0.0, 0.0, 0
		for i := 0; i < 300; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			for _, c := range w.Contacts(nil) {
				pen = math.Max(pen, -c.Gap)
			}
			if i >= 200 {
				fresh += freshContacts(w)
				maxLate = math.Max(maxLate, math.Max(b.Vel.Len(), b.AngVel.Len()*0.1))
			}
		}
		t.Logf("%s: deepest penetration %.2e m, largest speed after 2 s %.2e m/s, z = %.5f m", tc.name, pen, maxLate, b.Pos[2])
		if tc.name != "box on box" {
			assert.Less(t, pen, 2e-4, "%s: penetration", tc.name)
		}
		assert.Zero(t, fresh, "%s: new contact keys at rest", tc.name)
		assert.Less(t, maxLate, 1e-3, "%s: at rest after 2 s", tc.name)
		assert.InDelta(t, tc.baseTop+tc.topHalf, b.Pos[2], 1e-3, "%s: resting on top", tc.name)
	}
}

// BenchmarkStepConvexStack steps a settled stack of three cube hulls
// (0.2 m, on the ground) and a 162-vertex icosphere resting beside it: the
// convex narrow phase in a steady step allocates nothing.
func BenchmarkStepConvexStack(b *testing.B) {
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(b, err)
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: 0.5}})
	require.NoError(b, err)
	cube, cm, ci := hullBody(b, cubeCorners(mgl64.Vec3{0.2, 0.2, 0.2}), 500)
	for k := 0; k < 3; k++ {
		addShapeBody(b, w, cube, cm, ci, mgl64.Vec3{0.01 * float64(k), 0, 0.1 + 0.2*float64(k)}, mgl64.QuatIdent(), 0.5)
	}
	ico, im, ii := hullBody(b, icospherePoints(0.1, 2), 500)
	addShapeBody(b, w, ico, im, ii, mgl64.Vec3{0.5, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	for i := 0; i < 100; i++ {
		_, err := w.Step()
		require.NoError(b, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
