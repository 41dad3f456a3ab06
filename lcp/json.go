package lcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Bound is a bound value in JSON: a number, null (a missing bound: −∞ for a
// lower bound, +∞ for an upper one) or one of the strings "inf", "+inf",
// "-inf" (any case; what Python and MATLAB tools tend to write). Writers use
// null for infinite bounds. It exists because encoding/json turns null into
// 0 silently.
type Bound struct {
	V    float64
	Null bool // the JSON value was null
}

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bound) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*b = Bound{Null: true}
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "inf", "+inf", "infinity", "+infinity":
			*b = Bound{V: math.Inf(1)}
		case "-inf", "-infinity":
			*b = Bound{V: math.Inf(-1)}
		default:
			return fmt.Errorf("bound %q: want a number, null, \"inf\", \"+inf\" or \"-inf\"", s)
		}
		return nil
	}
	var v float64
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("bound %s: want a number, null, \"inf\", \"+inf\" or \"-inf\"", data)
	}
	*b = Bound{V: v}
	return nil
}

// ReadProblem reads one problem in the JSON interchange format of
// shared/DESIGN.md:
//
//	{"A": [[1, -0.5], [-0.5, 1]], "b": [-0.2981, 0.1019], "lo": [0, 0], "hi": [null, null]}
//
// A null lo is −∞, a null hi is +∞. Unknown keys, a missing key, trailing
// data and anything Validate rejects are errors naming the field.
func ReadProblem(r io.Reader) (*Problem, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var pj struct {
		A  *[][]float64 `json:"A"`
		B  *[]float64   `json:"b"`
		Lo *[]Bound     `json:"lo"`
		Hi *[]Bound     `json:"hi"`
	}
	if err := dec.Decode(&pj); err != nil {
		return nil, jsonError(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, err
	}
	switch {
	case pj.A == nil:
		return nil, errors.New("A: missing")
	case pj.B == nil:
		return nil, errors.New("b: missing")
	case pj.Lo == nil:
		return nil, errors.New("lo: missing")
	case pj.Hi == nil:
		return nil, errors.New("hi: missing")
	}
	a, err := DenseFromRows(*pj.A)
	if err != nil {
		return nil, err
	}
	p := &Problem{A: a, B: *pj.B, Lo: make([]float64, len(*pj.Lo)), Hi: make([]float64, len(*pj.Hi))}
	for i, b := range *pj.Lo {
		p.Lo[i] = b.V
		if b.Null {
			p.Lo[i] = math.Inf(-1)
		}
	}
	for i, b := range *pj.Hi {
		p.Hi[i] = b.V
		if b.Null {
			p.Hi[i] = math.Inf(1)
		}
	}
	if r, c := a.Dims(); r == 0 && c == 0 && len(p.B) > 0 {
		return nil, fmt.Errorf("A: is empty but b has %d entries", len(p.B))
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// WriteProblem writes p in the JSON interchange format, with null for
// infinite bounds. A is written as dense rows whatever its type (a *Sparse
// included), so the output of an n-row problem has n² numbers.
func WriteProblem(w io.Writer, p *Problem) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, n)
		if sp, ok := p.A.(*Sparse); ok {
			// Dense rows from the stored entries: the interchange format
			// has no sparse form.
			cols, vals := sp.row(i)
			for k, j := range cols {
				rows[i][j] = vals[k]
			}
			continue
		}
		for j := range rows[i] {
			rows[i][j] = p.A.At(i, j)
		}
	}
	out := struct {
		A  [][]float64 `json:"A"`
		B  []float64   `json:"b"`
		Lo []*float64  `json:"lo"`
		Hi []*float64  `json:"hi"`
	}{A: rows, B: p.B, Lo: boundPtrs(p.Lo), Hi: boundPtrs(p.Hi)}
	return writeJSON(w, out)
}

func boundPtrs(v []float64) []*float64 {
	out := make([]*float64, len(v))
	for i := range v {
		if !math.IsInf(v[i], 0) {
			out[i] = &v[i]
		}
	}
	return out
}

// Solution is a solution or candidate in the interchange format:
// {"x": [...], "w": [...], "iterations": 3, "status": "converged"}. W may be
// missing in a candidate (then readers use A x + b). Extra carries further
// keys a writer adds (the picked iteration, error totals); readers keep
// unknown keys there.
type Solution struct {
	X          []float64
	W          []float64 // nil if absent
	Iterations int
	Status     string
	Extra      map[string]any
}

// ReadSolution reads a solution or candidate. x is required; w, iterations
// and status are optional; other keys are kept in Extra.
func ReadSolution(r io.Reader) (*Solution, error) {
	dec := json.NewDecoder(r)
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, jsonError(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, err
	}
	s := &Solution{}
	xr, ok := raw["x"]
	if !ok {
		return nil, errors.New("x: missing")
	}
	if err := json.Unmarshal(xr, &s.X); err != nil || s.X == nil {
		return nil, fmt.Errorf("x: want an array of numbers: %v", errOr(err, "null"))
	}
	if wr, ok := raw["w"]; ok && string(bytes.TrimSpace(wr)) != "null" {
		if err := json.Unmarshal(wr, &s.W); err != nil {
			return nil, fmt.Errorf("w: want an array of numbers: %v", err)
		}
		if len(s.W) != len(s.X) {
			return nil, fmt.Errorf("w: has %d entries, x has %d", len(s.W), len(s.X))
		}
	}
	if ir, ok := raw["iterations"]; ok {
		if err := json.Unmarshal(ir, &s.Iterations); err != nil {
			return nil, fmt.Errorf("iterations: want an integer: %v", err)
		}
	}
	if sr, ok := raw["status"]; ok {
		if err := json.Unmarshal(sr, &s.Status); err != nil {
			return nil, fmt.Errorf("status: want a string: %v", err)
		}
	}
	for k, v := range raw {
		switch k {
		case "x", "w", "iterations", "status":
			continue
		}
		if s.Extra == nil {
			s.Extra = map[string]any{}
		}
		var a any
		_ = json.Unmarshal(v, &a)
		s.Extra[k] = a
	}
	for i, v := range s.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("x[%d]: must be finite, got %v", i, v)
		}
	}
	return s, nil
}

// WriteSolution writes s as one JSON object with the keys x, w, iterations,
// status and then the Extra keys in sorted order (encoding/json sorts map
// keys, so output is deterministic).
func WriteSolution(w io.Writer, s *Solution) error {
	m := make(map[string]any, 4+len(s.Extra))
	for k, v := range s.Extra {
		m[k] = v
	}
	m["x"] = nonNil(s.X)
	if s.W != nil {
		m["w"] = s.W
	}
	m["iterations"] = s.Iterations
	m["status"] = s.Status
	return writeJSON(w, m)
}

func nonNil(v []float64) []float64 {
	if v == nil {
		return []float64{}
	}
	return v
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// jsonError turns encoding/json errors into one line naming the field.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Errorf("%s: want %s, got JSON %s", field, te.Type, te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
	}
	if err == io.EOF {
		return errors.New("empty input: want a JSON object")
	}
	return fmt.Errorf("malformed JSON: %v", err)
}
