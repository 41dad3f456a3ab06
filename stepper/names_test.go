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

// namedWorld is a pendulum "arm" on a hinge "shoulder" to the world, a
// "cart" on a slider "rail" along x, and two unnamed-joint bodies both
// named "brick" with geoms both named "tile".
func namedWorld(t *testing.T) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	add := func(name string, pos mgl64.Vec3) int {
		b, err := body.New(body.Params{Name: name, Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: pos, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		i, err := w.AddBody(b)
		require.NoError(t, err)
		return i
	}
	arm := add("arm", mgl64.Vec3{0.5, 0, 2})
	cart := add("cart", mgl64.Vec3{0, 3, 0})
	b1, b2 := add("brick", mgl64.Vec3{5, 0, 0}), add("brick", mgl64.Vec3{7, 0, 0})
	hinge, err := constraint.NewHinge(w.Bodies, arm, constraint.World, mgl64.Vec3{0, 0, 2}, mgl64.Vec3{0, 1, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(hinge))
	require.NoError(t, w.NameJoint(0, "shoulder"))
	rail, err := constraint.NewPrismatic(w.Bodies, cart, constraint.World, mgl64.Vec3{0, 3, 0}, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(rail))
	require.NoError(t, w.NameJoint(len(w.Joints)-1, "rail"))
	ball, err := constraint.NewBall(w.Bodies, b1, b2, mgl64.Vec3{6, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(ball))
	sphere, err := contact.NewSphere(0.1)
	require.NoError(t, err)
	for _, b := range []int{arm, b1, b2} {
		name := "tile"
		if b == arm {
			name = "hand"
		}
		_, err := w.AddGeom(stepper.Geom{Body: b, Shape: sphere, Name: name})
		require.NoError(t, err)
	}
	return w
}

// Bodies, geoms and joints are found by name; a missing, empty or shared
// name is an error that names it.
func TestLookupByName(t *testing.T) {
	w := namedWorld(t)
	b, i, err := w.Body("cart")
	require.NoError(t, err)
	assert.Equal(t, 1, i)
	assert.Same(t, w.Bodies[1], b)

	g, i, err := w.Geom("hand")
	require.NoError(t, err)
	assert.Equal(t, 0, i)
	assert.Same(t, &w.Geoms[0], g)

	j, i, err := w.Joint("rail")
	require.NoError(t, err)
	assert.Equal(t, 1, i)
	assert.Same(t, w.Joints[1], j)
	assert.Equal(t, "shoulder", w.JointName(0))
	assert.Equal(t, "", w.JointName(2), "unnamed")
	assert.Equal(t, "", w.JointName(99))

	_, _, err = w.Body("torso")
	assert.EqualError(t, err, `body "torso": no body has that name (bodies in the world: 4)`)
	_, _, err = w.Body("brick")
	assert.EqualError(t, err, `body "brick": 2 bodies have that name (indices 2, 3); look it up by index`)
	_, _, err = w.Geom("tile")
	assert.EqualError(t, err, `geom "tile": 2 geoms have that name (indices 1, 2); look it up by index`)
	_, _, err = w.Joint("knee")
	assert.EqualError(t, err, `joint "knee": no joint has that name (joints in the world: 3)`)
	_, _, err = w.Joint("")
	assert.EqualError(t, err, `joint "": the empty name names no joint; look it up by index`)
	assert.EqualError(t, w.NameJoint(3, "elbow"), `joint 3: NameJoint "elbow": no such joint, the world has 3`)

	// Renaming and clearing.
	require.NoError(t, w.NameJoint(0, "hip"))
	_, _, err = w.Joint("shoulder")
	assert.Error(t, err)
	_, i, err = w.Joint("hip")
	require.NoError(t, err)
	assert.Equal(t, 0, i)
	require.NoError(t, w.NameJoint(0, ""))
	assert.Equal(t, "", w.JointName(0))
}

// JointState reads a hinge's angle and a slider's slide with their rates
// from the world, equal to the pendulum's geometry and the cart's motion
// as the world steps; other joints are an error naming the type.
func TestJointState(t *testing.T) {
	w := namedWorld(t)
	arm, _, err := w.Body("arm")
	require.NoError(t, err)
	cart, _, err := w.Body("cart")
	require.NoError(t, err)
	cart.Vel = mgl64.Vec3{0.3, 0, 0}
	for k := 0; k < 30; k++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	_, i, err := w.Joint("shoulder")
	require.NoError(t, err)
	th, dth, err := w.JointState(i)
	require.NoError(t, err)
	// The arm's centre swings about y in the x–z plane: a rotation by θ
	// about +y takes the creation direction +x to (cos θ, 0, −sin θ). The
	// hinge's θ is A's (the arm's) rotation relative to B (the world);
	// the arm's centre lies on that line up to the joint's drift.
	c := arm.Pos.Sub(mgl64.Vec3{0, 0, 2})
	assert.InDelta(t, math.Atan2(-c.Z(), c.X()), th, 1e-4)
	assert.InDelta(t, arm.AngVel.Y(), dth, 1e-12)
	assert.Greater(t, th, 1.0, "the arm has swung past the bottom")
	assert.Greater(t, math.Abs(dth), 1.0)

	_, i, err = w.Joint("rail")
	require.NoError(t, err)
	s, ds, err := w.JointState(i)
	require.NoError(t, err)
	assert.InDelta(t, cart.Pos.X(), s, 1e-9)
	assert.InDelta(t, cart.Vel.X(), ds, 1e-9)
	assert.InDelta(t, 0.3*w.Time(), s, 1e-6, "no force along the rail")

	_, _, err = w.JointState(2)
	assert.EqualError(t, err, "joint 2: *constraint.Ball has no single coordinate (JointState reads hinges and prismatic joints)")
	_, _, err = w.JointState(-1)
	assert.EqualError(t, err, "joint -1: no such joint, the world has 3")
}
