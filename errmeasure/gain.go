package errmeasure

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// gainTol is the rounding, relative to |½xᵀ(A x)| + |bᵀx|, below which
// Gain reports no gain.
const gainTol = 1e-9

// Gain returns f(x) = ½xᵀA x + bᵀx (J) when it is positive beyond
// rounding, else 0, with w = A x + b given (so that f = ½ x·(w + b), O(n)).
//
// For the MLCP of a time step (A = J M⁻¹ Jᵀ + C, b = J v_free + Φ/h, x the
// constraint impulses) f(x) is the kinetic energy the impulses add to the
// free motion, ½‖v⁺‖²_M − ½‖v_free‖²_M, plus the compliant rows' ½xᵀC x
// and the position terms' x·Φ/h. For symmetric positive semidefinite A the
// MLCP is the optimality condition of min f over the box, and x = 0 lies in
// every box of a step (impulse bounds contain 0), so a solution has
// f ≤ 0: a positive f marks an iterate whose application would put energy
// into the system that no solution puts there (an iterate of block
// pivoting on a wrong face: a normal impulse that pulls, a friction
// impulse beyond its bound, joint impulses that spin a light shaft).
// Rounding: f within gainTol·(|½xᵀA x| + |bᵀx|) of 0 counts as 0.
func Gain(p *lcp.Problem, x, w []float64) float64 {
	if len(x) != p.N() || len(w) != p.N() {
		panic(fmt.Sprintf("errmeasure: Gain: len(x) = %d, len(w) = %d, problem has %d rows", len(x), len(w), p.N()))
	}
	bx, xax := 0.0, 0.0
	for i, xi := range x {
		bx += p.B[i] * xi
		xax += xi * (w[i] - p.B[i])
	}
	f := 0.5*xax + bx
	if !(f > gainTol*(math.Abs(0.5*xax)+math.Abs(bx))) {
		return 0 // no gain, or NaN
	}
	return f
}

// GainFunc returns the energy (J) that applying the impulses x (with
// w = A x + b) would add to a system, beyond rounding: > 0 is a gain. It
// must be a quadratic function of x (Safeguard fits a parabola through
// three points of a segment). Gain of the problem is one; a time stepper
// that knows its bodies passes the step's exact energy balance (World.Step
// does).
type GainFunc func(x, w []float64) float64

// Safeguarded says what Safeguard did.
type Safeguarded struct {
	// Gain is the gain of the x that Solve returned (J), 0 when it had
	// none or the solve converged (then Safeguard changed nothing).
	Gain float64
	// Anchor is the point x was moved towards: AnchorPrevious,
	// AnchorIterate (Iter names it), AnchorZero, or AnchorNone when no
	// anchor was without a gain and x was kept.
	Anchor Anchor
	Iter   int
	// Scale is the fraction t ∈ [0, 1] of the way from the anchor a to
	// the picked x that was kept, x ← a + t (x − a); 1 when x had no gain.
	Scale float64
	// Sweeps is the projected Gauss–Seidel sweeps run after the move.
	Sweeps int
}

// Anchor is the point Safeguard moved x towards.
type Anchor int

const (
	AnchorNone     Anchor = iota // x had no gain, or no anchor was without one
	AnchorPrevious               // the caller's previous answer (the last step's impulses)
	AnchorIterate                // guard's pick: the best iterate without a gain
	AnchorZero                   // x = 0
)

