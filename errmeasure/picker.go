package errmeasure

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// Picker is an lcp.Observer that keeps a copy of the best iterate of a solve
// (§5.3 of the paper): the one with the least total error under its Measure,
// or the last one for Last.
//
// For every iterate it computes all three totals (O(n) each, §4.2.1) so that
// statistics can report them. Under Energy, FB and Residual the candidates
// are ranked by the key (class, value), least first, where the class is
//
//	0: the total is finite and x is within its bounds,
//	1: the total is finite and some x_i violates a bound,
//	2: the total is +Inf,
//
// so an iterate that violates a bound is never preferred to one that does
// not when both totals are finite, whatever the totals (an error measure can
// rate a bound violation low: the energy error of a row is ½ a δx², small
// for a small aᵢᵢ). A bound counts as violated when x_i < l_i − τᵢ or
// x_i > u_i + τᵢ, with τᵢ = 10⁻¹⁰·s_w/aᵢ the impulse tolerance of
// lcp.Settings' default (s_w = max|bᵢ|, or 1 if b = 0), so that iterates
// that approach the box from outside by rounding are not penalized. Ties of
// the key keep the later iterate, the solver's further progress. A NaN total
// is never picked; iterates with SatisfiesEq2 == false (Lemke's, §2.2) are
// not candidates, as the measures do not apply to them, and are counted by
// Skipped. Under Last every iterate replaces the previous one, whatever its
// SatisfiesEq2.
//
// Use: NewPicker once, then per solve Reset(p, m), optionally
// SetInverseMass, pass the Picker as lcp.Settings.Observer, and read Best
// after the solve. After the first Reset for a problem size, Reset and
// Observe allocate nothing (unless Trace grows History).
//
// A Picker is not safe for concurrent use.
type Picker struct {
	// Trace, when true, makes Observe append every iterate's Totals to
	// History. Reset empties History, keeping its capacity.
	Trace   bool
	History []Totals
	// RejectGain, when true, ranks every iterate with a gain (Gain: applying
	// it would give the free motion energy) after every iterate without
	// one, whatever their totals; under Last the kept iterate is the last
	// one without a gain (the last one if all have one). Lemke's iterates
	// (SatisfiesEq2 false) are not tested. World.Step's safeguard uses it
	// on a second Picker (Safeguard); the default, false, is the paper's
	// rule.
	RejectGain bool
	// GainOf is the gain RejectGain tests (GainFunc); nil means Gain.
	GainOf GainFunc
	// DeferGain, with RejectGain, lets a guard of SolveGuarded record the
	// iterates and candidates it sees (copies of up to 8 candidates) and
	// rank them, with their gains, only when it is first read (Best,
	// LastTotals, Seen, Skipped, SetInverseMass) or its ninth candidate
	// arrives: the same state, bit for bit, as ranking them as they come,
	// and no gain computed at all for a solve whose guard is not read (a
	// time step whose solve converged: Safeguard reads the guard only when
	// it did not). The problem and GainOf must give the same values until
	// that read or the next Reset.
	DeferGain bool

	m        Measure
	p        *lcp.Problem
	a        []float64 // inverse effective mass per row (Eq. 13 or Eq. 11)
	xtol     []float64 // τᵢ of the bound test
	best     Pick
	bestCls  int
	hasBest  bool
	last     Totals
	seen     int
	skipped  int
	hasReset bool
	exact    bool    // pk.a is Eq. (11)'s exact inverse mass (EnergyExact)
	sw       float64 // s_w = max|bᵢ| (1 if b = 0) of the bound test
	// shadow, during SolveGuarded, is the guard Picker: it sees every
	// iterate and candidate pk sees, with pk's totals.
	shadow *Picker
	// lazy, during SolveGuarded without a further Observer, makes Observe
	// compute only the total its measure ranks by (rank); the other totals
	// of the last and the kept iterate, marked by lastPart and bestPart,
	// are computed once when the solve ends (settle). lastX and lastW copy
	// the last iterate for that when it is not the kept one; bestAt is
	// Seen when an observed iterate was kept (−1 for the solver's final
	// result).
	lazy, lastPart, bestPart bool
	lastX, lastW             []float64
	bestAt                   int
	// Safeguard's scratch: x = 0 and the segment's midpoint.
	zero, mx, mw, pw, ax, aw []float64
	// DeferGain's record of shadow events (defer.go).
	recorder
	// mul is SolveGuarded's body-space product (lcp.Problem.ResidualKKT).
	mul lcp.BodyProduct
}

func (pk *Picker) gain(x, w []float64) float64 {
	if pk.GainOf != nil {
		return pk.GainOf(x, w)
	}
	return Gain(pk.p, x, w)
}

