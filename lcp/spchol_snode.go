package lcp

import (
	"fmt"
	"slices"

	"github.com/gorigid/gorigid/internal/num"
)

// Supernodal numeric factorization (Ng and Peyton, "Block sparse Cholesky
// algorithms on advanced uniprocessor computers", SIAM J. Sci. Comput.
// 14(5), 1993: left-looking, a supernode at a time).
//
// A supernode S is a run of columns s0 … s1 of L, each the parent of the
// one before in the elimination tree, with column c's rows below the
// diagonal c+1 … s1 followed by R_S, the rows of column s1 (snEnd's
// chains, cut at snMaxCols). In the column storage of L (lp, li, lx),
// column c's entry in S's local row q (q < nj for the rows of S itself,
// nj + u for R_S[u]) therefore sits at lp[c] + q − (c − s0) − 1: the block
// L[S ∪ R_S, S] is a dense trapezoid.
//
// Column block S is computed from C's columns S, minus the update
// L[·, T] D_T L[S, T]ᵀ of every earlier supernode T whose rows reach S (in
// ascending order of T), minus the updates of S's own earlier columns,
// then divided by the pivots. Every entry's arithmetic is fixed by the
// pattern and the free set: C's value, then per updating supernode one
// sum over its free columns in column order, then one sum over S's own
// free columns, then the division. So a partial refactorization, which
// computes only the entries in dirty rows (those whose row of C changed,
// and their ancestors: see factor), gives the bits of a full one. Rows and
// columns outside F are exact zeros with unit pivots and cost nothing.
//
// The row modifications (modify) and the up-looking rows they compute
// (rowBlocked) work on the same storage: the row patterns (rcol, rslot)
// are computed symbolically (structure) rather than by a first
// up-looking factorization.

// snMaxCols bounds a supernode's columns: the dense workspace is
// (rows of S and R_S) × snMaxCols.
const snMaxCols = 64

// supernodalFlops is the structural flop count of a full factorization
// from which a quasi-definite K̃ is factored by supernodes: about a
// millisecond of up-looking rows. Below it the up-looking rows stay, with
// their bits.
const supernodalFlops = 2_000_000

// useSupernodes reports whether the analysed pattern is factored by
// supernodes: a quasi-definite K̃ (snEnd set) of at least supernodalFlops,
// or as f.snForce asks (tests).
func (f *sparseLDL) useSupernodes() bool {
	if f.snEnd == nil || f.snForce < 0 {
		return false
	}
	return f.snForce > 0 || f.symFlops >= supernodalFlops
}

// structure computes, from the elimination tree and C's pattern alone, what
// a first full up-looking factorization records: L's row indices (li), each
// row's pattern (rs, and per row on demand rcol and rslot: knowRow), the
// rows' structural flops (rowFlops, rowLen) and their sum (fullFlops).
//
// L's pattern is found by columns, a run of snEnd's at a time: a run's
// first column s0 holds its rows s0+1 … s1 and the rows R below the run,
// which every column of the run shares (supernodes), and its pattern is
// C's column s0 below the diagonal merged with the patterns of the tree
// children of s0, less s0 (Liu, "The role of elimination trees in sparse
// factorization", SIAM J. Matrix Anal. Appl. 11(1), 1990: a column's
// pattern is its own and its children's). A child of a run's first column
// is the last of its own run, whose pattern is its run's R, so each run's
// R is read once, by its parent's run; the work is that of the runs'
// patterns, not of every entry of L, and li is written column by column,
// ascending as the rows' up-looking order fills it. The rows' flops and
// patterns then follow in one pass over li: row k's entry in column c is
// the t-th of the column (its slot lp[c] + t) and costs t multiply-adds.
// Each column's count is checked against the ordering's (lnz).
func (f *sparseLDL) structure() {
	n := len(f.perm)
	f.transposeC()
	flag := f.flag
	for k := range flag {
		flag[k] = -1
	}
	// Each run's first column: the runs whose last column is its child.
	head := f.cw[:n]
	for j := range head {
		head[j] = -1
	}
	f.snRel = num.Grow(f.snRel, n) // the sibling lists; snodes reuses it
	sib := f.snRel[:n]
	for c := 0; c < n; c++ {
		p := f.parent[c]
		if p < 0 || f.snEnd[c] != int32(c) || (p > 0 && f.snEnd[p-1] == f.snEnd[p]) {
			continue // a root, not a run's last column, or a parent inside a run
		}
		sib[c], head[p] = head[p], int32(c)
	}
	f.pat = growInt32(f.pat, n)
	for s0 := 0; s0 < n; {
		s1 := int(f.snEnd[s0])
		list := f.pat[:0]
		for _, r := range f.ctr[f.ctp[s0]:f.ctp[s0+1]] {
			if int(r) > s0 {
				flag[r] = int32(s0)
				list = append(list, r)
			}
		}
		sorted := true
		for c := head[s0]; c >= 0; c = sib[c] {
			for _, r := range f.li[f.lp[c]:f.lp[c+1]] {
				if int(r) != s0 && flag[r] != int32(s0) {
					flag[r] = int32(s0)
					list = append(list, r)
					sorted = false
				}
			}
		}
		if !sorted {
			slices.Sort(list)
		}
		if len(list) != int(f.lnz[s0]) {
			panic(fmt.Sprintf("lcp: sparseLDL.structure: column %d has %d rows, the ordering counted %d", s0, len(list), f.lnz[s0]))
		}
		for j := s0; j <= s1; j++ {
			copy(f.li[f.lp[j]:f.lp[j+1]], list[j-s0:])
		}
		s0 = s1 + 1
	}
	for k := range flag {
		flag[k] = -1
	}
	rowFlops, rowLen, rs := f.rowFlops[:n], f.rowLen[:n], f.rs[:n+1]
	clear(rowFlops)
	clear(rowLen)
	clear(rs)
	for c := 0; c < n; c++ {
		col := f.li[f.lp[c]:f.lp[c+1]]
		ln := int(f.lnz[c])
		for t, r := range col {
			rowFlops[r] += t
			rowLen[r] += ln
			rs[r+1]++
		}
	}
	f.fullFlops = 0
	for k := 0; k < n; k++ {
		rs[k+1] += rs[k]
		f.fullFlops += rowFlops[k]
	}
	f.rowKnown = growBool(f.rowKnown, n)
	clear(f.rowKnown[:n])
	f.rowLazy = true
	f.patKept = true
}

