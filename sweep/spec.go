package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
)

// Spec is a sweep or calibration, read from a JSON file (ReadSpec):
//
//	{
//	  "scene": "push",                       // a registered scene
//	  "steps": 60,                           // steps per run
//	  "substeps": 16,                        // each step as 16 of h/16 (default 1)
//	  "tolerance": 1e-10,                    // the solver's (stepper.Settings.Tolerance; default 0: its own)
//	  "coherent": true,                      // true stepper.CoherentOn, false CoherentOff (default absent: the scene's own setting)
//	  "set": {"push_speed": "0.3"},          // fixed overrides for every run
//	  "params": [                            // the swept parameters
//	    {"name": "mu_s", "min": 0, "max": 1, "step": 0.1},
//	    {"name": "tripod", "values": [0.01, 0.02, 0.03]}
//	  ],
//	  "sampling": "grid",                    // or "lhs" with "samples" and "seed"
//	  "experiments": [                       // measured runs: overrides and a trajectory CSV
//	    {"name": "e1", "set": {"object_x": "0.01"}, "measured": "e1.csv"}
//	  ],
//	  "holdout": "e5",                       // calibrate: the predicted experiment
//	  "solvers": ["bpp", "pgs"],
//	  "body": 0,                             // the body whose q = (x, y, ρθ) is compared
//	  "angle_length": 0.05,                  // ρ (m/rad): weight of the angle about z
//	  "refine": {"starts": 3, "evaluations": 400, "seed": 1, "region": 240, "local": 0}
//	}
//
// Relative "measured" paths are relative to the spec file's directory.
// Every combination of a sample × experiment × solver is one Job.
type Spec struct {
	Scene       string            `json:"scene"`
	Steps       int               `json:"steps"`
	Substeps    int               `json:"substeps,omitempty"`
	Tolerance   float64           `json:"tolerance,omitempty"`
	Coherent    *bool             `json:"coherent,omitempty"`
	Set         map[string]string `json:"set,omitempty"`
	Params      []ParamSpec       `json:"params"`
	Sampling    string            `json:"sampling,omitempty"`
	Samples     int               `json:"samples,omitempty"`
	Seed        uint64            `json:"seed,omitempty"`
	Experiments []Experiment      `json:"experiments"`
	Holdout     string            `json:"holdout,omitempty"`
	Solvers     []string          `json:"solvers"`
	Body        int               `json:"body"`
	AngleLength float64           `json:"angle_length"`
	Refine      Refine            `json:"refine,omitempty"`

	dir  string    // the spec file's directory
	hash string    // of the file's bytes
	meas [][]Frame // measured trajectories, by experiment
}

// ParamSpec is one swept parameter: explicit values, or min, max and
// step (grid) / min and max (Latin hypercube).
type ParamSpec struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values,omitempty"`
	Min    *float64  `json:"min,omitempty"`
	Max    *float64  `json:"max,omitempty"`
	Step   float64   `json:"step,omitempty"`
}

// Experiment is one measured run.
type Experiment struct {
	Name     string            `json:"name"`
	Set      map[string]string `json:"set,omitempty"`
	Measured string            `json:"measured"`
}

// Refine sets the search of `calibrate` after the grid (Calibrate):
// CMA-ES with restarts from each of the Starts best grid samples
// (default 3), Evaluations points each (default 400), its random streams
// seeded by Seed + start index (default 1), of which Local % (default 0)
// are pooled on a local CMA-ES run from the best point found (seeded by
// Seed + Starts + 1; Spec.search); then Region evaluations
// (default 240) on the confidence region: sampling, its stream seeded by
// Seed + the number of starts, and line searches to its boundary.
type Refine struct {
	Starts      int    `json:"starts,omitempty"`
	Evaluations int    `json:"evaluations,omitempty"`
	Seed        uint64 `json:"seed,omitempty"`
	// Region is the number of evaluations of E spent on the confidence
	// region after the search (default 240; Calibrate).
	Region int `json:"region,omitempty"`
	// Local is the percentage (0–90, default 0) of each start's
	// Evaluations spent in the search's local phase instead.
	Local int `json:"local,omitempty"`
}

