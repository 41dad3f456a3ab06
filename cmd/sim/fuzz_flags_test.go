package main

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fuzzRunFlags are the flags of sim run that FuzzRunFlags sets: every one
// that writes no file (the output paths are tested in
// TestRunBadInputOneLineExit2; a fuzzer should not create files where
// its bytes say).
var fuzzRunFlags = []string{"steps", "dt", "solver", "budget", "pick", "polish", "every", "max-energy-gain", "max-memory", "set", "quiet",
	"mlcp solver", "mlcp budget", "mlcp pick", "mlcp polish", "mlcp timeout", "mlcp max-memory", "export set"}

// fuzzRunScenes are the scenes FuzzRunFlags runs, small enough for a
// fuzz input's time.
var fuzzRunScenes = []string{"pendulum", "chain6", "rod", "forklift"}

// FuzzRunFlags runs sim run on a built-in scene with one flag set to a
// fuzzed value, then --steps 3: whatever the value, sim does not panic
// (cli.Run's exit status 3), exits 0, 1 or 2, a refused value (status 2)
// is one line on stderr starting "sim: " that names the flag or repeats
// the value, and a failed run (status 1) ends with one such line after
// its warnings.
func FuzzRunFlags(f *testing.F) {
	for _, v := range []string{"0", "-1", "NaN", "Inf", "-Inf", "1e300", "1e-300", "abc", "", "3", "1.5", "0x10", "9223372036854775807", "-0"} {
		for k := range fuzzRunFlags {
			f.Add(uint8(k), uint8(k), v)
		}
	}
	for k := 11; k < len(fuzzRunFlags); k++ {
		for _, v := range []string{"0", "-1", "NaN", "1e300", "abc", "", "1ms", "-5s", "1e9", "links=NaN", "mass=1e-300"} {
			f.Add(uint8(k), uint8(k), v)
		}
	}
	for _, v := range []string{"links=2", "links=NaN", "mass=-1", "length=Inf", "angle=1e300", "stabilization=post", "baumgarte=1e6",
		"=", "links", "links=", "mass=1e-300", "radius=0", "rows=2", "chassis_length=1e-9", "speed=NaN"} {
		f.Add(uint8(1), uint8(9), v)
		f.Add(uint8(3), uint8(9), v)
	}
	f.Fuzz(func(t *testing.T, scene, flag uint8, value string) {
		name := fuzzRunFlags[int(flag)%len(fuzzRunFlags)]
		args := []string{"run", fuzzRunScenes[int(scene)%len(fuzzRunScenes)]}
		if cmd, f, ok := strings.Cut(name, " "); ok {
			// sim mlcp solve on the rod's MLCP, or sim export --set.
			args = []string{"mlcp", "solve", rodFile, "--" + f, value}
			if cmd == "export" {
				args = []string{"export", args[1], "--set", value}
				args[1] = fuzzRunScenes[int(scene)%len(fuzzRunScenes)]
			}
			if x, err := strconv.ParseFloat(value, 64); err == nil && math.Abs(x) > 1000 && (f == "budget" || f == "polish") {
				return
			}
			name = f
			checkSim(t, args, name, value)
			return
		}
		if name == "quiet" {
			args = append(args, "--quiet="+value)
		} else {
			args = append(args, "--"+name, value)
		}
		// Keep each input fast: no more than 20 steps, no scene larger
		// than 50 of anything (the scenes' own maxima are tested elsewhere).
		if name == "steps" || name == "set" {
			_, num, _ := strings.Cut(value, "=")
			if name == "steps" {
				num = value
			}
			if x, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil && math.Abs(x) > 50 {
				return
			}
		}
		if name == "polish" || name == "budget" {
			if x, err := strconv.ParseFloat(value, 64); err == nil && x > 1000 {
				return
			}
		}
		if name != "steps" {
			args = append(args, "--steps", "3")
		}
		checkSim(t, args, name, value)
	})
}

// checkSim runs sim with args and checks FuzzRunFlags' rules for a flag
// name set to value.
func checkSim(t *testing.T, args []string, name, value string) {
	out, stderr, code := runSim(t, args...)
	switch code {
	case 0:
		return
	case 1, 2:
	default:
		t.Fatalf("sim %q: exit status %d, stderr %q", args, code, stderr)
	}
	// A refusal is one line; a failed run may warn first ("sim: warning:
	// step 2 added … J", trajectory.EnergyGain), every line "sim: …".
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if !strings.HasSuffix(stderr, "\n") || (code == 2 && len(lines) != 1) {
		t.Fatalf("sim %q: status %d, want one line \"sim: …\" on stderr, got %q", args, code, stderr)
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, "sim: ") || (i < len(lines)-1 && !strings.HasPrefix(l, "sim: warning: ")) {
			t.Fatalf("sim %q: status %d, want warnings then one error, each \"sim: …\", got %q", args, code, stderr)
		}
	}
	if code == 2 && out != "" {
		t.Fatalf("sim %q: status 2 with output %q", args, out)
	}
	if code == 2 && !strings.Contains(stderr, name) && (value == "" || !strings.Contains(stderr, value)) {
		t.Fatalf("sim %q: refusal names neither the flag nor the value: %q", args, stderr)
	}
}

// A --set value inside its parameter's range that the built scene still
// refuses (FuzzRunFlags): chain6's mass=1e-300 gives links of inertia
// 1.25e-305 kg·m², whose inverse overflows. The refusal names the built
// body's field and the --set values that caused it, in sim run and in
// sim export.
func TestRunSetInRangeBuildErrorNamesTheValue(t *testing.T) {
	out, stderr, code := runSim(t, "run", "chain6", "--set", "mass=1e-300", "--steps", "3")
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "sim: chain6: --set mass=1e-300: bodies[0].inertia: inverse overflows")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
	// sim export refused it with the spec's message alone, naming neither
	// the scene nor the value.
	out, stderr, code = runSim(t, "export", "chain6", "--set", "mass=1e-300")
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, out)
	assert.Contains(t, stderr, "sim: chain6: --set mass=1e-300: bodies[0].inertia: inverse overflows")
}
