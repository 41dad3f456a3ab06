package lcp

import (
	"fmt"
	"math"
	"slices"
)

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
// Exactness. So every solve refines against the exact K (K̃ with the rows'
// diagonal −(c_i + shift·a_ii)), whose Schur complement on the rows is the
// face of A (+ shift·diag(A)) itself, in K's space (a product with K costs
// O(nnz K), far below A's O(nnz A) on a pyramid):
//
//	z₀ = K̃⁻¹ [−r; 0],   z_{k+1} = z_k + K̃⁻¹ ([−r; 0] − K z_k),
//
// until every row of K's residual is within refineTol of its Oettli–Prager
// scale, Σ_j |k_ij z_j| + |rhs_i| (the test a stale dual factor passes,
// sparseLDL.solve). A step that fails to halve the worst residual, or
// maxRefine steps, end the attempt: it stands if the worst residual is
// within kktStall (refinement's rounding floor on a regularized face);
// otherwise a stale factor is refactored and tried once more, a fresh one
// gives way to the dual factorization (BPP's fallback), and so does a
// stale factor of a larger shift (a regularized solve's factor kept for
// the unshifted face of the next Solve, see solve), without a
// factorization: the face is then taken for semidefinite. The
// contraction per step is about max_i δ_i/(λ_min(A_FF) + δ_i) plus the
// factor's rounding, so a positive definite face converges in one
// to three steps; on a singular face the iteration is the proximal point
// method of the metric δ·diag(A) from 0, which converges to the solution
// of least diag(A)-norm when r is in the range of A_FF (the solution the
// dual path's regularized mode approaches), and fails at once when it is
// not (redundant rigid contacts carrying position errors), where the dual
// factorization meets its pivot at rounding level and BPP enters
// regularized mode.
type kktLDL struct {
	src *KKT // the description K was built from
	// build: the rows' bodies and the body count of the last build that
	// made K̃'s pattern (resetKKT), whether this one refilled it, and the
	// running record index.
	layout       [][2]int32
	layoutBodies int
	refilling    bool
	rec          int
	k            Sparse    // K̃, rows then bodies
	f            sparseLDL // its factor (negBelow = n)
	n            int       // rows of the dual
	shift        float64   // the shift K̃ was built with
	facShift     float64   // the shift of the K̃ the factor was last computed for (not stale)
	crossFailed  bool      // the last solve failed with a factor of a larger shift (see solve)
	built        bool      // K̃ is that of src, shift and the current Solve's diagonal
	// verified: describes was asked this Solve; mismatch: it said no, or a
	// face solution's residual was not at rounding level (the rest of the
	// Solve takes the dual path).
	mismatch, verified bool
	sw                 float64   // the Solve's velocity scale max|b|
	probe, pa, pk      []float64 // describes: z, A z, the body-space product

	cx  []float64 // the rows' exact compliances c_i + shift·a_ii (K's)
	kst []State   // states of K̃'s rows: the dual's, then Free for the bodies
	rhs []float64 // [−r_F; 0] by K index (0 outside F)
	z   []float64 // the solution [y; u] by K index (0 outside F)
	res []float64 // the residual rhs − K z by K index

	// alike: each body's six rows of K̃ hold the same columns, for the
	// pattern alikeVer (bodyRowsAlike, when alikeSet).
	alike, alikeSet bool
	alikeVer        uint64

	mul BodyProduct // src's body-space product (mulAdd, describes)

	// structural: giveUp's, the face singular by its structure;
	// failed: the last solve gave up (its refinement did not converge);
	// dualRatio: tests' replacement of kktDualRatio when > 0 (< 0: skip
	// the dual always); exact*: the
	// dual's analysed flops and the pattern they belong to.
	failed     bool
	structural bool
	dualRatio  int
	exactA     *Sparse
	exactVer   uint64
	exactFlops int
	// overA at overVer: the dual's flops exceed overLimit (dualAbove's
	// ordering stopped there).
	overA     *Sparse
	overVer   uint64
	overLimit int

	// iterateW's choice (mulCheaper) for the patterns of A and K̃.
	mulA             *Sparse
	mulAVer, mulKVer uint64
	mulUse           bool

	// The choice of the path for the patterns of the last choice.
	dualA              *Sparse
	dualVer, kVer      uint64
	use                bool
	kFlops, dFlops     int
	refineIts, retries int // the last solve's refinement steps and refactorizations
	solves, fallbacks  int // successful solves and attempts given up, since the BPP was made
	factorizations     int // factor calls that recomputed rows of L, since the BPP was made
	attempts           int // attempt calls (a factor and its refinement), since the BPP was made
}

