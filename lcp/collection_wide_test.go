package lcp

import (
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file holds the collection's problems from the published LCP test
// sets: Siconos numerics' LCP and MLCP test data (the small ones, whose
// published definition is the matrix itself) and the classic families of
// the LCP literature, regenerated from their definitions.

// Problem classes added with these problems.
const (
	classZ = "Z-matrix (Chandrasekaran's class: obstacle and journal-bearing problems)"
)

// exactEntry solves the integer LCP (mm, q) with the exact-rational Lemke
// for its known x.
func exactEntry(name string, mm [][]int64, q []int64) (*Problem, []float64) {
	ze, _, ok := exactLemke(mm, q, 1<<20)
	if !ok {
		panic(name + ": the exact Lemke found no solution")
	}
	x := make([]float64, len(q))
	for i := range x {
		x[i], _ = ze[i].Float64()
	}
	rows, b := fromInts(mm, q)
	return std(rows, b), x
}

// fathiInts is Fathi's positive definite symmetric matrix M = L Lᵀ, L the
// lower triangular matrix of Murty (1978) (1 on the diagonal, 2 below):
// M_ii = 4(i−1) + 1, M_ij = 4(min(i, j) − 1) + 2 (1-based), with q = −e.
// Murty's principal pivoting needs 2ⁿ − 1 pivots on it (Fathi, Computational
// complexity of LCPs associated with positive definite symmetric matrices,
// 1979; Murty, Linear Complementarity, Linear and Nonlinear Programming,
// 1988, Ch. 6). Its condition number grows like 16ⁿ·const: an
// ill-conditioned SPD problem.
func fathiInts(n int) ([][]int64, []int64) {
	mm := make([][]int64, n)
	q := make([]int64, n)
	for i := range mm {
		mm[i] = make([]int64, n)
		for j := range mm[i] {
			k := int64(min(i, j))
			mm[i][j] = 4*k + 2
			if i == j {
				mm[i][j] = 4*k + 1
			}
		}
		q[i] = -1
	}
	return mm, q
}

// leastElement solves the LCP (M, q) of a Z-matrix that is a P-matrix
// (a Minkowski matrix) by Chandrasekaran's method (Chandrasekaran, A special
// case of the complementary pivot problem, 1970; Cottle, Pang & Stone 1992,
// §4.7): start with J = {i : q_i < 0}, solve M_JJ z_J = −q_J, add every row
// with w_i < 0 and repeat; J only grows, so at most n solves. It is the
// reference for the obstacle and journal-bearing problems (the solution is
// unique; TestCollectionFiles checks its natural residual).
func leastElement(p *Problem) []float64 {
	n := p.N()
	in := make([]bool, n)
	for i, v := range p.B {
		in[i] = v < 0
	}
	z := make([]float64, n)
	for range n + 1 {
		var idx []int
		for i := range in {
			if in[i] {
				idx = append(idx, i)
			}
		}
		m := len(idx)
		a := make([]float64, m*m)
		rhs := make([]float64, m)
		for r, i := range idx {
			for c, j := range idx {
				a[r*m+c] = p.A.At(i, j)
			}
			rhs[r] = -p.B[i]
		}
		if m > 0 && !gaussSolve(a, rhs, m) {
			panic("leastElement: singular principal block")
		}
		clear(z)
		for r, i := range idx {
			z[i] = rhs[r]
		}
		w := p.Residual(nil, z)
		grew := false
		for i := range w {
			if !in[i] && w[i] < 0 {
				in[i], grew = true, true
			}
		}
		if !grew {
			return z
		}
	}
	panic("leastElement: no fixed point in n steps")
}

// obstacle is the discretized obstacle problem on the unit square: a
// membrane u = 0 on the boundary stretched over an obstacle ψ, −Δu ≥ 0,
// u ≥ ψ, (u − ψ)(−Δu) = 0, with the five-point Laplacian on a k×k grid of
// interior points (h = 1/(k+1)). In z = u − ψ (ψ at the interior points):
// M = the 5-point stencil (4 on the diagonal, −1 to each neighbour), q =
// M ψ (the boundary's u = 0 enters through the missing neighbours). M is a
// symmetric M-matrix (a Z-matrix and
// positive definite), Chandrasekaran's class, and a free-boundary problem
// like the journal bearing of Cryer (1971). The obstacle is the dome
// ψ(x, y) = c0 − c1((x − ½)² + (y − ½)²), above 0 at the centre and below
// at the boundary: the membrane rests on its top.
func obstacle(k int, c0, c1 float64) *Problem {
	n := k * k
	h := 1 / float64(k+1)
	a := NewDense(n, n, nil)
	psi := make([]float64, n)
	id := func(i, j int) int { return i*k + j }
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			r := id(i, j)
			a.Set(r, r, 4)
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				ii, jj := i+d[0], j+d[1]
				if ii >= 0 && ii < k && jj >= 0 && jj < k {
					a.Set(r, id(ii, jj), -1)
				}
			}
			x, y := float64(i+1)*h, float64(j+1)*h
			psi[r] = c0 - c1*((x-0.5)*(x-0.5)+(y-0.5)*(y-0.5))
		}
	}
	b := make([]float64, n)
	a.MulVecTo(b, psi)
	return std(a.Rows(), b)
}