// maxSubsteps bounds Spec.Substeps and Job.Substeps.
const maxSubsteps = 1000

// Solvers a spec may name (those `sim run --solver` takes): lcp.StepNames.
var solverNames = lcp.StepNames()

// ReadSpec reads and checks a spec file, and reads its measured
// trajectories. Errors are one line naming the file and the field.
func ReadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSpec(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSpec parses and checks a spec; relative measured paths are taken
// from dir.
func ParseSpec(data []byte, dir string) (*Spec, error) {
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, jsonErr(err)
	}
	sum := sha256.Sum256(data)
	s.hash = hex.EncodeToString(sum[:])
	s.dir = dir
	if err := s.check(); err != nil {
		return nil, err
	}
	s.meas = make([][]Frame, len(s.Experiments))
	for i, e := range s.Experiments {
		p := e.Measured
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		f, err := ReadTrajectory(p, s.Body)
		if err != nil {
			return nil, fmt.Errorf("experiments[%d].measured: %w", i, err)
		}
		s.meas[i] = f
	}
	return &s, nil
}

// jsonErr turns encoding/json's errors into one line naming the field.
func jsonErr(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		return fmt.Errorf("%s: want a %s, got a JSON %s", te.Field, te.Type, te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte %d: %v", se.Offset, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return err
}

func (s *Spec) check() error {
	sc, err := scenes.Lookup(s.Scene)
	if err != nil {
		return fmt.Errorf("scene: %v", err)
	}
	known := map[string]bool{}
	for _, p := range sc.Params {
		known[p.Name] = true
	}
	names := func() string {
		n := make([]string, len(sc.Params))
		for i, p := range sc.Params {
			n[i] = p.Name
		}
		return strings.Join(n, ", ")
	}
	if s.Steps < 1 {
		return fmt.Errorf("steps: must be ≥ 1, got %d", s.Steps)
	}
	if !(s.Tolerance >= 0 && s.Tolerance < 1) {
		return fmt.Errorf("tolerance: must be ≥ 0 and < 1 (0 = the solver's default), got %v", s.Tolerance)
	}
	if s.Substeps < 0 || s.Substeps > maxSubsteps {
		return fmt.Errorf("substeps: must be 0 (default 1) to %d, got %d", maxSubsteps, s.Substeps)
	}
	for _, k := range sortedKeys(s.Set) {
		if !known[k] {
			return fmt.Errorf("set.%s: not a parameter of scene %s (valid: %s)", k, s.Scene, names())
		}
	}
	if len(s.Params) == 0 {
		return fmt.Errorf("params: need at least one swept parameter")
	}
	seen := map[string]bool{}
	for i := range s.Params {
		p := &s.Params[i]
		path := fmt.Sprintf("params[%d]", i)
		switch {
		case !known[p.Name]:
			return fmt.Errorf("%s.name: %q is not a parameter of scene %s (valid: %s)", path, p.Name, s.Scene, names())
		case seen[p.Name]:
			return fmt.Errorf("%s.name: %q is swept twice", path, p.Name)
		case s.Set[p.Name] != "":
			return fmt.Errorf("%s.name: %q is also fixed in set", path, p.Name)
		}
		seen[p.Name] = true
		if len(p.Values) > 0 {
			if p.Min != nil || p.Max != nil || p.Step != 0 {
				return fmt.Errorf("%s: give values or min/max/step, not both", path)
			}
			for k, v := range p.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%s.values[%d]: must be finite, got %v", path, k, v)
				}
			}
			continue
		}
		if p.Min == nil || p.Max == nil {
			return fmt.Errorf("%s: give values, or min and max", path)
		}
		if !(*p.Max >= *p.Min) {
			return fmt.Errorf("%s.max: must be ≥ min %v, got %v", path, *p.Min, *p.Max)
		}
		if s.Sampling != "lhs" && !(p.Step > 0) {
			return fmt.Errorf("%s.step: must be > 0 for a grid, got %v", path, p.Step)
		}
		if s.Sampling != "lhs" && (*p.Max-*p.Min)/p.Step > 1e6 {
			return fmt.Errorf("%s.step: %v gives more than 10⁶ values", path, p.Step)
		}
	}
	switch s.Sampling {
	case "", "grid":
		s.Sampling = "grid"
		if s.Samples != 0 {
			return fmt.Errorf("samples: only for sampling lhs, got %d", s.Samples)
		}
	case "lhs":
		if s.Samples < 1 {
			return fmt.Errorf("samples: must be ≥ 1 for sampling lhs, got %d", s.Samples)
		}
		for i, p := range s.Params {
			if len(p.Values) > 0 {
				return fmt.Errorf("params[%d].values: lhs samples a range: give min and max", i)
			}
		}
	default:
		return fmt.Errorf("sampling: unknown value %q (want grid or lhs)", s.Sampling)
	}
	if len(s.Experiments) == 0 {
		return fmt.Errorf("experiments: need at least one")
	}
	exps := map[string]bool{}
	for i, e := range s.Experiments {
		path := fmt.Sprintf("experiments[%d]", i)
		switch {
		case e.Name == "":
			return fmt.Errorf("%s.name: must not be empty", path)
		case exps[e.Name]:
			return fmt.Errorf("%s.name: %q is used twice", path, e.Name)
		case e.Measured == "":
			return fmt.Errorf("%s.measured: must name a trajectory CSV", path)
		}
		exps[e.Name] = true
		for _, k := range sortedKeys(e.Set) {
			if !known[k] {
				return fmt.Errorf("%s.set.%s: not a parameter of scene %s (valid: %s)", path, k, s.Scene, names())
			}
			if seen[k] {
				return fmt.Errorf("%s.set.%s: is swept in params", path, k)
			}
		}
	}
	if s.Holdout != "" && !exps[s.Holdout] {
		return fmt.Errorf("holdout: %q is not an experiment", s.Holdout)
	}
	if s.Holdout != "" && len(s.Experiments) < 2 {
		return fmt.Errorf("holdout: needs at least one other experiment to calibrate on")
	}
	if len(s.Solvers) == 0 {
		return fmt.Errorf("solvers: need at least one (valid: %s)", strings.Join(solverNames, ", "))
	}
	for i, n := range s.Solvers {
		if !slices.Contains(solverNames, n) {
			return fmt.Errorf("solvers[%d]: unknown solver %q (valid: %s)", i, n, strings.Join(solverNames, ", "))
		}
		if slices.Index(s.Solvers, n) != i {
			return fmt.Errorf("solvers[%d]: %q is listed twice", i, n)
		}
	}
	if s.Body < 0 {
		return fmt.Errorf("body: must be ≥ 0, got %d", s.Body)
	}
	if !(s.AngleLength >= 0) || math.IsInf(s.AngleLength, 0) {
		return fmt.Errorf("angle_length: must be finite and ≥ 0 m/rad, got %v", s.AngleLength)
	}
	if s.Refine.Starts < 0 || s.Refine.Starts > 1000 {
		return fmt.Errorf("refine.starts: must be 0 (default 3) to 1000, got %d", s.Refine.Starts)
	}
	if s.Refine.Evaluations < 0 || s.Refine.Evaluations > 1e7 {
		return fmt.Errorf("refine.evaluations: must be 0 (default 400) to 10⁷, got %d", s.Refine.Evaluations)
	}
	if s.Refine.Local < 0 || s.Refine.Local > 90 {
		return fmt.Errorf("refine.local: must be 0 (default) to 90 %%, got %d", s.Refine.Local)
	}
	if s.Refine.Region < 0 || s.Refine.Region > 1e7 {
		return fmt.Errorf("refine.region: must be 0 (default %d) to 10⁷, got %d", defaultRegionEvaluations, s.Refine.Region)
	}
	// Build the first combination once: a bad value of a scene parameter
	// fails here, not in every job.
	for i := range s.Experiments {
		set := s.runSet(i, s.paramNames(), s.firstSample())
		if _, err := sc.Build(set); err != nil {
			return fmt.Errorf("experiments[%d]: %v", i, err)
		}
	}
	n := s.SampleCount()
	if n*len(s.Experiments)*len(s.Solvers) > 1e8 {
		return fmt.Errorf("params: %d samples × %d experiments × %d solvers is more than 10⁸ jobs", n, len(s.Experiments), len(s.Solvers))
	}
	return nil
}

