package contact

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
)

// TestFieldError: Validate's errors are body.FieldError, the module's one
// field-error type, and carry the field and its value.
func TestFieldError(t *testing.T) {
	pos := mgl64.Vec3{0, math.NaN(), 0}
	err := Pose{Pos: pos, Rot: mgl64.QuatIdent()}.Validate()
	var fe *body.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("%v is not a *body.FieldError", err)
	}
	if v, ok := fe.Value.(mgl64.Vec3); fe.What != "pose" || fe.Field != "Pos" || !ok || !math.IsNaN(v[1]) {
		t.Errorf("got %+v", *fe)
	}
	if want := "pose: Pos: must be finite, got [0 NaN 0]"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
}
