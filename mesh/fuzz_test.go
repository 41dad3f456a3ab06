package mesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func seedFiles(tb testing.TB) (stlBin, stlASCII, obj []byte) {
	m := cubeMesh()
	var a, b, c bytes.Buffer
	if err := WriteSTL(&a, m); err != nil {
		tb.Fatal(err)
	}
	if err := WriteSTLASCII(&b, m); err != nil {
		tb.Fatal(err)
	}
	if err := WriteOBJ(&c, m); err != nil {
		tb.Fatal(err)
	}
	return a.Bytes(), b.Bytes(), c.Bytes()
}

// FuzzReadSTL: no input panics; what reads is valid and survives an
// ASCII round trip unchanged.
func FuzzReadSTL(f *testing.F) {
	bin, ascii, _ := seedFiles(f)
	f.Add(bin)
	f.Add(ascii)
	f.Add(bin[:100])
	f.Add([]byte("solid\nendsolid\n"))
	f.Add([]byte("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, back := roundTrip(t, data, ReadSTL, WriteSTLASCII)
		if m == nil {
			return
		}
		if !reflect.DeepEqual(corners(back), corners(m)) {
			t.Fatal("ASCII STL round trip changed the mesh")
		}
		m.MassProperties(1) // must not panic, whatever it answers
	})
}

// roundTrip reads data; an error must be one FormatError line (nil, nil
// returned). Otherwise the mesh must be valid, and it is written and read
// back.
func roundTrip(t *testing.T, data []byte, read func(io.Reader) (*Mesh, error), write func(io.Writer, *Mesh) error) (m, back *Mesh) {
	m, err := read(bytes.NewReader(data))
	if err != nil {
		var fe *FormatError
		if !errors.As(err, &fe) || bytes.ContainsRune([]byte(err.Error()), '\n') {
			t.Fatalf("error %q is not one FormatError line", err)
		}
		return nil, nil
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := write(&buf, m); err != nil {
		t.Fatal(err)
	}
	if back, err = read(&buf); err != nil {
		t.Fatal(err)
	}
	return m, back
}

// FuzzReadOBJ: no input panics; what reads is valid and survives a round
// trip unchanged.
func FuzzReadOBJ(f *testing.F) {
	_, _, obj := seedFiles(f)
	f.Add(obj)
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1 -2//3 3/4\n"))
	f.Add([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 1\nf 1 2 3 4 \\\n 1\n# c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, back := roundTrip(t, data, ReadOBJ, WriteOBJ)
		if m != nil && !reflect.DeepEqual(back, m) {
			t.Fatal("OBJ round trip changed the mesh")
		}
	})
}

// fuzzPoints decodes data as points: after a first byte with an even
// value, 3 signed bytes per point on a grid of step 1/8 (rich in
// coincident, collinear and coplanar sets); after an odd one, 3 float64
// per point (any magnitude, NaN and Inf).
func fuzzPoints(data []byte) []mgl64.Vec3 {
	if len(data) == 0 {
		return nil
	}
	mode, data := data[0], data[1:]
	var pts []mgl64.Vec3
	if mode%2 == 0 {
		for i := 0; i+3 <= len(data) && len(pts) < 400; i += 3 {
			pts = append(pts, mgl64.Vec3{float64(int8(data[i])) / 8, float64(int8(data[i+1])) / 8, float64(int8(data[i+2])) / 8})
		}
		return pts
	}
	for i := 0; i+24 <= len(data) && len(pts) < 400; i += 24 {
		var v mgl64.Vec3
		for k := 0; k < 3; k++ {
			v[k] = math.Float64frombits(binary.LittleEndian.Uint64(data[i+8*k:]))
		}
		pts = append(pts, v)
	}
	return pts
}

// FuzzHull: no point set panics; every hull built passes checkHull
// (Euler's formula, two faces per edge, convex planar faces, every input
// point inside within tol).
func FuzzHull(f *testing.F) {
	cube := []byte{0}
	for _, p := range boxCorners(mgl64.Vec3{}, mgl64.Vec3{2, 2, 2}) {
		cube = append(cube, byte(int8(p[0]*8)), byte(int8(p[1]*8)), byte(int8(p[2]*8)))
	}
	f.Add(cube, 0.0)
	f.Add(append(cube, 0, 0, 0, 8, 8, 0, 0, 8, 8, 4, 4, 4), 0.01)
	f.Add([]byte{0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}, 0.0)
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 5, 5, 5}, 0.0)
	rnd := []byte{1}
	for _, p := range ballPoints(30, 5) {
		for k := 0; k < 3; k++ {
			rnd = binary.LittleEndian.AppendUint64(rnd, math.Float64bits(p[k]))
		}
	}
	f.Add(rnd, 0.0)
	f.Fuzz(func(t *testing.T, data []byte, tol float64) {
		pts := fuzzPoints(data)
		h, err := NewHull(pts, tol)
		if err != nil {
			// On the 1/8 grid, features are far above any tol below 1/64:
			// rounding must not defeat the construction there.
			if errors.Is(err, ErrNumerical) && data[0]%2 == 0 && tol < 1.0/64 {
				t.Fatalf("grid points, tol %g: %v", tol, err)
			}
			return
		}
		checkHull(t, h, pts)
		// Tol is raised at most to 3 times the tolerance asked for (merged
		// faces) plus 1e-9 of the extent (sliver normals' rounding).
		var ext float64
		for _, p := range pts {
			ext = max(ext, math.Abs(p[0]), math.Abs(p[1]), math.Abs(p[2]))
		}
		if asked := max(tol, DefaultTol(pts)); h.Tol > (3*asked+1e-9*ext)*(1+1e-15) {
			t.Fatalf("Tol %.3g for %.3g asked, extent %.3g", h.Tol, asked, ext)
		}
		// Mass properties exist unless the fifth powers of the extent
		// leave float64's range.
		var big float64
		for _, v := range h.Vertices {
			big = max(big, math.Abs(v[0]), math.Abs(v[1]), math.Abs(v[2]))
		}
		if _, _, _, err := h.MassProperties(1); err != nil && big > 1e-50 && big < 1e50 {
			t.Fatal(err)
		}
	})
}
