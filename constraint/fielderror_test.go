package constraint

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every bad argument of a joint constructor or setter is a
// *body.FieldError naming the field and holding the offending value, with
// the message "what: field: reason" a user reads: the one error shape of
// body, contact and stepper.Settings.
func TestJointErrorsAreFieldErrors(t *testing.T) {
	bs := []*body.Body{mustBody(t, "a", mgl64.Vec3{}), mustBody(t, "b", mgl64.Vec3{1, 0, 0})}
	nan := math.NaN()
	hinge, err := NewHinge(bs, 0, 1, mgl64.Vec3{0.5, 0, 0}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	cases := []struct {
		name  string
		err   error
		field string
		value any
		msg   string
	}{
		{"pivot NaN", func() error { _, err := NewBall(bs, 0, 1, mgl64.Vec3{nan, 0, 0}); return err }(),
			"pivot", mgl64.Vec3{nan, 0, 0}, "ball joint: pivot: must be finite, got [NaN 0 0]"},
		{"zero axis", func() error { _, err := NewHinge(bs, 0, 1, mgl64.Vec3{}, mgl64.Vec3{}); return err }(),
			"axis", mgl64.Vec3{}, "hinge: axis: must have non-zero length, got [0 0 0] (length 0)"},
		{"body index", func() error { _, err := NewBall(bs, 0, 5, mgl64.Vec3{}); return err }(),
			"body B", 5, "ball joint: body B: body index 5 out of range [0, 2) (use World = -1 for the static world)"},
		{"distance length", func() error { _, err := NewDistance(bs, 0, 1, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, -1); return err }(),
			"length", -1.0, "distance joint: length: must be finite and > 0 m, got -1"},
		{"limits", hinge.SetLimits(1, -1), "limits", [2]float64{1, -1}, ""},
		{"servo kp", hinge.SetServo(0, -2, 0, 1), "servo kp", -2.0, ""},
	}
	for _, c := range cases {
		var fe *body.FieldError
		if !assert.True(t, errors.As(c.err, &fe), "%s: %v is not a *body.FieldError", c.name, c.err) {
			continue
		}
		assert.Equal(t, c.field, fe.Field, c.name)
		if v, ok := c.value.(mgl64.Vec3); ok && math.IsNaN(v[0]) {
			assert.True(t, math.IsNaN(fe.Value.(mgl64.Vec3)[0]), c.name)
		} else {
			assert.Equal(t, c.value, fe.Value, c.name)
		}
		if c.msg != "" {
			assert.Equal(t, c.msg, c.err.Error(), c.name)
		}
	}
}
