package errmeasure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
)

var inf = math.Inf(1)

// boundKinds are the rows gorigid builds, as (lo, hi) in N·s.
var boundKinds = []struct {
	name   string
	lo, hi float64
}{
	{"contact", 0, inf},
	{"friction", -0.7, 0.7},
	{"bilateral", -inf, inf},
	{"zero-width", 0.25, 0.25},
	{"upper only", -inf, 1.5},
	{"lower only, negative", -2, inf},
}

// TestInfiniteBoundsNeverNaN runs every bound kind against impulses below,
// at, inside and above the bounds and velocities of both signs: no value may
// be NaN or Inf for finite x, w and a > 0, and none may be negative.
func TestInfiniteBoundsNeverNaN(t *testing.T) {
	xs := []float64{-3, -2, -0.7, -0.1, math.Copysign(0, -1), 0, 0.25, 0.7, 1.5, 4}
	ws := []float64{-5, -1e-9, math.Copysign(0, -1), 0, 1e-9, 2}
	as := []float64{1e-6, 0.75, 1, 3e4}
	for _, k := range boundKinds {
		for _, x := range xs {
			for _, w := range ws {
				for _, a := range as {
					vals := map[string]float64{
						"FB":       FBRow(x, w, k.lo, k.hi),
						"residual": ResidualRow(x, w, k.lo, k.hi),
						"energy":   EnergyRow(x, w, k.lo, k.hi, a),
					}
					e := EnergyRowParts(x, w, k.lo, k.hi, a)
					vals["δe_xu"], vals["δe_xl"], vals["δe_w+"], vals["δe_w-"] = e.XU, e.XL, e.WPlus, e.WMinus
					for name, v := range vals {
						if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
							t.Errorf("%s: %s(x=%v, w=%v, lo=%v, hi=%v, a=%v) = %v", k.name, name, x, w, k.lo, k.hi, a, v)
						}
					}
				}
			}
		}
	}
}

// TestBilateralAndZeroWidth checks the closed forms of the two special rows.
func TestBilateralAndZeroWidth(t *testing.T) {
	for _, w := range []float64{-2.5, -1e-3, 0, 0.125, 7} {
		for _, x := range []float64{-10, 0, 3} {
			// Bilateral: δψ_FB = δψ_res = |w| and δe = w²/(2a), exactly:
			// φ(+∞, t) = t and min(+∞, t) = t involve no arithmetic.
			a := 0.5
			if got := FBRow(x, w, -inf, inf); got != math.Abs(w) {
				t.Errorf("bilateral FB(x=%v, w=%v) = %v, want |w|", x, w, got)
			}
			if got := ResidualRow(x, w, -inf, inf); got != math.Abs(w) {
				t.Errorf("bilateral residual(x=%v, w=%v) = %v, want |w|", x, w, got)
			}
			// 1 ulp: the code divides before it squares.
			near(t, fmt.Sprintf("bilateral energy(x=%v, w=%v)", x, w), w*w/(2*a), EnergyRow(x, w, -inf, inf, a), 1e-16*w*w/a)
			// Zero-width box: x = l = u with any w is a solution.
			if fb, r, e := FBRow(x, w, x, x), ResidualRow(x, w, x, x), EnergyRow(x, w, x, x, a); fb != 0 || r != 0 || e != 0 {
				t.Errorf("zero-width box at x=%v, w=%v: FB %v, residual %v, energy %v, want 0", x, w, fb, r, e)
			}
		}
	}
}

