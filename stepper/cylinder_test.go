package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addCylinder adds a cylinder body (radius r, half length hl along body
// z, mass m) at pos, rotated by rot.
func addCylinder(t *testing.T, w *stepper.World, m, r, hl float64, pos mgl64.Vec3, rot mgl64.Quat, mu float64) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Mass: m, Inertia: body.CylinderInertia(m, r, 2*hl), Pos: pos, Rot: rot})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	shape, err := contact.NewCylinderLength(r, 2*hl)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	return b
}

// freshContacts counts the last step's contacts whose key had no impulse
// the step before: a body at rest keeps its keys, so warm starts carry.
func freshContacts(w *stepper.World) int {
	n := 0
	for _, c := range w.Contacts(nil) {
		if c.Fresh {
			n++
		}
	}
	return n
}

// addStaticBox adds a static box of full sides s at pos, rotated by rot.
func addStaticBox(t *testing.T, w *stepper.World, s, pos mgl64.Vec3, rot mgl64.Quat, mu float64) {
	t.Helper()
	b, err := body.New(body.Params{Static: true, Pos: pos, Rot: rot})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	shape, err := contact.NewBoxSize(s)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
}

// A cylinder (r = 0.1 m, half length 0.1 m, 1 kg) dropped 0.1 m onto a
// static box, flat or tilted by 0.1 rad (it lands on its rim and tips
// onto its end face), comes to rest on its end face: four rim points hold
// it, so it neither sinks in nor rocks (before, it fell through the box
// and the run ended without an error).
func TestCylinderDroppedOnBoxRests(t *testing.T) {
	const r, hl = 0.1, 0.1
	for _, tc := range []struct{ h, tilt float64 }{{1.0 / 60, 0}, {0.01, 0}, {1.0 / 60, 0.1}, {0.01, 0.1}} {
		h := tc.h
		w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		addStaticBox(t, w, mgl64.Vec3{1, 1, 0.2}, mgl64.Vec3{0, 0, -0.1}, mgl64.QuatIdent(), 0.5)
		rot := mgl64.QuatRotate(tc.tilt, mgl64.Vec3{1, 0, 0}).Mul(mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1}))
		c := addCylinder(t, w, 1, r, hl, mgl64.Vec3{0.05, -0.02, hl + r*math.Sin(tc.tilt) + 0.1}, rot, 0.5)
		pen := 0.0
		var st stepper.Stats
		steps := int(math.Round(1.5 / h))
		fresh := 0
		for i := 0; i < steps; i++ {
			st, err = w.Step()
			require.NoError(t, err)
			if float64(i)*h > 1 {
				fresh += freshContacts(w)
			}
			// The lowest rim point's depth below the face.
			a := c.Rot.Rotate(mgl64.Vec3{0, 0, 1})
			low := c.Pos[2] - hl*math.Abs(a[2]) - r*math.Sqrt(math.Max(0, 1-a[2]*a[2]))
			pen = math.Max(pen, -low)
		}
		speed, spin := c.Vel.Len(), c.AngVel.Len()
		tilt := math.Acos(math.Min(1, c.Rot.Rotate(mgl64.Vec3{0, 0, 1})[2]))
		t.Logf("h = %.4f s, dropped tilted %.1f rad: penetration %.2e m, after 1.5 s |v| = %.2e m/s, |ω| = %.2e rad/s, tilt %.2e rad, %d contacts, z = %.6f m",
			h, tc.tilt, pen, speed, spin, tilt, st.Contacts, c.Pos[2])
		assert.Less(t, pen, 1e-3, "penetration")
		assert.Less(t, speed, 1e-3, "at rest")
		assert.Less(t, spin*r, 1e-3, "not rocking: rim speed")
		assert.Less(t, tilt, 1e-3, "standing upright")
		assert.Equal(t, 4, st.Contacts, "the four rim points of the end face")
		assert.Zero(t, fresh, "new contact keys in the last 0.5 s: keys must persist at rest")
		assert.InDelta(t, hl, c.Pos[2], 1e-3, "on top of the box")
	}
}

