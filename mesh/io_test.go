package mesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// canonical returns m's triangles as corner coordinates, the geometry a
// file round trip must keep whatever the vertex numbering.
func corners(m *Mesh) [][3]mgl64.Vec3 {
	out := make([][3]mgl64.Vec3, len(m.Triangles))
	for i, t := range m.Triangles {
		out[i] = [3]mgl64.Vec3{m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]}
	}
	return out
}

// float32Mesh is an icosphere with coordinates rounded to float32, so
// that binary STL holds them exactly.
func float32Mesh() *Mesh {
	m := icosphere(2, 0.37)
	for i, v := range m.Vertices {
		m.Vertices[i] = mgl64.Vec3{float64(float32(v[0])), float64(float32(v[1])), float64(float32(v[2]))}
	}
	return m
}

func TestSTLRoundTrip(t *testing.T) {
	m := icosphere(2, 0.37) // float64 coordinates: exact through ASCII
	var buf bytes.Buffer
	if err := WriteSTLASCII(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSTL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(corners(got), corners(m)) || len(got.Vertices) != len(m.Vertices) {
		t.Fatalf("ASCII STL round trip changed the mesh: %d vertices, want %d", len(got.Vertices), len(m.Vertices))
	}
	// Welded: the read mesh is closed and has the same volume.
	v0, _, _, err := m.MassProperties(1)
	if err != nil {
		t.Fatal(err)
	}
	v1, _, _, err := got.MassProperties(1)
	// 1e-14 relative: the welded vertex order changes the summation order.
	if err != nil || math.Abs(v1-v0) > 1e-14*v0 {
		t.Fatalf("read mesh volume %v (%v), want %v", v1, err, v0)
	}

	f := float32Mesh()
	buf.Reset()
	if err := WriteSTL(&buf, f); err != nil {
		t.Fatal(err)
	}
	if want := 84 + 50*len(f.Triangles); buf.Len() != want {
		t.Fatalf("binary STL of %d bytes, want %d", buf.Len(), want)
	}
	got, err = ReadSTL(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(corners(got), corners(f)) || len(got.Vertices) != len(f.Vertices) {
		t.Fatal("binary STL round trip changed the mesh")
	}
	// A binary file whose header begins with "solid" is still binary.
	data := append([]byte(nil), buf.Bytes()...)
	copy(data, "solid but binary")
	got, err = ReadSTL(bytes.NewReader(data))
	if err != nil || !reflect.DeepEqual(corners(got), corners(f)) {
		t.Fatalf("binary STL beginning with \"solid\": %v", err)
	}
}

func TestReadSTLASCIIForms(t *testing.T) {
	// Upper-case keywords, names, blank lines, CRLF, two solids, NaN normals.
	src := "  SOLID part one\r\n\r\n" +
		"facet normal nan nan nan\r\n outer loop\r\n  vertex 0 0 0\r\n  vertex 1 0 0\r\n  vertex 0 1 0\r\n endloop\r\nendfacet\r\n" +
		"ENDSOLID part one\r\n" +
		"solid two\nfacet normal 0 0 -1\nouter loop\nvertex 0 0 0\nvertex 0 1 0\nvertex 1e0 0 0\nendloop\nendfacet\nendsolid"
	m, err := ReadSTL(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	want := &Mesh{Vertices: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}, {0, 2, 1}}}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v, want %+v", m, want)
	}
}

