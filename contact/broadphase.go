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
	// order is the last call's boxes in sweep order: the next call starts
	// from it and sorts by insertion when the boxes moved little.
	order []int32
	axis  int
	// Scratch of sortPairs: counts per box index and the pairs between
	// its two passes.
	count []int32
	tmp   [][2]int
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
	n0 := len(dst)
	dst = s.PairsIn(dst, boxes, 0, s.Sweep(boxes), skip)
	s.SortPairs(dst[n0:], len(boxes))
	return dst
}

// Sweep sorts the valid boxes along the sweep axis (the first part of
// Pairs) and returns their number m, for PairsIn over 0…m−1 in parts and
// SortPairs: the parts' pairs together, sorted, are what Pairs returns.
func (s *SweepAndPrune) Sweep(boxes []AABB) int {
	s.sortItems(boxes, sweepAxis(boxes))
	return len(s.items)
}

// PairsIn appends to dst, in sweep order and unsorted, the pairs of Pairs
// whose first box in sweep order is among the sorted boxes lo:hi of the
// last Sweep of boxes. It reads s and boxes and writes only dst, so calls
// on disjoint ranges may run concurrently (skip must allow that too).
func (s *SweepAndPrune) PairsIn(dst [][2]int, boxes []AABB, lo, hi int, skip func(i, j int) bool) [][2]int {
	axis := s.axis
	u, v := (axis+1)%3, (axis+2)%3
	items := s.items
	for ii := lo; ii < hi; ii++ {
		i := items[ii].idx
		bi := &boxes[i]
		top := bi.Max[axis]
		for jj := ii + 1; jj < len(items) && items[jj].lo <= top; jj++ {
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
	return dst
}

// valid reports whether b can overlap anything: Min ≤ Max on every axis,
// false for NaN.
func valid(b *AABB) bool {
	return b.Min[0] <= b.Max[0] && b.Min[1] <= b.Max[1] && b.Min[2] <= b.Max[2]
}

// itemLess is the sweep order: by lower bound, ties by index.
func itemLess(a, b sapItem) bool {
	return a.lo < b.lo || (a.lo == b.lo && a.idx < b.idx)
}

// maxShifts bounds the moves of sortItems' insertion sort, per item,
// before it gives up for a full sort.
const maxShifts = 8

// sortItems sets s.items to the valid boxes sorted by (lower bound on
// axis, index), a total order, so the result is the same whatever order
// it starts from. When the last call swept the same boxes on the same
// axis, it starts from the last call's order and sorts by insertion:
// boxes that moved a little since make few moves (a pile at rest, a step
// from the next). After maxShifts moves per item it sorts from scratch.
func (s *SweepAndPrune) sortItems(boxes []AABB, axis int) {
	s.items = s.items[:0]
	coherent := axis == s.axis && len(s.order) > 0
	if coherent {
		for _, i := range s.order {
			if int(i) >= len(boxes) {
				coherent = false
				break
			}
			if b := &boxes[i]; valid(b) {
				s.items = append(s.items, sapItem{lo: b.Min[axis], idx: int(i)})
			}
		}
		if n := 0; coherent {
			for i := range boxes {
				if valid(&boxes[i]) {
					n++
				}
			}
			coherent = n == len(s.items) // no box left or joined the valid ones
		}
	}
	sorted := false
	if coherent {
		sorted = insertionSort(s.items, maxShifts*len(s.items))
	}
	if !sorted {
		s.items = s.items[:0]
		for i := range boxes {
			if b := &boxes[i]; valid(b) {
				s.items = append(s.items, sapItem{lo: b.Min[axis], idx: i})
			}
		}
		slices.SortFunc(s.items, func(a, b sapItem) int {
			if c := cmp.Compare(a.lo, b.lo); c != 0 {
				return c
			}
			return a.idx - b.idx
		})
	}
	s.axis = axis
	s.order = s.order[:0]
	for _, it := range s.items {
		s.order = append(s.order, int32(it.idx))
	}
}

// insertionSort sorts items by itemLess with at most budget moves and
// reports whether it finished.
func insertionSort(items []sapItem, budget int) bool {
	for i := 1; i < len(items); i++ {
		x := items[i]
		j := i
		for j > 0 && itemLess(x, items[j-1]) {
			if budget--; budget < 0 {
				items[j] = x
				return false
			}
			items[j] = items[j-1]
			j--
		}
		items[j] = x
	}
	return true
}

// SortPairs sorts pairs (i < j < n, no pair twice: PairsIn's) lexicographically by two
// stable counting passes, by j and then by i: O(len(pairs) + n).
func (s *SweepAndPrune) SortPairs(pairs [][2]int, n int) {
	if len(pairs) < 2 {
		return
	}
	s.tmp = slices.Grow(s.tmp[:0], len(pairs))[:len(pairs)]
	s.countingPass(s.tmp, pairs, 1, n)
	s.countingPass(pairs, s.tmp, 0, n)
}

// countingPass writes src to dst ordered by the element k of each pair,
// keeping src's order among equal keys (keys below n).
func (s *SweepAndPrune) countingPass(dst, src [][2]int, k, n int) {
	s.count = slices.Grow(s.count[:0], n+1)[:n+1]
	clear(s.count)
	for _, p := range src {
		s.count[p[k]+1]++
	}
	for i := 1; i <= n; i++ {
		s.count[i] += s.count[i-1]
	}
	for _, p := range src {
		dst[s.count[p[k]]] = p
		s.count[p[k]]++
	}
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
