package contact

import (
	"cmp"
	"github.com/gorigid/gorigid/internal/num"
	"math"
	"slices"
)

// SweepAndPrune finds overlapping AABB pairs: it sorts the boxes by their
// lower bound along the axis on which the box centres spread most, then
// sweeps, comparing each box only with the boxes that start before it ends
// on that axis. Time is O(n log n + k) for n boxes and k overlaps on the
// sweep axis (plus O(n) for each unbounded box, e.g. a plane). The zero
// value is ready to use; it keeps its buffers between calls, so a
// SweepAndPrune used every step does not allocate once warm. It is not
// safe for concurrent use.
type SweepAndPrune struct {
	items []sapItem
}

type sapItem struct {
	lo  float64
	idx int
}

// Pairs appends to dst every pair {i, j}, i < j, of boxes that overlap
// (AABB.Overlaps: touching counts) and for which skip(i, j) is false, and
// returns dst. The appended pairs are sorted lexicographically, so the
// output depends only on boxes. skip may be nil; use it to leave out pairs
// on the same body or two static shapes. Boxes with a NaN coordinate or
// Min > Max on some axis (Bounds of an invalid shape) overlap nothing.
// Unbounded boxes (planes) are left out of the choice of axis.
func (s *SweepAndPrune) Pairs(dst [][2]int, boxes []AABB, skip func(i, j int) bool) [][2]int {
	axis := sweepAxis(boxes)
	s.items = s.items[:0]
	for i := range boxes {
		b := &boxes[i]
		if b.Min[0] <= b.Max[0] && b.Min[1] <= b.Max[1] && b.Min[2] <= b.Max[2] { // false for NaN
			s.items = append(s.items, sapItem{lo: b.Min[axis], idx: i})
		}
	}
	slices.SortFunc(s.items, func(a, b sapItem) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return a.idx - b.idx
	})
	u, v := (axis+1)%3, (axis+2)%3
	n0 := len(dst)
	items := s.items
	for ii := range items {
		i := items[ii].idx
		bi := &boxes[i]
		hi := bi.Max[axis]
		for jj := ii + 1; jj < len(items) && items[jj].lo <= hi; jj++ {
			j := items[jj].idx
			bj := &boxes[j]
			if bi.Min[u] > bj.Max[u] || bj.Min[u] > bi.Max[u] || bi.Min[v] > bj.Max[v] || bj.Min[v] > bi.Max[v] {
				continue
			}
			a, b := min(i, j), max(i, j)
			if skip != nil && skip(a, b) {
				continue
			}
			dst = append(dst, [2]int{a, b})
		}
	}
	slices.SortFunc(dst[n0:], func(p, q [2]int) int {
		if p[0] != q[0] {
			return p[0] - q[0]
		}
		return p[1] - q[1]
	})
	return dst
}

// sweepAxis returns the axis with the largest variance of the centres of
// the bounded boxes (ties: lowest axis).
func sweepAxis(boxes []AABB) int {
	var sum, sum2 [3]float64
	n := 0
	for i := range boxes {
		b := &boxes[i]
		if b.Unbounded() {
			continue
		}
		ok := true
		var c [3]float64
		for k := 0; k < 3; k++ {
			c[k] = 0.5 * (b.Min[k] + b.Max[k])
			if !num.Finite(c[k]) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for k := 0; k < 3; k++ {
			sum[k] += c[k]
			sum2[k] += c[k] * c[k]
		}
		n++
	}
	if n == 0 {
		return 0
	}
	axis, best := 0, math.Inf(-1)
	for k := 0; k < 3; k++ {
		if v := sum2[k] - sum[k]*sum[k]/float64(n); v > best {
			axis, best = k, v
		}
	}
	return axis
}
