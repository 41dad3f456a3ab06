package lcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// siconosDense writes M as Siconos' printInFile writes a dense
// NumericsMatrix: storage 0, rows, columns, "rows\tcolumns", then the
// column-major entries, a line per column.
func siconosDense(m [][]float64) string {
	n := len(m)
	var b strings.Builder
	fmt.Fprintf(&b, "0\n%d\n%d\n%d\t%d\n", n, n, n, n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "%32.24e ", m[i][j])
		}
		b.WriteString("\n")
	}
	return b.String()
}

func vecLine(q []float64) string {
	var b strings.Builder
	for _, v := range q {
		fmt.Fprintf(&b, "%32.24e ", v)
	}
	return b.String()
}

// TestReadSiconosLCP: a non-symmetric M written column-major as Siconos
// does comes back as M (not Mᵀ), q as q, lo = 0, hi = +∞; remarks after q
// are ignored as Siconos' reader ignores them. The matrix is that of
// lcp_CPS_4.dat (the collection's siconos-cps-4).
func TestReadSiconosLCP(t *testing.T) {
	m := [][]float64{{11, 0, 10, -1}, {0, 11, 10, -1}, {10, 10, 21, -1}, {1, 1, 1, 0}}
	q := []float64{50, 50, 10, -6}
	text := "4\n" + siconosDense(m) + vecLine(q) + "\n\nRemark: a QP's KKT system\n"
	p, ignored, err := ReadProblemFormat(strings.NewReader(text), FormatSiconosLCP, ReadLimits{})
	require.NoError(t, err)
	assert.Nil(t, ignored)
	want := std(m, q)
	assert.Equal(t, want, p)
}

// TestReadSiconosMLCP: the block types make rows free (0) or
// complementarity rows (1); the storage-2 blocks after q are ignored. The
// problem is the collection's siconos-relay2-mlcp, whose solution by hand is
// x = (10, −1.4, 0, −0.014, 9.999, 3).
func TestReadSiconosMLCP(t *testing.T) {
	var relay entry
	for _, e := range wideCollection() {
		if e.Name == "siconos-relay2-mlcp" {
			relay = e
		}
	}
	require.NotNil(t, relay.P)
	m := relay.P.A.(*Dense).Rows()
	text := "1\n1\n4\n2\n0 4 6 \n0 1 \n" + siconosDense(m) + vecLine(relay.P.B) + "\n 1 2 3 (storage-2 blocks, ignored)\n"
	p, _, err := ReadProblemFormat(strings.NewReader(text), FormatSiconosMLCP, ReadLimits{})
	require.NoError(t, err)
	assert.Equal(t, relay.P, p)
	var r Result
	require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{}))
	for i, v := range relay.X {
		assert.InDelta(t, v, r.X[i], 1e-12, "x[%d]", i) // 1e-12: a few pivots on numbers of size 10
	}
}

// TestReadMQ: rows of M then q, any of space, tab, comma; comments and
// blank lines skipped.
func TestReadMQ(t *testing.T) {
	p, _, err := ReadProblemFormat(strings.NewReader("# lemke-2x2\n2, 1\n\n1\t2\n-5 -6\n"), FormatMQ, ReadLimits{})
	require.NoError(t, err)
	assert.Equal(t, std([][]float64{{2, 1}, {1, 2}}, []float64{-5, -6}), p)
}