// kktDelta is the static regularization of a row whose c_i + shift·a_ii is
// smaller, relative to a_ii: small enough that refinement against A_FF
// contracts fast on a positive definite face (by about δ/λ_min), large
// enough that the quasi-definite factorization's growth (up to a_ii/δ)
// leaves the factor accurate to about √ε of rounding.
const kktDelta = 1e-8

// kktStall is the backward error, relative to the Oettli–Prager scale of
// each row of K (see residual), at which a refinement that stops
// converging is accepted: the floor of refinement in double precision on
// a regularized face (1e-13 to 3e-12 measured on the faces of a 210-brick
// pyramid's first step, against refineTol's 1e-13), and 1e9 times below
// the first step of a refinement that does not converge (an inconsistent
// singular face: about 0.5). BPP still checks the face's residual in A
// (kktCheck).
const kktStall = 1e-10

// kktMargin: the body-space factorization is chosen when its structural
// flops times kktMargin are below the dual's (its solves refine: a solve
// and a product with K per step, one step on the stepper's faces).
const kktMargin = 2

// build makes K̃ from kk for the current diagonal diag of A and shift.
// Its records (the Add calls of Sparse.resetKKT's list) are the same for
// the same rows and bodies, so the pattern (and the factor's ordering and
// symbolic analysis) stays from solve to solve: when kk's rows touch the
// same bodies as at the last build (layout), the values are written into
// the kept pattern (Sparse.Refill), and otherwise into the pattern
// resetKKT builds from the rows' bodies; either way the records' values
// go to their slots in order, the bits of those Add calls and Finish.
func (g *kktLDL) build(kk *KKT, diag []float64, shift float64) {
	n, nb := kk.N(), len(kk.Mass)
	if g.src != kk || !g.built {
		g.src = kk
		g.factorMass()
	}
	if shift > g.facShift {
		// Every row's diagonal grows by a factor up to ε/δ: a factor of a
		// K̃ of a smaller shift would not refine to this one (see
		// kktLDL). A factor of a larger shift stays, a stale factor (see
		// solve).
		g.f.valid = false
	}
	g.n, g.shift, g.built = n, shift, true
	g.f.negBelow = n
	// The records: one per row, 21 per mass block, 6 per used Jacobian
	// slot, which mul's MulCost (n + 72·bodies + 12·slots) has counted
	// when mul is prepared for kk.
	records := n + 21*nb
	if g.mul.k == kk {
		records += (g.mul.cost - n - 72*nb) / 2
	} else {
		for i := range kk.Body {
			for _, b := range kk.Body[i] {
				if b >= 0 {
					records += 6
				}
			}
		}
	}
	g.refilling = len(g.layout) == n && g.layoutBodies == nb && slices.Equal(g.layout, kk.Body) &&
		g.k.Refill(n+6*nb, records)
	if !g.refilling {
		// A new layout: its pattern straight from the rows' bodies,
		// opened for the values as a refill.
		if got := g.k.resetKKT(kk.Body, nb); got != records {
			panic(fmt.Sprintf("lcp: kktLDL.build: %d records counted, the pattern has %d", records, got))
		}
		g.layout = append(g.layout[:0], kk.Body...)
		g.layoutBodies = nb
	}
	g.cx = grow(g.cx, n)
	g.rec = 0
	for i := 0; i < n; i++ {
		c := kk.C[i] + shift*diag[i]
		g.cx[i] = c
		if floor := kktDelta * diag[i]; c < floor {
			c = floor
		}
		g.put(i, i, -c)
		bs, ji := &kk.Body[i], &kk.J[i]
		if b := bs[0]; b >= 0 {
			g.putJ(i, n+6*int(b), &ji[0])
		}
		if b := bs[1]; b >= 0 {
			g.putJ(i, n+6*int(b), &ji[1])
		}
	}
	for b := range kk.Mass {
		m := &kk.Mass[b]
		col := n + 6*b
		for r := 0; r < 6; r++ {
			for c := r; c < 6; c++ {
				g.put(col+r, col+c, m[6*r+c])
			}
		}
	}
	g.k.Refilled()
}

