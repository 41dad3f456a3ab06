package lcp

import (
	"fmt"
	"math"
	"slices"

	"github.com/gorigid/gorigid/internal/num"
)

// cliqueRun is row r's place in one clique: the clique c and the first
// element g (an index into cidx) of r's run there.
type cliqueRun struct{ c, g int32 }

// mergeHead is one clique's cursor in a row's merge (buildCliques): the
// next element pos of the clique [lo, hi) and the row's own run [es, ee).
type mergeHead struct{ pos, lo, hi, es, ee int }

// ResetCliques makes s the n×n matrix of a sum of dense symmetric blocks,
// one per clique (a list of indices in ascending order, repeats allowed),
// and opens it for its values as Refill does: SetRecord (or SetRecordPart
// and AddRecordTerms), then Refilled. Its records are the Add calls
//
//	for each clique L, in order: for p = 0, 1, …: for q ≥ first(p): Add(L[p], L[q], ·)
//
// with first(p) the first position of the value L[p] in L (a repeated
// index pairs its copies both ways), then, with diag, Add(i, i, ·) for
// i = 0, …, n−1: the calls of a stepper's J M⁻¹ Jᵀ + C, one clique per
// body listing the rows on it. It returns their count.
//
// The result is the matrix, pattern and bits of Reset, those Add calls
// with the values given to SetRecord, and Finish, and the pattern is
// kept as Finish keeps it: the next step's Refill with the same records
// refills it, and Add calls that repeat the records are finished into
// it. It builds the pattern row by row, merging the cliques of each row
// (per-row counts, offsets, fill, as a compressed-sparse-row build),
// without writing the records: O(n + records + Σ_rows k·row length) for
// k cliques on a row, one allocation per buffer that has to grow.
//
// It panics if n is negative or a clique is not ascending within [0, n)
// (programming errors of the assembling code, as Add's index).
func (s *Sparse) ResetCliques(n int, cliques [][]int32, diag bool) int {
	return s.resetCliques(n, cliques, diag, false)
}

// ResetCliquesLazy is ResetCliques with the pattern off the diagonal put
// off: it keeps the cliques, the record count, NNZ and the slots of the
// records of diagonal entries (those of a clique's repeats of one index
// with each other, and with diag each row's own), in O(n + records + Σ
// over the distinct clique sets of consecutive rows of their lengths),
// without merging any row's cliques, and keeps A's diagonal alone. It is
// for a fill that sets the diagonal's records (SetRecord,
// SetRecordPart, SetRecordsDot6, in their order) and, after Refilled,
// puts the other values off with Defer: the first read that needs them
// (see Defer) builds the pattern, the slots and the values' storage of
// ResetCliques (BuildPattern), then runs the fill, which must set every
// record. Until then the diagonal (At(i, i), Problem.Diag), NNZ and the
// finiteness of Refilled are read as after ResetCliques, the same bits;
// a Refill with the same records stays lazy. A fill that is not put off
// calls BuildPattern first and sets every record; a record set off the
// diagonal, or Add or Finish, before BuildPattern builds the pattern
// then.
func (s *Sparse) ResetCliquesLazy(n int, cliques [][]int32, diag bool) int {
	return s.resetCliques(n, cliques, diag, true)
}

// resetCliques is ResetCliques, or with lazy ResetCliquesLazy.
func (s *Sparse) resetCliques(n int, cliques [][]int32, diag, lazy bool) int {
	if n < 0 || n > math.MaxInt32 {
		panic(fmt.Sprintf("lcp: Sparse.ResetCliques: dimension %d outside [0, 2³¹−1]", n))
	}
	// same: the cliques describe the current pattern (built or put off).
	same := s.cl && s.desc == descCliques && s.pn == n && s.cdiag == diag && len(s.cstart) == len(cliques)+1
	total := 0
	for c, l := range cliques {
		same = same && slices.Equal(l, s.cidx[s.cstart[c]:s.cstart[c+1]])
		for p, v := range l {
			if v < 0 || int(v) >= n || (p > 0 && v < l[p-1]) {
				panic(fmt.Sprintf("lcp: Sparse.ResetCliques: clique %d: index %d = %d is not ascending within [0, %d)", c, p, v, n))
			}
		}
		total += len(l)
	}
	s.dropPending()
	s.unlazy()
	s.n = n
	s.ti, s.tj, s.tv = s.ti[:0], s.tj[:0], s.tv[:0]
	s.cstart = growInt(s.cstart, len(cliques)+1)
	s.cidx = growInt32(s.cidx, total)[:0]
	for c, l := range cliques {
		s.cstart[c] = len(s.cidx)
		s.cidx = append(s.cidx, l...)
	}
	s.cstart[len(cliques)] = len(s.cidx)
	s.cdiag = diag
	if lazy {
		if !same {
			s.version++ // BuildPattern keeps it
		}
		// The last built pattern stays in ptr2 and col2, the spare
		// buffers in sptr and scol, and its values' storage in fval; ptr
		// and col are nil until BuildPattern.
		s.ptr, s.col, s.ptr2, s.col2, s.sptr, s.scol = nil, nil, s.ptr, s.col, s.ptr2, s.col2
		s.fval = s.val
		s.lazy = true
		s.cliqueDiagonal()
	} else {
		s.buildCliques()
	}
	s.pn, s.cl, s.desc, s.reuseOK = n, true, descCliques, true
	s.finished, s.stale, s.rz = false, true, 0
	return s.nrec
}

