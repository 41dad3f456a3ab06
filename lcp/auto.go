package lcp

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// Auto chooses the solver from the problem's matrix class, falls back when
// the chosen one does not solve the problem, and reports which solver
// answered and why (Answered, Why and Result.Reason).
//
// The rule, after the theory of each method:
//
//  1. A symmetric positive semidefinite (every problem the stepper builds,
//     and every *Sparse A, which is symmetric by construction and assumed
//     semidefinite): BPP. It is finite on symmetric positive definite A and
//     treats a semidefinite A by proximal-point regularization, which is
//     not proven finite: on a degenerate semidefinite LCP it can exhaust its
//     budget (degenerate-psd-40 of the test collection), and Auto goes on.
//  2. Otherwise, or when BPP does not converge: Lemke. Lemke's method ends
//     in a solution of every LCP whose matrix is copositive-plus (for
//     example a positive semidefinite, not necessarily symmetric A: the
//     monotone problems, circuits with ideal diodes among them) or a
//     P-matrix, and its ray termination then proves that there is none
//     (Cottle, Pang & Stone, "The Linear Complementarity Problem", 1992,
//     on Lemke's method and copositive-plus matrices); on other matrices it may stop in a ray although a
//     solution exists.
//  3. When Lemke does not converge: the nonsmooth Newton method with the
//     Fischer–Burmeister function, then with the minimum map, which need no
//     matrix class but may stop at a stationary point of their merit.
//
// The first converged result whose natural residual is at most 10⁻⁶·
// max(1, ‖b‖∞) is returned (a solver's own test can be looser: BPP accepts a
// semidefinite problem's w at 10⁻⁶ of max|b| but not its bounds). If none converges, the result
// with the least natural residual max_i |min(x − l, w₊)|, |min(u − x, w₋)|
// is returned with status Failed and an error wrapping ErrNoSolution, and
// the Reason lists every attempt. Every attempt gets the caller's Settings
// (its budget in the attempt's own iterations); the Observer sees the
// iterates of all attempts, numbered on from one attempt to the next, and
// Result.Iterations and Pivots are the sums over the attempts.
//
// Classifying a dense A costs a Cholesky factorization of A (or of its
// symmetric part), O(n³); a *Sparse A is not factored. A problem of more
// than AutoDenseMax rows is handed to BPP alone, as Lemke and Newton work on
// dense n×n arrays (Lemke's tableau alone is 2n² numbers).
type Auto struct {
	// Answered is the name of the solver whose result the last Solve
	// returned, and Why says why it was chosen, in one line.
	Answered, Why string

	bpp     BPP
	lemke   Lemke
	fb, min Newton
	best    Result
}

var _ Solver = (*Auto)(nil)

// Name returns "auto".
func (s *Auto) Name() string { return "auto" }

// MatrixClass is what Auto and BPP know of a lead matrix.
type MatrixClass struct {
	Symmetric bool // A = Aᵀ to rounding
	// PSD: A is symmetric positive semidefinite (to rounding).
	PSD bool
	// Monotone: the symmetric part (A + Aᵀ)/2 is positive semidefinite, so
	// xᵀ A x ≥ 0 for all x (A copositive-plus).
	Monotone bool
}

func (c MatrixClass) String() string {
	switch {
	case c.PSD:
		return "symmetric positive semidefinite"
	case c.Symmetric:
		return "symmetric, not positive semidefinite"
	case c.Monotone:
		return "non-symmetric with a positive semidefinite symmetric part (monotone)"
	}
	return "non-symmetric, not monotone"
}

// Classify returns the class of p.A. A *Sparse A is reported symmetric
// positive semidefinite without a check (the stepper assembles
// J M⁻¹ Jᵀ + C); a dense A is tested by a Cholesky factorization of its
// symmetric part shifted by 10⁻¹⁰·max|aᵢᵢ| (so rounding-level negative
// eigenvalues of a singular semidefinite A pass).
func Classify(a Matrix) MatrixClass {
	var c MatrixClass
	if _, ok := a.(*Sparse); ok {
		return MatrixClass{Symmetric: true, PSD: true, Monotone: true}
	}
	n, _ := a.Dims()
	c.Symmetric = isSymmetric(a, 1e-12)
	scale := 0.0
	for i := 0; i < n; i++ {
		scale = math.Max(scale, math.Abs(a.At(i, i)))
		for j := 0; j < n; j++ {
			scale = math.Max(scale, 1e-3*math.Abs(a.At(i, j)))
		}
	}
	if scale == 0 {
		scale = 1
	}
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := 0.5 * (a.At(i, j) + a.At(j, i))
			if i == j {
				v += 1e-10 * scale
			}
			s.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	c.Monotone = n == 0 || ch.Factorize(s)
	c.PSD = c.Symmetric && c.Monotone
	return c
}

