package scenes_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFieldErrors: a bad value in a scene file, in a --set override or in
// a builder's parameter struct comes back as a *num.FieldError naming the
// field (the JSON path, the parameter, the struct field) and holding the
// bad value, so a Go caller reads both with errors.As. The messages are
// those TestLoadErrors and TestParamOverrides match.
func TestFieldErrors(t *testing.T) {
	body := func(name, extra string) string {
		return `{"name": "` + name + `", "mass": 1, "inertia": [1, 1, 1]` + extra + `}`
	}
	file := func(settings, bodies string) error {
		_, err := scenes.Load(strings.NewReader(`{"version": 1, "settings": {`+settings+`}, "bodies": [`+bodies+`]}`), "f.json")
		return err
	}
	override := func(scene string, set map[string]string) error {
		s, err := scenes.Lookup(scene)
		require.NoError(t, err)
		_, err = s.Build(set)
		return err
	}
	chain := scenes.DefaultChainParams()
	chain.Links = scenes.MaxChainLinks + 1
	_, chainErr := scenes.Chain(chain)
	dom := scenes.DefaultDominoesParams()
	dom.Pitch = 2
	_, domErr := scenes.Dominoes(dom)

	for _, c := range []struct {
		name, what, field string
		value             any
		err               error
	}{
		{"file mass", "", "bodies[2].mass", -1.0,
			file(`"h": 0.01`, body("a", "")+","+body("b", "")+`, {"name": "c", "mass": -1, "inertia": [1, 1, 1]}`)},
		{"file h", "", "settings.h", -0.5, file(`"h": -0.5`, body("a", ""))},
		{"file budget", "", "settings.budget", -2, file(`"h": 0.01, "budget": -2`, body("a", ""))},
		{"file velocity", "", "bodies[0].velocity[2]", "1e999", file(`"h": 0.01`, body("a", `, "velocity": [0, 0, 1e999]`))},
		{"file impacts", "", "settings.impacts", "sequential", file(`"h": 0.01, "impacts": "sequential"`, body("a", ""))},
		{"file speed", "", "settings.max_correcting_speed", -1.0, file(`"h": 1, "max_correcting_speed": -1`, "")},
		{"set links", "chain6", "links", -3, override("chain6", map[string]string{"links": "-3"})},
		{"set angle", "chain6", "angle", 7.0, override("chain6", map[string]string{"angle": "7"})},
		{"set length", "chain6", "length", "NaN", override("chain6", map[string]string{"length": "NaN"})},
		{"set unknown", "chain6", "alpha", "2", override("chain6", map[string]string{"alpha": "2"})},
		{"Chain", "chain", "Links", scenes.MaxChainLinks + 1, chainErr},
		{"Dominoes", "dominoes", "Pitch", 2.0, domErr},
	} {
		var fe *num.FieldError
		require.True(t, errors.As(c.err, &fe), "%s: %v", c.name, c.err)
		assert.Equal(t, c.what, fe.What, c.name)
		assert.Equal(t, c.field, fe.Field, c.name)
		assert.Equal(t, c.value, fe.Value, c.name)
		assert.Contains(t, c.err.Error(), fe.Field, "%s: the message names the field", c.name)
	}
	// The override's message is unchanged: "links must be ≥ 1" after the
	// --set NAME=VALUE it refuses.
	assert.EqualError(t, override("chain6", map[string]string{"links": "-3"}), "chain6: --set links=-3: links must be ≥ 1")
	var pe *scenes.ParamError
	require.ErrorAs(t, override("chain6", map[string]string{"links": "-3"}), &pe)
	assert.Equal(t, "links", pe.Name)
}