// journalBearing is the journal-bearing problem of Cryer (1971), in the form
// of the MINPACK-2 test problem (Averick, Carter, Moré & Xue, The MINPACK-2
// test problem collection, 1992): the pressure p ≥ 0 of a lubricant film
// between a rotating journal and its bearing with cavitation, the LCP of
// −∇·(w_q ∇p) = w_l, p ≥ 0, on (0, 2π)×(0, 2b), p = 0 on the boundary,
// w_q(x) = (1 + ε cos x)³, w_l(x) = ε sin x, ε = 0.1, b = 10. Here
// finite differences on nx×ny interior points, the flux coefficient w_q at
// the face midpoints, multiplied through by hx·hy: M is a symmetric
// M-matrix (Chandrasekaran's class), q = −hx·hy·w_l.
func journalBearing(nx, ny int) *Problem {
	const eps, bb = 0.1, 10.0
	hx, hy := 2*math.Pi/float64(nx+1), 2*bb/float64(ny+1)
	n := nx * ny
	a := NewDense(n, n, nil)
	b := make([]float64, n)
	wq := func(x float64) float64 { c := 1 + eps*math.Cos(x); return c * c * c }
	id := func(i, j int) int { return i*ny + j }
	for i := 0; i < nx; i++ {
		x := float64(i+1) * hx
		we, ww := wq(x+hx/2), wq(x-hx/2)
		for j := 0; j < ny; j++ {
			r := id(i, j)
			cx, cy := hy/hx, hx/hy*wq(x)
			a.Set(r, r, cx*(we+ww)+2*cy)
			if i > 0 {
				a.Set(r, id(i-1, j), -cx*ww)
			}
			if i < nx-1 {
				a.Set(r, id(i+1, j), -cx*we)
			}
			if j > 0 {
				a.Set(r, id(i, j-1), -cy)
			}
			if j < ny-1 {
				a.Set(r, id(i, j+1), -cy)
			}
			b[r] = -hx * hy * eps * math.Sin(x)
		}
	}
	return std(a.Rows(), b)
}

// wideCollection returns the problems of the published test sets, built
// once (the exact-rational Lemke and Chandrasekaran's method take seconds);
// callers must not modify them.
var wideCollection = sync.OnceValue(buildWideCollection)

