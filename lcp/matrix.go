package lcp

import (
	"fmt"
	"math"
)

// Matrix is the lead matrix A of Eq. (2). It is an interface so that a
// block-sparse symmetric matrix can replace the dense one without changing
// the solvers' callers (sparse LDLᵀ for large block-sparse problems).
//
// Dense and Sparse implement it. Implementations must be safe for
// concurrent reads.
type Matrix interface {
	// Dims returns the number of rows and columns.
	Dims() (r, c int)
	// At returns A[i][j].
	At(i, j int) float64
	// MulVecTo sets dst = A x. len(dst) = rows, len(x) = columns.
	MulVecTo(dst, x []float64)
	// RowDot returns (A x)_i.
	RowDot(i int, x []float64) float64
}

// Dense is a dense row-major matrix. Its zero value is an empty 0×0 matrix.
type Dense struct {
	r, c int
	data []float64
	// exact is set by Sparse.DenseSubmatrix when every entry is a copy of
	// a finished Sparse whose entries are all finite: the block is then
	// finite and exactly symmetric, which Problem.Validate and BPP's
	// symmetry test take without reading it again. Every method through
	// which a caller can write the entries (Set, Add, Reset, Row,
	// RawData) clears it.
	exact bool
}

var _ Matrix = (*Dense)(nil)

// NewDense returns an r×c matrix backed by data (row-major, len r·c), which it
// keeps. With data == nil it allocates a zero matrix. It panics if r or c is
// negative or len(data) != r·c, as these are programming errors; user data
// goes through DenseFromRows, which returns errors.
func NewDense(r, c int, data []float64) *Dense {
	if r < 0 || c < 0 {
		panic("lcp: negative dimension")
	}
	if data == nil {
		data = make([]float64, r*c)
	}
	if len(data) != r*c {
		panic("lcp: data length does not match dimensions")
	}
	return &Dense{r: r, c: c, data: data}
}

// DenseFromRows copies rows into a new matrix. Every row must have the same
// length; the error names the first row that does not.
func DenseFromRows(rows [][]float64) (*Dense, error) {
	r := len(rows)
	c := 0
	if r > 0 {
		c = len(rows[0])
	}
	d := NewDense(r, c, nil)
	for i, row := range rows {
		if len(row) != c {
			return nil, fmt.Errorf("A[%d]: has %d entries, row 0 has %d", i, len(row), c)
		}
		copy(d.data[i*c:(i+1)*c], row)
	}
	return d, nil
}

// Reset resizes d to r×c, reusing its storage where it can, and zeroes it.
func (d *Dense) Reset(r, c int) {
	if cap(d.data) < r*c {
		d.data = make([]float64, r*c)
	}
	d.r, d.c, d.data, d.exact = r, c, d.data[:r*c], false
	clear(d.data)
}

// Dims returns the number of rows and columns.
func (d *Dense) Dims() (r, c int) { return d.r, d.c }

// At returns d[i][j].
func (d *Dense) At(i, j int) float64 { return d.data[i*d.c+j] }

// Set sets d[i][j] = v.
func (d *Dense) Set(i, j int, v float64) { d.data[i*d.c+j], d.exact = v, false }

// Add adds v to d[i][j].
func (d *Dense) Add(i, j int, v float64) {
	d.data[i*d.c+j] += v
	d.exact = false
}

// Row returns row i as a view into d's storage. A view taken before a
// later Sparse.DenseSubmatrix into d must not be written after it.
func (d *Dense) Row(i int) []float64 {
	d.exact = false
	return d.data[i*d.c : (i+1)*d.c]
}

// RawData returns the row-major backing slice. A slice taken before a
// later Sparse.DenseSubmatrix into d must not be written after it.
func (d *Dense) RawData() []float64 {
	d.exact = false
	return d.data
}

// MulVecTo sets dst = d x: each entry is dot's sum of its row, with
// dot's bits, four products per pass.
func (d *Dense) MulVecTo(dst, x []float64) {
	c := d.c
	x = x[:c]
	dst = dst[:d.r]
	data := d.data[:len(dst)*c]
	for i := range dst {
		row := data[:len(x)]
		data = data[c:]
		var s0, s1 float64
		k := 0
		for ; k < len(row)-3; k += 4 {
			s0 += row[k] * x[k]
			s1 += row[k+1] * x[k+1]
			s0 += row[k+2] * x[k+2]
			s1 += row[k+3] * x[k+3]
		}
		if k < len(row)-1 {
			s0 += row[k] * x[k]
			s1 += row[k+1] * x[k+1]
			k += 2
		}
		if k < len(row) {
			s0 += row[k] * x[k]
		}
		dst[i] = s0 + s1
	}
}

// RowDot returns (d x)_i.
func (d *Dense) RowDot(i int, x []float64) float64 {
	return dot(d.data[i*d.c:(i+1)*d.c], x)
}

// Rows returns a copy of d as a slice of rows (the JSON layout).
func (d *Dense) Rows() [][]float64 {
	out := make([][]float64, d.r)
	for i := range out {
		out[i] = append([]float64(nil), d.Row(i)...)
	}
	return out
}

func dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1 float64
	i := 0
	for ; i+1 < len(a); i += 2 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
	}
	if i < len(a) {
		s0 += a[i] * b[i]
	}
	return s0 + s1
}

// isSymmetric reports whether A equals its transpose to a relative tolerance
// of tol, relative to the entries and to √|a_ii a_jj| (so that two
// rounding-level entries of opposite sign still count as symmetric).
//
// A *Sparse is symmetric by construction (Sparse.Add writes both triangles
// with the same sum), which this reports in O(1).
func isSymmetric(a Matrix, tol float64) bool {
	if _, ok := a.(*Sparse); ok {
		return true
	}
	n, c := a.Dims()
	if n != c {
		return false
	}
	if d, ok := a.(*Dense); ok {
		return d.exact || d.symmetric(tol)
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			x, y := a.At(i, j), a.At(j, i)
			scale := math.Abs(x) + math.Abs(y) + math.Sqrt(math.Abs(a.At(i, i)*a.At(j, j)))
			if math.Abs(x-y) > tol*scale {
				return false
			}
		}
	}
	return true
}

// symmetric is isSymmetric of a square d, the same comparisons on its
// stored rows without an interface call per entry (a time stepper asks it
// of every small island's block at every step).
func (d *Dense) symmetric(tol float64) bool {
	n, a := d.r, d.data
	for i := 0; i < n; i++ {
		row := a[i*n : (i+1)*n]
		aii := row[i]
		for j := i + 1; j < n; j++ {
			x, y := row[j], a[j*n+i]
			if x == y {
				continue // |x − y| = 0 passes (a NaN scale fails no test)
			}
			scale := math.Abs(x) + math.Abs(y) + math.Sqrt(math.Abs(aii*a[j*n+j]))
			if math.Abs(x-y) > tol*scale {
				return false
			}
		}
	}
	return true
}