// knowRow records row k's pattern in rcol (its columns in the topological
// order of treeReach, the order the up-looking rows of rowBlocked visit
// them) and its entries' slots in rslot, when structure left them to be
// found on demand (rowLazy): only the rows a modification reaches need
// them (deleteRow, addRow). A slot is row k's place in its column's
// ascending rows (li).
func (f *sparseLDL) knowRow(k int) {
	if !f.rowLazy || f.rowKnown[k] {
		return
	}
	n := len(f.perm)
	nl := f.lp[n]
	if len(f.rcol) < nl || len(f.rslot) < nl {
		f.rcol = num.Grow(f.rcol, nl)
		f.rslot = num.Grow(f.rslot, nl)
	}
	top := f.treeReach(k)
	rs := f.rs[k]
	for t, c := range f.pat[top:n] {
		f.rcol[rs+t] = c
		lo := f.lp[c]
		q, _ := slices.BinarySearch(f.li[lo:f.lp[c+1]], int32(k))
		f.rslot[rs+t] = int32(lo + q)
		f.flag[c] = -1
	}
	f.flag[k] = -1
	f.rowKnown[k] = true
}

// transposeC builds C's lower triangle by columns (ctp, ctr, ctslot): for
// each column its rows ascending and their slots in cx.
func (f *sparseLDL) transposeC() {
	n := len(f.perm)
	f.ctp = num.Grow(f.ctp, n+1)
	clear(f.ctp)
	for p := 0; p < f.cp[n]; p++ {
		f.ctp[f.ci[p]+1]++
	}
	for j := 0; j < n; j++ {
		f.ctp[j+1] += f.ctp[j]
	}
	f.ctr = num.Grow(f.ctr, f.cp[n])
	f.ctslot = num.Grow(f.ctslot, f.cp[n])
	pos := f.cw[:n]
	for j := range pos {
		pos[j] = int32(f.ctp[j])
	}
	for k := 0; k < n; k++ {
		for p := f.cp[k]; p < f.cp[k+1]; p++ {
			j := f.ci[p]
			q := pos[j]
			pos[j]++
			f.ctr[q], f.ctslot[q] = int32(k), int32(p)
		}
	}
}

// snodes partitions the columns into supernodes (snStart, snOf), lists
// for each supernode S the earlier ones whose rows reach it, ascending
// (snUpd[snUpdPtr[S]:snUpdPtr[S+1]], with the positions in R_T of the
// first row in S and of the first row after S), builds C's lower triangle
// by columns (ctp, ctr, ctslot) and sizes the workspaces.
func (f *sparseLDL) snodes() {
	n := len(f.perm)
	f.snStart = f.snStart[:0]
	f.snOf = num.Grow(f.snOf, n)
	for j := 0; j < n; {
		e := min(int(f.snEnd[j]), j+snMaxCols-1)
		for c := j; c <= e; c++ {
			f.snOf[c] = int32(len(f.snStart))
		}
		f.snStart = append(f.snStart, int32(j))
		j = e + 1
	}
	ns := len(f.snStart)
	f.snStart = append(f.snStart, int32(n))
	// The updating supernodes: T reaches S when R_T holds a row of S.
	f.snUpdPtr = growInt(f.snUpdPtr, ns+1)
	clear(f.snUpdPtr)
	work, ws := 0, 0
	for t := 0; t < ns; t++ {
		t1 := int(f.snStart[t+1]) - 1
		rt := f.li[f.lp[t1]:f.lp[t1+1]]
		last := int32(-1)
		for _, r := range rt {
			if s := f.snOf[r]; s != last {
				f.snUpdPtr[s+1]++
				last = s
			}
		}
		nj := t1 + 1 - int(f.snStart[t])
		work = max(work, (nj+len(rt))*nj)
	}
	for s := 0; s < ns; s++ {
		f.snUpdPtr[s+1] += f.snUpdPtr[s]
	}
	m := f.snUpdPtr[ns]
	f.snUpd = num.Grow(f.snUpd, 3*m)
	fill := f.cw[:ns]
	for s := range fill {
		fill[s] = int32(f.snUpdPtr[s])
	}
	for t := 0; t < ns; t++ {
		t1 := int(f.snStart[t+1]) - 1
		lo := f.lp[t1]
		rt := f.li[lo:f.lp[t1+1]]
		for a := 0; a < len(rt); {
			s := f.snOf[rt[a]]
			b := a
			for b < len(rt) && f.snOf[rt[b]] == s {
				b++
			}
			q := fill[s]
			fill[s]++
			f.snUpd[3*q], f.snUpd[3*q+1], f.snUpd[3*q+2] = int32(t), int32(a), int32(b)
			a = b
		}
		ws = max(ws, len(rt))
	}
	f.snW = num.Grow(f.snW, work)
	f.snY = grow(f.snY, max(snMaxCols*snMaxCols, 4*snMaxCols, ws))
	f.snRel = num.Grow(f.snRel, n)
	f.snU = growInt32(f.snU, 2*(ws+snMaxCols))
	f.snOff = growInt(f.snOff, snMaxCols)
	f.snDv = grow(f.snDv, snMaxCols)
	f.snFree = growBool(f.snFree, n)
}