// buildCliques builds the pattern, dslot and the records' slots of the
// cliques (cstart, cidx, cdiag) of ResetCliques, and sets nrec.
func (s *Sparse) buildCliques() {
	n, nc, cidx := s.n, len(s.cstart)-1, s.cidx
	// Counting pass: each row's cliques (cnt[r+1]), each element's record
	// base (record (p, q) of a clique is recOf[p] + q, q counted from the
	// clique's start) and bound, the sum over rows of their cliques'
	// lengths, which bounds the entries.
	s.cnt = growInt(s.cnt, n+1)
	clear(s.cnt)
	s.recOf = growInt(s.recOf, len(cidx))
	records, bound := 0, 0
	if cap(s.crep) < nc {
		s.crep = make([]bool, nc, nc+nc/8)
	}
	s.crep = s.crep[:nc]
	for c := range nc {
		lo, hi := s.cstart[c], s.cstart[c+1]
		first := lo
		s.crep[c] = false
		for p := lo; p < hi; p++ {
			if p == lo || cidx[p] != cidx[p-1] {
				first = p
				s.cnt[cidx[p]+1]++
				bound += hi - lo
			} else {
				s.crep[c] = true
			}
			s.recOf[p] = records - first
			records += hi - first
		}
	}
	for r := range n {
		if s.cdiag && s.cnt[r+1] == 0 {
			bound++ // the diagonal alone
		}
		s.cnt[r+1] += s.cnt[r]
	}
	diagRec := records
	if s.cdiag {
		records += n
	}
	s.nrec = records
	s.fillRuns()
	if cap(s.slots) < records {
		s.slots = make([]recSlots, records, records+records/8)
	}
	s.slots = s.slots[:records]
	s.ptr2, s.ptr = s.ptr, sized(s.ptr2, n+1)
	buf := sized(s.col2, bound)
	s.col2 = s.col
	s.dslot = growInt32(s.dslot, n)
	k := 0
	s.ptr[0] = 0
	for r := range n {
		k = s.mergeRow(r, buf, k)
		s.ptr[r+1] = k
	}
	s.col = buf[:k]
	if s.cdiag {
		for r := range n {
			d := s.dslot[r]
			if s.cnt[r+1] > s.cnt[r] { // a clique of r set the entry
				s.slots[diagRec+r] = recSlots{^d, d}
			} else {
				s.slots[diagRec+r] = recSlots{d, d}
			}
		}
	}
	s.val = sized(s.val, k) // every entry is set by its first record
	if !slices.Equal(s.ptr, s.ptr2) || !slices.Equal(s.col, s.col2) {
		s.version++
	}
}

// BuildPattern builds the pattern put off by ResetCliquesLazy (its
// columns, slots, diagonal slots and values' storage, as ResetCliques
// builds them), keeping the diagonal's values and the version
// ResetCliquesLazy gave it: s is then as after ResetCliques and the
// diagonal's records, and a fill may set every record. It does nothing
// when no pattern is put off. The first read that needs the values or
// the pattern of a Deferred matrix calls it.
func (s *Sparse) BuildPattern() {
	if !s.lazy {
		return
	}
	v := s.version
	s.unlazy()
	s.buildCliques()
	s.version = v
	for r, k := range s.dslot {
		if k >= 0 {
			s.val[k] = s.lval[r]
		}
	}
}