// TestInfiniteBoundIsTheLimit: replacing ±∞ by ±1e12 N·s changes no row
// value by more than 1e-9 of its size: the infinite bound is the limit of a
// far one, not a special case with a different answer.
func TestInfiniteBoundIsTheLimit(t *testing.T) {
	const far = 1e12
	clip := func(v float64) float64 { return math.Max(-far, math.Min(far, v)) }
	for _, k := range boundKinds {
		for _, x := range []float64{-3, -0.5, 0, 0.3, 2} {
			for _, w := range []float64{-1.5, 0, 0.8} {
				lo, hi := clip(k.lo), clip(k.hi)
				pairs := [][2]float64{
					{FBRow(x, w, k.lo, k.hi), FBRow(x, w, lo, hi)},
					{ResidualRow(x, w, k.lo, k.hi), ResidualRow(x, w, lo, hi)},
					{EnergyRow(x, w, k.lo, k.hi, 2), EnergyRow(x, w, lo, hi, 2)},
				}
				for j, pr := range pairs {
					// φ(d, t) = t − t²/(2d) + …: 1e-9 is far above t/d ≈ 1e-12.
					near(t, fmt.Sprintf("%s measure %d (x=%v, w=%v)", k.name, j, x, w), pr[1], pr[0], 1e-9*(1+math.Abs(pr[1])))
				}
			}
		}
	}
}

// Naive transcriptions of Eqs. (5)–(6), (8)–(9) and (14)–(22) for finite
// bounds, to check the stable forms against.
func naiveFB(x, w, l, u float64) float64 {
	wp, wm := math.Max(w, 0), math.Max(-w, 0)
	pu := (u - x) + wm - math.Sqrt((u-x)*(u-x)+wm*wm)
	pl := (x - l) + wp - math.Sqrt((x-l)*(x-l)+wp*wp)
	return math.Max(math.Abs(pl), math.Abs(pu))
}

func naiveResidual(x, w, l, u float64) float64 {
	wp, wm := math.Max(w, 0), math.Max(-w, 0)
	return math.Max(math.Abs(math.Min(u-x, wm)), math.Abs(math.Min(x-l, wp)))
}

func naiveEnergy(x, w, l, u, a float64) float64 {
	dxu, dxl := math.Max(x-u, 0), math.Max(l-x, 0)
	x0 := x - dxu + dxl // Eq. (14)
	su, sl := u-(x0-dxl), (x0+dxu)-l
	wp, wm := math.Max(w, 0), math.Max(-w, 0)
	exu, exl := 0.5*a*dxu*dxu, 0.5*a*dxl*dxl
	ewp := math.Min(wp*wp/(2*a), 0.5*a*sl*sl)
	ewm := math.Min(wm*wm/(2*a), 0.5*a*su*su)
	return math.Max(math.Max(exu, exl), math.Max(ewp, ewm))
}

func TestRowsMatchNaiveEquations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 20000; k++ {
		l := rng.NormFloat64()
		u := l + rng.ExpFloat64()
		x := rng.NormFloat64() * 2
		w := rng.NormFloat64() * 2
		a := math.Exp(rng.NormFloat64() * 3)
		if k%7 == 0 {
			x = l // on a bound, where the FB function cancels
		}
		// The naive FB cancels: its error is ≈ ε·max(|s|, |t|) ≲ 1e-15·10.
		near(t, "FB", naiveFB(x, w, l, u), FBRow(x, w, l, u), 1e-14)
		if got, want := ResidualRow(x, w, l, u), naiveResidual(x, w, l, u); got != want {
			t.Fatalf("residual(%v, %v, %v, %v) = %v, want %v", x, w, l, u, got, want)
		}
		// Same operations up to the order of the division: a few ulps.
		want := naiveEnergy(x, w, l, u, a)
		near(t, "energy", want, EnergyRow(x, w, l, u, a), 1e-15*want)
	}
}

// TestNonPositiveMass: a ≤ 0, NaN or +Inf never gives NaN; the values are
// the limits documented on EnergyRowParts.
func TestNonPositiveMass(t *testing.T) {
	tests := []struct {
		name         string
		x, w, lo, hi float64
		as           []float64
		want         float64
	}{
		// a → 0⁺: infinite effective mass.
		{"a→0: impulse violation costs nothing", -1, 0, 0, inf, []float64{0, -1, math.NaN()}, 0},
		{"a→0: velocity with reachable bound", 0.5, 2, 0, inf, []float64{0, -1, math.NaN()}, 0},
		{"a→0: velocity on a bilateral row", 0, 2, -inf, inf, []float64{0, -1, math.NaN()}, inf},
		{"a→0: solved row", 0, 2, 0, inf, []float64{0, -1, math.NaN()}, 0},
		// a → ∞: zero effective mass.
		{"a→∞: impulse violation", 2, 0, -1, 1, []float64{inf}, inf},
		{"a→∞: velocity error", 0, -3, -inf, inf, []float64{inf}, 0},
		{"a→∞: solved row", 1, -3, -1, 1, []float64{inf}, 0},
	}
	for _, tc := range tests {
		for _, a := range tc.as {
			if got := EnergyRow(tc.x, tc.w, tc.lo, tc.hi, a); got != tc.want {
				t.Errorf("%s, a=%v: got %v, want %v", tc.name, a, got, tc.want)
			}
		}
	}
}

