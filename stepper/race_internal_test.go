//go:build race

package stepper

// raceOn is true under the race detector: the internal tests' counterpart
// of stepper_test's raceEnabled, for runs that shorten themselves there.
const raceOn = true