// put sets entry (i, j) = v of K̃, the rec-th of build's records,
// straight into its slot of the kept pattern (Sparse.SetRecord).
func (g *kktLDL) put(i, j int, v float64) {
	g.k.SetRecord(g.rec, v)
	g.rec++
}

// putJ sets the six entries (i, col+t) = j[t] of K̃, build's next six
// records, as put does, one call for the six.
func (g *kktLDL) putJ(i, col int, j *[6]float64) {
	k, r := &g.k, g.rec
	z := k.sumRecord(r, j[0]) + k.sumRecord(r+1, j[1]) + k.sumRecord(r+2, j[2]) +
		k.sumRecord(r+3, j[3]) + k.sumRecord(r+4, j[4]) + k.sumRecord(r+5, j[5])
	k.AddRecordTerms(z)
	g.rec = r + 6
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
	g.dualA, g.dualVer, g.kVer = a, a.version, g.k.version
	g.kFlops, g.dFlops = g.f.symFlops, dualFlopsBound(a)
	if g.use = kktMargin*g.kFlops < g.dFlops; !g.use {
		// The bound does not decide: the dual's own analysis does.
		g.dFlops = g.dualFlops(a, dual)
		g.use = kktMargin*g.kFlops < g.dFlops
	}
	return g.use
}

// dualFlops returns the structural flops of the dual's factorization (its
// ordering and symbolic analysis, kept by dual, run once per pattern).
func (g *kktLDL) dualFlops(a *Sparse, dual *sparseLDL) int {
	if g.exactA != a || g.exactVer != a.version {
		dual.count(a)
		g.exactA, g.exactVer, g.exactFlops = a, a.version, dual.symFlops
	}
	return g.exactFlops
}

// kktDualRatio: when the body-space solve of an unregularized face fails
// and the dual's factorization costs more than kktDualRatio body-space
// ones, BPP takes the failure for a semidefinite face and enters
// regularized mode without factoring the dual (see BPP).
const kktDualRatio = 32

// skipDual reports whether the last solve failed on a face whose dual
// factorization costs more than kktDualRatio of K̃'s (see kktDualRatio).
func (g *kktLDL) skipDual(a *Sparse, dual *sparseLDL) bool {
	if !g.failed || g.mismatch {
		return false
	}
	ratio := kktDualRatio
	switch {
	case g.dualRatio < 0:
		return true
	case g.dualRatio > 0:
		ratio = g.dualRatio
	}
	// The pattern's lower bound decides without the dual's ordering when
	// it is already above the limit; otherwise the ordering and its
	// column counts do (a 210-brick pyramid's step 1: bound 12.7 M, limit
	// 90 M, the dual's 213 M flops).
	limit := ratio * g.f.symFlops
	return dualFlopsBound(a) > limit || g.dualAbove(a, dual, limit)
}

// singular reports whether the last solve failed on a face that is
// singular by its structure (Problem.RedundantRigid of the face's states
// state): its dual factorization would only meet the rounding-level pivot
// that the failed refinement has already measured (a brick wall's
// warm-started solve that tests the unshifted face after
// semidefiniteInherit regularized ones: the stale regularized factor's
// refinement stalls at a contraction of 0.9999), so BPP enters
// regularized mode without it.
func (g *kktLDL) singular(p *Problem, state []State) bool {
	return g.failed && !g.mismatch && (g.structural || p.RedundantRigid(state))
}

// dualAbove reports whether the structural flops of the dual's
// factorization (dualFlops) exceed limit. Its ordering stops once its
// flops pass limit (the 210-brick pyramid's dual at step 1 passes 90 M
// of 213 M well before its last separators), and that answer is kept for
// the pattern.
func (g *kktLDL) dualAbove(a *Sparse, dual *sparseLDL, limit int) bool {
	if g.exactA == a && g.exactVer == a.version {
		return g.exactFlops > limit
	}
	if g.overA == a && g.overVer == a.version && limit <= g.overLimit {
		return true
	}
	if !dual.countUpTo(a, limit) {
		g.overA, g.overVer, g.overLimit = a, a.version, limit
		return true
	}
	return g.dualFlops(a, dual) > limit
}

