package stepper

// broadStage runs the broad phase's sweep on the workPool: the boxes in
// sweep order (contact.SweepAndPrune.Sweep) in chunks of broadChunkGeoms,
// each chunk's pairs in a buffer of its own, gathered and sorted
// (SortPairs) into the pairs a single sweep gives.
type broadStage struct {
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
