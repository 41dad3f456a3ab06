package stepper_test

import (
	"errors"
	"testing"

	"github.com/gorigid/gorigid/body"
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