// A cylinder lying on its side on a ramp (a static box tilted by θ = 20°,
// μ = 0.5 > tan θ / 3 = 0.12, enough to roll without slipping) rolls down
// with a = (2/3) g sin θ, the acceleration of a solid cylinder
// (I = m r²/2): its two-point line contact rolls along the ramp.
func TestCylinderRollsDownRamp(t *testing.T) {
	const r, hl, mu, g = 0.1, 0.1, 0.5, 9.81
	theta := 20 * math.Pi / 180
	for _, h := range []float64{0.01, 1.0 / 60} {
		w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		// Ramp: 6 m long, top face through the origin, descending along +x'.
		rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
		n := rot.Rotate(mgl64.Vec3{0, 0, 1})
		down := rot.Rotate(mgl64.Vec3{1, 0, 0})
		addStaticBox(t, w, mgl64.Vec3{6, 1, 0.2}, n.Mul(-0.1), rot, mu)
		// Axis along y (across the slope), resting on the top face 2.5 m up.
		pos := n.Mul(r).Sub(down.Mul(2.5))
		c := addCylinder(t, w, 1, r, hl, pos, rot.Mul(mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})), mu)
		var v1, maxSink float64
		fresh := 0
		t1, t2 := 0.5, 1.5
		for i := 1; i <= int(math.Round(t2/h)); i++ {
			st, err := w.Step()
			require.NoError(t, err)
			if i == int(math.Round(t1/h)) {
				v1 = c.Vel.Dot(down)
			}
			maxSink = math.Max(maxSink, r-c.Pos.Dot(n))
			require.LessOrEqual(t, st.Contacts, 2, "the line contact")
			if i > 1 {
				fresh += freshContacts(w)
			}
		}
		got := (c.Vel.Dot(down) - v1) / (t2 - t1)
		want := 2.0 / 3 * g * math.Sin(theta)
		slip := c.Vel.Dot(down) - c.AngVel.Dot(mgl64.Vec3{0, 1, 0})*r // v − ω r about the +y axis
		t.Logf("h = %.4f s: acceleration %.6f m/s², (2/3) g sin θ = %.6f m/s² (relative error %+.1e), slip speed %.1e m/s, deepest %.1e m",
			h, got, want, got/want-1, slip, maxSink)
		// 2 %: semi-implicit Euler integrates a constant acceleration
		// exactly, so what remains is the contact: box friction (exact
		// for one loaded direction) and the speculative rows' settling,
		// both well below 2 % here.
		assert.InDelta(t, want, got, 0.02*want)
		assert.Less(t, math.Abs(slip), 1e-3, "rolls without slipping")
		assert.Less(t, maxSink, 1e-3)
		assert.Zero(t, fresh, "the rolling line contact keeps its keys")
	}
}

// A pile on a floor: two boxes side by side, a third across them, a
// fourth beside, a cylinder lying on the third and a second cylinder
// standing on the fourth, each dropped by 1 to 3 mm. Everything comes to
// rest where it was put; nothing passes through anything.
func TestCylinderInBoxPileRests(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.6)
	s := mgl64.Vec3{0.2, 0.2, 0.2}
	id := mgl64.QuatIdent()
	boxes := []*body.Body{
		addBox(t, w, 1, s, mgl64.Vec3{-0.105, 0, 0.101}, id, 0.6),
		addBox(t, w, 1, s, mgl64.Vec3{0.105, 0, 0.101}, id, 0.6),
		addBox(t, w, 1, s, mgl64.Vec3{0, 0, 0.303}, id, 0.6),
		addBox(t, w, 1, s, mgl64.Vec3{0, 0.3, 0.101}, id, 0.6),
	}
	lying := addCylinder(t, w, 1, 0.08, 0.09, mgl64.Vec3{0, 0, 0.4 + 0.08 + 0.002}, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}), 0.6)
	standing := addCylinder(t, w, 1, 0.06, 0.1, mgl64.Vec3{0.02, 0.3, 0.2 + 0.1 + 0.003}, id, 0.6)
	wantZ := []float64{0.1, 0.1, 0.3, 0.1, 0.48, 0.3}
	all := append(boxes, lying, standing)
	var st stepper.Stats
	maxViol := 0.0
	fresh := 0
	for i := 0; i < 180; i++ { // 3 s
		st, err = w.Step()
		require.NoError(t, err)
		maxViol = math.Max(maxViol, st.MaxViolation)
		if i >= 120 {
			fresh += freshContacts(w)
		}
	}
	maxSpeed := 0.0
	for k, b := range all {
		maxSpeed = math.Max(maxSpeed, b.Vel.Len())
		assert.InDelta(t, wantZ[k], b.Pos[2], 2e-3, "body %d height", k)
	}
	t.Logf("after 3 s: largest speed %.1e m/s, largest penetration %.1e m, %d contacts", maxSpeed, maxViol, st.Contacts)
	assert.Less(t, maxSpeed, 1e-3)
	assert.Less(t, maxViol, 1e-3)
	assert.Zero(t, fresh, "new contact keys in the last second")
}