func TestFBStableForms(t *testing.T) {
	tests := []struct {
		name        string
		s, tt, want float64
		tol         float64 // reason given per case
	}{
		{"missing bound", inf, 0.3, 0.3, 0},                                  // the limit, returned as is
		{"missing bound, zero velocity", inf, 0, 0, 0},                       // likewise
		{"on the bound", 0, 5, 0, 0},                                         // 2·0·… is exactly 0
		{"below the bound", -0.1019, 0, -0.2038, 1e-17},                      // one rounding
		{"both positive", 3, 4, 3 + 4 - 5, 1e-15},                            // 2st/(s+t+r) = 24/12, a few roundings
		{"tiny t", 1, 1e-20, 1e-20, 1e-35},                                   // naive form gives 0; stable gives ≈ t
		{"huge, no overflow", 1e300, 1e300, (2 - math.Sqrt2) * 1e300, 1e285}, // relative 1e-15
		{"huge negative", -1e300, 0, -2e300, 1e285},
		{"overflowed to −∞", math.Inf(-1), 1, math.Inf(-1), 0},           // exact
		{"subnormal", 5e-324, 5e-324, (2 - math.Sqrt2) * 5e-324, 5e-324}, // one subnormal ulp                          // relative 1e-15
	}
	for _, tc := range tests {
		near(t, tc.name, tc.want, fbPhi(tc.s, tc.tt), tc.tol)
	}
}

// FuzzRowMeasures: no row function returns NaN or a negative value for
// finite x, w, finite a > 0 and valid bounds (lo ≤ hi, lo < +∞, hi > −∞).
func FuzzRowMeasures(f *testing.F) {
	f.Add(0.0, -0.2981, 0.0, 0.0, 1.0, false, true)
	f.Add(-0.1019, 0.0, 0.0, 0.0, 1.0, false, true)
	f.Add(0.3, 1.0, -0.7, 0.7, 0.5, false, false)
	f.Add(2.0, -1.0, 0.0, 0.0, 1e-300, true, true)
	f.Add(1e308, -1e308, -1e308, 1e308, 1e308, false, false)
	f.Add(5e-324, 1.0, 0.0, 5e-324, 5e-324, false, false)
	f.Add(1e308, 1.0, -1e308, -1e308, 1.0, false, false) // u − x overflows to −∞
	f.Fuzz(func(t *testing.T, x, w, lo, hi, a float64, noLo, noHi bool) {
		finite := num.Finite
		if !finite(x) || !finite(w) || !finite(a) || !(a > 0) || !finite(lo) || !finite(hi) {
			t.Skip()
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		if noLo {
			lo = math.Inf(-1)
		}
		if noHi {
			hi = math.Inf(1)
		}
		e := EnergyRowParts(x, w, lo, hi, a)
		for name, v := range map[string]float64{
			"FB":       FBRow(x, w, lo, hi),
			"residual": ResidualRow(x, w, lo, hi),
			"energy":   EnergyRow(x, w, lo, hi, a),
			"δe_xu":    e.XU, "δe_xl": e.XL, "δe_w+": e.WPlus, "δe_w-": e.WMinus,
		} {
			if math.IsNaN(v) || v < 0 {
				t.Errorf("%s(x=%v, w=%v, lo=%v, hi=%v, a=%v) = %v", name, x, w, lo, hi, a, v)
			}
		}
	})
}
