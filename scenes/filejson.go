package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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

// parseJSON reads one JSON value from data. Errors give line and column.
func parseJSON(data []byte) (*jnode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, data)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: unexpected data after the top-level value", lineCol(data, dec.InputOffset()))
	}
	return n, nil
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

func syntaxErr(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s: invalid JSON: %v", lineCol(data, se.Offset), se)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: invalid JSON: unexpected end of input", lineCol(data, int64(len(data))))
	}
	return fmt.Errorf("%s: invalid JSON: %v", lineCol(data, dec.InputOffset()), err)
}

func parseValue(dec *json.Decoder, data []byte) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxErr(data, dec, err)
	}
	return parseFrom(tok, dec, data)
}

func parseFrom(tok json.Token, dec *json.Decoder, data []byte) (*jnode, error) {
	switch t := tok.(type) {
	case nil:
		return &jnode{kind: jNull}, nil
	case bool:
		return &jnode{kind: jBool, b: t}, nil
	case json.Number:
		return &jnode{kind: jNumber, num: string(t)}, nil
	case string:
		return &jnode{kind: jString, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &jnode{kind: jArray}
			for dec.More() {
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return nil, syntaxErr(data, dec, err)
			}
			return n, nil
		case '{':
			n := &jnode{kind: jObject}
			for dec.More() {
				off := dec.InputOffset()
				kt, err := dec.Token()
				if err != nil {
					return nil, syntaxErr(data, dec, err)
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("%s: invalid JSON: object key is not a string", lineCol(data, off))
				}
				for _, have := range n.keys {
					if have == k {
						return nil, fmt.Errorf("%s: duplicate key %q", lineCol(data, off), k)
					}
				}
				v, err := parseValue(dec, data)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k)
				n.vals = append(n.vals, v)
			}
			if _, err := dec.Token(); err != nil { // '}'
				return nil, syntaxErr(data, dec, err)
			}
			return n, nil
		}
	}
	return nil, fmt.Errorf("%s: invalid JSON: unexpected %v", lineCol(data, dec.InputOffset()), tok)
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
