package stepper_test

import (
	"errors"
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

// Settings.Validate reports a bad field as body.FieldError, the module's
// one field-error type, with the field and its value.
func TestSettingsFieldError(t *testing.T) {
	s := stepper.DefaultSettings()
	s.BounceSpeed = -2
	err := s.Validate()
	var fe *body.FieldError
	require.True(t, errors.As(err, &fe), "%v is not a *body.FieldError", err)
	assert.Equal(t, body.FieldError{What: "settings", Field: "BounceSpeed", Value: -2.0, Reason: "must be finite and ≥ 0 m/s, got -2"}, *fe)
	assert.EqualError(t, err, "settings: BounceSpeed: must be finite and ≥ 0 m/s, got -2")
	_, err = stepper.New(stepper.Settings{})
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, "H", fe.Field)
	assert.Equal(t, 0.0, fe.Value)
}

// A geom's bad material or pose and a bad Effort are body.FieldErrors
// too, with the messages a user reads.
func TestGeomAndActuatorFieldErrors(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	ball, err := contact.NewSphere(0.1)
	require.NoError(t, err)
	var fe *body.FieldError
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: ball, Material: stepper.Material{Friction: 0.5, Restitution: 1.5}})
	require.True(t, errors.As(err, &fe), "%v is not a *body.FieldError", err)
	assert.Equal(t, body.FieldError{What: "geom 0", Field: "Material.Restitution", Value: 1.5, Reason: "must be in [0, 1], got 1.5"}, *fe)
	assert.EqualError(t, err, "geom 0: Material.Restitution: must be in [0, 1], got 1.5")
	_, err = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: ball, Local: contact.Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}}})
	require.True(t, errors.As(err, &fe), "%v is not a *body.FieldError", err)
	assert.Equal(t, "Local", fe.Field)
	e := &stepper.Effort{Input: math.Inf(1)}
	err = e.Control(w)
	require.True(t, errors.As(err, &fe), "%v is not a *body.FieldError", err)
	assert.Equal(t, "Joint", fe.Field)
}
