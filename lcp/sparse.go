package lcp

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Sparse is a symmetric sparse n×n matrix in compressed sparse row (CSR)
// form, both triangles stored. It is the lead matrix the stepper assembles,
// A = J M⁻¹ Jᵀ + C, which couples only rows that share a body: a chain's A is
// banded, a brick wall's block-sparse. BPP factors the free block of a
// *Sparse with a sparse LDLᵀ (see BPP); the other solvers read it through
// the Matrix interface.
//
// Build it with Reset, Add and Finish:
//
//	var a lcp.Sparse
//	a.Reset(n)
//	a.Add(i, j, v) // for each unordered pair {i, j} once; i == j for the diagonal
//	a.Finish()
//
// Add records (i, j, v) and Finish compresses the records: columns sorted,
// duplicates summed. Entries are kept even when they sum to zero, so the
// pattern is a function of the (i, j) calls alone, and a pattern that repeats
// from step to step lets BPP reuse its fill-reducing ordering. The order of
// the Add calls does not matter beyond floating-point summation: duplicates
// of an entry are summed in call order, so the same call sequence gives the
// same bits, and A[i][j] and A[j][i] are the same sum, so the matrix is
// exactly symmetric. Reset, Add and Finish reuse their storage: once the
// buffers have grown to a step's size they do not allocate again. A call
// sequence with the same (i, j) as the last one (a stepper's steps while
// the contact set stays) is finished in O(calls) into the kept pattern.
//
// A matrix that is a sum of dense blocks on known index sets (a stepper's
// J M⁻¹ Jᵀ + C: one block per body, on the rows that touch it) can be
// built without recording its calls: ResetCliques builds the pattern
// from the index sets and takes the values as a refill does (SetRecord,
// Refilled), with the pattern and bits of the same calls through Add and
// Finish. ResetCliquesLazy does so for the diagonal alone, and the first
// reader of the rest builds the pattern.
//
// The zero value is an empty matrix that must be Reset before use. At,
// MulVecTo, RowDot and NNZ panic until Finish has been called after the last
// Reset or Add; Add panics on an index outside [0, n). Both are programming
// errors of the assembling code, not user data (Problem.Validate reports an
// unfinished matrix as an error, so solvers never reach the panic).
//
// A refilled matrix may have its values off the diagonal filled on
// demand (Defer): every read that needs them fills them first, once.
//
// A finished Sparse is safe for concurrent reads.
type Sparse struct {
	n        int
	finished bool
	// finite reports that every stored value is known finite (set by
	// Finish; false after Submatrix, which does not check).
	finite bool

	// Add records, in call order.
	ti, tj []int32
	tv     []float64

	// CSR of the full symmetric matrix: row i holds columns
	// col[ptr[i]:ptr[i+1]] (ascending) with values val[...].
	ptr []int
	col []int32
	val []float64
	// dslot[i] is the slot of A[i][i] in val, −1 when the diagonal entry
	// is outside the pattern: At(i, i) without a search.
	dslot []int32

	// The previous pattern (double buffer) and a counter that changes when
	// Finish produces a pattern different from the previous one.
	ptr2    []int
	col2    []int32
	version uint64
	// stamp identifies the stored values: a number no other finishing of
	// any Sparse was given (valueStamps), set whenever the matrix is
	// finished (Finish, Refilled, Submatrix), so equal stamps mean the
	// same pattern and the same values. A factor kept for (matrix, stamp)
	// stands while both are those of its last call (sparseLDL.factor).
	stamp uint64

	// Pattern reuse: the records' (i, j) of the last full Finish and the
	// slots of each record in val (recSlots), nrec of them. After
	// ResetCliques or resetKKT (cl) pti and ptj are not kept: the cliques
	// (cstart, cidx, cdiag) or the rows' bodies (kb, knb) describe the
	// records (desc says which), and expandRecords writes them out when an
	// Add or a Finish needs them.
	pti, ptj []int32
	pn       int
	nrec     int
	slots    []recSlots
	reuseOK  bool
	cl       bool
	cstart   []int
	cidx     []int32
	cdiag    bool
	desc     int8
	// lazy: ResetCliquesLazy put the pattern off (BuildPattern builds
	// it). ptr and col are then nil, the last built pattern is in ptr2
	// and col2 and the spare buffers in sptr and scol, val is lval, one
	// entry per row (dslot[r] = r), the pattern's values' storage waits
	// in fval, and lnnz is NNZ.
	lazy       bool
	lnnz       int
	lval, fval []float64
	sptr       []int
	scol       []int32
	// ResetCliquesLazy's records (lazySlot): each clique element's first
	// record (lstart) and its diagonal records' count (lrun, negative
	// when the first sets the entry), the first record of the diagonal's
	// own (ldiag).
	lstart []int
	lrun   []int32
	ldiag  int
	urow   []int32 // cliqueNNZ's cache: per clique, a row and its length
	ulen   []int
	kb     [][2]int32
	knb    int

	// Finish workspace.
	cnt  []int   // per-row counts, then bucket starts
	bcol []int32 // finishFull: bucketed columns; keepPattern: the records bucketed by row (^t for a record's (j, i) side)
	next []int32 // finishFull: each row's next free place in col; keepPattern: in rec, then the slots of a row's columns
	rz   float64 // Refill: finite's accumulator (see sumRecords)
	// ResetCliques workspace: each element's record base (recOf), each
	// row's cliques (runs), the merge's heads and whether each clique
	// repeats an index.
	recOf []int
	runs  []cliqueRun
	heads []mergeHead
	crep  []bool // a clique repeats an index
	// stale is set by Refill: SetRecord sums its values into val without
	// keeping them in tv, so tv is not the records of val until unstale
	// rewrites it (before an Add or Finish reads it).
	stale bool
	// pending holds a *DeferredFill: when not nil (Defer), it fills the
	// values off the diagonal before the first read that needs them
	// (ensure). An atomic.Value, not an atomic.Pointer, so that a Sparse
	// stays copyable.
	pending atomic.Value
}

