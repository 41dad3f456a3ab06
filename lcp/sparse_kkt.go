package lcp

import (
	"fmt"
	"slices"
)

// The records of a padded KKT matrix K̃ (kktLDL.build), for n rows on the
// bodies body[i] (−1 for none) and nb bodies, in call order:
//
//	for i = 0, …, n−1: (i, i), then for each s with b = body[i][s] ≥ 0:
//	    (i, n+6b+t) for t = 0, …, 5
//	for b = 0, …, nb−1: (n+6b+r, n+6b+c) for r = 0, …, 5, c = r, …, 5
//
// Every entry has one record (no row names a body twice), so each record
// sets its entry.

// resetKKT makes s the (n+6nb)×(n+6nb) matrix of those records and opens
// it for their values as Refill does (SetRecord, or SetRecordPart and
// AddRecordTerms, then Refilled), returning their count. It is Reset,
// those Add calls and Finish without recording the calls: the pattern is
// known row by row (row i: i and its bodies' columns in body order; a
// body's column: its rows ascending, then its six columns), so it is
// written in one pass with the records' slots, and kept as Finish keeps
// it (the next Refill with as many records refills it; Add calls that
// repeat the records are finished into it). Same pattern, version and
// bits as the Add calls with the values given to SetRecord.
//
// It panics on a body index outside [−1, nb) or a row naming one body
// twice (KKT.Validate's errors: programming errors here, as Add's index).
func (s *Sparse) resetKKT(body [][2]int32, nb int) int {
	n := len(body)
	dim := n + 6*nb
	// Each body's rows, counted, then each column's row count.
	s.cnt = growInt(s.cnt, nb+1)
	clear(s.cnt)
	for i, bs := range body {
		for _, b := range bs {
			if b < -1 || int(b) >= nb {
				panic(fmt.Sprintf("lcp: Sparse.resetKKT: row %d: body %d outside [−1, %d)", i, b, nb))
			}
			if b >= 0 {
				s.cnt[b+1]++
			}
		}
		if bs[0] >= 0 && bs[0] == bs[1] {
			panic(fmt.Sprintf("lcp: Sparse.resetKKT: row %d names body %d twice", i, bs[0]))
		}
	}
	used := 0
	for b := range nb {
		used += s.cnt[b+1]
		s.cnt[b+1] += s.cnt[b]
	}
	s.dropPending()
	s.unlazy()
	s.n = dim
	s.ti, s.tj, s.tv = s.ti[:0], s.tj[:0], s.tv[:0]
	records := n + 6*used + 21*nb
	nnz := n + 12*used + 36*nb
	s.ptr2, s.ptr = s.ptr, sized(s.ptr2, dim+1)
	s.col2, s.col = s.col, sized(s.col2, nnz)
	s.dslot = growInt32(s.dslot, dim)
	if cap(s.slots) < records {
		s.slots = make([]recSlots, records, records+records/8)
	}
	s.slots = s.slots[:records]
	// Rows: row i holds 1 + 6·(its bodies) entries; body b's six rows
	// hold its cnt[b+1]−cnt[b] rows and its six columns each.
	ptr, col, slots := s.ptr, s.col, s.slots
	ptr[0] = 0
	for i, bs := range body {
		k := 1
		if bs[0] >= 0 {
			k += 6
		}
		if bs[1] >= 0 {
			k += 6
		}
		ptr[i+1] = ptr[i] + k
	}
	for b := range nb {
		m := s.cnt[b+1] - s.cnt[b] + 6
		for r := range 6 {
			ptr[n+6*b+r+1] = ptr[n+6*b+r] + m
		}
	}
	// next[b]: the place of body b's next row among its rows.
	s.next = growInt32(s.next, nb)
	next := s.next[:nb]
	for b := range next {
		next[b] = 0
	}
	rec := 0
	for i, bs := range body {
		p := ptr[i]
		col[p] = int32(i)
		s.dslot[i] = int32(p)
		slots[rec] = recSlots{int32(p), int32(p)}
		rec++
		// Row i's bodies in body order: a slot's columns come first
		// unless the other slot names a smaller body.
		for si, b := range bs {
			if b < 0 {
				continue
			}
			at := p + 1
			if o := bs[1-si]; o >= 0 && o < b {
				at = p + 7
			}
			q := next[b]
			next[b]++
			c := n + 6*int(b)
			for t := range 6 {
				col[at+t] = int32(c + t)
				j := ptr[c+t] + int(q) // A[c+t][i]
				col[j] = int32(i)
				slots[rec+t] = recSlots{int32(at + t), int32(j)}
			}
			rec += 6
		}
	}
	for b := range nb {
		c := n + 6*b
		off := s.cnt[b+1] - s.cnt[b] // the block's place in each of its rows
		for r := range 6 {
			p := ptr[c+r] + off
			for t := range 6 {
				col[p+t] = int32(c + t)
			}
			s.dslot[c+r] = int32(p + r)
		}
		for r := range 6 {
			for cc := r; cc < 6; cc++ {
				slots[rec] = recSlots{int32(ptr[c+r] + off + cc), int32(ptr[c+cc] + off + r)}
				rec++
			}
		}
	}
	s.val = sized(s.val, nnz) // every entry is set by its one record
	if !slices.Equal(s.ptr, s.ptr2) || !slices.Equal(s.col, s.col2) {
		s.version++
	}
	s.kb = append(s.kb[:0], body...)
	s.knb = nb
	s.nrec = records
	s.pn, s.cl, s.desc, s.reuseOK = dim, true, descKKT, true
	s.finished, s.stale, s.rz = false, true, 0
	return records
}

// The descriptions of a Sparse's records that are not written out
// (Sparse.cl): ResetCliques' cliques, resetKKT's rows' bodies.
const (
	descCliques int8 = iota
	descKKT
)

// expandRecords appends the described records' (i, j) to ti and tj, in
// their order (see Sparse.cl).
func (s *Sparse) expandRecords(ti, tj []int32) ([]int32, []int32) {
	if s.desc == descKKT {
		return s.expandKKT(ti, tj)
	}
	return s.expandCliques(ti, tj)
}

// expandKKT appends the records' (i, j) of the last resetKKT to ti and
// tj, in their order.
func (s *Sparse) expandKKT(ti, tj []int32) ([]int32, []int32) {
	ti, tj = slices.Grow(ti, s.nrec), slices.Grow(tj, s.nrec)
	n := int32(len(s.kb))
	for i, bs := range s.kb {
		ti = append(ti, int32(i))
		tj = append(tj, int32(i))
		for _, b := range bs {
			if b < 0 {
				continue
			}
			for t := range int32(6) {
				ti = append(ti, int32(i))
				tj = append(tj, n+6*b+t)
			}
		}
	}
	for b := range int32(s.knb) {
		c := n + 6*b
		for r := range int32(6) {
			for cc := r; cc < 6; cc++ {
				ti = append(ti, c+r)
				tj = append(tj, c+cc)
			}
		}
	}
	return ti, tj
}
