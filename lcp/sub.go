package lcp

import (
	"fmt"
	"slices"
)

// Submatrix sets s to the principal submatrix src[idx, idx] of a finished
// src: row and column k of s are row and column idx[k] of src, entries of
// src outside idx × idx are dropped. idx must be strictly ascending and
// within [0, n) of src; it panics otherwise (a programming error of the
// caller, like Add's index check). s is finished on return and holds no
// Add records; s and src must be distinct.
//
// pos, when not nil, has src's n entries and maps a row of src to its
// place in idx: column j of src is in idx when p = pos[j] is within
// [0, len(idx)) and idx[p] == j (any other value marks a row outside idx,
// so one pos can serve several disjoint idx, each row holding its place in
// its own). It makes the extraction O(|idx| + Σ_k nnz(row idx[k])); with
// pos nil each entry costs a search in idx, O(log |idx|).
//
// Submatrix reuses s's storage, so once s has grown to the largest block
// it allocates nothing. The pattern version of s changes only when the
// extracted pattern differs from s's previous one, as Finish's does: a
// solver that keeps a symbolic analysis per (matrix, version), BPP's
// sparse LDLᵀ, reuses it while the block's sparsity pattern stays, as it
// would for a matrix assembled anew by Add and Finish with the same
// pattern.
//
// Why: a step's A = J M⁻¹ Jᵀ + C is block diagonal by island (rows couple
// only through a dynamic body they share), so each island's MLCP is a
// principal submatrix of the world's, extracted here instead of assembled
// twice.
func (s *Sparse) Submatrix(src *Sparse, idx, pos []int32) {
	src.mustFinished("Submatrix")
	src.ensure()
	if s == src {
		panic("lcp: Sparse.Submatrix: s and src are the same matrix")
	}
	for k, i := range idx {
		if uint(i) >= uint(src.n) || (k > 0 && i <= idx[k-1]) {
			panic(fmt.Sprintf("lcp: Sparse.Submatrix: idx[%d] = %d is not ascending within [0, %d)", k, i, src.n))
		}
	}
	if pos != nil && len(pos) != src.n {
		panic(fmt.Sprintf("lcp: Sparse.Submatrix: pos has %d entries, src %d rows", len(pos), src.n))
	}
	m := len(idx)
	s.unlazy()
	s.n = m
	s.ti, s.tj, s.tv = s.ti[:0], s.tj[:0], s.tv[:0]
	s.stale = false
	s.reuseOK = false // the Add records of the kept pattern are gone
	s.finite = src.finite
	s.ptr2, s.ptr = s.ptr, growInt(s.ptr2, m+1)
	s.col2, s.col = s.col, s.col2[:0]
	s.val = s.val[:0]
	s.dslot = growInt32(s.dslot, m)
	s.ptr[0] = 0
	for k, i := range idx {
		s.dslot[k] = -1
		cols, vals := src.row(int(i))
		if pos != nil {
			for t, j := range cols {
				if p := pos[j]; uint(p) < uint(m) && idx[p] == j {
					if j == i {
						s.dslot[k] = int32(len(s.col))
					}
					s.col = append(s.col, p) // ascending: idx and cols are
					s.val = append(s.val, vals[t])
				}
			}
			s.ptr[k+1] = len(s.col)
			continue
		}
		// Columns ascend in src and idx ascends, so the local columns do
		// too: search the rest of idx from the last one found.
		p := 0
		for t, j := range cols {
			q, _ := slices.BinarySearch(idx[p:], j)
			p += q
			if p >= m {
				break
			}
			if idx[p] == j {
				if j == i {
					s.dslot[k] = int32(len(s.col))
				}
				s.col = append(s.col, int32(p))
				s.val = append(s.val, vals[t])
			}
		}
		s.ptr[k+1] = len(s.col)
	}
	if !slices.Equal(s.ptr, s.ptr2) || !slices.Equal(s.col, s.col2) {
		s.version++
	}
	s.finished = true
	s.stamp = valueStamps.Add(1)
}

// DenseSubmatrix sets dst to the principal submatrix src[idx, idx] of a
// finished src as a dense matrix, with Submatrix's arguments and checks
// (pos not nil). It reuses dst's storage, so once dst has held the largest
// block it allocates nothing. The block is exactly symmetric, and finite
// when src's Finish found every entry finite; dst then carries that, so
// that Problem.Validate and BPP do not read every entry again to test it.
//
// Why: a block of a few dozen rows (an island of a few bodies) is cheaper
// to factor densely, with the row updates of BPP's dense Cholesky, than by
// the sparse LDLᵀ's ordering, symbolic analysis and elimination tree.
func (s *Sparse) DenseSubmatrix(dst *Dense, idx, pos []int32) {
	s.mustFinished("DenseSubmatrix")
	s.ensure()
	if len(pos) != s.n {
		panic(fmt.Sprintf("lcp: Sparse.DenseSubmatrix: pos has %d entries, src %d rows", len(pos), s.n))
	}
	m := len(idx)
	for k, i := range idx {
		if uint(i) >= uint(s.n) || (k > 0 && i <= idx[k-1]) {
			panic(fmt.Sprintf("lcp: Sparse.DenseSubmatrix: idx[%d] = %d is not ascending within [0, %d)", k, i, s.n))
		}
	}
	dst.Reset(m, m)
	for k, i := range idx {
		row := dst.data[k*m:][:m]
		lo, hi := s.ptr[i], s.ptr[i+1]
		cols, vals := s.col[lo:hi], s.val[lo:hi]
		vals = vals[:len(cols)]
		for t, j := range cols {
			p := pos[j]
			if uint(p) < uint(len(row)) && idx[p] == j {
				row[p] = vals[t]
			}
		}
	}
	dst.exact = s.finite
}