// dualFlopsBound is a lower bound on the structural flops of the LDLᵀ of a
// in any order, from its pattern alone: L holds at least the m = (nnz − n)/2
// entries of A's strict lower triangle, in n columns, and Σ_j c_j(c_j − 1)/2
// over column counts summing to at least m is at least (m²/n − m)/2
// (Cauchy–Schwarz). It spares the dual's minimum degree ordering when K̃ is
// cheaper than even that (brick pyramids of 36 to 496 bricks and walls of
// 30 to 100: the bound is 2.6 to 10 times K̃'s flops).
func dualFlopsBound(a *Sparse) int {
	n := a.n
	if n == 0 {
		return 0
	}
	m := (a.NNZ() - n) / 2
	return max(0, (m*m/n-m)/2)
}

// solve sets x[i], for the rows i with state[i] == Free, to the solution of
// the face (A_FF + shift·diag(A)_FF) x_F = r_F (shift: K̃'s, see build), r
// given for all n rows (read on F only), and reports whether it got there
// (see kktLDL); x is left alone when it did not.
func (g *kktLDL) solve(state []State, r, x []float64) bool {
	n, nk := g.n, g.k.n
	g.kst = growStates(g.kst, nk)
	copy(g.kst, state[:n])
	for i := n; i < nk; i++ {
		g.kst[i] = Free
	}
	g.rhs = grow(g.rhs, nk)
	clear(g.rhs)
	for i, v := range state[:n] {
		if v == Free {
			g.rhs[i] = -r[i]
		}
	}
	if g.crossFailed && g.facShift > g.shift {
		// The last solve's factor of a shifted K̃ did not refine to its
		// face, and BPP stayed unshifted (the dual path solved that face):
		// a factorization of this K̃.
		g.f.valid = false
	}
	g.retries, g.failed, g.crossFailed, g.structural = 0, false, false, false
	for {
		if g.attempt() {
			break
		}
		if g.f.stale && g.retries == 0 && g.facShift > g.shift {
			// The factor of a shifted K̃ (a regularized solve's) did not
			// refine to the unshifted face: its error contracts by about
			// max_i ε a_ii/(λ_min + ε a_ii) a step, so the face's
			// smallest eigenvalue is at most about ε a_ii, and BPP takes it
			// for semidefinite (regularized mode) without a factorization
			// of the unshifted K̃, whose refinement would fail at once on
			// a singular face; the factor stays for the shifted K̃.
			g.fallbacks++
			g.failed, g.crossFailed = true, true
			return false
		}
		if g.f.stale && g.retries == 0 {
			g.f.valid = false // a stale factor that did not refine: refactor once
			g.retries++
			continue
		}
		g.f.valid = false
		g.fallbacks++
		g.failed = true
		return false
	}
	for i, v := range state[:n] {
		if v == Free {
			x[i] = g.z[i]
		}
	}
	g.solves++
	return true
}

// keepsShifted reports whether the factor is that of a K̃ of a larger
// shift than the current one (a regularized solve's, kept stale for the
// unshifted face of a later one, see solve).
func (g *kktLDL) keepsShifted() bool { return g.f.valid && g.facShift > g.shift }

// giveUp records a solve that BPP does not attempt: the unshifted face is
// singular by its structure (Problem.RedundantRigid), where the kept
// factor's refinement would stall as solve's cross-shift case describes;
// the factor stays for the shifted K̃.
func (g *kktLDL) giveUp() {
	g.retries, g.refineIts = 0, 0
	g.fallbacks++
	g.failed, g.crossFailed, g.structural = true, true, true
}

