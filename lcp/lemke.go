package lcp

import (
	"errors"
	"fmt"
	"math"

	"github.com/gorigid/gorigid/internal/num"
	"gonum.org/v1/gonum/mat"
)

// Lemke is Lemke's complementary pivoting algorithm with the covering vector
// d = (1, …, 1) and a lexicographic minimum-ratio test, which prevents
// cycling on degenerate problems. It solves standard LCPs
//
//	w = M z + q,  0 ≤ z ⊥ w ≥ 0,
//
// and reaches box MLCPs by reducing them to one, row by row:
//
//   - l finite, u = +∞: x = l + z, complement w;
//   - l = −∞, u finite: x = u − z, complement −w;
//   - l, u finite, l < u: x = l + z with complement w + s, and a second
//     variable s with complement (u − l) − z;
//   - l = u: x = l, no variable;
//   - l = −∞, u = +∞ (bilateral rows, F): eliminated first by their
//     equations w_F = 0, i.e. x_F = −A_FF⁻¹(b_F + A_FB x_B), which leaves the
//     Schur complement A_BB − A_BF A_FF⁻¹ A_FB on the other rows (symmetric
//     positive definite when A is). A singular A_FF is an error wrapping
//     ErrSingular.
//
// For symmetric positive semidefinite A the reduced M is copositive-plus,
// so Lemke's method finds a solution whenever one exists.
//
// One iteration is one complementary pivot. The intermediate basic
// solutions carry the artificial variable z₀ ≠ 0, so their x and w do not
// satisfy Eq. (2) (Enzenhöfer et al. 2019 §2.2): iterates are reported with
// SatisfiesEq2 = false, their W taken from the tableau. The returned solution
// has w recomputed as A x + b. Ray termination ends with an error wrapping
// ErrNoSolution. The default budget (MaxIterations = 0) is 1000 + 20 m² pivots
// for a reduced LCP of size m.
type Lemke struct {
	// Workspace.
	m      []float64 // reduced M, m×m row-major
	q      []float64
	tab    []float64 // tableau m × (2m+2): [I | −M | −d | rhs]
	basis  []int     // basic variable of each tableau row
	vars   []lemkeVar
	rowVar []int // first variable of each problem row, or -1
	d0     []float64
	// The ratio test's noise model (see lexLeave): the ∞-norms of the
	// tableau's original columns and of q, and ‖(B⁻¹)_k‖₁ of each row.
	colNorm []float64
	qNorm   float64
	nu      []float64
	// The measured error of the basic solution (see rhsNoise) and the
	// residual it is read from.
	rhsErr float64
	res    []float64
	// The measured error of the entering column (see noise).
	colErr float64
}

type lemkeVar struct {
	row   int
	sign  float64 // x_row += sign·z (0 for a slack variable)
	slack int     // for a boxed primal variable: index of its slack; else -1
	of    int     // for a slack: its primal variable
}

var _ Solver = (*Lemke)(nil)

// Name returns "lemke".
func (s *Lemke) Name() string { return "lemke" }

// reduce builds the standard LCP (M, q) for p.
func (s *Lemke) reduce(p *Problem) int {
	n := p.N()
	s.vars = s.vars[:0]
	s.rowVar = growInt(s.rowVar, n)
	s.d0 = grow(s.d0, n)
	for i := 0; i < n; i++ {
		l, u := p.Lo[i], p.Hi[i]
		s.rowVar[i] = len(s.vars)
		switch {
		case l == u:
			s.d0[i] = l
			s.rowVar[i] = -1
		case math.IsInf(u, 1):
			s.d0[i] = l
			s.vars = append(s.vars, lemkeVar{row: i, sign: 1, slack: -1})
		case math.IsInf(l, -1):
			s.d0[i] = u
			s.vars = append(s.vars, lemkeVar{row: i, sign: -1, slack: -1})
		default:
			s.d0[i] = l
			k := len(s.vars)
			s.vars = append(s.vars, lemkeVar{row: i, sign: 1, slack: k + 1}, lemkeVar{row: i, sign: 0, slack: -1, of: k})
		}
	}
	m := len(s.vars)
	s.m = grow(s.m, m*m)
	clear(s.m)
	s.q = grow(s.q, m)
	// (A d0 + b)
	ad := grow(nil, n)
	p.Residual(ad, s.d0)
	for k, v := range s.vars {
		if v.sign == 0 {
			s.m[k*m+v.of] = -1
			s.q[k] = p.Hi[v.row] - p.Lo[v.row]
			continue
		}
		for k2, v2 := range s.vars {
			if v2.sign == 0 {
				continue
			}
			s.m[k*m+k2] = v.sign * v2.sign * p.A.At(v.row, v2.row)
		}
		if v.slack >= 0 {
			s.m[k*m+v.slack] = 1
		}
		s.q[k] = v.sign * ad[v.row]
	}
	return m
}