// A cylinder stacked coaxially on another standing on the floor, and a
// capsule lying across the top of a standing cylinder: both come to rest
// on the end face (cap on cap: four points; capsule: its two-point line).
func TestStackedOnCylinders(t *testing.T) {
	for _, top := range []string{"cylinder", "capsule"} {
		w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		addCylinder(t, w, 1, 0.1, 0.1, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		var b *body.Body
		var wantZ float64
		if top == "cylinder" {
			b = addCylinder(t, w, 1, 0.1, 0.1, mgl64.Vec3{0.005, 0, 0.302}, mgl64.QuatRotate(0.4, mgl64.Vec3{0, 0, 1}), 0.5)
			wantZ = 0.3
		} else {
			b, err = body.New(body.Params{Mass: 0.5, Inertia: body.CapsuleInertia(0.5, 0.04, 0.16),
				Pos: mgl64.Vec3{0.01, 0.02, 0.2 + 0.04 + 0.002}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0})})
			require.NoError(t, err)
			id, err := w.AddBody(b)
			require.NoError(t, err)
			shape, err := contact.NewCapsuleLength(0.04, 0.16)
			require.NoError(t, err)
			_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: 0.5}})
			require.NoError(t, err)
			wantZ = 0.24
		}
		var st stepper.Stats
		fresh := 0
		for i := 0; i < 120; i++ {
			st, err = w.Step()
			require.NoError(t, err)
			if i >= 60 {
				fresh += freshContacts(w)
			}
		}
		t.Logf("%s on a cylinder after 2 s: z = %.6f m (want %.2f), |v| = %.1e m/s, |ω| = %.1e rad/s, %d contacts",
			top, b.Pos[2], wantZ, b.Vel.Len(), b.AngVel.Len(), st.Contacts)
		assert.InDelta(t, wantZ, b.Pos[2], 1e-3)
		assert.Less(t, b.Vel.Len(), 1e-3)
		assert.Less(t, b.AngVel.Len(), 1e-2)
		assert.Zero(t, fresh, "new contact keys in the last second")
	}
}

// Every pair of kinds but two static-only ones collides (contact.Supported;
// contact's TestEveryPairCollides finds each pair's contact), so a world of
// all eight kinds builds: two planes, a triangle mesh and a heightfield on
// the world never meet each other, and every moving kind meets all of them.
func TestAddGeomAcceptsEveryKindPair(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.01})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	ground(t, w, mgl64.QuatRotate(0.1, mgl64.Vec3{1, 0, 0}), 0.5)
	addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 1}, mgl64.QuatIdent(), 0.5)
	addCylinder(t, w, 1, 0.1, 0.1, mgl64.Vec3{0, 0, 2}, mgl64.QuatIdent(), 0.5)
	addStaticBox(t, w, mgl64.Vec3{2, 2, 2}, mgl64.Vec3{5, 0, 0}, mgl64.QuatIdent(), 0.5)
	hull, err := contact.NewConvex([]mgl64.Vec3{{-0.1, -0.1, -0.1}, {0.1, -0.1, -0.1}, {0, 0.1, -0.1}, {0, 0, 0.1}}, 0)
	require.NoError(t, err)
	for i, s := range []contact.Shape{{Kind: contact.Sphere, Radius: 0.1}, {Kind: contact.Capsule, Radius: 0.1, Length: 0.4}, hull} {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: mgl64.Vec3{0, 0, 3 + float64(i)}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s})
		require.NoError(t, err)
	}
	tm, hf := flatMeshes(t)
	for _, s := range []contact.Shape{contact.NewPlane(), tm, hf} {
		_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: s, Local: contact.Pose{Pos: mgl64.Vec3{0, 0, -1}, Rot: mgl64.QuatIdent()}})
		require.NoError(t, err)
	}
	_, err = w.Step()
	require.NoError(t, err)
}
