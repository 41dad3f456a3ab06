// Package num holds the helpers every layer of gorigid shares: the one
// field-error type of the Validate functions, the finiteness tests and the
// perpendicular-vector choices. It imports only mgl64, so that body (the
// bottom of the import graph) and lcp (which knows no bodies) can use it.
package num

import (
	"fmt"
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
)

// FieldError reports one invalid field: of what, which field, the
// offending value, and why. body.FieldError, contact.FieldError and
// scenes.PathError are this type; body, contact, constraint rows and
// stepper.Settings return it from Validate (joined with errors.Join where
// Validate reports every field), package constraint's joint constructors
// and setters for each bad argument, bpmd for a frame's bad dataset entry
// (Field "bodies/masses[2]"), stepper/articulated for a bad Model,
// Settings or state field (Field "Links[2].Mass"), trajectory for a bad
// Options field or file cell, and scenes for a scene file's bad value
// (Field "bodies[2].mass"), a --set override and a builder's parameter,
// so errors.As with a *body.FieldError finds any of them.
type FieldError struct {
	What   string // what the field belongs to: "body", "box", "pose", "settings", …
	Name   string // the instance's name (a body's Name), "" if it has none
	Field  string // e.g. "Mass", "Half[1]", "H"
	Value  any    // the offending value
	Reason string // what is wrong, with the offending value
}

// Error returns "What: Field: Reason", or `What "Name": Field: Reason`
// when Name is not empty; an empty What or Field is left out, so a field
// whose path says whose it is (a file's dataset or key path) reads
// "Field: Reason":
//
//	body "link3": Mass: must be finite and > 0, got -1
//	settings: H: time step must be finite and > 0, got 0
//	bodies[2].mass: must be finite and > 0 kg, got -1
func (e *FieldError) Error() string {
	what := e.What
	if e.Name != "" {
		what += " " + strconv.Quote(e.Name)
	}
	s := e.Reason
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	if what != "" {
		s = what + ": " + s
	}
	return s
}

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// FiniteVec reports whether every component of v is finite.
func FiniteVec(v mgl64.Vec3) bool { return Finite(v[0]) && Finite(v[1]) && Finite(v[2]) }

// FiniteQuat reports whether every component of q is finite.
func FiniteQuat(q mgl64.Quat) bool { return Finite(q.W) && FiniteVec(q.V) }

// FiniteSlice reports whether every entry of v is finite.
func FiniteSlice(v []float64) bool {
	for _, x := range v {
		if !Finite(x) {
			return false
		}
	}
	return true
}

// MaxAbs returns the largest |x| of v (its ∞-norm), 0 for an empty v,
// NaN when an entry is NaN (math.Max's rule).
func MaxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x)) // math.Max's rules (NaN, ±0), inline
	}
	return m
}

// FormatBytes writes a byte count with a binary prefix and three
// significant digits: "512 B", "1.5 GiB".
func FormatBytes(b int64) string {
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	x, i := float64(b), -1
	for x >= 1024 && i < 5 {
		x /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %ciB", x, "KMGTPE"[i])
}