// Solve runs Lemke's algorithm on p. See Lemke.
//
// A symmetric positive semidefinite A (redundant contacts) can end in a
// ray termination through degenerate ties although a solution exists. Solve
// then switches to the proximal-point method that BPP uses: it solves the
// problem with A + εD and b − εD x̄ (D = diag(A), ε = SemidefiniteShift, a
// P-matrix on which Lemke's method always ends in a solution), moves x̄ to
// that solution and repeats, up to 50 times, until x solves the true
// problem to the tolerance. Iterations and pivots add up over the passes,
// and the budget (MaxIterations, default 1000 + 20 n² pivots) bounds them
// all together. A pass whose shift εD(x − x̄) changes w by no more than
// the tolerance without solving the problem ends the passes
// BudgetExhausted with that x: the proximal iterates converge to a
// solution when there is one and grow without bound when there is none
// (R. T. Rockafellar, Monotone operators and the proximal point algorithm,
// 1976), so x solves the problem up to the shifted solve's rounding.
// Passes still moving w after 50 are ErrNoSolution.
func (s *Lemke) Solve(dst *Result, p *Problem, set Settings) error {
	err := s.solveOnce(dst, p, set)
	if err == nil || !errors.Is(err, ErrNoSolution) || !isSymmetric(p.A, 1e-12) {
		return err
	}
	return s.solveProximal(dst, p, set, err)
}

// shifted is A + εD as a Matrix.
type shifted struct {
	a    Matrix
	diag []float64
	eps  float64
}

func (m *shifted) Dims() (int, int) { return m.a.Dims() }
func (m *shifted) At(i, j int) float64 {
	if i == j {
		return m.a.At(i, i) + m.eps*m.diag[i]
	}
	return m.a.At(i, j)
}
func (m *shifted) MulVecTo(dst, x []float64) {
	m.a.MulVecTo(dst, x)
	for i := range dst {
		dst[i] += m.eps * m.diag[i] * x[i]
	}
}
func (m *shifted) RowDot(i int, x []float64) float64 {
	return m.a.RowDot(i, x) + m.eps*m.diag[i]*x[i]
}

