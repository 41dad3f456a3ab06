package lcp

import (
	"math"
	"math/bits"
	"slices"

	"github.com/gorigid/gorigid/internal/num"
)

// sparseLDL factors a principal submatrix A_FF of a symmetric *Sparse A as
//
//	P A_FF Pᵀ = L D Lᵀ,   L unit lower triangular, D diagonal,
//
// and succeeds only when every pivot d_k exceeds pivotFloor·|a_kk| (the same
// test the dense Cholesky uses), that is when A_FF is numerically positive
// definite; with D > 0 it is a Cholesky factorization L D^½. With negBelow
// set (the quasi-definite K̃ of kktLDL) the rows below it expect negative
// pivots instead, −d_k > pivotFloor·|a_kk|, and are −1 outside F.
//
// Ordering. P is a minimum degree ordering of the graph of the whole of A,
// computed once per pattern (a, a.version) and kept across calls, restricted
// to F. Restricting an elimination order to a subset of the vertices cannot
// add fill: an entry (u, v) of the factor of A_FF needs a path from u to v
// through vertices of F eliminated before both (the fill path lemma), which
// is also a path in the graph of A. Consecutive rows with equal patterns (the
// three rows of a contact, the five of a hinge) are merged into one
// supervariable first, so the ordering works on a graph with s times fewer
// vertices and s² times fewer edges for blocks of s rows.
//
// The padded matrix. What is factored is the whole n×n matrix
//
//	C = P Ā Pᵀ,   Ā_ij = A_ij for i, j ∈ F, Ā_ii = 1 for i ∉ F, 0 elsewhere,
//
// in the pattern of the whole of A: a row outside F is a unit row and
// column, so its L entries are exact zeros, its pivot is 1, and the
// factor restricted to F is the factor of A_FF (the zeros add nothing to
// any sum). The symbolic analysis is then a function of the pattern of A
// alone, done once per pattern, and an index entering or leaving F changes
// only its own row and column of C.
//
// Factorization. Up-looking LDLᵀ on the elimination tree (Davis, "Algorithm
// 849: A concise sparse Cholesky factorization package", ACM TOMS 31(4),
// 2005): the symbolic phase builds the elimination tree and the column
// counts of L in O(nnz(L)); the numeric phase computes row k of L by a
// sparse triangular solve whose pattern is the tree's reach, the rows of
// the descendants of k in the elimination tree. A banded matrix of
// bandwidth b factors in O(b² n), a chain's block-tridiagonal A in O(n).
// The quasi-definite K̃ of kktLDL, whose body velocities form supernodes,
// computes its rows a supernode's run of columns at a time (rowBlocked);
// from supernodalFlops on it is factored by supernodes instead, left-looking
// with dense kernels on the same column storage (numericSN), its
// substitutions by supernodes too (solveSN).
//
// Partial refactorization. Row k of L and d_k depend only on row k of C
// and on the rows of L of k's descendants. So when C changes in a set S of
// rows (indices entering or leaving F change their own row, and the rows
// of their neighbours eliminated later, which are their ancestors; new
// values of A change the rows they touch), only the rows of S and of their
// ancestors in the elimination tree are recomputed, with the same
// operations in the same order as a factorization from scratch, so the
// factor is bit for bit the one a full refactorization would give (the
// supernodal factorization keeps this too: see numericSN). A BPP
// iteration that moves a few indices recomputes the paths from them to the
// root, and one that only moves the proximal centre (same F, same A)
// recomputes nothing. A changed shift, a new pattern or a failed pivot
// refactor everything.
//
// Row modifications. On a two-dimensional contact graph (a brick pyramid)
// every path to the root runs through the dense top separators, so even
// one moved index recomputes a large part of L. When only indices moved
// (same A, same shift), each is instead modified into the factor (modify:
// a rank-one update or downdate along its path, plus the up-looking solve
// of an entering row), whenever the estimated flops are below half those of
// the partial refactorization; at most maxModify in a row before the rows
// they touched are recomputed. Modifications round differently from a
// refactorization, so the factor then solves A_FF to rounding rather than
// bit for bit as one from scratch.
//
// Stale factors. When A itself changed (a time stepper's next step at the
// same pattern), the last factor, with the moved indices modified in, is
// kept as a preconditioner and solve refines against the new A; a
// refinement that does not converge fast makes the caller refactor. Both
// devices apply only where the refactorization they replace costs more
// than the refinement they may add (worthModify), so small problems keep
// the bit-exact path.
type sparseLDL struct {
	// Ordering and symbolic analysis: valid for a and version ver.
	a    *Sparse
	ver  uint64
	perm []int32 // perm[k] = the row of A eliminated k-th
	ploc []int32 // ploc[i] = position of row i in perm

	// The free rows in elimination order, and their index in free.
	free []int32
	loc  []int32 // loc[i] = index of row i in free, or -1

	// Lower triangle (with diagonal) of C by rows, the pattern fixed per
	// pattern of A; cx are this call's values, cxOld the last factored.
	cp    []int
	ci    []int32
	csrc  []int32 // csrc[p]: the index in a.val of C's entry p
	cx    []float64
	cxOld []float64

	// Symbolic: elimination tree, column counts, column pointers of L,
	// and per row of L the slots of its entries in the column storage,
	// in the order the numeric phase visits them (rs[k]:rs[k+1] of rslot).
	parent, lnz, flag []int32
	cw                []int32 // the analysis' workspace (etree, structure, snodes), n
	lp                []int
	rs                []int
	rslot             []int32
	// rcol holds, per row of L (rs[k]:rs[k+1]), its columns in the
	// topological order reach finds them, kept by a full factorization
	// (patKept) so that later ones read the row's pattern instead of
	// walking the elimination tree again: it is a function of the pattern
	// alone.
	rcol    []int32
	patKept bool
	// rowLazy: structure left rcol and rslot to be filled row by row as
	// modifications need them (knowRow), rowKnown[k] once row k's are.
	rowLazy  bool
	rowKnown []bool

	// Numeric: L by columns (strictly lower), D, and workspace.
	li    []int32
	lx    []float64
	d     []float64
	y     []float64
	pat   []int32
	dirty []bool    // rows to recompute in a partial refactorization
	top   int       // row: the start of its pattern in pat
	xp    []float64 // solve: the right-hand side in elimination order

	valid     bool    // L, D are the factor of cxOld with shiftOld
	shiftOld  float64 // the shift of the last factorization
	failed    int     // index in free of the failed pivot after factor returned false
	recompute int     // rows of L the last call computed (n for a full factorization)

	// shift > 0 factors C + shift·diag(C) (semidefinite blocks, see BPP).
	shift float64

	// Low-rank modification (see modify): the values of A and the free
	// set, by elimination position, of the factored C; per position the
	// flops of its row of L (rowFlops: the up-looking solve) and the
	// entries of the columns on its path to the root (pathLen); the
	// modifications since the last (re)factorization; dense workspaces.
	aval      []float64
	avalA     *Sparse // the matrix and stamp (Sparse.stamp) aval holds the values of
	avalStamp uint64
	wasFree   []bool
	rowFlops  []int
	fullFlops int   // Σ rowFlops: a full factorization's flops (structural)
	rowLen    []int // entries of the columns in row k's pattern
	pathLen   []int
	cdiag     []int   // slot of row k's diagonal in cx
	modList   []int32 // positions modified since they were last recomputed
	toggled   []int32
	w         []float64
	noModify  bool // tests: always refactor (the bit-exact path)
	minModify int  // tests: a flop floor replacing worthModify's rule when > 0

	// A stale factor is that of an earlier A (with this call's free set):
	// solve refines against the current A. refreshNext asks the next
	// factor for a refactorization (a refinement converged slowly); rr and
	// dx are refinement workspaces.
	stale, refreshNext bool
	refineIts          int // the last solve's refinement steps
	rr, dx             []float64
	modifyOps          int // the last call's row modifications (0: it refactored)

	// negBelow: rows i < negBelow expect negative pivots (the constraint
	// rows of a quasi-definite KKT matrix, see kktLDL) and are −1 outside
	// F; 0 for a positive definite A.
	negBelow int
	// snEnd, when set (see rowBlocked), is the last column of each
	// column's supernode.
	snEnd []int32
	// sn: the pattern is factored by supernodes (see spchol_snode.go and
	// useSupernodes; snForce > 0 forces it, < 0 forbids it: tests). The
	// partition (snStart, snOf), each supernode's updating supernodes
	// (snUpdPtr, snUpd), C's lower triangle by columns (ctp, ctr, ctslot)
	// and the dense workspaces.
	sn            bool
	snForce       int8
	snStart, snOf []int32
	snUpdPtr      []int
	snUpd         []int32
	ctp           []int
	ctr, ctslot   []int32
	snW, snY      []float64
	snRel, snU    []int32
	snOff         []int
	snDv          []float64 // snUpdate: the pivots of an updating supernode's free columns
	snFree        []bool
	// symFlops is the structural flop count of a full factorization of
	// the pattern (Σ_j c_j(c_j−1)/2 over the column counts c_j of L), set
	// by the symbolic analysis: the up-looking solves' multiply-adds when
	// every row is in F.
	symFlops int
	sized    bool // the storage is sized for the analysed pattern (see count)

	ord ordering

	stand factorStand // what the last successful factor was for (standing.go)
}

