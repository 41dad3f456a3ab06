package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The scene-file reader and writer work on a small ordered JSON tree
// (jnode) instead of encoding/json's maps and structs, for three reasons:
// every error names its JSON path, duplicate and unknown keys are errors
// (encoding/json keeps the last duplicate silently and
// DisallowUnknownFields gives no path), and the writer controls key order
// and float formatting (strconv 'g', -1: every float64 round-trips
// exactly, which byte-identical trajectories need).

// jkind is the JSON type of a jnode.
type jkind int

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

var jkindNames = [...]string{"null", "boolean", "number", "string", "array", "object"}

func (k jkind) String() string { return jkindNames[k] }

// jnode is one JSON value. Objects keep their keys in input order.
type jnode struct {
	kind jkind
	b    bool
	num  string // a number's literal text
	str  string
	arr  []*jnode
	keys []string
	vals []*jnode
}

// maxSceneFile is the largest scene file Load reads (bytes).
const maxSceneFile = 64 << 20

// maxDepth is the deepest nesting of arrays and objects the reader
// accepts; scene files need 5 levels. Without a limit, "[[[[…" would
// recurse once per byte: a 2 MB file would take 512 MB of stack.
const maxDepth = 64

// maxValues bounds the JSON values of a file of n bytes: 65536 + n/4. A
// scene file spends more than 6 bytes per value (keys, names, numbers with
// their separators: {"mass":1,"inertia":[1,1,1]} is 7), while a flood of
// tiny values ("0,0,0,…", 2 bytes each) would cost a 120-byte tree node
// each. The bound keeps the reader's allocations within 64 times the
// file size (TestLoaderMemoryBounded).
func maxValues(n int) int { return 65536 + n/4 }

// jparser builds the jnode tree of a document that json.Valid accepted,
// so it meets no syntax error. It allocates the tree and the strings
// only: encoding/json's Decoder.Token boxed every token and cost about
// 300 bytes per value.
type jparser struct {
	data   []byte
	pos    int
	values int // values read so far
}

// parseJSON reads one JSON value from data. Errors give line and column.
func parseJSON(data []byte) (*jnode, error) {
	if !json.Valid(data) {
		return nil, syntaxErr(data)
	}
	jp := &jparser{data: data}
	jp.space()
	return jp.value(0)
}

// lineCol returns "line L, column C" of byte offset off in data.
func lineCol(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// syntaxErr locates the syntax error of data (json.Valid refused it) with
// encoding/json's scanner, which builds nothing.
func syntaxErr(data []byte) error {
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("invalid JSON: %v", err)
	}
	switch msg := se.Error(); {
	case strings.Contains(msg, "unexpected end of JSON input"):
		return fmt.Errorf("%s: invalid JSON: unexpected end of input", lineCol(data, int64(len(data))))
	case strings.Contains(msg, "after top-level value"):
		return fmt.Errorf("%s: unexpected data after the top-level value", lineCol(data, se.Offset-1))
	default:
		return fmt.Errorf("%s: invalid JSON: %s", lineCol(data, se.Offset-1), msg)
	}
}

// space skips JSON whitespace.
func (jp *jparser) space() {
	for jp.pos < len(jp.data) {
		switch jp.data[jp.pos] {
		case ' ', '\t', '\n', '\r':
			jp.pos++
		default:
			return
		}
	}
}

// str reads the string at jp.pos (its opening quote).
func (jp *jparser) str() string {
	start := jp.pos
	esc := false
	for jp.pos++; jp.data[jp.pos] != '"'; jp.pos++ {
		if jp.data[jp.pos] == '\\' {
			esc = true
			jp.pos++ // the escaped byte (\" does not end the string)
		}
	}
	jp.pos++
	raw := jp.data[start:jp.pos]
	if !esc && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s) // valid JSON; escapes decoded, invalid UTF-8 replaced by U+FFFD as encoding/json does
	return s
}

