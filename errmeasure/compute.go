package errmeasure

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// Totals are the three system errors of one candidate (x, w): the ℓ1 norms
// of the per-row errors.
type Totals struct {
	FB       float64 // ‖δψ_FB‖₁, Eq. (7); mixed N·s and m/s
	Residual float64 // ‖δψ_res‖₁, Eq. (10); mixed N·s and m/s
	Energy   float64 // δe = ‖δe‖₁, Eq. (23); J
}

// Of returns the total under m: Energy, FB or Residual. For Last, which
// ranks nothing, and for invalid values it returns 0.
func (t Totals) Of(m Measure) float64 {
	switch m {
	case Energy, EnergyExact:
		return t.Energy
	case FB:
		return t.FB
	case Residual:
		return t.Residual
	}
	return 0
}

// RowErrors are the three errors of one row: δψ_FB,i (Eq. 6), δψ_res,i
// (Eq. 9) and δe_i (Eq. 22, J).
type RowErrors struct {
	FB, Residual, Energy float64
}

// Compute returns the three totals (Eqs. 7, 10, 23) for the candidate x
// (impulses, N·s) with slack w (m/s) on problem p, whose bounds it reads.
// a is the per-row inverse effective mass (kg⁻¹); nil means InverseMass(p):
// the diagonal of p.A (Eq. 13) where it is positive, and a documented
// substitute on rows with aᵢᵢ ≤ 0. ExactInverseMass gives the exact one
// (Eq. 11). w is used as given: the measures assume w = A x + b (Eq. 2),
// which Compute does not check. It is O(n) and allocates nothing when a is
// given or every aᵢᵢ > 0.
//
// len(x), len(w) and, if a is not nil, len(a) must equal p.N(); Compute
// panics otherwise, as that is a programming error.
func Compute(p *lcp.Problem, x, w, a []float64) Totals {
	checkLens(p, x, w, a)
	a = defaultMass(p, a)
	var t Totals
	for i := range x {
		fb, res, e := rowErrors(x[i], w[i], p.Lo[i], p.Hi[i], rowMass(p, a, i))
		t.FB += fb
		t.Residual += res
		t.Energy += e
	}
	return t
}

// rowErrors returns FBRow, ResidualRow and EnergyRow of one row, with the
// same bits. A row whose finite impulse lies within its bounds and whose
// velocity is a number (every row of a face solution of block pivoting,
// and most of any solver's iterate) has at most one side with an error:
// the lower bound's for w ≥ 0, the upper bound's for w < 0. The other
// side's terms are exactly 0 there (φ(s, 0) = 0 and min(s, 0) = 0 for
// s ≥ 0; the impulse terms of Eqs. 18–19 are ½ a·0² = 0), so only the
// active side is computed; every other row takes the three functions.
func rowErrors(x, w, lo, hi, a float64) (fb, res, e float64) {
	if !(lo <= x && x <= hi) || math.IsInf(x, 0) || w != w {
		return FBRow(x, w, lo, hi), ResidualRow(x, w, lo, hi), EnergyRow(x, w, lo, hi, a)
	}
	if !(a > 0) {
		a = 0
	}
	s, v := activeSide(x, w, lo, hi)
	fb = math.Abs(fbPhi(s, v))
	res = math.Abs(min(s, v)) // +0 for s = −0 (x = −0 at lo = 0), as ResidualRow
	e = min(halfSqOverA(v, a), halfASq(a, s))
	return fb, res, e
}

// rowEnergy is rowErrors' energy error e alone, with the same bits.
func rowEnergy(x, w, lo, hi, a float64) float64 {
	if !(lo <= x && x <= hi) || math.IsInf(x, 0) || w != w {
		return EnergyRow(x, w, lo, hi, a)
	}
	if !(a > 0) {
		a = 0
	}
	s, v := activeSide(x, w, lo, hi)
	return min(halfSqOverA(v, a), halfASq(a, s))
}

// activeSide returns, for a row whose impulse x lies within its bounds,
// s: the distance to the active side's bound (≥ 0, +Inf when there is
// none), and v: the velocity pushing against it (≥ 0; +0 for w = −0, as
// splitW's w₊).
func activeSide(x, w, lo, hi float64) (s, v float64) {
	if w < 0 {
		return hi - x, -w
	}
	if w == 0 {
		return x - lo, 0
	}
	return x - lo, w
}