// ensurePattern builds a pattern ResetCliquesLazy put off (BuildPattern)
// for a reader of the pattern alone (an ordering), under the lock of the
// pending fill, which stays pending.
func (s *Sparse) ensurePattern() {
	d := s.pendingFill()
	if d == nil {
		return
	}
	d.mu.Lock()
	if s.pendingFill() == d {
		s.BuildPattern()
	}
	d.mu.Unlock()
}

// cliqueDiagonal is buildCliques for ResetCliquesLazy: nrec, each
// clique element's first record and diagonal records (lstart, lrun), the
// diagonal slots into a val of one entry per row (dslot[r] = r, −1 when
// the entry is outside the pattern), and the pattern's entry count
// (lnnz, with each row's cliques in cnt and runs).
func (s *Sparse) cliqueDiagonal() {
	n, nc, cidx := s.n, len(s.cstart)-1, s.cidx
	s.lstart = num.Grow(s.lstart, len(cidx))
	s.lrun = num.Grow(s.lrun, len(cidx))
	s.dslot = growInt32(s.dslot, n)
	dslot := s.dslot
	for r := range dslot {
		dslot[r] = -1
	}
	// Element p's records (p, q), q from first(p) on, start at lstart[p];
	// the first end(p) − first(p) of them (q within p's run of equal
	// indices) are the diagonal entry's, the first of all in record
	// order setting it (lrun negative).
	rec := 0
	for c := range nc {
		lo, hi := s.cstart[c], s.cstart[c+1]
		first, end := lo, lo
		for p := lo; p < hi; p++ {
			v := cidx[p]
			if p == lo || v != cidx[p-1] {
				first = p
				for end = p + 1; end < hi && cidx[end] == v; end++ {
				}
			}
			s.lstart[p] = rec
			s.lrun[p] = int32(end - first)
			if p == first && dslot[v] < 0 {
				s.lrun[p] = -s.lrun[p]
				dslot[v] = v
			}
			rec += hi - first
		}
	}
	s.ldiag = rec
	if s.cdiag {
		rec += n
		for r := range int32(n) {
			dslot[r] = r
		}
	}
	s.nrec = rec
	s.lval = sized(s.lval, n)
	s.val = s.lval
	s.lnnz = s.cliqueNNZ()
}

// lazySlot returns the slots in the lazy val (one entry per row) of
// record t of a matrix whose pattern ResetCliquesLazy put off: a record
// of a diagonal entry, i its complement when the record adds to the
// entry (as recSlots). It reports false for a record off the diagonal.
func (s *Sparse) lazySlot(t int) (recSlots, bool) {
	if t >= s.ldiag {
		r := int32(t - s.ldiag)
		if !s.cdiag || t >= s.nrec {
			panic(fmt.Sprintf("lcp: Sparse: record %d outside the %d records", t, s.nrec))
		}
		if s.cnt[r+1] > s.cnt[r] { // a clique of r set the entry
			return recSlots{^r, r}, true
		}
		return recSlots{r, r}, true
	}
	p, found := slices.BinarySearch(s.lstart, t)
	if !found {
		p-- // t is within element p's records
	}
	k, m, v := t-s.lstart[p], s.lrun[p], s.cidx[p]
	set := m < 0
	if set {
		m = -m
	}
	if k >= int(m) {
		return recSlots{}, false
	}
	if set && k == 0 {
		return recSlots{v, v}, true
	}
	return recSlots{^v, v}, true
}

// setLazy is sumRecord for a matrix whose pattern is put off. A record
// off the diagonal builds the pattern (BuildPattern) and is summed into
// it: a fill that sets every record without calling BuildPattern first
// gets the bits of one that does.
func (s *Sparse) setLazy(t int, x float64) float64 {
	r, ok := s.lazySlot(t)
	if !ok {
		s.BuildPattern()
		return s.sumRecord(t, x)
	}
	if r.i < 0 {
		r.i = ^r.i
		x = s.val[r.i] + x
	}
	s.val[r.i] = x
	return 0 * x
}

