package lcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// denseFile writes an n-row problem: A = n·I plus 0.1 where i + j is a
// multiple of 7, b alternating ±0.25, lo = 0, hi = +∞.
func denseFile(t *testing.T, n int) []byte {
	a := NewDense(n, n, nil)
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range n {
		for j := range n {
			if i == j {
				a.Set(i, j, float64(n))
			} else if (i+j)%7 == 0 {
				a.Set(i, j, 0.1)
			}
		}
		p.B[i] = 0.25 - 0.5*float64(i%2)
		p.Hi[i] = inf
	}
	var buf bytes.Buffer
	require.NoError(t, WriteProblem(&buf, p))
	return buf.Bytes()
}

// Issue 28: a dense 20 000-row MLCP took 11 GB before it was killed, and
// --timeout did not cover the reading. ReadProblemWith refuses a problem
// above MaxBytes as soon as its first row states the size, having read
// under 2 % of the file, and also when b comes first; a cancelled context
// stops it at a row; within the limit it reads what ReadProblem reads.
func TestReadProblemWithLimits(t *testing.T) {
	const n = 1500
	data := denseFile(t, n)
	want, err := ReadProblem(bytes.NewReader(data))
	require.NoError(t, err)

	cr := &countingReader{r: bytes.NewReader(data)}
	_, _, err = ReadProblemWith(cr, ReadLimits{MaxBytes: DenseProblemBytes(n) - 1})
	var me *MemoryError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, MemoryError{N: n, Bytes: DenseProblemBytes(n), Limit: DenseProblemBytes(n) - 1}, *me)
	assert.Less(t, cr.n, int64(len(data))/50, "read %d of %d bytes", cr.n, len(data))
	assert.Contains(t, err.Error(), "a dense 1500-row problem needs about 72.1 MiB to read and solve, more than the limit of 72.1 MiB")

	// b first: refused before A is read at all.
	i := bytes.Index(data, []byte(`"b":`))
	reordered := append([]byte(`{`), data[i:len(data)-2]...)
	reordered = append(reordered, ',')
	reordered = append(reordered, data[1:i]...)
	reordered = append(bytes.TrimSuffix(reordered, []byte(",")), '}')
	got, _, err := ReadProblemWith(bytes.NewReader(reordered), ReadLimits{})
	require.NoError(t, err, "the reordered file is valid")
	assert.Equal(t, want, got)
	cr = &countingReader{r: bytes.NewReader(reordered)}
	_, _, err = ReadProblemWith(cr, ReadLimits{MaxBytes: 1 << 20})
	require.ErrorAs(t, err, &me)
	assert.Less(t, cr.n, int64(len(data))/50)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = ReadProblemWith(bytes.NewReader(data), ReadLimits{Context: ctx})
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.EqualError(t, err, "reading stopped at row 0 of A: context canceled")

	got, ignored, err := ReadProblemWith(bytes.NewReader(data), ReadLimits{MaxBytes: DenseProblemBytes(n), Context: context.Background()})
	require.NoError(t, err)
	assert.Empty(t, ignored)
	assert.Equal(t, want, got)
}

// A's other shapes keep ReadProblem's errors: a scalar, null, a string
// or an object for A, rows of unequal length, "inf" entries read as ±Inf
// (then refused by Validate), and rows beyond the limit when A has more
// rows than columns.
func TestReadProblemRowsErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"A": 3, "b": [1], "lo": [0], "hi": [1]}`, "A: want an array of rows (arrays of numbers), got 3"},
		{`{"A": null, "b": [1], "lo": [0], "hi": [1]}`, "A: want an array of rows (arrays of numbers), got null"},
		{`{"A": "x", "b": [1], "lo": [0], "hi": [1]}`, `A: want an array of rows (arrays of numbers), got "x"`},
		{`{"A": {"a": [1]}, "b": [1], "lo": [0], "hi": [1]}`, "A: want an array of rows (arrays of numbers), got an object"},
		{`{"A": [[1, "inf"], [1, 1]], "b": [1, 1], "lo": [0, 0], "hi": [1, 1]}`, "A[0][1]: must be finite, got +Inf"},
		{`{"A": [[1], [2], [3]], "b": [1], "lo": [0], "hi": [1]}`, "A: not square: 3×1"},
		{`{"A": [[1, 2], [3, 4]`, "A: malformed JSON: unexpected end of input (the object is not closed)"},
	} {
		_, err := ReadProblem(strings.NewReader(c.in))
		assert.EqualError(t, err, c.want, c.in)
	}
	// One column and rows without end: refused once they pass the limit.
	lim := DenseProblemBytes(1)
	tall := `{"A": [` + strings.Repeat("[1], ", int(lim/8)+10) + `[1]], "b": [1], "lo": [0], "hi": [1]}`
	_, _, err := ReadProblemWith(strings.NewReader(tall), ReadLimits{MaxBytes: lim})
	assert.EqualError(t, err, fmt.Sprintf("A: has more than %d rows of 1 entries, beyond the memory limit of 2 MiB", lim/8))
}
