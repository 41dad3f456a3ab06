package lcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/gorigid/gorigid/internal/num"
)

// ReadLimits bounds ReadProblemWith: the memory the problem may take and
// the time reading may take.
type ReadLimits struct {
	// MaxBytes, if > 0, refuses a problem whose DenseProblemBytes is
	// above it, as soon as the file states its size (the first row of A,
	// or b, lo or hi if one comes first), before reading the rest: a
	// *MemoryError.
	MaxBytes int64
	// Context, if set, stops reading when done (checked before each row
	// of A), with an error wrapping the context's.
	Context context.Context
}

// MemoryError is ReadProblemWith's error for a problem above
// ReadLimits.MaxBytes.
type MemoryError struct {
	N     int   // rows the file states
	Bytes int64 // DenseProblemBytes(N)
	Limit int64 // ReadLimits.MaxBytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("a dense %d-row problem needs about %s to read and solve, more than the limit of %s",
		e.N, num.FormatBytes(e.Bytes), num.FormatBytes(e.Limit))
}

// DenseProblemBytes is the peak heap (bytes) of reading an n-row problem
// of the interchange format and solving it: the dense A (8n² B), about
// as much again for a solver's factorization or its copies, and the
// vectors (b, bounds, iterates: a few hundred bytes per row), with the
// heap's growth to twice its live data between collections (GOGC = 100).
// The peak resident memory of sim mlcp solve on dense problems (A = n·I
// plus a sparse pattern) was 125 MB at n = 2 000 with the default solver
// (the model: 132 MB), 50 MB at n = 1 000 (35 MB, plus the 15 MB of the
// program itself), 57 MB for Lemke's method and 33–39 MB for PGS, prox
// and Newton at n = 1 000.
func DenseProblemBytes(n int) int64 {
	nn := float64(n)
	b := 2 * (2*8*nn*nn + 512*nn + 1<<20)
	if b > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(b)
}

// ReadProblemWith is ReadProblemKeys within lim: A is read row by row
// into its dense storage (no copy of the file's text is kept), the size is
// checked against lim.MaxBytes as soon as the file states it, and
// lim.Context is checked before each row. Errors are ReadProblemKeys',
// plus a *MemoryError above the limit and the context's error wrapped.
func ReadProblemWith(r io.Reader, lim ReadLimits) (*Problem, []string, error) {
	dec, err := openObject(r)
	if err != nil {
		return nil, nil, err
	}
	var ignored []string
	seen := map[string]bool{}
	p := &Problem{}
	stated := -1 // the size the file states, once it does
	state := func(n int) error {
		if stated >= 0 {
			return nil
		}
		stated = n
		if lim.MaxBytes > 0 {
			if b := DenseProblemBytes(n); b > lim.MaxBytes {
				return &MemoryError{N: n, Bytes: b, Limit: lim.MaxBytes}
			}
		}
		return nil
	}
	var b, lo, hi json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, ignored, inObject(err)
		}
		k, _ := tok.(string)
		if seen[k] {
			return nil, ignored, fmt.Errorf("%s: key given twice (at byte %d)", k, dec.InputOffset())
		}
		seen[k] = true
		switch k {
		case "A":
			a, err := readRows(dec, lim, state)
			if err != nil {
				return nil, ignored, err
			}
			p.A = a
			continue
		case "b", "lo", "hi", "rows":
		default:
			ignored = append(ignored, k)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, ignored, fmt.Errorf("%s: %v", k, inObject(err))
		}
		switch k {
		case "b":
			b = v
		case "lo":
			lo = v
		case "hi":
			hi = v
		default:
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(v, &items) == nil && items != nil {
			if err := state(len(items)); err != nil {
				return nil, ignored, err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, ignored, inObject(err)
	}
	if err := expectEOF(dec); err != nil {
		return nil, ignored, err
	}
	for _, k := range []string{"A", "b", "lo", "hi"} {
		if !seen[k] {
			return nil, ignored, fmt.Errorf("%s: missing", k)
		}
	}
	if p.B, err = decodeNumbers("b", b); err != nil {
		return nil, ignored, err
	}
	if p.Lo, err = decodeBounds("lo", lo, math.Inf(-1)); err != nil {
		return nil, ignored, err
	}
	if p.Hi, err = decodeBounds("hi", hi, math.Inf(1)); err != nil {
		return nil, ignored, err
	}
	if r, c := p.A.Dims(); r == 0 && c == 0 && len(p.B) > 0 {
		return nil, ignored, fmt.Errorf("A: is empty but b has %d entries", len(p.B))
	}
	if err := p.Validate(); err != nil {
		return nil, ignored, err
	}
	return p, ignored, nil
}

// readRows reads the value of A, an array of rows of numbers, row by row
// into one dense row-major slice: state is told the first row's length
// (the problem's size) before the rest is read, and lim.Context is checked
// before each row.
func readRows(dec *json.Decoder, lim ReadLimits, state func(n int) error) (*Dense, error) {
	const what = "A: want an array of rows (arrays of numbers), got %s"
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("A: %v", inObject(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		got := fmt.Sprint(tok)
		switch {
		case tok == nil:
			got = "null"
		case ok: // an object: skip it for the error
			got = "an object"
			if err := skipValue(dec, 1); err != nil {
				return nil, fmt.Errorf("A: %v", inObject(err))
			}
		default:
			if s, isStr := tok.(string); isStr {
				got = abbrev([]byte(fmt.Sprintf("%q", s)))
			}
		}
		return nil, fmt.Errorf(what, got)
	}
	var data []float64
	rows, cols := 0, 0
	var raw json.RawMessage
	var row []float64
	for dec.More() {
		if lim.Context != nil {
			if err := lim.Context.Err(); err != nil {
				return nil, fmt.Errorf("reading stopped at row %d of A: %w", rows, err)
			}
		}
		raw = raw[:0]
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("A: %v", inObject(err))
		}
		// A row of plain numbers decodes in one call into a reused slice;
		// one with "inf" or "nan" strings, or an error, goes number by
		// number (decodeNumbers names the entry).
		if err := json.Unmarshal(raw, &row); err != nil || row == nil {
			if row, err = decodeNumbers(fmt.Sprintf("A[%d]", rows), raw); err != nil {
				return nil, err
			}
		}
		if rows == 0 {
			cols = len(row)
			if err := state(cols); err != nil {
				return nil, err
			}
			// Room for the rows read so far; append grows it with the
			// file (a first row of 10⁵ numbers would otherwise ask for
			// 80 GB before the second row is read).
			data = make([]float64, 0, cols*min(cols, 16))
		} else if len(row) != cols {
			return nil, fmt.Errorf("A[%d]: has %d entries, row 0 has %d", rows, len(row), cols)
		}
		if rows >= cols && lim.MaxBytes > 0 && int64(rows+1)*int64(cols)*8 > lim.MaxBytes {
			return nil, fmt.Errorf("A: has more than %d rows of %d entries, beyond the memory limit of %s", rows, cols, num.FormatBytes(lim.MaxBytes))
		}
		data = append(data, row...)
		rows++
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, fmt.Errorf("A: %v", inObject(err))
	}
	return NewDense(rows, cols, data[:rows*cols:rows*cols]), nil
}

// skipValue reads tokens until depth nested delimiters are closed.
func skipValue(dec *json.Decoder, depth int) error {
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}
