package stepper_test

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// The regressions FuzzWorld found, each the smallest program that shows
// it written out as Go (the fuzzer's input is in testdata/fuzz/FuzzWorld).

// fzStaticGround adds a static body "ground" and a plane geom on it, the
// world's first body and geom.
func fzStaticGround(t *testing.T, w *stepper.World) {
	t.Helper()
	ground, err := body.New(body.Params{Name: "ground", Static: true, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(ground)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: contact.NewPlane()})
	require.NoError(t, err)
}

// fzBox adds a body named name, a box of 0.2 m sides and mass m at pos,
// and its box geom with friction mu.
func fzBox(t *testing.T, w *stepper.World, name string, m float64, pos mgl64.Vec3, mu float64) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Name: name, Mass: m, Inertia: body.BoxInertia(m, 0.2, 0.2, 0.2),
		Pos: pos, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	sh, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sh, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	return b
}

// A static body teleported to y = −Inf (testdata/fuzz/FuzzWorld/
// d6c3c3dc3f62ccb3): Step skipped static bodies in its finiteness check,
// returned no error, and left a world with a non-finite pose, whose geom
// the broad phase then placed at −Inf. Step now refuses it before the
// step, naming the body and the field.
func TestFuzzWorldStaticNonFinite(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(b *body.Body)
	}{
		{"Pos", func(b *body.Body) { b.Pos = mgl64.Vec3{-1.7085201793721974, math.Inf(-1), -3} }},
		{"Rot", func(b *body.Body) { b.Rot = mgl64.Quat{W: math.NaN()} }},
		{"Vel", func(b *body.Body) { b.Vel = mgl64.Vec3{math.NaN(), 0, 0} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := stepper.New(stepper.DefaultSettings())
			require.NoError(t, err)
			ground, err := body.New(body.Params{Name: "b0", Static: true, Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{-1.7, 0, -3}})
			require.NoError(t, err)
			box, err := body.New(body.Params{Name: "b1", Mass: 4.31, Inertia: body.BoxInertia(4.31, 0.2, 0.2, 0.2),
				Rot: mgl64.QuatIdent(), Pos: mgl64.Vec3{0, 0, 1}})
			require.NoError(t, err)
			for _, b := range []*body.Body{ground, box} {
				i, err := w.AddBody(b)
				require.NoError(t, err)
				sh, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
				require.NoError(t, err)
				_, err = w.AddGeom(stepper.Geom{Body: i, Shape: sh})
				require.NoError(t, err)
			}
			_, err = w.Step()
			require.NoError(t, err)
			c.set(ground)
			_, err = w.Step()
			require.Error(t, err)
			assert.True(t, errors.Is(err, stepper.ErrNonFinite), "%v", err)
			assert.Contains(t, err.Error(), `body 0 ("b0")`)
			assert.Contains(t, err.Error(), c.name)
			assert.Equal(t, 1, w.Steps(), "the refused step does not count")
		})
	}
}

