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

const wrenchG = 9.81

// settle steps w for n steps and returns the last step's contact wrenches.
func settle(t *testing.T, w *stepper.World, n int) []stepper.PairWrench {
	t.Helper()
	for i := 0; i < n; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	return w.ContactWrenches(nil)
}

func pairOf(t *testing.T, ws []stepper.PairWrench, a, b int) stepper.PairWrench {
	t.Helper()
	for _, p := range ws {
		if p.A == a && p.B == b {
			return p
		}
	}
	t.Fatalf("no contact wrench between %d and %d in %+v", a, b, ws)
	return stepper.PairWrench{}
}

// A 2 kg box resting on the ground, and a second one stacked on it: the
// ground carries the weight of both, 2 m g, the boxes' interface m g,
// straight up, each with no net torque about the box's centre (the box
// is at rest). Tolerance 1e-9 relative: at rest the solve's impulses
// balance gravity to rounding (measured ≤ 5e-14 relative; the pivoting
// solver is exact on a resting stack), so 1e-9 leaves room for other
// pivot orders yet catches any missing row or a wrong lever arm.
func TestContactWrenchesStack(t *testing.T) {
	const m = 2.0
	const tol = 1e-9 * m * wrenchG
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	s := mgl64.Vec3{0.4, 0.3, 0.2}
	addBox(t, w, m, s, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	ws := settle(t, w, 100)
	require.Len(t, ws, 1)
	p := pairOf(t, ws, constraint.World, 0)
	assert.Equal(t, 4, p.Points)
	wantF := mgl64.Vec3{0, 0, m * wrenchG}
	assertVecTol(t, wantF, p.OnB.Force, tol, "one box: force on it")
	assertVecTol(t, mgl64.Vec3{}, p.OnB.Torque, tol, "one box: torque about its centre")
	assertVecTol(t, wantF.Mul(-1), p.OnA.Force, tol, "one box: force on the ground")
	// The ground's torque about the world origin: the weight line through
	// the box's centre (x, y) ≈ 0, so zero as well.
	assertVecTol(t, mgl64.Vec3{}, p.OnA.Torque, tol, "one box: torque on the ground")

	addBox(t, w, m, s, w.Bodies[0].Pos.Add(mgl64.Vec3{0.05, 0, 0.2}), mgl64.QuatIdent(), 0.5)
	ws = settle(t, w, 200)
	require.Len(t, ws, 2)
	bottom, top := pairOf(t, ws, constraint.World, 0), pairOf(t, ws, 0, 1)
	assertVecTol(t, mgl64.Vec3{0, 0, 2 * m * wrenchG}, bottom.OnB.Force, tol, "stack: ground on the bottom box")
	assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, top.OnB.Force, tol, "stack: bottom box on the top box")
	// The top box sits 5 cm off-centre: about the bottom box's centre its
	// weight, through the contact, turns by r × F = (0.05, 0, ·) × (0, 0, −m g).
	lever := w.Bodies[1].Pos.Sub(w.Bodies[0].Pos)
	assertVecTol(t, mgl64.Vec3{lever[0], lever[1], 0}.Cross(mgl64.Vec3{0, 0, -m * wrenchG}), top.OnA.Torque, tol, "stack: torque on the bottom box about its centre")
	// Bottom box in balance: its weight, the top box's load and the ground's.
	net := bottom.OnB.Force.Add(top.OnA.Force).Add(mgl64.Vec3{0, 0, -m * wrenchG})
	assertVecTol(t, mgl64.Vec3{}, net, tol, "stack: bottom box's balance")

	// The same stack with the top box added first (body 0 on body 1): the
	// pair is still (0, 1), so the load on B = 0 is now the bottom box's.
	w2, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	addBox(t, w2, m, s, mgl64.Vec3{0.05, 0, 0.3}, mgl64.QuatIdent(), 0.5)
	ground(t, w2, mgl64.QuatIdent(), 0.5)
	addBox(t, w2, m, s, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	ws2 := settle(t, w2, 200)
	require.Len(t, ws2, 2)
	assertVecTol(t, mgl64.Vec3{0, 0, 2 * m * wrenchG}, pairOf(t, ws2, constraint.World, 1).OnB.Force, tol, "swapped: ground on the bottom box")
	sw := pairOf(t, ws2, 0, 1)
	assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, sw.OnA.Force, tol, "swapped: bottom box on the top box (A)")
	assertVecTol(t, mgl64.Vec3{0, 0, -m * wrenchG}, sw.OnB.Force, tol, "swapped: top box on the bottom box (B)")
	lever2 := w2.Bodies[0].Pos.Sub(w2.Bodies[1].Pos)
	assertVecTol(t, mgl64.Vec3{lever2[0], lever2[1], 0}.Cross(mgl64.Vec3{0, 0, -m * wrenchG}), sw.OnB.Torque, tol, "swapped: torque on the bottom box about its centre")

	// Geoms in the opposite order of their bodies (the top box's geom
	// first): the step's records then list the pair as (1, 0) and
	// ContactWrenches turns it round to (0, 1), the loads with it.
	w3, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w3, mgl64.QuatIdent(), 0.5)
	shape, err := contact.NewBoxSize(s)
	require.NoError(t, err)
	for _, z := range []float64{0.1, 0.3} {
		b, err := body.New(body.Params{Mass: m, Inertia: body.BoxInertia(m, s[0], s[1], s[2]), Pos: mgl64.Vec3{0, 0, z}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		_, err = w3.AddBody(b)
		require.NoError(t, err)
	}
	for _, id := range []int{1, 0} {
		_, err = w3.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
	}
	ws3 := settle(t, w3, 200)
	swapped := false
	for _, c := range w3.Contacts(nil) {
		swapped = swapped || c.A > c.B
	}
	require.True(t, swapped, "the records must list the boxes' pair as (1, 0) for this test to mean anything")
	p3 := pairOf(t, ws3, 0, 1)
	assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, p3.OnB.Force, tol, "records (1, 0): bottom box on the top box")
	assertVecTol(t, mgl64.Vec3{0, 0, -m * wrenchG}, p3.OnA.Force, tol, "records (1, 0): top box on the bottom box")
	assertVecTol(t, mgl64.Vec3{}, p3.OnA.Torque, tol, "records (1, 0): torque on the bottom box (centred stack)")

	again := w.ContactWrenches(ws)
	assert.Equal(t, ws, again, "same step, same wrenches")
	assert.Zero(t, testing.AllocsPerRun(20, func() { ws = w.ContactWrenches(ws) }))
}

