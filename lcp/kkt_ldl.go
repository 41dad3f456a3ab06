package lcp

import "math"

// kktLDL solves BPP's faces A_FF x_F = r_F (A_FF + ε diag(A)_FF in
// regularized mode) through the body-space description of a Problem
// (Problem.KKT), by factoring the padded quasi-definite matrix
//
//	K̃ = [ M    J_Fᵀ ]     (n rows first, then 6 columns per body)
//	    [ J_F  −C̃_F ]
//
// with the sparse LDLᵀ of the dual (sparseLDL on K̃ as an lcp.Sparse: the
// same minimum degree ordering, padded rows, partial refactorization, row
// modifications and stale factors), and solving K̃ [u; y] = [0; −r]: the
// Schur complement gives (J_F M⁻¹ J_Fᵀ + C̃_F) y = r.
//
// C̃. Row i's diagonal is −c̃_i with c̃_i = c_i + shift·a_ii (the regularized
// problem's A + ε diag(A) is exactly a quasi-definite K with that c̃), and
// c̃_i = kktDelta·a_ii where that is smaller (rigid rows, c_i = 0): K̃ is
// then quasi-definite, and its LDLᵀ exists in any symmetric order with
// positive pivots on the body velocities and negative ones on the rows
// (Vanderbei, "Symmetric quasidefinite matrices", SIAM J. Optim. 5(1),
// 1995), so the pivot test expects these signs (sparseLDL.negBelow). The
// factorization is stable only to the degree that c̃ is not tiny relative
// to J M⁻¹ Jᵀ (Gill, Saunders and Shinnerl, "On the stability of Cholesky
// factorization for symmetric quasidefinite systems", SIAM J. Matrix Anal.
// Appl. 17(1), 1996), and a regularized c̃ is not the problem's.
//
// Exactness. So every solve refines against the face of the dual A itself
// (its matrix–vector product, O(nnz(A_FF))):
//
//	y₀ = K̃⁻¹ r,   y_{k+1} = y_k + K̃⁻¹ (r − A_FF y_k),
//
// until every row's residual is within refineTol of its Oettli–Prager
// scale, the test a stale dual factor passes (sparseLDL.solve). A step that
// fails to halve the worst residual, or maxRefine steps, end the attempt:
// a stale factor is refactored and tried once more, a fresh one gives way
// to the dual factorization (BPP's fallback). The contraction per step is
// about max_i δ_i/(λ_min(A_FF) + δ_i) plus the factor's rounding, so a
// positive definite face converges in two or three steps and a singular
// one (redundant rigid contacts) fails fast, where the dual factorization
// meets its pivot at rounding level and BPP enters regularized mode.
type kktLDL struct {
	src   *KKT      // the description K was built from
	k     Sparse    // K̃, rows then bodies
	f     sparseLDL // its factor (negBelow = n)
	n     int       // rows of the dual
	shift float64   // the shift K̃ was built with
	built bool      // K̃ is that of src, shift and the current Solve's diagonal

	kst []State   // states of K̃'s rows: the dual's, then Free for the bodies
	kb  []float64 // right-hand side / solution in the order of f.free
	y   []float64 // the dual solution, all n rows (0 outside F)
	r   []float64 // the dual right-hand side, all n rows
	res []float64 // residual r − A_FF y

	// The choice of the path for the patterns of the last choice.
	dualA              *Sparse
	dualVer, kVer      uint64
	use                bool
	kFlops, dFlops     int
	refineIts, retries int // the last solve's refinement steps and refactorizations
	solves, fallbacks  int // successful solves and attempts given up, since the BPP was made
}

// kktDelta is the static regularization of a row whose c_i + shift·a_ii is
// smaller, relative to a_ii: small enough that refinement against A_FF
// contracts fast on a positive definite face (by about δ/λ_min), large
// enough that the quasi-definite factorization's growth (up to a_ii/δ)
// leaves the factor accurate to about √ε of rounding.
const kktDelta = 1e-8

// kktMargin: the body-space factorization is chosen when its structural
// flops times kktMargin are below the dual's (its solve refines, at about
// two solves and a product with A_FF per refinement step).
const kktMargin = 2

// build makes K̃ from kk for the current diagonal diag of A and shift.
// The calls to Sparse.Add are the same for the same rows and bodies, so the
// pattern (and the factor's ordering and symbolic analysis) stays from
// solve to solve.
func (g *kktLDL) build(kk *KKT, diag []float64, shift float64) {
	n, nb := kk.N(), len(kk.Mass)
	g.src, g.n, g.shift, g.built = kk, n, shift, true
	g.f.negBelow = n
	g.k.Reset(n + 6*nb)
	for i := 0; i < n; i++ {
		c := kk.C[i] + shift*diag[i]
		if floor := kktDelta * diag[i]; c < floor {
			c = floor
		}
		g.k.Add(i, i, -c)
		for s, b := range kk.Body[i] {
			if b < 0 {
				continue
			}
			col := n + 6*int(b)
			for t, v := range kk.J[i][s] {
				g.k.Add(i, col+t, v)
			}
		}
	}
	for b := range kk.Mass {
		m := &kk.Mass[b]
		col := n + 6*b
		for r := 0; r < 6; r++ {
			for c := r; c < 6; c++ {
				g.k.Add(col+r, col+c, m[6*r+c])
			}
		}
	}
	g.k.Finish()
}

