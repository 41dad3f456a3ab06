package errmeasure

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// A guard with DeferGain ranks its iterates only when first read. Read
// after the solve, it is the guard that ranked them as they came, bit for
// bit: on every problem of testdata/mlcp's collection, with every solver
// and measure, lazy and eager, the returned x, w, status and Solved, and
// the guard's Best, LastTotals, Seen and Skipped. The gain is one that
// gives some iterates a gain and not others (the problem's Gain less a
// shift), so that RejectGain reorders the picks; solves with more than
// deferMaxTakes candidates replay the record during the solve.
func TestDeferGainSameBits(t *testing.T) {
	solves, long, rejected := 0, 0, 0
	for _, cp := range collectionProblems(t) {
		p := cp.p
		// Gain's value less 10⁻³ of |b|²-scale: positive on the
		// iterates that move most energy, not on the others.
		shift := 0.0
		for _, b := range p.B {
			shift += b * b
		}
		shift *= 1e-3
		gainOf := func(x, w []float64) float64 { return Gain(p, x, w) - shift }
		for _, name := range lcp.Names() {
			if name == "enum" && p.N() > lcp.EnumMaxRows {
				continue
			}
			for _, m := range []Measure{Energy, FB, Residual, Last, EnergyExact} {
				for _, obs := range []lcp.Observer{nil, lcp.ObserverFunc(func(lcp.Iterate) {})} {
					type run struct {
						r     lcp.Result
						sol   Solved
						guard *Picker
					}
					solve := func(deferGain bool) *run {
						s, _ := lcp.New(name)
						u := &run{guard: NewPicker(m)}
						u.guard.RejectGain, u.guard.GainOf, u.guard.DeferGain = true, gainOf, deferGain
						u.sol, _ = SolveGuarded(&u.r, p, s, lcp.Settings{Observer: obs}, NewPicker(m), u.guard)
						return u
					}
					deferred, eager := solve(true), solve(false)
					solves++
					where := cp.name + ", " + name + ", " + m.String()
					if deferred.guard.takes == deferMaxTakes {
						long++
					}
					if !sameBits(deferred.r.X, eager.r.X) || !sameBits(deferred.r.W, eager.r.W) || deferred.r.Status != eager.r.Status ||
						!sameSolved(deferred.sol, eager.sol) {
						t.Errorf("%s: the solve's answer differs", where)
					}
					a, aok := deferred.guard.Best()
					b, bok := eager.guard.Best()
					if aok != bok || a.Iter != b.Iter || !sameTotals(a.Totals, b.Totals) || !sameBits(a.X, b.X) || !sameBits(a.W, b.W) ||
						math.Float64bits(a.Value) != math.Float64bits(b.Value) {
						t.Errorf("%s: guard kept %+v, eager %+v", where, a, b)
					}
					if eager.guard.bestCls >= 3 {
						rejected++
					}
					la, aok := deferred.guard.LastTotals()
					lb, bok := eager.guard.LastTotals()
					if aok != bok || !sameTotals(la, lb) {
						t.Errorf("%s: guard LastTotals %+v, eager %+v", where, la, lb)
					}
					if deferred.guard.Seen() != eager.guard.Seen() || deferred.guard.Skipped() != eager.guard.Skipped() {
						t.Errorf("%s: guard saw %d (%d skipped), eager %d (%d)", where,
							deferred.guard.Seen(), deferred.guard.Skipped(), eager.guard.Seen(), eager.guard.Skipped())
					}
				}
			}
		}
	}
	if solves < 1000 || long < 50 || rejected < 20 {
		t.Fatalf("only %d solves compared, %d replayed during the solve, %d with every candidate rejected for its gain", solves, long, rejected)
	}
	t.Logf("%d solves, %d replayed during the solve, %d kept an iterate with a gain", solves, long, rejected)
}

// A guard with DeferGain that nobody reads after a solve asks no gain:
// the gain of a time step whose solve converged is never computed. Read,
// it asks one per candidate, as a guard without DeferGain does during the
// solve.
func TestDeferGainUnread(t *testing.T) {
	p := &lcp.Problem{
		A:  lcp.NewDense(2, 2, []float64{2, 1, 1, 2}),
		B:  []float64{-1, 1},
		Lo: []float64{0, 0},
		Hi: []float64{math.Inf(1), math.Inf(1)},
	}
	calls := 0
	for _, deferGain := range []bool{true, false} {
		calls = 0
		guard := NewPicker(Energy)
		guard.RejectGain, guard.DeferGain = true, deferGain
		guard.GainOf = func(x, w []float64) float64 { calls++; return Gain(p, x, w) }
		var r lcp.Result
		if _, err := SolveGuarded(&r, p, &lcp.BPP{}, lcp.Settings{}, NewPicker(Energy), guard); err != nil || r.Status != lcp.Converged {
			t.Fatalf("BPP: %v, %v", err, r.Status)
		}
		if deferGain && calls != 0 {
			t.Errorf("DeferGain: %d gains before the guard was read, want 0", calls)
		}
		eagerCalls := calls
		guard.Best()
		if deferGain && calls == 0 {
			t.Errorf("DeferGain: no gain after Best")
		}
		if !deferGain && calls != eagerCalls {
			t.Errorf("eager guard: Best asked %d more gains", calls-eagerCalls)
		}
	}
}