// numericSN is numeric by supernodes: every entry of L and D when full is
// set, otherwise those in the rows marked dirty. It reports false, with
// f.failed set, on a pivot at rounding level or of the wrong sign.
func (f *sparseLDL) numericSN(full bool) bool {
	fr := f.snFreeFor(len(f.perm))
	act := func(r int32) bool { return full || f.dirty[r] }
	for s := 0; s+1 < len(f.snStart); s++ {
		s0, s1 := int(f.snStart[s]), int(f.snStart[s+1])-1
		nj := s1 - s0 + 1
		R := f.li[f.lp[s1]:f.lp[s1+1]]
		ld := nj + len(R)
		if !full {
			any := f.dirty[s1]
			for _, r := range R {
				any = any || f.dirty[r]
				if any {
					break
				}
			}
			if !any {
				continue
			}
		}
		if nj == 1 && f.snUpdPtr[s] == f.snUpdPtr[s+1] {
			// One column that nothing updates (a constraint row of K̃
			// eliminated before the bodies it couples).
			if !f.snLeaf(s0, R, full) {
				return false
			}
			continue
		}
		for u, r := range R {
			f.snRel[r] = int32(nj + u)
		}
		// W's active rows (free and to compute): C's values.
		W := f.snW[:ld*nj]
		for jc := 0; jc < nj; jc++ {
			col := W[jc*ld : (jc+1)*ld]
			for q := jc; q < ld; q++ {
				col[q] = 0
			}
			j := s0 + jc
			for p := f.ctp[j]; p < f.ctp[j+1]; p++ {
				r := f.ctr[p]
				q := int(r) - s0
				if int(r) > s1 {
					q = int(f.snRel[r])
				}
				v := f.cxOld[f.ctslot[p]]
				if q == jc {
					v *= 1 + f.shift
				}
				col[q] = v
			}
		}
		// Updates of the earlier supernodes, ascending.
		for p := f.snUpdPtr[s]; p < f.snUpdPtr[s+1]; p++ {
			f.snUpdate(s0, s1, ld, int(f.snUpd[3*p]), int(f.snUpd[3*p+1]), int(f.snUpd[3*p+2]), full)
		}
		// The rows of S ∪ R_S to compute (free and, in a partial
		// refactorization, dirty), ascending, and those outside F among
		// them (zero rows of L), listed once for all columns.
		rows, zeros := f.snU[:0], f.snU[len(f.snU)/2:len(f.snU)/2]
		for q := 0; q < ld; q++ {
			r := int32(s0 + q)
			if q >= nj {
				r = R[q-nj]
			}
			if !act(r) {
				continue
			}
			if fr[r] {
				rows = append(rows, int32(q))
			} else {
				zeros = append(zeros, int32(q))
			}
		}
		ri, zi := 0, 0 // the first of rows, zeros below the current column
		// The columns of S, left-looking among themselves.
		for jc := 0; jc < nj; jc++ {
			j := s0 + jc
			for ri < len(rows) && int(rows[ri]) <= jc {
				ri++
			}
			for zi < len(zeros) && int(zeros[zi]) <= jc {
				zi++
			}
			colj := f.lx[f.lp[j]:f.lp[j+1]] // local row q at q − jc − 1
			if !fr[j] {
				if act(int32(j)) {
					f.d[j] = f.unit(f.perm[j]) * (1 + f.shift)
					clear(colj)
				}
				continue
			}
			// The multipliers d_c l_jc of S's earlier free columns.
			y := f.snY[:jc]
			for c := 0; c < jc; c++ {
				y[c] = 0
				if fr[s0+c] {
					y[c] = f.d[s0+c] * f.lx[f.lp[s0+c]+jc-c-1]
				}
			}
			W := f.snW[jc*ld : (jc+1)*ld]
			if act(int32(j)) {
				dk := W[jc] - f.snInner(s0, jc, jc, y)
				if !f.pivotOK(j, dk, f.cxOld[f.cdiag[j]]*(1+f.shift)) {
					f.failed = max(0, int(f.loc[f.perm[j]]))
					return false
				}
				f.d[j] = dk
			}
			for _, q := range zeros[zi:] {
				colj[int(q)-jc-1] = 0
			}
			// S's earlier free columns c: l_qc at lx[off_c + q].
			off, yc := f.snOff[:0], f.snY[snMaxCols:snMaxCols]
			for c := 0; c < jc; c++ {
				if y[c] != 0 {
					off = append(off, f.lp[s0+c]-c-1)
					yc = append(yc, y[c])
				}
			}
			if jc+1 < nj && fr[j+1] {
				// Column j+1 too when its multipliers vanish where
				// column j's do: each l_qc loaded once serves both.
				yb := f.snY[2*snMaxCols : 2*snMaxCols+jc+1]
				same := true
				for c := 0; c < jc; c++ {
					yb[c] = 0
					if fr[s0+c] {
						yb[c] = f.d[s0+c] * f.lx[f.lp[s0+c]+jc-c]
					}
					same = same && (yb[c] != 0) == (y[c] != 0)
				}
				if same {
					if !f.snPair(s0, jc, ld, act(int32(j+1)), rows[ri:], zeros[zi:], off, yc, yb) {
						return false
					}
					jc++
					continue
				}
			}
			f.snColumn(jc, rows[ri:], off, yc, W, colj, f.d[j])
		}
	}
	return true
}

