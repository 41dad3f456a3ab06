package scenes_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 28: chain6 with links = 1 000 000, a 416-byte job, exhausted each
// worker's memory in turn. Every numeric parameter of every built-in scene
// states a maximum (a choice or a bool has a closed set of values); its
// default lies within [Min, Max]; a value just above the maximum (the next
// integer, or 1 % above for a real) is a *ParamError naming the scene,
// the parameter, the value and the maximum, reported before anything is
// built; the maximum itself passes the parameter's own checks.
func TestEveryParameterHasAMaximum(t *testing.T) {
	numeric := 0
	for _, s := range scenes.List() {
		for _, p := range s.Params {
			def, err := strconv.ParseFloat(p.Default, 64)
			if err != nil {
				assert.Empty(t, p.Max, "%s %s: a choice has no numeric maximum", s.Name, p.Name)
				continue
			}
			numeric++
			require.NotEmpty(t, p.Max, "%s: parameter %s states no maximum", s.Name, p.Name)
			hi, err := strconv.ParseFloat(p.Max, 64)
			require.NoError(t, err, "%s %s: Max %q", s.Name, p.Name, p.Max)
			assert.LessOrEqual(t, def, hi, "%s %s: default above the maximum", s.Name, p.Name)
			if p.Min != "" {
				lo, err := strconv.ParseFloat(p.Min, 64)
				require.NoError(t, err)
				assert.LessOrEqual(t, lo, def, "%s %s: default below the minimum", s.Name, p.Name)
			}
			over := strconv.FormatFloat(math.Nextafter(hi*1.01, math.Inf(1)), 'g', -1, 64)
			if _, err := strconv.Atoi(p.Default); err == nil {
				over = strconv.Itoa(int(hi) + 1)
			}
			_, err = s.Build(map[string]string{p.Name: over})
			var pe *scenes.ParamError
			require.True(t, errors.As(err, &pe), "%s %s=%s: %v", s.Name, p.Name, over, err)
			assert.Equal(t, s.Name+": --set "+p.Name+"="+over+": "+p.Name+" must be ≤ "+p.Max+", its maximum", err.Error())
		}
	}
	t.Logf("%d numeric parameters, each with a maximum", numeric)
	assert.GreaterOrEqual(t, numeric, 80, "the built-in scenes declare over 80 numeric parameters")
}

// The counts' maxima are the builders' own: the Go API refuses what --set
// refuses (chain6 links beyond MaxChainLinks), and the maximum itself
// builds.
func TestCountMaximaMatchTheBuilders(t *testing.T) {
	p := scenes.DefaultChainParams()
	p.Links = scenes.MaxChainLinks + 1
	_, err := scenes.Chain(p)
	assert.EqualError(t, err, "chain: Links: must be in [1, 10000], got 10001")
	p.Links = scenes.MaxChainLinks
	w, err := scenes.Chain(p)
	require.NoError(t, err)
	assert.Len(t, w.Bodies, scenes.MaxChainLinks)
	s, err := scenes.Lookup("chain6")
	require.NoError(t, err)
	w, err = s.Build(map[string]string{"links": "1e4"}) // float notation of an exact integer
	require.NoError(t, err)
	assert.Len(t, w.Bodies, 10000)
}
