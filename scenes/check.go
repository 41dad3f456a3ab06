package scenes

import (
	"fmt"
	"math"
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
			return fmt.Errorf("%s: %s: must be finite and %s 0%s, got %v", scene, f.name, rel, unit, f.v)
		}
	}
	return nil
}