// factor factors the block of the rows i with state[i] == Free. It reports
// false if the block is not numerically positive definite. A call for the
// same matrix, values and free set as the last successful one returns at
// once (factorStand).
func (f *sparseLDL) factor(a *Sparse, state []State) bool {
	a.ensure() // a deferred fill (Sparse.Defer): the factor reads every value
	if f.stands(a, state) {
		return true
	}
	ok := f.refactor(a, state)
	f.stood(a, state, ok)
	return ok
}

// refactor is factor past the check that the factor stands.
func (f *sparseLDL) refactor(a *Sparse, state []State) bool {
	n := a.n
	f.analyze(a)
	f.free = f.free[:0]
	f.loc = growInt32(f.loc, n)
	for _, i := range f.perm {
		f.loc[i] = -1
		if state[i] == Free {
			f.loc[i] = int32(len(f.free))
			f.free = append(f.free, i)
		}
	}
	// This call's values of C, in the fixed pattern: entry p of row k
	// (column ci[p] ≤ k) is A's value at csrc[p] when both positions are
	// free, the unit pivot on the diagonal of a row outside F, else 0.
	f.cx = grow(f.cx, f.cp[n])
	fr := f.snFreeFor(n)
	// A full refactorization also ends a run of modifications that reached
	// their bound without a refactorization of their rows in between.
	full := !f.valid || f.shift != f.shiftOld || len(f.modList) >= f.maxModify()
	f.modifyOps = 0
	f.dirty = growBool(f.dirty, n)
	refactor := 0
	switch {
	case full:
		cx := f.cx[:f.cp[n]]
		for k, i := range f.perm {
			f.fillRow(a, fr, k, i, cx, nil)
		}
	case f.cxKnown(a):
		// A's values are those the factored C (cxOld) was made of, so
		// only the rows on the paths from the positions that entered or
		// left F to the root of the elimination tree can differ (an entry
		// (k, c) of C's lower triangle makes k an ancestor of c): those
		// are brought to this call's values in place, and the swap makes
		// them cx. The same rows come out changed and dirty as when
		// every row is compared (below).
		clear(f.dirty[:n])
		f.recompute = 0
		f.cx, f.cxOld = f.cxOld, f.cx
		cx := f.cx[:f.cp[n]]
		f.toggles(state)
		onPath := f.cw[:0] // analysis workspace (n), free after it
		for _, c := range f.toggled {
			for j := c; j >= 0 && f.flag[j] != onPathMark; j = f.parent[j] {
				f.flag[j] = onPathMark
				onPath = append(onPath, j)
			}
		}
		for _, k := range onPath {
			f.flag[k] = -1
			if f.fillRow(a, fr, int(k), f.perm[k], cx, cx) {
				refactor += f.markDirty(int(k))
			}
		}
		if f.recompute == 0 {
			f.cx, f.cxOld = f.cxOld, f.cx
			return true // the same matrix: the factor stands
		}
	default:
		// The rows whose row of C differs from the factored one, and
		// their ancestors, are marked dirty, with the flops of
		// recomputing them.
		clear(f.dirty[:n])
		f.recompute = 0
		cx, old := f.cx[:f.cp[n]], f.cxOld[:f.cp[n]]
		for k, i := range f.perm {
			if f.fillRow(a, fr, k, i, cx, old) {
				refactor += f.markDirty(k)
			}
		}
		if f.recompute == 0 {
			return true // the same matrix: the factor stands
		}
	}
	if !full {
		// A new A (a time stepper's next step) keeps the factor of the
		// last one as a preconditioner when that is worth it (see
		// solve): the factor goes stale, and moved indices are modified
		// into it as below.
		aSame := f.modifiable() && f.avalOf(a)
		keepStale := f.modifiable() && !aSame && !f.refreshNext && f.worthModify(refactor)
		if aSame || keepStale {
			f.toggles(state)
		}
		if keepStale && len(f.toggled) == 0 {
			f.cx, f.cxOld = f.cxOld, f.cx
			f.stale = true
			f.recompute = 0
			f.keep(a, state)
			return true
		}
		if (aSame || keepStale) && f.modifyCheaper(refactor) {
			f.cx, f.cxOld = f.cxOld, f.cx
			if f.modify() {
				f.stale = f.stale || keepStale
				f.recompute = 0
				f.keep(a, state)
				return true
			}
			// A pivot at rounding level on the way: refactor from
			// scratch, which finds and reports it.
			f.cx, f.cxOld = f.cxOld, f.cx
			full = true
		}
	}
	full = full || f.stale // a stale factor is refactored whole
	f.stale, f.refreshNext = false, false
	f.cx, f.cxOld = f.cxOld, f.cx
	f.shiftOld = f.shift
	f.valid = f.numeric(n, full)
	if f.valid {
		f.keep(a, state)
		// The modifications' rounding is gone when every row they touched
		// was recomputed: a modified position's row if it is free, and the
		// rows of its path to the root, which a dirty row takes along (a
		// position that left F is an exact unit row).
		clean := true
		for _, k := range f.modList {
			if full {
				break
			}
			if f.wasFree[k] {
				clean = clean && f.dirty[k]
			} else if p := f.parent[k]; p >= 0 {
				clean = clean && f.dirty[p]
			}
		}
		if clean {
			f.modList = f.modList[:0]
		}
	}
	return f.valid
}

