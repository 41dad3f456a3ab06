package stepper

import (
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// rowLayout is what a stage built from a step's rows keeps to recognise
// the same input at the next step: each row's N and bodies in row order
// (rows) and whether each body was static or kinematic (fixed). The
// assembly's refill (Assembly.sameLayout) and the island partition
// (islandSet.sameInput) each keep one.
type rowLayout struct {
	rows  []int32
	fixed []bool
}

// sameRow reports whether row r is the recorded layout's row at offset
// k of rows, and returns the next row's offset.
func (l *rowLayout) sameRow(k int, r *constraint.Row) (int, bool) {
	if k+1+r.N > len(l.rows) || l.rows[k] != int32(r.N) {
		return k, false
	}
	for t := 0; t < r.N; t++ {
		if l.rows[k+1+t] != int32(r.Body[t]) {
			return k, false
		}
	}
	return k + 1 + r.N, true
}

// sameBodies reports whether bodies are the recorded ones as far as the
// layout goes: as many, each static or kinematic as it was.
func (l *rowLayout) sameBodies(bodies []*body.Body) bool {
	if len(l.fixed) != len(bodies) {
		return false
	}
	for i, b := range bodies {
		if l.fixed[i] != (b.Static || b.Kinematic) {
			return false
		}
	}
	return true
}

// same reports whether rows and bodies are the recorded layout.
func (l *rowLayout) same(bodies []*body.Body, rows []constraint.Row) bool {
	if !l.sameBodies(bodies) {
		return false
	}
	k := 0
	for i := range rows {
		var ok bool
		if k, ok = l.sameRow(k, &rows[i]); !ok {
			return false
		}
	}
	return k == len(l.rows)
}

// record keeps rows and bodies as the layout, allocating only when they
// outgrow the last one's storage (once, not by append's growth).
func (l *rowLayout) record(bodies []*body.Body, rows []constraint.Row) {
	if need := len(rows) * (1 + constraint.MaxBodies); cap(l.rows) < need {
		l.rows = make([]int32, 0, need)
	}
	l.rows = l.rows[:0]
	for i := range rows {
		r := &rows[i]
		l.rows = append(l.rows, int32(r.N))
		for t := 0; t < r.N; t++ {
			l.rows = append(l.rows, int32(r.Body[t]))
		}
	}
	if cap(l.fixed) < len(bodies) {
		l.fixed = make([]bool, 0, len(bodies))
	}
	l.fixed = l.fixed[:0]
	for _, b := range bodies {
		l.fixed = append(l.fixed, b.Static || b.Kinematic)
	}
}
