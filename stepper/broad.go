package stepper

import "github.com/gorigid/gorigid/contact"

// broadStage runs the broad phase's sweep on the workPool: the boxes in
// sweep order (contact.SweepAndPrune.Sweep) in chunks of broadChunkGeoms,
// each chunk's pairs in a buffer of its own, gathered and sorted
// (SortPairs) into the pairs a single sweep gives.
type broadStage struct {
	movers []int32 // moverPairs' geoms of moving bodies
	chunks [][][2]int
	items  int
	task   func(k int) // sweeps chunk k; made once
}

// broadChunkGeoms is the geoms of one broad-phase task, and
// broadParallelGeoms the fewest for which broadPhase runs on the workPool:
// a resting box's sweep, with the collision filter on its candidates,
// takes about 0.1–0.2 µs per candidate and a few candidates, so a chunk
// is 10–50 µs and a job about bodyParallel geoms' worth.
const (
	broadChunkGeoms    = 64
	broadParallelGeoms = bodyParallel
)

// broadPhase sets cs.pairs to the candidate pairs of the geoms' boxes
// (contact.SweepAndPrune.Pairs with the skip rule of collect): in one
// sweep below broadParallelGeoms geoms or with one worker, else in chunks
// on the workPool. The pairs are sorted either way, so the same slice.
func (w *World) broadPhase(cs *contactStage) {
	if w.moverPairs(cs) {
		return
	}
	if len(cs.boxes) < broadParallelGeoms || w.ws.pool.workers(2) < 2 {
		cs.pairs = cs.sap.Pairs(cs.pairs[:0], cs.boxes, cs.skip)
		return
	}
	bs := &cs.broad
	bs.items = cs.sap.Sweep(cs.boxes)
	nc := (bs.items + broadChunkGeoms - 1) / broadChunkGeoms
	for len(bs.chunks) < nc {
		bs.chunks = append(bs.chunks, nil)
	}
	if bs.task == nil {
		bs.task = func(k int) {
			lo := k * broadChunkGeoms
			bs.chunks[k] = cs.sap.PairsIn(bs.chunks[k][:0], cs.boxes, lo, min(lo+broadChunkGeoms, bs.items), cs.skip)
		}
	}
	w.ws.pool.do(nc, bs.task)
	cs.pairs = cs.pairs[:0]
	for _, c := range bs.chunks[:nc] {
		cs.pairs = append(cs.pairs, c...)
	}
	cs.sap.SortPairs(cs.pairs, len(cs.boxes))
}

// moverFraction is the largest share of the geoms that are movers (see
// moverPairs) for which moverPairs tests each mover's box against every
// geom's instead of sweeping: k movers among n geoms cost k·n box tests,
// the sweep about n insertion moves and a skip test per candidate, the
// ground plane's n among them.
const moverFraction = 8

// moverPairs is broadPhase's path for a world in which few geoms can
// move: every pair the skip rule keeps has a geom of a mover, an awake
// dynamic body or a kinematic body that moves (two infinite masses are
// skipped, a pair with a dynamic body asleep is skipped unless the other
// wakes it, wakesOthers, and an awake dynamic body is a mover), so the
// pairs are those of the movers' boxes with every box, overlapping
// (AABB.Overlaps, as the sweep: touching counts, an invalid box overlaps
// nothing) and not skipped, sorted as contact.SweepAndPrune.Pairs sorts
// its own: the same pairs in the same order. It sets cs.pairs and returns
// true when the movers are at most 1/moverFraction of the geoms (a settled
// pile of which some boxes sleep; none move when all sleep), else returns
// false and leaves the sweep to broadPhase.
func (w *World) moverPairs(cs *contactStage) bool {
	if w.sleep.sleeping == 0 {
		return false
	}
	bs := &cs.broad
	n := len(cs.boxes)
	bs.movers = bs.movers[:0]
	for g := range n {
		if w.wakesOthers(w.bodyOf(g)) {
			if bs.movers = append(bs.movers, int32(g)); len(bs.movers)*moverFraction > n {
				return false
			}
		}
	}
	cs.pairs = cs.pairs[:0]
	for _, a := range bs.movers {
		ba := &cs.boxes[a]
		if !validBox(ba) {
			continue
		}
		for b := range n {
			bb := &cs.boxes[b]
			if int(a) == b || !validBox(bb) || !ba.Overlaps(*bb) {
				continue
			}
			if b < int(a) && w.wakesOthers(w.bodyOf(b)) {
				continue // the pair of two movers, found from the first
			}
			i, j := min(int(a), b), max(int(a), b)
			if cs.skip(i, j) {
				continue
			}
			cs.pairs = append(cs.pairs, [2]int{i, j})
		}
	}
	cs.sap.SortPairs(cs.pairs, n)
	return true
}

// validBox reports whether b can overlap anything, as the sweep's boxes:
// Min ≤ Max on every axis, false for NaN.
func validBox(b *contact.AABB) bool {
	return b.Min[0] <= b.Max[0] && b.Min[1] <= b.Max[1] && b.Min[2] <= b.Max[2]
}