// solveProximal runs the proximal passes of Solve after a ray termination.
func (s *Lemke) solveProximal(dst *Result, p *Problem, set Settings, first error) error {
	n := p.N()
	diag := p.Diag(nil)
	q := &Problem{A: &shifted{p.A, diag, SemidefiniteShift}, B: make([]float64, n), Lo: p.Lo, Hi: p.Hi}
	xbar := make([]float64, n)
	xtol := make([]float64, n)
	wtol := scales(p, set.Tolerance, xtol)
	st := make([]State, n)
	iters, pivots := dst.Iterations, dst.Pivots
	// The budget bounds the pivots of all passes together, the first
	// included: 50 passes with a budget each could take 51 times what the
	// caller allowed.
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 1000 + 20*n*n
	}
	inner := set
	for pass := 0; pass < 50; pass++ {
		if pivots >= budget {
			dst.Status = BudgetExhausted
			dst.Reason = fmt.Sprintf("budget of %d pivots exhausted in the proximal passes after a ray termination (%v)", budget, first)
			return nil
		}
		inner.MaxIterations = budget - pivots
		for i := range q.B {
			q.B[i] = p.B[i] - SemidefiniteShift*diag[i]*xbar[i]
		}
		err := s.solveOnce(dst, q, inner)
		iters += dst.Iterations
		pivots += dst.Pivots
		dst.Iterations, dst.Pivots = iters, pivots
		if err != nil {
			return err
		}
		if dst.Status == BudgetExhausted {
			p.Residual(dst.W, dst.X)
			dst.Reason = fmt.Sprintf("budget of %d pivots exhausted in the proximal passes after a ray termination (%v)", budget, first)
			return nil
		}
		p.Residual(dst.W, dst.X)
		statesFromX(st, p, dst.X)
		if boxSolved(p, dst.X, dst.W, xtol, wtol) {
			copy(dst.States, st)
			dst.Status = Converged
			dst.Reason = ""
			return nil
		}
		if dw := shiftW(dst.X, xbar, diag); dw <= wtol {
			// The shift εD(x − x̄) moved w by less than the tolerance:
			// x solves the true problem as well as the shifted one, and
			// what is left is that solve's rounding, not a problem
			// without a solution (whose passes move x without bound).
			dst.Status = BudgetExhausted
			dst.Reason = fmt.Sprintf("proximal passes stopped moving after a ray termination (%v): pass %d moved w by %.2g (tolerance %.2g), natural residual %.3g (Lemke's pivoting accuracy on this problem)",
				first, pass+1, dw, wtol, maxNaturalResidual(p, dst.X, dst.W))
			return nil
		}
		copy(xbar, dst.X)
	}
	dst.Status = Failed
	err := fmt.Errorf("lemke: no solution after a ray termination (%v) and 50 proximal passes: %w", first, ErrNoSolution)
	dst.Reason = err.Error()
	return err
}

// boxSolved reports whether (x, w) solves the boxed problem p within the
// tolerances: x within its bounds, w ≤ 0 unless x is at its lower bound
// and w ≥ 0 unless at its upper one (so w = 0 strictly between). The
// proximal passes need the w = 0 of rows strictly inside their bounds:
// the x of the shifted problem A + εD has w = −εD(x − x̄) there, which on a
// problem without a solution never vanishes (feasible, which trusts the
// states to have w = 0 on free rows, accepted it: Converged with a natural
// residual of 1 on infeasible-psd-2).
func boxSolved(p *Problem, x, w, xtol []float64, wtol float64) bool {
	for i := range x {
		lo, hi := p.Lo[i], p.Hi[i]
		if x[i] < lo-xtol[i] || x[i] > hi+xtol[i] {
			return false
		}
		if x[i] > lo+xtol[i] && w[i] > wtol {
			return false
		}
		if x[i] < hi-xtol[i] && w[i] < -wtol {
			return false
		}
	}
	return true
}

// shiftW is max |εD_i (x_i − x̄_i)|, what the proximal shift of a pass
// adds to w (ε = SemidefiniteShift, D = diag(A)).
func shiftW(x, xbar, diag []float64) float64 {
	m := 0.0
	for i := range x {
		m = math.Max(m, math.Abs(SemidefiniteShift*diag[i]*(x[i]-xbar[i])))
	}
	return m
}

