package stepper_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// userStack is the scene a user writes: stepper.DefaultSettings (h = 1/60
// s, sleeping on, solved by island), a ground plane and a stack of four
// free 0.2 m boxes of 1 kg, each 1 cm above the one below, so that they
// land one after another and settle into one island.
func userStack(t *testing.T) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: 0.5}})
	require.NoError(t, err)
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	for k := range 4 {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2),
			Pos: mgl64.Vec3{0.01 * float64(k), 0, 0.11 + 0.21*float64(k)}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
	}
	return w
}

// The user's stack, landing and settling over 2 s: the world that puts
// A's values off its diagonal off (the default) steps to the bits of one
// that fills A at every Assemble, and the deferral ran.
func TestLazyAUserStackSameBits(t *testing.T) {
	lazy, eager := userStack(t), userStack(t)
	stepper.SetEagerA(eager)
	stepSame(t, lazy, eager, 120, "user stack")
	deferred, _ := stepper.LazyACounts(lazy)
	require.Positive(t, deferred, "the stack's steps put A's fill off")
}
