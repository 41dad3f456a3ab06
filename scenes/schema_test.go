package scenes_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaValidator checks JSON values against the subset of JSON Schema
// draft 2020-12 that scene.schema.json uses: type (a name or a list),
// required, properties, additionalProperties: false, enum, const,
// minimum, exclusiveMinimum, maximum, minLength, items, minItems, maxItems, oneOf
// and $ref to "#/$defs/NAME". Annotation keywords ($schema, $id, $defs,
// title, description) are skipped; any other keyword is an error, so the
// schema cannot use a keyword this validator would silently ignore.
type schemaValidator struct{ root map[string]any }

var annotations = []string{"$schema", "$id", "$defs", "title", "description"}

func decodeAny(t testing.TB, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	return v
}

// validate returns the problems of v against schema s at path.
func (sv *schemaValidator) validate(s map[string]any, v any, path string) []string {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, a...)) }
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kw := s[k]
		switch k {
		case "$ref":
			ref := kw.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			def, found := sv.root["$defs"].(map[string]any)[name]
			if !ok || !found {
				bad("schema: unresolved $ref %q", ref)
				continue
			}
			errs = append(errs, sv.validate(def.(map[string]any), v, path)...)
		case "type":
			var types []string
			switch x := kw.(type) {
			case string:
				types = []string{x}
			case []any:
				for _, e := range x {
					types = append(types, e.(string))
				}
			}
			if !slices.ContainsFunc(types, func(ty string) bool { return hasType(v, ty) }) {
				bad("want type %v, got %s", types, typeOf(v))
			}
		case "enum":
			if !slices.ContainsFunc(kw.([]any), func(e any) bool { return jsonEqual(e, v) }) {
				bad("%v is not one of %v", v, kw)
			}
		case "const":
			if !jsonEqual(kw, v) {
				bad("want %v, got %v", kw, v)
			}
		case "minimum", "exclusiveMinimum", "maximum":
			if n, ok := v.(json.Number); ok {
				x, _ := strconv.ParseFloat(string(n), 64)
				lim, _ := strconv.ParseFloat(string(kw.(json.Number)), 64)
				if k == "minimum" && !(x >= lim) || k == "exclusiveMinimum" && !(x > lim) || k == "maximum" && !(x <= lim) {
					bad("%v violates %s %v", x, k, lim)
				}
			}
		case "minLength":
			if str, ok := v.(string); ok {
				n, _ := strconv.Atoi(string(kw.(json.Number)))
				if len([]rune(str)) < n {
					bad("string shorter than %d", n)
				}
			}
		case "required":
			if o, ok := v.(map[string]any); ok {
				for _, r := range kw.([]any) {
					if _, has := o[r.(string)]; !has {
						bad("missing required property %q", r)
					}
				}
			}
		case "properties":
			if o, ok := v.(map[string]any); ok {
				props := kw.(map[string]any)
				for _, name := range sortedKeys(o) {
					if ps, has := props[name]; has {
						errs = append(errs, sv.validate(ps.(map[string]any), o[name], path+"."+name)...)
					}
				}
			}
		case "additionalProperties":
			if kw != false {
				bad("schema: only additionalProperties: false is supported")
				continue
			}
			if o, ok := v.(map[string]any); ok {
				props, _ := s["properties"].(map[string]any)
				for _, name := range sortedKeys(o) {
					if _, has := props[name]; !has {
						bad("property %q not allowed", name)
					}
				}
			}
		case "items":
			if a, ok := v.([]any); ok {
				for i, e := range a {
					errs = append(errs, sv.validate(kw.(map[string]any), e, fmt.Sprintf("%s[%d]", path, i))...)
				}
			}
		case "minItems", "maxItems":
			if a, ok := v.([]any); ok {
				n, _ := strconv.Atoi(string(kw.(json.Number)))
				if k == "minItems" && len(a) < n || k == "maxItems" && len(a) > n {
					bad("%d items violates %s %d", len(a), k, n)
				}
			}
		case "oneOf":
			matched := 0
			var firstErrs []string
			for _, alt := range kw.([]any) {
				e := sv.validate(alt.(map[string]any), v, path)
				if len(e) == 0 {
					matched++
				} else if firstErrs == nil || len(e) < len(firstErrs) {
					firstErrs = e
				}
			}
			if matched != 1 {
				bad("matches %d of the oneOf alternatives, want 1 (closest: %v)", matched, firstErrs)
			}
		default:
			if !slices.Contains(annotations, k) {
				bad("schema: unsupported keyword %q", k)
			}
		}
	}
	return errs
}