// solveOnce is Lemke's method on p, without the proximal fallback.
func (s *Lemke) solveOnce(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	var free, bnd []int
	for i := range p.B {
		if math.IsInf(p.Lo[i], -1) && math.IsInf(p.Hi[i], 1) {
			free = append(free, i)
		} else {
			bnd = append(bnd, i)
		}
	}
	if len(free) == 0 {
		return s.solveStd(dst, p, set)
	}
	n, nf, nb := p.N(), len(free), len(bnd)
	dst.resize(n)
	// S = A_FF⁻¹ [A_FB | b_F]
	aff := mat.NewDense(nf, nf, nil)
	rhs := mat.NewDense(nf, nb+1, nil)
	for r, i := range free {
		for c, j := range free {
			aff.Set(r, c, p.A.At(i, j))
		}
		for c, j := range bnd {
			rhs.Set(r, c, p.A.At(i, j))
		}
		rhs.Set(r, nb, p.B[i])
	}
	var lu mat.LU
	lu.Factorize(aff)
	var sm mat.Dense
	if cond := lu.Cond(); !(cond < 1e14) || lu.SolveTo(&sm, false, rhs) != nil {
		p.Residual(dst.W, dst.X)
		dst.Status = Failed
		dst.Reason = fmt.Sprintf("the %d bilateral rows have a singular block (condition %.3g)", nf, cond)
		return fmt.Errorf("lemke: %s: %w", dst.Reason, ErrSingular)
	}
	red := NewDense(nb, nb, nil)
	q := &Problem{A: red, B: make([]float64, nb), Lo: make([]float64, nb), Hi: make([]float64, nb)}
	for r, i := range bnd {
		for c, j := range bnd {
			v := p.A.At(i, j)
			for k, f := range free {
				v -= p.A.At(i, f) * sm.At(k, c)
			}
			red.Set(r, c, v)
		}
		v := p.B[i]
		for k, f := range free {
			v -= p.A.At(i, f) * sm.At(k, nb)
		}
		q.B[r], q.Lo[r], q.Hi[r] = v, p.Lo[i], p.Hi[i]
	}
	// Map reduced iterates and results back to the full problem.
	expand := func(xb, wb []float64) {
		for r, i := range bnd {
			dst.X[i], dst.W[i] = xb[r], wb[r]
		}
		for k, f := range free {
			v := -sm.At(k, nb)
			for c := range bnd {
				v -= sm.At(k, c) * xb[c]
			}
			dst.X[f], dst.W[f] = v, 0
		}
	}
	inner := set
	if set.Observer != nil {
		inner.Observer = relay{func(it Iterate) {
			expand(it.X, it.W)
			set.Observer.Observe(Iterate{Iter: it.Iter, X: dst.X, W: dst.W, SatisfiesEq2: it.SatisfiesEq2})
		}, set.Observer}
	}
	var rr Result
	err := s.solveStd(&rr, q, inner)
	expand(rr.X, rr.W)
	p.Residual(dst.W, dst.X)
	dst.Iterations, dst.Pivots, dst.Status, dst.Reason = rr.Iterations, rr.Pivots, rr.Status, rr.Reason
	for r, i := range bnd {
		dst.States[i] = rr.States[r]
	}
	for _, f := range free {
		dst.States[f] = Free
	}
	return err
}

// solveStd runs Lemke's algorithm on a problem without bilateral rows.
func (s *Lemke) solveStd(dst *Result, p *Problem, set Settings) error {
	n := p.N()
	dst.resize(n)
	m := s.reduce(p)
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 1000 + 20*m*m
	}
	z := grow(nil, m)  // primal values
	wv := grow(nil, m) // complement values
	finish := func() { // x and states from z
		s.xFromZ(dst.X, z)
		p.Residual(dst.W, dst.X)
		statesFromX(dst.States, p, dst.X)
	}
	// Trivial solution z = 0.
	qmin := 0.0
	for k := 0; k < m; k++ {
		qmin = math.Min(qmin, s.q[k])
	}
	if qmin >= 0 {
		finish()
		dst.Status = Converged
		return nil
	}
	cols := s.tableau(m)
	pivot := func(r, c int) { s.pivotTab(r, c, m) }
	report := func(it int) { s.report(dst, p, &set, z, wv, m, it) }
	// Initial pivot: z0 enters and the row with the lexicographically least
	// (q_k, e_k) leaves: the least q_k, and among ties the largest index k.
	// Only that choice leaves every other row's (q_k − q_r, e_k − e_r)
	// lexicographically positive, which the lexicographic rule needs from
	// the start (with ties broken towards the smallest index, a
	// degenerate problem can cycle).
	r := s.lexLeave(2*m, cols, m)
	pivot(r, 2*m)
	dst.Iterations = 1
	dst.Pivots = 1
	report(1)
	entering := m + r // z_r, the complement of the w_r that left
	for it := 2; ; it++ {
		if err := set.canceled(dst, "lemke"); err != nil {
			finish()
			return err
		}
		if it > budget {
			finish()
			dst.Status = BudgetExhausted
			dst.Iterations = it - 1
			dst.Reason = fmt.Sprintf("budget of %d pivots exhausted", budget)
			return nil
		}
		leave := s.lexLeave(entering, cols, m)
		if leave < 0 {
			finish()
			dst.Status = Failed
			dst.Iterations = it - 1
			dst.Reason = fmt.Sprintf("ray termination after %d pivots", it-1)
			return fmt.Errorf("lemke: %s: %w", dst.Reason, ErrNoSolution)
		}
		out := s.basis[leave]
		pivot(leave, entering)
		dst.Iterations = it
		dst.Pivots = it
		report(it)
		if out == 2*m {
			finish()
			if k, v, bound := s.infeasibleRow(m); k >= 0 {
				dst.Status = Failed
				dst.Reason = fmt.Sprintf("the final basis is infeasible: basic variable %d is %.3g, beyond its rounding bound %.3g", s.basis[k], v, bound)
				return fmt.Errorf("lemke: %s: %w", dst.Reason, ErrNoSolution)
			}
			dst.Status = Converged
			return nil
		}
		if out < m {
			entering = out + m
		} else {
			entering = out - m
		}
	}
}