// onPathMark marks a position in flag while refactor collects the paths
// of the toggled positions (flag is otherwise −1 or a row's mark ≥ 0).
const onPathMark = -2

// fillRow writes row k of C (position k, row i of A) into cx: A's value at
// csrc[p] for entry p when both positions are free, the unit pivot on the
// diagonal of a row outside F, else 0. With old set (which may be cx
// itself) it reports whether the row differs from old's (!= as
// slices.Equal: a NaN is a change).
func (f *sparseLDL) fillRow(a *Sparse, fr []bool, k int, i int32, cx, old []float64) bool {
	lo, hi := f.cp[k], f.cp[k+1]
	ci := f.ci[lo:hi]
	row := cx[lo:hi]
	row = row[:len(ci)]
	ch := false
	if !fr[k] {
		for t, c := range ci {
			v := 0.0
			if c == int32(k) {
				v = f.unit(i)
			}
			if old != nil && v != old[lo+t] {
				ch = true
			}
			row[t] = v
		}
		return ch
	}
	src, val := f.csrc[lo:hi], a.val
	src = src[:len(ci)]
	if old == nil {
		for t, c := range ci {
			v := 0.0
			if fr[c] {
				v = val[src[t]]
			}
			row[t] = v
		}
		return false
	}
	rowOld := old[lo:hi]
	rowOld = rowOld[:len(ci)]
	for t, c := range ci {
		v := 0.0
		if fr[c] {
			v = val[src[t]]
		}
		if v != rowOld[t] {
			ch = true
		}
		row[t] = v
	}
	return ch
}

// markDirty marks position k and its ancestors dirty, up to the first one
// already marked, counting them in recompute, and returns the flops of
// recomputing the rows it marked.
func (f *sparseLDL) markDirty(k int) int {
	flops := 0
	for j := int32(k); j >= 0 && !f.dirty[j]; j = f.parent[j] {
		f.dirty[j] = true
		f.recompute++
		flops += f.rowFlops[j]
	}
	return flops
}

// cxKnown reports whether the factored C (cxOld) is known to be that of
// a's current values on the free set wasFree (possibly with the positions
// on which the two differ giving the same values): keep recorded a at its
// current stamp, and has recorded every factorization since (modifiable).
func (f *sparseLDL) cxKnown(a *Sparse) bool {
	return f.avalA == a && f.avalStamp == a.stamp && a.finished &&
		len(f.wasFree) >= a.n && f.modifiable()
}

// analyze computes the ordering and the symbolic analysis of a's pattern
// unless they are those of the last call (same matrix, same version), and
// sizes the factor's storage for it.
func (f *sparseLDL) analyze(a *Sparse) {
	f.count(a)
	if !f.sized {
		f.storage()
	}
}

// count computes the ordering of a's pattern, the elimination tree, the
// column counts of L and symFlops, unless they are those of the last call;
// the factor's storage (storage) is sized only when the pattern is
// factored, so a pattern analysed only for its flops (kktLDL.dualFlops)
// does not allocate its L.
func (f *sparseLDL) count(a *Sparse) { f.countUpTo(a, 0) }

// countUpTo is count, except that with limit > 0 it gives up as soon as
// the ordering's flops pass limit (see ordering.minDegree) and reports
// false, leaving f with no analysis (the next count orders again); it
// reports true when the analysis is complete.
func (f *sparseLDL) countUpTo(a *Sparse, limit int) bool {
	a.ensurePattern() // a pattern ResetCliquesLazy put off; the values may stay off
	n := a.n
	if f.a == a && f.ver == a.version && len(f.perm) == n {
		return true
	}
	var over bool
	f.perm, _, over = f.ord.minDegree(a, f.perm, limit)
	if over {
		f.a = nil
		f.valid, f.sized = false, false
		return false
	}
	f.a, f.ver = a, a.version
	f.ploc = growInt32(f.ploc, n)
	for k, i := range f.perm {
		f.ploc[i] = int32(k)
	}
	f.symbolic(a)
	f.valid, f.sized = false, false
	return true
}

// unit returns the diagonal of row i of the padded matrix when i is outside
// F: −1 for a row whose pivot is expected negative (i < negBelow), else 1.
func (f *sparseLDL) unit(i int32) float64 {
	if int(i) < f.negBelow {
		return -1
	}
	return 1
}

// pivotOK reports whether d, the pivot of position k, has the expected sign
// (negative for a row below negBelow, positive otherwise) and exceeds
// pivotFloor·|akk| in magnitude, akk the diagonal entry it came from.
func (f *sparseLDL) pivotOK(k int, d, akk float64) bool {
	if int(f.perm[k]) < f.negBelow {
		d = -d
	}
	return d > pivotFloor*math.Abs(akk) && !math.IsInf(d, 0)
}

// keep records the values of A and the free set of the factored C, which
// the next call compares its own with; nothing when the pattern is too
// small for modifications (the copy would be work on every iteration).
func (f *sparseLDL) keep(a *Sparse, state []State) {
	if !f.modifiable() {
		f.avalA = nil // what is kept is no longer the factored C's (cxKnown)
		return
	}
	if !f.avalOf(a) {
		f.aval = append(f.aval[:0], a.val[:a.ptr[a.n]]...)
	}
	f.avalA, f.avalStamp = a, a.stamp
	f.wasFree = growBool(f.wasFree, a.n)
	for k, i := range f.perm {
		f.wasFree[k] = state[i] == Free
	}
}

// avalOf reports whether aval holds a's current values: at once when aval
// was kept for a at its current stamp (equal stamps mean equal values, see
// Sparse.stamp), else by comparing them.
func (f *sparseLDL) avalOf(a *Sparse) bool {
	if f.avalA == a && f.avalStamp == a.stamp && a.finished {
		return true
	}
	return slices.Equal(a.val[:a.ptr[a.n]], f.aval)
}