// A box at rest on a 30° incline with μ = 0.8 > tan 30°: the incline's
// force on it balances its weight, (0, 0, m g), with a normal part m g
// cos 30° and a friction part m g sin 30° up the slope.
func TestContactWrenchesIncline(t *testing.T) {
	const m, th = 1.5, math.Pi / 6
	const tol = 1e-9 * m * wrenchG
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	rot := mgl64.QuatRotate(th, mgl64.Vec3{0, 1, 0}) // plane normal tilted towards +x
	ground(t, w, rot, 0.8)
	n := rot.Rotate(mgl64.Vec3{0, 0, 1})
	addBox(t, w, m, mgl64.Vec3{0.2, 0.2, 0.2}, n.Mul(0.1), rot, 0.8)
	start := w.Bodies[0].Pos
	ws := settle(t, w, 200)
	p := pairOf(t, ws, constraint.World, 0)
	moved := w.Bodies[0].Pos.Sub(start).Len()
	require.Less(t, moved, 1e-3, "the box must stay put (friction holds it)")
	f := p.OnB.Force
	// 1e-9 relative, as for the stack (measured 2e-14): the box is at rest,
	// its momentum does not change over the step.
	assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, f, tol, "incline: force on the box")
	assert.InDelta(t, m*wrenchG*math.Cos(th), f.Dot(n), tol, "normal part")
	assert.InDelta(t, m*wrenchG*math.Sin(th), f.Sub(n.Mul(f.Dot(n))).Len(), tol, "friction part")
}