// DeferredFill is the fill of a refilled Sparse's values off its
// diagonal, put off by Defer until a read needs them. Fill sets them with
// SetRecordPart or SetRecordsDot6 (not SetRecord: the matrix is finished)
// and must not read the matrix through its methods. The zero value with
// Fill set is ready; it must not be copied after first use.
type DeferredFill struct {
	// Fill sets the values; it runs at most once per Defer, under mu.
	Fill func()
	mu   sync.Mutex
}

// Defer, on a matrix just finished by Refilled, puts off the values off
// its diagonal: the caller has set every diagonal entry (all records of
// the diagonal entries, in their order) and vouches that the other
// records' sums are finite, and d.Fill sets those records' values (the
// diagonal's again or not: the same sums). Every read that needs them (At
// off the diagonal, MulVecTo, RowDot, Submatrix, DenseSubmatrix, BPP's
// factorization, an Add or Finish that reopens the matrix) runs d.Fill
// first, once, under d's lock, so concurrent readers see the filled
// values; the diagonal (At(i, i), Problem.Diag), NNZ, the pattern and the
// finiteness that Problem.Validate reads need no fill. Reset, Refill and
// ResetCliques drop a pending fill (they replace the values).
func (s *Sparse) Defer(d *DeferredFill) {
	s.mustFinished("Defer")
	s.pending.Store(d)
}

// Pending reports whether s has values put off by Defer not yet filled.
func (s *Sparse) Pending() bool { return s.pendingFill() != nil }

// pendingFill returns the fill Defer put off, nil if none.
func (s *Sparse) pendingFill() *DeferredFill {
	d, _ := s.pending.Load().(*DeferredFill)
	return d
}

// dropPending forgets a fill put off by Defer (its values are replaced).
func (s *Sparse) dropPending() {
	if s.pendingFill() != nil {
		s.pending.Store((*DeferredFill)(nil))
	}
}

// FillPending runs the fill that Defer put off, if it has not run: what
// any read that needs the values would do first.
func (s *Sparse) FillPending() { s.ensure() }

// ensure runs the fill that Defer put off, if it has not run.
func (s *Sparse) ensure() {
	d := s.pendingFill()
	if d == nil {
		return
	}
	d.mu.Lock()
	if s.pendingFill() == d {
		s.BuildPattern() // a pattern ResetCliquesLazy put off, first
		d.Fill()
		s.pending.Store((*DeferredFill)(nil))
	}
	d.mu.Unlock()
}

var _ Matrix = (*Sparse)(nil)