// value reads the value at jp.pos (no leading space) and the space after.
func (jp *jparser) value(depth int) (*jnode, error) {
	d := jp.data
	if jp.values++; jp.values > maxValues(len(d)) {
		return nil, fmt.Errorf("%s: more than %d JSON values in %d bytes: not a scene file", lineCol(d, int64(jp.pos)), maxValues(len(d)), len(d))
	}
	var n *jnode
	switch c := d[jp.pos]; c {
	case '{', '[':
		if depth >= maxDepth {
			return nil, fmt.Errorf("%s: arrays and objects nested deeper than %d levels", lineCol(d, int64(jp.pos)), maxDepth)
		}
		n = &jnode{kind: jArray}
		if c == '{' {
			n.kind = jObject
		}
		var seen map[string]bool // keys, once there are too many to compare pairwise
		jp.pos++
		for {
			off := jp.pos // after '{' or the previous value: where the key's error points
			jp.space()
			if d[jp.pos] == '}' || d[jp.pos] == ']' {
				jp.pos++
				break
			}
			if d[jp.pos] == ',' {
				jp.pos++
				jp.space()
			}
			if n.kind == jArray {
				v, err := jp.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
				continue
			}
			k := jp.str()
			dup := seen[k]
			if seen == nil {
				for _, have := range n.keys {
					dup = dup || have == k
				}
				if len(n.keys) == 16 {
					seen = make(map[string]bool, 32)
					for _, have := range n.keys {
						seen[have] = true
					}
				}
			}
			if dup {
				return nil, fmt.Errorf("%s: duplicate key %q", lineCol(d, int64(off)), k)
			}
			if seen != nil {
				seen[k] = true
			}
			jp.space()
			jp.pos++ // ':'
			jp.space()
			v, err := jp.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, v)
		}
	case '"':
		n = &jnode{kind: jString, str: jp.str()}
	case 't':
		n, jp.pos = &jnode{kind: jBool, b: true}, jp.pos+4
	case 'f':
		n, jp.pos = &jnode{kind: jBool}, jp.pos+5
	case 'n':
		n, jp.pos = &jnode{kind: jNull}, jp.pos+4
	default:
		start := jp.pos
		for jp.pos < len(d) && strings.IndexByte("+-.eE0123456789", d[jp.pos]) >= 0 {
			jp.pos++
		}
		n = &jnode{kind: jNumber, num: string(d[start:jp.pos])}
	}
	jp.space()
	return n, nil
}

// get returns the value of key in object n, or nil.
func (n *jnode) get(key string) *jnode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// Constructors for the writer.

func jnum(v float64) *jnode {
	return &jnode{kind: jNumber, num: strconv.FormatFloat(v, 'g', -1, 64)}
}

func jint(v int) *jnode       { return &jnode{kind: jNumber, num: strconv.Itoa(v)} }
func jstr(s string) *jnode    { return &jnode{kind: jString, str: s} }
func jbool(b bool) *jnode     { return &jnode{kind: jBool, b: b} }
func jnull() *jnode           { return &jnode{kind: jNull} }
func jobj() *jnode            { return &jnode{kind: jObject} }
func jarr(v ...*jnode) *jnode { return &jnode{kind: jArray, arr: v} }

func jnums(v ...float64) *jnode {
	n := &jnode{kind: jArray}
	for _, x := range v {
		n.arr = append(n.arr, jnum(x))
	}
	return n
}

// set appends key: v to object n (keys are written in this order).
func (n *jnode) set(key string, v *jnode) *jnode {
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
	return n
}

// writeJSON writes n indented by two spaces, arrays of scalars on one line.
func writeJSON(b *strings.Builder, n *jnode, indent string) {
	switch n.kind {
	case jNull:
		b.WriteString("null")
	case jBool:
		b.WriteString(strconv.FormatBool(n.b))
	case jNumber:
		b.WriteString(n.num)
	case jString:
		q, _ := json.Marshal(n.str) // cannot fail for a string
		b.WriteString(string(q))
	case jArray:
		if len(n.arr) == 0 {
			b.WriteString("[]")
			return
		}
		flat := allScalar(n.arr)
		if !flat && len(n.arr) <= 3 { // a 3×3 matrix on one line
			flat = true
			for _, v := range n.arr {
				flat = flat && v.kind == jArray && allScalar(v.arr)
			}
		}
		if flat {
			b.WriteByte('[')
			for i, v := range n.arr {
				if i > 0 {
					b.WriteString(", ")
				}
				writeJSON(b, v, indent)
			}
			b.WriteByte(']')
			return
		}
		b.WriteString("[\n")
		in := indent + "  "
		for i, v := range n.arr {
			b.WriteString(in)
			writeJSON(b, v, in)
			if i < len(n.arr)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
	case jObject:
		if len(n.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		in := indent + "  "
		for i, k := range n.keys {
			b.WriteString(in)
			writeJSON(b, jstr(k), in)
			b.WriteString(": ")
			writeJSON(b, n.vals[i], in)
			if i < len(n.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	}
}

func allScalar(v []*jnode) bool {
	for _, x := range v {
		if x.kind == jArray || x.kind == jObject {
			return false
		}
	}
	return true
}