// tableau sets up Lemke's tableau of the reduced m-row problem, columns
// 0..m-1 w, m..2m-1 z, 2m z0, 2m+1 rhs, with the w basis, and the original
// columns' sizes for the noise level of the ratio test; it returns the
// row length 2m + 2.
func (s *Lemke) tableau(m int) int {
	cols := 2*m + 2
	s.tab = grow(s.tab, m*cols)
	clear(s.tab)
	s.basis = growInt(s.basis, m)
	s.nu = grow(s.nu, m)
	for k := 0; k < m; k++ {
		row := s.tab[k*cols : (k+1)*cols]
		row[k] = 1
		for j := 0; j < m; j++ {
			row[m+j] = -s.m[k*m+j]
		}
		row[2*m] = -1
		row[2*m+1] = s.q[k]
		s.basis[k] = k
	}
	s.colNorm = grow(s.colNorm, 2*m+1)
	for j := 0; j < m; j++ {
		s.colNorm[j] = 1 // w_j: e_j
		c := 0.0
		for k := 0; k < m; k++ {
			c = math.Max(c, math.Abs(s.m[k*m+j]))
		}
		s.colNorm[m+j] = c
	}
	s.colNorm[2*m] = 1 // z0: −d
	s.qNorm = 0
	for _, v := range s.q[:m] {
		s.qNorm = math.Max(s.qNorm, math.Abs(v))
	}
	return cols
}

// pivotTab pivots the m-row tableau on row r and column c: c enters the
// basis in row r.
func (s *Lemke) pivotTab(r, c, m int) {
	cols := 2*m + 2
	pr := s.tab[r*cols : (r+1)*cols]
	inv := 1 / pr[c]
	for j := range pr {
		pr[j] *= inv
	}
	pr[c] = 1
	for k := 0; k < m; k++ {
		if k == r {
			continue
		}
		row := s.tab[k*cols : (k+1)*cols]
		f := row[c]
		if f == 0 {
			continue
		}
		for j := range row {
			row[j] -= f * pr[j]
		}
		row[c] = 0
	}
	s.basis[r] = c
}

// xFromZ writes the original problem's x of the reduced problem's z.
func (s *Lemke) xFromZ(x, z []float64) {
	copy(x, s.d0[:len(x)])
	for k, v := range s.vars {
		if v.sign != 0 {
			x[v.row] += v.sign * z[k]
		}
	}
}

// report reads the basic solution (z, and wv the complements) off the
// m-row tableau and shows iteration it to set's Observer, with x and w of
// the original problem; set is the solve's own, which records an
// lcp.Stopper's request to stop.
func (s *Lemke) report(dst *Result, p *Problem, set *Settings, z, wv []float64, m, it int) {
	cols := 2*m + 2
	clear(z)
	clear(wv)
	for k := 0; k < m; k++ {
		b, val := s.basis[k], s.tab[k*cols+2*m+1]
		switch {
		case b < m:
			wv[b] = val
		case b < 2*m:
			z[b-m] = val
		}
	}
	if set.Observer == nil {
		return
	}
	s.xFromZ(dst.X, z)
	p.Residual(dst.W, dst.X) // fixed rows keep A x + b
	for k, v := range s.vars {
		if v.sign == 0 {
			continue
		}
		if s.rowVar[v.row] == k { // first variable of the row defines w
			w := wv[k]
			if v.slack >= 0 {
				w -= z[v.slack]
			}
			if v.sign < 0 {
				w = -w
			}
			dst.W[v.row] = w
		}
	}
	set.observe(Iterate{Iter: it, X: dst.X, W: dst.W, SatisfiesEq2: false})
}