// snFreeFor returns snFree sized for n positions, set to whether each
// position's row is free (loc ≥ 0).
func (f *sparseLDL) snFreeFor(n int) []bool {
	f.snFree = growBool(f.snFree, n)
	fr := f.snFree[:n]
	for k, i := range f.perm {
		fr[k] = f.loc[i] >= 0
	}
	return fr
}

// symbolic computes the pattern of C (the lower triangle of the whole of A
// in elimination order), its elimination tree, the column pointers of L
// and the slots of each row's entries.
func (f *sparseLDL) symbolic(a *Sparse) {
	n := a.n
	f.cp = growInt(f.cp, n+1)
	// The lower triangle with the diagonal: at most (nnz + n)/2 entries,
	// allocated once rather than by append's growth.
	f.ci = num.Grow(f.ci, (a.ptr[n]+n)/2)[:0]
	f.csrc = num.Grow(f.csrc, (a.ptr[n]+n)/2)[:0]
	f.cp[0] = 0
	f.cdiag = growInt(f.cdiag, n)
	for k, i := range f.perm {
		lo, hi := a.ptr[i], a.ptr[i+1]
		for t, j := range a.col[lo:hi] {
			if l := f.ploc[j]; l <= int32(k) {
				if l == int32(k) {
					f.cdiag[k] = len(f.ci)
				}
				f.ci = append(f.ci, l)
				f.csrc = append(f.csrc, int32(lo+t))
			}
		}
		f.cp[k+1] = len(f.ci)
	}
	f.parent = growInt32(f.parent, n)
	f.lnz = growInt32(f.lnz, n)
	f.flag = growInt32(f.flag, n)
	f.lp = growInt(f.lp, n+1)
	for k := range f.flag {
		f.flag[k] = -1 // the marks of a previous call are stale
	}
	f.etree()
	// L's column counts: the ordering's degrees at elimination (exact,
	// its elimination graph being explicit; see ordering.minDegree).
	copy(f.lnz[:n], f.ord.cnt[:n])
	f.lp[0] = 0
	f.symFlops = 0
	for k := 0; k < n; k++ {
		c := int(f.lnz[k])
		f.lp[k+1] = f.lp[k] + c
		f.symFlops += c * (c - 1) / 2
	}
	f.pathLen = growInt(f.pathLen, n)
	for k := n - 1; k >= 0; k-- {
		f.pathLen[k] = int(f.lnz[k])
		if p := f.parent[k]; p >= 0 {
			f.pathLen[k] += f.pathLen[p]
		}
	}
}

// etree sets parent, the elimination tree of the permuted pattern (ci by
// rows, lower triangle), in O(nnz · α) with path compression (Liu, "The
// role of elimination trees in sparse factorization", SIAM J. Matrix Anal.
// Appl. 11(1), 1990): for each row k, every column i < k of it is followed
// up through its ancestors (compressed to k) to a root, which becomes a
// child of k.
func (f *sparseLDL) etree() {
	n := len(f.perm)
	f.cw = growInt32(f.cw, n)
	anc := f.cw[:n]
	for k := 0; k < n; k++ {
		f.parent[k] = -1
		anc[k] = -1
		for p := f.cp[k]; p < f.cp[k+1]; p++ {
			for i := f.ci[p]; i != -1 && i < int32(k); {
				next := anc[i]
				anc[i] = int32(k)
				if next == -1 {
					f.parent[i] = int32(k)
				}
				i = next
			}
		}
	}
}

// storage sizes the numeric factorization's arrays for the analysed
// pattern (count): C's values, L's entries and their slots, the rows'
// flops, and the supernodes.
func (f *sparseLDL) storage() {
	n := len(f.perm)
	f.cx = num.Grow(f.cx, f.cp[n])
	f.cxOld = num.Grow(f.cxOld, f.cp[n])
	f.rowFlops = num.Grow(f.rowFlops, n)
	f.rowLen = num.Grow(f.rowLen, n)
	f.li = num.Grow(f.li, f.lp[n])
	f.lx = num.Grow(f.lx, f.lp[n])
	f.patKept, f.rowLazy = false, false
	f.rs = num.Grow(f.rs, n+1)
	f.supernodes()
	f.sn = f.useSupernodes()
	if f.sn {
		f.structure() // rcol and rslot come row by row (knowRow)
		f.snodes()
	} else {
		f.rslot = num.Grow(f.rslot, f.lp[n])
		f.rcol = num.Grow(f.rcol, f.lp[n])
	}
	f.sized = true
}

// numeric computes the rows of L and D: all of them when full is set,
// otherwise the rows marked dirty (the others are unchanged). Both visit
// a row's entries in the same order, so a partial refactorization gives
// the same bits as a full one. It reports false on a pivot at rounding
// level, leaving the factor incomplete.
func (f *sparseLDL) numeric(n int, full bool) bool {
	f.d = grow(f.d, n)
	f.y = grow(f.y, n)
	f.pat = growInt32(f.pat, n)
	clear(f.y)
	for k := range f.flag {
		f.flag[k] = -1 // the marks of the symbolic phase are stale
	}
	if f.sn {
		if full {
			f.recompute = n
		}
		return f.numericSN(full)
	}
	if full {
		f.recompute = n
		clear(f.lnz)
		f.rs[0] = 0
		f.patKept = false
	}
	for k := 0; k < n; k++ {
		if !full && !f.dirty[k] {
			continue
		}
		if !f.row(k, full) {
			return false
		}
	}
	if full {
		f.patKept = true
		f.fullFlops = 0
		for _, c := range f.rowFlops[:n] {
			f.fullFlops += c
		}
	}
	return true
}

// row computes row k of L and d_k from row k of the factored C (cxOld)
// and the rows of L before it, by the up-looking sparse triangular solve,
// leaving the pattern of row k (columns in topological order) in
// pat[f.top:n]. With full set it also places the row's entries in the
// column storage (a full factorization visits the rows in order). It
// reports false, with f.failed set, on a pivot at rounding level.
func (f *sparseLDL) row(k int, full bool) bool {
	if f.snEnd != nil {
		return f.rowBlocked(k, full)
	}
	n := len(f.perm)
	y, pat := f.y, f.pat
	top := f.reach(k, full)
	akk := y[k] * (1 + f.shift)
	dk := akk
	y[k] = 0
	rs := f.rs[k]
	flops, cols := 0, 0
	for t := 0; top < n; top, t = top+1, t+1 {
		i := pat[top]
		yi := y[i]
		y[i] = 0
		// Column i's entries of the rows before k are the slots before
		// row k's own: the columns fill in row order.
		p2 := f.slot(int(i), k, rs+t, full)
		lo := f.lp[i]
		flops += p2 - lo
		cols += f.lp[i+1] - lo
		if yi != 0 {
			// yi = 0 (always for a row or column outside F) would subtract
			// zeros: skipped, so the unit rows of the padded matrix cost no
			// flops.
			idx, val := f.li[lo:p2], f.lx[lo:p2]
			val = val[:len(idx)] // no bounds check on val in the loop
			for t, r := range idx {
				y[r] -= val[t] * yi
			}
		}
		lki := yi / f.d[i]
		dk -= lki * yi
		f.lx[p2] = lki
	}
	return f.endRow(k, full, dk, akk, flops, cols)
}