// A rigid hinge between the world and a static or kinematic body, its
// rows naming no dynamic body (FuzzWorld, fuzzSeeds' tendon program, where
// a hinge joined the static ground to the world): their J M⁻¹ Jᵀ and C are
// 0, and every step failed with "free block of 5 rows has condition number
// +Inf: lcp: singular system" (10 rows as one problem), naming no joint,
// while the pendulum beside it moved on. Step now refuses it before
// anything moves, naming the joint, its row and the body; the same hinge
// made soft (k = 1e4 N/m, TestIslandsLooseRows' force sensor) steps, and
// the pendulum swings: its hinge's angle after 10 steps of 1/60 s from
// 0.3 rad is the same with or without the soft hinge beside it.
func TestFuzzWorldJointOfNoDynamicBody(t *testing.T) {
	build := func(single, kinematic, soft, extra bool) *stepper.World {
		s := stepper.DefaultSettings()
		s.SingleProblem = single
		w, err := stepper.New(s)
		require.NoError(t, err)
		g, err := body.New(body.Params{Name: "g", Static: !kinematic, Kinematic: kinematic, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		_, err = w.AddBody(g)
		require.NoError(t, err)
		bob, err := body.New(body.Params{Name: "bob", Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1),
			Pos: mgl64.Vec3{0, 0.5 * math.Sin(0.3), 1 - 0.5*math.Cos(0.3)}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		_, err = w.AddBody(bob)
		require.NoError(t, err)
		pend, err := constraint.NewHinge(w.Bodies, 1, constraint.World, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{1, 0, 0})
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(pend))
		if extra {
			h, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0})
			require.NoError(t, err)
			if soft {
				require.NoError(t, h.SetSoft(1e4, 0))
			}
			require.NoError(t, w.AddConstraint(h))
		}
		return w
	}
	ref := build(false, false, false, false)
	for range 10 {
		_, err := ref.Step()
		require.NoError(t, err)
	}
	want, _, err := ref.JointState(0)
	require.NoError(t, err)
	for _, single := range []bool{false, true} {
		for _, kinematic := range []bool{false, true} {
			kind := map[bool]string{false: "static", true: "kinematic"}[kinematic]
			w := build(single, kinematic, false, true)
			st, err := w.Step()
			require.Error(t, err)
			assert.Contains(t, err.Error(), `constraint 1: its row 0: a rigid Bilateral row of no dynamic body (body 0 "g" is `+kind+", the other side is the world)")
			assert.Equal(t, 0, w.Steps(), "nothing moved")
			assert.Equal(t, lcp.NotStarted, st.Status)

			w = build(single, kinematic, true, true)
			for range 10 {
				_, err := w.Step()
				require.NoError(t, err)
			}
			got, _, err := w.JointState(0)
			require.NoError(t, err)
			t.Logf("single %v, %s: angle after 10 steps %.15f rad, alone %.15f", single, kind, got, want)
			assert.InDelta(t, want, got, 1e-12, "the soft hinge of no dynamic body changes nothing (separate islands)")
		}
	}
}

// A body's mass properties, quaternion or applied load edited between
// steps to values Body.Validate refuses (FuzzWorld's edits; the probes
// below are its cases written out): Step checked only the state's
// finiteness before the step, so a mass of 0 or −1 failed in the KKT
// factor ("KKT.Mass[1]: not positive definite", naming no body), a NaN
// mass, a zero inertia or a zero quaternion turned the world's state into
// NaN and were named only after the step, and a quaternion of norm 2 or a
// body both static and kinematic stepped without an error (every rotation
// scaled by 4). Step now refuses each before the step, naming the body and
// the field (ErrNonFinite, Body.Validate's message), and nothing moves.
func TestFuzzWorldBodyEditedBetweenSteps(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		field string
		edit  func(b *body.Body)
	}{
		{"Mass", func(b *body.Body) { b.Mass = 0 }},
		{"Mass", func(b *body.Body) { b.Mass = -1 }},
		{"Mass", func(b *body.Body) { b.Mass = nan }},
		{"Inertia", func(b *body.Body) { b.Inertia = mgl64.Mat3{} }},
		{"Inertia", func(b *body.Body) { b.Inertia = b.Inertia.Mul(-1) }},
		{"Inertia", func(b *body.Body) { b.Inertia[4] = nan }},
		{"Rot", func(b *body.Body) { b.Rot = mgl64.Quat{} }},
		{"Rot", func(b *body.Body) { b.Rot = mgl64.Quat{W: 2} }},
		{"Torque", func(b *body.Body) { b.Torque = mgl64.Vec3{math.Inf(1), 0, 0} }},
		{"Force", func(b *body.Body) { b.Force = mgl64.Vec3{0, nan, 0} }},
		{"Kinematic", func(b *body.Body) { b.Static, b.Kinematic = true, true }},
	} {
		w, err := stepper.New(stepper.DefaultSettings())
		require.NoError(t, err)
		for i := range 3 {
			fzBox(t, w, "b", 1, mgl64.Vec3{0, 0, 0.1 + 0.2*float64(i)}, 0)
		}
		for range 5 {
			_, err := w.Step()
			require.NoError(t, err)
		}
		c.edit(w.Bodies[2])
		pos := w.Bodies[1].Pos
		_, err = w.Step()
		require.Error(t, err, c.field)
		assert.True(t, errors.Is(err, stepper.ErrNonFinite), "%v", err)
		assert.Contains(t, err.Error(), `body 2 ("b"): state not finite before the step: body "b": `+c.field+":")
		assert.Equal(t, 5, w.Steps(), "nothing moved")
		assert.Equal(t, pos, w.Bodies[1].Pos, "nothing moved")
	}
}