// recSlots are a record's two slots in Sparse.val, A[i][j]'s and
// A[j][i]'s (the same on the diagonal), one pair of int32s so that a
// refill reads one stream. i is the slot itself when the record is the
// first of its entry in call order (it sets the entry), its complement ^i
// (negative) when it adds to it.
type recSlots struct{ i, j int32 }

// Reset makes s an empty n×n matrix, keeping its storage. It panics if n is
// negative.
func (s *Sparse) Reset(n int) {
	if n < 0 {
		panic(fmt.Sprintf("lcp: Sparse.Reset: negative dimension %d", n))
	}
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("lcp: Sparse.Reset: dimension %d exceeds 2³¹−1", n))
	}
	s.dropPending()
	s.unlazy()
	s.n = n
	s.finished = false
	s.stale = false
	s.ti, s.tj, s.tv = s.ti[:0], s.tj[:0], s.tv[:0]
}

// unlazy forgets a pattern put off by ResetCliquesLazy, making the last
// built one current again (ptr and col), for a call that builds a new one.
func (s *Sparse) unlazy() {
	if s.lazy {
		s.lazy = false
		s.ptr, s.col, s.ptr2, s.col2, s.sptr, s.scol = s.ptr2, s.col2, s.sptr, s.scol, nil, nil
		s.val, s.fval = s.fval, nil
	}
}

// Add adds v to A[i][j] and, when i != j, to A[j][i]: call it once for each
// unordered pair {i, j} (adding both (i, j) and (j, i) would count the
// coupling twice), and with i == j to add to the diagonal once. Add after
// Finish reopens the matrix; Finish must be called again before it is read.
// It panics if i or j is outside [0, n).
func (s *Sparse) Add(i, j int, v float64) {
	if uint(i) >= uint(s.n) || uint(j) >= uint(s.n) {
		panic(fmt.Sprintf("lcp: Sparse.Add(%d, %d): index out of range for a %d×%d matrix", i, j, s.n, s.n))
	}
	s.finished = false
	s.unstale()
	if len(s.ti) == cap(s.ti) || len(s.tv) == cap(s.tv) {
		s.growRecords()
	}
	s.ti = append(s.ti, int32(i))
	s.tj = append(s.tj, int32(j))
	s.tv = append(s.tv, v)
}

// Grow makes room for records more Add calls without reallocating: an
// assembly that knows its count (a stepper's J M⁻¹ Jᵀ, Σ_b k_b(k_b+1)/2
// pairs for k_b rows on body b) allocates its record buffers once, at
// their size, instead of doubling into them. It panics if records is
// negative.
func (s *Sparse) Grow(records int) {
	if records < 0 {
		panic(fmt.Sprintf("lcp: Sparse.Grow: negative record count %d", records))
	}
	need := len(s.ti) + records
	if need <= cap(s.ti) && need <= cap(s.tv) {
		return
	}
	// Headroom: a count that creeps up from call to call (a pile gaining
	// contacts) reallocates rarely; a buffer that grows again doubles.
	c := need + need/8
	if cap(s.ti) > 0 {
		c = max(c, 2*cap(s.ti))
	}
	s.recordCap(c)
}

// minRecordsPerRow sizes the first record buffer of a Sparse: room for
// that many Add calls per row before the buffer grows. An assembled
// J M⁻¹ Jᵀ records each pair of rows on a body once, Σ_b k_b(k_b+1)/2 for
// k_b rows on body b: about 7 per row in the 100-box random pile at rest,
// 34 in the 30-brick wall, 61 in the 210-brick pyramid, so doubling from
// 16 reaches any of them in at most two grows.
const minRecordsPerRow = 16

// growRecords makes room for more Add calls by doubling the record
// buffers (the first ones sized minRecordsPerRow·n), so that a first
// assembly of r records allocates O(log r) times and at most 2r records,
// where append's growth of large slices (1.25×) would copy them about
// five times over in dozens of allocations.
func (s *Sparse) growRecords() {
	s.recordCap(max(2*cap(s.ti), minRecordsPerRow*s.n, 64))
}

// recordCap moves the records into buffers of capacity c.
func (s *Sparse) recordCap(c int) {
	ti := make([]int32, len(s.ti), c)
	tj := make([]int32, len(s.tj), c)
	tv := make([]float64, len(s.tv), c)
	copy(ti, s.ti)
	copy(tj, s.tj)
	copy(tv, s.tv)
	s.ti, s.tj, s.tv = ti, tj, tv
}