// attempt factors K̃ for the free set and refines z = [y; u] against K;
// it reports false when the factorization or the refinement failed.
func (g *kktLDL) attempt() bool {
	g.attempts++
	g.refineIts = 0
	if !g.f.factor(&g.k, g.kst) {
		return false
	}
	if g.f.recompute > 0 {
		g.factorizations++
	}
	if !g.f.stale {
		g.facShift = g.shift
	}
	nk := g.k.n
	g.z = grow(g.z, nk)
	g.res = grow(g.res, nk)
	clear(g.z)
	copy(g.res, g.rhs)
	prev := math.Inf(1)
	for it := 0; ; it++ {
		g.direct() // z += K̃⁻¹ res
		worst, ok := g.residual()
		if ok {
			// A stale factor that needed more than refineSlow steps is
			// refactored next time (a fresh one's steps are its δ's).
			g.f.refreshNext = g.f.refreshNext || (g.f.stale && it > refineSlow)
			return true
		}
		if !(worst < 0.5*prev) || it+1 >= maxRefine {
			// Stalled: at rounding level (a regularized face, whose
			// factor's growth up to 1/shift sets the floor) the solve
			// stands; otherwise it failed.
			return worst <= kktStall
		}
		prev = worst
		g.refineIts = it + 1
	}
}

// direct adds K̃⁻¹ res to z (the solve with the current factor), on the
// free positions of K̃: res goes straight to the factor's elimination
// order and back, the substitutions of solveDirect.
func (g *kktLDL) direct() {
	f := &g.f
	f.xp = grow(f.xp, len(f.perm))
	xp := f.xp
	clear(xp)
	ploc, res, z := f.ploc, g.res, g.z
	for _, i := range f.free {
		xp[ploc[i]] = res[i]
	}
	f.substitute(xp)
	for _, i := range f.free {
		z[i] += xp[ploc[i]]
	}
}

// residual sets res = rhs − K z on the free positions of K (K: K̃ with the
// rows' exact diagonal −(c_i + shift·a_ii)) and returns the largest
// |res_i| relative to its Oettli–Prager scale, Σ_j |k_ij z_j| + |rhs_i|,
// and whether all are within refineTol of it (the test of
// sparseLDL.residual, in K's space). Each row's two sums run over its
// columns in ascending order; rows are independent, so two constraint
// rows, or a body's six rows (which share their columns: see
// bodyRowsAlike), are summed side by side, the same bits as one at a time
// with more of the additions in flight.
func (g *kktLDL) residual() (float64, bool) {
	worst, ok := 0.0, true
	note := func(i int, s, sc float64) {
		g.res[i] = s
		if w, bad := opError(s, sc); bad {
			ok, worst = false, math.Max(worst, w)
		}
	}
	n, nk := g.n, g.k.n
	kst := g.kst
	for i := 0; i < n; i++ {
		if kst[i] != Free {
			continue
		}
		j := i + 1
		for j < n && kst[j] != Free {
			j++
		}
		if j < n && g.pairable(i, j) {
			s0, c0, s1, c1 := g.residualPair(i, j)
			note(i, s0, c0)
			note(j, s1, c1)
			i = j
			continue
		}
		s, sc := g.residualRow(i)
		note(i, s, sc)
	}
	if g.bodyRowsAlike() {
		for r := n; r+5 < nk; r += 6 {
			var s, sc [6]float64
			g.residualBody(r, &s, &sc)
			for q := range 6 {
				note(r+q, s[q], sc[q])
			}
		}
		return worst, ok
	}
	for i := n; i < nk; i++ {
		s, sc := g.residualRow(i)
		note(i, s, sc)
	}
	return worst, ok
}

// residualRow returns row i's residual rhs_i − (K z)_i and its
// Oettli–Prager scale (see residual).
func (g *kktLDL) residualRow(i int) (s, sc float64) {
	cols, vals := g.k.row(i)
	vals = vals[:len(cols)]
	z := g.z
	s, sc = g.rhs[i], math.Abs(g.rhs[i])
	if i < g.n && len(cols) > 0 && int(cols[0]) == i {
		// A constraint row of K̃ (build): its diagonal first (columns
		// ascend), K's exact −(c_i + shift·a_ii), then its Jacobian's
		// body columns, which are always free.
		p := -g.cx[i] * z[i]
		s -= p
		sc += math.Abs(p)
		cols, vals = cols[1:], vals[1:]
	}
	// The body columns of a constraint row; or a body row: the
	// constraint rows on the body, then its mass block's columns. A
	// constraint row outside F adds k_ij·0 = ±0 (z is zero outside F:
	// attempt, direct), which leaves s and sc as they are: a body row's
	// s starts at +0, and a sum that is zero is +0.
	for t, j := range cols {
		p := vals[t] * z[j]
		s -= p
		sc += math.Abs(p)
	}
	return s, sc
}

