package lcp

import (
	"fmt"
	"math"
)

// PGS is projected Gauss–Seidel with box projection:
//
//	x_i ← clamp(x_i − ω (A x + b)_i / a_ii, l_i, u_i),   i = 1…n,
//
// using the newest x in each row (Gauss–Seidel), with relaxation ω
// (Relaxation; 0 means 1, plain Gauss–Seidel; 1 < ω < 2 over-relaxes).
// One iteration is one sweep over all rows; w = A x + b is computed after
// each sweep when Settings.Observer is set (so every reported iterate
// satisfies Eq. (2)) and otherwise once, for the returned iterate. It stops when the largest change of a
// sweep, measured as a velocity a_ii·|Δx_i|, is below Tolerance times the
// velocity scale max|b_i| (see Settings.Tolerance), or when the budget runs out.
//
// A row with equal bounds l_i = u_i is held there without its product
// with A (the clamp's answer whatever A x + b is): the friction rows a
// stepper pins at zero cost nothing.
//
// PGS converges for symmetric positive definite A (it is block coordinate
// descent on ½xᵀAx + bᵀx over the box) but may need many sweeps when the
// rows are strongly coupled. Rows with a_ii ≤ 0 cannot be relaxed and end
// the solve with an error wrapping ErrSingular.
//
// The default budget (MaxIterations = 0) is 1000 sweeps. Warm start: X0
// (projected onto the box).
//
// Body space. With BodySpace set and a Problem whose KKT describes A by
// construction (Problem.KKTAssembled), the sweeps run on the body
// velocities v = M⁻¹ Jᵀ x instead of A's rows (the sequential impulses of
// Catto, "Iterative dynamics with temporal coherence", GDC 2005): row i's
// residual is (A x + b)_i = J_i v + c_i x_i + b_i, and a change Δ of x_i
// moves v by Δ M⁻¹ J_iᵀ, kept per row. A sweep then costs O(rows) (about
// 30 multiply-adds per relaxed row touching two bodies) instead of
// O(nnz A), after O(72 (rows + bodies)) to set up, and aᵢᵢ is
// J_i M⁻¹ J_iᵀ + c_i. It is the same iteration on the same MLCP, so it
// has the same fixed points; its iterates agree with A's sweeps to
// rounding, not bit for bit, and so does w = J v + C x + b. Rows with
// equal bounds cost nothing and need no positive aᵢᵢ there. Without a
// matching KKT the sweeps use A. The workspace is kept between solves, so
// a PGS with BodySpace is not safe for concurrent use.
type PGS struct {
	Relaxation float64
	// BodySpace sweeps in body space when the problem allows it (see PGS).
	BodySpace bool

	body pgsBody // BodySpace's workspace
}

var _ Solver = (*PGS)(nil)

// Name returns "pgs".
func (s *PGS) Name() string { return "pgs" }