// Geoms edited after AddGeom (FuzzWorld's probes of the exported Geoms):
// AddGeom validated each geom once, and Step only its Body index, so a box
// whose size was set to −1, a shape kind 99, a convex without a hull, a
// plane moved onto a dynamic body, a NaN local pose or a friction of −1
// stepped without an error; the narrow phase found no contact for the
// invalid shapes, and the box fell through the ground (kinetic energy
// 0.668 J after 5 steps where the resting stack has 1e-30 J). Step now
// refuses each before anything moves, naming the geom and the field.
func TestFuzzWorldGeomEditedAfterAdd(t *testing.T) {
	for _, c := range []struct {
		want string
		edit func(g *stepper.Geom)
	}{
		{"geom 1: box: Size[0]: must be finite and > 0, got -1", func(g *stepper.Geom) { g.Shape.Size[0] = -1 }},
		{"geom 1: shape: Kind: unknown kind 99", func(g *stepper.Geom) { g.Shape.Kind = 99 }},
		{"geom 1: convex: Hull: must be set", func(g *stepper.Geom) { g.Shape = contact.Shape{Kind: contact.Convex} }},
		{"geom 1: Shape: a plane must belong to the world or a static body, body 1 is not static", func(g *stepper.Geom) { g.Shape = contact.NewPlane() }},
		{"geom 1: Local: need a finite position and a unit quaternion, got [NaN 0 0]", func(g *stepper.Geom) { g.Local.Pos[0] = math.NaN() }},
		{"geom 1: Material.Friction: must be finite and ≥ 0, got -1", func(g *stepper.Geom) { g.Material.Friction = -1 }},
		{"geom 1: Material.Restitution: must be in [0, 1], got 2", func(g *stepper.Geom) { g.Material.Restitution = 2 }},
		{"geom 1: Body: names body 7, the world has 2 bodies", func(g *stepper.Geom) { g.Body = 7 }},
	} {
		w, err := stepper.New(stepper.DefaultSettings())
		require.NoError(t, err)
		fzStaticGround(t, w)
		box := fzBox(t, w, "box", 1, mgl64.Vec3{0, 0, 0.1}, 0.5)
		for range 5 {
			_, err := w.Step()
			require.NoError(t, err)
		}
		c.edit(&w.Geoms[1])
		pos := box.Pos
		_, err = w.Step()
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
		assert.Equal(t, 5, w.Steps(), "nothing moved")
		assert.Equal(t, pos, box.Pos, "nothing moved")
	}
}

// A geom whose Local.Rot is the zero quaternion, which Geom.Local and
// Step's check (checkGeom) take as no rotation, appended to Geoms or
// edited in after AddGeom (which stores the identity): the contact stage
// posed it with the zero quaternion, the shapes found no contact, and the
// 1 kg box resting on the floor fell through it (z = −4.9 m after 1 s).
// It now steps as with the identity, bit for bit.
func TestGeomZeroLocalRotIsIdentity(t *testing.T) {
	run := func(zero bool) *body.Body {
		w := nuWorld(t, 0)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		b.Vel = mgl64.Vec3{1, 0.5, 0}
		if zero {
			w.Geoms[0].Local.Rot = mgl64.Quat{} // the world's plane
			w.Geoms[1].Local.Rot = mgl64.Quat{} // the box's
		}
		_, _ = nuStep(t, w, 60)
		return b
	}
	want, got := run(false), run(true)
	assert.InDelta(t, 0.1, got.Pos[2], 1e-6, "resting on the floor")
	assert.Equal(t, want.Pos, got.Pos)
	assert.Equal(t, want.Rot, got.Rot)
	assert.Equal(t, want.Vel, got.Vel)
}