// ExactPickMaxRows is the largest problem on which the EnergyExact picker
// forms the exact effective mass of Eq. (11) (a dense Cholesky factor,
// 600³/3 ≈ 7·10⁷ flops, some 50 ms); larger problems are ranked with Eq.
// (13)'s diagonal, as under Energy.
const ExactPickMaxRows = 600

// ExactPickMass returns the inverse effective masses the EnergyExact
// picker ranks with (see Picker.Reset: Eq. 11 through A⁻¹ or A⁺ where the
// sizes allow, InverseMass's rule elsewhere) in dst (grown if short), and
// whether the exact rule was used. A caller replaying iterates through
// several pickers of one problem computes it once and passes it to
// Picker.SetInverseMass.
func ExactPickMass(dst []float64, p *lcp.Problem) ([]float64, bool) {
	dst = InverseMass(dst, p)
	n := p.N()
	if n > ExactPickMaxRows {
		return dst, false
	}
	if a, err := ExactInverseMass(p.A); err == nil {
		copy(dst, a)
		return dst, true
	}
	if n > PseudoExactMaxRows {
		return dst, false
	}
	a, err := PseudoInverseMass(p.A)
	if err != nil {
		return dst, false
	}
	for i, v := range a {
		if v > 0 && !math.IsInf(v, 1) {
			dst[i] = v // rows without a range keep InverseMass's value
		}
	}
	return dst, true
}

// ExactMass reports whether the last Reset took the exact effective mass of
// Eq. (11) (EnergyExact on a problem where it exists and is not too large).
func (pk *Picker) ExactMass() bool { return pk.exact }

var _ lcp.Observer = (*Picker)(nil)

// Pick is the iterate a Picker kept.
type Pick struct {
	Iter   int       // the iterate's Iter (1-based, as the solver numbered it)
	X, W   []float64 // copies owned by the Picker; valid until the next Reset or Observe
	Totals Totals    // all three totals of this iterate
	Value  float64   // Totals under the Picker's measure; 0 under Last
}

// NewPicker returns a Picker for measure m. Call Reset before each solve.
// It panics if m is not one of the five Measure constants (a programming
// error; ParseMeasure validates user input).
func NewPicker(m Measure) *Picker {
	mustValid(m)
	return &Picker{m: m}
}

// Reset starts a new solve of p under measure m: it forgets every iterate,
// empties History, and takes the diagonal of p.A as the inverse effective
// mass (Eq. 13), or on rows with aᵢᵢ ≤ 0 the substitute of InverseMass. It
// reuses the Picker's buffers (and allocates only when some aᵢᵢ ≤ 0). p must stay unchanged until
// the solve ends. It panics if m is invalid.
//
// Under EnergyExact, Reset replaces the diagonal by the exact āᵢ = 1/{A⁻¹}ᵢᵢ
// of Eq. (11) (ExactInverseMass: a dense Cholesky factor of A, O(n³)) when p
// has at most ExactPickMaxRows rows and A is invertible with a positive
// diagonal of A⁻¹; when A is singular (redundant rigid rows) and has at
// most PseudoExactMaxRows rows, by 1/{A⁺}ᵢᵢ (PseudoInverseMass, Eq. 11
// through the pseudoinverse); otherwise it keeps InverseMass's rule, and
// ExactMass reports false. For SPD A, āᵢ ≤ aᵢᵢ (the paper's appendix), so the
// fallback's row energies are within a factor rᵢ = aᵢᵢ/āᵢ ≥ 1 of the
// exact ones: the impulse terms ½ a δx² of Eqs. (18)–(19) are up to rᵢ
// times larger, the velocity terms w²/(2a) of Eqs. (20)–(21) up to rᵢ times
// smaller (rᵢ is large on a light row coupled to a heavy one, the
// forklift's shafts against its chassis).
func (pk *Picker) Reset(p *lcp.Problem, m Measure) {
	mustValid(m)
	n := p.N()
	pk.m, pk.p = m, p
	if m == EnergyExact {
		pk.a, pk.exact = ExactPickMass(pk.a, p)
	} else {
		pk.a, pk.exact = InverseMass(pk.a, p), false
	}
	pk.xtol = grow(pk.xtol, n)
	pk.sw = 0
	for _, v := range p.B {
		pk.sw = max(pk.sw, math.Abs(v)) // math.Max's rules (NaN, ±0), inline
	}
	if pk.sw == 0 {
		pk.sw = 1
	}
	pk.setTol()
	pk.clearRun(n)
}

// clearRun forgets the iterates of the last solve, for a problem of n rows.
func (pk *Picker) clearRun(n int) {
	pk.best.X = grow(pk.best.X, n)
	pk.best.W = grow(pk.best.W, n)
	pk.best.Iter, pk.best.Totals, pk.best.Value = 0, Totals{}, 0
	pk.hasBest, pk.last, pk.seen, pk.skipped = false, Totals{}, 0, 0
	pk.lastPart, pk.bestPart = false, false
	pk.History = pk.History[:0]
	pk.hasReset = true
	pk.rec, pk.nev, pk.takes = false, 0, 0
}