// Solve runs projected Gauss–Seidel on p. See PGS.
func (s *PGS) Solve(dst *Result, p *Problem, set Settings) error {
	if err := p.Validate(); err != nil {
		return err
	}
	n := p.N()
	if set.X0 != nil && len(set.X0) != n {
		return fmt.Errorf("settings: X0 has %d entries, problem has %d rows", len(set.X0), n)
	}
	omega := s.Relaxation
	if omega == 0 {
		omega = 1
	}
	if !(omega > 0 && omega < 2) {
		return fmt.Errorf("pgs: Relaxation must be in (0, 2), got %v", omega)
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
	budget := set.MaxIterations
	if budget <= 0 {
		budget = 1000
	}
	tol := tolOrDefault(set.Tolerance)
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	if sw == 0 {
		sw = 1
	}
	var sweeps pgsSweeper = aSweeps{}
	if s.BodySpace && s.body.prepare(p, x) {
		sweeps = &s.body
	}
	if reason := sweeps.diagonal(p); reason != "" {
		sweeps.residual(p, w, x)
		s.states(dst, p)
		dst.Status = Failed
		dst.Reason = reason + ": PGS needs a positive diagonal"
		return fmt.Errorf("pgs: %s: %w", dst.Reason, ErrSingular)
	}
	for it := 1; ; it++ {
		if err := set.canceled(dst, "pgs"); err != nil {
			sweeps.residual(p, w, x)
			s.states(dst, p)
			return err
		}
		change := sweeps.sweep(p, x, omega)
		dst.Iterations = it
		if set.Observer != nil {
			// w = A x + b only for an observer: nothing in the sweeps reads it.
			sweeps.residual(p, w, x)
			set.observe(Iterate{Iter: it, X: x, W: w, SatisfiesEq2: true})
		}
		if change <= tol*sw {
			dst.Status = Converged
			break
		}
		if it >= budget {
			dst.Status = BudgetExhausted
			break
		}
	}
	if set.Observer == nil {
		sweeps.residual(p, w, x)
	}
	s.states(dst, p)
	return nil
}

// pgsSweeper is one way of running PGS's sweeps: on A's rows (aSweeps) or
// in body space (pgsBody).
type pgsSweeper interface {
	// diagonal names the first relaxed row whose aᵢᵢ is not positive,
	// or returns "".
	diagonal(p *Problem) string
	// sweep runs one Gauss–Seidel sweep on x and returns its largest
	// change aᵢᵢ·|Δx_i|.
	sweep(p *Problem, x []float64, omega float64) float64
	// residual sets w = A x + b.
	residual(p *Problem, w, x []float64)
}

// aSweeps sweeps A's rows.
type aSweeps struct{}

func (aSweeps) diagonal(p *Problem) string {
	for i := 0; i < p.N(); i++ {
		if a := p.A.At(i, i); !(a > 0) {
			return fmt.Sprintf("A[%d][%d] = %v", i, i, a)
		}
	}
	return ""
}

func (aSweeps) sweep(p *Problem, x []float64, omega float64) float64 {
	change := 0.0
	for i := range x {
		if p.Lo[i] == p.Hi[i] {
			// A pinned row: its update clamps to the bound whatever
			// A x + b is, so its product with A is skipped.
			x[i] = p.Lo[i]
			continue
		}
		a := p.A.At(i, i)
		r := p.A.RowDot(i, x) + p.B[i]
		nx := clamp(x[i]-omega*r/a, p.Lo[i], p.Hi[i])
		change = math.Max(change, a*math.Abs(nx-x[i]))
		x[i] = nx
	}
	return change
}

func (aSweeps) residual(p *Problem, w, x []float64) { p.Residual(w, x) }

// states derives index sets from the final x.
func (s *PGS) states(dst *Result, p *Problem) { statesFromX(dst.States, p, dst.X) }

// statesFromX sets st from x: a row at (or beyond) a bound is at that
// bound, otherwise free.
func statesFromX(st []State, p *Problem, x []float64) {
	for i, v := range x {
		switch {
		case v <= p.Lo[i]:
			st[i] = AtLower
		case v >= p.Hi[i]:
			st[i] = AtUpper
		default:
			st[i] = Free
		}
	}
}

// fixFromStates sets x to the bound of each row at a bound and 0 for free
// rows.
func fixFromStates(x []float64, p *Problem, st []State) {
	for i, v := range st {
		switch v {
		case AtLower:
			x[i] = p.Lo[i]
		case AtUpper:
			x[i] = p.Hi[i]
		default:
			x[i] = 0
		}
	}
}

func clamp(x, l, u float64) float64 {
	if x < l {
		return l
	}
	if x > u {
		return u
	}
	return x
}

// pgsBody is the workspace of PGS's sweeps in body space: the Cholesky
// factor of each body's mass block, the body velocities v = M⁻¹ Jᵀ x, and
// per relaxed row (l_i < u_i) M⁻¹ J_iᵀ on each of its bodies and aᵢᵢ.
type pgsBody struct {
	k   *KKT
	mul BodyProduct // its chol: the mass blocks' Cholesky factors
	v   [][6]float64
	g   [][2][6]float64
	d   []float64
	// rel lists the relaxed rows (l_i < u_i) in order, the only rows a
	// sweep visits: a stepper's pre-solve pins two of every three rows
	// (the new contacts' friction rows).
	rel []int32
}

// prepare sets up the body-space sweeps for p from x: false, using A
// instead, when p has no KKT that describes A by construction or a mass
// block is not positive definite.
func (b *pgsBody) prepare(p *Problem, x []float64) bool {
	k := p.KKT
	b.k = nil
	if k == nil || !p.KKTAssembled || k.N() != p.N() {
		return false
	}
	if !b.mul.Factor(k) {
		return false
	}
	nb, n := len(k.Mass), k.N()
	b.v = growSlice(b.v, nb)
	b.g = growSlice(b.g, n)
	b.d = grow(b.d, n)
	b.rel = b.rel[:0]
	for i, bs := range k.Body {
		if p.Lo[i] == p.Hi[i] {
			continue
		}
		b.rel = append(b.rel, int32(i))
		d := k.C[i]
		for s, bd := range bs {
			if bd < 0 {
				continue
			}
			g := &b.g[i][s]
			*g = k.J[i][s]
			solve6(&b.mul.chol[bd], g)
			d += dot6(&k.J[i][s], g)
		}
		b.d[i] = d
	}
	b.k = k
	b.velocities(x)
	return true
}

// growSlice returns s with length n, reallocated only when it is too short.
func growSlice[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// solve6 overwrites v with M⁻¹ v for M = L Lᵀ, l the lower factor.
func solve6(l *[36]float64, v *[6]float64) {
	for r := 0; r < 6; r++ { // L y = v
		s := v[r]
		for t := 0; t < r; t++ {
			s -= l[6*r+t] * v[t]
		}
		v[r] = s / l[6*r+r]
	}
	for r := 5; r >= 0; r-- { // Lᵀ v = y
		s := v[r]
		for t := r + 1; t < 6; t++ {
			s -= l[6*t+r] * v[t]
		}
		v[r] = s / l[6*r+r]
	}
}

// velocities sets v = M⁻¹ Jᵀ x.
func (b *pgsBody) velocities(x []float64) {
	k := b.k
	clear(b.v)
	for i, bs := range k.Body {
		xi := x[i]
		if xi == 0 {
			continue
		}
		for s, bd := range bs {
			if bd < 0 {
				continue
			}
			addScaled6(&b.v[bd], &k.J[i][s], xi)
		}
	}
	for bd := range b.v {
		solve6(&b.mul.chol[bd], &b.v[bd])
	}
}

// rowW returns row i's J_i v + c_i x_i + b_i.
func (b *pgsBody) rowW(i int, x, rhs []float64) float64 {
	k := b.k
	s := k.C[i]*x[i] + rhs[i]
	for t, bd := range k.Body[i] {
		if bd < 0 {
			continue
		}
		s += dot6(&k.J[i][t], &b.v[bd])
	}
	return s
}

// residual sets w = J v + C x + b, A x + b to rounding.
func (b *pgsBody) residual(p *Problem, w, x []float64) {
	for i := range w {
		w[i] = b.rowW(i, x, p.B)
	}
}

// diagonal reports the first relaxed row whose J M⁻¹ Jᵀ + C diagonal is
// not positive: rows with equal bounds are never relaxed and need none.
func (b *pgsBody) diagonal(p *Problem) string {
	for i, d := range b.d {
		if p.Lo[i] != p.Hi[i] && !(d > 0) {
			return fmt.Sprintf("row %d: J M⁻¹ Jᵀ + C has diagonal %v", i, d)
		}
	}
	return ""
}

// sweep is one Gauss–Seidel sweep in body space (see PGS): each relaxed
// row's residual from v, and v moved by the row's change. Rows with equal
// bounds are not visited (rel): x_i is already at its bound. The row's
// residual is rowW's, term by term in the same order (the same bits),
// with the row's slices hoisted out of the loop.
func (b *pgsBody) sweep(p *Problem, x []float64, omega float64) float64 {
	k := b.k
	n := len(x)
	body, jac, g, cs := k.Body[:n], k.J[:n], b.g[:n], k.C[:n]
	lo, hi, rhs, d := p.Lo[:n], p.Hi[:n], p.B[:n], b.d[:n]
	v := b.v
	change := 0.0
	for _, r := range b.rel {
		i := int(r)
		bs, ji := body[i], &jac[i]
		xi := x[i]
		w := cs[i]*xi + rhs[i]
		if bs[0] >= 0 {
			w += dot6(&ji[0], &v[bs[0]])
		}
		if bs[1] >= 0 {
			w += dot6(&ji[1], &v[bs[1]])
		}
		a := d[i]
		nx := clamp(xi-omega*w/a, lo[i], hi[i])
		dx := nx - xi
		if dx == 0 {
			continue
		}
		change = math.Max(change, a*math.Abs(dx))
		x[i] = nx
		gi := &g[i]
		if bs[0] >= 0 {
			addScaled6(&v[bs[0]], &gi[0], dx)
		}
		if bs[1] >= 0 {
			addScaled6(&v[bs[1]], &gi[1], dx)
		}
	}
	return change
}
