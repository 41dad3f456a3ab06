package lcp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// subtreeCounts is the reference for etree and the column counts (the
// minimum degree ordering's degrees at elimination): the elimination
// tree and L's column counts found by walking every row's subtree (each
// column i < k of row k followed up the tree to a column already marked
// for k), which visits every entry of L once.
func subtreeCounts(f *sparseLDL) (parent, lnz []int32) {
	n := len(f.perm)
	parent, lnz = make([]int32, n), make([]int32, n)
	flag := make([]int32, n)
	for k := 0; k < n; k++ {
		parent[k], flag[k] = -1, int32(k)
		for p := f.cp[k]; p < f.cp[k+1]; p++ {
			for i := f.ci[p]; flag[i] != int32(k); i = parent[i] {
				if parent[i] == -1 {
					parent[i] = int32(k)
				}
				lnz[i]++
				flag[i] = int32(k)
			}
		}
	}
	return parent, lnz
}

// The symbolic analysis (etree: O(nnz A · α); the column counts, the
// ordering's degrees at elimination) gives the elimination tree and
// column counts of the subtree walk (O(nnz L)) exactly, on random patterns from diagonal to nearly dense, on several
// components (a forest), on the block patterns of a compliant wall and on
// the same sparseLDL reanalysing patterns of other sizes (stale
// workspace).
func TestSymbolicCountsMatchSubtreeWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var f sparseLDL
	check := func(a *Sparse, what string) {
		t.Helper()
		f.count(a)
		parent, lnz := subtreeCounts(&f)
		require.Equal(t, parent, f.parent[:a.n], "%s: parent", what)
		require.Equal(t, lnz, f.lnz[:a.n], "%s: lnz", what)
		flops := 0
		for _, c := range lnz {
			flops += int(c) * int(c-1) / 2
		}
		require.Equal(t, flops, f.symFlops, "%s: symFlops", what)
	}
	for _, n := range []int{1, 2, 3, 10, 57, 200, 31} {
		for _, per := range []int{0, 1, 3, 10} {
			var a Sparse
			a.Reset(n)
			for i := 0; i < n; i++ {
				a.Add(i, i, 1)
			}
			// Two halves with no coupling when per is odd: a forest.
			half := n
			if per%2 == 1 && n > 3 {
				half = n / 2
			}
			for t := 0; t < per*n; t++ {
				i, j := rng.IntN(n), rng.IntN(n)
				if (i < half) != (j < half) {
					continue
				}
				a.Add(i, j, 1)
			}
			a.Finish()
			check(&a, "random")
		}
	}
	for _, oneIn := range []int{1, 4} {
		_, a, _ := compliantWall(rng, 6, 4, 40, oneIn)
		check(a, "wall")
	}
}

// The minimum degree ordering's flops (each eliminated row's degree in
// the exact elimination graph as its column count) are the symbolic
// analysis' symFlops of the order, so a cost test may stop the ordering
// once they pass its limit: countUpTo with the exact flops as limit
// completes the analysis, with one less it stops, leaves no analysis, and
// the next count gives the same order and flops as before.
func TestMinDegreeFlopsAreSymbolic(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var pats []*Sparse
	for _, n := range []int{3, 40, 150} {
		for _, per := range []int{1, 4} {
			a := new(Sparse)
			a.Reset(n)
			for i := 0; i < n; i++ {
				a.Add(i, i, 1)
				if i%5 != 4 && i+1 < n {
					a.Add(i, i+1, 1) // runs of identical rows: supervariables
				}
			}
			for k := 0; k < per*n; k++ {
				a.Add(rng.IntN(n), rng.IntN(n), 1)
			}
			a.Finish()
			pats = append(pats, a)
		}
	}
	_, wall, _ := compliantWall(rng, 6, 4, 40, 1)
	pats = append(pats, wall)
	// Blocks of 3 identical rows on a random graph of 30 blocks: every
	// row in a supervariable of 3.
	blocks := new(Sparse)
	blocks.Reset(90)
	for b := 0; b < 30; b++ {
		for _, c := range []int{b, rng.IntN(30), rng.IntN(30)} {
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if b != c || i <= j {
						blocks.Add(3*b+i, 3*c+j, 1)
					}
				}
			}
		}
	}
	blocks.Finish()
	pats = append(pats, blocks)
	for k, a := range pats {
		var f sparseLDL
		var o ordering
		_, flops, over := o.minDegree(a, nil, 0)
		require.False(t, over)
		if a == blocks {
			require.Len(t, o.first, 31, "supervariables of 3 rows")
		}
		f.count(a)
		require.Equal(t, f.symFlops, flops, "pattern %d", k)
		perm := append([]int32(nil), f.perm...)
		if flops < 2 {
			continue // no positive limit below it
		}
		var g sparseLDL
		require.True(t, g.countUpTo(a, flops), "pattern %d: at the limit", k)
		require.Equal(t, perm, g.perm)
		var h sparseLDL
		require.False(t, h.countUpTo(a, flops-1), "pattern %d: past the limit", k)
		require.Nil(t, h.a, "pattern %d: no analysis kept", k)
		// An analysis in place answers at once, whatever the limit.
		require.True(t, g.countUpTo(a, flops-1), "pattern %d: analysed", k)
		h.count(a)
		require.Equal(t, perm, h.perm, "pattern %d", k)
		require.Equal(t, flops, h.symFlops, "pattern %d", k)
	}
}
