//go:build race

package sweep

// raceEnabled: the race detector slows runs 5–10 times, unevenly, which
// the fleet test's timing bounds do not allow for.
const raceEnabled = true
