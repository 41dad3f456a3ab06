package stepper

import (
	"fmt"
	"strings"
)

// enumString is the String of a Settings enumeration's value v, named by
// names (its values from 0 in order), typ(v) outside them: the one body
// of Stabilization's, Impacts', JointCorrection's and Coherence's.
func enumString[T ~int | ~int8](names []string, v T, typ string) string {
	if v >= 0 && int(v) < len(names) {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}

// parseEnum is the inverse of enumString: the value named s, or an error
// "what: unknown noun "s" (want a, b or c)".
func parseEnum[T ~int | ~int8](names []string, s, what, noun string) (T, error) {
	for i, n := range names {
		if n == s {
			return T(i), nil
		}
	}
	want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	return 0, fmt.Errorf("%s: unknown %s %q (want %s)", what, noun, s, want)
}