// One guard with DeferGain reused, as a time stepper's island slot reuses
// it, across the solves of every problem of testdata/mlcp's collection in
// turn (sizes going up and down, its events and backing array kept), ranks
// as one eager guard reused the same way, bit for bit, with every solver.
// Its backing array is reallocated only when a solve needs more room than
// any before it, each time at least doubling it: at most
// 1 + log₂(final/first capacity) times in the first pass, and never in
// the second pass over the same problems. Some solves copy nothing into it
// (one candidate, which is the answer), others several candidates.
func TestDeferGainReusedGuard(t *testing.T) {
	probs := collectionProblems(t)
	noCopy, several, solves := 0, 0, 0
	for _, name := range lcp.Names() {
		for _, m := range []Measure{Energy, Residual} {
			deferred, eager := NewPicker(m), NewPicker(m)
			deferred.RejectGain, deferred.DeferGain = true, true
			eager.RejectGain = true
			pkD, pkE := NewPicker(m), NewPicker(m)
			var rd, re lcp.Result
			grows, firstCap := 0, 0
			for pass := range 2 {
				for _, cp := range probs {
					p := cp.p
					if name == "enum" && p.N() > lcp.EnumMaxRows {
						continue
					}
					shift := 0.0
					for _, b := range p.B {
						shift += b * b
					}
					shift *= 1e-3
					gainOf := func(x, w []float64) float64 { return Gain(p, x, w) - shift }
					deferred.GainOf, eager.GainOf = gainOf, gainOf
					s, _ := lcp.New(name)
					before := cap(deferred.dbuf)
					solD, _ := SolveGuarded(&rd, p, s, lcp.Settings{}, pkD, deferred)
					if after := cap(deferred.dbuf); after != before {
						if pass == 1 {
							t.Errorf("%s, %s, %v: second pass reallocated the backing array (%d → %d)", cp.name, name, m, before, after)
						}
						if before > 0 && after < 2*before {
							t.Errorf("%s, %s, %v: backing array grew %d → %d, less than doubling", cp.name, name, m, before, after)
						}
						if firstCap == 0 {
							firstCap = after
						}
						grows++
					}
					switch {
					case deferred.takes == 1 && len(deferred.dbuf) == 0:
						noCopy++
					case deferred.takes > 1:
						several++
					}
					s, _ = lcp.New(name)
					solE, _ := SolveGuarded(&re, p, s, lcp.Settings{}, pkE, eager)
					solves++
					where := cp.name + ", " + name + ", " + m.String()
					if !sameBits(rd.X, re.X) || !sameBits(rd.W, re.W) || rd.Status != re.Status || !sameSolved(solD, solE) {
						t.Errorf("%s: the solve's answer differs", where)
					}
					a, aok := deferred.Best()
					b, bok := eager.Best()
					if aok != bok || a.Iter != b.Iter || !sameTotals(a.Totals, b.Totals) || !sameBits(a.X, b.X) || !sameBits(a.W, b.W) ||
						math.Float64bits(a.Value) != math.Float64bits(b.Value) {
						t.Errorf("%s: guard kept %+v, eager %+v", where, a, b)
					}
					la, _ := deferred.LastTotals()
					lb, _ := eager.LastTotals()
					if !sameTotals(la, lb) || deferred.Seen() != eager.Seen() || deferred.Skipped() != eager.Skipped() {
						t.Errorf("%s: guard last %+v, seen %d (%d skipped), eager %+v, %d (%d)", where,
							la, deferred.Seen(), deferred.Skipped(), lb, eager.Seen(), eager.Skipped())
					}
				}
			}
			if grows > 0 {
				if most := 1 + int(math.Log2(float64(cap(deferred.dbuf))/float64(firstCap))); grows > most {
					t.Errorf("%s, %v: backing array reallocated %d times from %d to %d floats, want at most %d", name, m, grows, firstCap, cap(deferred.dbuf), most)
				}
			}
		}
	}
	if solves < 500 || noCopy < 50 || several < 50 {
		t.Fatalf("%d solves, %d with one candidate copied nowhere, %d with several", solves, noCopy, several)
	}
	t.Logf("%d solves, %d with one candidate copied nowhere, %d with several", solves, noCopy, several)
}