// snLeaf computes the column j of a one-column supernode that no earlier
// supernode updates, R the rows below its diagonal: d_j = c_jj (1 + shift)
// and l_rj = c_rj / d_j, C's column merged with R, which holds its rows (R
// is the pattern of L's column); rows outside F are zero rows. These are
// the operations of the general path (W's values less an empty sum, which
// is exact, divided by the pivot), so the same bits. It reports false,
// with f.failed set, on the pivot.
func (f *sparseLDL) snLeaf(j int, R []int32, full bool) bool {
	fr := f.snFree
	colj := f.lx[f.lp[j]:f.lp[j+1]]
	colj = colj[:len(R)]
	if !fr[j] {
		if full || f.dirty[j] {
			f.d[j] = f.unit(f.perm[j]) * (1 + f.shift)
			clear(colj)
		}
		return true
	}
	p, end := f.ctp[j], f.ctp[j+1]
	ctr, ctslot, cx := f.ctr[:end], f.ctslot[:end], f.cxOld
	if full || f.dirty[j] {
		dk := 0.0
		if p < end && int(ctr[p]) == j {
			dk = cx[ctslot[p]] * (1 + f.shift)
		}
		if !f.pivotOK(j, dk, f.cxOld[f.cdiag[j]]*(1+f.shift)) {
			f.failed = max(0, int(f.loc[f.perm[j]]))
			return false
		}
		f.d[j] = dk
	}
	if p < end && int(ctr[p]) == j {
		p++
	}
	dj := f.d[j]
	for u, r := range R {
		v := 0.0
		if p < end && ctr[p] == r {
			v = cx[ctslot[p]]
			p++
		}
		if !full && !f.dirty[r] {
			continue
		}
		if !fr[r] {
			colj[u] = 0
			continue
		}
		colj[u] = v / dj
	}
	return true
}

// snColumn computes column jc of a supernode (values colj, local row q at
// q − jc − 1) at its local rows us below the diagonal: (W_q − Σ_c l_qc
// y_c) / dj over the earlier columns' offsets off and multipliers yc,
// each sum in column order, four rows at a time.
func (f *sparseLDL) snColumn(jc int, us []int32, off []int, yc, W, colj []float64, dj float64) {
	lx := f.lx
	yc = yc[:len(off)]
	k := 0
	for ; k+3 < len(us); k += 4 {
		q0 := int(us[k])
		var v0, v1, v2, v3 float64
		if int(us[k+3]) == q0+3 {
			for t, o := range off {
				l := lx[o+q0 : o+q0+4 : o+q0+4]
				y := yc[t]
				v0 += l[0] * y
				v1 += l[1] * y
				v2 += l[2] * y
				v3 += l[3] * y
			}
		} else {
			q1, q2, q3 := int(us[k+1]), int(us[k+2]), int(us[k+3])
			for t, o := range off {
				y := yc[t]
				v0 += lx[o+q0] * y
				v1 += lx[o+q1] * y
				v2 += lx[o+q2] * y
				v3 += lx[o+q3] * y
			}
		}
		q1, q2, q3 := int(us[k+1]), int(us[k+2]), int(us[k+3])
		colj[q0-jc-1] = (W[q0] - v0) / dj
		colj[q1-jc-1] = (W[q1] - v1) / dj
		colj[q2-jc-1] = (W[q2] - v2) / dj
		colj[q3-jc-1] = (W[q3] - v3) / dj
	}
	for ; k < len(us); k++ {
		q := int(us[k])
		v := 0.0
		for t, o := range off {
			v += lx[o+q] * yc[t]
		}
		colj[q-jc-1] = (W[q] - v) / dj
	}
}