// Finish compresses the recorded entries into CSR form: each row's columns
// ascending, duplicates summed in call order. It must be called before the
// matrix is read. It costs O(n + records + Σ row length · log(row length)),
// or, when the (i, j) of the Add calls are those of the last Finish (a
// stepper whose contact set has not changed), O(records): the records are
// summed straight into the slots of the kept pattern, in the same order, so
// the values are the same bits.
func (s *Sparse) Finish() {
	s.unstale()
	if s.cl && s.reuseOK && s.n == s.pn && len(s.ti) == s.nrec {
		s.keepCliqueRecords() // for the comparison below
	}
	if !(s.reuseOK && !s.cl && s.n == s.pn && slices.Equal(s.ti, s.pti) && slices.Equal(s.tj, s.ptj)) {
		s.finishFull()
		s.keepPattern()
	}
	s.sumRecords()
	s.finished = true
	s.stamp = valueStamps.Add(1)
}

// restamp gives the stored values a new stamp: for in-package code (tests)
// that writes val in place instead of through Add or SetRecord.
func (s *Sparse) restamp() { s.stamp = valueStamps.Add(1) }

// valueStamps hands out Sparse.stamp: one counter for every matrix, so a
// stamp is never reused, not even by a new matrix at an old one's address.
var valueStamps atomic.Uint64

// sumRecords sets each stored entry to the sum of its records, in call
// order, through the slots keepPattern found: the first record of an entry
// sets it, the later ones add to it, and a record off the diagonal writes
// A[i][j] and A[j][i] alike.
//
// It also sets finite, whether every stored value is finite: z
// accumulates 0·(each partial sum), which is NaN once any partial sum is
// NaN or ±Inf and 0 otherwise, and a sum that was not finite at some
// record stays not finite (Inf + finite = Inf, Inf − Inf = NaN), so z = 0
// exactly when every final entry is finite. Problem.Validate then skips
// its O(nnz) scan of a matrix known finite.
func (s *Sparse) sumRecords() {
	z := 0.0
	for t, v := range s.tv {
		z += s.sumRecord(t, v)
	}
	s.finite = z == 0
}

// sumRecord sums record t, of value v, into its entry through its slots
// (the first record of an entry sets it, a later one adds to it, off the
// diagonal in A[i][j] and A[j][i] alike) and returns 0 times the partial
// sum, finite's term (see sumRecords).
func (s *Sparse) sumRecord(t int, v float64) float64 {
	r := s.slots[t]
	if r.i < 0 { // a later record: A[i][j] and A[j][i] hold the same partial sum
		r.i = ^r.i
		v = s.val[r.i] + v
	}
	s.val[r.i] = v
	s.val[r.j] = v
	return 0 * v
}

// Refill opens a finished matrix for new values given record by record
// (SetRecord, then Refilled) instead of by Reset, Add and Finish, and
// reports whether it could: the caller vouches that its Add calls would
// repeat, (i, j) for (i, j) and in order, those of the last Finish, and
// gives their count n×n and records; Refill checks that the last Finish
// kept the pattern of that many records for that size, and otherwise
// leaves the matrix as it was (report false: Reset, Add and Finish as
// usual). A stepper whose rows touch the same bodies as at its last step
// saves the recording, the comparison with the kept calls and the buffers'
// traffic (O(records) each).
func (s *Sparse) Refill(n, records int) bool {
	if !(s.finished && s.reuseOK && s.n == n && s.pn == n && s.nrec == records && (s.cl || len(s.tv) == records)) {
		return false
	}
	s.dropPending()
	s.finished = false
	s.rz = 0
	s.stale = true
	return true
}

// SetRecord gives the t-th Add call of the refilled matrix (see Refill)
// the value v, as Finish would sum it: calls must come in their order t =
// 0, 1, …, so that an entry's first record sets it and the later ones add
// to it, giving the bits of Add and Finish. It panics if t is not a record
// of the kept pattern (a programming error, as Add's index).
func (s *Sparse) SetRecord(t int, v float64) {
	s.rz += s.SetRecordPart(t, v)
}