// cliqueNNZ returns the entry count of the pattern of the cliques: each
// row's distinct columns, the union of its cliques (and the row itself
// with cdiag), counted by merging the cliques of a row whose set of
// cliques differs from that of the last row with the same first clique
// (the rows of one contact pair share their two bodies' cliques).
func (s *Sparse) cliqueNNZ() int {
	n, nc, cidx := s.n, len(s.cstart)-1, s.cidx
	// Each row's cliques, in clique order (cnt, runs: buildCliques').
	s.cnt = growInt(s.cnt, n+1)
	clear(s.cnt)
	for c := range nc {
		lo, hi := s.cstart[c], s.cstart[c+1]
		for p := lo; p < hi; p++ {
			if p == lo || cidx[p] != cidx[p-1] {
				s.cnt[cidx[p]+1]++
			}
		}
	}
	for r := range n {
		s.cnt[r+1] += s.cnt[r]
	}
	s.fillRuns()
	// urow[c], ulen[c]: the last row whose first clique is c and its
	// union's length.
	s.urow = num.Grow(s.urow, nc)
	s.ulen = num.Grow(s.ulen, nc)
	for c := range s.urow {
		s.urow[c] = -1
	}
	total := 0
	for r := range n {
		runs := s.runs[s.cnt[r]:s.cnt[r+1]]
		if len(runs) == 0 {
			if s.cdiag {
				total++ // the diagonal alone
			}
			continue
		}
		c := runs[0].c
		if q := s.urow[c]; q < 0 || !sameCliques(runs, s.runs[s.cnt[q]:s.cnt[q+1]]) {
			s.urow[c], s.ulen[c] = int32(r), s.unionLen(runs)
		}
		total += s.ulen[c]
	}
	return total
}

// sameCliques reports whether two rows' runs are on the same cliques.
func sameCliques(a, b []cliqueRun) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		if a[j].c != b[j].c {
			return false
		}
	}
	return true
}

// unionLen returns the number of distinct indices in the cliques of runs.
func (s *Sparse) unionLen(runs []cliqueRun) int {
	cidx := s.cidx
	if cap(s.heads) < len(runs) {
		s.heads = make([]mergeHead, len(runs))
	}
	heads := s.heads[:len(runs)]
	for j, run := range runs {
		heads[j] = mergeHead{pos: s.cstart[run.c], hi: s.cstart[run.c+1]}
	}
	switch {
	case len(heads) == 1 && !s.crepOf(runs[0].c):
		return heads[0].hi - heads[0].pos
	case len(heads) == 2 && !s.crepOf(runs[0].c) && !s.crepOf(runs[1].c):
		// Two cliques without repeats: their lengths less the indices
		// both hold.
		a, b := cidx[heads[0].pos:heads[0].hi], cidx[heads[1].pos:heads[1].hi]
		both := 0
		for i, j := 0, 0; i < len(a) && j < len(b); {
			switch {
			case a[i] < b[j]:
				i++
			case b[j] < a[i]:
				j++
			default:
				both++
				i++
				j++
			}
		}
		return len(a) + len(b) - both
	}
	count := 0
	for {
		v := minHead(heads, cidx)
		if v == math.MaxInt32 {
			return count
		}
		count++
		for j := range heads {
			h := &heads[j]
			for h.pos < h.hi && cidx[h.pos] == v {
				h.pos++
			}
		}
	}
}

// minHead returns the least index at the heads of a merge's clique runs,
// or math.MaxInt32 once every run is used up.
func minHead(heads []mergeHead, cidx []int32) int32 {
	v := int32(math.MaxInt32)
	for j := range heads {
		if h := &heads[j]; h.pos < h.hi && cidx[h.pos] < v {
			v = cidx[h.pos]
		}
	}
	return v
}

// crepOf reports whether clique c repeats an index.
func (s *Sparse) crepOf(c int32) bool {
	l := s.cidx[s.cstart[c]:s.cstart[c+1]]
	for p := 1; p < len(l); p++ {
		if l[p] == l[p-1] {
			return true
		}
	}
	return false
}

