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

// A sphere resting on one compliant contact settles at the static
// penetration F/k (docs/formats.md, Conventions), in the plain Eq. 1 form and in
// SPOOK's form; the pair stiffness follows the series rule of Material.
func TestContactStiffnessPenetration(t *testing.T) {
	const m, r, h, g = 2.0, 0.1, 0.01, 9.81
	for _, c := range []struct {
		name           string
		ground, sphere stepper.Material
		k              float64 // the pair's stiffness (N/m)
	}{
		{"plain, rigid ground", stepper.Material{Friction: 0.5}, stepper.Material{Friction: 0.5, Stiffness: 1e4}, 1e4},
		{"spook", stepper.Material{Friction: 0.5}, stepper.Material{Friction: 0.5, Stiffness: 2e4, Damping: 0.05}, 2e4},
		{"series", stepper.Material{Stiffness: 2e4}, stepper.Material{Stiffness: 2e4}, 1e4},
		{"inf is rigid", stepper.Material{Stiffness: math.Inf(1)}, stepper.Material{Stiffness: 5e3}, 5e3},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
			require.NoError(t, err)
			_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: c.ground})
			require.NoError(t, err)
			b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: mgl64.Vec3{0, 0, r}, Rot: mgl64.QuatIdent()})
			require.NoError(t, err)
			id, err := w.AddBody(b)
			require.NoError(t, err)
			sphere, err := contact.NewSphere(r)
			require.NoError(t, err)
			_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sphere, Material: c.sphere})
			require.NoError(t, err)
			for i := 0; i < 2000; i++ { // 20 s: the spring settles
				_, err := w.Step()
				require.NoError(t, err)
			}
			want := -m * g / c.k
			// The implicit spring's equilibrium is exact; 1e-9 m covers the
			// residual oscillation after 20 s and the solver's tolerance.
			assert.InDelta(t, want, b.Pos[2]-r, 1e-9, "penetration")
			assert.InDelta(t, 0, b.Vel[2], 1e-8)
		})
	}
}

func TestContactStiffnessValidation(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.01})
	require.NoError(t, err)
	for _, c := range []struct {
		m    stepper.Material
		want string
	}{
		{stepper.Material{Stiffness: -1}, "Material.Stiffness: must be ≥ 0 N/m"},
		{stepper.Material{Stiffness: math.NaN()}, "Material.Stiffness"},
		{stepper.Material{Damping: -0.1}, "Material.Damping: must be finite and ≥ 0 s"},
		{stepper.Material{Damping: math.Inf(1)}, "Material.Damping"},
	} {
		_, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: c.m})
		assert.ErrorContains(t, err, c.want)
	}
}