// endRow ends row k: with full set it records the row's flops and the
// entries of its columns; it sets d_k, or reports false with f.failed set
// on a pivot at rounding level (or of the wrong sign, see negBelow).
func (f *sparseLDL) endRow(k int, full bool, dk, akk float64, flops, cols int) bool {
	if full {
		f.rowFlops[k], f.rowLen[k] = flops, cols
	}
	if !f.pivotOK(k, dk, akk) {
		f.failed = int(f.loc[f.perm[k]])
		if f.failed < 0 {
			f.failed = 0
		}
		return false
	}
	f.d[k] = dk
	return true
}

// reach scatters row k of the factored C (cxOld) into y and leaves the
// pattern of row k of L (the reach of its columns in the elimination tree)
// in topological order on the stack pat[top:n], setting and returning
// f.top. A full factorization walks the tree and keeps the pattern in
// rcol (setting rs[k+1]); the others copy it from there once a full one
// has completed (patKept), the same columns in the same order.
func (f *sparseLDL) reach(k int, full bool) int {
	n := len(f.perm)
	cx := f.cxOld
	y, pat := f.y, f.pat
	if f.patKept && !full {
		f.knowRow(k)
		for p := f.cp[k]; p < f.cp[k+1]; p++ {
			y[f.ci[p]] += cx[p]
		}
		lo, hi := f.rs[k], f.rs[k+1]
		top := n - (hi - lo)
		copy(pat[top:n], f.rcol[lo:hi])
		f.top = top
		return top
	}
	for p := f.cp[k]; p < f.cp[k+1]; p++ {
		y[f.ci[p]] += cx[p]
	}
	top := f.treeReach(k)
	f.top = top
	if full {
		rs := f.rs[k]
		f.rs[k+1] = rs + (n - top)
		copy(f.rcol[rs:f.rs[k+1]], pat[top:n])
	}
	return top
}

// treeReach leaves the pattern of row k of L, the reach of row k of C's
// columns in the elimination tree, in topological order on the stack
// pat[top:n], and returns top; flag marks the columns visited for k.
func (f *sparseLDL) treeReach(k int) int {
	n := len(f.perm)
	pat, parent, flag := f.pat, f.parent, f.flag
	top := n
	flag[k] = int32(k)
	for p := f.cp[k]; p < f.cp[k+1]; p++ {
		i := f.ci[p]
		ln := 0
		for ; flag[i] != int32(k); i = parent[i] {
			pat[ln] = i
			ln++
			flag[i] = int32(k)
		}
		for ln > 0 {
			top--
			ln--
			pat[top] = pat[ln]
		}
	}
	return top
}

// modifyCheaper reports whether the last factor can be modified into the
// new one, whose moved positions toggles left in f.toggled (fewer than
// maxModify modifications since the last refactorization), in less time
// than the partial refactorization of refactor flops. An index leaving F
// costs a rank-one update along its path to the root of the elimination
// tree, one entering it also the up-looking solve of its row and the
// column below it; a rank-one pass costs two flops per entry. For a
// quasi-definite K̃ (negBelow > 0) the flops are weighed by their measured
// time (modifyTime, refactorTime); for a dual A, whose structural flops
// overstate its refactorization (see worthModify), flop for flop.
func (f *sparseLDL) modifyCheaper(refactor int) bool {
	if !f.worthModify(refactor) || len(f.modList) >= f.maxModify() {
		return false
	}
	if len(f.toggled) == 0 || len(f.modList)+len(f.toggled) > f.maxModify() {
		return false
	}
	cost := f.modifyFlops()
	if f.negBelow == 0 {
		return cost < refactor
	}
	n := len(f.perm)
	return modifyTime(cost, n) < refactorTime(refactor, n)
}

// modifyFlops returns the flops of modifying the factor by f.toggled (see
// modifyCheaper).
func (f *sparseLDL) modifyFlops() int {
	cost := 0
	for _, k := range f.toggled {
		cost += 2 * f.pathLen[k]
		if !f.wasFree[k] {
			cost += f.rowLen[k] + int(f.lnz[k])
		}
	}
	return 2 * cost
}

// modifyTime and refactorTime estimate, in nanoseconds, the time of row
// modifications of flops flops (modifyCheaper's count) and of a partial
// refactorization of flops structural flops of a K̃ of n rows. Each
// pass also touches every row once (modify clears its marks, numeric its
// marks and workspace and visits every supernode). Fitted by weighted
// least squares (relative error) to the fastest of 5 times of each path,
// forced in turn, on the same face change: the second face of step 1's
// pre-solve of pyramids of base 8 to 31 (1 320 to 20 088 rows, 4 to 36
// moved indices; up-looking below 8 340 rows, supernodal from there):
// measured over fitted 0.73–1.42 for the 10 modifications, 0.88–1.06 for
// the 10 refactorizations. A modification's scalar
// rank-one passes run at 0.14 ns a flop, a refactorization's supernodal
// or up-looking rows at 0.32 (its flops are multiply-adds of structural
// entries); the fixed costs are 3.5 and 56 ns a row. On the 496-brick
// pyramid's 36 moved indices (8.7 MFlop of modifications against 8.6 of
// refactorization) that is 1.2 ms against 4.1 ms measured, where flop
// for flop chose the refactorization; on the smaller pyramids both rules
// modify (3.4–8.5 times faster than refactoring there). The brick walls'
// and random piles' faces never reach this choice (worthModify declines
// them); the dominoes' do, and now modify some more.
func modifyTime(flops, n int) float64 { return 0.14*float64(flops) + 3.5*float64(n) }

func refactorTime(flops, n int) float64 { return 0.32*float64(flops) + 56*float64(n) }

// toggles leaves in f.toggled the positions whose membership in F differs
// from the factored C's, and returns their number.
func (f *sparseLDL) toggles(state []State) int {
	f.toggled = f.toggled[:0]
	for k, i := range f.perm {
		if (state[i] == Free) != f.wasFree[k] {
			f.toggled = append(f.toggled, int32(k))
		}
	}
	return len(f.toggled)
}

// factorFlopCost returns the time of one structural multiply-add of a
// K̃'s factorization in units of one of a solve's substitutions, rounded
// down so that a borderline pattern keeps refactoring. Measured (cpu-ns per
// flop, go test ./lcp -run '^$' -bench FactorSolveCost, on the face of a
// settled scene's last solve): by up-looking rows 3.3–3.6 against
// 0.86–0.93 on the 30- and 100-brick walls, 2.5 against 0.84 on the
// 55-brick pyramid (ratios 3.9 and 2.9); by supernodes 1.24 against 0.75
// on the 210-brick pyramid (1.7).
func (f *sparseLDL) factorFlopCost() float64 {
	if f.sn {
		return 1.5
	}
	return 3
}