// snPair computes the free columns jc (A) and jc+1 (B) of the supernode
// starting at s0 together, their multipliers ya (compacted in yc at the
// offsets off) and yb[:jc] vanishing at the same columns: B's pivot and
// row jc+1 of A first, then at each row q of us past jc+1 both sums over
// the earlier columns, each l_qc loaded once, A's entry, and B's sum
// completed by its last term l_qA · d_A l_{jc+1,A} — the operations of
// two snColumn calls in their order, so the same bits. A's pivot and its
// zero rows are set; actB tells whether B's pivot is to compute, zeros
// are the rows outside F past jc. It reports false, with f.failed set, on
// B's pivot. Its four-row loop is snTarget2's, written out: as a call
// (too large to inline) it made BenchmarkKKTFactor 5–20 % slower.
func (f *sparseLDL) snPair(s0, jc, ld int, actB bool, us, zeros []int32, off []int, yc, yb []float64) bool {
	lx := f.lx
	ja, jb := s0+jc, s0+jc+1
	colA := lx[f.lp[ja]:f.lp[jb]]
	colB := lx[f.lp[jb]:f.lp[jb+1]]
	WA := f.snW[jc*ld : (jc+1)*ld]
	WB := f.snW[(jc+1)*ld : (jc+2)*ld]
	dA := f.d[ja]
	yc = yc[:len(off)]
	// Row jc+1 of A: B's multiplier from A.
	if len(us) > 0 && int(us[0]) == jc+1 {
		v := 0.0
		for t, o := range off {
			v += lx[o+jc+1] * yc[t]
		}
		colA[0] = (WA[jc+1] - v) / dA
		us = us[1:]
	}
	yb[jc] = f.d[ja] * colA[0]
	if actB {
		dk := WB[jc+1] - f.snInner(s0, jc+1, jc+1, yb)
		if !f.pivotOK(jb, dk, f.cxOld[f.cdiag[jb]]*(1+f.shift)) {
			f.failed = max(0, int(f.loc[f.perm[jb]]))
			return false
		}
		f.d[jb] = dk
	}
	for _, q := range zeros {
		if int(q) > jc+1 {
			colB[int(q)-jc-2] = 0
		}
	}
	dB, yj := f.d[jb], yb[jc]
	ybc := f.snY[3*snMaxCols : 3*snMaxCols+len(off)]
	t := 0
	for c := 0; c < jc; c++ {
		if yb[c] != 0 {
			ybc[t] = yb[c]
			t++
		}
	}
	k := 0
	for ; k+3 < len(us); k += 4 {
		q0, q1, q2, q3 := int(us[k]), int(us[k+1]), int(us[k+2]), int(us[k+3])
		var a0, a1, a2, a3, b0, b1, b2, b3 float64
		if q3 == q0+3 {
			for t, o := range off {
				l := lx[o+q0 : o+q0+4 : o+q0+4]
				y0, y1 := yc[t], ybc[t]
				a0 += l[0] * y0
				b0 += l[0] * y1
				a1 += l[1] * y0
				b1 += l[1] * y1
				a2 += l[2] * y0
				b2 += l[2] * y1
				a3 += l[3] * y0
				b3 += l[3] * y1
			}
		} else {
			for t, o := range off {
				y0, y1 := yc[t], ybc[t]
				l0, l1, l2, l3 := lx[o+q0], lx[o+q1], lx[o+q2], lx[o+q3]
				a0 += l0 * y0
				b0 += l0 * y1
				a1 += l1 * y0
				b1 += l1 * y1
				a2 += l2 * y0
				b2 += l2 * y1
				a3 += l3 * y0
				b3 += l3 * y1
			}
		}
		l0 := (WA[q0] - a0) / dA
		l1 := (WA[q1] - a1) / dA
		l2 := (WA[q2] - a2) / dA
		l3 := (WA[q3] - a3) / dA
		colA[q0-jc-1], colA[q1-jc-1], colA[q2-jc-1], colA[q3-jc-1] = l0, l1, l2, l3
		if yj != 0 {
			b0 += l0 * yj
			b1 += l1 * yj
			b2 += l2 * yj
			b3 += l3 * yj
		}
		colB[q0-jc-2] = (WB[q0] - b0) / dB
		colB[q1-jc-2] = (WB[q1] - b1) / dB
		colB[q2-jc-2] = (WB[q2] - b2) / dB
		colB[q3-jc-2] = (WB[q3] - b3) / dB
	}
	for ; k < len(us); k++ {
		q := int(us[k])
		va, vb := 0.0, 0.0
		for t, o := range off {
			l := lx[o+q]
			va += l * yc[t]
			vb += l * ybc[t]
		}
		l := (WA[q] - va) / dA
		colA[q-jc-1] = l
		if yj != 0 {
			vb += l * yj
		}
		colB[q-jc-2] = (WB[q] - vb) / dB
	}
	return true
}

// snInner returns Σ_{c<jc, free} l_qc · y_c over the columns c of the
// supernode starting at s0, q a local row (see numericSN), in column order.
func (f *sparseLDL) snInner(s0, jc, q int, y []float64) float64 {
	s := 0.0
	for c, yc := range y[:jc] {
		if yc != 0 {
			s += f.lx[f.lp[s0+c]+q-c-1] * yc
		}
	}
	return s
}

// snUpdate subtracts from W (the columns of S = s0 … s1, leading dimension
// ld) the update of supernode t: L[R_T[a:], T] D_T L[R_T[a:b], T]ᵀ, the
// rows R_T[a:b] lying in S and R_T[b:] in R_S, each entry one sum over T's
// free columns in column order; with full unset only in dirty rows.
func (f *sparseLDL) snUpdate(s0, s1, ld, t, a, b int, full bool) {
	t0, t1 := int(f.snStart[t]), int(f.snStart[t+1])-1
	lo := f.lp[t1]
	rt := f.li[lo:f.lp[t1+1]]
	fr := f.snFree
	if t0 == t1 {
		f.snUpdate1(s0, s1, ld, t0, rt, a, b, full)
		return
	}
	// T's free columns: their offsets at R_T[0] (off), their pivots (dv)
	// and the multipliers y[jj][c] = d_c l_{R_T[a+jj], c}.
	off, dv := f.snOff[:0], f.snDv[:0]
	for c := t0; c <= t1; c++ {
		if fr[c] {
			off = append(off, f.lp[c]+t1-c)
			dv = append(dv, f.d[c])
		}
	}
	nt := len(off)
	if nt == 0 {
		return
	}
	dv = dv[:nt]
	// The rows to compute: free (a row outside F is a zero row of L,
	// whatever its updates) and, partially, dirty.
	// Their local rows in S (loc), found once for all targets.
	us, loc := f.snU[:0], f.snU[len(f.snU)/2:len(f.snU)/2]
	for u := a; u < len(rt); u++ {
		r := rt[u]
		if fr[r] && (full || f.dirty[r]) {
			us = append(us, int32(u))
			loc = append(loc, int32(f.snLocal(s0, s1, r)))
		}
	}
	if len(us) == 0 {
		return
	}
	y := f.snY[:(b-a)*nt]
	lx := f.lx
	for jj := 0; jj < b-a; jj++ {
		yr := y[jj*nt : (jj+1)*nt]
		u := a + jj
		for q, o := range off {
			yr[q] = dv[q] * lx[o+u]
		}
	}
	// The targets, two at a time: each loaded l_uc serves both. A row
	// below the first target but not the second is the first's alone.
	next := func(jj int) int {
		for jj < b-a && !fr[rt[a+jj]] {
			jj++ // a zero row of L: its multipliers are zeros
		}
		return jj
	}
	first := 0 // the first of us at or after the target row
	for jj := next(0); jj < b-a; {
		kk := next(jj + 1)
		for first < len(us) && int(us[first]) < a+jj {
			first++
		}
		colA := f.snW[(int(rt[a+jj])-s0)*ld:]
		yA := y[jj*nt : (jj+1)*nt]
		if kk == b-a {
			f.snTarget(off, us[first:], loc[first:], yA, colA)
			break
		}
		mid := first
		for mid < len(us) && int(us[mid]) < a+kk {
			mid++
		}
		f.snTarget(off, us[first:mid], loc[first:mid], yA, colA)
		colB := f.snW[(int(rt[a+kk])-s0)*ld:]
		yB := y[kk*nt : (kk+1)*nt]
		f.snTarget2(off, us[mid:], loc[mid:], yA, yB, colA, colB)
		first = mid
		jj = next(kk + 1)
	}
}