func TestOBJRoundTrip(t *testing.T) {
	m := icosphere(2, 1.7)
	var buf bytes.Buffer
	if err := WriteOBJ(&buf, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOBJ(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatal("OBJ round trip changed the mesh")
	}
}

func TestReadOBJForms(t *testing.T) {
	src := `# a unit square pyramid
mtllib x.mtl
o pyramid
v 0 0 0
v 1 0 0 1.0
v 1 1 0 0.5 0.5 0.5
v 0 1 0
vt 0 0
vn 0 0 1
g base
s off
usemtl stone
f 1/1/1 4/1/1 3/1/1 2/1/1
v 0.5 0.5 1 # apex
f -5//1 -4//1 -1//1   # negative: relative to the 5 vertices so far
f 2/1 3/1 5/1
f 3 4 \
  5
f 4 1 5
l 1 2
`
	m, err := ReadOBJ(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	wantT := [][3]int{{0, 3, 2}, {0, 2, 1}, {0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}
	if len(m.Vertices) != 5 || !reflect.DeepEqual(m.Triangles, wantT) {
		t.Fatalf("got %d vertices, triangles %v, want 5, %v", len(m.Vertices), m.Triangles, wantT)
	}
	// The pyramid is closed: volume 1/3, centroid height 1/4.
	v, com, _, err := m.MassProperties(1)
	if err != nil || math.Abs(v-1.0/3) > 1e-15 || math.Abs(com[2]-0.25) > 1e-15 {
		t.Fatalf("pyramid volume %v com %v (%v), want 1/3, z 1/4", v, com, err)
	}
}

func binarySTL(n uint32, tris int) []byte {
	b := make([]byte, 84+50*tris)
	binary.LittleEndian.PutUint32(b[80:], n)
	return b
}

func TestCorruptFiles(t *testing.T) {
	nanTri := binarySTL(2, 2)
	binary.LittleEndian.PutUint32(nanTri[84+50+12+12+4:], math.Float32bits(float32(math.NaN())))
	asciiFacet := "facet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\n"
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"huge header count", "a.stl", binarySTL(0xFFFFFFFF, 1), "a.stl: binary STL: triangle 1 (byte 134): header declares 4294967295 triangles (214748364834 bytes) but the file has 134 bytes: truncated"},
		{"truncated binary", "a.stl", append(binarySTL(3, 2), make([]byte, 7)...), "triangle 2 (byte 184): header declares 3 triangles"},
		{"trailing bytes", "a.stl", append(binarySTL(1, 1), 1, 2, 3), "binary STL: byte 134: 3 bytes after the last of the 1 triangles"},
		{"NaN coordinate", "a.stl", nanTri, "triangle 1 (byte 162): vertex 1 coordinate 1 is NaN"},
		{"short file", "a.stl", []byte("hello"), "shorter than the 84-byte header"},
		{"bad ASCII number", "a.stl", []byte("solid x\n" + strings.Replace(asciiFacet, "vertex 1 0 0", "vertex 1 zero 0", 1) + "endsolid\n"), "a.stl: ASCII STL: line 5: vertex coordinate \"zero\" is not a finite number"},
		{"ASCII missing endloop", "a.stl", []byte("solid x\n" + strings.Replace(asciiFacet, "endloop\n", "", 1)), "line 7: expected \"endloop\", got \"endfacet\""},
		{"ASCII quad facet", "a.stl", []byte("solid x\n" + strings.Replace(asciiFacet, "endloop", "vertex 1 1 0\nendloop", 1)), "line 7: a facet with more than 3 vertices"},
		{"ASCII truncated", "a.stl", []byte("solid x\n" + asciiFacet[:30]), "line 3: unexpected end of file inside a facet"},
		{"ASCII no endsolid", "a.stl", []byte("solid x\n" + asciiFacet), "line 8: unexpected end of file: missing \"endsolid\""},
		{"ASCII Inf", "a.stl", []byte("solid x\n" + strings.Replace(asciiFacet, "vertex 0 1 0", "vertex 0 1 inf", 1) + "endsolid\n"), "line 6: vertex coordinate \"inf\""},
		{"OBJ index out of range", "b.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n"), "b.obj: OBJ: line 4: face vertex index 4 out of range: 3 vertices defined so far"},
		{"OBJ index zero", "b.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"), "line 4: face vertex index 0 out of range"},
		{"OBJ negative too far", "b.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf -1 -2 -4\n"), "line 5: face vertex index -4 out of range"},
		{"OBJ two corners", "b.obj", []byte("v 0 0 0\nv 1 0 0\nf 1 2\n"), "line 3: face needs at least 3 corners, got 2"},
		{"OBJ bad index", "b.obj", []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 x/2 3\n"), "line 4: face corner \"x/2\": vertex index is not an integer"},
		{"OBJ bad vertex", "b.obj", []byte("v 0 0\n"), "line 1: vertex needs 3 coordinates, got 2"},
		{"OBJ NaN vertex", "b.obj", []byte("# c\nv 0 NaN 0\n"), "line 2: vertex coordinate \"NaN\" is not a finite number"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		path := filepath.Join(dir, c.file)
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, mgl64.Vec3{1, 1, 1})
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.HasPrefix(msg, path+": ") || strings.Contains(msg, "\n") {
			t.Fatalf("%s: error %q is not one FormatError line starting with the path", c.name, msg)
		}
		if !strings.Contains(msg, c.want) {
			t.Fatalf("%s: error\n%q\ndoes not contain\n%q", c.name, msg, c.want)
		}
	}
}

func TestReadLimit(t *testing.T) {
	// The size limit, here 100 bytes: 101 bytes are refused before parsing.
	if _, err := readLimited(bytes.NewReader(make([]byte, 101)), "STL", 100); err == nil || err.Error() != "STL: file larger than 100 bytes (MaxFileBytes)" {
		t.Fatalf("over the limit: %v", err)
	}
	if data, err := readLimited(bytes.NewReader(make([]byte, 100)), "STL", 100); err != nil || len(data) != 100 {
		t.Fatalf("at the limit: %d bytes, %v", len(data), err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	m := cubeMesh()
	var obj, stl bytes.Buffer
	if err := WriteOBJ(&obj, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteSTL(&stl, m); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "c.OBJ"), obj.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "c.stl"), stl.Bytes(), 0o644)
	for _, name := range []string{"c.OBJ", "c.stl"} {
		// Scale (0.001, 0.002, 0.003), millimetres to metres and stretched:
		// the unit cube's volume becomes 6e-9 m³.
		got, err := Load(filepath.Join(dir, name), mgl64.Vec3{0.001, 0.002, 0.003})
		if err != nil {
			t.Fatal(err)
		}
		v, _, _, err := got.MassProperties(1)
		if err != nil || math.Abs(v-6e-9) > 1e-22 {
			t.Fatalf("%s: volume %v (%v), want 6e-9", name, v, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "c.ply"), mgl64.Vec3{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "c.ply: unknown mesh file extension") {
		t.Fatalf("unknown extension: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.stl"), mgl64.Vec3{1, 1, 1}); err == nil || !strings.Contains(err.Error(), "missing.stl") {
		t.Fatalf("missing file: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "c.stl"), mgl64.Vec3{1, math.NaN(), 1}); err == nil || !strings.Contains(err.Error(), "c.stl: mesh: scale[1]") {
		t.Fatalf("NaN scale: %v", err)
	}
}

func TestWriteInvalidMesh(t *testing.T) {
	bad := &Mesh{Vertices: []mgl64.Vec3{{}}, Triangles: [][3]int{{0, 0, 1}}}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"WriteSTL":      func(b *bytes.Buffer) error { return WriteSTL(b, bad) },
		"WriteSTLASCII": func(b *bytes.Buffer) error { return WriteSTLASCII(b, bad) },
		"WriteOBJ":      func(b *bytes.Buffer) error { return WriteOBJ(b, bad) },
	} {
		if err := write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "Triangles[0][2]") {
			t.Fatalf("%s of an invalid mesh: %v", name, err)
		}
	}
}
