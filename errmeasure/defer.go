package errmeasure

import "github.com/gorigid/gorigid/lcp"

// deferMaxTakes is the most candidates a guard with DeferGain records in
// one solve; the next one replays them (flush) and the rest of the solve
// runs eagerly, so that the copies stay within 2·deferMaxTakes vectors.
const deferMaxTakes = 8

// deferMaxEvents is the most events a guard records in one solve: its
// candidates and the two settles of SolveGuarded (its own and its deferred
// one after a solve that returned no x). An event past it flushes.
const deferMaxEvents = deferMaxTakes + 2

// Kinds of recorded shadow events (deferred).
const (
	evTake   = iota // a candidate: take
	evSettle        // settle's completion of the shadow's totals
)

// Where a recorded vector lives (deferred.x, deferred.w): offsets ≥ 0
// index the recorder's backing array (Picker.dbuf); vecNone is nil (a
// settle after a solve that returned no x); vecBest is the guard's own
// best.X or best.W, which hold the first candidate of a solve.
const (
	vecNone = -1
	vecBest = -2
)

// deferred is one shadow event a guard with DeferGain recorded instead of
// running; flush runs it. seen, skipped, last and lastPart are the guard's
// Observe bookkeeping when it came (shadowObserve runs as the iterates
// come: it computes no gain).
type deferred struct {
	kind          int
	seen, skipped int
	last          Totals
	lastPart      bool
	t             Totals // take: the iterate's totals; settle: tf
	pkLast        Totals // settle: pk's completed last totals
	part          bool
	sat           bool
	iter          int
	v             float64
	cls           int
	x, w          int // where the copies live (vecNone, vecBest or an offset in dbuf)
	n             int // their length
}

// recorder is a Picker's record of shadow events under DeferGain: rec
// while recording, the events in order (events[:nev]), the candidates
// among them (takes), and one backing array for the copies of their
// vectors, kept across solves and grown geometrically (keep), so that
// a guard allocates only when a solve needs more room than any before it.
// The first candidate of a solve is copied into the guard's best.X and
// best.W, which it would take anyway (nothing is kept before it), and a
// settle whose x and w have the bits of the last candidate's shares its
// copies: a solve with one candidate whose answer is that candidate copies
// into no backing array at all.
type recorder struct {
	rec                 bool
	events              [deferMaxEvents]deferred
	nev, takes          int
	dbuf                []float64
	takeX, takeW, takeN int // where the last recorded candidate's copies live, their length
}

// startRecording makes g record its shadow events for SolveGuarded when
// DeferGain is set: its ranking state stays as resetFrom left it until
// flush.
func (g *Picker) startRecording() {
	g.nev, g.takes = 0, 0
	g.dbuf = g.dbuf[:0]
	g.rec = g.DeferGain && g.RejectGain
}

// keep copies v into the backing array and returns its offset. When the
// array is full it is replaced by one with room for the rest of the
// solve's worst case (the candidates still to come and a settle, each an x
// and a w of v's length), and at least twice its capacity: every
// reallocation at least doubles it, so a guard whose islands grow a row at
// a time reallocates it O(log n) times.
func (g *Picker) keep(v []float64) int {
	off := len(g.dbuf)
	if need := off + len(v); need > cap(g.dbuf) {
		room := off + (2*(deferMaxTakes-g.takes)+2)*len(v)
		b := make([]float64, off, max(2*cap(g.dbuf), room, need))
		copy(b, g.dbuf)
		g.dbuf = b
	}
	g.dbuf = append(g.dbuf, v...)
	return off
}

// vec returns the recorded vector at where, of length n; best is the
// guard's best.X or best.W.
func (g *Picker) vec(where, n int, best []float64) []float64 {
	switch where {
	case vecNone:
		return nil
	case vecBest:
		return best[:n]
	}
	return g.dbuf[where : where+n : where+n]
}

// record appends e, with g's Observe bookkeeping, to the record.
func (g *Picker) record(e deferred) {
	e.seen, e.skipped, e.last, e.lastPart = g.seen, g.skipped, g.last, g.lastPart
	g.events[g.nev] = e
	g.nev++
}