// resetFrom is Reset(p, src's measure) with src's inverse masses: src must
// have been Reset for p.
func (pk *Picker) resetFrom(p *lcp.Problem, src *Picker) {
	pk.m, pk.p = src.m, p
	pk.a = grow(pk.a, len(src.a))
	copy(pk.a, src.a)
	pk.exact = src.exact
	pk.xtol = grow(pk.xtol, len(src.xtol))
	copy(pk.xtol, src.xtol)
	pk.sw = src.sw
	pk.clearRun(p.N())
}

// SetInverseMass replaces the per-row inverse effective mass (kg⁻¹) used for
// the energy error and the bound test's τᵢ, for example by
// ExactInverseMass(p.A) (Eq. 11). Call it after Reset; it copies a, whose
// length must be p.N() (it panics otherwise).
func (pk *Picker) SetInverseMass(a []float64) {
	if !pk.hasReset {
		panic("errmeasure: Picker.SetInverseMass called before Reset")
	}
	pk.flush()
	if len(a) != len(pk.a) {
		panic(fmt.Sprintf("errmeasure: SetInverseMass: len(a) = %d, problem has %d rows", len(a), len(pk.a)))
	}
	copy(pk.a, a)
	pk.setTol()
}

// setTol sets the bound test's τᵢ = 10⁻¹⁰·s_w/aᵢ from the current masses.
func (pk *Picker) setTol() {
	for i, a := range pk.a {
		pk.xtol[i] = boundTol * pk.sw / a
	}
}

// Observe implements lcp.Observer. It computes the iterate's three totals,
// and copies X and W if the iterate is the best so far. It panics if called
// before Reset or with slices whose length is not p.N().
func (pk *Picker) Observe(it lcp.Iterate) {
	if !pk.hasReset {
		panic("errmeasure: Picker.Observe called before Reset")
	}
	var t Totals
	part := pk.lazy && !pk.Trace && pk.m != FB && pk.m != Residual
	if part {
		t = pk.rank(it.X, it.W)
	} else {
		t = Compute(pk.p, it.X, it.W, pk.a)
	}
	pk.seen++
	pk.last, pk.lastPart = t, part
	if pk.Trace {
		pk.History = append(pk.History, t)
	}
	if !it.SatisfiesEq2 {
		pk.skipped++
	}
	if g := pk.shadow; g != nil {
		g.shadowObserve(t, part, it.SatisfiesEq2)
	}
	pk.candidate(it, t, part) // and the shadow's
	if part && !pk.lastKept() {
		pk.lastX = append(pk.lastX[:0], it.X...)
		pk.lastW = append(pk.lastW[:0], it.W...)
	}
}

// lastKept reports whether the kept iterate is the last one observed.
func (pk *Picker) lastKept() bool {
	return pk.hasBest && pk.bestAt == pk.seen
}

// rank returns, in lazy mode, the part of an iterate's Totals that its
// measure ranks by: the Energy total of Energy and EnergyExact, with the
// same bits as Compute's (rowEnergy), and nothing for Last.
func (pk *Picker) rank(x, w []float64) Totals {
	if pk.m == Last {
		return Totals{}
	}
	return Totals{Energy: energyTotal(pk.p, x, w, pk.a)}
}

// settle completes, after a lazy solve, the totals that Observe left
// partial: the last iterate's and the kept iterate's, of pk and of its
// shadow. xf, wf are the returned x and w, whose totals tf are known:
// an iterate with the same bits takes them, as does the shadow's kept
// iterate when it has the bits of pk's; any other is computed.
func (pk *Picker) settle(xf, wf []float64, tf Totals) {
	of := func(x, w []float64) Totals {
		if sameBits(x, xf) && sameBits(w, wf) {
			return tf
		}
		return Compute(pk.p, x, w, pk.a)
	}
	if pk.bestPart {
		pk.best.Totals, pk.bestPart = of(pk.best.X, pk.best.W), false
	}
	if pk.lastPart {
		if pk.lastKept() {
			pk.last = pk.best.Totals
		} else {
			pk.last = of(pk.lastX, pk.lastW)
		}
		pk.lastPart = false
	}
	if g := pk.shadow; g != nil {
		g.shadowSettle(pk, xf, wf, tf)
	}
}

