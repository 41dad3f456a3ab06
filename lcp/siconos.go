package lcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/internal/num"
)

// Text formats other tools write, read into a Problem: the standard LCP
// w = M z + q, 0 ≤ z ⊥ w ≥ 0 is the boxed problem A = M, b = q, lo = 0,
// hi = +∞ (docs/formats.md).
const (
	// FormatJSON is gorigid's interchange format (ReadProblem).
	FormatJSON = "json"
	// FormatSiconosLCP is Siconos numerics' LCP file (the files of its
	// LCP test collection, linearComplementarity_printInFile): the size n,
	// the matrix M as a NumericsMatrix (storage type, rows, columns, then
	// for dense storage a line "rows columns" and the n² entries of M
	// column-major: each line of the file is a column of M), then q.
	// Only dense storage (type 0) is read. Text after q (remarks) is
	// ignored, as Siconos' reader does.
	FormatSiconosLCP = "siconos-lcp"
	// FormatSiconosMLCP is Siconos numerics' MLCP file
	// (mixedLinearComplementarity_printInFile): two flags (storage 1, the
	// whole M; storage 2, the blocks A, B, C, D), n and m, then for
	// storage 1 the block starts (rows where a block begins, ending with
	// n + m), one type per block (0: equations, the rows are free; 1:
	// complementarity, 0 ≤ z ⊥ w ≥ 0), M as a dense NumericsMatrix and q.
	// Only files with storage 1 are read; the storage-2 blocks that may
	// follow are ignored.
	FormatSiconosMLCP = "siconos-mlcp"
	// FormatMQ is a plain text LCP: the n rows of M, one row a line, then
	// the line of q, numbers separated by spaces, tabs or commas; blank
	// lines and lines starting with # are skipped. n is the count of the
	// first row.
	FormatMQ = "mq"
)

// Formats lists the problem formats ReadProblemFormat reads.
func Formats() []string {
	return []string{FormatJSON, FormatSiconosLCP, FormatSiconosMLCP, FormatMQ}
}

// ReadProblemFormat reads a problem in the named format (Formats) within
// lim. For FormatJSON it is ReadProblemWith; the text formats have no
// ignored keys (nil). Errors name the line and the field (M[i][j], q[i],
// a header entry) and the offending text; a stated size above
// lim.MaxBytes is a *MemoryError before anything is allocated for it, and
// a line longer than a row of the largest problem lim.MaxBytes admits
// (64 bytes a number, at least 64 KiB) is an error when it is read.
func ReadProblemFormat(r io.Reader, format string, lim ReadLimits) (*Problem, []string, error) {
	var p *Problem
	var err error
	switch format {
	case FormatJSON, "":
		return ReadProblemWith(r, lim)
	case FormatSiconosLCP:
		p, err = readSiconosLCP(newTokens(r, lim))
	case FormatSiconosMLCP:
		p, err = readSiconosMLCP(newTokens(r, lim))
	case FormatMQ:
		p, err = readMQ(r, lim)
	default:
		return nil, nil, fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats(), ", "))
	}
	if err != nil {
		return nil, nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, nil, err
	}
	return p, nil, nil
}

// tokens reads whitespace-separated words and knows their line.
type tokens struct {
	sc     *bufio.Scanner
	lim    ReadLimits
	fields []string
	line   int
	err    error
}

func newTokens(r io.Reader, lim ReadLimits) *tokens {
	return &tokens{sc: newLineScanner(r, lim), lim: lim}
}

// maxNumberText is the most bytes a line of the text formats may spend on
// one number, separators and padding included: Siconos writes %32.24e and
// a space (33 bytes), a shortest round-trip float takes at most 24.
const maxNumberText = 64

