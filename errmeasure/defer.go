package errmeasure

import "github.com/gorigid/gorigid/lcp"

// deferMaxTakes is the most candidates a guard with DeferGain records in
// one solve; the next one replays them (flush) and the rest of the solve
// runs eagerly, so that the copies stay within 2·deferMaxTakes + 2 vectors.
const deferMaxTakes = 8

// Kinds of recorded shadow events (deferred).
const (
	evObserve = iota // Observe's bookkeeping of an iterate: seen, last, skipped
	evTake           // a candidate: take
	evSettle         // settle's completion of the shadow's totals
)

// deferred is one shadow event a guard with DeferGain recorded instead of
// running; flush runs it. x and w are the recorder's copies (nil for an
// Observe; empty for a settle after a solve that returned no x).
type deferred struct {
	kind int
	t    Totals // Observe, take: the iterate's totals; settle: tf
	last Totals // settle: pk's completed last totals
	part bool
	sat  bool
	iter int
	v    float64
	cls  int
	x, w []float64
}

// startRecording makes g record its shadow events for SolveGuarded when
// DeferGain is set: its state stays as resetFrom left it until flush.
func (g *Picker) startRecording() {
	g.events = g.events[:0]
	g.nbuf = 0
	g.takes = 0
	g.rec = g.DeferGain && g.RejectGain
}

// copyOf returns a recorder-owned copy of v, reusing the buffers of
// earlier solves.
func (g *Picker) copyOf(v []float64) []float64 {
	if g.nbuf == len(g.bufs) {
		g.bufs = append(g.bufs, nil)
	}
	b := append(g.bufs[g.nbuf][:0], v...)
	g.bufs[g.nbuf] = b
	g.nbuf++
	return b
}

// shadowObserve is Observe's bookkeeping of an iterate on the shadow g.
func (g *Picker) shadowObserve(t Totals, part, sat bool) {
	if g.rec {
		g.events = append(g.events, deferred{kind: evObserve, t: t, part: part, sat: sat})
		return
	}
	g.seen++
	g.last, g.lastPart = t, part
	if !sat {
		g.skipped++
	}
}

// shadowTake is take on the shadow g, recorded while g records; the
// deferMaxTakes+1-th candidate flushes and runs eagerly.
func (g *Picker) shadowTake(it lcp.Iterate, t Totals, part bool, v float64, cls int) {
	if g.rec && g.takes == deferMaxTakes {
		g.flush()
	}
	if !g.rec {
		g.take(it, t, part, v, cls)
		return
	}
	g.takes++
	g.events = append(g.events, deferred{kind: evTake, t: t, part: part, sat: it.SatisfiesEq2, iter: it.Iter,
		v: v, cls: cls, x: g.copyOf(it.X), w: g.copyOf(it.W)})
}

// flush runs g's recorded events in order, with the gains of RejectGain,
// and stops recording: g's state is then what the events would have left
// had they run when they happened.
func (g *Picker) flush() {
	if !g.rec {
		return
	}
	g.rec = false
	for i := range g.events {
		e := &g.events[i]
		switch e.kind {
		case evObserve:
			g.shadowObserve(e.t, e.part, e.sat)
		case evTake:
			g.take(lcp.Iterate{Iter: e.iter, X: e.x, W: e.w, SatisfiesEq2: e.sat}, e.t, e.part, e.v, e.cls)
		case evSettle:
			g.settleShadow(nil, e.x, e.w, e.t, e.last)
		}
	}
	g.events = g.events[:0]
}