// shadowObserve is Observe's bookkeeping of an iterate on the shadow g.
// It runs as the iterates come, recording or not: it asks no gain.
func (g *Picker) shadowObserve(t Totals, part, sat bool) {
	g.seen++
	g.last, g.lastPart = t, part
	if !sat {
		g.skipped++
	}
}

// shadowTake is take on the shadow g, recorded while g records; the
// deferMaxTakes+1-th candidate flushes and runs eagerly.
func (g *Picker) shadowTake(it lcp.Iterate, t Totals, part bool, v float64, cls int) {
	if g.rec && (g.takes == deferMaxTakes || g.nev == deferMaxEvents) {
		g.flush()
	}
	if !g.rec {
		g.take(it, t, part, v, cls)
		return
	}
	e := deferred{kind: evTake, t: t, part: part, sat: it.SatisfiesEq2, iter: it.Iter, v: v, cls: cls, n: len(it.X)}
	if g.takes == 0 && !g.hasBest && len(it.X) == len(g.best.X) && len(it.W) == len(g.best.W) {
		// The first candidate: take keeps it whatever its gain, in best.
		copy(g.best.X, it.X)
		copy(g.best.W, it.W)
		e.x, e.w = vecBest, vecBest
	} else {
		e.x, e.w = g.keep(it.X), g.keep(it.W)
	}
	g.takes++
	g.takeX, g.takeW, g.takeN = e.x, e.w, e.n
	g.record(e)
}

// shadowSettle is settle on the shadow g (pk's settle with its returned
// xf, wf, totals tf, and pk's completed last totals), recorded while g
// records.
func (g *Picker) shadowSettle(pk *Picker, xf, wf []float64, tf Totals) {
	if g.rec && g.nev == deferMaxEvents {
		g.flush()
	}
	if !g.rec {
		g.settleShadow(pk, xf, wf, tf, pk.last)
		return
	}
	e := deferred{kind: evSettle, t: tf, pkLast: pk.last, x: vecNone, w: vecNone, n: len(xf)}
	switch {
	case xf == nil && wf == nil:
	case g.takes > 0 && len(xf) == g.takeN && len(wf) == g.takeN &&
		sameBits(xf, g.vec(g.takeX, len(xf), g.best.X)) && sameBits(wf, g.vec(g.takeW, len(wf), g.best.W)):
		// The last candidate's bits: its copies stay unchanged until
		// the replay reaches this settle (a later take would follow it).
		e.x, e.w = g.takeX, g.takeW
	default:
		e.x, e.w = g.keep(xf), g.keep(wf)
	}
	g.record(e)
}

// flush runs g's recorded events in order, with the gains of RejectGain,
// and stops recording: g's state is then what the events would have left
// had they run when they happened. Before an event that followed an
// Observe, g's Observe bookkeeping is set to what it was then; after the
// last one, to its current value if Observes followed (take leaves that
// bookkeeping alone, settle completes last).
func (g *Picker) flush() {
	if !g.rec {
		return
	}
	g.rec = false
	seen, skipped, last, lastPart := g.seen, g.skipped, g.last, g.lastPart
	// The bookkeeping as resetFrom left it, before the first Observe.
	g.seen, g.skipped, g.last, g.lastPart = 0, 0, Totals{}, false
	for i := range g.events[:g.nev] {
		e := &g.events[i]
		if e.seen != g.seen {
			g.seen, g.skipped, g.last, g.lastPart = e.seen, e.skipped, e.last, e.lastPart
		}
		x, w := g.vec(e.x, e.n, g.best.X), g.vec(e.w, e.n, g.best.W)
		switch e.kind {
		case evTake:
			g.take(lcp.Iterate{Iter: e.iter, X: x, W: w, SatisfiesEq2: e.sat}, e.t, e.part, e.v, e.cls)
		case evSettle:
			g.settleShadow(nil, x, w, e.t, e.pkLast)
		}
	}
	if seen != g.seen {
		g.seen, g.skipped, g.last, g.lastPart = seen, skipped, last, lastPart
	}
	g.nev = 0
}
