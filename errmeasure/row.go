package errmeasure

import "math"

// splitW returns w₊ = max(w, 0) and w₋ = max(−w, 0) of Eq. (16).
func splitW(w float64) (wp, wm float64) {
	return max(w, 0), max(-w, 0)
}

// fbPhi is the Fischer–Burmeister function φ(s, t) = s + t − √(s² + t²) of
// Eq. (5), for t ≥ 0 (t is w₊ or w₋, s is x − l or u − x).
//
// Computed without cancellation: for s + t > 0, (s + t)² − (s² + t²) = 2st
// gives φ = 2st / (s + t + √(s² + t²)); otherwise both terms are ≤ 0 and the
// plain form is exact enough. φ(+∞, t) = t (the limit; a missing bound)
// and φ(−∞, t) = −∞.
// Huge and tiny arguments are scaled by a power of two (φ is positively
// homogeneous) so that s² + t² neither overflows nor underflows.
func fbPhi(s, t float64) float64 {
	if math.IsInf(s, 1) {
		return t
	}
	if math.IsInf(s, -1) { // only from an overflowing u − x or x − l
		return s
	}
	if math.IsInf(t, 1) {
		return s
	}
	// Outside [2⁻⁴⁰⁰, 2⁴⁰⁰] s² + t² could overflow or lose t² to underflow;
	// φ(ks, kt) = k φ(s, t) lets us rescale by a power of two (exact).
	const big, small = 0x1p400, 0x1p-400
	if m := max(math.Abs(s), t); m > big {
		return 0x1p500 * fbPhi(s*0x1p-500, t*0x1p-500)
	} else if m < small && m > 0 {
		return 0x1p-500 * fbPhi(s*0x1p500, t*0x1p500)
	}
	sum := s + t
	r := math.Sqrt(s*s + t*t)
	if sum <= 0 {
		return sum - r
	}
	return 2 * s * (t / (sum + r))
}

// FBRow returns the Fischer–Burmeister error of one row, Eqs. (5)–(6):
//
//	δψ_FB = max(|φ(x − l, w₊)|, |φ(u − x, w₋)|),  φ(s, t) = s + t − √(s² + t²).
//
// x is the impulse (N·s), w the constraint velocity (m/s), lo and hi the
// bounds l and u (±Inf for none). The result mixes N·s and m/s (§3.3). It is
// zero exactly when the row satisfies Eqs. (3)–(4). Note φ(s, 0) = 2s for
// s < 0: an impulse below its lower bound by d with w = 0 gives 2d.
func FBRow(x, w, lo, hi float64) float64 {
	wp, wm := splitW(w)
	return max(math.Abs(fbPhi(hi-x, wm)), math.Abs(fbPhi(x-lo, wp)))
}

// ResidualRow returns the natural residual of one row, Eqs. (8)–(9):
//
//	δψ_res = max(|min(u − x, w₋)|, |min(x − l, w₊)|).
//
// Units and bounds as for FBRow. min(+∞, t) = t, so a missing bound
// contributes the velocity alone.
func ResidualRow(x, w, lo, hi float64) float64 {
	wp, wm := splitW(w)
	return max(math.Abs(min(hi-x, wm)), math.Abs(min(x-lo, wp)))
}

// EnergyParts are the four energy error components of one row,
// Eqs. (18)–(21), in J. Each is ≥ 0.
type EnergyParts struct {
	XU     float64 // δe_xu = ½ a δx_u², Eq. (18): impulse above u
	XL     float64 // δe_xl = ½ a δx_l², Eq. (19): impulse below l
	WPlus  float64 // δe_w₊ = min(w₊²/(2a), ½ a σ_l²), Eq. (20)
	WMinus float64 // δe_w₋ = min(w₋²/(2a), ½ a σ_u²), Eq. (21)
}

// Max returns δe = max(δe_xu, δe_xl, δe_w₊, δe_w₋), Eq. (22).
func (e EnergyParts) Max() float64 {
	return max(e.XU, e.XL, e.WPlus, e.WMinus)
}

// EnergyRowParts returns the components of Eqs. (18)–(21) for one row with
// impulse x (N·s), velocity w (m/s), bounds lo, hi (N·s, ±Inf for none) and
// inverse effective mass a = aᵢᵢ (kg⁻¹, Eq. 13). The decomposition is
// Eqs. (14)–(17): x₀ = clamp(x, l, u), δx_u = max(x − u, 0),
// δx_l = max(l − x, 0), σ_u = u − (x₀ − δx_l), σ_l = (x₀ + δx_u) − l.
//
// Limits, so that no component is NaN for finite x, w:
//   - σ = +∞ (a missing bound) makes ½ a σ² = +∞ for every a ≥ 0, so the
//     minimum in Eqs. (20)–(21) is the velocity term;
//   - a ≤ 0 or NaN (A not positive definite, or a row with no mass) is
//     treated as the limit a → 0⁺ (infinite effective mass): impulse terms
//     are 0, and a nonzero velocity costs ½ a σ² → 0 if its bound is finite
//     and +∞ if it is not;
//   - a = +∞ (zero effective mass) is the limit a → ∞: a violated bound costs
//     +∞, a velocity costs 0;
//   - every other product 0·∞ is 0.
func EnergyRowParts(x, w, lo, hi, a float64) EnergyParts {
	if !(a > 0) {
		a = 0
	}
	dxu := max(x-hi, 0)
	dxl := max(lo-x, 0)
	x0 := min(max(x, lo), hi)
	su := hi - (x0 - dxl)
	sl := (x0 + dxu) - lo
	wp, wm := splitW(w)
	return EnergyParts{
		XU:     halfASq(a, dxu),
		XL:     halfASq(a, dxl),
		WPlus:  min(halfSqOverA(wp, a), halfASq(a, sl)),
		WMinus: min(halfSqOverA(wm, a), halfASq(a, su)),
	}
}

// EnergyRow returns the energy error δe of one row, Eq. (22), in J. See
// EnergyRowParts for the arguments and the treatment of limits.
func EnergyRow(x, w, lo, hi, a float64) float64 {
	return EnergyRowParts(x, w, lo, hi, a).Max()
}

// halfASq returns ½ a d² for a ∈ [0, +∞] with 0·∞ = 0, except that
// d = ±∞ (an unreachable bound) gives +∞ for every a. NaN d gives NaN.
func halfASq(a, d float64) float64 {
	switch {
	case math.IsInf(d, 0):
		return math.Inf(1)
	case d == 0:
		return 0
	case a == 0:
		return 0 * d // 0, or NaN for d = NaN
	}
	return 0.5 * a * d * d
}

// halfSqOverA returns v²/(2a) for v ≥ 0 and a ∈ [0, +∞], with 0/0 = 0 and
// v/0 = +∞ (NaN v gives NaN). It divides before squaring so that no finite inputs give Inf/Inf.
func halfSqOverA(v, a float64) float64 {
	switch {
	case v == 0:
		return 0
	case a == 0:
		return v * math.Inf(1) // +∞ for v > 0, NaN for v = NaN
	}
	return 0.5 * v * (v / a)
}