// Safeguard makes an answer that did not solve the MLCP safe to apply.
// After SolveGuarded with pk and guard (RejectGain set, GainOf = gain) it
// checks the returned x, unless dst.Status is Converged: if gain(x) > 0 it
// moves x towards the first anchor a without a gain among prev (the
// caller's estimate, such as the last time step's impulses of the same
// rows, projected onto the box; nil = none), guard's kept iterate and 0,
// just far enough that the gain is gone (Toward):
//
//	x ← a + t (x − a),   t = the largest t ∈ [0, 1] with gain(a + t (x − a)) ≤ 0,
//
// and then runs up to sweeps projected Gauss–Seidel sweeps from there
// (lcp.Polish: each lowers ½xᵀAx + bᵀx once x is in its box), moving back
// towards the point before them (Toward) if they leave a gain. When no
// anchor is without a gain, x stays. s is updated for a changed x (Totals
// with pk's inverse masses, Residual, Bound, FromPicker); prev may be
// modified (projected). gain nil means Gain.
//
// Why the largest t and not the least gain on the segment: the least gain
// dissipates energy the step does not (the forklift at a budget of 5 block
// pivots stalls on its circle with it, 6.5 m of 25.8). Why the last step's
// impulses first: they carry the loads (the weight on the wheels, the
// drive through the gears) that an early iterate of the budget may not, and
// a vehicle that loses its support sinks, which the position projection
// then undoes by lifting it, adding the energy the guard kept out.
func Safeguard(dst *lcp.Result, p *lcp.Problem, pk, guard *Picker, s *Solved, gain GainFunc, prev []float64, sweeps int) Safeguarded {
	out := Safeguarded{Scale: 1}
	n := p.N()
	if dst.Status == lcp.Converged || len(dst.X) != n {
		return out
	}
	if gain == nil {
		gain = func(x, w []float64) float64 { return Gain(p, x, w) }
	}
	if len(dst.W) != n {
		dst.W = p.Residual(dst.W, dst.X)
	}
	g1 := gain(dst.X, dst.W)
	if !(g1 > 0) {
		return out
	}
	out.Gain = g1
	var a, wa []float64
	if prev != nil {
		for i, v := range prev {
			prev[i] = math.Min(math.Max(v, p.Lo[i]), p.Hi[i])
		}
		guard.pw = p.Residual(guard.pw, prev)
		if gain(prev, guard.pw) <= 0 {
			out.Anchor, a, wa = AnchorPrevious, prev, guard.pw
		}
	}
	if a == nil {
		if best, ok := guard.Best(); ok && gain(best.X, best.W) <= 0 {
			out.Anchor, out.Iter, a, wa = AnchorIterate, best.Iter, best.X, best.W
		}
	}
	if a == nil {
		guard.zero = grow(guard.zero, n)
		clear(guard.zero)
		if gain(guard.zero, p.B) <= 0 { // x = 0: w = b
			out.Anchor, a, wa = AnchorZero, guard.zero, p.B
		}
	}
	if a == nil {
		return out
	}
	out.Scale = Toward(dst, p, a, wa, gain, guard)
	if sweeps > 0 {
		guard.ax = append(guard.ax[:0], dst.X...)
		guard.aw = append(guard.aw[:0], dst.W...)
		if k, err := lcp.Polish(dst.X, dst.W, p, sweeps); err == nil {
			out.Sweeps = k
			if gain(dst.X, dst.W) > 0 {
				Toward(dst, p, guard.ax, guard.aw, gain, guard)
			}
		}
	}
	s.FromPicker = true
	s.Totals = Compute(p, dst.X, dst.W, pk.a)
	s.Residual = maxResidual(p, dst.X, dst.W)
	s.Bound = CertifiedBound(p, dst.X, dst.W)
	return out
}

// Toward moves dst.X (with dst.W = A x + b) towards a (with wa = A a + b,
// gain(a) ≤ 0) just far enough that its gain is gone: x ← a + t (x − a)
// with the largest t ∈ [0, 1] at which gain ≤ 0, and returns t. The gain
// is a parabola in t (GainFunc is quadratic) and w is linear in t, so it
// is fitted through t = 0, ½ and 1. sc provides scratch (any Picker).
func Toward(dst *lcp.Result, p *lcp.Problem, a, wa []float64, gain GainFunc, sc *Picker) float64 {
	n := p.N()
	g0, g1 := gain(a, wa), gain(dst.X, dst.W)
	if !(g1 > 0) {
		return 1
	}
	sc.mx = grow(sc.mx, n)
	sc.mw = grow(sc.mw, n)
	for i := range sc.mx {
		sc.mx[i] = 0.5 * (a[i] + dst.X[i])
		sc.mw[i] = 0.5 * (wa[i] + dst.W[i])
	}
	gh := gain(sc.mx, sc.mw)
	// g(t) = g0 + β t + γ t² through g(0), g(½), g(1).
	gamma := 2*g1 - 4*gh + 2*g0
	beta := g1 - g0 - gamma
	t := largestRoot(math.Min(g0, 0), beta, 2*gamma)
	for i := range dst.X {
		dst.X[i] = a[i] + t*(dst.X[i]-a[i])
	}
	dst.W = p.Residual(dst.W, dst.X)
	return t
}

// largestRoot returns the largest t ∈ [0, 1] with fa + g t + ½ c t² ≤ 0,
// for fa ≤ 0 (t = 0 qualifies).
func largestRoot(fa, g, c float64) float64 {
	if fa+g+0.5*c <= 0 {
		return 1
	}
	// f(0) ≤ 0 < f(1): the answer is the root in [0, 1) at which f turns
	// positive, the larger root when f is convex, the smaller one when
	// concave (1 lies between the roots).
	if c == 0 {
		return math.Max(0, math.Min(1, -fa/g)) // g > −fa ≥ 0
	}
	disc := math.Sqrt(math.Max(0, g*g-2*c*fa))
	var r float64
	if g > 0 {
		r = -2 * fa / (g + disc) // (−g + disc)/c without cancellation
	} else {
		r = (-g + disc) / c
	}
	return math.Max(0, math.Min(1, r))
}