func buildWideCollection() []entry {
	cps := "Cottle, Pang & Stone, The Linear Complementarity Problem (1992)"
	var es []entry
	add := func(e entry) { es = append(es, e) }

	p, x := exactEntry("siconos-cps-1", [][]int64{{1, 1}, {1, 1}}, []int64{-1, -1})
	add(entry{Name: "siconos-cps-1", Class: classPSD, Source: "Siconos numerics LCP test data lcp_CPS_1.dat (Remark 4.1.14 of " + cps + "): M = [[1,1],[1,1]], q = −e; the solutions are z₁ + z₂ = 1, z ≥ 0, all with w = 0; x from an exact-rational Lemke",
		P: p, Solvable: true, X: x, UniqueW: true})
	// Siconos writes dense matrices column-major: each line of its file
	// is a column of M.
	mm4 := [][]int64{{11, 0, 10, -1}, {0, 11, 10, -1}, {10, 10, 21, -1}, {1, 1, 1, 0}}
	q4 := []int64{50, 50, 10, -6}
	p, x = exactEntry("siconos-cps-4", mm4, q4)
	add(entry{Name: "siconos-cps-4", Class: classMonotone, Source: "Siconos numerics LCP test data lcp_CPS_4.dat (dense, column-major): the KKT system of min ½zᵀQz + cᵀz over z ≥ 0, z₁ + z₂ + z₃ ≥ 6, Q = [[11,0,10],[0,11,10],[10,10,21]] positive definite, c = (50, 50, 10): M = [[Q, −e],[eᵀ, 0]] (monotone, a zero diagonal), q = (c, −6), z₄ the multiplier; x from an exact-rational Lemke (unique: Q is positive definite and the constraint is active)",
		P: p, Solvable: true, X: x, UniqueX: true, UniqueW: true})

	// Siconos' relay2_mlcp.dat (storage 1, M column-major in the file):
	// rows 0–3 equations, 4–5 complementarity.
	ra, _ := DenseFromRows([][]float64{
		{0, 0, 1, 0, 0, 0},
		{0, -0.01, 0, 1, 0, 0},
		{1, 0, 0, 0, 0, 0},
		{0, 1, 0, 0, 0, 1},
		{0, 0, 0, 0, 0, -1},
		{-1, 0, 0, 0, 1, 0},
	})
	relay := &Problem{A: ra, B: []float64{0, 0, -10, -1.6, 3, 0.001},
		Lo: []float64{-inf, -inf, -inf, -inf, 0, 0}, Hi: []float64{inf, inf, inf, inf, inf, inf}}
	add(entry{Name: "siconos-relay2-mlcp", Class: classCircuit, Source: "Siconos numerics MLCP test data relay2_mlcp.dat (its storage-1 M, column-major, and q; n = 4 equations, m = 2 complementarity rows; the file's blocks A, B, C, D agree): x₃ = 0, x₁ = 10; w₆ = x₅ − 10 + 0.001 ≥ 0 makes x₅ > 0, so w₅ = 3 − x₆ = 0, x₆ = 3 > 0, so w₆ = 0, x₅ = 9.999; x₂ = 1.6 − x₆ = −1.4, x₄ = 0.01 x₂ = −0.014, by hand (the solution the file lists after its data)",
		P: relay, Solvable: true, X: []float64{10, -1.4, 0, -0.014, 9.999, 3}, UniqueX: true, UniqueW: true})

	for _, n := range []int{8, 16} {
		mm, q := fathiInts(n)
		p, x := exactEntry("fathi", mm, q)
		add(entry{Name: fmt.Sprintf("fathi-%d", n), Class: classSPD, Source: fmt.Sprintf("Fathi, Computational complexity of LCPs associated with positive definite symmetric matrices (1979), as in Murty, Linear Complementarity, Linear and Nonlinear Programming (1988), Ch. 6: M = L Lᵀ with Murty's L (1 on the diagonal, 2 below), q = −e, n = %d; ill-conditioned; x from an exact-rational Lemke", n),
			P: p, Solvable: true, X: x, UniqueX: true, UniqueW: true})
	}

	p, x = exactEntry("copositive-strict-3", [][]int64{{1, 2, 2}, {2, 1, 2}, {2, 2, 1}}, []int64{-3, -1, -1})
	add(entry{Name: "copositive-strict-3", Class: classIndefinite, Source: "M = [[1,2,2],[2,1,2],[2,2,1]] (positive entries: strictly copositive, for which Lemke's method ends in a solution for every q, " + cps + "; not P, not positive semidefinite), q = (−3, −1, −1); x from an exact-rational Lemke",
		P: p, Solvable: true, X: x})

	add(entry{Name: "infeasible-psd-2", Class: classNoSolution, Source: "M = [[1,−1],[−1,1]] (positive semidefinite, so copositive-plus), q = −e: w₁ + w₂ = −2 for every z, no solution; the first ratios tie and Lemke's method must end in a ray, which for a copositive-plus M proves infeasibility (" + cps + " Theorem 4.4.13)",
		P: std([][]float64{{1, -1}, {-1, 1}}, []float64{-1, -1})})
	add(entry{Name: "infeasible-psd-degenerate-4", Class: classNoSolution, Source: "M = bbᵀ with b = (1, −1, 1, −1) (positive semidefinite of rank 1), q = −e: w₁ = s − 1 and w₂ = −s − 1 with s = bᵀz cannot both be ≥ 0; every first ratio ties (a degenerate ray termination)",
		P: std([][]float64{{1, -1, 1, -1}, {-1, 1, -1, 1}, {1, -1, 1, -1}, {-1, 1, -1, 1}}, []float64{-1, -1, -1, -1})})

	for _, c := range []struct{ k int }{{8}, {16}} {
		p := obstacle(c.k, 0.25, 2)
		add(entry{Name: fmt.Sprintf("obstacle-%d", c.k*c.k), Class: classZ, Source: fmt.Sprintf("discretized obstacle problem on the unit square (a free-boundary problem; a symmetric M-matrix, Chandrasekaran's Z-matrix class): a membrane fixed at 0 on the boundary over the dome ψ = 0.25 − 2((x − ½)² + (y − ½)²), five-point Laplacian on a %d×%d grid of interior points, z = u − ψ, M = the stencil (4, −1), q = M ψ; x by Chandrasekaran's method (unique: M is a P-matrix)", c.k, c.k),
			P: p, Solvable: true, X: leastElement(p), UniqueX: true, UniqueW: true})
	}
	p = journalBearing(24, 8)
	add(entry{Name: "journal-bearing-192", Class: classZ, Source: "journal bearing with cavitation (Cryer, 1971), in the form of the MINPACK-2 test problem (Averick, Carter, Moré & Xue, 1992): −∇·((1 + ε cos x)³∇p) = ε sin x, p ≥ 0 on (0, 2π)×(0, 20), ε = 0.1, finite differences on 24×8 interior points; x by Chandrasekaran's method (unique: M is a P-matrix)",
		P: p, Solvable: true, X: leastElement(p), UniqueX: true, UniqueW: true})
	return es
}