// snUpdate1 is snUpdate for a supernode of one column c (a constraint
// row of K̃, eliminated before the bodies it couples): each entry's sum
// is the one product l_uc d_c l_jc.
func (f *sparseLDL) snUpdate1(s0, s1, ld, c int, rt []int32, a, b int, full bool) {
	fr := f.snFree
	if !fr[c] {
		return
	}
	o := f.lp[c]
	lc := f.lx[o : o+len(rt)]
	dc := f.d[c]
	if f.snUpdate1Dense(s0, s1, ld, rt, lc, dc, a, b, full) {
		return
	}
	// The rows to compute from R_T[a] on, found once for all targets:
	// their positions in R_T (pos), local rows in S (loc) and l_uc (lv),
	// in the halves of snU and in snY (numericSN's lists of rows and its
	// multipliers are made after the updates).
	pos, loc, lv := f.snU[:0], f.snU[len(f.snU)/2:len(f.snU)/2], f.snY[:0]
	for u := a; u < len(rt); u++ {
		r := rt[u]
		if fr[r] && (full || f.dirty[r]) {
			pos = append(pos, int32(u))
			loc = append(loc, int32(f.snLocal(s0, s1, r)))
			lv = append(lv, lc[u])
		}
	}
	loc = loc[:len(pos)]
	lv = lv[:len(pos)]
	k := 0
	for jj := a; jj < b; jj++ {
		rj := rt[jj]
		if !fr[rj] {
			continue
		}
		for k < len(pos) && int(pos[k]) < jj {
			k++
		}
		y := dc * lc[jj]
		col := f.snW[(int(rj)-s0)*ld : (int(rj)-s0+1)*ld]
		for t, q := range loc[k:] {
			col[q] -= lv[k+t] * y
		}
	}
}

// snUpdate1Dense is snUpdate1 when every row of R_T from a on is to
// compute and both its rows in S (a:b) and its rows in R_S (b:) are runs
// of consecutive local rows, as a constraint row's two bodies are in a
// full factorization: each target's update is then two dense runs, the
// same product subtracted from the same entries. It reports false, doing
// nothing, otherwise.
func (f *sparseLDL) snUpdate1Dense(s0, s1, ld int, rt []int32, lc []float64, dc float64, a, b int, full bool) bool {
	fr := f.snFree
	for _, r := range rt[a:] {
		if !fr[r] || !(full || f.dirty[r]) {
			return false
		}
	}
	m := len(rt)
	if int(rt[b-1]-rt[a]) != b-1-a {
		return false
	}
	lb := 0
	if b < m {
		lb = int(f.snRel[rt[b]])
		if int(f.snRel[rt[m-1]]) != lb+m-1-b {
			return false
		}
	}
	la := int(rt[a]) - s0
	if b-a == 6 && (m == b || m-b == 6) {
		snUpdateBody(f.snW, ld, la, lb, lc[a:], dc, m > b)
		return true
	}
	below := lc[b:m]
	for jj := a; jj < b; jj++ {
		y := dc * lc[jj]
		col := f.snW[(la+jj-a)*ld : (la+jj-a+1)*ld]
		inS := col[la+jj-a : la+b-a]
		l := lc[jj:b]
		l = l[:len(inS)]
		for i, v := range l {
			inS[i] -= v * y
		}
		inR := col[lb : lb+len(below)]
		for i, v := range below {
			inR[i] -= v * y
		}
	}
	return true
}

// snUpdateBody is snUpdate1Dense's loop for a constraint row's update of
// one body's six columns (la … la+5 of W, leading dimension ld): lc[:6]
// its entries in them and, with other set, lc[6:12] those in the other
// body's six rows of R_S (local rows lb … lb+5). Each entry takes the one
// product l_u (d_c l_jj) of the general loop, the same bits.
func snUpdateBody(W []float64, ld, la, lb int, lc []float64, dc float64, other bool) {
	l := (*[6]float64)(lc[:6])
	for jj := 0; jj < 6; jj++ {
		y := dc * l[jj]
		col := W[(la+jj)*ld : (la+jj+1)*ld]
		inS := (*[6]float64)(col[la : la+6])
		for i := jj; i < 6; i++ {
			inS[i] -= l[i] * y
		}
		if other {
			// v + l·(−y) is v − l·y exactly: the same bits.
			addScaled6((*[6]float64)(col[lb:lb+6]), (*[6]float64)(lc[6:12]), -y)
		}
	}
}