// attempt is one solver of Auto's plan and why it is tried.
type attempt struct {
	solver Solver
	why    string
}

// Solve runs the attempts of Auto on p. See Auto.
func (s *Auto) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	var plan []attempt
	if p.N() > AutoDenseMax {
		plan = append(plan, attempt{&s.bpp, fmt.Sprintf("%d rows > %d: only BPP, the other solvers work on dense n×n arrays", p.N(), AutoDenseMax)})
		return s.run(dst, p, set, plan)
	}
	class := Classify(p.A)
	if class.PSD {
		plan = append(plan, attempt{&s.bpp, "A is symmetric positive semidefinite: BPP's case"})
	}
	lemkeWhy := "A is " + class.String() + ": Lemke is not guaranteed, but needs no matrix class to try"
	if class.Monotone {
		lemkeWhy = "A is " + class.String() + ": Lemke ends in a solution if one exists"
	}
	if class.PSD {
		lemkeWhy = "BPP did not converge; " + lemkeWhy
	}
	s.fb.Func, s.min.Func = FischerBurmeister, MinMap
	plan = append(plan,
		attempt{&s.lemke, lemkeWhy},
		attempt{&s.fb, "Lemke did not converge: nonsmooth Newton (Fischer–Burmeister)"},
		attempt{&s.min, "Newton-FB did not converge: nonsmooth Newton (minimum map)"})
	return s.run(dst, p, set, plan)
}

// run tries the attempts of plan in order. See Auto.
func (s *Auto) run(dst *Result, p *Problem, set Settings, plan []attempt) error {
	bScale := 1.0
	for _, v := range p.B {
		bScale = math.Max(bScale, math.Abs(v))
	}
	offset, iters, pivots := 0, 0, 0
	inner := set
	if set.Observer != nil {
		inner.Observer = relay{func(it Iterate) {
			it.Iter += offset
			set.Observer.Observe(it)
		}, set.Observer}
	}
	var notes []string
	bestRes := math.Inf(1)
	bestName := ""
	for _, a := range plan {
		err := a.solver.Solve(dst, p, inner)
		iters += dst.Iterations
		pivots += dst.Pivots
		offset = iters
		if err != nil && !isBreakdown(err) {
			return err // settings the solvers reject (X0, Start of the wrong length)
		}
		res := maxNaturalResidual(p, dst.X, dst.W)
		if dst.Status == Converged && res <= autoResidual*bScale {
			dst.Iterations, dst.Pivots = iters, pivots
			s.Answered, s.Why = a.solver.Name(), a.why
			dst.Reason = fmt.Sprintf("auto: %s answered (%s)", s.Answered, s.Why)
			if len(notes) > 0 {
				dst.Reason += "; before: " + strings.Join(notes, "; ")
			}
			return nil
		}
		note := fmt.Sprintf("%s ended %v", a.solver.Name(), dst.Status)
		if dst.Status == Converged {
			note = fmt.Sprintf("%s converged to a natural residual of %.3g", a.solver.Name(), res)
		}
		if dst.Reason != "" {
			note += " (" + dst.Reason + ")"
		}
		notes = append(notes, note)
		if res < bestRes || bestName == "" {
			bestRes, bestName = res, a.solver.Name()
			copyResult(&s.best, dst)
		}
	}
	copyResult(dst, &s.best)
	dst.Iterations, dst.Pivots = iters, pivots
	dst.Status = Failed
	s.Answered, s.Why = bestName, "no solver converged; this is the result with the least natural residual"
	dst.Reason = fmt.Sprintf("auto: no solver converged (%s); returned %s's result, natural residual %.3g", strings.Join(notes, "; "), bestName, bestRes)
	return fmt.Errorf("%s: %w", dst.Reason, ErrNoSolution)
}

// AutoDenseMax is the largest problem on which Auto classifies A and tries
// Lemke and Newton.
const AutoDenseMax = 2000

