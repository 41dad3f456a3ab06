package scenes

import (
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
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
	// Min and Max are the smallest and largest values accepted, formatted
	// as Default; "" for no lower bound, and for a choice or a bool (a
	// closed set of values) no bound at all. MinExclusive: the value must
	// be above Min (Var.Positive). Every numeric parameter of a built-in
	// scene states a Max, so that no --set value can make a run grow
	// without bound (a chain of a million links).
	Min, Max     string
	MinExclusive bool
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
// reads like `chain6: --set links=-3: links must be ≥ 1`. Apply's Err is a
// *num.FieldError with What the scene, Field the parameter's name and
// Value the parsed number (float64, or int for an Int parameter) when a
// range check failed, else the text given.
type ParamError struct {
	Scene, Name, Value string
	Err                error // what is wrong or expected

	msg string // the message after "--set NAME=VALUE: "; "" = Err's
}

func (e *ParamError) Error() string {
	msg := e.msg
	if msg == "" {
		msg = fmt.Sprint(e.Err)
	}
	return fmt.Sprintf("%s: --set %s=%s: %s", e.Scene, e.Name, e.Value, msg)
}

// paramError is Apply's *ParamError for the text value given to parameter
// name: err is a range check's *num.FieldError (reported as "name must be
// ≥ 1") or a parse error (reported as it reads), turned into one.
func paramError(scene, name, value string, err error, check bool) *ParamError {
	fe, ok := err.(*num.FieldError)
	if !ok {
		fe = &num.FieldError{Field: name, Value: value, Reason: err.Error()}
	}
	fe.What = scene
	msg := fe.Reason
	if check {
		msg = name + " " + fe.Reason
	}
	return &ParamError{Scene: scene, Name: name, Value: value, Err: fe, msg: msg}
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
	param  *Param                // its listing, where Min and Max state the range
	isInt  bool                  // an Int parameter: bounds are formatted as integers
}

// Params returns the declared parameters in declaration order, their
// Default holding the bound fields' values at declaration and Min and Max
// the bounds of Min, Positive, Max and Range.
func (ps *ParamSet) Params() []Param { return ps.list() }

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

// list returns the declared parameters with the bounds their checks
// state.
func (ps *ParamSet) list() []Param {
	out := slices.Clone(ps.params)
	for i, v := range ps.vars {
		if v.param != nil {
			out[i].Min, out[i].Max, out[i].MinExclusive = v.param.Min, v.param.Max, v.param.MinExclusive
		}
	}
	return out
}

// Float binds a float64 field. Values parse with strconv.ParseFloat and
// must be finite; the default is formatted with strconv 'g', -1.
func (ps *ParamSet) Float(name, unit, doc string, p *float64) *Var {
	return ps.add(name, unit, doc, strconv.FormatFloat(*p, 'g', -1, 64), func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !num.Finite(v) {
			return errors.New("want a finite number")
		}
		*p = v
		return nil
	}, func() float64 { return *p })
}

// Int binds an int field: base 10, or an exact integer in float notation
// (1e3), as the commands' integer flags take.
func (ps *ParamSet) Int(name, unit, doc string, p *int) *Var {
	v := ps.add(name, unit, doc, strconv.Itoa(*p), func(s string) error {
		v, err := parseInt(s)
		if err != nil {
			return err
		}
		*p = v
		return nil
	}, func() float64 { return float64(*p) })
	v.isInt = true
	return v
}

// parseInt reads a base-10 int or an exact integer in float notation.
func parseInt(s string) (int, error) {
	if v, err := strconv.Atoi(s); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	// 2⁶³ is the first float64 beyond int64: compare against it, not
	// against float64(math.MaxInt64), which rounds up to it.
	if err != nil || f != math.Trunc(f) || !(math.Abs(f) < 1<<63) || strconv.IntSize < 64 && math.Abs(f) > math.MaxInt32 {
		return 0, errors.New("want an integer")
	}
	return int(f), nil
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
	v.bounds().Min, v.bounds().MinExclusive = v.format(lo), false
	return v.check(func(x float64) error {
		if x < lo {
			return v.bad(x, "must be ≥ %v", lo)
		}
		return nil
	})
}

// Positive requires a numeric value > 0 (its listed Min is "0",
// MinExclusive).
func (v *Var) Positive() *Var {
	v.bounds().Min, v.bounds().MinExclusive = "0", true
	return v.check(func(x float64) error {
		if !(x > 0) {
			return v.bad(x, "must be > 0")
		}
		return nil
	})
}

// Max requires a numeric value ≤ hi, the maximum the listing states. A
// value above it is a *ParamError naming the scene, the parameter, the
// value and the maximum:
//
//	chain6: --set links=1e6: links must be ≤ 10000, its maximum
func (v *Var) Max(hi float64) *Var {
	v.bounds().Max = v.format(hi)
	return v.check(func(x float64) error {
		if x > hi {
			return v.bad(x, "must be ≤ %s, its maximum", v.format(hi))
		}
		return nil
	})
}

// Range requires lo ≤ value ≤ hi: Min(lo).Max(hi).
func (v *Var) Range(lo, hi float64) *Var { return v.Min(lo).Max(hi) }

// bounds returns the listing entry whose Min and Max the checks state.
func (v *Var) bounds() *Param {
	if v.param == nil {
		v.param = &Param{}
	}
	return v.param
}

// format writes a bound as the parameter's values are written.
func (v *Var) format(x float64) string {
	if v.isInt && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// bad is a range check's error for the value x: a *num.FieldError with
// the parameter's name and x (an int for an Int parameter).
func (v *Var) bad(x float64, format string, args ...any) error {
	var value any = x
	if v.isInt {
		value = int(x)
	}
	return &num.FieldError{Field: v.name, Value: value, Reason: fmt.Sprintf(format, args...)}
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
		return paramError(scene, unknown[0], set[unknown[0]], fmt.Errorf("unknown parameter %q (%s)", unknown[0], valid), false)
	}
	for _, v := range ps.vars {
		s, ok := set[v.name]
		if !ok {
			continue
		}
		if err := v.set(strings.TrimSpace(s)); err != nil {
			return paramError(scene, v.name, s, err, false)
		}
		for _, c := range v.checks {
			if err := c(v.num()); err != nil {
				return paramError(scene, v.name, s, err, true)
			}
		}
	}
	return nil
}

// setNote is ": --set k=v --set …" with set's pairs in name order, as a
// parameter's own error names it (ParamSet.Apply), "" for an empty set:
// a build error that values in their ranges caused together (a mass so
// small that the inertia's inverse overflows) names the values that caused
// it, not only the built body's field.
func setNote(set map[string]string) string {
	if len(set) == 0 {
		return ""
	}
	kv := make([]string, 0, len(set))
	for k, v := range set {
		kv = append(kv, "--set "+k+"="+v)
	}
	slices.Sort(kv)
	return ": " + strings.Join(kv, " ")
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
		Name: name, Doc: doc, Params: ps.list(),
		Build: func(set map[string]string) (*stepper.World, error) {
			p := defaults()
			var ps ParamSet
			declare(&ps, &p)
			if err := ps.Apply(name, set); err != nil {
				return nil, err
			}
			w, err := build(p)
			if err != nil {
				return nil, fmt.Errorf("%s%s: %w", name, setNote(set), err)
			}
			return w, nil
		},
	}
}
