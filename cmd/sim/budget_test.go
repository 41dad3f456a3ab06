package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// budgetRun runs `sim run SCENE ARGS --stats --out` and returns the
// largest fraction of the system's energy a step added (the CLI's own
// trajectory.EnergyScale, from the energy_added, kinetic and potential
// columns), the chassis' (body 0's) path length in the x–y plane, the
// number of statistics rows and stderr.
func budgetRun(t *testing.T, scene string, args ...string) (worst, path float64, rows int, stderr string) {
	t.Helper()
	dir := t.TempDir()
	stats, out := filepath.Join(dir, "s.csv"), filepath.Join(dir, "t.csv")
	_, stderr, code := runSim(t, append([]string{"run", scene, "--quiet", "--stats", stats, "--out", out}, args...)...)
	require.Equal(t, 0, code, stderr)
	s, err := scenes.Lookup(scene)
	require.NoError(t, err)
	w, err := s.Build(nil)
	require.NoError(t, err)
	es := trajectory.NewEnergyScale(w)
	header, data := readCSV(t, stats)
	col := func(name string) int {
		j := slicesIndex(header, name)
		require.GreaterOrEqual(t, j, 0, name)
		return j
	}
	jk, ju, ja := col("kinetic"), col("potential"), col("energy_added")
	for _, r := range data {
		var st stepper.Stats
		st.Kinetic, _ = strconv.ParseFloat(r[jk], 64)
		st.Potential, _ = strconv.ParseFloat(r[ju], 64)
		added, err := strconv.ParseFloat(r[ja], 64)
		require.NoError(t, err)
		es.Add(&st)
		worst = math.Max(worst, es.Fraction(added))
	}
	_, frames := readCSV(t, out)
	px, py := math.NaN(), 0.0
	for _, r := range frames {
		if r[2] != "0" {
			continue
		}
		x, _ := strconv.ParseFloat(r[3], 64)
		y, _ := strconv.ParseFloat(r[4], 64)
		if !math.IsNaN(px) {
			path += math.Hypot(x-px, y-py)
		}
		px, py = x, y
	}
	return worst, path, len(data), stderr
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// forkliftPerturbations change one forklift parameter each by about 4e-7
// of its value, up and down: chassis mass, friction, engine torque,
// steering and wheel mass.
var forkliftPerturbations = []string{
	"chassis_mass=2500.001", "chassis_mass=2499.999", "friction=0.8000003", "friction=0.7999997",
	"max_torque=128.00005", "max_torque=127.99995", "steer=0.35000014", "steer=0.34999986",
	"wheel_mass=40.000016", "wheel_mass=39.999984",
}

// The paper's budgeted forklift from the command line (issue 24): at
// budgets of 5 and 15 block pivots per step the run takes all 900 steps
// (at 5 it used to stop at step 123 on a singular projection), no step
// adds more than 5 % of the system's energy (it used to be 62.7 % at
// budget 5, 10.9 % at 15), and the chassis drives at least 90 % of the
// unbudgeted path (28.09 m). Measured with the defaults: 100.0 % at both
// budgets (28.09 m; 85.0 % and 99.8 % before a budget-bound solve handed
// the next step the index sets of the iterate it applied, projected onto
// its box, instead of the face the budget cut off), worst step 0 %. The
// perturbed runs are measured against the same path: without a budget
// each of them drives 28.09 m too.
//
// At budget 5 the budget binds on 80 of the first 300 steps (the
// acceleration), and a run whose parameters differ by 4e-7 of their
// values can fall into a regime of wheel slip in which every step hits
// the budget for a while. Of the ten forkliftPerturbations runs, nine
// drive 100.0 % of the path and chassis_mass=2499.999 drives 88.4 %
// (24.84 m; the budget binds on 294 steps, the last at step 353; five
// such runs drove 51–82 % before, and this one 76.0 % with the picked
// iterate's own index sets instead of its projection's), with worst steps
// of up to 0.34 % of the energy, so the bounds are: every run at least 85 %, and at least nine
// of the ten at least 90 %. A run that stalls or stops early (the old
// stop at step 123: under 5 %) fails both. Each run takes about a second.
func TestRunForkliftBudgets(t *testing.T) {
	if testing.Short() {
		t.Skip("thirteen 900-step forklift runs")
	}
	_, ref, n, _ := budgetRun(t, "forklift", "--steps", "900")
	require.Equal(t, 900, n)
	check := func(name string, worst, path float64, n int, stderr string) {
		t.Helper()
		assert.Equal(t, 900, n, "%s: every step", name)
		assert.LessOrEqual(t, worst, 0.05, name)
		// A step above 1 % is named once, when it happens (at budget 5
		// a step may add about 1 %: a budget-bound answer, as the warning says).
		if worst > 0.01 {
			assert.Equal(t, 1, strings.Count(stderr, "warning: step "), "%s: %s", name, stderr)
		} else {
			assert.NotContains(t, stderr, "warning", name)
		}
	}
	for _, b := range []string{"5", "15"} {
		worst, path, n, stderr := budgetRun(t, "forklift", "--steps", "900", "--budget", b)
		t.Logf("budget %s: path %.2f m of %.2f m (%.1f %%), worst step %.3g %% of the energy", b, path, ref, 100*path/ref, 100*worst)
		check("budget "+b, worst, path, n, stderr)
		assert.GreaterOrEqual(t, path, 0.9*ref, "budget %s", b)
	}
	above := 0
	for _, set := range forkliftPerturbations {
		worst, path, n, stderr := budgetRun(t, "forklift", "--steps", "900", "--budget", "5", "--set", set)
		t.Logf("budget 5, %s: path %.2f m (%.1f %%), worst step %.3g %% of the energy", set, path, 100*path/ref, 100*worst)
		check("budget 5, "+set, worst, path, n, stderr)
		assert.GreaterOrEqual(t, path, 0.85*ref, "budget 5, %s", set)
		if path >= 0.9*ref {
			above++
		}
	}
	assert.GreaterOrEqual(t, above, len(forkliftPerturbations)-1, "perturbed runs at budget 5 driving at least 90 %% of their path")
}

// The brick wall at a budget of 3 pivots stands: no step adds more than
// 5 % of its energy.
func TestRunBrickWallBudget3(t *testing.T) {
	if testing.Short() {
		t.Skip("a 500-step wall run")
	}
	worst, _, n, _ := budgetRun(t, "brickwall", "--steps", "500", "--budget", "3")
	t.Logf("brick wall, budget 3: worst step %.3g %% of the energy", 100*worst)
	assert.Equal(t, 500, n)
	assert.LessOrEqual(t, worst, 0.05)
}

// The chain with a Baumgarte constant far too large for its step gains
// energy: the first step above 1 % of the system's energy is named once,
// when it happens, and the run goes on; --max-energy-gain stops the run
// there with exit 1, every row written, the energy_added column holding
// that step's gain.
func TestRunEnergyGainWarningAndLimit(t *testing.T) {
	chain := []string{"run", "chain6", "--set", "stabilization=baumgarte", "--set", "baumgarte=5000", "--steps", "300", "--quiet"}
	dir := t.TempDir()
	stats := filepath.Join(dir, "s.csv")
	_, stderr, code := runSim(t, append(chain, "--stats", stats)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, "warning:"), stderr)
	assert.Contains(t, stderr, "sim: warning: step 9 added ")
	_, rows := readCSV(t, stats)
	assert.Len(t, rows, 300, "the run went on")
	added9 := rows[8][len(rows[8])-2]

	limited := filepath.Join(dir, "l.csv")
	_, stderr, code = runSim(t, append(chain, "--stats", limited, "--max-energy-gain", "0.05")...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "step 9 added")
	assert.Contains(t, stderr, "stopped after step 9 of 300 (--max-energy-gain 0.05); outputs closed with every row written")
	header, rows := readCSV(t, limited)
	require.Len(t, rows, 9, "the rows up to the step are kept")
	assert.Equal(t, "energy_added", header[len(header)-2])
	assert.Equal(t, added9, rows[8][len(header)-2], "the same step, the same gain")
	v, err := strconv.ParseFloat(added9, 64)
	require.NoError(t, err)
	assert.Positive(t, v)

	for _, bad := range []string{"-1", "NaN", "0", "+Inf"} {
		_, stderr, code := runSim(t, "run", "chain6", "--steps", "1", "--max-energy-gain", bad)
		assert.Equal(t, 2, code, bad)
		assert.Equal(t, "sim: --max-energy-gain: must be a finite fraction > 0, got "+bad+"\n", stderr, bad)
	}
}
