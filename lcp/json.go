package lcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"math"
	"reflect"
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
// docs/formats.md:
//
//	{"A": [[1, -0.5], [-0.5, 1]], "b": [-0.2981, 0.1019], "lo": [0, 0], "hi": [null, null]}
//
// A null lo is −∞, a null hi is +∞. Keys other than A, b, lo and hi (a name,
// a source, a reference solution that other tools write) are ignored; use
// ReadProblemKeys to learn which. The key "rows" (what each row is,
// WriteLabelledProblem) is known and ignored. A missing key, a key given twice, trailing
// data and anything Validate rejects are errors naming the field (a typo of
// A, b, lo or hi is thus an error: the key is then missing).
func ReadProblem(r io.Reader) (*Problem, error) {
	p, _, err := ReadProblemKeys(r)
	return p, err
}

// ReadProblemKeys is ReadProblem that also returns the keys it ignored, in
// the order of the file, so that a command can warn about them; "rows",
// the row labels of WriteLabelledProblem, is known and not returned.
func ReadProblemKeys(r io.Reader) (*Problem, []string, error) {
	return ReadProblemWith(r, ReadLimits{})
}

// readObject reads one JSON object and returns its keys in file order and
// their raw values. A key given twice, a value that is not an object and
// trailing data are errors.
func readObject(r io.Reader) ([]string, map[string]json.RawMessage, error) {
	dec, err := openObject(r)
	if err != nil {
		return nil, nil, err
	}
	var keys []string
	raw := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, inObject(err)
		}
		k, _ := tok.(string)
		if _, dup := raw[k]; dup {
			return nil, nil, fmt.Errorf("%s: key given twice (at byte %d)", k, dec.InputOffset())
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", k, inObject(err))
		}
		keys = append(keys, k)
		raw[k] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, inObject(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, nil, err
	}
	return keys, raw, nil
}

// openObject starts decoding r, whose value must be a JSON object, and
// reads its opening brace.
func openObject(r io.Reader) (*json.Decoder, error) {
	dec := json.NewDecoder(r)
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %v", tok)
	}
	return dec, nil
}

// inObject is jsonError for errors after the opening brace, where the end
// of the input means a cut-off object, not an empty input.
func inObject(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("malformed JSON: unexpected end of input (the object is not closed)")
	}
	return jsonError(err)
}

// decodeNumbers decodes an array of numbers; the strings "inf", "-inf" and
// "nan" are read as ±Inf and NaN (what writers put for non-finite numbers),
// for the caller or Validate to judge. Errors name field[i].
func decodeNumbers(field string, data json.RawMessage) ([]float64, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || items == nil {
		return nil, fmt.Errorf("%s: want an array of numbers, got %s", field, abbrev(data))
	}
	out := make([]float64, len(items))
	for i, it := range items {
		v, ok := parseNumber(it)
		if !ok {
			return nil, fmt.Errorf("%s[%d]: want a number, got %s", field, i, abbrev(it))
		}
		out[i] = v
	}
	return out, nil
}

// parseNumber reads a JSON number or one of the strings "inf", "+inf",
// "-inf", "nan" (any case).
func parseNumber(data json.RawMessage) (float64, bool) {
	var v float64
	if err := json.Unmarshal(data, &v); err == nil {
		return v, true
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return 0, false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	case "nan":
		return math.NaN(), true
	}
	return 0, false
}

// decodeBounds decodes an array of Bound values, null meaning none.
func decodeBounds(field string, data json.RawMessage, none float64) ([]float64, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || items == nil {
		return nil, fmt.Errorf("%s: want an array of numbers or null, got %s", field, abbrev(data))
	}
	out := make([]float64, len(items))
	for i, it := range items {
		var b Bound
		if err := b.UnmarshalJSON(it); err != nil {
			return nil, fmt.Errorf("%s[%d]: %v", field, i, err)
		}
		out[i] = b.V
		if b.Null {
			out[i] = none
		}
	}
	return out, nil
}

// abbrev returns data for an error message, cut to 40 bytes.
func abbrev(data []byte) string {
	s := strings.TrimSpace(string(data))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	if s == "" {
		s = "nothing"
	}
	return s
}

// WriteProblem writes p in the JSON interchange format, with null for
// infinite bounds. A is written as dense rows whatever its type (a *Sparse
// included), so the output of an n-row problem has n² numbers.
func WriteProblem(w io.Writer, p *Problem) error {
	return WriteLabelledProblem(w, p, nil)
}