// autoResidual is the natural residual, relative to max(1, ‖b‖∞), below
// which Auto accepts a converged attempt (errmeasure.ConvergedResidual).
const autoResidual = 1e-6

// isBreakdown reports whether err is a solver's numerical breakdown (after
// which another solver may succeed) rather than rejected input.
func isBreakdown(err error) bool {
	for _, e := range []error{ErrSingular, ErrCycling, ErrNoSolution, ErrUnsupported, ErrTooLarge} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// maxNaturalResidual returns max_i of the row natural residual (Eq. 9 of the
// energy-error paper) of (x, w); NaN counts as +Inf.
func maxNaturalResidual(p *Problem, x, w []float64) float64 {
	r := 0.0
	for i := range x {
		wp, wm := math.Max(w[i], 0), math.Max(-w[i], 0)
		v := math.Max(math.Abs(math.Min(p.Hi[i]-x[i], wm)), math.Abs(math.Min(x[i]-p.Lo[i], wp)))
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		r = math.Max(r, v)
	}
	return r
}

// copyResult copies src into dst, reusing dst's slices.
func copyResult(dst, src *Result) {
	n := len(src.X)
	dst.resize(n)
	copy(dst.X, src.X)
	copy(dst.W, src.W)
	copy(dst.States, src.States[:min(n, len(src.States))])
	dst.Iterations, dst.Pivots, dst.Status, dst.Reason = src.Iterations, src.Pivots, src.Status, src.Reason
}

// notForBPP returns, in one line, why block principal pivoting is not made
// for p, or "" if nothing at hand says so. BPP is made for P-matrices and
// symmetric positive semidefinite A. A row with a lower or upper bound
// (l < u) and aᵢᵢ < 0, or aᵢᵢ = 0 while row or column i has another
// non-zero, rules out both: a P-matrix has aᵢᵢ > 0, and a positive
// semidefinite A with aᵢᵢ = 0 has a symmetric part that is zero in row i.
// A skew coupling (aᵢⱼ = −aⱼᵢ) keeps a non-symmetric A monotone, and BPP
// takes it when row i is coupled to a bilateral row, which every face
// keeps free (a circuit's diode and its current); coupled only to rows
// that can sit at a bound, row i is refused: BPP frees a row with wᵢ < 0,
// and the face that frees it with those rows at bounds has a zero row in
// A_FF (Siconos' lcp_CPS_4, the KKT system of a QP, frees its multiplier
// alone at the first block pivot). Bilateral rows (l = −∞, u = +∞) stay free and are not
// checked: a zero diagonal there is a circuit's equation. O(n) for a
// problem that passes (O(n) more per zero-diagonal bounded row).
// diag is A's diagonal (Problem.Diag).
func notForBPP(p *Problem, symmetric bool, diag []float64) string {
	n := p.N()
	for i := 0; i < n; i++ {
		l, u := p.Lo[i], p.Hi[i]
		if l == u || (math.IsInf(l, -1) && math.IsInf(u, 1)) {
			continue
		}
		a := diag[i]
		if a < 0 {
			return fmt.Sprintf("A[%d][%d] = %g < 0 on a bounded row: A is neither a P-matrix nor positive semidefinite, which BPP is made for (use lemke or auto)", i, i, a)
		}
		if a > 0 {
			continue
		}
		held, first := false, -1
		for j := 0; j < n; j++ {
			if j == i {
				continue
			}
			aij, aji := p.A.At(i, j), p.A.At(j, i)
			if aij == 0 && aji == 0 {
				continue
			}
			if symmetric || aij != -aji {
				return fmt.Sprintf("A[%d][%d] = 0 on a bounded row coupled to row %d: A is neither a P-matrix nor positive semidefinite, which BPP is made for (use lemke or auto)", i, i, j)
			}
			if first < 0 {
				first = j
			}
			held = held || (math.IsInf(p.Lo[j], -1) && math.IsInf(p.Hi[j], 1))
		}
		if first >= 0 && !held {
			return fmt.Sprintf("A[%d][%d] = 0 on a bounded row coupled skew-symmetrically only to rows that can sit at a bound (the first row %d): a face that frees row %d with them at bounds has a zero row, which BPP cannot solve (use lemke or auto)", i, i, first, i)
		}
	}
	return ""
}
