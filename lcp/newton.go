package lcp

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// NCPFunc selects the complementarity function a Newton solver reformulates
// the MLCP with (Lu et al. 2014, Eqs. 12–14).
type NCPFunc int

// The NCP functions φ(a, b), each zero exactly when a ≥ 0, b ≥ 0, a·b = 0.
const (
	// FischerBurmeister is Eq. (12): φ(a, b) = a + b − √(a² + b²). Its
	// merit ½‖Φ‖² is continuously differentiable.
	FischerBurmeister NCPFunc = iota
	// ChenChenKanzow is Eq. (13): φ(a, b) = λ φ_FB(a, b) + (1 − λ) a⁺ b⁺,
	// the penalized FB function, with λ = Newton.Lambda. The product term
	// is divided by the velocity scale s_w (see Newton) so that it has the
	// units of the FB term; this does not change where φ vanishes.
	ChenChenKanzow
	// MinMap is Eq. (14): φ(a, b) = min(a, b). On a box it is the mid
	// function; Newton's method on it is the primal–dual active set method.
	MinMap
)

func (f NCPFunc) String() string {
	switch f {
	case FischerBurmeister:
		return "fb"
	case ChenChenKanzow:
		return "cck"
	case MinMap:
		return "min"
	}
	return fmt.Sprintf("NCPFunc(%d)", int(f))
}

// Newton is a nonsmooth (semismooth) Newton method on a reformulation
// Φ(x) = 0 of the boxed MLCP (Lu et al. 2014, Eqs. 12–14;
// Fischer 1995, Chen–Chen–Kanzow 1997, Erleben 2010: refs. [11], [13], [15]
// there), with an Armijo line search on the merit θ(x) = ½‖Φ(x)‖².
//
// The reformulation. Row i has w_i = (A x + b)_i, the diagonal element
// d_i = a_ii (1 if a_ii ≤ 0) and the scaled distances to the bounds
// p_i = d_i (x_i − l_i), q_i = d_i (u_i − x_i), which are velocities like w_i
// (a_ii x has the units of w). So every Φ_i is a velocity (m/s or rad/s) and
// the method does not depend on the units of the rows. With φ the selected
// NCP function (Func):
//
//	l = −∞, u = +∞ (bilateral):   Φ_i = w_i
//	l finite, u = +∞:             Φ_i = φ(p_i, w_i)
//	l = −∞, u finite:             Φ_i = −φ(q_i, −w_i)
//	l < u both finite (box):      Φ_i = φ(p_i, −φ(q_i, −w_i))
//	l = u (zero width):           Φ_i = p_i
//
// The box row is Billups' composition (Billups 1995; Kanzow's box extension
// uses the same form). It vanishes exactly at x_i = l_i with w_i ≥ 0,
// l_i < x_i < u_i with w_i = 0, or x_i = u_i with w_i ≤ 0, which are
// Eqs. (3)–(4). For MinMap it equals mid(p_i, w_i, −q_i), the natural
// residual scaled by a_ii (Eq. 8 in velocity units).
//
// The generalized Jacobian. Φ_i depends on x only through x_i and w_i, so
// an element of its (B-)subdifferential is H = D_α + D_β A with
// dΦ_i = α_i dx_i + β_i dw_i, α_i and β_i from the chain rule through the
// composition. At a kink a fixed element is taken: for FB at
// (a, b) = (0, 0) the limit along a = b, ∂φ = (1 − 1/√2, 1 − 1/√2); for
// the min map at a tie a = b the bound side, ∂φ = (1, 0). FB is evaluated as
// 2ab/(a + b + √(a² + b²)) when a + b > 0, without cancellation.
//
// One iteration is one Newton step: form H (dense), factor it by LU with
// partial pivoting (gonum's LAPACK, O(n³)), solve H d = −Φ, and search along
// d: the step t ∈ {1, ½, ¼, …} is the first with
// θ(x + t d) ≤ θ(x) + σ t ∇θᵀd, σ = 10⁻⁴, ∇θ = HᵀΦ (each trial costs O(n),
// as w + t A d is updated from one product A d). If H is singular or its
// condition number exceeds 10¹², which happens on the rank-deficient free
// blocks of redundant constraints, the system is regularized to
// H + μ D_β D_A (D_A = diag(a_ii)), a proximal/Levenberg–Marquardt shift
// with μ = max(10⁻¹⁰, min(10⁻², ‖Φ‖_∞ / s_w)), which shrinks as the
// residual does, multiplied by 100 up to 10⁻² while the condition number
// stays above 10¹². If d is not a direction of descent (∇θᵀd > −10⁻⁸‖Φ‖²) or its line
// search fails, the step is taken instead along the diagonally scaled
// gradient d_j = −(HᵀΦ)_j / Σ_i H_ij² (Gauss–Newton with a Jacobi
// preconditioner, which is unit consistent column by column). Then
// w = A x + b is recomputed and the iterate reported to the Observer;
// every iterate satisfies Eq. (2) (SatisfiesEq2 = true).
//
// The linear solve is dense also when A is a *Sparse (H is assembled from
// the sparse rows in O(nnz) plus O(n²) to clear it): O(n²) memory and
// O(n³) time per iteration suit n up to a few thousand (8 MB for H at
// n = 1000). A sparse LU of H, which has A's pattern, is future work.
//
// Stopping. With s_w = max|b_i| (1 if b = 0), the solve has converged when
// ‖Φ‖_∞ ≤ Tolerance·s_w, the velocity scale BPP uses (see scales and
// Settings.Tolerance); for the min map this is the natural residual of every
// row below Tolerance·s_w, and for FB and CCK it implies bound violations
// below Tolerance·s_w/a_ii and |w_i| below Tolerance·s_w on free rows. The
// iterates need not lie in the box (FB and CCK approach it from outside
// too); the returned x is not projected, so that Eq. (2) and the error
// measures see the iterate the method produced.
//
// The default budget (MaxIterations = 0) is 100 + n Newton steps. Warm
// start: X0, projected onto the box (Start is ignored). The final States
// are the active sets predicted by the min map: a row is AtLower when
// p_i < w_i, AtUpper when q_i < −w_i, else Free.
//
// A breakdown, which returns the iterate with the least ‖Φ‖_∞ and an error
// wrapping ErrSingular, is: a Newton system that stays singular under the
// largest shift, or a merit that neither direction decreases (a stationary
// point of θ that is not a solution, which can happen for the min map, whose
// θ is not differentiable at its kinks, or for an A that is not a
// P-matrix).
type Newton struct {
	// Func is the NCP function; the zero value is FischerBurmeister.
	Func NCPFunc
	// Lambda is the CCK parameter λ ∈ (0, 1] of Eq. (13); 0 means 0.95.
	// λ = 1 is plain FB. Ignored by the other functions.
	Lambda float64

	// Workspace, reused across calls.
	d           []float64 // scaled diagonal d_i
	phi, al, be []float64
	dir, ad     []float64
	xt, wt      []float64
	phit        []float64
	g, cn       []float64
	bestX       []float64
	bestW       []float64
	jac         []float64 // n×n row-major H, then its LU factors
	rowSum      []float64
	work        []float64
	ipiv        []int
	iwork       []int
	lam, invSw  float64
}