// choose reports whether the face solves of the dual a should go through
// K̃ (built): its structural factorization flops, times kktMargin, below the
// dual's. Both analyses are kept per pattern, so the choice costs nothing
// while the patterns stay.
func (g *kktLDL) choose(a *Sparse, dual *sparseLDL) bool {
	if g.dualA == a && g.dualVer == a.version && g.kVer == g.k.version && len(g.f.perm) == g.k.n {
		return g.use
	}
	g.f.analyze(&g.k)
	dual.analyze(a)
	g.dualA, g.dualVer, g.kVer = a, a.version, g.k.version
	g.kFlops, g.dFlops = g.f.symFlops, dual.symFlops
	g.use = kktMargin*g.kFlops < g.dFlops
	return g.use
}

// solve sets x[i], for the rows i with state[i] == Free, to the solution of
// the face (A_FF + shift·diag(A)_FF) x_F = r_F, r given for all n rows (read
// on F only), and reports whether it got there (see kktLDL); x is left
// alone when it did not. diag is the diagonal of A.
func (g *kktLDL) solve(a *Sparse, state []State, r, x []float64) bool {
	n, nk := g.n, g.k.n
	g.kst = growStates(g.kst, nk)
	copy(g.kst, state[:n])
	for i := n; i < nk; i++ {
		g.kst[i] = Free
	}
	g.r = grow(g.r, n)
	for i, v := range state[:n] {
		g.r[i] = 0
		if v == Free {
			g.r[i] = r[i]
		}
	}
	g.retries = 0
	for {
		if g.attempt(a, state) {
			break
		}
		if g.f.stale && g.retries == 0 {
			g.f.valid = false // a stale factor that did not refine: refactor once
			g.retries++
			continue
		}
		g.f.valid = false
		g.fallbacks++
		return false
	}
	for i, v := range state[:n] {
		if v == Free {
			x[i] = g.y[i]
		}
	}
	g.solves++
	return true
}

// attempt factors K̃ for the free set and refines y against A_FF; it
// reports false when the factorization or the refinement failed.
func (g *kktLDL) attempt(a *Sparse, state []State) bool {
	g.refineIts = 0
	if !g.f.factor(&g.k, g.kst) {
		return false
	}
	n := g.n
	g.y = grow(g.y, n)
	g.res = grow(g.res, n)
	copy(g.res, g.r)
	clear(g.y)
	prev := math.Inf(1)
	for it := 0; ; it++ {
		g.direct(g.res) // y += K̃⁻¹ res
		worst, ok := g.residual(a, state)
		if ok {
			// A fresh factor needing more than refineSlow steps stays as
			// it is (its δ is the cause); a stale one is refactored next.
			g.f.refreshNext = g.f.refreshNext || (g.f.stale && it > refineSlow)
			return true
		}
		if !(worst < 0.5*prev) || it+1 >= maxRefine {
			return false
		}
		prev = worst
		g.refineIts = it + 1
	}
}

// direct adds to y the dual part of K̃⁻¹ [0; −res] (the solve with the
// current factor).
func (g *kktLDL) direct(res []float64) {
	n := g.n
	free := g.f.free
	g.kb = grow(g.kb, len(free))
	kb := g.kb
	for k, i := range free {
		kb[k] = 0
		if int(i) < n {
			kb[k] = -res[i]
		}
	}
	g.f.solveDirect(kb)
	for k, i := range free {
		if int(i) < n {
			g.y[i] += kb[k]
		}
	}
}

// residual sets res = r − (A_FF + shift·diag) y on the free rows (0 on the
// others) and returns the largest |res_i| relative to its Oettli–Prager
// scale, Σ_j |ã_ij y_j| + |r_i|, and whether all are within refineTol of it
// (the test of sparseLDL.residual).
func (g *kktLDL) residual(a *Sparse, state []State) (float64, bool) {
	worst, ok := 0.0, true
	for i, v := range state[:g.n] {
		if v != Free {
			g.res[i] = 0
			continue
		}
		cols, vals := a.row(i)
		s, sc := g.r[i], math.Abs(g.r[i])
		for t, j := range cols {
			if state[j] != Free {
				continue
			}
			av := vals[t]
			if int(j) == i {
				av *= 1 + g.shift
			}
			p := av * g.y[j]
			s -= p
			sc += math.Abs(p)
		}
		g.res[i] = s
		if e := math.Abs(s); e > refineTol*sc {
			ok = false
			if sc > 0 {
				worst = math.Max(worst, e/sc)
			} else {
				worst = math.Inf(1)
			}
		}
	}
	return worst, ok
}