// TestReadTextFormatsErrors: every malformed file is an error naming the
// field and, where there is one, the line and the text; none panics.
func TestReadTextFormatsErrors(t *testing.T) {
	good := "2\n" + siconosDense([][]float64{{1, 2}, {3, 4}}) + "-1 -1\n"
	cases := []struct {
		format, text, want string
	}{
		{FormatSiconosLCP, "", "size n: missing"},
		{FormatSiconosLCP, "-2\n", `size n (line 1): want a non-negative integer, got "-2"`},
		{FormatSiconosLCP, "0\n", "0 rows"},
		{FormatSiconosLCP, "2\n1\n2\n2\n1\n1\n", "only dense storage (0) is read, got 1"},
		{FormatSiconosLCP, "2\n0\n3\n2\n3\t2\n", "M: is 3×2, want 2×2"},
		{FormatSiconosLCP, "2\n0\n2\n2\n2\t3\n", "the dense header 2×3"},
		{FormatSiconosLCP, "2\n0\n2\n2\n2\t2\n1 x 3 4\n", `M[1][0] (stored column-major) (line 6): want a number, got "x"`},
		{FormatSiconosLCP, strings.TrimSuffix(good, "-1 -1\n") + "-1\n", "q[1]: missing (the file ends at line 8)"},
		{FormatSiconosLCP, "2\n0\n2\n2\n2\t2\n1 nan 3 4 -1 -1\n", "A[1][0]"},
		{FormatSiconosLCP, "99999999\n", "too large"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 1 3\n", "block start 2 (line 5): beyond n + m = 2, got 3"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n1 2\n", "block start 0 (line 5): want 0, got 1"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 1 1\n", "block start 2 (line 5): want more than 1, got 1"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 2\n2\n", "block 0 type (line 6): want 0 (equations) or 1 (complementarity), got 2"},
		{FormatSiconosMLCP, "0\n1\n1\n1\n", "only files with the whole matrix M (storage 1) are read"},
		{FormatSiconosMLCP, "1\n3\n1\n1\n", "storage-2 flag (line 2): want 0 or 1, got 3"},
		// A Siconos LCP file read as an MLCP: its size, then M's storage 0.
		{FormatSiconosMLCP, "2\n" + siconosDense([][]float64{{1, 2}, {3, 4}}) + "-1 -1\n", "storage-1 flag (line 1): want 0 or 1, got 2; a file that begins with its size and then 0 (M's dense storage) is a Siconos LCP file: read it in the format siconos-lcp"},
		// n = 1 equation, but the blocks make both rows complementarity
		// rows (type 1), or both equations.
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 2\n1\n", "block types (line 6): the equation blocks (type 0) hold 0 rows, n (equations) is 1"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 1 2\n0 0\n", "block types (line 6): the equation blocks (type 0) hold 2 rows, n (equations) is 1"},
		{FormatSiconosMLCP, "1\n0\n1\n1\n0 1 2\n0 1\n0\n3\n2\n3\t2\n", "M: is 3×2, want 2×2"},
		{FormatMQ, "", "M: missing"},
		{FormatMQ, "1 2\n3\n", "line 2: has 1 numbers, the first row of M has 2"},
		{FormatMQ, "1 2\n3 4\n", "q: missing"},
		{FormatMQ, "1 2\n3 4\n5 6\n7 8\n", "line 4: more than the 2 rows of M and the row of q"},
		{FormatMQ, "1 2\n3 4\n5 y\n", `q[1] (line 3): want a number, got "y"`},
		{"csv", "", `format "csv": want one of json, siconos-lcp, siconos-mlcp, mq`},
	}
	for _, c := range cases {
		_, _, err := ReadProblemFormat(strings.NewReader(c.text), c.format, ReadLimits{})
		if assert.Error(t, err, "%s %q", c.format, c.text) {
			assert.Contains(t, err.Error(), c.want, "%s %q", c.format, c.text)
		}
	}
	// Every prefix of a good file is an error or a problem, never a panic.
	for k := range len(good) {
		_, _, _ = ReadProblemFormat(strings.NewReader(good[:k]), FormatSiconosLCP, ReadLimits{})
	}
}

// TestReadTextFormatsLimits: a stated size above MaxBytes is refused
// before anything of that size is allocated; a done context stops the
// reading.
func TestReadTextFormatsLimits(t *testing.T) {
	_, _, err := ReadProblemFormat(strings.NewReader("50000\n0\n50000\n50000\n"), FormatSiconosLCP, ReadLimits{MaxBytes: 1 << 20})
	var me *MemoryError
	require.True(t, errors.As(err, &me), "%v", err)
	assert.Equal(t, 50000, me.N)
	_, _, err = ReadProblemFormat(strings.NewReader("1\n1\n20000\n20000\n"), FormatSiconosMLCP, ReadLimits{MaxBytes: 1 << 20})
	require.True(t, errors.As(err, &me), "%v", err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = ReadProblemFormat(strings.NewReader("2\n"+siconosDense([][]float64{{1, 0}, {0, 1}})+"1 1\n"), FormatSiconosLCP, ReadLimits{Context: ctx})
	assert.ErrorIs(t, err, context.Canceled)
	_, _, err = ReadProblemFormat(strings.NewReader("1 0\n0 1\n1 1\n"), FormatMQ, ReadLimits{Context: ctx})
	assert.ErrorIs(t, err, context.Canceled)
	// A bound at ±1e400 overflows to ±Inf: Validate names it.
	_, _, err = ReadProblemFormat(strings.NewReader("1\n1e400\n"), FormatMQ, ReadLimits{})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "A[0][0]") || strings.Contains(err.Error(), fmt.Sprint(math.Inf(1))), err.Error())
}

