package stepper

import (
	"fmt"
	"sync/atomic"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
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
	// n is the rows recorded and chunkAt[c] the offset in rows of row
	// c·layoutChunk, where a chunk of the rows' check starts
	// (Assembly.checkLayout).
	n       int
	chunkAt []int32
}

// layoutChunk is the rows of one task of the parallel layout check
// (Assembly.checkLayout): rowChunk, a row's check costing about what its
// terms in Assemble do.
const layoutChunk = rowChunk

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
// outgrow the last one's storage, then with half again as much room (a
// row count creeping up step by step does not reallocate each step).
func (l *rowLayout) record(bodies []*body.Body, rows []constraint.Row) {
	l.gen++
	if need := len(rows) * (1 + constraint.MaxBodies); cap(l.rows) < need {
		l.rows = make([]int32, 0, num.Headroom(cap(l.rows), need))
	}
	l.rows = l.rows[:0]
	l.chunkAt = l.chunkAt[:0]
	l.n = len(rows)
	for i := range rows {
		r := &rows[i]
		if i%layoutChunk == 0 {
			l.chunkAt = append(l.chunkAt, int32(len(l.rows)))
		}
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
// of checking them again, and the state of that check on the workPool.
type layoutCheck struct {
	set, same bool
	job       rangeJob
	rows      []constraint.Row // the rows while job runs
	nb        int              // the bodies while job runs
	same0     bool             // the rows are compared with the layout
	bad       atomic.Int64     // the first row checkRow rejects, len(rows) for none
	differs   atomic.Bool      // a chunk's rows differ from the layout
}

// checkLayout is sameLayout on rows, the check that Assemble starts with,
// ahead of it: the world's step (World.assemble) then knows whether its
// rows have the last step's layout before it partitions them (the
// partition is kept for the same layout, World.partition), and the next
// Assemble takes the verdict (layoutVerdict) instead of a second pass over
// the rows. Its error is the one Assemble would return, and nothing is
// kept when it fails. From rowParallel rows on, with par set, the rows are
// checked in chunks of layoutChunk on the workPool (layoutRange): each
// chunk checks its rows (checkRow) and compares them with the layout from
// the chunk's recorded offset (rowLayout.chunkAt); the first rejected row
// is the least any chunk found, the verdict true when no chunk differs,
// so the result is sameLayout's for any GOMAXPROCS.
func (a *Assembly) checkLayout(m *Mass, rows []constraint.Row) error {
	n := len(rows)
	if a.par == nil || n < rowParallel {
		same, err := a.sameLayout(m, rows)
		a.pre.set, a.pre.same = err == nil, same
		return err
	}
	lc := &a.pre
	lc.set = false
	if lc.job.run == nil {
		lc.job.run, lc.job.chunk, lc.job.least = a.layoutRange, layoutChunk, rowParallel
	}
	lc.rows, lc.nb = rows, len(m.Bodies)
	lc.same0 = a.layOK && a.layout.n == n && a.layout.sameBodies(m.Bodies)
	lc.bad.Store(int64(n))
	lc.differs.Store(false)
	a.par(&lc.job, n)
	lc.rows = nil
	if i := int(lc.bad.Load()); i < n {
		return fmt.Errorf("row %d: %w", i, checkRow(&rows[i], lc.nb))
	}
	same := lc.same0 && !lc.differs.Load()
	if !same {
		a.layOK = false
		a.layout.record(m.Bodies, rows)
	}
	lc.set, lc.same = true, same
	return nil
}

// layoutRange checks the rows lo:hi of checkLayout, lo a multiple of
// layoutChunk: the first that checkRow rejects lowers bad to its index,
// and a row or an end offset that is not the layout's sets differs.
func (a *Assembly) layoutRange(lo, hi int) {
	lc := &a.pre
	l := &a.layout
	same := lc.same0
	k := 0
	if same {
		k = int(l.chunkAt[lo/layoutChunk])
	}
	for i := lo; i < hi; i++ {
		r := &lc.rows[i]
		if checkRow(r, lc.nb) != nil {
			for {
				b := lc.bad.Load()
				if int64(i) >= b || lc.bad.CompareAndSwap(b, int64(i)) {
					return
				}
			}
		}
		if same {
			k, same = l.sameRow(k, r)
		}
	}
	if same {
		end := len(l.rows)
		if c := hi / layoutChunk; hi%layoutChunk == 0 && c < len(l.chunkAt) {
			end = int(l.chunkAt[c])
		}
		same = k == end
	}
	if lc.same0 && !same {
		lc.differs.Store(true)
	}
}

// layoutVerdict returns the verdict of checkLayout, made on the same
// rows just before, once; without one, sameLayout's.
func (a *Assembly) layoutVerdict(m *Mass, rows []constraint.Row) (bool, error) {
	if a.pre.set {
		a.pre.set = false
		return a.pre.same, nil
	}
	return a.sameLayout(m, rows)
}
