package mesh

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// MaxFileBytes is the largest mesh file the readers accept (1 GiB, about
// 21 million binary STL triangles); a larger input is an error, read no
// further than this.
const MaxFileBytes = 1 << 30

// FormatError is the one-line error of a mesh file the readers cannot
// read: where (file, then line for text formats, or triangle and byte
// offset for binary STL) and what is wrong.
type FormatError struct {
	File     string // the file's path; "" when read from an io.Reader
	Format   string // "ASCII STL", "binary STL" or "OBJ"
	Line     int    // 1-based line of a text format, 0 if none
	Triangle int    // 0-based triangle of a binary STL, -1 if none
	Offset   int64  // byte offset of a binary STL problem, -1 if none
	Reason   string
}

// Error returns e.g. "part.stl: binary STL: triangle 3 (byte 234): vertex
// 2 is not finite" or "part.obj: OBJ: line 12: face index 9 out of range".
func (e *FormatError) Error() string {
	s := e.Format + ": "
	if e.File != "" {
		s = e.File + ": " + s
	}
	switch {
	case e.Line > 0:
		s += fmt.Sprintf("line %d: ", e.Line)
	case e.Triangle >= 0 && e.Offset >= 0:
		s += fmt.Sprintf("triangle %d (byte %d): ", e.Triangle, e.Offset)
	case e.Offset >= 0:
		s += fmt.Sprintf("byte %d: ", e.Offset)
	}
	return s + e.Reason
}

func lineError(format string, line int, reason string, args ...any) *FormatError {
	return &FormatError{Format: format, Line: line, Triangle: -1, Offset: -1, Reason: fmt.Sprintf(reason, args...)}
}

// readAll reads r up to MaxFileBytes.
func readAll(r io.Reader, format string) ([]byte, error) { return readLimited(r, format, MaxFileBytes) }

// readLimited reads r up to limit bytes; a longer input is an error.
func readLimited(r io.Reader, format string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &FormatError{Format: format, Triangle: -1, Offset: int64(len(data)), Reason: "read: " + strings.ReplaceAll(err.Error(), "\n", " ")}
	}
	if int64(len(data)) > limit {
		return nil, &FormatError{Format: format, Triangle: -1, Offset: -1, Reason: fmt.Sprintf("file larger than %d bytes (MaxFileBytes)", limit)}
	}
	return data, nil
}

// welder joins vertices with bit-identical coordinates (and ±0), in order
// of first appearance, so that an STL's triangles share vertices by index.
type welder struct {
	m  *Mesh
	at map[mgl64.Vec3]int
}

func (w *welder) index(v mgl64.Vec3) int {
	if i, ok := w.at[v]; ok {
		return i
	}
	i := len(w.m.Vertices)
	w.at[v] = i
	w.m.Vertices = append(w.m.Vertices, v)
	return i
}

// ReadSTL reads a binary or ASCII STL file. A file that begins with
// "solid" and holds no NUL byte is read as ASCII; if that fails and its
// length matches the binary triangle count (bytes 80–83: 84 + 50 bytes
// per triangle), it is a binary file whose header begins with "solid" —
// some exporters write those — and is read as binary. Every other file
// is binary, and a length mismatch is the error. Keywords are matched in any
// letter case. Vertices with identical
// coordinates are welded into one, so that a closed part's mesh passes
// Closed; facet normals in the file are ignored (the corner order gives
// the outward side). Errors are *FormatError.
func ReadSTL(r io.Reader) (*Mesh, error) {
	data, err := readAll(r, "STL")
	if err != nil {
		return nil, err
	}
	binLen := len(data) >= 84 && 84+50*uint64(binary.LittleEndian.Uint32(data[80:84])) == uint64(len(data))
	t := bytes.TrimLeft(data, " \t\r\n")
	if len(t) >= 5 && bytes.EqualFold(t[:5], []byte("solid")) && bytes.IndexByte(data, 0) < 0 {
		m, err := readASCIISTL(data)
		if err == nil || !binLen {
			return m, err
		}
	}
	return readBinarySTL(data)
}

func binError(tri int, off int64, reason string, args ...any) *FormatError {
	return &FormatError{Format: "binary STL", Triangle: tri, Offset: off, Reason: fmt.Sprintf(reason, args...)}
}