// pairable reports whether constraint rows i and j of K̃ both hold their
// diagonal first and as many columns (residualPair's case).
func (g *kktLDL) pairable(i, j int) bool {
	p := g.k.ptr
	return p[i+1]-p[i] == p[j+1]-p[j] && p[i+1] > p[i] &&
		int(g.k.col[p[i]]) == i && int(g.k.col[p[j]]) == j
}

// residualPair is residualRow for two pairable constraint rows i and j,
// side by side.
func (g *kktLDL) residualPair(i, j int) (s0, c0, s1, c1 float64) {
	ci, vi := g.k.row(i)
	cj, vj := g.k.row(j)
	m := len(ci)
	ci, cj, vi, vj = ci[1:m], cj[1:m], vi[1:m], vj[1:m]
	z := g.z
	s0, c0 = g.rhs[i], math.Abs(g.rhs[i])
	s1, c1 = g.rhs[j], math.Abs(g.rhs[j])
	p0, p1 := -g.cx[i]*z[i], -g.cx[j]*z[j]
	s0 -= p0
	c0 += math.Abs(p0)
	s1 -= p1
	c1 += math.Abs(p1)
	for t, a := range ci {
		p0 := vi[t] * z[a]
		p1 := vj[t] * z[cj[t]]
		s0 -= p0
		c0 += math.Abs(p0)
		s1 -= p1
		c1 += math.Abs(p1)
	}
	return s0, c0, s1, c1
}

// residualBody is residualRow for the six rows r … r+5 of one body, which
// share their columns (bodyRowsAlike), side by side.
func (g *kktLDL) residualBody(r int, s, sc *[6]float64) {
	p := g.k.ptr
	lo, hi := p[r], p[r+1]
	m := hi - lo
	cols := g.k.col[lo:hi]
	v0 := g.k.val[lo:hi]
	v1 := g.k.val[p[r+1] : p[r+1]+m]
	v2 := g.k.val[p[r+2] : p[r+2]+m]
	v3 := g.k.val[p[r+3] : p[r+3]+m]
	v4 := g.k.val[p[r+4] : p[r+4]+m]
	v5 := g.k.val[p[r+5] : p[r+5]+m]
	rhs := g.rhs[r : r+6 : r+6]
	s0, s1, s2, s3, s4, s5 := rhs[0], rhs[1], rhs[2], rhs[3], rhs[4], rhs[5]
	c0, c1, c2, c3, c4, c5 := math.Abs(s0), math.Abs(s1), math.Abs(s2), math.Abs(s3), math.Abs(s4), math.Abs(s5)
	z := g.z
	for t, j := range cols {
		zj := z[j]
		p0, p1, p2 := v0[t]*zj, v1[t]*zj, v2[t]*zj
		p3, p4, p5 := v3[t]*zj, v4[t]*zj, v5[t]*zj
		s0 -= p0
		c0 += math.Abs(p0)
		s1 -= p1
		c1 += math.Abs(p1)
		s2 -= p2
		c2 += math.Abs(p2)
		s3 -= p3
		c3 += math.Abs(p3)
		s4 -= p4
		c4 += math.Abs(p4)
		s5 -= p5
		c5 += math.Abs(p5)
	}
	*s = [6]float64{s0, s1, s2, s3, s4, s5}
	*sc = [6]float64{c0, c1, c2, c3, c4, c5}
}

// bodyRowsAlike reports whether each body's six rows of K̃ hold the same
// columns (build stores a body's whole mass block and all six entries of
// each Jacobian block on it, so they do unless a pattern says otherwise),
// checked once per pattern.
func (g *kktLDL) bodyRowsAlike() bool {
	if g.alikeSet && g.alikeVer == g.k.version {
		return g.alike
	}
	g.alikeSet, g.alikeVer, g.alike = true, g.k.version, true
	p, col := g.k.ptr, g.k.col
	if (g.k.n-g.n)%6 != 0 {
		g.alike = false
		return false
	}
	for r := g.n; r < g.k.n && g.alike; r += 6 {
		c0 := col[p[r]:p[r+1]]
		for q := 1; q < 6; q++ {
			if !slices.Equal(c0, col[p[r+q]:p[r+q+1]]) {
				g.alike = false
				break
			}
		}
	}
	return g.alike
}