// lemkeTieTol is the relative noise level of the lexicographic ratio test:
// about 10⁷ machine epsilons, room for the growth of rounding errors over
// some hundred tableau updates on a well-scaled problem.
const lemkeTieTol = 1e-9

// lexLeave returns the row that leaves the basis when column c enters: the
// lexicographic minimum ratio test over the rows k with pivot t_k > 0, on
// the vectors (rhs_k, (B⁻¹)_k)/t_k. B⁻¹ sits in the tableau's first m
// columns (the initial basis is the identity of the w columns). For z0
// (c = 2m, every t_k = −1 before the first pivot) the test is read with
// the signs reversed: the initial pivot takes the lexicographic minimum of
// (q_k, e_k), see solveStd. It returns −1 if no row qualifies (a ray).
//
// Floating point. Exact arithmetic would compare the ratio vectors exactly;
// the tableau carries rounding errors instead, which turn exact ties and
// exact zeros into differences at the noise level and so pick an arbitrary
// row, which can make the method cycle. The noise of row k is estimated
// from the size of its B⁻¹ row, ν_k = ‖(B⁻¹)_k‖₁: an entry of column j of
// the tableau B⁻¹[I | −M | −d | q] carries an error of about
// ε·ν_k·‖column j‖∞. So
//
//   - a pivot entry t_k counts as positive only when t_k > τ·ν_k·‖column c‖∞;
//   - two B⁻¹ components of the ratio vectors are a tie when they differ
//     by at most τ·(ν_a/t_a + ν_b/t_b), with τ = lemkeTieTol;
//   - two rhs components are a tie when they differ by at most
//     σ·(‖B⁻¹_a/t_a − B⁻¹_b/t_b‖₁·e + ‖v_a B⁻¹_a/t_a − v_b B⁻¹_b/t_b‖₁·e_c +
//     ε(|v_a| + |v_b|)), with v the ratios, e and e_c the measured errors
//     of the basic solution and of the entering column (rhsNoise,
//     noise: the residuals of B x_B = q and B t = column c against the
//     original columns) and σ = lemkeRhsSafety. The error of x_B is B⁻¹r,
//     so the error of v_a − v_b is that row combination times r (and, from
//     t, times r_c): two rows with nearly equal B⁻¹ rows carry nearly the
//     same error, which the sum σ(ν_a/t_a + ν_b/t_b)e misses.
//
// On a tie the comparison goes on to the next component; rows whose whole
// ratio vectors tie (possible only through rounding, as B⁻¹ is
// non-singular) keep the first one found.
//
// The rhs band is measured, not modelled: with τ‖q‖∞ in place of e, an
// ill-conditioned basis (ν_k ≈ 2·10⁵ in the proximal passes on A + εD of a
// contact problem with duplicate contacts) made ratios 2 % apart a tie;
// the lexicographic rule then chose the larger one, which left the row of
// the smaller one with a basic variable of −2.1e-5 and the method ended
// "converged" with an impulse 1 % outside its friction bound. A final
// basis with a basic variable below −σ ν_k e is reported, not returned as
// a solution (infeasibleRow). The band of the difference rather than of
// each row: on the push sweep's step-17 problem (TestLemkeDuplicateContactRatios)
// two duplicate pusher contacts' rows (ν ≈ 707 each) had ratios 8.29e-14
// apart, exactly and in the tableau alike; σ(ν_a/t_a + ν_b/t_b)e = 8.4e-12
// made them a tie, the B⁻¹ components chose the larger, and the final
// basis had w = −1.0e-12 (reported infeasible, then 50 proximal passes
// failing); the difference's band is 1.5e-14 and the pivots are those of
// exact arithmetic.
func (s *Lemke) lexLeave(c, cols, m int) int {
	sign := 1.0
	if c == 2*m && s.basisHasNoZ0(m) {
		sign = -1
	}
	leave := -1
	s.rhsErr, s.colErr = s.noise(m, cols, c)
	for k := 0; k < m; k++ {
		row := s.tab[k*cols : (k+1)*cols]
		t := sign * row[c]
		nu := 0.0
		for _, v := range row[:m] {
			nu += math.Abs(v)
		}
		if t <= lemkeTieTol*nu*s.colNorm[c] {
			continue
		}
		s.nu[k] = nu
		if leave < 0 || s.lexLess(k, leave, c, cols, m, sign) {
			leave = k
		}
	}
	return leave
}