func readBinarySTL(data []byte) (*Mesh, error) {
	if len(data) < 84 {
		return nil, binError(-1, int64(len(data)), "file of %d bytes is shorter than the 84-byte header and does not begin with \"solid\"", len(data))
	}
	n := uint64(binary.LittleEndian.Uint32(data[80:84]))
	need := 84 + 50*n
	if need > uint64(len(data)) {
		k := (len(data) - 84) / 50
		return nil, binError(k, int64(84+50*k), "header declares %d triangles (%d bytes) but the file has %d bytes: truncated", n, need, len(data))
	}
	if need < uint64(len(data)) {
		return nil, binError(-1, int64(need), "%d bytes after the last of the %d triangles the header declares", uint64(len(data))-need, n)
	}
	m := &Mesh{Triangles: make([][3]int, 0, n)}
	w := welder{m: m, at: make(map[mgl64.Vec3]int)}
	for t := 0; t < int(n); t++ {
		rec := data[84+50*t:]
		var tri [3]int
		for k := 0; k < 3; k++ {
			var v mgl64.Vec3
			for c := 0; c < 3; c++ {
				off := 12 + 12*k + 4*c
				x := float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[off:])))
				if !num.Finite(x) {
					return nil, binError(t, int64(84+50*t+off), "vertex %d coordinate %d is %v", k, c, x)
				}
				v[c] = x
			}
			tri[k] = w.index(v)
		}
		m.Triangles = append(m.Triangles, tri)
	}
	return m, nil
}

// stlLines iterates the lines of a text file with their 1-based numbers,
// split into whitespace-separated fields.
type textLines struct {
	data []byte
	pos  int
	line int
}

func (s *textLines) next() ([][]byte, bool) {
	for s.pos < len(s.data) {
		end := bytes.IndexByte(s.data[s.pos:], '\n')
		var l []byte
		if end < 0 {
			l, s.pos = s.data[s.pos:], len(s.data)
		} else {
			l, s.pos = s.data[s.pos:s.pos+end], s.pos+end+1
		}
		s.line++
		if f := bytes.Fields(l); len(f) > 0 {
			return f, true
		}
	}
	return nil, false
}