// SetRecordPart is SetRecord for a refill split among goroutines, each
// giving the records of entries that no other one writes (an entry's
// records still in their order t): it sets the record as SetRecord does
// and returns its finiteness term instead of keeping it. Each goroutine
// sums the terms of its records and the caller hands the sums to
// AddRecordTerms before Refilled; a term is 0 for a finite sum and NaN
// otherwise, so the order of the sums changes nothing.
func (s *Sparse) SetRecordPart(t int, v float64) float64 {
	if s.lazy {
		return s.setLazy(t, v)
	}
	return s.sumRecord(t, v)
}

// SetRecordsDot6 is SetRecordPart for the records t, t+1, …,
// t+len(v)−1 of a refill, record t+k of value u·v[k] summed in component
// order (u₀v₀ + u₁v₁ + … + u₅v₅, the bits of that expression written
// out): one row of a Gram block J_p M⁻¹ J_qᵀ, a body's records for its
// rows' pairs, in one call. It returns the sum of the records'
// finiteness terms.
func (s *Sparse) SetRecordsDot6(t int, u *[6]float64, v [][6]float64) float64 {
	if s.lazy {
		// Record by record: one off the diagonal builds the pattern.
		z := 0.0
		for k := range v {
			q := &v[k]
			z += s.SetRecordPart(t+k, u[0]*q[0]+u[1]*q[1]+u[2]*q[2]+u[3]*q[3]+u[4]*q[4]+u[5]*q[5])
		}
		return z
	}
	slots := s.slots[t : t+len(v)]
	val := s.val
	u0, u1, u2, u3, u4, u5 := u[0], u[1], u[2], u[3], u[4], u[5]
	z := 0.0
	for k := range slots {
		q := &v[k]
		x := u0*q[0] + u1*q[1] + u2*q[2] + u3*q[3] + u4*q[4] + u5*q[5]
		r := slots[k]
		if r.i < 0 { // a later record of its entry (see sumRecord)
			r.i = ^r.i
			x = val[r.i] + x
		}
		val[r.i] = x
		val[r.j] = x
		z += 0 * x
	}
	return z
}

// AddRecordTerms adds z, a sum of SetRecordPart's terms, to the refill's
// finiteness check.
func (s *Sparse) AddRecordTerms(z float64) { s.rz += z }

// unstale makes tv records of val again after a refill (stale), for an
// Add or a Finish that sums them: each entry's first record holds the
// entry, its later ones −0, which adds nothing to any sum (x + (−0) = x,
// −0 and NaN included), so the entries sum to the refilled values and an
// Add after Refilled sums onto them as onto the refill's own records
// (O(records), and only then: a refill saves writing the records, the
// traffic of a steady step's refill).
func (s *Sparse) unstale() {
	s.ensure()
	s.BuildPattern() // a pattern ResetCliquesLazy put off, which Add and Finish compare with
	if !s.stale {
		return
	}
	s.stale = false
	if s.cl { // the records were never written: write them out first
		s.ti, s.tj = s.expandRecords(s.ti[:0], s.tj[:0])
		s.tv = grow(s.tv, len(s.ti))
		s.keepCliqueRecords()
	}
	negZero := math.Copysign(0, -1)
	for t, r := range s.slots[:len(s.tv)] {
		if r.i < 0 {
			s.tv[t] = negZero
		} else {
			s.tv[t] = s.val[r.i]
		}
	}
}

// Refilled finishes a refilled matrix (see Refill): it may be read again,
// and, as after Finish, it is known finite when every value is.
func (s *Sparse) Refilled() {
	s.finite = s.rz == 0
	s.finished = true
	s.stamp = valueStamps.Add(1)
}