var _ Solver = (*Newton)(nil)

// Name returns "newton-fb", "newton-cck" or "newton-min".
func (s *Newton) Name() string { return "newton-" + s.Func.String() }

// Newton's fixed parameters (see Newton).
const (
	newtonArmijo     = 1e-4  // σ
	newtonMinStep    = 1e-10 // smallest step t of the line search
	newtonDescent    = 1e-8  // d must have ∇θᵀd ≤ −newtonDescent·‖Φ‖²
	newtonMaxCond    = 1e12  // a larger condition number of H regularizes it
	newtonMinShift   = 1e-10 // μ bounds of the regularization
	newtonMaxShift   = 1e-2
	newtonDefaultCCK = 0.95
)

// Solve runs the nonsmooth Newton method on p. See Newton.
func (s *Newton) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if set.X0 != nil && len(set.X0) != n {
		return fmt.Errorf("settings: X0 has %d entries, problem has %d rows", len(set.X0), n)
	}
	switch s.Func {
	case FischerBurmeister, ChenChenKanzow, MinMap:
	default:
		return fmt.Errorf("newton: unknown Func %d (want FischerBurmeister, ChenChenKanzow or MinMap)", int(s.Func))
	}
	s.lam = s.Lambda
	if s.lam == 0 {
		s.lam = newtonDefaultCCK
	}
	if s.Func == ChenChenKanzow && !(s.lam > 0 && s.lam <= 1) {
		return fmt.Errorf("newton: Lambda must be in (0, 1], got %v", s.Lambda)
	}
	for i := 0; set.X0 != nil && i < n; i++ {
		if math.IsNaN(set.X0[i]) {
			return fmt.Errorf("settings: X0[%d]: is NaN", i)
		}
	}
	dst.resize(n)
	s.d = grow(s.d, n)
	s.phi, s.al, s.be = grow(s.phi, n), grow(s.al, n), grow(s.be, n)
	s.dir, s.ad = grow(s.dir, n), grow(s.ad, n)
	s.xt, s.wt, s.phit = grow(s.xt, n), grow(s.wt, n), grow(s.phit, n)
	s.g, s.cn = grow(s.g, n), grow(s.cn, n)
	s.bestX, s.bestW = grow(s.bestX, n), grow(s.bestW, n)
	s.rowSum = grow(s.rowSum, n)
	s.work = grow(s.work, 4*n)
	s.ipiv = growInt(s.ipiv, n)
	s.iwork = growInt(s.iwork, n)
	if cap(s.jac) < n*n {
		s.jac = make([]float64, n*n)
	}
	s.jac = s.jac[:n*n]

	wtol := scales(p, set.Tolerance, s.rowSum) // rowSum: scratch here
	sw := wtol / tolOrDefault(set.Tolerance)
	s.invSw = 1 / sw
	for i := range s.d {
		s.d[i] = 1
		if a := p.A.At(i, i); a > 0 {
			s.d[i] = a
		}
	}
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 100 + n
	}

	x, w := dst.X, dst.W
	for i := range x {
		x[i] = 0
		if set.X0 != nil {
			x[i] = set.X0[i]
		}
		x[i] = clamp(x[i], p.Lo[i], p.Hi[i])
	}
	p.Residual(w, x)
	theta, res := s.eval(p, x, w, s.phi, true)
	bestRes := res
	copy(s.bestX, x)
	copy(s.bestW, w)
	fail := func(reason string) error {
		copy(x, s.bestX)
		copy(w, s.bestW)
		s.states(dst, p)
		dst.Status = Failed
		dst.Reason = reason
		return fmt.Errorf("%s: %s: %w", s.Name(), reason, ErrSingular)
	}
	for it := 1; res > wtol; it++ {
		if err := set.canceled(dst, "newton"); err != nil {
			copy(x, s.bestX)
			copy(w, s.bestW)
			s.states(dst, p)
			return err
		}
		if it > budget {
			dst.Status = BudgetExhausted
			s.states(dst, p)
			return nil
		}
		// The Newton direction H d = −Φ.
		ok, err := s.newtonDir(p, res/sw)
		if err != "" {
			return fail(err)
		}
		// A failed search leaves x and theta; the new merit comes from
		// eval below.
		stepped := false
		if ok {
			stepped, _ = s.search(p, x, w, theta)
		}
		if !stepped {
			s.gradientDir(p)
			if stepped, _ = s.search(p, x, w, theta); !stepped {
				return fail(fmt.Sprintf("line search failed at iteration %d: the merit is stationary at ‖Φ‖∞ = %.3g (tolerance %.3g)", it, res, wtol))
			}
		}
		p.Residual(w, x) // W = A X + B exactly, not the line search's update
		theta, res = s.eval(p, x, w, s.phi, true)
		dst.Iterations = it
		if res < bestRes {
			bestRes = res
			copy(s.bestX, x)
			copy(s.bestW, w)
		}
		set.observe(Iterate{Iter: it, X: x, W: w, SatisfiesEq2: true})
	}
	dst.Status = Converged
	s.states(dst, p)
	return nil
}

