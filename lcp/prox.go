package lcp

import (
	"fmt"
	"math"
)

// Prox is the fixed-point proximal iteration of Lu et al. 2014,
// Eq. (15) (Leine & Nijmeijer, ref. [16] there), on the box C = [l, u]:
//
//	x ← prox_C(x − r ∘ (A x + b)),   prox_C = clamp to [l, u],
//
// a projected Jacobi iteration: all rows are updated at once from the same
// w = A x + b. (Updating the rows one by one with the newest x is PGS with
// relaxation R, which the package already has.)
//
// The r-factors. Row i uses r_i = R / a_ii: a_ii (kg⁻¹ or (kg·m²)⁻¹) turns
// the velocity w_i into an impulse, so R is dimensionless and the same for
// translational and rotational rows; one global r would have units of mass
// and could not suit both. For symmetric positive semidefinite A the
// iteration is projected gradient descent on ½xᵀAx + bᵀx in the metric
// D = diag(a_ii) with step R; it converges for R < 2/λ_max(D⁻¹A)
// (1 ≤ λ_max ≤ n, as D^{-1/2} A D^{-1/2} has a unit diagonal), and then the
// step length E_k = Σ a_ii (x_{k+1,i} − x_{k,i})² (an energy, J) never
// grows, because the map is non-expansive in that metric. At R = 2/λ_max it
// is non-expansive but not contractive: the stiffest mode flips sign every
// step with constant length (a 2-cycle). The strategy (after Alart &
// Curnier's and Förg et al.'s r-factor strategies, ref. [29] there) watches
// both signs:
//
//   - start with R = InitialR (default 1, the Jacobi step);
//   - before taking a step from x_k, compare it with the last step: if its
//     length E_k exceeds E_{k−1} (times 1 + 10⁻¹²), or it reverses the last
//     step (cosine in the metric D below −0.9), R is too large for this A:
//     discard x_k, shrink R ← ν R (Shrink, default ½) and redo the step
//     from the previous iterate x_{k−1} with the smaller R;
//   - if E_k ≤ q E_{k−1} (FastRatio q, default ¼: the step length fell by
//     half or more), R has room: take the step and grow R ← γ R (Grow,
//     default 1.25) for the next one, up to max(1, InitialR), which recovers
//     from shrinks caused by a transient without driving R to the
//     stability limit;
//   - otherwise take the step and keep R.
//
// E is compared at the same R; when R grows, E_{k−1} is scaled by γ², as a
// step inside the box scales with R. A non-symmetric or indefinite A has no
// such guarantee; the same rules apply, and an R that shrinks below 10⁻¹²
// of InitialR ends the solve with ErrSingular. The strategy does not make
// Jacobi fast, whose rate is set by κ(D⁻¹A), which no r-factor changes by
// much; it makes it safe: a fixed R = 1 diverges whenever
// λ_max(D⁻¹A) > 2, and a fixed small R crawls.
//
// One iteration is one product w = A x + b (O(n²) dense, O(nnz) sparse)
// and O(n) work: a step taken, or a step redone from the previous iterate
// after a rejection. Every iteration is reported to the Observer with the
// solver's new x and its true w = A x + b, so SatisfiesEq2 is true; after a
// rejection that x may have a larger error than the one reported before it.
// Iterates stay in the box.
//
// Stopping. Converged when the natural residual in velocity units,
// max_i a_ii |x_i − clamp(x_i − w_i/a_ii, l_i, u_i)| (the min map of
// Newton, Eq. 8 of Enzenhöfer et al. 2019 scaled by a_ii), is at most
// Tolerance·s_w with s_w = max|b_i| (1 if b = 0), the scale BPP uses. Rows
// with a_ii ≤ 0 cannot be scaled and end the solve with an error wrapping
// ErrSingular, as for PGS.
//
// The default budget (MaxIterations = 0) is 10000 iterations: Jacobi
// converges in O(κ(D⁻¹A)) steps, slowly on strongly coupled rows. Warm
// start: X0 (projected onto the box). The final States are derived from the
// final x as for PGS.
type Prox struct {
	// InitialR is the starting relative r-factor R (r_i = R / a_ii);
	// 0 means 1.
	InitialR float64
	// Shrink is ν ∈ (0, 1), the factor applied to R after a rejected step;
	// 0 means 0.5.
	Shrink float64
	// Grow is γ ≥ 1, the factor applied to R after a fast step; 0 means
	// 1.25; 1 disables growth.
	Grow float64
	// FastRatio is q ∈ (0, 1]: a step whose E fell to q times the last one
	// or less is fast; 0 means 0.25.
	FastRatio float64

	// Workspace, reused across calls.
	diag, xn, xp, wp []float64
}

var _ Solver = (*Prox)(nil)

// Name returns "prox".
func (s *Prox) Name() string { return "prox" }