// keepPattern records the Add calls' (i, j) and their slots in val for
// sumRecords and for the pattern reuse of Finish. The slots are found row
// by row in O(records + nnz): each record is bucketed under its row i and,
// off the diagonal, its row j (in call order within a bucket), and a
// row's columns are scattered to their slots before its bucket is
// read.
func (s *Sparse) keepPattern() {
	s.pti = append(s.pti[:0], s.ti...)
	s.ptj = append(s.ptj[:0], s.tj...)
	s.pn, s.nrec, s.cl = s.n, len(s.ti), false
	n, nr := s.n, len(s.ti)
	if cap(s.slots) < nr {
		s.slots = make([]recSlots, nr, nr+nr/2)
	}
	s.slots = s.slots[:nr]
	// Bucket the records by row: cnt as finishFull left it holds each
	// row's bucket end, the start of the next one.
	// rec reuses finishFull's bucketed columns (the same size, done with).
	total := 0
	if n > 0 {
		total = s.cnt[n-1]
	}
	rec := s.bcol[:total]
	next := s.bcnt(n)
	for t, i := range s.ti {
		j := s.tj[t]
		rec[next[i]] = int32(t)
		next[i]++
		if j != i {
			rec[next[j]] = ^int32(t) // the record's (j, i) side
			next[j]++
		}
	}
	// The bucketing is done with next: it maps a row's columns to their
	// slots (n of them), and once the buckets are read, rec marks the
	// slots seen (the entries are at most the bucketed records).
	mark := next
	start := 0
	for r := 0; r < n; r++ {
		lo, hi := s.ptr[r], s.ptr[r+1]
		for p := lo; p < hi; p++ {
			mark[s.col[p]] = int32(p)
		}
		end := s.cnt[r]
		for _, t := range rec[start:end] {
			if t >= 0 {
				s.slots[t].i = mark[s.tj[t]]
				if s.ti[t] == s.tj[t] {
					s.slots[t].j = s.slots[t].i
				}
			} else {
				t = ^t
				s.slots[t].j = mark[s.ti[t]]
			}
		}
		start = end
	}
	seen := rec[:len(s.val)]
	clear(seen)
	for t := range s.ti {
		r := &s.slots[t]
		if seen[r.i] != 0 { // a later record of the entry ((i, j) and (j, i) are one)
			r.i = ^r.i
			continue
		}
		seen[r.i], seen[r.j] = 1, 1
	}
	s.reuseOK = true
}

// bcnt returns each row's bucket start in the bucketing of finishFull
// (cnt[i] there is row i's bucket end), as a workspace the caller advances.
func (s *Sparse) bcnt(n int) []int32 {
	s.next = growInt32(s.next, n)
	prev := 0
	for i := 0; i < n; i++ {
		s.next[i] = int32(prev)
		prev = s.cnt[i]
	}
	return s.next
}

// finishFull builds the pattern of the records from scratch (bucket the
// columns by row, then scatter them column by column so that each row's
// come out ascending, repeats dropped: O(n + records)) and sizes val for
// it; sumRecords fills the values.
func (s *Sparse) finishFull() {
	n := s.n
	// Bucket the records' columns by row, both triangles.
	s.cnt = growInt(s.cnt, n+1)
	clear(s.cnt)
	for t, i := range s.ti {
		s.cnt[i+1]++
		if j := s.tj[t]; j != i {
			s.cnt[j+1]++
		}
	}
	for i := 0; i < n; i++ {
		s.cnt[i+1] += s.cnt[i]
	}
	total := s.cnt[n]
	s.bcol = growInt32(s.bcol, total)
	// cnt[i] is now the next free slot of row i's bucket.
	for t, i := range s.ti {
		j := s.tj[t]
		s.bcol[s.cnt[i]] = j
		s.cnt[i]++
		if j != i {
			s.bcol[s.cnt[j]] = i
			s.cnt[j]++
		}
	}
	// Row c's bucket is [cnt[c-1], cnt[c]) (cnt[-1] = 0). The records are
	// symmetric, so it also lists the rows r with an entry (r, c): taking
	// the columns c in ascending order and appending c to each such row
	// gives every row its columns ascending with repeats adjacent, without
	// a sort. Each row is written in its own segment of col's storage
	// (the same layout as the buckets), repeats dropped, then the rows are
	// packed in order.
	s.ptr2, s.ptr = s.ptr, growInt(s.ptr2, n+1)
	// total bounds the entries (records of one entry merge): one
	// allocation at most, where appending row by row would grow col step
	// by step on a first assembly.
	buf := growInt32(s.col2, total)
	s.col2 = s.col
	fill := s.bcnt(n) // each row's next free place in buf
	start := 0
	for c := 0; c < n; c++ {
		end := s.cnt[c]
		for _, r := range s.bcol[start:end] {
			f := fill[r]
			rowStart := 0
			if r > 0 {
				rowStart = s.cnt[r-1]
			}
			if int(f) > rowStart && buf[f-1] == int32(c) {
				continue // a repeat of (r, c)
			}
			buf[f] = int32(c)
			fill[r] = f + 1
		}
		start = end
	}
	k := 0
	start = 0
	s.ptr[0] = 0
	for r := 0; r < n; r++ {
		k += copy(buf[k:], buf[start:fill[r]])
		s.ptr[r+1] = k
		start = s.cnt[r]
	}
	s.col = buf[:k]
	s.val = grow(s.val, len(s.col))
	s.diagSlots()
	if !slices.Equal(s.ptr, s.ptr2) || !slices.Equal(s.col, s.col2) {
		s.version++
	}
}