// ncp returns φ(a, b) and its partial derivatives for s.Func.
func (s *Newton) ncp(a, b float64) (v, da, db float64) {
	switch s.Func {
	case MinMap:
		if a <= b {
			return a, 1, 0
		}
		return b, 0, 1
	case ChenChenKanzow:
		v, da, db = fischer(a, b)
		v, da, db = s.lam*v, s.lam*da, s.lam*db
		if a > 0 && b > 0 {
			c := (1 - s.lam) * s.invSw
			v += c * a * b
			da += c * b
			db += c * a
		}
		return v, da, db
	}
	return fischer(a, b)
}

// fischer is Eq. (12) and its gradient, with the limit along a = b at the
// kink (0, 0).
func fischer(a, b float64) (v, da, db float64) {
	r := math.Hypot(a, b)
	if r == 0 {
		const k = 1 - 1/math.Sqrt2
		return 0, k, k
	}
	if a+b > 0 {
		v = 2 * a * b / (a + b + r) // = a + b − r without cancellation
	} else {
		v = a + b - r
	}
	return v, 1 - a/r, 1 - b/r
}

// row returns Φ_i and, when jac, its Jacobian coefficients α_i, β_i.
func (s *Newton) row(i int, xi, wi, l, u float64) (v, al, be float64) {
	d := s.d[i]
	lo, hi := !math.IsInf(l, -1), !math.IsInf(u, 1)
	switch {
	case l == u:
		return d * (xi - l), d, 0
	case !lo && !hi:
		return wi, 0, 1
	case lo && !hi:
		f, fa, fb := s.ncp(d*(xi-l), wi)
		return f, d * fa, fb
	case !lo && hi:
		f, fa, fb := s.ncp(d*(u-xi), -wi)
		return -f, d * fa, fb
	}
	g, ga, gb := s.ncp(d*(u-xi), -wi)
	f, fa, fb := s.ncp(d*(xi-l), -g)
	return f, d * (fa + fb*ga), fb * gb
}