// maxLine is the longest line the text readers take within lim: a line
// holds at most a row (or column) of the largest problem lim.MaxBytes
// admits, maxNumberText bytes a number, and at least 64 KiB; 1 GiB
// without a limit. The scanner's buffer, which grows to the longest line,
// then stays a small part of the limit (512 KiB at MaxBytes = 2 GiB,
// 8 192 rows) instead of growing to 1 GiB on a line without end.
func maxLine(lim ReadLimits) int {
	if lim.MaxBytes <= 0 {
		return 1 << 30
	}
	n := int(math.Sqrt(float64(lim.MaxBytes)/32)) + 1 // DenseProblemBytes(n) ≥ 32 n²
	return min(max(64<<10, maxNumberText*n), 1<<30)
}

// newLineScanner scans the lines of r, each at most maxLine(lim) bytes.
func newLineScanner(r io.Reader, lim ReadLimits) *bufio.Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine(lim))
	return sc
}

// scanError is the error of a scanner stopped after line lines: a line
// too long names it and the bound.
func scanError(err error, line int, lim ReadLimits) error {
	if !errors.Is(err, bufio.ErrTooLong) {
		return err
	}
	why := "the readers' bound"
	if lim.MaxBytes > 0 {
		why = fmt.Sprintf("the most a row of a problem within the memory limit of %s holds (%d bytes a number)", num.FormatBytes(lim.MaxBytes), maxNumberText)
	}
	return fmt.Errorf("line %d: longer than %s, %s", line+1, num.FormatBytes(int64(maxLine(lim))), why)
}

// next returns the next word, or "" at the end of the input (t.err set if
// reading failed).
func (t *tokens) next() string {
	for len(t.fields) == 0 {
		if !t.sc.Scan() {
			if err := t.sc.Err(); err != nil {
				t.err = scanError(err, t.line, t.lim)
			}
			return ""
		}
		t.line++
		t.fields = strings.Fields(t.sc.Text())
	}
	w := t.fields[0]
	t.fields = t.fields[1:]
	return w
}

// where names the current line for an error.
func (t *tokens) where() string { return fmt.Sprintf("line %d", t.line) }

// missing is the error for the end of the input where what was wanted.
func (t *tokens) missing(what string) error {
	if t.err != nil {
		return fmt.Errorf("%s: %v", what, t.err)
	}
	return fmt.Errorf("%s: missing (the file ends at line %d)", what, t.line)
}

// int reads a non-negative integer header entry.
func (t *tokens) int(what string) (int, error) {
	w := t.next()
	if w == "" {
		return 0, t.missing(what)
	}
	v, err := strconv.Atoi(w)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s (%s): want a non-negative integer, got %q", what, t.where(), abbrev([]byte(w)))
	}
	return v, nil
}

// float reads one number.
func (t *tokens) float(what func() string) (float64, error) {
	w := t.next()
	if w == "" {
		return 0, t.missing(what())
	}
	v, err := strconv.ParseFloat(w, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf or 0, for Validate to judge
		return 0, fmt.Errorf("%s (%s): want a number, got %q", what(), t.where(), abbrev([]byte(w)))
	}
	return v, nil
}

// checkSize refuses a stated size n of an n×n problem above the limits
// before anything of that size is allocated.
func (t *tokens) checkSize(n int) error {
	if n == 0 {
		return errors.New("the problem has 0 rows")
	}
	if n > 1<<26 { // n² entries must fit an int; far beyond any memory
		return fmt.Errorf("%d rows: too large", n)
	}
	if t.lim.MaxBytes > 0 {
		if b := DenseProblemBytes(n); b > t.lim.MaxBytes {
			return &MemoryError{N: n, Bytes: b, Limit: t.lim.MaxBytes}
		}
	}
	return nil
}

