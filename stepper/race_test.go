//go:build race

package stepper_test

// raceEnabled is true under the race detector, which slows stepping about
// twentyfold; long single-goroutine scene runs skip themselves there (the
// plain go test ./... runs them).
const raceEnabled = true