// Measured returns the measured frames of the named experiment (nil if
// there is none).
func (s *Spec) Measured(name string) []Frame {
	for i, e := range s.Experiments {
		if e.Name == name {
			return s.meas[i]
		}
	}
	return nil
}

// Hash returns the SHA-256 of the spec file (hex).
func (s *Spec) Hash() string { return s.hash }

func (s *Spec) paramNames() []string {
	n := make([]string, len(s.Params))
	for i, p := range s.Params {
		n[i] = p.Name
	}
	return n
}

// ParamNames returns the swept parameters' names in spec order.
func (s *Spec) ParamNames() []string { return s.paramNames() }

func (s *Spec) firstSample() []float64 {
	out := make([]float64, len(s.Params))
	for i, p := range s.Params {
		out[i] = s.values(i)[0]
		_ = p
	}
	return out
}

// values returns the grid values of parameter i (for lhs: min and max).
func (s *Spec) values(i int) []float64 {
	p := &s.Params[i]
	if len(p.Values) > 0 {
		return p.Values
	}
	if s.Sampling == "lhs" {
		return []float64{*p.Min, *p.Max}
	}
	n := int(math.Floor((*p.Max-*p.Min)/p.Step+1e-9)) + 1
	out := make([]float64, n)
	for k := range out {
		// min + k·step, rounded to 12 significant digits so 0.1·3 is 0.3
		out[k] = roundSig(*p.Min+float64(k)*p.Step, 12)
	}
	return out
}