// TestReadStatedSizeUnlimited: without ReadLimits.MaxBytes (the Go API's
// default) a file that states a size it does not hold is an error, and the
// memory taken grows with the numbers the file holds, not with the size it
// states. Before, the Siconos reader allocated the stated n² entries
// before reading them: n = 2²⁶ panicked (makeslice: len out of range) and
// n = 40 000 asked for 12.8 GB for a 40-byte file; the JSON reader did the
// same with the length of A's first row (10⁵ zeros, 200 kB: 80 GB).
func TestReadStatedSizeUnlimited(t *testing.T) {
	row := strings.Repeat("0,", 99999) + "0"
	cases := []struct {
		name, format, text, want string
	}{
		{"siconos-lcp n=2^26", FormatSiconosLCP, "67108864\n0\n67108864\n67108864\n67108864\t67108864\n1 2\n", "M[2][0] (stored column-major): missing"},
		{"siconos-lcp n=40000", FormatSiconosLCP, "40000\n0\n40000\n40000\n40000\t40000\n1 2 3\n", "M[3][0] (stored column-major): missing"},
		{"siconos-mlcp n+m=40000", FormatSiconosMLCP, "1\n0\n20000\n20000\n0 20000 40000\n0 1\n0\n40000\n40000\n40000\t40000\n1\n", "M[1][0] (stored column-major): missing"},
		{"json first row 10^5", FormatJSON, `{"A": [[` + row + `]`, "A"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := ReadProblemFormat(strings.NewReader(c.text), c.format, ReadLimits{})
			runtime.ReadMemStats(&after)
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), c.want)
			}
			// 64 MB: the readers' buffers (a 64 kB scanner buffer, the
			// JSON row of 10⁵ numbers, 0.8 MB, and its decoding) with
			// room to spare, 200 times below the smallest stated size.
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
		})
	}
}

// FuzzReadProblemFormat: no input makes a text reader panic, and a problem
// it returns is valid (ReadProblemFormat validates it) and square.
func FuzzReadProblemFormat(f *testing.F) {
	f.Add(FormatMQ, "# lemke-2x2\n2, 1\n\n1\t2\n-5 -6\n")
	f.Add(FormatSiconosLCP, "2\n"+siconosDense([][]float64{{1, 2}, {3, 4}})+"-1 -1\n")
	f.Add(FormatSiconosMLCP, "1\n1\n1\n1\n0 1 2\n0 1\n"+siconosDense([][]float64{{2, -1}, {-1, 2}})+"-1 -1\n")
	f.Add(FormatSiconosLCP, "67108864\n0\n67108864\n67108864\n67108864\t67108864\n1 2\n")
	f.Fuzz(func(t *testing.T, format, in string) {
		p, _, err := ReadProblemFormat(strings.NewReader(in), format, ReadLimits{MaxBytes: 64 << 20})
		if err != nil {
			return
		}
		if r, c := p.A.Dims(); r != c || r != len(p.B) {
			t.Fatalf("A is %d×%d with %d entries of b", r, c, len(p.B))
		}
	})
}

// endless is a line without end: "0 0 0 …" and no newline.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = "0 "[i%2]
	}
	e.n += int64(len(p))
	return len(p), nil
}

// TestReadTextLineBound: a line without end stops at the bound that
// ReadLimits.MaxBytes gives the text readers (before, the scanner grew to
// 1 GiB whatever the limit), with an error naming the line, the bound and
// the limit; and the bound holds a column of the largest problem the
// limit admits as Siconos writes it (%32.24e and a space: 33 bytes a
// number), so no file within the limit is refused for its lines.
func TestReadTextLineBound(t *testing.T) {
	for _, format := range []string{FormatSiconosLCP, FormatMQ} {
		e := &endless{}
		_, _, err := ReadProblemFormat(e, format, ReadLimits{MaxBytes: 2 << 30})
		require.Error(t, err, format)
		// 2 GiB admits n = 8 192 rows: 64 bytes a number, 8 193 numbers.
		assert.Contains(t, err.Error(), "line 1: longer than 512 KiB, the most a row of a problem within the memory limit of 2 GiB holds (64 bytes a number)", format)
		// The scanner reads in chunks that at most double: it stops
		// within twice the bound, far below 1 GiB.
		assert.LessOrEqual(t, e.n, int64(2*maxLine(ReadLimits{MaxBytes: 2 << 30})), format)
	}
	for _, n := range []int{1, 10, 100, 1000, 2000, 8192, 20000} {
		lim := ReadLimits{MaxBytes: DenseProblemBytes(n)}
		assert.GreaterOrEqual(t, maxLine(lim), 33*n, "n = %d", n)
	}
	assert.Equal(t, 1<<30, maxLine(ReadLimits{}), "no limit: the bound of 1 GiB as before")
}