// quote shows a file token in an error, cut to 40 bytes.
func quote(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

func parseFloat(b []byte) (float64, bool) {
	x, err := strconv.ParseFloat(string(b), 64)
	return x, err == nil
}

func readASCIISTL(data []byte) (*Mesh, error) {
	const format = "ASCII STL"
	m := &Mesh{}
	w := welder{m: m, at: make(map[mgl64.Vec3]int)}
	s := textLines{data: data}
	expect := func(f [][]byte, words ...string) error {
		if len(f) < len(words) {
			return lineError(format, s.line, "expected %q, got %s", joinWords(words), quote(bytes.Join(f, []byte(" "))))
		}
		for i, word := range words {
			if !bytes.EqualFold(f[i], []byte(word)) {
				return lineError(format, s.line, "expected %q, got %s", joinWords(words), quote(bytes.Join(f, []byte(" "))))
			}
		}
		return nil
	}
	solids := 0
	for {
		f, ok := s.next()
		if !ok {
			if solids == 0 {
				return nil, lineError(format, max(s.line, 1), "no \"solid\" in the file")
			}
			return m, nil
		}
		if err := expect(f, "solid"); err != nil {
			return nil, err
		}
		solids++
		for {
			f, ok = s.next()
			if !ok {
				return nil, lineError(format, s.line, "unexpected end of file: missing \"endsolid\"")
			}
			if bytes.EqualFold(f[0], []byte("endsolid")) {
				break
			}
			if err := expect(f, "facet", "normal"); err != nil {
				return nil, err
			}
			if len(f) != 5 {
				return nil, lineError(format, s.line, "facet normal needs 3 numbers, got %d", len(f)-2)
			}
			for _, x := range f[2:] {
				if _, ok := parseFloat(x); !ok {
					return nil, lineError(format, s.line, "facet normal: %s is not a number", quote(x))
				}
			}
			if f, ok = s.next(); !ok {
				return nil, lineError(format, s.line, "unexpected end of file inside a facet")
			}
			if err := expect(f, "outer", "loop"); err != nil {
				return nil, err
			}
			var tri [3]int
			for k := 0; k < 3; k++ {
				if f, ok = s.next(); !ok {
					return nil, lineError(format, s.line, "unexpected end of file inside a facet")
				}
				if err := expect(f, "vertex"); err != nil {
					return nil, err
				}
				if len(f) != 4 {
					return nil, lineError(format, s.line, "vertex needs 3 numbers, got %d", len(f)-1)
				}
				var v mgl64.Vec3
				for c := 0; c < 3; c++ {
					x, ok := parseFloat(f[1+c])
					if !ok || !num.Finite(x) {
						return nil, lineError(format, s.line, "vertex coordinate %s is not a finite number", quote(f[1+c]))
					}
					v[c] = x
				}
				tri[k] = w.index(v)
			}
			m.Triangles = append(m.Triangles, tri)
			if f, ok = s.next(); !ok {
				return nil, lineError(format, s.line, "unexpected end of file inside a facet")
			}
			if err := expect(f, "endloop"); err != nil {
				if expect(f, "vertex") == nil {
					return nil, lineError(format, s.line, "a facet with more than 3 vertices")
				}
				return nil, err
			}
			if f, ok = s.next(); !ok {
				return nil, lineError(format, s.line, "unexpected end of file inside a facet")
			}
			if err := expect(f, "endfacet"); err != nil {
				return nil, err
			}
		}
	}
}

func joinWords(w []string) string {
	s := w[0]
	for _, x := range w[1:] {
		s += " " + x
	}
	return s
}

// WriteSTL writes m as a binary STL: an 80-byte header, the triangle
// count, and per triangle its unit normal and corners in float32 (so
// coordinates are rounded to float32) with a zero attribute word.
func WriteSTL(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if uint64(len(m.Triangles)) > math.MaxUint32 {
		return fmt.Errorf("mesh: %d triangles, binary STL holds at most %d", len(m.Triangles), uint64(math.MaxUint32))
	}
	bw := bufio.NewWriter(w)
	var head [84]byte
	copy(head[:], "binary STL written by gorigid/mesh")
	binary.LittleEndian.PutUint32(head[80:], uint32(len(m.Triangles)))
	bw.Write(head[:])
	var rec [50]byte
	for _, t := range m.Triangles {
		n := triNormal(m, t)
		vals := [12]float64{n[0], n[1], n[2]}
		for k := 0; k < 3; k++ {
			copy(vals[3+3*k:], m.Vertices[t[k]][:])
		}
		for i, x := range vals {
			binary.LittleEndian.PutUint32(rec[4*i:], math.Float32bits(float32(x)))
		}
		bw.Write(rec[:])
	}
	return bw.Flush()
}

// WriteSTLASCII writes m as an ASCII STL solid named "mesh", every
// coordinate in the shortest decimal form that reads back to the same
// float64, so ReadSTL returns the same coordinates.
func WriteSTLASCII(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("solid mesh\n")
	for _, t := range m.Triangles {
		n := triNormal(m, t)
		fmt.Fprintf(bw, "facet normal %s\nouter loop\n", fmtVec(n))
		for k := 0; k < 3; k++ {
			fmt.Fprintf(bw, "vertex %s\n", fmtVec(m.Vertices[t[k]]))
		}
		bw.WriteString("endloop\nendfacet\n")
	}
	bw.WriteString("endsolid mesh\n")
	return bw.Flush()
}

func fmtVec(v mgl64.Vec3) string {
	return strconv.FormatFloat(v[0], 'g', -1, 64) + " " + strconv.FormatFloat(v[1], 'g', -1, 64) + " " + strconv.FormatFloat(v[2], 'g', -1, 64)
}

// triNormal is the unit right-hand normal of triangle t, zero if degenerate.
func triNormal(m *Mesh, t [3]int) mgl64.Vec3 {
	a := m.Vertices[t[0]]
	n := m.Vertices[t[1]].Sub(a).Cross(m.Vertices[t[2]].Sub(a))
	if l := n.Len(); l > 0 && !math.IsInf(l, 0) {
		return n.Mul(1 / l)
	}
	return mgl64.Vec3{}
}