// denseMatrix reads a Siconos NumericsMatrix in dense storage: storage
// type, rows, columns, the line "rows columns", then the rows. want is the
// size the file stated before.
func (t *tokens) denseMatrix(name string, want int) (*Dense, error) {
	st, err := t.int(name + " storage type")
	if err != nil {
		return nil, err
	}
	if st != 0 {
		return nil, fmt.Errorf("%s storage type (%s): only dense storage (0) is read, got %d (1 is sparse block, 2 sparse); write the problem with dense storage or convert it to gorigid's JSON format", name, t.where(), st)
	}
	var dims [4]int
	for k, what := range []string{"rows", "columns", "rows (dense header)", "columns (dense header)"} {
		if dims[k], err = t.int(name + " " + what); err != nil {
			return nil, err
		}
	}
	if dims[0] != dims[2] || dims[1] != dims[3] {
		return nil, fmt.Errorf("%s: the header states %d×%d, the dense header %d×%d", name, dims[0], dims[1], dims[2], dims[3])
	}
	if dims[0] != want || dims[1] != want {
		return nil, fmt.Errorf("%s: is %d×%d, want %d×%d (a square matrix of the problem's size)", name, dims[0], dims[1], want, want)
	}
	if err := t.checkSize(want); err != nil {
		return nil, err
	}
	return t.columns(name, want)
}

// columns reads the n² numbers of a dense NumericsMatrix: Siconos stores
// dense matrices column-major and writes and reads them in storage order
// (printInFile, newFromFile), so the k-th number is M[k mod n][k div n]
// and each line of the file is a column of M. The context is checked
// before each column. The storage grows with the numbers read, not with
// the stated n (without ReadLimits.MaxBytes a few bytes may state any n),
// and is transposed in place at the end.
func (t *tokens) columns(name string, n int) (*Dense, error) {
	data := make([]float64, 0, min(n*n, 1<<16))
	for j := 0; j < n; j++ {
		if t.lim.Context != nil {
			if err := t.lim.Context.Err(); err != nil {
				return nil, fmt.Errorf("reading stopped at column %d of %s: %w", j, name, err)
			}
		}
		for i := 0; i < n; i++ {
			v, err := t.float(func() string { return fmt.Sprintf("%s[%d][%d] (stored column-major)", name, i, j) })
			if err != nil {
				return nil, err
			}
			data = append(data, v)
		}
	}
	for j := 0; j < n; j++ { // column-major to row-major
		for i := j + 1; i < n; i++ {
			data[j*n+i], data[i*n+j] = data[i*n+j], data[j*n+i]
		}
	}
	return NewDense(n, n, data[:n*n:n*n]), nil
}