// WriteLabelledProblem is WriteProblem with the key "rows" after hi: rows,
// one JSON value per row of p, says what each row is (sim run --dump-mlcp
// writes one object per row from stepper.World.RowLabels). Readers ignore
// it; nil rows writes no key, as WriteProblem.
func WriteLabelledProblem(w io.Writer, p *Problem, rows any) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if sp, ok := p.A.(*Sparse); ok {
		sp.ensure() // values put off by Defer (and a pattern, ResetCliquesLazy)
	}
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		if sp, ok := p.A.(*Sparse); ok {
			// Dense rows from the stored entries: the interchange format
			// has no sparse form.
			cols, vals := sp.row(i)
			for k, j := range cols {
				a[i][j] = vals[k]
			}
			continue
		}
		for j := range a[i] {
			a[i][j] = p.A.At(i, j)
		}
	}
	out := struct {
		A    [][]float64 `json:"A"`
		B    []float64   `json:"b"`
		Lo   []*float64  `json:"lo"`
		Hi   []*float64  `json:"hi"`
		Rows any         `json:"rows,omitempty"`
	}{A: a, B: p.B, Lo: boundPtrs(p.Lo), Hi: boundPtrs(p.Hi), Rows: rows}
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
// and status are optional; other keys are kept in Extra. A key given twice
// is an error naming it; x and w must be finite.
func ReadSolution(r io.Reader) (*Solution, error) {
	keys, raw, err := readObject(r)
	if err != nil {
		return nil, err
	}
	s := &Solution{}
	xr, ok := raw["x"]
	if !ok {
		return nil, errors.New("x: missing")
	}
	if s.X, err = decodeNumbers("x", xr); err != nil {
		return nil, err
	}
	if wr, ok := raw["w"]; ok && string(bytes.TrimSpace(wr)) != "null" {
		if s.W, err = decodeNumbers("w", wr); err != nil {
			return nil, err
		}
		if len(s.W) != len(s.X) {
			return nil, fmt.Errorf("w: has %d entries, x has %d", len(s.W), len(s.X))
		}
	}
	if ir, ok := raw["iterations"]; ok {
		if err := json.Unmarshal(ir, &s.Iterations); err != nil {
			return nil, fmt.Errorf("iterations: want an integer, got %s", abbrev(ir))
		}
	}
	if sr, ok := raw["status"]; ok {
		if err := json.Unmarshal(sr, &s.Status); err != nil {
			return nil, fmt.Errorf("status: want a string, got %s", abbrev(sr))
		}
	}
	for _, k := range keys {
		switch k {
		case "x", "w", "iterations", "status":
			continue
		}
		if s.Extra == nil {
			s.Extra = map[string]any{}
		}
		var a any
		_ = json.Unmarshal(raw[k], &a)
		s.Extra[k] = a
	}
	for i, v := range s.X {
		if !num.Finite(v) {
			return nil, fmt.Errorf("x[%d]: must be finite, got %v", i, v)
		}
	}
	for i, v := range s.W {
		if !num.Finite(v) {
			return nil, fmt.Errorf("w[%d]: must be finite, got %v", i, v)
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

func writeJSON(w io.Writer, v any) error { return WriteJSON(w, v) }

// WriteJSON writes v as one line of JSON, like json.Marshal, except that a
// non-finite float (which encoding/json refuses, so that nothing at all
// would be written) is written as the string "inf", "-inf" or "nan", the
// interchange format's spelling. A value without non-finite floats is
// written exactly as json.Marshal writes it; one with them is written from
// a copy in which structs became objects with their JSON field names (keys
// then in sorted order).
func WriteJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	var uv *json.UnsupportedValueError
	if errors.As(err, &uv) {
		b, err = json.Marshal(finiteJSON(reflect.ValueOf(v)))
	}
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// finiteJSON returns a copy of v made of maps, slices and scalars in which
// every non-finite float is its string spelling.
func finiteJSON(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(marshalerType) {
		return v.Interface()
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return v.Interface()
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return finiteJSON(v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Interface() // []byte: base64, as encoding/json
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = finiteJSON(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() || v.Type().Key().Kind() != reflect.String {
			return v.Interface()
		}
		out := make(map[string]any, v.Len())
		it := v.MapRange()
		for it.Next() {
			out[it.Key().String()] = finiteJSON(it.Value())
		}
		return out
	case reflect.Struct:
		out := map[string]any{}
		structFields(out, v)
		return out
	}
	return v.Interface()
}

// structFields adds v's exported fields to out under their JSON names,
// honouring "-" and omitempty and inlining untagged embedded structs.
func structFields(out map[string]any, v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" && fv.Kind() == reflect.Struct {
			structFields(out, fv)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(opts, "omitempty") && isEmptyJSON(fv) {
			continue
		}
		out[name] = finiteJSON(fv)
	}
}

// isEmptyJSON is encoding/json's notion of an empty value for omitempty.
func isEmptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

func expectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
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
