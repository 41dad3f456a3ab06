package main

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nuRun runs `sim run FILE --steps N --quiet` on testdata/newuser/FILE,
// writing the trajectory and the step statistics, and returns the last
// trajectory row of each body (by the column names) and the statistics'
// rows.
func nuRun(t *testing.T, file string, steps int) (last []map[string]float64, stats []map[string]float64) {
	t.Helper()
	dir := t.TempDir()
	out, st := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.csv")
	_, stderr, code := runSim(t, "run", filepath.Join("..", "..", "testdata", "newuser", file),
		"--steps", strconv.Itoa(steps), "--quiet", "--out", out, "--stats", st)
	require.Equal(t, 0, code, stderr)
	asMaps := func(path string) []map[string]float64 {
		header, rows := readCSV(t, path)
		var ms []map[string]float64
		for _, r := range rows {
			m := map[string]float64{}
			for j, h := range header {
				if x, err := strconv.ParseFloat(r[j], 64); err == nil {
					m[h] = x
				}
			}
			ms = append(ms, m)
		}
		return ms
	}
	for _, m := range asMaps(out) {
		if int(m["step"]) == steps {
			last = append(last, m)
		}
	}
	return last, asMaps(st)
}

// A new user's scene files (testdata/newuser: h = 1/60 s, standard
// gravity, sleeping on, as stepper.DefaultSettings) through `sim run`,
// against the analytic answers of stepper's newuser tests.
func TestRunNewUserSceneFiles(t *testing.T) {
	const g = 9.81
	t.Run("incline", func(t *testing.T) {
		// 30°, μ = 0.3: after 1 s the box slides down the slope at
		// g(sin θ − μ cos θ) = 2.35629 m/s (semi-implicit Euler is exact
		// in v for a constant force; 0.5 %: a step's delay would be 1.7 %).
		th := math.Pi / 6
		last, _ := nuRun(t, "incline-slide.json", 60)
		require.Len(t, last, 1)
		v := last[0]["vx"]*math.Cos(th) - last[0]["vz"]*math.Sin(th)
		want := g * (math.Sin(th) - 0.3*math.Cos(th))
		t.Logf("μ 0.3: downhill speed %.5f m/s, analytic %.5f", v, want)
		assert.InDelta(t, want, v, 0.005*want)
		// μ = 0.7 > tan 30°: it stays within 1 mm for 2 s.
		last, _ = nuRun(t, "incline-stick.json", 120)
		moved := math.Hypot(last[0]["x"]-0.05, last[0]["z"]-0.1*math.Cos(th))
		t.Logf("μ 0.7: moved %.2e m", moved)
		assert.Less(t, moved, 1e-3)
	})
	t.Run("wheel", func(t *testing.T) {
		// Spun at 10 rad/s with no forward speed, it rolls at ω₀r/3 =
		// 1 m/s with v = ωr (1 mm/s) after 2 s.
		last, _ := nuRun(t, "wheel.json", 120)
		v, wr := last[0]["vx"], last[0]["wy"]*0.3
		t.Logf("wheel: v %.5f m/s, ωr %.5f m/s", v, wr)
		assert.InDelta(t, 1.0, v, 0.005)
		assert.InDelta(t, v, wr, 1e-3)
	})
	t.Run("kinematic", func(t *testing.T) {
		// A box riding a kinematic turntable (2 rad/s) at 0.5 m stays at
		// 0.5 m (the friction rows' drift, stepper.ContactInfo.Drift; it
		// drifted out to 0.59 m in 5 s before); a box dropped on a belt
		// at 1 m/s (μ = 0.3) rides at 1 m/s, having slipped h Σ(1 −
		// jμgh) = 0.161658 m behind the belt (stepper's
		// TestNewUserTurntable, TestNewUserConveyor). 1e-6: the solve's
		// tolerance over the run.
		last, _ := nuRun(t, "turntable.json", 300)
		require.Len(t, last, 2)
		r := math.Hypot(last[1]["x"], last[1]["y"])
		t.Logf("turntable: radius %.9f m after 5 s", r)
		assert.InDelta(t, 0.5, r, 1e-6)
		last, _ = nuRun(t, "conveyor.json", 180)
		require.Len(t, last, 2)
		slip := last[0]["x"] - last[1]["x"]
		t.Logf("conveyor: box at %.6f m/s, %.6f m behind the belt", last[1]["vx"], slip)
		assert.InDelta(t, 1, last[1]["vx"], 1e-6)
		assert.InDelta(t, 0.161658, slip, 1e-6)
	})
	t.Run("chain10", func(t *testing.T) {
		// Ten capsule links on ball joints released horizontal: the
		// joints' error stays within ProjectAbove (1 mm); a step's
		// position feedback and projections put in up to 0.03 J
		// (energy_added, the stepper's documented sources) while the
		// swing's velocity projection takes out more: no step adds 0.5 %
		// of the 9.81 J fall, and the energy never rises above the start.
		_, stats := nuRun(t, "chain10.json", 300)
		var viol, added, e float64
		e0 := stats[0]["kinetic"] + stats[0]["potential"] - stats[0]["energy_added"]
		for _, s := range stats {
			viol = math.Max(viol, s["max_violation"])
			added = math.Max(added, s["energy_added"])
			e = math.Max(e, s["kinetic"]+s["potential"]-e0)
		}
		t.Logf("chain: max_violation %.2e m, largest energy_added %.2e J, energy above start %.2e J", viol, added, e)
		assert.LessOrEqual(t, viol, 1e-3)
		assert.Less(t, added, 0.005*9.81)
		assert.Less(t, e, 1e-9)
	})
	t.Run("stack5", func(t *testing.T) {
		// Five boxes stacked: they stay at 0.1 + 0.2 i m (1 mm) and sleep
		// within 2 s.
		last, stats := nuRun(t, "stack5.json", 120)
		require.Len(t, last, 5)
		for i, b := range last {
			assert.InDelta(t, 0.1+0.2*float64(i), b["z"], 1e-3, "box %d", i+1)
		}
		asleep := 0
		for _, s := range stats {
			if s["rows"] == 0 {
				asleep++
			}
		}
		t.Logf("stack: %d of 120 steps without rows (asleep)", asleep)
		assert.Positive(t, asleep, "the stack never slept")
	})
}