// snTarget subtracts from col (a column of W) at the local rows loc of
// R_T[u], u in rows, the sums Σ_q l_{u,q} y_q over T's free columns q
// (offsets off), four rows at a time, each sum in column order.
func (f *sparseLDL) snTarget(off []int, rows, loc []int32, yr, col []float64) {
	lx := f.lx
	yr = yr[:len(off)]
	loc = loc[:len(rows)]
	k := 0
	for ; k+3 < len(rows); k += 4 {
		u0, u1, u2, u3 := int(rows[k]), int(rows[k+1]), int(rows[k+2]), int(rows[k+3])
		var v0, v1, v2, v3 float64
		if u3 == u0+3 {
			for q, o := range off {
				l := lx[o+u0 : o+u0+4 : o+u0+4]
				yc := yr[q]
				v0 += l[0] * yc
				v1 += l[1] * yc
				v2 += l[2] * yc
				v3 += l[3] * yc
			}
		} else {
			for q, o := range off {
				yc := yr[q]
				v0 += lx[o+u0] * yc
				v1 += lx[o+u1] * yc
				v2 += lx[o+u2] * yc
				v3 += lx[o+u3] * yc
			}
		}
		col[loc[k]] -= v0
		col[loc[k+1]] -= v1
		col[loc[k+2]] -= v2
		col[loc[k+3]] -= v3
	}
	for ; k < len(rows); k++ {
		u := int(rows[k])
		v := 0.0
		for q, o := range off {
			v += lx[o+u] * yr[q]
		}
		col[loc[k]] -= v
	}
}

// snTarget2 is snTarget for two targets (multipliers ya, yb, columns ca,
// cb) at once: the same sums, each l_uc loaded once.
func (f *sparseLDL) snTarget2(off []int, rows, loc []int32, ya, yb, ca, cb []float64) {
	lx := f.lx
	ya, yb = ya[:len(off)], yb[:len(off)]
	loc = loc[:len(rows)]
	k := 0
	for ; k+3 < len(rows); k += 4 {
		u0, u1, u2, u3 := int(rows[k]), int(rows[k+1]), int(rows[k+2]), int(rows[k+3])
		var a0, a1, a2, a3, b0, b1, b2, b3 float64
		if u3 == u0+3 {
			for q, o := range off {
				l := lx[o+u0 : o+u0+4 : o+u0+4]
				y0, y1 := ya[q], yb[q]
				a0 += l[0] * y0
				b0 += l[0] * y1
				a1 += l[1] * y0
				b1 += l[1] * y1
				a2 += l[2] * y0
				b2 += l[2] * y1
				a3 += l[3] * y0
				b3 += l[3] * y1
			}
		} else {
			for q, o := range off {
				y0, y1 := ya[q], yb[q]
				l0, l1, l2, l3 := lx[o+u0], lx[o+u1], lx[o+u2], lx[o+u3]
				a0 += l0 * y0
				b0 += l0 * y1
				a1 += l1 * y0
				b1 += l1 * y1
				a2 += l2 * y0
				b2 += l2 * y1
				a3 += l3 * y0
				b3 += l3 * y1
			}
		}
		r0, r1, r2, r3 := loc[k], loc[k+1], loc[k+2], loc[k+3]
		ca[r0] -= a0
		ca[r1] -= a1
		ca[r2] -= a2
		ca[r3] -= a3
		cb[r0] -= b0
		cb[r1] -= b1
		cb[r2] -= b2
		cb[r3] -= b3
	}
	for ; k < len(rows); k++ {
		u := int(rows[k])
		va, vb := 0.0, 0.0
		for q, o := range off {
			l := lx[o+u]
			va += l * ya[q]
			vb += l * yb[q]
		}
		r := loc[k]
		ca[r] -= va
		cb[r] -= vb
	}
}

// snLocal returns row r's local row in supernode s0 … s1 (see numericSN).
func (f *sparseLDL) snLocal(s0, s1 int, r int32) int {
	if int(r) <= s1 {
		return int(r) - s0
	}
	return int(f.snRel[r])
}