// TestLemkeNoFalseSolution: on a symmetric positive semidefinite problem
// without a solution Lemke's method ends in a ray and its proximal passes
// (A + εD) solve shifted problems whose x is not a solution of the true one;
// Lemke must then report no solution, never Converged. Both problems are
// infeasible (w₁ + w₂ = −2 for every z; w₁ = s − 1, w₂ = −s − 1), so the
// natural residual of any x is at least 1.
func TestLemkeNoFalseSolution(t *testing.T) {
	for _, e := range wideCollection() {
		if e.Solvable || !isSymmetric(e.P.A, 0) {
			continue
		}
		var r Result
		err := (&Lemke{}).Solve(&r, e.P, Settings{})
		res := maxNaturalResidual(e.P, r.X, e.P.Residual(nil, r.X))
		assert.NotEqual(t, Converged, r.Status, "%s: natural residual %.3g", e.Name, res)
		assert.ErrorIs(t, err, ErrNoSolution, e.Name)
	}
}

// TestLemkeProximalBudget: MaxIterations bounds Lemke's pivots over all its
// proximal passes, not each pass (50 passes could spend 50 budgets: on a
// large problem without a solution, 50 times the time the caller allowed).
// infeasible-psd-degenerate-4 has no solution and spends 252 pivots in
// its passes with the default budget; with a budget of 20 it must stop at
// 20, budget_exhausted.
func TestLemkeProximalBudget(t *testing.T) {
	for _, e := range wideCollection() {
		if e.Name != "infeasible-psd-degenerate-4" {
			continue
		}
		var r Result
		_ = (&Lemke{}).Solve(&r, e.P, Settings{MaxIterations: 20})
		assert.LessOrEqual(t, r.Pivots, 20)
		assert.NotEqual(t, Converged, r.Status)
	}
}

// TestLemkeProximalFixedPoint: a problem with a solution is not reported
// as having none. The problem is step 28 of the push scene (sweep's test
// spec, experiment e2, μ_s = 0.1, tripod 0.01 m): 21 rows of three nearly
// coincident tripod contacts (a_ii ≈ 5, rows alike to 1e-4), solved by
// Newton-FB to a natural residual of 3e-15. Lemke's first pass ends in a
// ray. With lcpx14's boxSolved the proximal passes ended in ErrNoSolution
// after 50 passes (they stalled at a natural residual of 3.5e-5, a basic
// variable left at −2.1e-5 by ratios 2 % apart taken as ties), failing the
// sweep's lemke jobs; the passes that stop moving (the shift εD(x − x̄)
// changing w by less than the tolerance; Rockafellar, Monotone operators
// and the proximal point algorithm, 1976: the iterates grow without bound
// exactly when there is no solution) end budget_exhausted with their x,
// and since the ratio test's ties follow the basic solution's measured
// error (TestLemkeIllConditionedBasis) Lemke converges here outright.
func TestLemkeProximalFixedPoint(t *testing.T) {
	p := loadProblem(t, "push_lemke_step28.json")
	var r Result
	err := (&Lemke{}).Solve(&r, p, Settings{})
	require.NoError(t, err, r.Reason)
	require.Contains(t, []Status{Converged, BudgetExhausted}, r.Status, r.Reason)
	t.Log(r.Status, r.Reason, r.Pivots)
	res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
	if r.Status == Converged {
		// the tolerance on w, 1e-10 (default) × max|b| (0.41) = 4.1e-11;
		// 1e-9 on the natural residual leaves a_ii ≈ 5 times that and rounding
		assert.Less(t, res, 1e-9)
	} else {
		// the residual where the old passes stalled, 3.5e-5, is Lemke's
		// pivoting accuracy on rows alike to 1e-4; the entries of b are 0.41
		assert.Less(t, res, 1e-4)
	}
	var nr Result
	require.NoError(t, (&Newton{Func: FischerBurmeister}).Solve(&nr, p, Settings{}))
	require.Equal(t, Converged, nr.Status)
	assert.Less(t, maxNaturalResidual(p, nr.X, p.Residual(nil, nr.X)), 1e-12) // the problem has a solution
}
