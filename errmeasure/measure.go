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
)

var measureNames = [...]string{Energy: "energy", FB: "fb", Residual: "residual", Last: "last"}

// String returns "energy", "fb", "residual" or "last" (the names ParseMeasure
// and the command line accept), or "Measure(k)" for an invalid value.
func (m Measure) String() string {
	if m >= 0 && int(m) < len(measureNames) {
		return measureNames[m]
	}
	return fmt.Sprintf("Measure(%d)", int(m))
}

// valid reports whether m is one of the four constants.
func (m Measure) valid() bool { return m >= Energy && m <= Last }

// ParseMeasure is the inverse of Measure.String. It ignores case and
// surrounding spaces; the error names the value and lists the valid ones.
func ParseMeasure(s string) (Measure, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for m := Energy; m <= Last; m++ {
		if measureNames[m] == t {
			return m, nil
		}
	}
	return Energy, fmt.Errorf("measure: unknown value %q (want energy, fb, residual or last)", s)
}
