package errmeasure

import (
	"fmt"
	"strings"
)

// Measure names the criterion by which a Picker ranks iterates.
type Measure int

// The measures. Last is not an error measure: it keeps the last iterate
// (no correction, §5.3 of the paper).
const (
	Energy   Measure = iota // energy error δe, Eq. (23), in J
	FB                      // Fischer–Burmeister error ‖δψ_FB‖₁, Eq. (7)
	Residual                // natural residual ‖δψ_res‖₁, Eq. (10)
	Last                    // no measure: the last iterate
	// EnergyExact is the energy error δe of Eq. (23) with the exact
	// effective mass of Eq. (11), āᵢ = 1/{A⁻¹}ᵢᵢ, in place of Eq. (13)'s
	// aᵢᵢ (see Picker.Reset for when it falls back to Eq. 13). Under it the
	// Energy field of Totals holds this exact-mass energy (J).
	EnergyExact
)

var measureNames = [...]string{Energy: "energy", FB: "fb", Residual: "residual", Last: "last", EnergyExact: "energy-exact"}

// String returns "energy", "fb", "residual", "last" or "energy-exact" (the
// names ParseMeasure and the command line accept), or "Measure(k)" for an
// invalid value.
func (m Measure) String() string {
	if m >= 0 && int(m) < len(measureNames) {
		return measureNames[m]
	}
	return fmt.Sprintf("Measure(%d)", int(m))
}

// valid reports whether m is one of the five constants.
func (m Measure) valid() bool { return m.Valid() }

// Valid reports whether m is one of the Measure constants, for callers that
// validate settings.
func (m Measure) Valid() bool { return m >= Energy && m <= EnergyExact }

// ParseMeasure is the inverse of Measure.String. It ignores case and
// surrounding spaces; the error names the value and lists the valid ones.
func ParseMeasure(s string) (Measure, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for m := Energy; m <= EnergyExact; m++ {
		if measureNames[m] == t {
			return m, nil
		}
	}
	return Energy, fmt.Errorf("measure: unknown value %q (want energy, energy-exact, fb, residual or last)", s)
}