// solveSN is solveDirect's substitutions on xp (elimination order) by
// supernodes: the triangle of each supernode by columns, its rows below
// (R_S) eight and four at a time, each a sum over the supernode's columns.
func (f *sparseLDL) solveSN(xp []float64) {
	ns := len(f.snStart) - 1
	lx := f.lx
	for s := 0; s < ns; s++ {
		s0, s1 := int(f.snStart[s]), int(f.snStart[s+1])-1
		nj := s1 - s0 + 1
		if nj == 1 {
			// One column (a constraint row of K̃): by the column.
			xj := xp[s0]
			if xj == 0 {
				continue
			}
			lo, hi := f.lp[s0], f.lp[s0+1]
			idx, val := f.li[lo:hi], lx[lo:hi]
			if a, b, ok := twoBodies(idx, xp); ok {
				l := (*[12]float64)(val)
				a[0] -= l[0] * xj
				a[1] -= l[1] * xj
				a[2] -= l[2] * xj
				a[3] -= l[3] * xj
				a[4] -= l[4] * xj
				a[5] -= l[5] * xj
				b[0] -= l[6] * xj
				b[1] -= l[7] * xj
				b[2] -= l[8] * xj
				b[3] -= l[9] * xj
				b[4] -= l[10] * xj
				b[5] -= l[11] * xj
				continue
			}
			val = val[:len(idx)]
			for t, r := range idx {
				xp[r] -= val[t] * xj
			}
			continue
		}
		for jc := 0; jc < nj; jc++ {
			xj := xp[s0+jc]
			if xj == 0 {
				continue
			}
			lo := f.lp[s0+jc]
			val := lx[lo : lo+nj-jc-1]
			xr := xp[s0+jc+1 : s0+jc+1+len(val)]
			for q, l := range val {
				xr[q] -= l * xj
			}
		}
		R := f.li[f.lp[s1]:f.lp[s1+1]]
		off := f.snOff[:nj]
		xs := f.snY[:nj]
		for jc := range off {
			off[jc] = f.lp[s0+jc] + nj - jc - 1
			xs[jc] = xp[s0+jc]
		}
		u := 0
		for ; u+7 < len(R); u += 8 {
			// Eight rows: each loaded x_jc serves all, each row's sum
			// still in column order.
			var v0, v1, v2, v3, v4, v5, v6, v7 float64
			for jc, o := range off {
				l := lx[o+u : o+u+8 : o+u+8]
				x := xs[jc]
				v0 += l[0] * x
				v1 += l[1] * x
				v2 += l[2] * x
				v3 += l[3] * x
				v4 += l[4] * x
				v5 += l[5] * x
				v6 += l[6] * x
				v7 += l[7] * x
			}
			r := R[u : u+8 : u+8]
			xp[r[0]] -= v0
			xp[r[1]] -= v1
			xp[r[2]] -= v2
			xp[r[3]] -= v3
			xp[r[4]] -= v4
			xp[r[5]] -= v5
			xp[r[6]] -= v6
			xp[r[7]] -= v7
		}
		for ; u+3 < len(R); u += 4 {
			var v0, v1, v2, v3 float64
			for jc, o := range off {
				l := lx[o+u : o+u+4 : o+u+4]
				x := xs[jc]
				v0 += l[0] * x
				v1 += l[1] * x
				v2 += l[2] * x
				v3 += l[3] * x
			}
			r := R[u : u+4 : u+4]
			xp[r[0]] -= v0
			xp[r[1]] -= v1
			xp[r[2]] -= v2
			xp[r[3]] -= v3
		}
		for ; u < len(R); u++ {
			v := 0.0
			for jc, o := range off {
				v += lx[o+u] * xs[jc]
			}
			xp[R[u]] -= v
		}
	}
	d := f.d[:len(xp)]
	for j := range xp {
		xp[j] /= d[j]
	}
	xb := f.snW
	for s := ns - 1; s >= 0; s-- {
		s0, s1 := int(f.snStart[s]), int(f.snStart[s+1])-1
		nj := s1 - s0 + 1
		if nj == 1 {
			lo, hi := f.lp[s0], f.lp[s0+1]
			idx, val := f.li[lo:hi], lx[lo:hi]
			v := xp[s0]
			if a, b, ok := twoBodies(idx, xp); ok {
				// The sum in the order of the general loop below.
				l := (*[12]float64)(val)
				v -= l[0] * a[0]
				v -= l[1] * a[1]
				v -= l[2] * a[2]
				v -= l[3] * a[3]
				v -= l[4] * a[4]
				v -= l[5] * a[5]
				v -= l[6] * b[0]
				v -= l[7] * b[1]
				v -= l[8] * b[2]
				v -= l[9] * b[3]
				v -= l[10] * b[4]
				v -= l[11] * b[5]
				xp[s0] = v
				continue
			}
			val = val[:len(idx)]
			for t, r := range idx {
				v -= val[t] * xp[r]
			}
			xp[s0] = v
			continue
		}
		R := f.li[f.lp[s1]:f.lp[s1+1]]
		xb = xb[:len(R)]
		for u, r := range R {
			xb[u] = xp[r]
		}
		for jc := nj - 1; jc >= 0; jc-- {
			lo := f.lp[s0+jc]
			in := lx[lo : lo+nj-jc-1]
			below := lx[lo+nj-jc-1 : lo+nj-jc-1+len(xb)]
			var v0, v1, v2, v3 float64
			u := 0
			for ; u+3 < len(below); u += 4 {
				l := below[u : u+4 : u+4]
				x := xb[u : u+4 : u+4]
				v0 += l[0] * x[0]
				v1 += l[1] * x[1]
				v2 += l[2] * x[2]
				v3 += l[3] * x[3]
			}
			for ; u < len(below); u++ {
				v0 += below[u] * xb[u]
			}
			xr := xp[s0+jc+1 : s0+jc+1+len(in)]
			for q, l := range in {
				v1 += l * xr[q]
			}
			xp[s0+jc] -= (v0 + v1) + (v2 + v3)
		}
	}
}

// twoBodies reports whether idx (ascending) is two runs of six
// consecutive indices, the entries of a constraint row of K̃ between two
// dynamic bodies (its columns in K, or its column of L when it is a leaf of
// the elimination tree), and returns x's two blocks of six at them. Loops
// that address the blocks with the operations of the entry-by-entry loop,
// in its order, give its bits.
func twoBodies(idx []int32, x []float64) (a, b *[6]float64, ok bool) {
	if len(idx) != 12 {
		return nil, nil, false
	}
	r0, r6 := int(idx[0]), int(idx[6])
	if int(idx[5]) != r0+5 || int(idx[11]) != r6+5 {
		return nil, nil, false
	}
	return (*[6]float64)(x[r0 : r0+6]), (*[6]float64)(x[r6 : r6+6]), true
}