// mergeRow writes row r's columns into buf from k on, ascending, as the
// merge of its cliques (and r itself with cdiag), sets dslot[r] and the
// slots of the records that row r holds: A[r][v]'s (the record's i side)
// of the records (r, v), v ≥ r, A[r][v]'s (its j side) of the records
// (v, r), v ≤ r. It returns the end of the row in buf.
func (s *Sparse) mergeRow(r int, buf []int32, k int) int {
	cidx := s.cidx
	runs := s.runs[s.cnt[r]:s.cnt[r+1]]
	s.dslot[r] = -1
	if len(runs) == 0 {
		if s.cdiag {
			buf[k] = int32(r)
			s.dslot[r] = int32(k)
			k++
		}
		return k
	}
	if cap(s.heads) < len(runs) {
		s.heads = make([]mergeHead, len(runs))
	}
	heads := s.heads[:len(runs)]
	simple := true // no clique of the row repeats an index
	for j, run := range runs {
		lo, hi := s.cstart[run.c], s.cstart[run.c+1]
		ee := int(run.g)
		for ee < hi && cidx[ee] == int32(r) {
			ee++
		}
		heads[j] = mergeHead{pos: lo, lo: lo, hi: hi, es: int(run.g), ee: ee}
		simple = simple && !s.crep[run.c]
	}
	rv := int32(r)
	if simple && len(heads) <= 2 {
		return s.mergeSimple(r, heads, buf, k)
	}
	for {
		v := minHead(heads, cidx)
		if v == math.MaxInt32 {
			return k
		}
		buf[k] = v
		if v == rv {
			s.dslot[r] = int32(k)
		}
		firstHead := true
		for j := range heads {
			h := &heads[j]
			if h.pos >= h.hi || cidx[h.pos] != v {
				continue
			}
			fs := h.pos
			fe := fs + 1
			for fe < h.hi && cidx[fe] == v {
				fe++
			}
			for f := fs; f < fe; f++ {
				for e := h.es; e < h.ee; e++ {
					if v >= rv { // record (e, f): A[r][v] is its i side
						sl := int32(k)
						if !(firstHead && e == h.es && f == fs) {
							sl = ^sl // a later record of the entry
						}
						s.slots[s.recOf[e]+f].i = sl
					}
					if v <= rv { // record (f, e): A[r][v] is its j side
						s.slots[s.recOf[f]+e].j = int32(k)
					}
				}
			}
			h.pos = fe
			firstHead = false
		}
		k++
	}
}

// mergeSimple is mergeRow's merge for a row on one or two cliques that
// repeat no index (a row on one or two bodies): each value is one element
// of each clique that holds it, and the row one element of each, at its
// head's es. Each clique's elements before es are below r (their records
// (f, es) hold A[r][v] on their j side), those after it above r (records
// (es, f), the i side), so the row is merged in three parts: the values
// below r, r itself, the values above r.
func (s *Sparse) mergeSimple(r int, heads []mergeHead, buf []int32, k int) int {
	rv := int32(r)
	switch len(heads) {
	case 1: // the row's columns are its clique's
		h := heads[0]
		k = s.mergeBelow(h.lo, h.es, h.es, h.es, h.es, h.es, buf, k)
		s.slots[s.recOf[h.es]+h.es] = recSlots{int32(k), int32(k)}
		buf[k] = rv
		s.dslot[r] = int32(k)
		return s.mergeAbove(h.es+1, h.hi, h.es, h.hi, h.hi, h.es, buf, k+1)
	case 2: // a row on two bodies: two-way merges
		a, b := heads[0], heads[1]
		k = s.mergeBelow(a.lo, a.es, a.es, b.lo, b.es, b.es, buf, k)
		// r itself: the first clique's record sets the entry, the
		// second's adds to it.
		s.slots[s.recOf[a.es]+a.es] = recSlots{int32(k), int32(k)}
		s.slots[s.recOf[b.es]+b.es] = recSlots{^int32(k), int32(k)}
		buf[k] = rv
		s.dslot[r] = int32(k)
		return s.mergeAbove(a.es+1, a.hi, a.es, b.es+1, b.hi, b.es, buf, k+1)
	}
	panic("lcp: Sparse.mergeSimple: more than two cliques")
}

// mergeBelow writes into buf from k on the merge of the ascending
// elements [fa, ha) and [fb, hb) of two cliques (values below the row,
// each at most once per clique), whose row is their element ea and eb,
// and sets the j side of each element's record with the row, (f, ea) or
// (f, eb), to the value's slot. It returns the end of the merge.
func (s *Sparse) mergeBelow(fa, ha, ea, fb, hb, eb int, buf []int32, k int) int {
	cidx, slots, recOf := s.cidx, s.slots, s.recOf
	for fa < ha && fb < hb {
		va, vb := cidx[fa], cidx[fb]
		switch {
		case va < vb:
			buf[k] = va
			slots[recOf[fa]+ea].j = int32(k)
			fa++
		case vb < va:
			buf[k] = vb
			slots[recOf[fb]+eb].j = int32(k)
			fb++
		default:
			buf[k] = va
			slots[recOf[fa]+ea].j = int32(k)
			slots[recOf[fb]+eb].j = int32(k)
			fa++
			fb++
		}
		k++
	}
	for ; fa < ha; fa++ {
		buf[k] = cidx[fa]
		slots[recOf[fa]+ea].j = int32(k)
		k++
	}
	for ; fb < hb; fb++ {
		buf[k] = cidx[fb]
		slots[recOf[fb]+eb].j = int32(k)
		k++
	}
	return k
}