// factorMass keeps the Cholesky factor of each of src's Mass blocks, for
// mulAdd: those BPP.Solve's validation computed (KKT.validate into mul,
// factorValidated), or new ones.
func (g *kktLDL) factorMass() {
	g.mul.factorValidated(g.src)
}

// cholesky6 sets l to the lower Cholesky factor of the symmetric positive
// definite 6×6 m (row-major; the strict upper triangle of l is left
// alone). It reports the first pivot, if any, at most pivotFloor times its
// diagonal entry.
func cholesky6(l, m *[36]float64) (int, bool) {
	for j := 0; j < 6; j++ {
		d := m[6*j+j]
		for t := 0; t < j; t++ {
			d -= l[6*j+t] * l[6*j+t]
		}
		if !(d > pivotFloor*math.Abs(m[6*j+j])) {
			return j, false
		}
		l[6*j+j] = math.Sqrt(d)
		for i := j + 1; i < 6; i++ {
			s := m[6*i+j]
			for t := 0; t < j; t++ {
				s -= l[6*i+t] * l[6*j+t]
			}
			l[6*i+j] = s / l[6*j+j]
		}
	}
	return 0, true
}

// mulAdd sets w = A x + b in body space, w = J (M⁻¹ (Jᵀ x)) + C x + b
// (BodyProduct.MulAdd: O(n + bodies) instead of A's O(nnz)), equal to
// p.Residual's to rounding when src describes A.
func (g *kktLDL) mulAdd(w, x, b []float64) {
	g.mul.MulAdd(w, x, b)
}

// iterateW sets the iterate's w = A x + b after a face solve through K̃:
// in body space (mulAdd) when that product costs under half of A's
// (mulCheaper), else by A's own product (p.Residual), so that small
// problems, whose A is cheap to multiply, keep the bits of the dual path's
// w. The two agree to rounding once describes has checked the KKT. It
// reports whether w is mulAdd's.
func (g *kktLDL) iterateW(p *Problem, a *Sparse, x, w []float64) bool {
	if g.mulCheaper(a) {
		g.mulAdd(w, x, p.B)
		return true
	}
	p.Residual(w, x)
	return false
}

// mulCheaper reports whether mulAdd's multiply-adds (12 per dynamic body a
// row touches, for Jᵀ x and J v, 72 per body for the two triangular solves
// with its mass block's Cholesky factor, one per row for C x) are under half
// of A's product (one per stored entry). Kept per pattern of A and K̃.
func (g *kktLDL) mulCheaper(a *Sparse) bool {
	if g.mulA == a && g.mulAVer == a.version && g.mulKVer == g.k.version {
		return g.mulUse
	}
	cost := g.src.MulCost()
	g.mulA, g.mulAVer, g.mulKVer = a, a.version, g.k.version
	g.mulUse = 2*cost < a.NNZ()
	return g.mulUse
}

// describes reports whether src describes a: A z and J M⁻¹ Jᵀ z + C z
// agree within kktCheck of max_i |(A z)_i| for the probe z_i = 1 + (i mod
// 7)/7 (deterministic, no zero entry). One product with A per Solve.
func (g *kktLDL) describes(a *Sparse) bool {
	n := g.n
	g.probe = grow(g.probe, n)
	g.pa = grow(g.pa, n)
	g.pk = grow(g.pk, n)
	zero := g.pk // mulAdd's b: zero, then its result
	clear(zero)
	for i := range g.probe {
		g.probe[i] = 1 + float64(i%7)/7
	}
	a.MulVecTo(g.pa, g.probe)
	g.mulAdd(g.pk, g.probe, zero)
	scale := 0.0
	for _, v := range g.pa {
		scale = math.Max(scale, math.Abs(v))
	}
	for i, v := range g.pa {
		if !(math.Abs(v-g.pk[i]) <= kktCheck*scale) {
			return false
		}
	}
	return true
}
