package stepper_test

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// The regressions FuzzWorld found, each the smallest program that shows
// it written out as Go (the fuzzer's input is in testdata/fuzz/FuzzWorld).

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
