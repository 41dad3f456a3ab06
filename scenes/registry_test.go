package scenes_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListSortedAndLookup(t *testing.T) {
	l := scenes.List()
	require.NotEmpty(t, l)
	names := scenes.Names()
	assert.True(t, slices.IsSorted(names), "%v", names)
	assert.Contains(t, names, "chain6")
	assert.Contains(t, names, "pendulum")
	for _, s := range l {
		got, err := scenes.Lookup(s.Name)
		require.NoError(t, err)
		assert.Equal(t, s.Name, got.Name)
		assert.NotEmpty(t, s.Doc, s.Name)
		w, err := s.Build(nil)
		require.NoError(t, err, s.Name)
		assert.NotEmpty(t, w.Bodies, s.Name)
	}
	_, err := scenes.Lookup("chian6")
	assert.EqualError(t, err, `unknown scene "chian6" (valid: `+strings.Join(names, ", ")+`)`)
}

func TestChain6Params(t *testing.T) {
	s, err := scenes.Lookup("chain6")
	require.NoError(t, err)
	var names []string
	for _, p := range s.Params {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"links", "length", "mass", "radius", "angle", "stabilization", "baumgarte"}, names)
	assert.Equal(t, scenes.Param{Name: "length", Unit: "m", Doc: "link length", Default: "0.1", Min: "0", Max: "100", MinExclusive: true}, s.Params[1])
	assert.Equal(t, scenes.Param{Name: "links", Doc: "number of links", Default: "6", Min: "1", Max: "10000"}, s.Params[0])
	assert.Equal(t, "6", s.Params[0].Default)
	assert.Equal(t, "regularized", s.Params[5].Default)

	w, err := s.Build(map[string]string{"links": "3", "stabilization": "baumgarte", "baumgarte": "50", "length": "0.2"})
	require.NoError(t, err)
	assert.Len(t, w.Bodies, 3)
	assert.Equal(t, stepper.Baumgarte, w.Settings.Stabilization)
	assert.Equal(t, 50.0, w.Settings.Baumgarte)
	assert.InDelta(t, 0.1, w.Bodies[0].Pos.X(), 1e-15) // COM of a 0.2 m link released horizontal
}

// Setting every parameter to its listed default builds the same world as
// the defaults: Default strings round-trip exactly ('g', -1).
func TestDefaultsRoundTrip(t *testing.T) {
	for _, s := range scenes.List() {
		set := map[string]string{}
		for _, p := range s.Params {
			set[p.Name] = p.Default
		}
		a, err := s.Build(nil)
		require.NoError(t, err, s.Name)
		b, err := s.Build(set)
		require.NoError(t, err, s.Name)
		require.Equal(t, len(a.Bodies), len(b.Bodies), s.Name)
		for i := range a.Bodies {
			assert.Equal(t, *a.Bodies[i], *b.Bodies[i], "%s body %d", s.Name, i)
		}
		assert.Equal(t, a.Settings, b.Settings, s.Name)
	}
}

func TestBuildErrors(t *testing.T) {
	s, err := scenes.Lookup("chain6")
	require.NoError(t, err)
	cases := []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"links": "-3"}, "chain6: --set links=-3: links must be ≥ 1"},
		{map[string]string{"links": "abc"}, "chain6: --set links=abc: want an integer"},
		{map[string]string{"links": "2.5"}, "chain6: --set links=2.5: want an integer"},
		{map[string]string{"links": "1e6"}, "chain6: --set links=1e6: links must be ≤ 10000, its maximum"},
		{map[string]string{"links": "1e300"}, "chain6: --set links=1e300: want an integer"},
		{map[string]string{"links": "9223372036854775808"}, "chain6: --set links=9223372036854775808: want an integer"},
		{map[string]string{"links": "9223372036854775807"}, "links must be ≤ 10000, its maximum"},
		{map[string]string{"angle": "7"}, "chain6: --set angle=7: angle must be ≤ 6.283185307179586, its maximum"},
		{map[string]string{"angle": "-7"}, "chain6: --set angle=-7: angle must be ≥ -6.283185307179586"},
		{map[string]string{"length": "0"}, "chain6: --set length=0: length must be > 0"},
		{map[string]string{"length": "NaN"}, "chain6: --set length=NaN: want a finite number"},
		{map[string]string{"stabilization": "spring"}, "want regularized, none, baumgarte or post"},
		{map[string]string{"baumgarte": "-1"}, "baumgarte must be ≥ 0"},
		{map[string]string{"zeta": "1", "alpha": "2"},
			`chain6: --set alpha=2: unknown parameter "alpha" (valid: links, length, mass, radius, angle, stabilization, baumgarte)`},
	}
	for _, c := range cases {
		_, err := s.Build(c.set)
		assert.ErrorContains(t, err, c.want, "%v", c.set)
		var pe *scenes.ParamError
		assert.True(t, errors.As(err, &pe), "%v", c.set)
	}
	p, err := scenes.Lookup("pendulum")
	require.NoError(t, err)
	_, err = p.Build(map[string]string{"links": "2"})
	assert.ErrorContains(t, err, `unknown parameter "links" (valid: length, mass, radius, angle, stabilization, baumgarte)`)
}