// eval sets phi = Φ(x) (and s.al, s.be when jac) and returns θ = ½‖Φ‖² and
// ‖Φ‖∞.
func (s *Newton) eval(p *Problem, x, w, phi []float64, jac bool) (theta, res float64) {
	for i := range phi {
		v, al, be := s.row(i, x[i], w[i], p.Lo[i], p.Hi[i])
		phi[i] = v
		if jac {
			s.al[i], s.be[i] = al, be
		}
		theta += v * v
		res = math.Max(res, math.Abs(v))
	}
	if math.IsNaN(theta) {
		res = math.NaN()
	}
	return 0.5 * theta, res
}

// buildJac writes H + μ D_β D_A into s.jac and its row sums of |·| into
// s.rowSum.
func (s *Newton) buildJac(p *Problem, mu float64) {
	n := p.N()
	h := s.jac
	clear(h)
	switch a := p.A.(type) {
	case *Dense:
		for i := 0; i < n; i++ {
			hr, ar, b := h[i*n:(i+1)*n], a.Row(i), s.be[i]
			if b != 0 {
				for j, v := range ar {
					hr[j] = b * v
				}
			}
		}
	case *Sparse:
		a.ensure() // values put off by Defer
		for i := 0; i < n; i++ {
			hr, b := h[i*n:(i+1)*n], s.be[i]
			if b == 0 {
				continue
			}
			cols, vals := a.row(i)
			for k, j := range cols {
				hr[j] = b * vals[k]
			}
		}
	default:
		for i := 0; i < n; i++ {
			if b := s.be[i]; b != 0 {
				for j := 0; j < n; j++ {
					h[i*n+j] = b * a.At(i, j)
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		h[i*n+i] += s.al[i] + mu*s.be[i]*s.d[i]
		sum := 0.0
		for _, v := range h[i*n : (i+1)*n] {
			sum += math.Abs(v)
		}
		s.rowSum[i] = sum
	}
}

// newtonDir solves H d = −Φ into s.dir, regularizing H when it is singular
// or ill-conditioned. rel is ‖Φ‖∞/s_w. It reports false (with no error) when
// the direction is not one of descent, and a non-empty reason on a
// breakdown.
func (s *Newton) newtonDir(p *Problem, rel float64) (bool, string) {
	n := p.N()
	if n == 0 {
		return true, ""
	}
	mu := 0.0
	for {
		s.buildJac(p, mu)
		anorm := 0.0
		for _, v := range s.rowSum {
			anorm = math.Max(anorm, v)
		}
		g := blas64.General{Rows: n, Cols: n, Stride: n, Data: s.jac}
		ok := lapack64.Getrf(g, s.ipiv)
		cond := math.Inf(1)
		if ok && anorm > 0 {
			if rc := lapack64.Gecon(lapack.MaxRowSum, g, anorm, s.work, s.iwork); rc > 0 {
				cond = 1 / rc
			}
		}
		if cond <= newtonMaxCond {
			for i, v := range s.phi {
				s.dir[i] = -v
			}
			lapack64.Getrs(blas.NoTrans, g, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: s.dir}, s.ipiv)
			break
		}
		switch {
		case mu == 0:
			mu = math.Max(newtonMinShift, math.Min(newtonMaxShift, rel))
		case mu < newtonMaxShift:
			mu = math.Min(newtonMaxShift, 100*mu)
		default:
			return false, fmt.Sprintf("the Newton system stays singular (condition number %.3g) under the shift μ = %g", cond, mu)
		}
	}
	for _, v := range s.dir {
		if !num.Finite(v) {
			return false, ""
		}
	}
	p.A.MulVecTo(s.ad, s.dir)
	return s.slope() <= -newtonDescent*2*s.theta(), ""
}

// theta returns ½‖Φ‖² of s.phi.
func (s *Newton) theta() float64 { return 0.5 * dot(s.phi, s.phi) }

// slope returns ∇θᵀd = Φᵀ(H d) = Σ Φ_i (α_i d_i + β_i (A d)_i) for the
// direction in s.dir with s.ad = A d.
func (s *Newton) slope() float64 {
	sl := 0.0
	for i, v := range s.phi {
		sl += v * (s.al[i]*s.dir[i] + s.be[i]*s.ad[i])
	}
	return sl
}

// gradientDir sets s.dir to the scaled steepest-descent direction
// d_j = −(HᵀΦ)_j / Σ_i H_ij² and s.ad = A d.
func (s *Newton) gradientDir(p *Problem) {
	n := p.N()
	// HᵀΦ = D_α Φ + Aᵀ(D_β Φ); column norms Σ_i H_ij² = α_j² + 2 α_j β_j a_jj + Σ_i β_i² a_ij².
	g, cn := s.g, s.cn
	for j := range g {
		g[j] = s.al[j] * s.phi[j]
		cn[j] = s.al[j]*s.al[j] + 2*s.al[j]*s.be[j]*p.A.At(j, j)
	}
	switch a := p.A.(type) {
	case *Sparse:
		a.ensure() // values put off by Defer
		for i := 0; i < n; i++ {
			bp, b2 := s.be[i]*s.phi[i], s.be[i]*s.be[i]
			cols, vals := a.row(i)
			for k, j := range cols {
				g[j] += vals[k] * bp
				cn[j] += b2 * vals[k] * vals[k]
			}
		}
	case *Dense:
		for i := 0; i < n; i++ {
			bp, b2 := s.be[i]*s.phi[i], s.be[i]*s.be[i]
			for j, v := range a.Row(i) {
				g[j] += v * bp
				cn[j] += b2 * v * v
			}
		}
	default:
		for i := 0; i < n; i++ {
			bp, b2 := s.be[i]*s.phi[i], s.be[i]*s.be[i]
			for j := 0; j < n; j++ {
				v := a.At(i, j)
				g[j] += v * bp
				cn[j] += b2 * v * v
			}
		}
	}
	for j := range g {
		s.dir[j] = 0
		if cn[j] > 0 {
			s.dir[j] = -g[j] / cn[j]
		}
	}
	p.A.MulVecTo(s.ad, s.dir)
}

// search runs the Armijo backtracking line search along s.dir from (x, w)
// with merit theta. On success it moves x (and w, to rounding) and returns
// the new merit.
func (s *Newton) search(p *Problem, x, w []float64, theta float64) (bool, float64) {
	sl := s.slope()
	if !(sl < 0) {
		return false, theta
	}
	for t := 1.0; t >= newtonMinStep; t *= 0.5 {
		for i := range x {
			s.xt[i] = x[i] + t*s.dir[i]
			s.wt[i] = w[i] + t*s.ad[i]
		}
		th, _ := s.eval(p, s.xt, s.wt, s.phit, false)
		if th <= theta+newtonArmijo*t*sl {
			copy(x, s.xt)
			copy(w, s.wt)
			return true, th
		}
	}
	return false, theta
}

// states sets dst.States to the active sets the min map predicts at dst.X.
func (s *Newton) states(dst *Result, p *Problem) {
	for i, xi := range dst.X {
		l, u, wi, d := p.Lo[i], p.Hi[i], dst.W[i], s.d[i]
		switch {
		case l == u:
			dst.States[i] = AtLower
		case !math.IsInf(l, -1) && d*(xi-l) < wi:
			dst.States[i] = AtLower
		case !math.IsInf(u, 1) && d*(u-xi) < -wi:
			dst.States[i] = AtUpper
		default:
			dst.States[i] = Free
		}
	}
}