// worthModify reports whether a (partial) refactorization of refactor
// structural flops is to be replaced by a stale or modified factor. For a
// quasi-definite K̃ (negBelow > 0), when it costs more than the refinement
// such a factor may add in its place: refineSlow+1 steps (a stale factor
// that needs more is refreshed at the next factor), each a solve with the
// factor and a product with the block (stepFlops), at factorFlopCost
// solve flops per factorization flop. For a dual A, whose structural flops
// do not predict its factorization's time (they count the entries a free
// set leaves at zero, and a small solve is dominated by its O(n) passes:
// a refactorization measured 0.04–0.4 solve flops per flop, on the
// forklift, the dominoes and the 36-brick pyramid, about the time of one
// solve), from dualModifyFlops on. Otherwise the factor is refactored,
// bit for bit the one from scratch. Tests may replace the rule by a flop
// floor (f.minModify > 0).
func (f *sparseLDL) worthModify(refactor int) bool {
	switch {
	case f.noModify:
		return false
	case f.minModify > 0:
		return refactor >= f.minModify
	case f.negBelow == 0:
		return refactor >= dualModifyFlops
	}
	return f.factorFlopCost()*float64(refactor) >= float64((refineSlow+1)*f.stepFlops())
}

// dualModifyFlops is the partial refactorization of a dual A from which
// modifications and stale factors are tried (see worthModify): about a
// millisecond of refactorization.
const dualModifyFlops = 2_000_000

// stepFlops is the multiply-adds of one refinement step (see solve): the
// two substitutions with L (2·nnz L) and the product with the padded
// block's whole pattern (2·nnz of its lower triangle less the diagonal).
func (f *sparseLDL) stepFlops() int {
	n := len(f.perm)
	return 2*f.lp[n] + 2*f.cp[n] - n
}

// modifiable reports whether a full factorization of the pattern is worth
// replacing (worthModify); when it is not, no partial refactorization is
// either, and neither modifications nor stale factors are tried.
func (f *sparseLDL) modifiable() bool {
	return f.worthModify(f.fullFlops)
}

// maxModify bounds the row modifications between refactorizations: each
// rounds L and D a little differently from a factorization from scratch,
// and a refactorization (the next change of A at the latest: every time
// step) starts afresh. The bound is a quarter of the rows, at least 256.
func (f *sparseLDL) maxModify() int { return max(256, len(f.perm)/4) }

// modify turns the factor of the last C into that of the new one (cxOld),
// which differs in the rows and columns of the positions f.toggled only,
// by row modifications (Davis and Hager, "Row modifications of a sparse
// Cholesky factorization", SIAM J. Matrix Anal. Appl. 26(3), 2005): first
// every index that left F (its row and column become the unit row of the
// padded matrix, a rank-one update of the rows after it), then every index
// that entered F, in elimination order (its row of L by the up-looking
// solve, its column below the diagonal, and a rank-one downdate of the rows
// after it). Each intermediate matrix is a padded principal submatrix of
// C, positive definite if C is. The rank-one passes are Gill, Golub, Murray
// and Saunders' method C1 ("Methods for modifying matrix factorizations",
// Math. Comp. 28, 1974) on the path of the elimination tree. It reports
// false if a pivot falls to rounding level, leaving the factor invalid.
func (f *sparseLDL) modify() bool {
	n := len(f.perm)
	f.w = grow(f.w, n) // all zero between modifications
	for k := range f.flag {
		f.flag[k] = -1
	}
	f.valid = false
	for _, k := range f.toggled {
		if f.wasFree[k] {
			f.deleteRow(int(k))
		}
	}
	for _, k := range f.toggled {
		if !f.wasFree[k] && !f.addRow(int(k)) {
			return false
		}
	}
	f.modList = append(f.modList, f.toggled...)
	f.modifyOps = len(f.toggled)
	f.valid = true
	return true
}

// deleteRow makes position k a unit row and column: L's row and column k
// become zero, d_k one, and the rows after k take the rank-one update
// d_k l lᵀ with l the old column k below the diagonal.
func (f *sparseLDL) deleteRow(k int) {
	f.knowRow(k)
	for t := f.rs[k]; t < f.rs[k+1]; t++ {
		f.lx[f.rslot[t]] = 0
	}
	for q := f.lp[k]; q < f.lp[k+1]; q++ {
		f.w[f.li[q]] = f.lx[q]
		f.lx[q] = 0
	}
	dk := f.d[k]
	f.d[k] = f.unit(f.perm[k])
	f.rank1(k, dk)
}

// addRow makes position k, a unit row of the factor, row and column k of
// the new C: row k of L by the up-looking solve, the column below the
// diagonal from column k of C (its entries in rows that are free in the
// intermediate matrix: free before and after; rows still to be added come
// in later) minus the columns of row k's pattern, and the rank-one downdate
// −d_k l lᵀ of the rows after k. It reports false on a pivot at rounding
// level.
func (f *sparseLDL) addRow(k int) bool {
	if !f.row(k, false) {
		return false
	}
	w := f.w
	cols, vals := f.a.row(int(f.perm[k]))
	for t, j := range cols {
		if r := f.ploc[j]; r > int32(k) && f.wasFree[r] && f.loc[j] >= 0 {
			w[r] = vals[t]
		}
	}
	n := len(f.perm)
	rs := f.rs[k]
	for t, top := 0, f.top; top < n; top, t = top+1, t+1 {
		i := f.pat[top]
		p2 := int(f.rslot[rs+t])
		c := f.d[i] * f.lx[p2]
		if c == 0 {
			continue
		}
		hi := f.lp[i+1]
		idx, val := f.li[p2+1:hi], f.lx[p2+1:hi]
		val = val[:len(idx)]
		for t, r := range idx {
			w[r] -= c * val[t]
		}
	}
	dk := f.d[k]
	for q := f.lp[k]; q < f.lp[k+1]; q++ {
		r := f.li[q]
		f.lx[q] = w[r] / dk
		w[r] = f.lx[q]
	}
	return f.rank1(k, -dk)
}

