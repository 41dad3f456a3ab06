package scenes

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gorigid/gorigid/stepper"
)

// Param is one parameter of a registered scene, as `sim list` shows it.
type Param struct {
	Name    string // what --set takes: `sim run chain6 --set links=3`
	Unit    string // SI unit ("m", "kg", "rad", "1/s"), "" for counts and choices
	Doc     string // one line
	Default string // the default value, formatted as --set accepts it
}

// Scene is a registered scene: a name, a one-line description, its
// parameters and a constructor that applies overrides to the defaults.
type Scene struct {
	Name, Doc string
	Params    []Param // in declaration (display) order
	// Build returns a new world built from the defaults with set applied:
	// set maps a parameter name to a value in the syntax of Param.Default
	// (the NAME=VALUE pairs of `sim run --set`). An unknown name or a bad
	// value is an error (a *ParamError) that lists the valid names or says
	// what is expected. A nil or empty set builds the defaults.
	Build func(set map[string]string) (*stepper.World, error)
}

var registry struct {
	sync.RWMutex
	scenes map[string]Scene
}

// Register adds s to the registry; call it from the scene file's init().
// An empty name, a nil Build or a name registered twice is a programming
// error and panics.
func Register(s Scene) {
	if s.Name == "" || s.Build == nil {
		panic(fmt.Sprintf("scenes: Register: scene %q needs a name and a Build function", s.Name))
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.scenes == nil {
		registry.scenes = map[string]Scene{}
	}
	if _, dup := registry.scenes[s.Name]; dup {
		panic(fmt.Sprintf("scenes: Register: scene %q registered twice", s.Name))
	}
	s.Params = slices.Clone(s.Params)
	registry.scenes[s.Name] = s
}

// List returns every registered scene, sorted by name.
func List() []Scene {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Scene, 0, len(registry.scenes))
	for _, s := range registry.scenes {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Scene) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the registered scene names, sorted.
func Names() []string {
	l := List()
	names := make([]string, len(l))
	for i, s := range l {
		names[i] = s.Name
	}
	return names
}

// Lookup returns the scene registered under name; the error for an unknown
// name lists the valid ones.
func Lookup(name string) (Scene, error) {
	registry.RLock()
	s, ok := registry.scenes[name]
	registry.RUnlock()
	if !ok {
		return Scene{}, fmt.Errorf("unknown scene %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	return s, nil
}

// ParamError is a bad NAME=VALUE override of a scene parameter. Its message
// reads like `chain6: --set links=-3: links must be ≥ 1`.
type ParamError struct {
	Scene, Name, Value string
	Err                error // what is wrong or expected
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: --set %s=%s: %v", e.Scene, e.Name, e.Value, e.Err)
}

func (e *ParamError) Unwrap() error { return e.Err }

// Value is a parameter of a type the ParamSet does not know (an enum, a
// duration): String gives the current value, Set parses one. It is the
// shape of flag.Value.
type Value interface {
	String() string
	Set(string) error
}

// ParamSet binds a scene's parameters to the fields of its parameter
// struct, so each parameter is declared once, with its unit and doc; see
// NewScene. Parameters keep their declaration order.
type ParamSet struct {
	params []Param
	vars   []*Var
}

// Var is one bound parameter; its methods add checks on the value.
type Var struct {
	name   string
	set    func(string) error
	checks []func(float64) error // numeric checks, run after parsing
	num    func() float64        // the bound value as float64 (numeric kinds)
}

// Params returns the declared parameters in declaration order, their
// Default holding the bound fields' values at declaration.
func (ps *ParamSet) Params() []Param { return slices.Clone(ps.params) }

func (ps *ParamSet) add(name, unit, doc, def string, set func(string) error, num func() float64) *Var {
	if name == "" || strings.ContainsAny(name, "= \t") {
		panic(fmt.Sprintf("scenes: parameter name %q must be non-empty, without '=' or spaces", name))
	}
	for _, p := range ps.params {
		if p.Name == name {
			panic(fmt.Sprintf("scenes: parameter %q declared twice", name))
		}
	}
	ps.params = append(ps.params, Param{Name: name, Unit: unit, Doc: doc, Default: def})
	v := &Var{name: name, set: set, num: num}
	ps.vars = append(ps.vars, v)
	return v
}

// Float binds a float64 field. Values parse with strconv.ParseFloat and
// must be finite; the default is formatted with strconv 'g', -1.
func (ps *ParamSet) Float(name, unit, doc string, p *float64) *Var {
	return ps.add(name, unit, doc, strconv.FormatFloat(*p, 'g', -1, 64), func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return errors.New("want a finite number")
		}
		*p = v
		return nil
	}, func() float64 { return *p })
}

// Int binds an int field (base 10).
func (ps *ParamSet) Int(name, unit, doc string, p *int) *Var {
	return ps.add(name, unit, doc, strconv.Itoa(*p), func(s string) error {
		v, err := strconv.Atoi(s)
		if err != nil {
			return errors.New("want an integer")
		}
		*p = v
		return nil
	}, func() float64 { return float64(*p) })
}

// Bool binds a bool field (strconv.ParseBool: true, false, 1, 0, …).
func (ps *ParamSet) Bool(name, unit, doc string, p *bool) *Var {
	return ps.add(name, unit, doc, strconv.FormatBool(*p), func(s string) error {
		v, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("want true or false")
		}
		*p = v
		return nil
	}, nil)
}