// lemkeRhsSafety multiplies the measured error bound of the basic
// solution (rhsNoise) where it decides a tie of the ratio test's rhs
// component or an infeasible final basis: room for the rounding of the
// B⁻¹ row ν_k is read from. On the push scene's step-28 problem (see
// TestLemkeIllConditionedBasis) the measured bound is ‖r‖∞ ≈ 1.2e-14, 10⁴
// times below the τ‖q‖∞ = 4e-10 of the B⁻¹ components' model. With the
// band of the difference (lexLeave) σ = 1 to 16 solves it and the step-17
// problem of TestLemkeDuplicateContactRatios; with σ = 22 a proximal pass
// of step 28 ties ratios apart beyond rounding and ends in an infeasible
// basis, with σ = 32 step 17 does too (its ratios 8.29e-14 apart against
// a band of 3.8e-15 per unit of σ). Most of e there is the allowance m ε
// size for computing r (1.17e-14, the measured r being 7.2e-17).
const lemkeRhsSafety = 4

// rhsNoise measures how far the tableau's basic solution x_B (its rhs
// column) is from the basic solution of the original data: the residual
// r = B x_B − q with B the basic columns of [I | −M | −d] as set up, in
// ∞-norm, plus the rounding of computing it (m ε times the sizes of the
// terms). The error of x_B is B⁻¹ r, so row k's rhs is off by at most
// ν_k ‖r‖∞ (ν_k = ‖(B⁻¹)_k‖₁, see lexLeave).
func (s *Lemke) rhsNoise(m, cols int) float64 {
	e, _ := s.noise(m, cols, -1)
	return e
}

// noise returns rhsNoise and, for c ≥ 0, the same measure of the
// tableau's column c (B⁻¹ times original column c): ‖B t − column c‖∞ of
// [I | −M | −d] plus the rounding of computing it, so that t_k is off by
// at most ν_k times it. Both residuals are taken in one pass over the
// basic columns.
func (s *Lemke) noise(m, cols, c int) (float64, float64) {
	s.res = grow(s.res, 2*m)
	r, rc := s.res[:m], s.res[m:2*m]
	for i := range r {
		r[i] = -s.q[i]
	}
	clear(rc)
	sizeC := 0.0
	switch {
	case c < 0:
	case c < m:
		rc[c] = -1
		sizeC = s.colNorm[c]
	case c < 2*m:
		for i := 0; i < m; i++ {
			rc[i] = s.m[i*m+c-m]
		}
		sizeC = s.colNorm[c]
	default:
		for i := range rc {
			rc[i] = 1
		}
		sizeC = s.colNorm[c]
	}
	size := s.qNorm
	for k := 0; k < m; k++ {
		b, v := s.basis[k], s.tab[k*cols+2*m+1]
		vc := 0.0
		if c >= 0 {
			vc = s.tab[k*cols+c]
		}
		switch {
		case b < m:
			r[b] += v
			rc[b] += vc
		case b < 2*m:
			for i, j := 0, b-m; i < m; i++ {
				mij := s.m[i*m+j]
				r[i] -= mij * v
				rc[i] -= mij * vc
			}
		default:
			for i := range r {
				r[i] -= v
				rc[i] -= vc
			}
		}
		size += math.Abs(v) * s.colNorm[b]
		sizeC += math.Abs(vc) * s.colNorm[b]
	}
	e := num.MaxAbs(r) + float64(m)*0x1p-52*size
	if c < 0 {
		return e, 0
	}
	return e, num.MaxAbs(rc) + float64(m)*0x1p-52*sizeC
}