// diagSlots sets dslot from the pattern (ptr, col).
func (s *Sparse) diagSlots() {
	s.dslot = growInt32(s.dslot, s.n)
	for i := range s.n {
		s.dslot[i] = -1
		if k, ok := slices.BinarySearch(s.col[s.ptr[i]:s.ptr[i+1]], int32(i)); ok {
			s.dslot[i] = int32(s.ptr[i] + k)
		}
	}
}

func (s *Sparse) mustFinished(op string) {
	if !s.finished {
		panic("lcp: Sparse." + op + " before Finish: call Finish after the last Reset or Add")
	}
}

// Dims returns n, n.
func (s *Sparse) Dims() (r, c int) { return s.n, s.n }

// NNZ returns the number of stored entries of the full symmetric matrix
// (both triangles; an off-diagonal pair counts twice).
func (s *Sparse) NNZ() int {
	s.mustFinished("NNZ")
	if s.lazy {
		return s.lnnz
	}
	return len(s.col)
}

// At returns A[i][j], 0 outside the pattern. It is a binary search in row
// i, O(log row length), and O(1) on the diagonal.
func (s *Sparse) At(i, j int) float64 {
	s.mustFinished("At")
	if uint(i) >= uint(s.n) || uint(j) >= uint(s.n) {
		panic(fmt.Sprintf("lcp: Sparse.At(%d, %d): index out of range for a %d×%d matrix", i, j, s.n, s.n))
	}
	if i == j {
		if k := s.dslot[i]; k >= 0 {
			return s.val[k]
		}
		return 0
	}
	s.ensure()
	lo, hi := s.ptr[i], s.ptr[i+1]
	if k, ok := slices.BinarySearch(s.col[lo:hi], int32(j)); ok {
		return s.val[lo+k]
	}
	return 0
}

// MulVecTo sets dst = A x.
func (s *Sparse) MulVecTo(dst, x []float64) {
	s.mustFinished("MulVecTo")
	s.ensure()
	x = x[:s.n]
	for i := range dst[:s.n] {
		dst[i] = s.rowDot(i, x)
	}
}

// RowDot returns (A x)_i.
func (s *Sparse) RowDot(i int, x []float64) float64 {
	s.mustFinished("RowDot")
	s.ensure()
	return s.rowDot(i, x[:s.n])
}

func (s *Sparse) rowDot(i int, x []float64) float64 {
	lo, hi := s.ptr[i], s.ptr[i+1]
	cols, vals := s.col[lo:hi], s.val[lo:hi]
	vals = vals[:len(cols)]
	var s0, s1 float64
	k := 0
	for ; k+1 < len(cols); k += 2 {
		s0 += vals[k] * x[cols[k]]
		s1 += vals[k+1] * x[cols[k+1]]
	}
	if k < len(cols) {
		s0 += vals[k] * x[cols[k]]
	}
	return s0 + s1
}

// row returns the columns and values of row i (views). A caller that
// reads the values calls ensure first (Defer), one that reads the
// pattern alone ensurePattern (ResetCliquesLazy).
func (s *Sparse) row(i int) ([]int32, []float64) {
	lo, hi := s.ptr[i], s.ptr[i+1]
	return s.col[lo:hi], s.val[lo:hi]
}

// firstNonFinite returns the first stored entry, in row-major order, that is
// NaN or ±Inf. Entries outside the pattern are 0, so this is the same entry
// a dense scan would find.
func (s *Sparse) firstNonFinite() (i, j int, v float64, found bool) {
	s.ensure()
	for i := 0; i < s.n; i++ {
		cols, vals := s.row(i)
		for k, v := range vals {
			if !num.Finite(v) {
				return i, int(cols[k]), v, true
			}
		}
	}
	return 0, 0, 0, false
}

// growInt32 is grow for int32s.
func growInt32(s []int32, n int) []int32 { return num.Grow(s, n) }
