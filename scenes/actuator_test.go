package scenes_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hinge with spring, armature and servo keys, and a force applied at a
// point of a body, read from a scene file: the world built from it steps
// bit for bit as the same world built with the constraint API, the
// encoder writes the keys back (same spec after a round trip), and the
// load at a point gives the torque (R p) × f: after one step ω = h I⁻¹ τ.
func TestSceneSpringServoPointLoad(t *testing.T) {
	const text = `{"version": 1, "settings": {"h": 0.001, "gravity": [0, 0, 0]},
 "bodies": [{"name": "arm", "mass": 2, "inertia": [0.1, 0.1, 0.1], "position": [0, 0, 0]},
            {"name": "box", "mass": 1, "inertia": [0.4, 0.25, 0.2], "position": [5, 0, 0]}],
 "joints": [{"type": "hinge", "body_a": "arm", "body_b": "world", "pivot": [0, 0, 0], "axis": [0, 0, 1],
             "spring": {"stiffness": 3, "damping": 0.2, "rest": 0.1}, "armature": 0.05,
             "servo": {"target": 0.7, "kp": 5, "kd": 0.4, "max_force": 1.5}}],
 "loads": [{"type": "force", "body": "box", "direction": [1, 0, 0], "point": [0, 0, 1],
            "profile": {"type": "constant", "value": 2}}]}`
	spec, err := scenes.ReadSpec(strings.NewReader(text), "f.json")
	require.NoError(t, err)
	j := spec.Joints[0]
	assert.Equal(t, scenes.SpringSpec{Stiffness: 3, Damping: 0.2, Rest: 0.1}, *j.Spring)
	assert.Equal(t, 0.05, j.Armature)
	assert.Equal(t, scenes.ServoSpec{Target: 0.7, Kp: 5, Kd: 0.4, MaxForce: 1.5}, *j.Servo)
	var out strings.Builder
	require.NoError(t, spec.Marshal(&out))
	back, err := scenes.ReadSpec(strings.NewReader(out.String()), "g.json")
	require.NoError(t, err)
	assert.Equal(t, spec, back, "round trip")

	w, err := spec.World()
	require.NoError(t, err)
	ref, err := spec.World()
	require.NoError(t, err)
	// Replace the reference's joint with one built by hand.
	h, err := constraint.NewHinge(ref.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	require.NoError(t, h.SetSpringDamper(3, 0.2, 0.1))
	require.NoError(t, h.SetArmature(0.05))
	require.NoError(t, h.SetServo(0.7, 5, 0.4, 1.5))
	ref.Joints[0] = h
	_, err = w.Step()
	require.NoError(t, err)
	_, err = ref.Step()
	require.NoError(t, err)
	box := w.Bodies[1]
	// τ = (0, 0, 1) × (2, 0, 0) = (0, 2, 0), I_yy = 0.25: ω_y = h τ/I.
	assert.InDelta(t, 0.001*2/0.25, box.AngVel[1], 1e-15)
	assert.InDelta(t, 0.001*2/1, box.Vel[0], 1e-15)
	for s := 0; s < 500; s++ {
		_, err = w.Step()
		require.NoError(t, err)
		_, err = ref.Step()
		require.NoError(t, err)
	}
	q, _, err := w.JointState(0)
	require.NoError(t, err)
	qr, _, err := ref.JointState(0)
	require.NoError(t, err)
	assert.Equal(t, qr, q, "bit for bit")
	assert.Greater(t, q, 0.1, "pulled from 0 towards the servo target and the spring's rest")

	for _, tc := range []struct{ sub, want string }{
		{`"servo": {"target": 0.7, "kp": 0}`, "joints[0].servo.kp"},
		{`"spring": {"damping": -1}`, "joints[0].spring.damping"},
		{`"armature": -0.5`, "joints[0].armature"},
	} {
		bad := strings.Replace(text, `"armature": 0.05,`, tc.sub+",", 1)
		bad = strings.Replace(bad, `"servo": {"target": 0.7, "kp": 5, "kd": 0.4, "max_force": 1.5}`, `"friction": 0`, 1)
		if strings.Contains(tc.sub, "spring") {
			bad = strings.Replace(bad, `"spring": {"stiffness": 3, "damping": 0.2, "rest": 0.1}, `, "", 1)
		}
		_, err := scenes.Load(strings.NewReader(bad), "f.json")
		assert.ErrorContains(t, err, tc.want, tc.sub)
	}
	bad := strings.Replace(text, `"type": "force", "body": "box"`, `"type": "torque", "body": "box"`, 1)
	_, err = scenes.Load(strings.NewReader(bad), "f.json")
	assert.ErrorContains(t, err, "loads[0].point")
	assert.False(t, math.IsNaN(q))
}

// Rope and universal joints in a scene file: the round trip keeps them, and
// the world steps bit for bit as the one built with constraint.NewRope and
// NewUniversal (a pendulum on a universal joint with a bob on a rope).
func TestSceneRopeUniversal(t *testing.T) {
	const text = `{"version": 1, "settings": {"h": 0.002},
 "bodies": [{"name": "arm", "mass": 1, "inertia": [0.05, 0.05, 0.02], "position": [0.3, 0, 0]},
            {"name": "bob", "mass": 0.5, "inertia": [0.01, 0.01, 0.01], "position": [0.3, 0.2, -0.5]}],
 "joints": [{"type": "universal", "body_a": "arm", "body_b": "world", "pivot": [0, 0, 0], "axis_a": [0, 1, 0], "axis_b": [0, 0, 1]},
            {"type": "rope", "body_a": "bob", "body_b": "arm", "pivot_a": [0.3, 0.2, -0.5], "pivot_b": [0.6, 0, 0], "length": 0.8}]}`
	spec, err := scenes.ReadSpec(strings.NewReader(text), "f.json")
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, spec.Marshal(&out))
	back, err := scenes.ReadSpec(strings.NewReader(out.String()), "g.json")
	require.NoError(t, err)
	assert.Equal(t, spec, back, "round trip")
	w, err := spec.World()
	require.NoError(t, err)
	ref, err := spec.World()
	require.NoError(t, err)
	u, err := constraint.NewUniversal(ref.Bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	r, err := constraint.NewRope(ref.Bodies, 1, 0, mgl64.Vec3{0.3, 0.2, -0.5}, mgl64.Vec3{0.6, 0, 0}, 0.8)
	require.NoError(t, err)
	ref.Joints[0], ref.Joints[1] = u, r
	for s := 0; s < 300; s++ {
		_, err = w.Step()
		require.NoError(t, err)
		_, err = ref.Step()
		require.NoError(t, err)
	}
	assert.Equal(t, ref.Bodies[1].Pos, w.Bodies[1].Pos, "bit for bit")
	d := w.Bodies[1].Pos.Sub(w.Bodies[0].LocalToWorld(mgl64.Vec3{0.3, 0, 0})).Len()
	assert.LessOrEqual(t, d, 0.8+1e-3, "rope length held within the 1 mm projection threshold")
	bad := strings.Replace(text, `"axis_b": [0, 0, 1]`, `"axis_b": [0, 1, 1]`, 1)
	_, err = scenes.Load(strings.NewReader(bad), "f.json")
	assert.ErrorContains(t, err, "perpendicular")
}

// A ball joint's swing and twist keys: round trip, and the world steps bit
// for bit as one built with SetSwingLimit and SetTwistLimits; an angle out
// of range is an error naming the key.
func TestSceneBallLimits(t *testing.T) {
	const text = `{"version": 1, "settings": {"h": 0.002},
 "bodies": [{"name": "arm", "mass": 1, "inertia": [0.05, 0.05, 0.02], "position": [0, 0, -0.5], "angular_velocity": [3, 1, 4]}],
 "joints": [{"type": "ball", "body_a": "arm", "body_b": "world", "pivot": [0, 0, 0],
             "swing": {"axis": [0, 0, -1], "angle": 0.4}, "twist": {"axis": [0, 0, -1], "lower": -0.3, "upper": 0.2}}]}`
	spec, err := scenes.ReadSpec(strings.NewReader(text), "f.json")
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, spec.Marshal(&out))
	back, err := scenes.ReadSpec(strings.NewReader(out.String()), "g.json")
	require.NoError(t, err)
	assert.Equal(t, spec, back, "round trip")
	w, err := spec.World()
	require.NoError(t, err)
	ref, err := spec.World()
	require.NoError(t, err)
	b, err := constraint.NewBall(ref.Bodies, 0, constraint.World, mgl64.Vec3{})
	require.NoError(t, err)
	require.NoError(t, b.SetSwingLimit(ref.Bodies, mgl64.Vec3{0, 0, -1}, 0.4))
	require.NoError(t, b.SetTwistLimits(ref.Bodies, mgl64.Vec3{0, 0, -1}, -0.3, 0.2))
	ref.Joints[0] = b
	for s := 0; s < 300; s++ {
		_, err = w.Step()
		require.NoError(t, err)
		_, err = ref.Step()
		require.NoError(t, err)
	}
	assert.Equal(t, ref.Bodies[0].Rot, w.Bodies[0].Rot, "bit for bit")
	bad := strings.Replace(text, `"angle": 0.4`, `"angle": 4`, 1)
	_, err = scenes.Load(strings.NewReader(bad), "f.json")
	assert.ErrorContains(t, err, "joints[0].swing.angle")
}