// Solve runs the proximal fixed-point iteration on p. See Prox.
func (s *Prox) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if set.X0 != nil && len(set.X0) != n {
		return fmt.Errorf("settings: X0 has %d entries, problem has %d rows", len(set.X0), n)
	}
	r0 := orDefault(s.InitialR, 1)
	nu := orDefault(s.Shrink, 0.5)
	gamma := orDefault(s.Grow, 1.25)
	q := orDefault(s.FastRatio, 0.25)
	switch {
	case !(r0 > 0) || math.IsInf(r0, 0):
		return fmt.Errorf("prox: InitialR must be positive and finite, got %v", s.InitialR)
	case !(nu > 0 && nu < 1):
		return fmt.Errorf("prox: Shrink must be in (0, 1), got %v", s.Shrink)
	case !(gamma >= 1) || math.IsInf(gamma, 0):
		return fmt.Errorf("prox: Grow must be at least 1, got %v", s.Grow)
	case !(q > 0 && q <= 1):
		return fmt.Errorf("prox: FastRatio must be in (0, 1], got %v", s.FastRatio)
	}
	dst.resize(n)
	x, w := dst.X, dst.W
	for i := range x {
		x[i] = 0
		if set.X0 != nil {
			if math.IsNaN(set.X0[i]) {
				return fmt.Errorf("settings: X0[%d]: is NaN", i)
			}
			x[i] = set.X0[i]
		}
		x[i] = clamp(x[i], p.Lo[i], p.Hi[i])
	}
	s.diag = p.Diag(s.diag)
	s.xn, s.xp, s.wp = grow(s.xn, n), grow(s.xp, n), grow(s.wp, n)
	for i, a := range s.diag {
		if !(a > 0) {
			p.Residual(w, x)
			statesFromX(dst.States, p, x)
			dst.Status = Failed
			dst.Reason = fmt.Sprintf("A[%d][%d] = %v: Prox needs a positive diagonal for r_i = R/a_ii", i, i, a)
			return fmt.Errorf("prox: %s: %w", dst.Reason, ErrSingular)
		}
	}
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 10000
	}
	tol := tolOrDefault(set.Tolerance)
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	if sw == 0 {
		sw = 1
	}
	wtol := tol * sw
	// Growth recovers R after shrinks but does not push it past 1 (the
	// Jacobi step) or InitialR; see Prox.
	rmax := math.Max(1, r0)

	p.Residual(w, x)
	if s.natural(p, x, w) <= wtol {
		dst.Status = Converged
		statesFromX(dst.States, p, x)
		return nil
	}
	R := r0
	prevE := math.Inf(1) // E of the step that led to x, at the current R
	for it := 1; ; it++ {
		if err := set.canceled(dst, "prox"); err != nil {
			statesFromX(dst.States, p, x)
			return err
		}
		// The candidate step from (x, w) with the current R.
		e, cross := s.step(p, x, w, R)
		first := math.IsInf(prevE, 1) // no last step to compare with
		if e <= prevE*(1+1e-12) && (first || cross >= -proxOscillation*math.Sqrt(e*prevE)) {
			// Accepted: x becomes the previous iterate.
			if e <= q*prevE && R*gamma <= rmax {
				R *= gamma
				e *= gamma * gamma // about the step length at the new R
			}
			prevE = e
			copy(s.xp, x)
			copy(s.wp, w)
			copy(x, s.xn)
		} else {
			// The step length grew: R is too large for this A. Return to
			// the previous iterate and redo its step with a smaller R.
			copy(x, s.xp)
			copy(w, s.wp)
			R *= nu
			if R < 1e-12*r0 {
				dst.Iterations = it - 1
				statesFromX(dst.States, p, x)
				dst.Status = Failed
				dst.Reason = fmt.Sprintf("r-factor R fell to %.3g without a step that does not lengthen: the iteration does not contract on this A", R)
				return fmt.Errorf("prox: %s: %w", dst.Reason, ErrSingular)
			}
			prevE, _ = s.step(p, x, w, R)
			copy(x, s.xn)
		}
		p.Residual(w, x)
		dst.Iterations = it
		set.observe(Iterate{Iter: it, X: x, W: w, SatisfiesEq2: true})
		if s.natural(p, x, w) <= wtol {
			dst.Status = Converged
			break
		}
		if it >= budget {
			dst.Status = BudgetExhausted
			break
		}
	}
	statesFromX(dst.States, p, x)
	return nil
}

// natural returns max_i a_ii |x_i − clamp(x_i − w_i/a_ii, l_i, u_i)|, the
// natural residual in velocity units.
func (s *Prox) natural(p *Problem, x, w []float64) float64 {
	res := 0.0
	for i, a := range s.diag {
		res = math.Max(res, a*math.Abs(x[i]-clamp(x[i]-w[i]/a, p.Lo[i], p.Hi[i])))
	}
	return res
}

// step sets s.xn = clamp(x − R D⁻¹ w) and returns E = Σ a_ii (xn_i − x_i)²
// and Σ a_ii (xn_i − x_i)(x_i − xp_i), the D-inner product with the last
// step (meaningful once a step has been taken).
func (s *Prox) step(p *Problem, x, w []float64, R float64) (e, cross float64) {
	for i, a := range s.diag {
		nx := clamp(x[i]-R*w[i]/a, p.Lo[i], p.Hi[i])
		dx := nx - x[i]
		e += a * dx * dx
		cross += a * dx * (x[i] - s.xp[i])
		s.xn[i] = nx
	}
	return e, cross
}

// proxOscillation: a step whose cosine with the last one (in the metric D)
// is below −proxOscillation reverses it; see Prox.
const proxOscillation = 0.9

func orDefault(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}
