//go:build race

package lcp_test

// raceEnabled is true under the race detector, which slows stepping about
// twentyfold: the scene tests leave out their largest scene there (the
// plain go test ./... runs it).
const raceEnabled = true
