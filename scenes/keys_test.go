package scenes_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scene format is written down in four places: the decoder
// (filedecode.go), the encoder (fileencode.go), the JSON Schema
// (scene.schema.json) and the package doc (doc.go). The encoder's output is
// checked against the schema by TestSchemaValidatesExports; the tests
// below check that the decoder, the schema and the doc name the same keys,
// so that a key added to one of them and forgotten in another fails here.

// schemaKeys returns the property names of the schema, by the doc section
// that describes them: "top" for the top-level keys, "shapes" for a
// shape's keys (world_shapes and bodies[i].shapes alike, with their
// material), and otherwise the top-level key under which the object sits
// (settings, bodies, joints, loads, exclude), nested objects (a joint's
// limits, a load's profile) included.
func schemaKeys(t testing.TB, sv *schemaValidator) map[string][]string {
	keys, _ := schemaWords(t, sv)
	return keys
}

// schemaWords returns schemaKeys and, by the same sections, the string
// values the schema's enum and const keywords allow (type names such as
// hinge, pick names such as energy-exact).
func schemaWords(t testing.TB, sv *schemaValidator) (keys, values map[string][]string) {
	keys, values = map[string][]string{}, map[string][]string{}
	var walk func(s map[string]any, section string, depth int)
	walk = func(s map[string]any, section string, depth int) {
		require.Less(t, depth, 20, "schema nests too deep (a $ref cycle?)")
		var vals []any
		if c, ok := s["const"]; ok {
			vals = append(vals, c)
		}
		if e, ok := s["enum"].([]any); ok {
			vals = append(vals, e...)
		}
		for _, v := range vals {
			if str, ok := v.(string); ok && !slices.Contains(values[section], str) {
				values[section] = append(values[section], str)
			}
		}
		if ref, ok := s["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/$defs/")
			walk(sv.root["$defs"].(map[string]any)[name].(map[string]any), section, depth+1)
		}
		if alts, ok := s["oneOf"].([]any); ok {
			for _, a := range alts {
				walk(a.(map[string]any), section, depth+1)
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, section, depth+1)
		}
		props, _ := s["properties"].(map[string]any)
		for _, k := range sortedKeys(props) {
			if !slices.Contains(keys[section], k) {
				keys[section] = append(keys[section], k)
			}
			sub := section
			switch {
			case k == "shapes" || k == "world_shapes":
				sub = "shapes"
			case section == "top":
				sub = k
			}
			walk(props[k].(map[string]any), sub, depth+1)
		}
	}
	walk(sv.root, "top", 0)
	for s := range keys {
		slices.Sort(keys[s])
	}
	return keys, values
}

// exampleValue returns a value of schema s, choosing alternative
// variant mod n of every oneOf and value variant mod n of every enum, with every property of every object
// present and each array at its minimum length: in an array of numbers
// the first is 1 and the others 0 (a unit quaternion, a non-zero axis),
// each moved into its bounds.
func (sv *schemaValidator) exampleValue(s map[string]any, variant int) any {
	s = sv.deref(s)
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok {
		return e[variant%len(e)]
	}
	if alts, ok := s["oneOf"].([]any); ok {
		return sv.exampleValue(alts[variant%len(alts)].(map[string]any), variant)
	}
	switch firstType(s) {
	case "object":
		o := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			o[k] = sv.exampleValue(p.(map[string]any), variant)
		}
		return o
	case "array":
		items := sv.deref(s["items"].(map[string]any))
		n := 1
		if m, ok := s["minItems"].(json.Number); ok {
			n, _ = strconv.Atoi(string(m))
		}
		a := make([]any, n)
		for i := range a {
			if ty := firstType(items); (ty == "number" || ty == "integer") && i > 0 {
				a[i] = numberIn(items, 0)
			} else {
				a[i] = sv.exampleValue(items, variant)
			}
		}
		return a
	case "string":
		return "a"
	case "boolean":
		return true
	case "integer", "number":
		return numberIn(s, 1)
	}
	return nil
}

