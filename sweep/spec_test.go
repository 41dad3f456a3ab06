package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad spec files get one line naming the field.
func TestBadSpecs(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{`"scene": "push"`, `"scene": "pushh"`, `scene: unknown scene "pushh"`},
		{`"steps": 40`, `"steps": 0`, "steps: must be ≥ 1, got 0"},
		{`"steps": 40`, `"steps": "40"`, "steps: want a int, got a JSON string"},
		{`"steps": 40`, `"stepz": 40`, `unknown field "stepz"`},
		{`"max": 0.9, "step": 0.2`, `"max": 0.9, "step": 0`, "params[0].step: must be > 0 for a grid, got 0"},
		{`"min": 0.1, "max": 0.9`, `"min": 0.9, "max": 0.1`, "params[0].max: must be ≥ min 0.9, got 0.1"},
		{`{"name": "mu_s"`, `{"name": "mu_q"`, `params[0].name: "mu_q" is not a parameter of scene push`},
		{`{"name": "mu_s"`, `{"name": "mu_p"`, `params[0].name: "mu_p" is also fixed in set`},
		{`"values": [0.01, 0.02`, `"values": [-0.01, 0.02`, "experiments[0]: push: --set tripod=-0.01: tripod must be > 0"},
		{`"solvers": ["bpp", "lemke"]`, `"solvers": ["bpp", "simplex"]`, `solvers[1]: unknown solver "simplex"`},
		{`"solvers": ["bpp", "lemke"]`, `"solvers": []`, "solvers: need at least one"},
		{`"measured": "e2.csv"`, `"measured": "nope.csv"`, "experiments[1].measured: "},
		{`"name": "e3"`, `"name": "e1"`, `experiments[2].name: "e1" is used twice`},
		{`"angle_length": 0.05`, `"angle_length": -1`, "angle_length: must be finite and ≥ 0 m/rad, got -1"},
		{`"body": 0`, `"body": 5`, "experiments[0].measured: "},
		{`"set": {"object_x": "0.02"}`, `"set": {"object_x": "abc"}`, "experiments[2]: push: --set object_x=abc: want a finite number"},
		{`"steps": 40,`, `"steps": 40, "holdout": "e9",`, `holdout: "e9" is not an experiment`},
		{`"steps": 40,`, `"steps": 40, "sampling": "lhs",`, "samples: must be ≥ 1 for sampling lhs, got 0"},
		{`"steps": 40,`, `"steps": 40,,`, "not valid JSON at byte"},
		{`"steps": 40,`, `"steps": 40, "substeps": 1001,`, "substeps: must be 0 (default 1) to 1000, got 1001"},
		{`"steps": 40,`, `"steps": 40, "substeps": -1,`, "substeps: must be 0 (default 1) to 1000, got -1"},
		{`"steps": 40,`, `"steps": 40, "tolerance": -1e-10,`, "tolerance: must be ≥ 0 and < 1 (0 = the solver's default), got -1e-10"},
		{`"steps": 40,`, `"steps": 40, "tolerance": 1,`, "tolerance: must be ≥ 0 and < 1 (0 = the solver's default), got 1"},
		{`"steps": 40,`, `"steps": 40, "refine": {"region": -5},`, "refine.region: must be 0 (default 240) to 10⁷, got -5"},
		{`"steps": 40,`, `"steps": 40, "refine": {"starts": -1},`, "refine.starts: must be 0 (default 3) to 1000, got -1"},
		{`"steps": 40,`, `"steps": 40, "refine": {"local": 95},`, "refine.local: must be 0 (default) to 90 %, got 95"},
		{`"steps": 40,`, `"steps": 40, "coherent": 1,`, "coherent: want a bool, got a JSON number"},
		{`"steps": 40,`, `"steps": 40, "refine": {"evaluations": 100000000},`, "refine.evaluations: must be 0 (default 400) to 10⁷, got 100000000"},
	} {
		src := strings.Replace(testSpec, c.from, c.to, 1)
		require.NotEqual(t, testSpec, src, c.from)
		dir := t.TempDir()
		for _, e := range []string{"e1.csv", "e2.csv", "e3.csv", "e4.csv"} {
			b, err := os.ReadFile(filepath.Join(shippedDir, e))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, e), b, 0o644))
		}
		path := filepath.Join(dir, "spec.json")
		require.NoError(t, os.WriteFile(path, []byte(src), 0o644))
		_, err := ReadSpec(path)
		require.Error(t, err, c.to)
		assert.Contains(t, err.Error(), c.want)
		assert.True(t, strings.HasPrefix(err.Error(), path+": "), err.Error())
		assert.NotContains(t, err.Error(), "\n", c.to)
	}
}

// Grid values are min + k·step to 12 digits; a Latin hypercube puts one
// point in each of n strata per parameter, the same for the same seed.
func TestSamples(t *testing.T) {
	s := parseTestSpec(t, testSpec)
	assert.Equal(t, []float64{0.1, 0.3, 0.5, 0.7, 0.9}, s.values(0))
	xs := s.SamplesList()
	require.Len(t, xs, 25)
	assert.Equal(t, []float64{0.1, 0.01}, xs[0])
	assert.Equal(t, []float64{0.1, 0.02}, xs[1], "last parameter fastest")
	l := parseTestSpec(t, strings.Replace(strings.Replace(testSpec, `"values": [0.01, 0.02, 0.03, 0.04, 0.05]`, `"min": 0.01, "max": 0.05`, 1),
		`"steps": 40,`, `"steps": 40, "sampling": "lhs", "samples": 8, "seed": 3,`, 1))
	a, b := l.SamplesList(), l.SamplesList()
	require.Equal(t, a, b)
	require.Len(t, a, 8)
	for p, r := range [][2]float64{{0.1, 0.9}, {0.01, 0.05}} {
		seen := make([]bool, 8)
		for _, x := range a {
			k := int((x[p] - r[0]) / (r[1] - r[0]) * 8)
			require.False(t, seen[k], "two points in stratum %d of parameter %d", k, p)
			seen[k] = true
		}
	}
}
