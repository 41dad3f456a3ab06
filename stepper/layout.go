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
	// gen counts the layouts recorded: the same gen, the same recorded
	// layout (World.partition keeps the island set built for it).
	gen uint64
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
	l.gen++
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

// layoutCheck is a verdict of Assembly.sameLayout made before Assemble
// on the same rows (Assembly.checkLayout), for Assemble to take instead
// of checking them again.
type layoutCheck struct {
	set, same bool
}

// checkLayout runs sameLayout on rows, the check that Assemble starts
// with, ahead of it: the world's step (World.assemble) then knows whether
// its rows have the last step's layout before it partitions them (the
// partition is kept for the same layout, World.partition), and the next
// Assemble takes the verdict (layoutVerdict) instead of a second pass over
// the rows. Its error is the one Assemble would return, and nothing is
// kept when it fails.
func (a *Assembly) checkLayout(m *Mass, rows []constraint.Row) error {
	same, err := a.sameLayout(m, rows)
	if err == nil {
		a.pre = layoutCheck{set: true, same: same}
	}
	return err
}

// layoutVerdict returns the verdict of checkLayout, made on the same
// rows just before, once; without one, sameLayout's.
func (a *Assembly) layoutVerdict(m *Mass, rows []constraint.Row) (bool, error) {
	if a.pre.set {
		same := a.pre.same
		a.pre = layoutCheck{}
		return same, nil
	}
	return a.sameLayout(m, rows)
}
