package lcp

import "slices"

// factorStand records what the last successful sparseLDL.factor call was
// given: the matrix, its values (Sparse.stamp) and the states of its rows.
// After such a call the factor's kept values (cxOld) are those of that
// matrix on that free set, so a call with the same three finds every row
// of C unchanged and keeps the factor as it is (no row to recompute); the
// record lets it say so without rebuilding C's values and comparing them
// with the kept ones, O(nnz of C) — the second face solve of a block
// pivoting step that moved only its proximal centre (a resting wall's
// regularized solves), for instance.
type factorStand struct {
	a     *Sparse
	stamp uint64
	state []State
	ok    bool
}

// stands reports whether the factor is already that of a's current values
// on the free set of state, as the last successful call left it: the same
// matrix and stamp, the same states, its ordering still a's, and nothing
// since that asks for a full refactorization (the factor invalidated, a
// new shift, the row modifications' bound reached). It then sets what the
// full check would have (no row recomputed, no modification).
func (f *sparseLDL) stands(a *Sparse, state []State) bool {
	st := &f.stand
	n := a.n
	if !st.ok || st.a != a || st.stamp != a.stamp || !a.finished || !f.valid ||
		f.shift != f.shiftOld || len(f.modList) >= f.maxModify() ||
		f.a != a || f.ver != a.version || len(f.perm) != n ||
		len(state) < n || !slices.Equal(st.state, state[:n]) {
		return false
	}
	f.recompute, f.modifyOps = 0, 0
	return true
}

// stood records the call factor just made (see factorStand).
func (f *sparseLDL) stood(a *Sparse, state []State, ok bool) {
	st := &f.stand
	st.ok = ok && a.finished
	st.a, st.stamp = a, a.stamp
	n := min(a.n, len(state))
	st.state = append(st.state[:0], state[:n]...)
}
