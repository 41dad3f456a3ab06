package stepper

import (
	"math"
	"sync/atomic"

	"github.com/gorigid/gorigid/lcp"
)

// contactCache is the contact memory that one step leaves for the next:
// each contact point's cached record (its impulses, index sets and first
// friction direction), found by the point's key. The records are a slice
// in the order of the step's points, with a map from key to record. A
// step whose points have the same keys in the same order as the last
// step's (a resting scene: the narrow phase finds the same features of the
// same pairs) overwrites the records in place and leaves the map as it is;
// only a step whose contact set changed rebuilds the map. Where a key
// occurs at two points the later point's record is the key's, as when the
// records were put into a map in point order.
type contactCache struct {
	index map[contactKey]int32 // key → its record in vals (the last point with the key)
	keys  []contactKey         // the records' keys, in record order
	vals  []cached
	// unique says that keys has no key twice, so that record i is the
	// record of keys[i] (set when end rebuilds the map).
	unique bool
	// rekey (atomic, between begin and end) says that the map is to be
	// rebuilt.
	rekey int32
	store impulseStore
}

// impulseStore is storeImpulses' pass over the points: job runs
// storeRange with the step's points, their solve's impulses x and final
// states (nil when the solve gave none for every row).
type impulseStore struct {
	job    rangeJob
	points []point
	x      []float64
	states []lcp.State
}

// storeChunk is the points of one storeRange task and storeParallel the
// fewest for which storeImpulses runs on the workPool: a point's record
// takes about 0.03 µs (40 µs for the 1 500 points of PilesAwake), a job
// on a second worker 0.5 µs to start and join.
const (
	storeChunk    = 256
	storeParallel = 1024
)

// storeRange sets the contact cache's records of the points lo:hi
// (storeImpulses).
func (w *World) storeRange(lo, hi int) {
	cc := &w.ws.memory.cache
	sj := &cc.store
	for i := lo; i < hi; i++ {
		pt := &sj.points[i]
		c := cached{t1: pt.T1, n: pt.Rows, xn: pt.XN}
		r := pt.Row
		if sj.x != nil {
			c.xn = math.Max(0, sj.x[r])
			copy(c.x[:pt.Rows], sj.x[r:r+pt.Rows])
		}
		if sj.states != nil {
			copy(c.state[:pt.Rows], sj.states[r:r+pt.Rows])
		}
		cc.set(i, pt.ck, c)
	}
}

// get returns the record kept under k and whether there is one.
func (cc *contactCache) get(k contactKey) (cached, bool) {
	i, ok := cc.index[k]
	if !ok {
		return cached{}, false
	}
	return cc.vals[i], true
}

// getAt is get for the key k of the step's point i: when the last
// step's point i had the same key and no key repeated, its record is
// record i, found without the map (a resting scene's every point).
func (cc *contactCache) getAt(i int, k contactKey) (cached, bool) {
	if cc.unique && i < len(cc.keys) && cc.keys[i] == k {
		return cc.vals[i], true
	}
	return cc.get(k)
}

// put keeps c under k (replacing the record kept there).
func (cc *contactCache) put(k contactKey, c cached) {
	if i, ok := cc.index[k]; ok {
		cc.vals[i] = c
		return
	}
	if cc.index == nil {
		cc.index = make(map[contactKey]int32)
	}
	cc.index[k] = int32(len(cc.vals))
	cc.keys = append(cc.keys, k)
	cc.vals = append(cc.vals, c)
}

// each calls f with every key kept and its record, in no order.
func (cc *contactCache) each(f func(k contactKey, c cached)) {
	for k, i := range cc.index {
		f(k, cc.vals[i])
	}
}

// begin starts a step's records: n of them, record i to be set by
// set(i, …) with the key of the step's point i, then end with the
// points. The map is rebuilt (end) only when the keys differ from the
// kept ones in value or order; keys the step does not name are dropped.
func (cc *contactCache) begin(n int) {
	if cap(cc.vals) < n {
		cc.vals = make([]cached, n, n+n/4)
	}
	cc.vals = cc.vals[:n]
	cc.rekey = 0
	if len(cc.keys) != n {
		cc.rekey = 1
	}
}

// set sets record i to c under key k (between begin and end). Calls for
// different records may run at once.
func (cc *contactCache) set(i int, k contactKey, c cached) {
	cc.vals[i] = c
	if i >= len(cc.keys) || cc.keys[i] != k {
		atomic.StoreInt32(&cc.rekey, 1)
	}
}

// end keys the records set since begin by the points ps, record i by
// point i's key: the map is rebuilt when a key differed.
func (cc *contactCache) end(ps []point) {
	if cc.rekey == 0 {
		return
	}
	n := len(ps)
	if cc.index == nil {
		cc.index = make(map[contactKey]int32, n)
	}
	clear(cc.index)
	if cap(cc.keys) < n {
		cc.keys = make([]contactKey, 0, n+n/4)
	}
	cc.keys = cc.keys[:0]
	for i := range ps {
		cc.keys = append(cc.keys, ps[i].ck)
		cc.index[ps[i].ck] = int32(i)
	}
	cc.unique = len(cc.index) == n
	cc.rekey = 0
}