func sortedKeys(o map[string]any) []string {
	k := make([]string, 0, len(o))
	for n := range o {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

func hasType(v any, ty string) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		x, err := strconv.ParseFloat(string(n), 64)
		return err == nil && x == math.Trunc(x)
	}
	return false
}

func typeOf(v any) string {
	for _, ty := range []string{"object", "array", "string", "boolean", "null", "number"} {
		if hasType(v, ty) {
			return ty
		}
	}
	return fmt.Sprintf("%T", v)
}

func jsonEqual(a, b any) bool {
	if na, ok := a.(json.Number); ok {
		nb, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, _ := strconv.ParseFloat(string(na), 64)
		y, _ := strconv.ParseFloat(string(nb), 64)
		return x == y
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

func newValidator(t testing.TB) *schemaValidator {
	root, ok := decodeAny(t, scenes.Schema).(map[string]any)
	require.True(t, ok)
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", root["$schema"])
	return &schemaValidator{root: root}
}

func (sv *schemaValidator) check(t testing.TB, data []byte) []string {
	return sv.validate(sv.root, decodeAny(t, data), "$")
}

// Every built-in scene's export, and a file with every kind of joint,
// shape and load, validate against the committed schema.
func TestSchemaValidatesExports(t *testing.T) {
	sv := newValidator(t)
	for _, n := range scenes.Exportable() {
		assert.Empty(t, sv.check(t, exportText(t, n, nil)), n)
	}
	assert.Empty(t, sv.check(t, []byte(allKinds)), "allKinds")
}

// The validator is not vacuous: files the reader rejects for a reason the
// schema can express are rejected by the schema too, at the right path.
func TestSchemaRejects(t *testing.T) {
	sv := newValidator(t)
	for _, c := range []struct{ file, want string }{
		{`{"settings": {"h": 1}}`, `$: missing required property "version"`},
		{`{"version": 2, "settings": {"h": 1}}`, "$.version: 2 is not one of [1]"},
		{`{"version": 1, "settings": {"h": 0}}`, "$.settings.h: 0 violates exclusiveMinimum 0"},
		{`{"version": 1, "settings": {"h": 1, "budget": 1.5}}`, "$.settings.budget: want type [integer], got number"},
		{`{"version": 1, "settings": {"h": 1}, "bodys": []}`, `$: property "bodys" not allowed`},
		{`{"version": 1, "settings": {"h": 1}, "bodies": [{"name": "a", "position": [1, 2]}]}`, "$.bodies[0].position: 2 items violates minItems 3"},
		{`{"version": 1, "settings": {"h": 1}, "bodies": [{"name": "a", "shapes": [{"type": "box", "size": [1, -1, 1]}]}]}`,
			"$.bodies[0].shapes[0]: matches 0 of the oneOf alternatives"},
		{`{"version": 1, "settings": {"h": 1}, "joints": [{"type": "hinge", "body_a": "a", "body_b": "world", "pivot": [0, 0, 0], "axis": [0, 1, 0], "ratio": 2}]}`,
			"$.joints[0]: matches 0 of the oneOf alternatives"},
		{`{"version": 1, "settings": {"h": 1, "pick": "best"}}`, `$.settings.pick: best is not one of [energy fb residual last energy-exact]`},
		{`{"version": 1, "settings": {"h": 1}, "world_shapes": [{"type": "plane", "mask": 4294967296}]}`,
			"$.world_shapes[0]: matches 0 of the oneOf alternatives"},
		{`{"version": 1, "settings": {"h": 1}, "exclude": [{"body_a": "a"}]}`, `$.exclude[0]: missing required property "body_b"`},
	} {
		errs := sv.check(t, []byte(c.file))
		require.NotEmpty(t, errs, c.file)
		assert.True(t, slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, c.want) }), "%s\nwant %s\ngot %v", c.file, c.want, errs)
		_, err := scenes.ReadSpec(strings.NewReader(c.file), "")
		assert.Error(t, err, "the reader rejects it too: %s", c.file)
	}
}