// A 3 kg ball hanging at rest on a hinge 0.5 m above it: the hinge holds
// its weight, m g up, with no torque about its centre (the hinge's line of
// action passes through it). A cantilever: a 2 kg, 0.6 m rod welded (Fixed)
// to the world at one end, its centre L = 0.3 m out along x: the joint
// carries m g up and, about the anchor, the moment m g L (about −y: the
// weight would turn the rod down).
func TestJointReaction(t *testing.T) {
	const h = 0.01
	t.Run("pendulum", func(t *testing.T) {
		const m, l = 3.0, 0.5
		w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, 0.05), Pos: mgl64.Vec3{0, 0, -l}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		j, err := constraint.NewHinge(w.Bodies, id, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
		_, err = w.JointReaction(nil, 0)
		require.Error(t, err, "before the first step")
		for i := 0; i < 50; i++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		r, err := w.JointReaction(nil, 0)
		require.NoError(t, err)
		require.Len(t, r, 1)
		assert.Equal(t, id, r[0].Body)
		// 1e-9 relative: at rest the hinge rows' impulses are m g h to
		// the solver's tolerance.
		assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, r[0].Force, 1e-9*m*wrenchG, "hinge force on the bob")
		assertVecTol(t, mgl64.Vec3{}, r[0].Torque, 1e-9*m*wrenchG, "hinge torque about the bob's centre")
		_, err = w.JointReaction(nil, 1)
		assert.ErrorContains(t, err, "joint index out of range")
	})
	t.Run("cantilever", func(t *testing.T) {
		const m, length = 2.0, 0.6
		w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		c := mgl64.Vec3{length / 2, 0, 1}
		b, err := body.New(body.Params{Mass: m, Inertia: body.BoxInertia(m, length, 0.05, 0.05), Pos: c, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		anchor := mgl64.Vec3{0, 0, 1}
		j, err := constraint.NewFixed(w.Bodies, id, constraint.World, anchor)
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
		for i := 0; i < 50; i++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		r, err := w.JointReaction(nil, 0)
		require.NoError(t, err)
		require.Len(t, r, 1)
		tol := 1e-9 * m * wrenchG // as for the pendulum (measured 5e-16 relative)
		assertVecTol(t, mgl64.Vec3{0, 0, m * wrenchG}, r[0].Force, tol, "weld force on the rod")
		assertVecTol(t, mgl64.Vec3{}, r[0].Torque, tol*length, "weld torque about the rod's centre")
		at := r[0].Shift(w.Bodies[id].Pos, anchor)
		assertVecTol(t, mgl64.Vec3{0, -m * wrenchG * length / 2, 0}, at.Torque, tol*length, "weld moment about the anchor")
		assert.Zero(t, testing.AllocsPerRun(20, func() { r, _ = w.JointReaction(r, 0) }))
	})
}

func assertVecTol(t *testing.T, want, got mgl64.Vec3, tol float64, what string) {
	t.Helper()
	if d := got.Sub(want).Len(); !(d <= tol) {
		t.Errorf("%s = %v, want %v (off by %.3g, tol %.3g)", what, got, want, d, tol)
	}
}

// Solved by island (the default), the loads still come out per body: two
// boxes of different masses resting apart and a hanging pendulum, three
// islands, each carry their own weight (tolerance as in the stack test).
func TestQueriesByIsland(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	masses := []float64{1, 3, 2}
	addBox(t, w, masses[0], mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	addBox(t, w, masses[1], mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{2, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	b, err := body.New(body.Params{Mass: masses[2], Inertia: body.SphereInertia(masses[2], 0.05), Pos: mgl64.Vec3{-2, 0, 1}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	j, err := constraint.NewHinge(w.Bodies, id, constraint.World, mgl64.Vec3{-2, 0, 1.5}, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(j))
	var st stepper.Stats
	for i := 0; i < 100; i++ {
		st, err = w.Step()
		require.NoError(t, err)
	}
	require.Len(t, st.Islands, 3, "three islands")
	ws := w.ContactWrenches(nil)
	require.Len(t, ws, 2)
	for i := 0; i < 2; i++ {
		assertVecTol(t, mgl64.Vec3{0, 0, masses[i] * wrenchG}, pairOf(t, ws, constraint.World, i).OnB.Force, 1e-9*masses[i]*wrenchG, "box on the ground")
	}
	r, err := w.JointReaction(nil, 0)
	require.NoError(t, err)
	require.Len(t, r, 1)
	assertVecTol(t, mgl64.Vec3{0, 0, masses[2] * wrenchG}, r[0].Force, 1e-9*masses[2]*wrenchG, "pendulum's hinge")
}