// vector reads n numbers.
func (t *tokens) vector(name string, n int) ([]float64, error) {
	v := make([]float64, n)
	for i := range v {
		var err error
		if v[i], err = t.float(func() string { return fmt.Sprintf("%s[%d]", name, i) }); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func standard(m *Dense, q []float64) *Problem {
	n := len(q)
	p := &Problem{A: m, B: q, Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range p.Hi {
		p.Hi[i] = math.Inf(1)
	}
	return p
}

func readSiconosLCP(t *tokens) (*Problem, error) {
	n, err := t.int("size n")
	if err != nil {
		return nil, err
	}
	if err := t.checkSize(n); err != nil {
		return nil, err
	}
	m, err := t.denseMatrix("M", n)
	if err != nil {
		return nil, err
	}
	q, err := t.vector("q", n)
	if err != nil {
		return nil, err
	}
	return standard(m, q), nil
}

func readSiconosMLCP(t *tokens) (*Problem, error) {
	// A Siconos LCP file begins with its size n and M's storage type 0:
	// read as an MLCP it has a storage-1 flag n > 1 and a storage-2 flag 0.
	const lcpHint = "; a file that begins with its size and then 0 (M's dense storage) is a Siconos LCP file: read it in the format siconos-lcp"
	var hdr [4]int
	for k, what := range []string{"storage-1 flag", "storage-2 flag", "n (equations)", "m (complementarity rows)"} {
		var err error
		if hdr[k], err = t.int(what); err != nil {
			return nil, err
		}
		if k < 2 && hdr[k] > 1 {
			hint := ""
			if k == 0 || hdr[0] > 1 {
				hint = lcpHint
			}
			return nil, fmt.Errorf("%s (%s): want 0 or 1, got %d%s", what, t.where(), hdr[k], hint)
		}
	}
	if hdr[0] != 1 {
		return nil, errors.New("storage-1 flag: is 0: only files with the whole matrix M (storage 1) are read, not the blocks A, B, C, D alone")
	}
	size := hdr[2] + hdr[3]
	if err := t.checkSize(size); err != nil {
		return nil, err
	}
	// Block starts: 0, …, ending with n + m.
	var starts []int
	for {
		s, err := t.int(fmt.Sprintf("block start %d", len(starts)))
		if err != nil {
			return nil, err
		}
		if len(starts) == 0 && s != 0 {
			return nil, fmt.Errorf("block start 0 (%s): want 0, got %d", t.where(), s)
		}
		if len(starts) > 0 && s <= starts[len(starts)-1] {
			return nil, fmt.Errorf("block start %d (%s): want more than %d, got %d", len(starts), t.where(), starts[len(starts)-1], s)
		}
		if s > size {
			return nil, fmt.Errorf("block start %d (%s): beyond n + m = %d, got %d", len(starts), t.where(), size, s)
		}
		starts = append(starts, s)
		if s == size {
			break
		}
	}
	blocks := len(starts) - 1
	comp := make([]bool, blocks)
	for b := range comp {
		c, err := t.int(fmt.Sprintf("block %d type", b))
		if err != nil {
			return nil, err
		}
		if c > 1 {
			return nil, fmt.Errorf("block %d type (%s): want 0 (equations) or 1 (complementarity), got %d", b, t.where(), c)
		}
		comp[b] = c == 1
	}
	// Siconos' convention (mixedLinearComplementarity_newFromFileOld, the
	// ABCD blocks of the storage-2 form): the n rows of the equations,
	// type-0 blocks, and the m complementarity rows, type 1.
	eq := 0
	for b, c := range comp {
		if !c {
			eq += starts[b+1] - starts[b]
		}
	}
	if eq != hdr[2] {
		return nil, fmt.Errorf("block types (%s): the equation blocks (type 0) hold %d rows, n (equations) is %d", t.where(), eq, hdr[2])
	}
	m, err := t.denseMatrix("M", size)
	if err != nil {
		return nil, err
	}
	q, err := t.vector("q", size)
	if err != nil {
		return nil, err
	}
	p := standard(m, q)
	for b := 0; b < blocks; b++ {
		if comp[b] {
			continue
		}
		for i := starts[b]; i < starts[b+1]; i++ {
			p.Lo[i] = math.Inf(-1)
		}
	}
	return p, nil
}

func readMQ(r io.Reader, lim ReadLimits) (*Problem, error) {
	sc := newLineScanner(r, lim)
	var data []float64
	var q []float64
	n, rows, line := 0, 0, 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if lim.Context != nil {
			if err := lim.Context.Err(); err != nil {
				return nil, fmt.Errorf("reading stopped at row %d of M: %w", rows, err)
			}
		}
		fields := strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == '\t' || c == ',' || c == ';' })
		if rows == 0 {
			n = len(fields)
			t := tokens{lim: lim}
			if err := t.checkSize(n); err != nil {
				return nil, err
			}
		}
		if q != nil {
			return nil, fmt.Errorf("line %d: more than the %d rows of M and the row of q", line, n)
		}
		if len(fields) != n {
			return nil, fmt.Errorf("line %d: has %d numbers, the first row of M has %d", line, len(fields), n)
		}
		row := make([]float64, n)
		for j, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				what := fmt.Sprintf("M[%d][%d]", rows, j)
				if rows == n {
					what = fmt.Sprintf("q[%d]", j)
				}
				return nil, fmt.Errorf("%s (line %d): want a number, got %q", what, line, abbrev([]byte(f)))
			}
			row[j] = v
		}
		if rows == n {
			q = row
			continue
		}
		data = append(data, row...)
		rows++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, scanError(err, line, lim)
		}
		return nil, fmt.Errorf("line %d: %v", line+1, err)
	}
	switch {
	case rows == 0:
		return nil, errors.New("M: missing (no numbers in the file)")
	case q == nil:
		return nil, fmt.Errorf("q: missing: the file has %d rows of %d numbers; want the %d rows of M and then q", rows, n, n)
	}
	return standard(NewDense(n, n, data), q), nil
}
