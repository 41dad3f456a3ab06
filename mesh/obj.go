package mesh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// ReadOBJ reads the geometry of a Wavefront OBJ file: "v x y z" vertex
// lines (further numbers, a w or a colour, are ignored) and "f" face
// lines whose corners are v, v/vt, v//vn or v/vt/vn references, 1-based
// or negative (relative to the vertices read so far). A face of n ≥ 3
// corners becomes n − 2 triangles fanned from its first corner. Every
// other statement (vt, vn, g, o, s, usemtl, mtllib, l, p, …) and "#"
// comments are ignored; a line ending in "\" continues on the next.
// Errors are *FormatError naming the line.
func ReadOBJ(r io.Reader) (*Mesh, error) {
	const format = "OBJ"
	data, err := readAll(r, format)
	if err != nil {
		return nil, err
	}
	m := &Mesh{}
	var corners []int
	s := textLines{data: data}
	for {
		f, ok := s.next()
		if !ok {
			return m, nil
		}
		line := s.line
		for len(f) > 0 && bytes.HasSuffix(f[len(f)-1], []byte("\\")) {
			last := bytes.TrimSuffix(f[len(f)-1], []byte("\\"))
			f = f[:len(f)-1]
			if len(last) > 0 {
				f = append(f, last)
			}
			more, ok := s.next()
			if !ok {
				break
			}
			f = append(f, more...)
		}
		for i, x := range f { // a comment ends the statement
			if c := bytes.IndexByte(x, '#'); c >= 0 {
				f = f[:i]
				if c > 0 {
					f = append(f, x[:c])
				}
				break
			}
		}
		if len(f) == 0 {
			continue
		}
		switch string(f[0]) {
		case "v":
			if len(f) < 4 {
				return nil, lineError(format, line, "vertex needs 3 coordinates, got %d", len(f)-1)
			}
			var v mgl64.Vec3
			for c := 0; c < 3; c++ {
				x, ok := parseFloat(f[1+c])
				if !ok || !num.Finite(x) {
					return nil, lineError(format, line, "vertex coordinate %s is not a finite number", quote(f[1+c]))
				}
				v[c] = x
			}
			m.Vertices = append(m.Vertices, v)
		case "f":
			if len(f) < 4 {
				return nil, lineError(format, line, "face needs at least 3 corners, got %d", len(f)-1)
			}
			corners = corners[:0]
			for _, ref := range f[1:] {
				vs, _, _ := bytes.Cut(ref, []byte("/"))
				i, err := strconv.Atoi(string(vs))
				if err != nil {
					return nil, lineError(format, line, "face corner %s: vertex index is not an integer", quote(ref))
				}
				switch n := len(m.Vertices); {
				case i > 0 && i <= n:
					i--
				case i < 0 && i >= -n:
					i += n
				default:
					return nil, lineError(format, line, "face vertex index %d out of range: %d vertices defined so far", i, n)
				}
				corners = append(corners, i)
			}
			for k := 1; k+1 < len(corners); k++ {
				m.Triangles = append(m.Triangles, [3]int{corners[0], corners[k], corners[k+1]})
			}
		}
	}
}

// WriteOBJ writes m as "v" and "f" lines (1-based), every coordinate in
// the shortest decimal form that reads back to the same float64, so
// ReadOBJ returns m exactly.
func WriteOBJ(w io.Writer, m *Mesh) error {
	if err := m.Validate(); err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("# written by gorigid/mesh\n")
	for _, v := range m.Vertices {
		fmt.Fprintf(bw, "v %s\n", fmtVec(v))
	}
	for _, t := range m.Triangles {
		fmt.Fprintf(bw, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	return bw.Flush()
}

// Load reads the mesh file at path — STL or OBJ by its extension, in any
// letter case — and scales it by scale (Mesh.Scale; {1, 1, 1} keeps the
// file's units). Every error is one line beginning with path.
func Load(path string, scale mgl64.Vec3) (*Mesh, error) {
	var read func(io.Reader) (*Mesh, error)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".stl":
		read = ReadSTL
	case ".obj":
		read = ReadOBJ
	default:
		return nil, fmt.Errorf("%s: unknown mesh file extension %q: want .stl or .obj", path, filepath.Ext(path))
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err // *fs.PathError names the path
	}
	defer file.Close()
	m, err := read(file)
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) {
			fe.File = path
			return nil, fe
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Scale(scale); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