// settleShadow is settle's completion of the shadow g's partial totals:
// its last iterate is pk's (totals last), and its kept iterate takes the
// totals of pk's kept one (pk nil: not compared) or of the returned x, w
// (xf, wf, totals tf) when it has their bits, else is computed.
func (g *Picker) settleShadow(pk *Picker, xf, wf []float64, tf, last Totals) {
	if g.lastPart {
		g.last, g.lastPart = last, false // the same iterate
	}
	if !g.bestPart {
		return
	}
	switch {
	case pk != nil && pk.hasBest && !pk.bestPart && sameBits(g.best.X, pk.best.X) && sameBits(g.best.W, pk.best.W):
		// The iterate pk kept, whose totals are complete now.
		g.best.Totals = pk.best.Totals
	case sameBits(g.best.X, xf) && sameBits(g.best.W, wf):
		g.best.Totals = tf
	default:
		g.best.Totals = Compute(g.p, g.best.X, g.best.W, g.a)
	}
	g.bestPart = false
}

// candidate keeps it (with totals t, partial when part: see rank) if it
// is the best so far.
func (pk *Picker) candidate(it lcp.Iterate, t Totals, part bool) {
	v := t.Of(pk.m)
	cls := 0
	if pk.m != Last {
		if !it.SatisfiesEq2 || math.IsNaN(v) {
			return // for the shadow too, which ranks by the same measure
		}
		switch {
		case math.IsInf(v, 1):
			cls = 2
		case pk.violates(it.X):
			cls = 1
		}
	}
	if pk.shadow != nil {
		// The shadow ranks by the same measure with the same bounds and
		// τᵢ (resetFrom): the same value and class before its RejectGain.
		pk.shadow.shadowTake(it, t, part, v, cls)
	}
	pk.take(it, t, part, v, cls)
}

// take is candidate's second half: it keeps it (totals t, ranked value v,
// class cls before RejectGain) if it is the best so far.
func (pk *Picker) take(it lcp.Iterate, t Totals, part bool, v float64, cls int) {
	if pk.RejectGain && it.SatisfiesEq2 && pk.gain(it.X, it.W) > 0 {
		cls += 3
	}
	if pk.hasBest && (cls > pk.bestCls || (cls == pk.bestCls && pk.m != Last && v > pk.best.Value)) {
		return
	}
	if pk.lastPart && pk.lastKept() {
		// The last iterate lives only in best, which is replaced (by
		// the solver's final result): keep it for settle.
		pk.lastX = append(pk.lastX[:0], pk.best.X...)
		pk.lastW = append(pk.lastW[:0], pk.best.W...)
	}
	pk.hasBest, pk.bestCls, pk.bestPart = true, cls, part
	pk.bestAt = -1
	if part {
		pk.bestAt = pk.seen
	}
	pk.best.Iter, pk.best.Totals, pk.best.Value = it.Iter, t, v
	copy(pk.best.X, it.X)
	copy(pk.best.W, it.W)
}

// boundTol is the relative tolerance of the Picker's bound test, the default
// of lcp.Settings.Tolerance.
const boundTol = 1e-10

// violates reports whether some x_i lies outside [l_i − τᵢ, u_i + τᵢ].
func (pk *Picker) violates(x []float64) bool {
	lo, hi, tol := pk.p.Lo[:len(x)], pk.p.Hi[:len(x)], pk.xtol[:len(x)]
	for i, xi := range x {
		if xi < lo[i]-tol[i] || xi > hi[i]+tol[i] {
			return true
		}
	}
	return false
}

// Best returns the kept iterate, and false if no candidate was seen (no
// iterate at all, or under an error measure only NaN or Lemke iterates).
func (pk *Picker) Best() (Pick, bool) {
	pk.flush()
	if !pk.hasBest {
		return Pick{}, false
	}
	return pk.best, true
}

// LastTotals returns the totals of the last iterate observed, and false if
// none was. For an iterate with SatisfiesEq2 == false they are computed all
// the same but do not measure closeness to a solution.
func (pk *Picker) LastTotals() (Totals, bool) {
	pk.flush()
	return pk.last, pk.seen > 0
}

// Seen returns how many iterates were observed since Reset.
func (pk *Picker) Seen() int {
	pk.flush()
	return pk.seen
}

// Skipped returns how many observed iterates had SatisfiesEq2 == false and so
// were not candidates under an error measure.
func (pk *Picker) Skipped() int {
	pk.flush()
	return pk.skipped
}

// Measure returns the measure the Picker ranks by.
func (pk *Picker) Measure() Measure { return pk.m }

func mustValid(m Measure) {
	if !m.valid() {
		panic(fmt.Sprintf("errmeasure: invalid measure %v", m))
	}
}

// grow returns s resized to n, reallocated (zeroed) when its capacity is
// short; the new capacity is at least twice the old one, so that a
// Picker reused on problems growing a row at a time (a time stepper's
// island) reallocates O(log n) times. The contents are not kept.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, max(n, 2*cap(s)))
	}
	return s[:n]
}
