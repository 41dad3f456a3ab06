//go:build !race

package stepper

// raceOn is true under the race detector (race_internal_test.go).
const raceOn = false
