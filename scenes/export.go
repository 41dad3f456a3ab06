package scenes

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gorigid/gorigid/stepper"
)

// Schema is the JSON Schema (draft 2020-12) of scene files
// (scene.schema.json), for editors: `sim export --schema`.
//
//go:embed scene.schema.json
var Schema []byte

// specSettings returns the SettingsSpec of s; solvers by their Name.
func specSettings(s stepper.Settings) SettingsSpec {
	out := SettingsSpec{H: s.H, Gravity: s.Gravity, Budget: s.Budget, Tolerance: s.Tolerance, Pick: s.Pick, Polish: s.Polish,
		Stabilization: s.Stabilization, Baumgarte: s.Baumgarte, ContactMargin: s.ContactMargin,
		ProjectAbove: s.ProjectAbove, BounceSpeed: s.BounceSpeed, MaxCorrectingSpeed: s.MaxCorrectingSpeed,
		Impacts: s.Impacts, Sleep: s.Sleep, SingleProblem: s.SingleProblem, Coherent: s.Coherent,
		JointCorrection: s.JointCorrection, TurnFriction: s.TurnFriction, CoulombBounds: s.CoulombBounds}
	if s.Solver != nil {
		out.Solver = s.Solver.Name()
	}
	if s.PostSolver != nil {
		out.PostSolver = s.PostSolver.Name()
	}
	return out
}

// buildWith builds the built-in scene s with the builder's own settings
// set (which may hold solver values that a file can only name): the world
// is s.World() with Settings replaced by set.
func buildWith(s *SceneSpec, set stepper.Settings) (*stepper.World, error) {
	s.Settings.Solver, s.Settings.PostSolver = "", "" // set carries them
	w, err := s.World()
	if err != nil {
		return nil, err
	}
	w.Settings = set
	return w, nil
}

// describers are the built-in scenes that describe themselves as scene
// files, by registry name: the same parameter binding as the registry,
// and the spec the builder builds from.
var describers = map[string]func(set map[string]string) (*SceneSpec, error){}

// describer returns the Describe function of a scene registered with
// NewScene(name, doc, defaults, declare, …) whose builder builds spec(p).
func describer[P any](name string, defaults func() P, declare func(*ParamSet, *P), spec func(P) (*SceneSpec, error)) func(map[string]string) (*SceneSpec, error) {
	return func(set map[string]string) (*SceneSpec, error) {
		p := defaults()
		var ps ParamSet
		declare(&ps, &p)
		if err := ps.Apply(name, set); err != nil {
			return nil, err
		}
		s, err := spec(p)
		if err == nil {
			// Values in their ranges may still make a spec its file
			// refuses (a mass so small that the inertia's inverse
			// overflows): Describe says so, naming them, as Build does.
			err = s.Validate()
		}
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", name, setNote(set), err)
		}
		return s, nil
	}
}

func init() {
	pendulum := func(p ChainParams) (*SceneSpec, error) {
		if p.Links != 1 {
			return nil, fieldErr("pendulum", "Links", p.Links, "must be 1, got %d", p.Links)
		}
		return chainSpec(p)
	}
	describers["chain6"] = describer("chain6", DefaultChainParams, declareChain(true), chainSpec)
	describers["pendulum"] = describer("pendulum", DefaultPendulumParams, declareChain(false), pendulum)
	describers["rod"] = describer("rod", DefaultRodParams, declareRod, rodSpec)
	describers["brickwall"] = describer("brickwall", DefaultBrickWallParams, declareBrickWall, brickWallSpec)
	describers["forklift"] = describer("forklift", DefaultForkliftParams, declareForklift, forkliftSpec)
}

// Exportable returns the names of the registered scenes that Export can
// write, sorted.
func Exportable() []string {
	var out []string
	for _, n := range Names() {
		if describers[n] != nil {
			out = append(out, n)
		}
	}
	return out
}

// Describe returns the scene file of the registered scene name with the
// parameter overrides set (as Scene.Build takes them). Building it with
// SceneSpec.World gives the world Scene.Build returns, bit for bit.
func Describe(name string, set map[string]string) (*SceneSpec, error) {
	sc, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	d := describers[name]
	if d == nil {
		return nil, fmt.Errorf("scene %q cannot be exported (exportable: %s)", name, strings.Join(Exportable(), ", "))
	}
	s, err := d(set)
	if err != nil {
		return nil, err
	}
	s.Name = name
	s.Doc = sc.Doc
	if len(set) > 0 {
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			keys[i] = k + "=" + strings.TrimSpace(set[k])
		}
		s.Doc += " [" + strings.Join(keys, " ") + "]"
	}
	return s, nil
}

// Export writes the registered scene name, with the parameter overrides
// set, as a scene file to w (`sim export SCENE --set NAME=VALUE`).
func Export(name string, set map[string]string, w io.Writer) error {
	s, err := Describe(name, set)
	if err != nil {
		return err
	}
	return s.Marshal(w)
}