func TestRegisterDuplicatePanics(t *testing.T) {
	s, err := scenes.Lookup("pendulum")
	require.NoError(t, err)
	assert.PanicsWithValue(t, `scenes: Register: scene "pendulum" registered twice`, func() { scenes.Register(s) })
	assert.Panics(t, func() { scenes.Register(scenes.Scene{Name: "x"}) })
}

func TestParamSetKinds(t *testing.T) {
	type params struct {
		On   bool
		Mode string
		N    int
	}
	s := scenes.NewScene("kinds", "binder kinds",
		func() params { return params{Mode: "a", N: 2} },
		func(ps *scenes.ParamSet, p *params) {
			ps.Bool("on", "", "a switch", &p.On)
			ps.String("mode", "", "a or b", &p.Mode, "a", "b")
			ps.Int("n", "", "a count", &p.N).Min(1)
		},
		func(p params) (*stepper.World, error) {
			if p.On && p.Mode == "b" {
				return nil, errors.New("mode b cannot be on")
			}
			return stepper.New(stepper.Settings{H: 0.01})
		})
	assert.Equal(t, []scenes.Param{
		{Name: "on", Doc: "a switch", Default: "false"},
		{Name: "mode", Doc: "a or b", Default: "a"},
		{Name: "n", Doc: "a count", Default: "2", Min: "1"},
	}, s.Params)
	_, err := s.Build(map[string]string{"on": "yes"})
	assert.ErrorContains(t, err, "kinds: --set on=yes: want true or false")
	_, err = s.Build(map[string]string{"mode": "c"})
	assert.ErrorContains(t, err, "want one of a, b")
	_, err = s.Build(map[string]string{"on": "1", "mode": "b"})
	assert.EqualError(t, err, "kinds: --set mode=b --set on=1: mode b cannot be on")
	_, err = s.Build(map[string]string{"on": "true", "mode": "a"})
	assert.NoError(t, err)
}

// A custom scene declares its parameters once, bound to the fields of its
// parameter struct; the registry lists them and Build applies NAME=VALUE
// overrides. A scene file registers itself with
//
//	func init() { scenes.Register(scenes.NewScene("drop", …)) }
//
// and then `sim list` and `sim run drop --set height=2` know it.
func ExampleNewScene() {
	type dropParams struct {
		Height float64 // m
		Links  int
	}
	drop := scenes.NewScene("drop", "a chain dropped from a height",
		func() dropParams { return dropParams{Height: 1.5, Links: 2} },
		func(ps *scenes.ParamSet, p *dropParams) {
			ps.Float("height", "m", "release height", &p.Height).Positive()
			ps.Int("links", "", "number of links", &p.Links).Min(1)
		},
		func(p dropParams) (*stepper.World, error) {
			c := scenes.DefaultChainParams()
			c.Links = p.Links
			w, err := scenes.Chain(c)
			if err != nil {
				return nil, err
			}
			for _, b := range w.Bodies {
				b.Pos[2] += p.Height
			}
			return w, nil
		})
	for _, p := range drop.Params {
		fmt.Printf("%s = %s %s: %s\n", p.Name, p.Default, p.Unit, p.Doc)
	}
	w, err := drop.Build(map[string]string{"links": "3"})
	fmt.Println(len(w.Bodies), err)
	_, err = drop.Build(map[string]string{"height": "-1"})
	fmt.Println(err)
	_, err = drop.Build(map[string]string{"hieght": "2"})
	fmt.Println(err)
	// Output:
	// height = 1.5 m: release height
	// links = 2 : number of links
	// 3 <nil>
	// drop: --set height=-1: height must be > 0
	// drop: --set hieght=2: unknown parameter "hieght" (valid: height, links)
}

// Building a registered scene with overrides, as `sim run chain6 --set
// links=3 --set stabilization=post` does.
func ExampleLookup() {
	s, err := scenes.Lookup("chain6")
	if err != nil {
		panic(err)
	}
	w, err := s.Build(map[string]string{"links": "3", "stabilization": "post"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(w.Bodies), w.Settings.Stabilization, w.Settings.H)
	// Output: 3 post 0.001
}
