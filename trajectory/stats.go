package trajectory

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/stepper"
)

// StatsHeader is the step-statistics CSV header (docs/formats.md). The
// first twelve columns are the original format (BaseStatsColumns); columns
// are only ever added at the end, so readers of the older files keep
// working and ReadStats reads both.
const StatsHeader = "step,time,rows,iterations,budget_hit,picked,err_energy,err_fb,err_residual,kinetic,potential,max_violation," +
	"presolve_iterations,seed_sweeps,projections,projection_iterations,energy_added,projection_skipped"

// BaseStatsColumns is the number of columns every statistics file starts
// with (the format before presolve_iterations was added).
const BaseStatsColumns = 12

// StatsColumns returns the columns of StatsHeader, in order.
func StatsColumns() []string { return strings.Split(StatsHeader, ",") }

// AppendStatsRow appends the statistics CSV row of one step (StatsHeader's
// columns) with its newline.
func AppendStatsRow(b []byte, st *stepper.Stats) []byte {
	b = strconv.AppendInt(b, int64(st.Step), 10)
	b = append(b, ',')
	b = appendFloat(b, st.Time)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(st.Rows), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(st.Iterations), 10)
	if st.BudgetHit {
		b = append(b, ",1,"...)
	} else {
		b = append(b, ",0,"...)
	}
	b = strconv.AppendInt(b, int64(st.Picked), 10)
	for _, v := range [...]float64{st.Errors.Energy, st.Errors.FB, st.Errors.Residual, st.Kinetic, st.Potential, st.MaxViolation} {
		b = append(b, ',')
		b = appendFloat(b, v)
	}
	for _, n := range [...]int{st.PreSolveIterations, st.SeedSweeps, st.Projections, st.ProjectionIterations} {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	b = append(b, ',')
	b = appendFloat(b, st.EnergyAdded)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(st.ProjectionSkipped), 10)
	return append(b, '\n')
}

// StatsWriter writes the step-statistics CSV: the header, then one row per
// Write. A StatsWriter is not safe for concurrent use.
type StatsWriter struct {
	out  io.Writer
	buf  []byte
	rows int
}

// NewStatsWriter writes the header to out and returns the writer.
func NewStatsWriter(out io.Writer) (*StatsWriter, error) {
	_, err := io.WriteString(out, StatsHeader+"\n")
	return &StatsWriter{out: out}, err
}

// Write writes the row of st, in one Write of the underlying writer.
func (s *StatsWriter) Write(st *stepper.Stats) error {
	s.buf = AppendStatsRow(s.buf[:0], st)
	s.rows++
	_, err := s.out.Write(s.buf)
	return err
}

// Rows returns the number of rows written.
func (s *StatsWriter) Rows() int { return s.rows }

// StatsTable is a statistics CSV read into memory, one slice per column.
type StatsTable struct {
	// Columns are the file's column names, in the file's order: the
	// twelve base columns, then whatever later columns it has.
	Columns []string
	// Cols[j][i] is column Columns[j] of row i.
	Cols [][]float64
}

// Rows returns the number of rows.
func (s *StatsTable) Rows() int { return len(s.Cols[0]) }

// Col returns the column named name, and false if the file has none (a
// file written before the column was added).
func (s *StatsTable) Col(name string) ([]float64, bool) {
	for j, c := range s.Columns {
		if c == name {
			return s.Cols[j], true
		}
	}
	return nil, false
}

// ReadStats reads a step-statistics CSV. Its header must start with the
// twelve base columns of StatsHeader in order; the columns after them
// (those of StatsHeader, or any other a later writer adds) are read by
// name, each must be a number. Steps must increase. A cut last line (no
// newline) is read if it parses, like any other.
func ReadStats(r io.Reader) (*StatsTable, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("empty file (want the header " + StatsHeader + ")")
	}
	h := strings.TrimSpace(sc.Text())
	cols := strings.Split(h, ",")
	base := StatsColumns()[:BaseStatsColumns]
	if len(cols) < BaseStatsColumns || strings.Join(cols[:BaseStatsColumns], ",") != strings.Join(base, ",") {
		return nil, fmt.Errorf("line 1: header %q, want %q", truncate(h, 80), StatsHeader)
	}
	for j := BaseStatsColumns; j < len(cols); j++ {
		if cols[j] == "" {
			return nil, fmt.Errorf("line 1: column %d has no name", j+1)
		}
		for _, c := range cols[:j] {
			if c == cols[j] {
				return nil, fmt.Errorf("line 1: column %q given twice", c)
			}
		}
	}
	st := &StatsTable{Columns: cols, Cols: make([][]float64, len(cols))}
	fields := make([]string, len(cols))
	for line := 2; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		if n := splitComma(text, fields); n != len(fields) {
			return nil, fmt.Errorf("line %d: %d fields, want %d", line, n, len(fields))
		}
		for j, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fieldErr(fmt.Sprintf("line %d", line), cols[j], s, "%q is not a number", truncate(s, 40))
			}
			st.Cols[j] = append(st.Cols[j], v)
		}
		if n := st.Rows(); n > 1 && !(st.Cols[0][n-1] > st.Cols[0][n-2]) {
			return nil, fmt.Errorf("line %d: step %v after step %v: steps must increase", line, st.Cols[0][n-1], st.Cols[0][n-2])
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return st, nil
}

// splitComma splits s at commas into out and returns the field count
// (which may exceed len(out); then out holds the first len(out)).
func splitComma(s string, out []string) int {
	n := 0
	for {
		i := strings.IndexByte(s, ',')
		if n < len(out) {
			if i < 0 {
				out[n] = s
			} else {
				out[n] = s[:i]
			}
		}
		n++
		if i < 0 {
			return n
		}
		s = s[i+1:]
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