// energyTotal is Compute's Energy total alone, with the same bits (the
// same row terms summed in the same order).
func energyTotal(p *lcp.Problem, x, w, a []float64) float64 {
	checkLens(p, x, w, a)
	a = defaultMass(p, a)
	e := 0.0
	for i := range x {
		e += rowEnergy(x[i], w[i], p.Lo[i], p.Hi[i], rowMass(p, a, i))
	}
	return e
}

// measureAll returns what SolveGuarded reports of its answer in one pass:
// Compute's Totals, maxResidual and CertifiedBound of x, with the same
// bits as the three.
func measureAll(p *lcp.Problem, x, w, a []float64) (t Totals, res, bound float64) {
	checkLens(p, x, w, a)
	a = defaultMass(p, a)
	resNaN, outside := false, false
	for i := range x {
		xi, wi, lo, hi := x[i], w[i], p.Lo[i], p.Hi[i]
		fb, r, e := rowErrors(xi, wi, lo, hi, rowMass(p, a, i))
		t.FB += fb
		t.Residual += r
		t.Energy += e
		if r != r {
			resNaN = true
		}
		res = max(res, r)
		if outside {
			continue
		}
		switch {
		case !(xi >= lo && xi <= hi):
			outside = true // outside the box (or NaN): no certificate
		case wi > 0:
			bound += wi * (xi - lo)
		case wi < 0:
			bound += -wi * (hi - xi)
		case wi != 0: // NaN
			outside = true
		}
	}
	if resNaN {
		res = math.NaN()
	}
	if outside {
		bound = math.Inf(1)
	}
	return t, res, bound
}

// Rows is Compute that also fills dst with each row's errors. dst is grown
// if it is shorter than p.N() and is returned resliced to p.N().
func Rows(dst []RowErrors, p *lcp.Problem, x, w, a []float64) ([]RowErrors, Totals) {
	checkLens(p, x, w, a)
	a = defaultMass(p, a)
	n := len(x)
	if cap(dst) < n {
		dst = make([]RowErrors, n)
	}
	dst = dst[:n]
	var t Totals
	for i := range x {
		ai := rowMass(p, a, i)
		lo, hi := p.Lo[i], p.Hi[i]
		r := RowErrors{
			FB:       FBRow(x[i], w[i], lo, hi),
			Residual: ResidualRow(x[i], w[i], lo, hi),
			Energy:   EnergyRow(x[i], w[i], lo, hi, ai),
		}
		dst[i] = r
		t.FB += r.FB
		t.Residual += r.Residual
		t.Energy += r.Energy
	}
	return dst, t
}

// TotalOf returns the system error of x, w under the single measure m,
// computing only that measure. Arguments as for Compute. Last is not an
// error measure: TotalOf returns 0 for it (and for invalid values of m)
// without looking at x and w.
func TotalOf(m Measure, p *lcp.Problem, x, w, a []float64) float64 {
	if m != Energy && m != FB && m != Residual {
		return 0
	}
	checkLens(p, x, w, a)
	a = defaultMass(p, a)
	var s float64
	for i := range x {
		lo, hi := p.Lo[i], p.Hi[i]
		switch m {
		case Energy:
			s += EnergyRow(x[i], w[i], lo, hi, rowMass(p, a, i))
		case FB:
			s += FBRow(x[i], w[i], lo, hi)
		case Residual:
			s += ResidualRow(x[i], w[i], lo, hi)
		}
	}
	return s
}

// defaultMass returns a, or when a is nil: nil if every aᵢᵢ of p is positive
// and finite (rowMass then reads the diagonal, Eq. 13), else InverseMass(p).
func defaultMass(p *lcp.Problem, a []float64) []float64 {
	if a != nil {
		return a
	}
	for i := 0; i < p.N(); i++ {
		if v := p.A.At(i, i); !(v > 0) || math.IsInf(v, 1) {
			return InverseMass(nil, p)
		}
	}
	return nil
}

// rowMass returns aᵢᵢ: a[i], or the diagonal of p.A when a is nil (Eq. 13).
func rowMass(p *lcp.Problem, a []float64, i int) float64 {
	if a == nil {
		return p.A.At(i, i)
	}
	return a[i]
}

func checkLens(p *lcp.Problem, x, w, a []float64) {
	n := p.N()
	if len(x) != n || len(w) != n || len(p.Lo) != n || len(p.Hi) != n || (a != nil && len(a) != n) {
		panic(fmt.Sprintf("errmeasure: lengths differ: n = %d, x %d, w %d, lo %d, hi %d, a %d",
			n, len(x), len(w), len(p.Lo), len(p.Hi), len(a)))
	}
}
