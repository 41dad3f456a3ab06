package stepper

import (
	"slices"
	"sync/atomic"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// islandSet partitions a step's dynamic bodies and rows into islands: the
// connected components of the graph whose vertices are the dynamic bodies
// and whose edges are the rows (a row joins every dynamic body it names).
// Static and kinematic bodies have infinite mass, so a row's impulse moves
// none of them, and they split nothing: two boxes resting on one ground
// are two islands. The MLCP of the step is then block diagonal by island
// (A = J M⁻¹ Jᵀ + C couples two rows only through a dynamic body they
// share), and each block can be solved on its own, as ODE's dWorldStep
// does (Smith, "Open Dynamics Engine", ode/src/util.cpp, dxProcessIslands).
//
// Order. Islands are numbered by their smallest body index, bodies and
// rows within an island keep their index order: the partition is a
// function of the bodies and rows alone, never of map order or
// scheduling, so that solving the islands on any number of goroutines
// gives the same bits.
type islandSet struct {
	parent []int32 // union–find forest over bodies; -1 for static and kinematic
	// Of is the island of each body, -1 for a static or kinematic body.
	of []int32
	// Bodies of island k: bodies[bodyStart[k]:bodyStart[k+1]]; rows of
	// island k: rows[rowStart[k]:rowStart[k+1]]. Rows that name no dynamic
	// body (between kinematic bodies only) belong to no island and are
	// listed in loose.
	bodyStart, bodies []int32
	rowStart, rows    []int32
	loose             []int32
	rowIsland         []int32 // island of each row, -1 for a loose row
	count             []int32 // scratch
	// sig is the input of the last build (rows' bodies, static and
	// kinematic bodies), sigOK whether it was recorded. A build on the
	// same input keeps the set (sameInput).
	sig   rowLayout
	sigOK bool
	// gen is the generation of the assembly's layout the set was built
	// for (buildFor), 0 when it was not; version counts the builds, so
	// that what is derived from the set alone is kept while it stands
	// (splitIslands' local places, islandPool's order).
	gen, version uint64
}

// n returns the number of islands.
func (is *islandSet) n() int { return max(len(is.bodyStart)-1, 0) }

// islandBodies returns the bodies of island k in index order.
func (is *islandSet) islandBodies(k int) []int32 { return is.bodies[is.bodyStart[k]:is.bodyStart[k+1]] }

// islandRows returns the rows of island k in row order.
func (is *islandSet) islandRows(k int) []int32 { return is.rows[is.rowStart[k]:is.rowStart[k+1]] }

func (is *islandSet) find(i int32) int32 {
	for is.parent[i] != i {
		is.parent[i] = is.parent[is.parent[i]] // path halving
		i = is.parent[i]
	}
	return i
}

func (is *islandSet) union(a, b int32) {
	ra, rb := is.find(a), is.find(b)
	if ra == rb {
		return
	}
	// The smaller index becomes the root, so a root is its island's
	// smallest body.
	if ra < rb {
		is.parent[rb] = ra
	} else {
		is.parent[ra] = rb
	}
}

// build computes the islands of bodies under rows (rows name bodies by
// index, constraint.Row.Body). It allocates only when the world grew. The
// islands are a function of the rows' bodies and of which bodies are
// static or kinematic alone: when those are the last build's (a settled
// scene's steady step), the set is left as that build made it.
func (is *islandSet) build(bodies []*body.Body, rows []constraint.Row) {
	if is.sameInput(bodies, rows) {
		return
	}
	is.gen = 0
	is.rebuild(bodies, rows)
}

// buildFor is build for rows whose layout (a rowLayout: each row's
// bodies, which bodies are static or kinematic) is generation gen of the
// step's assembly (Assembly.checkLayout checked them): the set is kept
// when it was built for the same generation, the same input, without a
// pass over the rows.
func (is *islandSet) buildFor(bodies []*body.Body, rows []constraint.Row, gen uint64) {
	if gen != 0 && gen == is.gen {
		return
	}
	is.sigOK = false // sig is not this input's
	is.rebuild(bodies, rows)
	is.gen = gen
}

// rebuild computes the islands of bodies under rows (build).
func (is *islandSet) rebuild(bodies []*body.Body, rows []constraint.Row) {
	is.version++
	nb := len(bodies)
	is.parent = slices.Grow(is.parent[:0], nb)[:nb]
	for i, b := range bodies {
		if b.Static || b.Kinematic {
			is.parent[i] = -1
		} else {
			is.parent[i] = int32(i)
		}
	}
	for i := range rows {
		r := &rows[i]
		if i > 0 && sameBodies(r, &rows[i-1]) {
			continue // a contact point's friction rows: joined by its normal row
		}
		first := int32(-1)
		for k := 0; k < r.N; k++ {
			b := int32(r.Body[k])
			if is.parent[b] < 0 {
				continue
			}
			if first < 0 {
				first = b
			} else {
				is.union(first, b)
			}
		}
	}
	// Number the roots in body order: a root is its island's smallest
	// body, so island k's number follows its smallest body's index.
	is.of = slices.Grow(is.of[:0], nb)[:nb]
	islands := int32(0)
	for i := range bodies {
		switch {
		case is.parent[i] < 0:
			is.of[i] = -1
		case is.parent[i] == int32(i):
			is.of[i] = islands
			islands++
		}
	}
	for i := range bodies {
		if is.parent[i] >= 0 {
			is.of[i] = is.of[is.find(int32(i))]
		}
	}
	// Bodies by island (counting sort, stable in body index).
	ni := int(islands)
	is.count = slices.Grow(is.count[:0], ni+1)[:ni+1]
	clear(is.count)
	for _, k := range is.of {
		if k >= 0 {
			is.count[k+1]++
		}
	}
	is.bodyStart = prefix(is.bodyStart, is.count)
	is.bodies = slices.Grow(is.bodies[:0], nb)[:is.bodyStart[ni]]
	copy(is.count, is.bodyStart[:ni])
	for i, k := range is.of {
		if k >= 0 {
			is.bodies[is.count[k]] = int32(i)
			is.count[k]++
		}
	}
	// Rows by island, the same way; a row's island is that of any dynamic
	// body it names.
	nr := len(rows)
	is.rowIsland = slices.Grow(is.rowIsland[:0], nr)[:nr]
	clear(is.count)
	is.loose = is.loose[:0]
	for i := range rows {
		r := &rows[i]
		k := int32(-1)
		if i > 0 && sameBodies(r, &rows[i-1]) {
			k = is.rowIsland[i-1]
		} else {
			for j := 0; j < r.N && k < 0; j++ {
				k = is.of[r.Body[j]]
			}
		}
		is.rowIsland[i] = k
		if k < 0 {
			is.loose = append(is.loose, int32(i))
			continue
		}
		is.count[k+1]++
	}
	is.rowStart = prefix(is.rowStart, is.count)
	is.rows = slices.Grow(is.rows[:0], nr)[:is.rowStart[ni]]
	copy(is.count, is.rowStart[:ni])
	for i, k := range is.rowIsland {
		if k >= 0 {
			is.rows[is.count[k]] = int32(i)
			is.count[k]++
		}
	}
}

// sameInput reports whether bodies and rows are the input of the last
// build, by what build reads of them (sig: a rowLayout); when they are not, it
// records them for the next.
func (is *islandSet) sameInput(bodies []*body.Body, rows []constraint.Row) bool {
	if is.sigOK && is.sig.same(bodies, rows) {
		return true
	}
	is.sig.record(bodies, rows)
	is.sigOK = true
	return false
}

// problems returns the number of MLCPs the islands g make for a step
// (World.splitIslands): the islands with rows, and one for the loose rows.
func problems(g *islandSet) int {
	n := 0
	for k := range g.n() {
		if len(g.islandRows(k)) > 0 {
			n++
		}
	}
	if len(g.loose) > 0 {
		n++
	}
	return n
}

// sameBodies reports whether rows a and b name the same bodies in the
// same slots (the rows of one contact point, of one joint).
func sameBodies(a, b *constraint.Row) bool {
	if a.N != b.N {
		return false
	}
	for k := 0; k < a.N; k++ {
		if a.Body[k] != b.Body[k] {
			return false
		}
	}
	return true
}

// partition builds ws.islands.set from the step's rows, once a step: the
// stages that split their work by island (the assembly's pairs, the
// solve, the sleep checks) share it. Step clears setStep first, so a set
// left by a step that failed or was cancelled is not reused.
func (w *World) partition(rows []constraint.Row) *islandSet {
	is := &w.ws.islands
	if is.setStep != w.steps+1 {
		if is.layStep == w.steps+1 { // the step's assembly checked these rows' layout
			is.set.buildFor(w.Bodies, rows, w.ws.assembly.eq.layout.gen)
		} else {
			is.set.build(w.Bodies, rows)
		}
		is.setStep = w.steps + 1
	}
	return &is.set
}

// prefix sets dst to the running sums of count (count[0] must be 0):
// dst[k] = Σ_{j ≤ k} count[j].
func prefix(dst, count []int32) []int32 {
	dst = slices.Grow(dst[:0], len(count))[:len(count)]
	s := int32(0)
	for k, c := range count {
		s += c
		dst[k] = s
	}
	return dst
}

// islandPairs is Assembly's state for a refill of A's pairs island by
// island on the workPool (pairsByIsland).
type islandPairs struct {
	bodyRec []int // each body's first record (its pairs' count before the prefix sum)
	// chunkEnd[c] is the island after chunk c's last: the islands in
	// order, cut where a chunk reaches pairChunkRows rows.
	chunkEnd []int32
	// kept: bodyRec and chunkEnd are those of the incidence lists in
	// byBody and of the islands of their layout, from record rec0 on
	// (incidences clears it when it builds new lists).
	kept     bool
	rec0, nb int
	end      int       // the record after the last body's
	zs       []float64 // each chunk's sum of finiteness terms
	halted   atomic.Bool
	countJob rangeJob
	pairJob  rangeJob
	mass     *Mass
	prows    []constraint.Row
	copyJ    bool // the tasks refresh their bodies' byBodyJ (refreshBodyJ)
}

// pairChunkRows is about the rows of the islands of one pairsByIsland
// task: a row's pairs take about as long as its terms in rowTerms, so the
// tasks are about as long as a forRange task over rows.
const pairChunkRows = rowChunk

// pairsByIsland is massMatrix's JMinv and loop over the bodies' row pairs
// on a refill of A, split by island (groups): the islands in chunks of
// about pairChunkRows rows on the workPool (par), each task setting, island
// by island, JMinv of the island's rows (jminvRow), then, with copyJ, its
// bodies' Jacobian blocks (refreshBodyJ), then its bodies' pairs in body
// order, every body's records from its place in the body-order sequence
// (bodyRec, the running count of the records of the bodies before it); the
// rows of no island (loose) get their JMinv on the caller first. A body's
// pairs read only the JMinv and blocks of its own island's rows, and an
// entry's records all come from bodies of its rows' island, which write
// nothing else, and in body order as in the serial loop: the same slots
// get the same sums in the same order, the bits of the serial loop. While
// the incidence lists stand (a refill of the same layout), bodyRec and
// the chunks are those of the last call (kept). It reports false when
// stop stopped it, which each task asks before its first body and every
// cancelCheckBodies bodies after.
func (a *Assembly) pairsByIsland(m *Mass, rows []constraint.Row, copyJ bool) bool {
	ip := &a.islandPairs
	g := a.groups
	nb := len(a.byBody)
	ip.mass, ip.prows, ip.copyJ = m, rows, copyJ
	if !ip.kept || ip.rec0 != a.rec || ip.nb != nb {
		a.pairLayout(nb)
	}
	for _, i := range g.loose {
		a.jminvRow(m, rows, int(i))
	}
	ip.zs = grow(ip.zs, len(ip.chunkEnd))
	ip.halted.Store(false)
	a.par(&ip.pairJob, len(ip.chunkEnd))
	ip.mass, ip.prows = nil, nil
	for _, z := range ip.zs {
		a.A.AddRecordTerms(z)
	}
	a.rec = ip.end
	return !ip.halted.Load()
}

// pairLayout sets bodyRec, from record a.rec on, and chunkEnd for the
// incidence lists of nb bodies and the islands of groups (pairsByIsland).
func (a *Assembly) pairLayout(nb int) {
	ip := &a.islandPairs
	g := a.groups
	if cap(ip.bodyRec) < nb+1 {
		ip.bodyRec = make([]int, nb+1)
	}
	ip.bodyRec = ip.bodyRec[:nb+1]
	if ip.countJob.run == nil {
		ip.countJob.run = a.countPairs
		ip.pairJob.run, ip.pairJob.chunk, ip.pairJob.least = a.islandChunkPairs, 1, 2
	}
	a.par(&ip.countJob, nb)
	rec := a.rec
	for bi, c := range ip.bodyRec[:nb] {
		ip.bodyRec[bi] = rec
		rec += c
	}
	ip.chunkEnd = ip.chunkEnd[:0]
	size := 0
	for k := range g.n() {
		if size += len(g.islandRows(k)); size >= pairChunkRows {
			ip.chunkEnd = append(ip.chunkEnd, int32(k+1))
			size = 0
		}
	}
	if n := int32(g.n()); len(ip.chunkEnd) == 0 || ip.chunkEnd[len(ip.chunkEnd)-1] != n {
		ip.chunkEnd = append(ip.chunkEnd, n)
	}
	ip.kept, ip.rec0, ip.nb, ip.end = true, a.rec, nb, rec
}

// countPairs sets bodyRec[bi] to the number of row pairs of each body
// bi in lo:hi (bodyPairs' records; none for a static or kinematic body).
func (a *Assembly) countPairs(lo, hi int) {
	ip := &a.islandPairs
	for bi := lo; bi < hi; bi++ {
		ip.bodyRec[bi] = 0
		if b := ip.mass.Bodies[bi]; b.Static || b.Kinematic {
			continue
		}
		list := a.byBody[bi]
		from, c := 0, 0
		for pi, p := range list {
			if pi > 0 && list[pi-1].row != p.row {
				from = pi
			}
			c += len(list) - from
		}
		ip.bodyRec[bi] = c
	}
}

// islandChunkPairs sets JMinv, the blocks (with copyJ) and the pairs of
// the islands of chunks lo:hi (pairsByIsland).
func (a *Assembly) islandChunkPairs(lo, hi int) {
	ip := &a.islandPairs
	done := 0 // bodies of this call: stop is asked before each cancelCheckBodies
	for c := lo; c < hi; c++ {
		first := int32(0)
		if c > 0 {
			first = ip.chunkEnd[c-1]
		}
		z := 0.0
		for k := first; k < ip.chunkEnd[c]; k++ {
			for _, i := range a.groups.islandRows(int(k)) {
				a.jminvRow(ip.mass, ip.prows, int(i))
			}
			for _, bi := range a.groups.islandBodies(int(k)) {
				if done%cancelCheckBodies == 0 && a.stopped() {
					ip.halted.Store(true)
					return
				}
				done++
				if ip.copyJ {
					a.refreshBodyJ(int(bi), ip.prows)
				}
				_, zb := a.bodyPairs(int(bi), ip.prows, ip.bodyRec[bi])
				z += zb
			}
		}
		ip.zs[c] = z
	}
}