func roundSig(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return v
}

// SampleCount returns the number of parameter samples.
func (s *Spec) SampleCount() int {
	if s.Sampling == "lhs" {
		return s.Samples
	}
	n := 1
	for i := range s.Params {
		n *= len(s.values(i))
	}
	return n
}

// Samples returns every parameter sample, in a fixed order: the grid with
// the last parameter fastest, or a Latin hypercube of Samples points from
// a PCG seeded by Seed (each parameter's range cut into Samples equal
// strata, one point per stratum, strata permuted per parameter).
func (s *Spec) SamplesList() [][]float64 {
	np := len(s.Params)
	if s.Sampling == "lhs" {
		rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
		n := s.Samples
		out := make([][]float64, n)
		for k := range out {
			out[k] = make([]float64, np)
		}
		for i := range s.Params {
			lo, hi := *s.Params[i].Min, *s.Params[i].Max
			perm := rng.Perm(n)
			for k := 0; k < n; k++ {
				u := (float64(perm[k]) + rng.Float64()) / float64(n)
				out[k][i] = lo + u*(hi-lo)
			}
		}
		return out
	}
	vals := make([][]float64, np)
	for i := range vals {
		vals[i] = s.values(i)
	}
	var out [][]float64
	idx := make([]int, np)
	for {
		x := make([]float64, np)
		for i := range x {
			x[i] = vals[i][idx[i]]
		}
		out = append(out, x)
		k := np - 1
		for k >= 0 {
			idx[k]++
			if idx[k] < len(vals[k]) {
				break
			}
			idx[k] = 0
			k--
		}
		if k < 0 {
			return out
		}
	}
}

// runSet returns the overrides of one run: the spec's set, the
// experiment's, then the sample's values.
func (s *Spec) runSet(exp int, names []string, x []float64) map[string]string {
	set := map[string]string{}
	for k, v := range s.Set {
		set[k] = v
	}
	for k, v := range s.Experiments[exp].Set {
		set[k] = v
	}
	for i, n := range names {
		set[n] = strconv.FormatFloat(x[i], 'g', -1, 64)
	}
	return set
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	slices.Sort(k)
	return k
}