// infeasibleRow returns the tableau row whose basic variable is the most
// negative beyond its rounding bound lemkeRhsSafety·ν_k·rhsNoise, with its
// value and bound, or −1. In exact arithmetic Lemke's basic variables stay
// non-negative; a negative one beyond rounding means a ratio test chose
// wrongly and the complementary basis does not solve the problem.
func (s *Lemke) infeasibleRow(m int) (int, float64, float64) {
	cols := 2*m + 2
	e := s.rhsNoise(m, cols)
	worst, wv, wb := -1, 0.0, 0.0
	for k := 0; k < m; k++ {
		row := s.tab[k*cols : (k+1)*cols]
		nu := 0.0
		for _, v := range row[:m] {
			nu += math.Abs(v)
		}
		v, bound := row[2*m+1], lemkeRhsSafety*nu*e
		if v < -bound && (worst < 0 || v+bound < wv+wb) {
			worst, wv, wb = k, v, bound
		}
	}
	return worst, wv, wb
}

// basisHasNoZ0 reports whether z0 is not yet basic (before the first pivot).
func (s *Lemke) basisHasNoZ0(m int) bool {
	for _, b := range s.basis[:m] {
		if b == 2*m {
			return false
		}
	}
	return true
}

// lexLess reports whether row a's ratio vector (rhs, B⁻¹ row)/t is
// lexicographically smaller than row b's for entering column c, with the
// tie tolerance of lexLeave. sign −1 compares (−rhs, −B⁻¹ row)/(−t), the
// initial pivot's order.
func (s *Lemke) lexLess(a, b, c, cols, m int, sign float64) bool {
	ra := s.tab[a*cols : (a+1)*cols]
	rb := s.tab[b*cols : (b+1)*cols]
	ta, tb := ra[c], rb[c]
	na, nb := s.nu[a]/math.Abs(ta), s.nu[b]/math.Abs(tb)
	noise := lemkeTieTol * (na + nb)
	va, vb := ra[2*m+1]/ta, rb[2*m+1]/tb
	// The error of va − vb is (B⁻¹_a/t_a − B⁻¹_b/t_b)·r − (va B⁻¹_a/t_a −
	// vb B⁻¹_b/t_b)·r_c, r and r_c the residuals of the rhs and of the
	// entering column (rhsNoise, noise): bounded by the 1-norms of
	// those row combinations, not by ν_a/t_a + ν_b/t_b, which misses that
	// two rows of nearly equal B⁻¹ (duplicate contacts) carry nearly the
	// same error.
	d := sign * (va - vb)
	eps := 0x1p-52 * (math.Abs(va) + math.Abs(vb))
	// By the triangle inequality the row combinations' norms are at most
	// ν_a/t_a + ν_b/t_b and |v_a|ν_a/t_a + |v_b|ν_b/t_b: a difference
	// beyond that wider band is no tie, without the O(m) sums.
	wide := lemkeRhsSafety * ((na+nb)*s.rhsErr + (math.Abs(va)*na+math.Abs(vb)*nb)*s.colErr + eps)
	if math.Abs(d) > wide {
		return d < 0
	}
	ia, ib := 1/ta, 1/tb
	dr, dc := 0.0, 0.0
	for j := 0; j < m; j++ {
		ba, bb := ra[j]*ia, rb[j]*ib
		dr += math.Abs(ba - bb)
		dc += math.Abs(va*ba - vb*bb)
	}
	if math.Abs(d) > lemkeRhsSafety*(dr*s.rhsErr+dc*s.colErr+eps) {
		return d < 0
	}
	for j := 0; j < m; j++ {
		va, vb = ra[j]/ta, rb[j]/tb
		if d := sign * (va - vb); math.Abs(d) > noise {
			return d < 0
		}
	}
	return false
}
