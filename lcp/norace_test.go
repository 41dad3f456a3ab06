//go:build !race

package lcp_test

// raceEnabled is true under the race detector (race_test.go).
const raceEnabled = false