// rank1 adds α w wᵀ to the factored matrix after position k, w held in
// f.w with its non-zeros on the path from k to the root (method C1 on that
// path), and clears f.w. It reports false if a pivot of a downdate (α < 0)
// falls to rounding level.
func (f *sparseLDL) rank1(k int, alpha float64) bool {
	w := f.w
	ok := true
	for j := f.parent[k]; j >= 0; j = f.parent[j] {
		p := w[j]
		w[j] = 0
		if p == 0 || !ok {
			continue // walk on: the path's entries must be cleared
		}
		dj := f.d[j]
		dn := dj + alpha*p*p
		if akk := f.cxOld[f.cdiag[j]] * (1 + f.shift); !f.pivotOK(int(j), dn, akk) {
			ok = false
			for q := f.lp[j]; q < f.lp[j+1]; q++ {
				w[f.li[q]] = 0
			}
			continue
		}
		beta := p * alpha / dn
		alpha *= dj / dn
		f.d[j] = dn
		lo, hi := f.lp[j], f.lp[j+1]
		idx, val := f.li[lo:hi], f.lx[lo:hi]
		val = val[:len(idx)]
		for t, r := range idx {
			w[r] -= p * val[t]
			val[t] += beta * w[r]
		}
	}
	return ok
}

// solve overwrites x (length m, in the order of f.free) with A_FF⁻¹ x, the
// shifted block if f.shift > 0. A fresh factor solves directly. A stale
// one (the factor of an earlier A, see factor) is a preconditioner for
// iterative refinement against the current A:
//
//	x₀ = M⁻¹ r,   x_{k+1} = x_k + M⁻¹ (r − A_FF x_k),
//
// which contracts the error by ‖I − M⁻¹A_FF‖ per step, about the relative
// change of A since the factorization over the block's smallest relative
// eigenvalue: a resting stack's A changes by rounding from step to step, and
// two or three steps reach rounding. It stops when every row's residual is
// within refineTol of its Oettli–Prager scale, Σ_j |a_ij x_j| + |r_i| (the
// componentwise backward error of a stable direct solve), and reports false
// (x undefined) when a step fails to halve the residual or maxRefine steps
// do not get there: the caller then refactors. A solve that needed more
// than refineSlow steps asks the next factor for a refactorization.
func (f *sparseLDL) solve(x []float64) bool {
	f.refineIts = 0
	if !f.stale {
		f.solveDirect(x)
		return true
	}
	m := len(f.free)
	x = x[:m]
	f.rr = append(f.rr[:0], x...)
	f.dx = grow(f.dx, m)
	f.solveDirect(x)
	prev := math.Inf(1)
	for it := 1; it <= maxRefine; it++ {
		worst, ok := f.residual(x, f.dx)
		if ok {
			f.refreshNext = f.refreshNext || it-1 > refineSlow
			return true
		}
		if !(worst < 0.5*prev) || it == maxRefine {
			return false
		}
		prev = worst
		f.refineIts = it
		f.solveDirect(f.dx)
		for k, v := range f.dx {
			x[k] += v
		}
	}
	return false
}

// residual sets res = r − A_FF x (r in f.rr, the block shifted by f.shift)
// and returns the largest |res_i| relative to its Oettli–Prager scale, and
// whether all are within refineTol of it.
func (f *sparseLDL) residual(x, res []float64) (float64, bool) {
	worst, ok := 0.0, true
	for k, i := range f.free {
		cols, vals := f.a.row(int(i))
		s, sc := f.rr[k], math.Abs(f.rr[k])
		for t, j := range cols {
			l := f.loc[j]
			if l < 0 {
				continue
			}
			v := vals[t]
			if j == i {
				v *= 1 + f.shift
			}
			p := v * x[l]
			s -= p
			sc += math.Abs(p)
		}
		res[k] = s
		if w, bad := opError(s, sc); bad {
			ok, worst = false, math.Max(worst, w)
		}
	}
	return worst, ok
}

// opError returns a residual s's size relative to its Oettli–Prager scale
// sc (+Inf when sc is 0) and whether it exceeds refineTol of it.
func opError(s, sc float64) (float64, bool) {
	e := math.Abs(s)
	if !(e > refineTol*sc) {
		return 0, false
	}
	if sc > 0 {
		return e / sc, true
	}
	return math.Inf(1), true
}

// Refinement against a stale factor (see solve): the componentwise
// residual it reaches (a few units of rounding: a fresh factor's solve
// reaches about 1e-15 on the stepper's blocks), the steps after which the
// next factor refactors, and the steps it may take.
const (
	refineTol  = 1e-13
	refineSlow = 3
	maxRefine  = 8
)

// solveDirect overwrites x with (L D Lᵀ)⁻¹ x in the order of f.free.
func (f *sparseLDL) solveDirect(x []float64) {
	n := len(f.perm)
	x = x[:len(f.free)]
	f.xp = grow(f.xp, n)
	xp := f.xp
	clear(xp)
	for k, i := range f.free {
		xp[f.ploc[i]] = x[k]
	}
	f.substitute(xp)
	for k, i := range f.free {
		x[k] = xp[f.ploc[i]]
	}
}

// substitute overwrites xp, a right-hand side by elimination position
// (zero outside F), with (L D Lᵀ)⁻¹ xp: by supernodes (solveSN) or by
// columns.
func (f *sparseLDL) substitute(xp []float64) {
	if f.sn {
		f.solveSN(xp)
		return
	}
	n := len(f.perm)
	for j := 0; j < n; j++ {
		xj := xp[j]
		if xj == 0 {
			continue
		}
		lo, hi := f.lp[j], f.lp[j+1]
		idx, val := f.li[lo:hi], f.lx[lo:hi]
		val = val[:len(idx)] // no bounds check on val in the loop
		for t, r := range idx {
			xp[r] -= val[t] * xj
		}
	}
	// D⁻¹ in the backward pass: x_j/d_j is taken as row j's start, the
	// value the separate pass over x would have left there.
	d := f.d[:n]
	for j := n - 1; j >= 0; j-- {
		v := xp[j] / d[j]
		lo, hi := f.lp[j], f.lp[j+1]
		idx, val := f.li[lo:hi], f.lx[lo:hi]
		val = val[:len(idx)]
		for t, r := range idx {
			v -= val[t] * xp[r]
		}
		xp[j] = v
	}
}

// nnzL returns the number of entries of the strictly lower part of L.
func (f *sparseLDL) nnzL() int { return f.lp[len(f.perm)] }

// ordering is the workspace of the minimum degree ordering.
type ordering struct {
	snode []int32 // supervariable of each row
	first []int32 // first row of each supervariable (len ns+1)
	// cnt holds, per position of the order, the count of L's column
	// below the diagonal (the degree at elimination: see minDegree).
	cnt  []int32
	size []int32   // rows of each supervariable
	adj  [][]int32 // adjacency of each supervariable, ascending, no self
	// arena holds the adjacency lists of one call (carve): reset at the
	// start of each, it keeps its capacity, so that orderings of patterns
	// that change from step to step allocate only when the total grows.
	arena []int32
	tmp   []int32
	deg   []int   // external degree: rows in adjacent supervariables
	head  []int32 // degree buckets: doubly linked lists
	next  []int32
	prev  []int32
}