// mergeAbove is mergeBelow for values above the row: the i side of the
// records (ea, f) and (eb, f), the first clique's record of a value both
// hold setting the entry (k) and the second's adding to it (^k).
func (s *Sparse) mergeAbove(fa, ha, ea, fb, hb, eb int, buf []int32, k int) int {
	cidx := s.cidx
	slots := s.slots
	ra, rb := s.recOf[ea], s.recOf[eb]
	for fa < ha && fb < hb {
		va, vb := cidx[fa], cidx[fb]
		switch {
		case va < vb:
			buf[k] = va
			slots[ra+fa].i = int32(k)
			fa++
		case vb < va:
			buf[k] = vb
			slots[rb+fb].i = int32(k)
			fb++
		default:
			buf[k] = va
			slots[ra+fa].i = int32(k)
			slots[rb+fb].i = ^int32(k)
			fa++
			fb++
		}
		k++
	}
	for ; fa < ha; fa++ {
		buf[k] = cidx[fa]
		slots[ra+fa].i = int32(k)
		k++
	}
	for ; fb < hb; fb++ {
		buf[k] = cidx[fb]
		slots[rb+fb].i = int32(k)
		k++
	}
	return k
}

// fillRuns sets runs to each row's runs in clique order, row r's at
// cnt[r]:cnt[r+1] (cnt holds the rows' starts).
func (s *Sparse) fillRuns() {
	n, cidx := s.n, s.cidx
	if cap(s.runs) < s.cnt[n] {
		s.runs = make([]cliqueRun, s.cnt[n], s.cnt[n]+s.cnt[n]/8)
	}
	s.runs = s.runs[:s.cnt[n]]
	next := s.bcnt0(n)
	for c := range len(s.cstart) - 1 {
		lo, hi := s.cstart[c], s.cstart[c+1]
		for p := lo; p < hi; p++ {
			if p == lo || cidx[p] != cidx[p-1] {
				r := cidx[p]
				s.runs[next[r]] = cliqueRun{int32(c), int32(p)}
				next[r]++
			}
		}
	}
}

// bcnt0 returns each row's start in runs (cnt[r]) as a workspace the
// caller advances.
func (s *Sparse) bcnt0(n int) []int32 {
	s.next = growInt32(s.next, n)
	for r := range n {
		s.next[r] = int32(s.cnt[r])
	}
	return s.next
}

// expandCliques appends the records' (i, j) of the cliques of the last
// ResetCliques to ti and tj, in their order.
func (s *Sparse) expandCliques(ti, tj []int32) ([]int32, []int32) {
	ti, tj = slices.Grow(ti, s.nrec), slices.Grow(tj, s.nrec)
	for c := range len(s.cstart) - 1 {
		l := s.cidx[s.cstart[c]:s.cstart[c+1]]
		first := 0
		for p, v := range l {
			if p > 0 && v != l[p-1] {
				first = p
			}
			for _, w := range l[first:] {
				ti = append(ti, v)
				tj = append(tj, w)
			}
		}
	}
	if s.cdiag {
		for i := range int32(s.n) {
			ti = append(ti, i)
			tj = append(tj, i)
		}
	}
	return ti, tj
}

// keepCliqueRecords writes the described records of the last
// ResetCliques or resetKKT out as the kept pattern's (pti, ptj), which
// Finish compares its Add calls with.
func (s *Sparse) keepCliqueRecords() {
	s.pti, s.ptj = s.expandRecords(s.pti[:0], s.ptj[:0])
	s.cl = false
}

// sized returns s resliced to n, or a new slice of length n with an
// eighth of headroom when s is too short: a buffer sized once for a
// large fill (a half, as num.Grow gives a buffer that outgrows its
// storage, would be zeroed for nothing).
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/8)
	}
	return s[:n]
}
