package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addKinematicBox adds a kinematic box of full sides s at pos moving at vel.
func addKinematicBox(t *testing.T, w *stepper.World, s, pos, vel mgl64.Vec3, mu float64) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Name: "kinematic", Pos: pos, Rot: mgl64.QuatIdent(), Vel: vel, Kinematic: true})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	shape, err := contact.NewBoxSize(s)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	return b
}

// A kinematic pusher moving at v pushes a box over a rough floor: the
// pusher keeps its prescribed motion exactly (infinite mass), the box
// moves at v once in contact, and the pushing impulse per step balances
// the floor's sliding friction, μ m g h.
func TestKinematicPusherPushesBox(t *testing.T) {
	const h, m, mu, v, s = 0.01, 2.0, 0.3, 0.2, 0.1
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), mu)
	box := addBox(t, w, m, mgl64.Vec3{s, s, s}, mgl64.Vec3{0, 0, s / 2}, mgl64.QuatIdent(), mu)
	// The pusher floats 1 mm above the floor (no contact with it: both
	// have infinite mass) and starts 5 mm behind the box.
	p0 := mgl64.Vec3{-s - 0.005, 0, s/2 + 0.001}
	pusher := addKinematicBox(t, w, mgl64.Vec3{s, s, s}, p0, mgl64.Vec3{v, 0, 0}, 0) // frictionless face
	const steps = 100
	for i := 1; i <= steps; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		// The prescribed path: p0 + v t, to rounding of the sum of i steps.
		require.InDelta(t, p0[0]+v*h*float64(i), pusher.Pos[0], 1e-14, "step %d", i)
		require.Equal(t, mgl64.Vec3{v, 0, 0}, pusher.Vel, "the set velocity is kept")
	}
	// 0.005 m gap closes after 3 steps; afterwards the rigid contact holds
	// the box against the face: it moves at v (1e-9 m/s: the normal rows
	// are solved exactly by block pivoting, rounding remains).
	assert.InDelta(t, v, box.Vel[0], 1e-9)
	// Sideways, the solver's tolerance (10⁻⁶ of max|b|, the pusher's
	// 0.2 m/s): from step 4 on each steady step starts at the last step's
	// impulses (Settings.Coherent) and keeps their residual, a sideways
	// 2.9e-8 m/s (measured; 1e-16 with Coherent off).
	t.Logf("box velocity − v: %.2g m/s along, %.2g m/s sideways", box.Vel[0]-v, box.Vel[1])
	assert.InDelta(t, 0, box.Vel[1], 2e-7)
	assert.InDelta(t, pusher.Pos[0]+s, box.Pos[0], 1e-6, "box face touches the pusher face (within the contact margin's creep)")
	kin, pot := w.Energy()
	// 1e-9 relative: the box's v is v to 1e-9 (above).
	assert.InEpsilon(t, 0.5*m*v*v, kin, 1e-8, "kinetic energy counts the box only")
	assert.InEpsilon(t, m*9.81*box.Pos[2], pot, 1e-12, "potential energy counts the box only")
}

// A box dropped at rest onto a kinematic platform moving at v speeds up at
// μ g while it slides (Coulomb friction), then rides along at v.
func TestKinematicPlatformCarriesBox(t *testing.T) {
	const h, m, mu, v, s, g = 0.001, 1.5, 0.4, 0.5, 0.1, 9.81
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	platform := addKinematicBox(t, w, mgl64.Vec3{2, 1, 0.1}, mgl64.Vec3{0, 0, -0.05}, mgl64.Vec3{v, 0, 0}, mu)
	box := addBox(t, w, m, mgl64.Vec3{s, s, s}, mgl64.Vec3{0, 0, s / 2}, mgl64.QuatIdent(), mu)
	tStar := v / (mu * g) // ≈ 0.127 s of sliding
	nSlide := int(tStar / h / 2)
	for i := 1; i <= nSlide; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	// Sliding: each step's friction impulse is μ m g h, so v_box = μ g t.
	// 2e-3 relative: the friction direction follows the slip from the
	// first step; only the first step's pre-solve estimate of the normal
	// impulse differs from m g h, by rounding.
	tm := float64(nSlide) * h
	assert.InEpsilon(t, mu*g*tm, box.Vel[0], 2e-3)
	assert.InDelta(t, 0, box.Vel[1], 1e-9)
	for w.Time() < 3*tStar {
		_, err := w.Step()
		require.NoError(t, err)
	}
	// Riding: stuck to the platform at v (1e-6 m/s: static friction rows
	// solved exactly; the box-friction rows hold both directions).
	assert.InDelta(t, v, box.Vel[0], 1e-6)
	assert.InDelta(t, 0, box.Vel[2], 1e-6, "the box rests on the platform")
	assert.InDelta(t, 0.05, box.Pos[2], 1e-3, "on top of the platform (contact margin)")
	assert.InDelta(t, v*w.Time(), platform.Pos[0], 1e-12, "the platform keeps its path")
	assert.Equal(t, -0.05, platform.Pos[2], "no gravity on a kinematic body")
	assert.False(t, math.IsNaN(box.Pos[0]))
}