// minDegree returns in perm (reused) a minimum degree elimination order of
// the rows of a. It eliminates the supervariable of least external degree
// (the number of rows it is coupled to in the elimination graph), with ties
// broken by the last one to reach that degree, and forms the elimination
// graph explicitly: eliminating v makes its neighbours a clique. This is the
// classical algorithm of Tinney and Walker / George and Liu without the
// quotient graph, which is adequate when the fill stays small, as it does
// for the banded and block-sparse matrices of multibody systems.
//
// Since the graph is exact, the degree of a supervariable of s rows when
// it is eliminated is the column count of its last row in L, and its rows'
// counts are that plus s − 1, …, 0: o.cnt keeps them by position (the
// symbolic analysis' lnz), and flops, returned, is its symFlops. With limit > 0 the ordering stops as
// soon as flops passes limit and reports over (perm then holds only the
// rows eliminated so far): a cost test needs no more.
func (o *ordering) minDegree(a *Sparse, perm []int32, limit int) (_ []int32, flops int, over bool) {
	n := a.n
	perm = growInt32(perm, n)[:0]
	o.cnt = growInt32(o.cnt, n)[:0]
	// Supervariables: runs of consecutive rows with identical patterns.
	o.snode = growInt32(o.snode, n)
	o.first = o.first[:0]
	ns := 0
	for i := 0; i < n; i++ {
		if i > 0 {
			c0, _ := a.row(i - 1)
			c1, _ := a.row(i)
			if slices.Equal(c0, c1) {
				o.snode[i] = int32(ns - 1)
				continue
			}
		}
		o.first = append(o.first, int32(i))
		o.snode[i] = int32(ns)
		ns++
	}
	o.first = append(o.first, int32(n))
	o.size = growInt32(o.size, ns)
	size := o.size
	for t := range size {
		size[t] = o.first[t+1] - o.first[t]
	}
	if cap(o.adj) < ns {
		o.adj = append(o.adj[:cap(o.adj)], make([][]int32, ns-cap(o.adj))...)
	}
	o.adj = o.adj[:ns]
	o.deg = growInt(o.deg, ns)
	o.tmp = growInt32(o.tmp, ns) // a vertex's new neighbours (below)
	o.head = growInt32(o.head, n+1)
	o.next = growInt32(o.next, ns)
	o.prev = growInt32(o.prev, ns)
	for d := range o.head {
		o.head[d] = -1
	}
	o.arena = o.arena[:0]
	for s := 0; s < ns; s++ {
		cols, _ := a.row(int(o.first[s]))
		adj := o.carve(len(cols))
		deg := 0
		for _, j := range cols {
			t := o.snode[j]
			if t == int32(s) || (len(adj) > 0 && adj[len(adj)-1] == t) {
				continue
			}
			adj = append(adj, t)
			deg += int(size[t])
		}
		o.adj[s] = adj
		o.deg[s] = deg
		o.push(int32(s), deg)
	}
	mind := 0
	for done := 0; done < ns; done++ {
		for o.head[mind] < 0 {
			mind++
		}
		v := o.head[mind]
		o.remove(v, mind)
		for r := o.first[v]; r < o.first[v+1]; r++ {
			perm = append(perm, r)
			c := mind + int(o.first[v+1]-r) - 1 // the row's column count
			o.cnt = append(o.cnt, int32(c))
			flops += c * (c - 1) / 2
		}
		if limit > 0 && flops > limit {
			return perm, flops, true
		}
		nb := o.adj[v]
		for _, u := range nb {
			// adj(u) ← adj(u) ∪ adj(v) \ {u, v}, ascending: v leaves
			// adj(u) in place and the few neighbours of v new to u are
			// merged in from the back. They are found by binary search
			// in adj(u) when it is long against adj(v) (a body's list,
			// a constraint row eliminated), else by one walk through
			// both lists (a body eliminated, its rows' short lists): the
			// same neighbours either way. The degree follows: it is
			// Σ size over adj(u).
			au := o.adj[u]
			deg := o.deg[u]
			if iv, ok := slices.BinarySearch(au, v); ok {
				au = append(au[:iv], au[iv+1:]...)
				deg -= int(size[v])
			}
			nw := o.tmp[:0]
			if len(nb)*bits.Len(uint(len(au))) <= len(au) {
				for _, w := range nb {
					if w == u {
						continue
					}
					if _, ok := slices.BinarySearch(au, w); !ok {
						nw = append(nw, w)
						deg += int(size[w])
					}
				}
			} else {
				// The same w by one walk through both ascending lists.
				i := 0
				for _, w := range nb {
					for i < len(au) && au[i] < w {
						i++
					}
					if w == u || (i < len(au) && au[i] == w) {
						continue
					}
					nw = append(nw, w)
					deg += int(size[w])
				}
			}
			o.tmp = nw
			if len(nw) > 0 {
				m := len(au) + len(nw)
				if cap(au) < m {
					au = append(o.carve(2*m), au...)
				}
				i, k := len(au)-1, m-1
				au = au[:m]
				for j := len(nw) - 1; j >= 0; k-- {
					if i >= 0 && au[i] > nw[j] {
						au[k] = au[i]
						i--
					} else {
						au[k] = nw[j]
						j--
					}
				}
			}
			o.adj[u] = au
			o.remove(u, o.deg[u])
			o.deg[u] = deg
			o.push(u, deg)
			mind = min(mind, deg)
		}
		o.adj[v] = nb[:0]
	}
	return perm, flops, false
}

// carve returns an empty list of capacity n from the arena. When the
// arena is full it moves to a new one of twice the size; the lists
// carved before keep the old one's storage until the next call.
func (o *ordering) carve(n int) []int32 {
	if len(o.arena)+n > cap(o.arena) {
		o.arena = make([]int32, 0, 2*(cap(o.arena)+n))
	}
	k := len(o.arena)
	o.arena = o.arena[:k+n]
	return o.arena[k : k : k+n]
}

func (o *ordering) push(s int32, d int) {
	h := o.head[d]
	o.next[s], o.prev[s] = h, -1
	if h >= 0 {
		o.prev[h] = s
	}
	o.head[d] = s
}

func (o *ordering) remove(s int32, d int) {
	nx, pv := o.next[s], o.prev[s]
	if pv >= 0 {
		o.next[pv] = nx
	} else {
		o.head[d] = nx
	}
	if nx >= 0 {
		o.prev[nx] = pv
	}
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n, n+n/2)
	}
	return s[:n]
}

// slot returns the position in li/lx of row k's entry in column c, the
// t-th of row k's pattern (r = rs[k] + t): in a full factorization the
// next free slot of the column, recorded in rslot and li; in a partial
// one the slot recorded then.
func (f *sparseLDL) slot(c, k, r int, full bool) int {
	if !full {
		return int(f.rslot[r])
	}
	p := f.lp[c] + int(f.lnz[c])
	f.lnz[c]++
	f.rslot[r] = int32(p)
	f.li[p] = int32(k)
	return p
}
