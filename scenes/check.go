package scenes

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/internal/num"
)

// field is a scene parameter's name, unit and value, for validation.
type field struct {
	name, unit string
	v          float64
}

// checkFields returns an error naming the first field that is not finite
// or not above its bound: > 0 when strict, else ≥ 0 (the bound 0 either
// way), in the form "scene: Field: must be finite and > 0 unit, got v".
func checkFields(scene string, strict bool, fs ...field) error {
	for _, f := range fs {
		ok := f.v >= 0
		rel := "≥"
		if strict {
			ok, rel = f.v > 0, ">"
		}
		if !ok || math.IsInf(f.v, 0) {
			unit := ""
			if f.unit != "" {
				unit = " " + f.unit
			}
			return fieldErr(scene, f.name, f.v, "must be finite and %s 0%s, got %v", rel, unit, f.v)
		}
	}
	return nil
}

// fieldErr is the error of a scene builder's bad parameter: a
// *num.FieldError that reads "scene: Field: reason", with the bad value.
func fieldErr(scene, field string, value any, format string, args ...any) error {
	return &num.FieldError{What: scene, Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}