// deref follows s's $ref, if any.
func (sv *schemaValidator) deref(s map[string]any) map[string]any {
	for {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		s = sv.root["$defs"].(map[string]any)[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
}

// firstType returns s's type, the first one other than null of a list.
func firstType(s map[string]any) string {
	switch ty := s["type"].(type) {
	case string:
		return ty
	case []any:
		for _, x := range ty {
			if x != "null" {
				return x.(string)
			}
		}
	}
	return ""
}

// numberIn returns x moved into the bounds of number schema s.
func numberIn(s map[string]any, x float64) json.Number {
	lim := func(k string) (float64, bool) {
		n, ok := s[k].(json.Number)
		v, _ := strconv.ParseFloat(string(n), 64)
		return v, ok
	}
	if m, ok := lim("minimum"); ok && x < m {
		x = m
	}
	if m, ok := lim("exclusiveMinimum"); ok && x <= m {
		x = m + 1
	}
	if m, ok := lim("maximum"); ok && x > m {
		x = m
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
}

// maxAlternatives is the most alternatives of any oneOf or enum in the
// schema.
func (sv *schemaValidator) maxAlternatives() int {
	n := 1
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range []string{"oneOf", "enum"} {
				if alts, ok := x[k].([]any); ok {
					n = max(n, len(alts))
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(sv.root)
	return n
}

// Every key of the schema is one the decoder reads where the schema puts
// it, and every enum value one it accepts: a file holding every property
// of every object (each oneOf alternative and enum value in turn: every
// shape type, joint type, load profile, solver and pick) gets no "unknown
// key" or "unknown value" error. Values are of the schema's types, so the
// decoder reads every object; the file need not be physical.
func TestDecoderReadsEverySchemaKey(t *testing.T) {
	sv := newValidator(t)
	for v := 0; v < sv.maxAlternatives(); v++ {
		doc := sv.exampleValue(sv.root, v)
		data, err := json.Marshal(doc)
		require.NoError(t, err)
		assert.Empty(t, sv.check(t, data), "the generated file is valid under the schema")
		_, err = scenes.ReadSpec(strings.NewReader(string(data)), "all-keys.json")
		if err != nil {
			assert.NotContains(t, err.Error(), "unknown key", "variant %d:\n%s", v, data)
			assert.NotContains(t, err.Error(), "unknown value", "variant %d:\n%s", v, data)
			assert.NotContains(t, err.Error(), "more problem", "all reported: variant %d", v)
		}
	}
	// Not vacuous: a key the schema lacks is reported.
	doc := sv.exampleValue(sv.root, 0).(map[string]any)
	doc["settings"].(map[string]any)["gravity_scale"] = json.Number("1")
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	_, err = scenes.ReadSpec(strings.NewReader(string(data)), "f.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "settings.gravity_scale: unknown key")
}

// decoderKeys returns the keys filedecode.go asks objects for: the string
// literals passed first to the objDec readers (o.num("h", …) and the like).
func decoderKeys(t testing.TB) []string {
	readers := []string{"field", "num", "numOrNull", "integer", "bits", "boolean", "str", "enum", "vec3", "quat", "array", "obj"}
	f, err := parser.ParseFile(token.NewFileSet(), "filedecode.go", nil, 0)
	require.NoError(t, err)
	var keys []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains(readers, sel.Sel.Name) {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			k, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		return true
	})
	slices.Sort(keys)
	return keys
}

// The decoder reads no key the schema lacks: the keys filedecode.go asks
// for are the schema's property names.
func TestDecoderKeysInSchema(t *testing.T) {
	var all []string
	for _, ks := range schemaKeys(t, newValidator(t)) {
		for _, k := range ks {
			if !slices.Contains(all, k) {
				all = append(all, k)
			}
		}
	}
	slices.Sort(all)
	dec := decoderKeys(t)
	require.Contains(t, dec, "max_correcting_speed", "the extraction finds the decoder's keys")
	assert.Equal(t, all, dec, "decoder keys (filedecode.go) vs schema properties (scene.schema.json)")
}

// docSections returns the scene-file part of the package doc by section:
// "top" is the paragraph "Top-level keys: …", and each bullet "  - NAME:"
// (settings, shapes[k], joints[j], …) is section NAME without its index.
func docSections(t testing.TB) map[string]string {
	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	secs := map[string]string{}
	cur := ""
	bullet := regexp.MustCompile(`^  - ([a-z_]+)(\[[a-z]\])?:`)
	for _, line := range strings.Split(string(src), "\n") {
		text, ok := strings.CutPrefix(line, "//")
		if !ok {
			break
		}
		text = strings.TrimPrefix(text, " ")
		switch m := bullet.FindStringSubmatch(text); {
		case strings.HasPrefix(text, "Top-level keys:"):
			cur = "top"
		case m != nil:
			cur = m[1]
		case strings.TrimSpace(text) == "":
			cur = ""
		}
		if cur != "" {
			secs[cur] += text + "\n"
		}
	}
	return secs
}

// The package doc names every key of the scene format in its section
// (settings keys in the settings bullet, a shape's in the shapes bullet,
// …) and every value an enum allows there (solver and pick names, shape
// and joint types), and every snake_case word of a section is a key of it (symbols
// such as c_rr, one letter and a subscript, left out).
func TestDocNamesEveryKey(t *testing.T) {
	secs := docSections(t)
	require.Contains(t, secs, "top")
	require.Contains(t, secs, "settings")
	keys, values := schemaWords(t, newValidator(t))
	require.Contains(t, values["settings"], "energy-exact", "the walk finds enum values")
	for sec, vs := range values {
		for _, v := range vs {
			word := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(v) + `($|[^A-Za-z0-9_-])`)
			assert.True(t, word.MatchString(secs[sec]), "doc.go's %s section does not name the value %q", sec, v)
		}
	}
	for sec, ks := range keys {
		text, ok := secs[sec]
		if !assert.True(t, ok, "doc.go has no section for %s", sec) {
			continue
		}
		for _, k := range ks {
			word := regexp.MustCompile(`(^|[^A-Za-z0-9_$.])` + regexp.QuoteMeta(k) + `($|[^A-Za-z0-9_])`)
			assert.True(t, word.MatchString(text), "doc.go's %s section does not name the key %q", sec, k)
		}
		for _, w := range regexp.MustCompile(`\b[a-z]{2,}(_[a-z]+)+\b`).FindAllString(text, -1) {
			assert.Contains(t, ks, w, "doc.go's %s section names %q, which is no key of it", sec, w)
		}
	}
}

// leftOut reports whether the encoder may leave key path p with value v
// out: $schema is read and ignored, a body given both mass and density (not
// physical, but decodable) keeps density, and an identity orientation and
// simultaneous impacts are defaults.
func leftOut(p string, v any) bool {
	switch {
	case p == "$schema", p == "settings.impacts" && v == "simultaneous":
		return true
	case strings.HasPrefix(p, "bodies[") && strings.HasSuffix(p, "].mass"):
		return true
	case strings.HasSuffix(p, ".orientation"):
		return fmt.Sprint(v) == "[1 0 0 0]"
	}
	return false
}

// keyPaths returns the paths of every object key in the JSON value v
// ("bodies[0].shapes[0].material.friction"), with their values.
func keyPaths(v any, path string, out map[string]any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out[p] = e
			keyPaths(e, p, out)
		}
	case []any:
		for i, e := range x {
			keyPaths(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
}

// The encoder writes every key the decoder read, where it read it, and
// only keys the schema allows: each all-keys file of
// TestDecoderReadsEverySchemaKey, decoded and encoded again, keeps its
// keys, except those whose value is the default the encoder leaves out.
func TestEncoderWritesEveryKey(t *testing.T) {
	sv := newValidator(t)
	for v := 0; v < sv.maxAlternatives(); v++ {
		data, err := json.Marshal(sv.exampleValue(sv.root, v))
		require.NoError(t, err)
		out, err := scenes.EncodeUnchecked(data)
		require.NoError(t, err)
		assert.Empty(t, sv.check(t, out), "variant %d: the encoder's output is valid under the schema", v)
		in, got := map[string]any{}, map[string]any{}
		keyPaths(decodeAny(t, data), "", in)
		keyPaths(decodeAny(t, out), "", got)
		for _, p := range sortedKeys(in) {
			if _, ok := got[p]; !ok && !leftOut(p, in[p]) {
				t.Errorf("variant %d: %s = %v read but not written", v, p, in[p])
			}
		}
	}
}