// EstimateMemory of a world whose geom was edited to name no body
// (testdata/fuzz/FuzzWorld/265d85f58ce606db: geom 1's Body set to 3 in a
// world of 3 bodies): it read w.Bodies[3] and panicked with "index out of
// range [3] with length 3". It now counts such a world by its sizes alone,
// and Step names the geom.
func TestFuzzWorldEstimateMemoryGeomOfNoBody(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	for i := range 3 {
		fzBox(t, w, "b", 1, mgl64.Vec3{0, 0, 0.3 * float64(i)}, 0)
	}
	good := w.EstimateMemory(0)
	w.Geoms[1].Body = 3
	bad := w.EstimateMemory(0)
	assert.Equal(t, 3, bad.Bodies)
	assert.Equal(t, 3, bad.Geoms)
	assert.Positive(t, bad.Bytes)
	assert.LessOrEqual(t, bad.Bytes, good.Bytes, "sizes alone: no rows, no contacts")
	_, err = w.Step()
	assert.ErrorContains(t, err, "geom 1: Body: names body 3, the world has 3 bodies")
}

// A nil body put into the exported Bodies between steps (FuzzWorld's
// edits): Step names it ("body 1: is nil"), but Energy, Body(name),
// Raycast and ContactWrenches dereferenced it and panicked. They now pass
// over it: Energy counts the other bodies, Raycast hits no geom of it, a
// contact's torque about it is taken about the origin.
func TestFuzzWorldNilBodyQueries(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	fzStaticGround(t, w)
	for i := range 2 {
		fzBox(t, w, "box", 2, mgl64.Vec3{float64(i), 0, 0.1}, 0.5)
	}
	_, err = w.Step()
	require.NoError(t, err)
	_, u := w.Energy()
	w.Bodies[1] = nil
	k, u1 := w.Energy()
	assert.InDelta(t, u/2, u1, 1e-12, "the other box's potential energy, m g z = 2 · 9.81 · 0.1 J")
	assert.Less(t, k, 1e-9, "the other box rests: 2.7e-14 J of rounding after its first step")
	_, i, err := w.Body("box")
	require.NoError(t, err)
	assert.Equal(t, 2, i)
	hit, ok, err := w.Raycast(mgl64.Vec3{0, 0, 5}, mgl64.Vec3{0, 0, -1}, 20, nil)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 0, hit.Geom, "the ray passes the nil body's box and hits the ground")
	assert.NotEmpty(t, w.ContactWrenches(nil))
	_, err = w.Step()
	assert.EqualError(t, err, "body 1: is nil")
}

// AddGeom after a nil body was put into Bodies (testdata/fuzz/FuzzWorld/
// d210c93d42a2cac8): its check of the pairs the new geom could meet read
// the nil body's flags and panicked, and so would a geom on the nil body
// itself. AddGeom now names the nil body it is given and passes over
// existing geoms of no body, which Step names.
func TestFuzzWorldAddGeomBesideNilBody(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	sh, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	for range 2 {
		b, err := body.New(body.Params{Name: "b", Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2), Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		i, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: i, Shape: sh})
		require.NoError(t, err)
	}
	w.Bodies[0] = nil
	_, err = w.AddGeom(stepper.Geom{Body: 1, Shape: sh})
	assert.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: 0, Shape: sh})
	assert.EqualError(t, err, "geom 3: Body: names body 0, which is nil")
	_, err = w.Step()
	assert.EqualError(t, err, "body 0: is nil")
}

// The trajectory writers on a world with a nil body (testdata/fuzz/
// FuzzWorld/d013b59c2198974c: trajectory.Run writes step 0's frame before
// the first Step could name it): csvFrame dereferenced the nil body and
// panicked, and NewWriter's JSON header read its name. Both now return
// "body 1: is nil".
func TestFuzzWorldTrajectoryNilBody(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	for range 2 {
		b, err := body.New(body.Params{Name: "b", Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2), Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		_, err = w.AddBody(b)
		require.NoError(t, err)
	}
	var buf bytes.Buffer
	tw, err := trajectory.NewWriter(&buf, trajectory.CSV, w)
	require.NoError(t, err)
	w.Bodies[1] = nil
	assert.EqualError(t, tw.WriteFrame(w), "body 1: is nil")
	for _, f := range []trajectory.Format{trajectory.CSV, trajectory.JSON} {
		_, err = trajectory.NewWriter(&buf, f, w)
		assert.EqualError(t, err, "body 1: is nil")
	}
}