// String binds a string field; choices, if given, are the only values
// accepted.
func (ps *ParamSet) String(name, unit, doc string, p *string, choices ...string) *Var {
	return ps.add(name, unit, doc, *p, func(s string) error {
		if len(choices) > 0 && !slices.Contains(choices, s) {
			return fmt.Errorf("want one of %s", strings.Join(choices, ", "))
		}
		*p = s
		return nil
	}, nil)
}

// Var binds a parameter of any other type through its Value.
func (ps *ParamSet) Var(name, unit, doc string, v Value) *Var {
	return ps.add(name, unit, doc, v.String(), v.Set, nil)
}

// Min requires a numeric value ≥ lo.
func (v *Var) Min(lo float64) *Var {
	return v.check(func(x float64) error {
		if x < lo {
			return fmt.Errorf("%s must be ≥ %v", v.name, lo)
		}
		return nil
	})
}

// Positive requires a numeric value > 0.
func (v *Var) Positive() *Var {
	return v.check(func(x float64) error {
		if !(x > 0) {
			return fmt.Errorf("%s must be > 0", v.name)
		}
		return nil
	})
}

func (v *Var) check(c func(float64) error) *Var {
	if v.num == nil {
		panic(fmt.Sprintf("scenes: parameter %q: numeric check on a non-numeric parameter", v.name))
	}
	v.checks = append(v.checks, c)
	return v
}

// Apply parses the overrides in set into the bound fields. Unknown names
// are reported first (sorted, so the error is deterministic), then values
// in declaration order.
func (ps *ParamSet) Apply(scene string, set map[string]string) error {
	var unknown []string
	for k := range set {
		if !slices.ContainsFunc(ps.params, func(p Param) bool { return p.Name == k }) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		names := make([]string, len(ps.params))
		for i, p := range ps.params {
			names[i] = p.Name
		}
		valid := "it has no parameters"
		if len(names) > 0 {
			valid = "valid: " + strings.Join(names, ", ")
		}
		return &ParamError{Scene: scene, Name: unknown[0], Value: set[unknown[0]],
			Err: fmt.Errorf("unknown parameter %q (%s)", unknown[0], valid)}
	}
	for _, v := range ps.vars {
		s, ok := set[v.name]
		if !ok {
			continue
		}
		err := v.set(strings.TrimSpace(s))
		for _, c := range v.checks {
			if err != nil {
				break
			}
			err = c(v.num())
		}
		if err != nil {
			return &ParamError{Scene: scene, Name: v.name, Value: s, Err: err}
		}
	}
	return nil
}

// NewScene makes a registrable Scene from a parameter struct type P:
// defaults returns the default parameters, declare binds each parameter to
// a field of *p (called once for the listing and once per Build, on a
// fresh copy of the defaults), and build turns the parameters into a world.
// See the package example.
func NewScene[P any](name, doc string, defaults func() P, declare func(ps *ParamSet, p *P),
	build func(P) (*stepper.World, error)) Scene {
	p := defaults()
	var ps ParamSet
	declare(&ps, &p)
	return Scene{
		Name: name, Doc: doc, Params: ps.params,
		Build: func(set map[string]string) (*stepper.World, error) {
			p := defaults()
			var ps ParamSet
			declare(&ps, &p)
			if err := ps.Apply(name, set); err != nil {
				return nil, err
			}
			w, err := build(p)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return w, nil
		},
	}
}
