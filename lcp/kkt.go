package lcp

import (
	"fmt"
	"math"
)

// KKT describes a Problem's lead matrix in body space: with M the block
// diagonal of the 6×6 blocks Mass, J the n × 6·len(Mass) matrix whose row
// i holds J[i][s] in the columns of body Body[i][s] (s = 0, 1), and C the
// diagonal of the compliances C,
//
//	A = J M⁻¹ Jᵀ + C,
//
// to rounding: the Problem's A is the lead matrix the solvers answer for;
// KKT is a second description of it that a solver may factor instead, as
// the quasi-definite matrix
//
//	K = [ M   Jᵀ ]
//	    [ J  −C  ],
//
// whose Schur complement on the rows is −A (Vanderbei, "Symmetric
// quasidefinite matrices", SIAM J. Optim. 5(1), 1995). On the mass matrix
// and Jacobian of a multibody system K is much sparser than A when bodies
// carry many rows (a brick pyramid: each brick touches tens of contact
// rows, which A couples pairwise and K through the brick's six velocities).
// BPP uses it (see BPP): it refines each face solution against the exact K
// and checks once per Solve that KKT describes A (A z against J M⁻¹ Jᵀ z +
// C z for a probe z, within 1e-8 of the largest entry), so a KKT that
// matches A to rounding gives A's answer to rounding, and one that does not
// leaves the Solve to the factorization of A. The other solvers ignore it.
//
// Bodies are the dynamic bodies only: a static or kinematic body has
// infinite mass and no columns (its Jacobian block is left out of J).
// Velocities are ordered [v ω] per body. A row touching one dynamic body
// has Body[i][1] = −1; one touching none (both −1) has only its compliance.
//
// Islands. (*KKT).SubTo extracts the KKT of a subset of rows (the rows of
// an island, with the bodies they touch renumbered), matching the
// sub-problem whose A is the principal submatrix of those rows.
type KKT struct {
	// Mass holds each body's 6×6 mass matrix M_b (kg, kg·m² and kg·m),
	// row-major, symmetric positive definite: diag(m I₃, I_world) for a
	// rigid body with its velocities [v ω] in world axes.
	Mass [][36]float64
	// Body holds, per row, the indices in Mass of the (at most two) bodies
	// its Jacobian touches, −1 for an unused slot.
	Body [][2]int32
	// J holds, per row, its Jacobian blocks on Body[i][0] and Body[i][1]
	// (the block of an unused slot is ignored).
	J [][2][6]float64
	// C holds, per row, the compliance c_i ≥ 0 on A's diagonal.
	C []float64

	remap []int32 // SubTo: the new index of each body of the source, or −1
}

// N returns the number of rows.
func (k *KKT) N() int { return len(k.C) }

// Validate reports the first inconsistency of k with a problem of n rows:
// lengths of Body, J and C that differ from n, a body index outside
// [−1, len(Mass)) or a row naming one body twice, a Mass block that is not
// finite, not symmetric or not positive definite, a non-finite Jacobian
// entry, a negative or non-finite compliance. The error names the field,
// the index and the value.
func (k *KKT) Validate(n int) error { return k.validate(n, nil) }

// validate is Validate; with mul, each Mass block is checked into mul's
// factors (checkMassBlockTo), and a k that passes is marked validated in
// mul, so that the next factorValidated for k, in the same Solve (k
// unchanged), keeps those factors instead of computing them again.
func (k *KKT) validate(n int, mul *BodyProduct) error {
	if mul != nil {
		mul.validated, mul.k = nil, nil
	}
	if len(k.Body) != n {
		return fmt.Errorf("KKT.Body: has %d rows, the problem %d", len(k.Body), n)
	}
	if len(k.J) != n {
		return fmt.Errorf("KKT.J: has %d rows, the problem %d", len(k.J), n)
	}
	if len(k.C) != n {
		return fmt.Errorf("KKT.C: has %d rows, the problem %d", len(k.C), n)
	}
	var l [36]float64
	if mul != nil {
		mul.chol = growSlice(mul.chol, len(k.Mass))
	}
	for b := range k.Mass {
		lb := &l
		if mul != nil {
			lb = &mul.chol[b]
		}
		if err := checkMassBlockTo(lb, &k.Mass[b]); err != nil {
			return fmt.Errorf("KKT.Mass[%d]: %w", b, err)
		}
	}
	used, ok := k.rowsValid()
	if !ok {
		return k.rowError()
	}
	if mul != nil {
		mul.validated, mul.validCost = k, k.N()+72*len(k.Mass)+12*used
	}
	return nil
}

// rowsValid reports whether every row passes rowError's tests, in one
// pass without an error path: body indices in [−1, len(Mass)) and not one
// body twice, compliances finite and ≥ 0, and the used Jacobian blocks
// finite (their entries times 0 summed: 0 exactly when all are finite,
// NaN once one is not). It counts the used (body ≥ 0) slots, MulCost's.
func (k *KKT) rowsValid() (used int, ok bool) {
	nb := uint32(len(k.Mass))
	body := k.Body
	jac, cs := k.J[:len(body)], k.C[:len(body)]
	z := 0.0
	for i, bs := range body {
		b0, b1 := bs[0], bs[1]
		if uint32(b0+1) > nb || uint32(b1+1) > nb || (b0 >= 0 && b0 == b1) {
			return 0, false
		}
		if c := cs[i]; !(c >= 0 && c <= math.MaxFloat64) {
			return 0, false
		}
		ji := &jac[i]
		if b0 >= 0 {
			j := &ji[0]
			z += 0*j[0] + 0*j[1] + 0*j[2] + 0*j[3] + 0*j[4] + 0*j[5]
			used++
		}
		if b1 >= 0 {
			j := &ji[1]
			z += 0*j[0] + 0*j[1] + 0*j[2] + 0*j[3] + 0*j[4] + 0*j[5]
			used++
		}
	}
	return used, z == 0
}

// rowError returns the first row inconsistency of a k whose Body, J and C
// have n rows, in the order Validate documents, or nil.
func (k *KKT) rowError() error {
	nb := int32(len(k.Mass))
	for i := range k.Body {
		bs := k.Body[i]
		for s, b := range bs {
			if b < -1 || b >= nb {
				return fmt.Errorf("KKT.Body[%d][%d]: %d is not a body index in [-1, %d)", i, s, b, nb)
			}
			if b < 0 {
				continue
			}
			for c, v := range k.J[i][s] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("KKT.J[%d][%d][%d]: must be finite, got %v", i, s, c, v)
				}
			}
		}
		if bs[0] >= 0 && bs[0] == bs[1] {
			return fmt.Errorf("KKT.Body[%d]: names body %d twice", i, bs[0])
		}
		if c := k.C[i]; !(c >= 0) || math.IsInf(c, 1) {
			return fmt.Errorf("KKT.C[%d]: must be finite and ≥ 0, got %v", i, c)
		}
	}
	return nil
}

// checkMassBlockTo reports a 6×6 block that is not finite, not exactly
// symmetric or not positive definite (its Cholesky factorization meets a
// pivot ≤ pivotFloor times its diagonal entry), leaving in l the lower
// Cholesky factor of a block that passes (cholesky6).
func checkMassBlockTo(l, m *[36]float64) error {
	z := 0.0
	for _, v := range m {
		z += 0 * v // 0 for finite entries, NaN once one is not
	}
	if z != 0 {
		for p, v := range m {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("entry (%d, %d) must be finite, got %v", p/6, p%6, v)
			}
		}
	}
	for r := 0; r < 6; r++ {
		for c := r + 1; c < 6; c++ {
			if m[6*r+c] != m[6*c+r] {
				return fmt.Errorf("not symmetric: entry (%d, %d) = %v, (%d, %d) = %v", r, c, m[6*r+c], c, r, m[6*c+r])
			}
		}
	}
	if j, ok := cholesky6(l, m); !ok {
		return fmt.Errorf("not positive definite (Cholesky pivot %d)", j)
	}
	return nil
}

// SubTo sets dst to the KKT of the rows listed (in that order): row r of
// dst is row rows[r] of k, and the bodies they touch are renumbered in the
// order of their first appearance in rows, so that dst describes the
// principal submatrix A[rows, rows] of k's A (an island's sub-problem
// taken from the world's by the same row list). dst's slices are reused:
// with a dst kept from call to call it does not allocate once they have
// grown. It reports a row index outside [0, N()). k is only read (dst
// holds the workspace), so several goroutines may extract from one k into
// their own dst.
func (k *KKT) SubTo(dst *KKT, rows []int32) error {
	n := k.N()
	for r, i := range rows {
		if i < 0 || int(i) >= n {
			return fmt.Errorf("KKT.SubTo: rows[%d] = %d is not a row in [0, %d)", r, i, n)
		}
	}
	if dst == k {
		return fmt.Errorf("KKT.SubTo: dst is the source")
	}
	nb := len(k.Mass)
	dst.remap = growInt32(dst.remap, nb)
	for b := range dst.remap {
		dst.remap[b] = -1
	}
	m := len(rows)
	dst.Body = growPairs(dst.Body, m)
	dst.J = growJac(dst.J, m)
	dst.C = grow(dst.C, m)
	dst.Mass = dst.Mass[:0]
	for r, i := range rows {
		dst.C[r] = k.C[i]
		dst.J[r] = k.J[i]
		for s, b := range k.Body[i] {
			if b < 0 {
				dst.Body[r][s] = -1
				continue
			}
			if dst.remap[b] < 0 {
				dst.remap[b] = int32(len(dst.Mass))
				dst.Mass = append(dst.Mass, k.Mass[b])
			}
			dst.Body[r][s] = dst.remap[b]
		}
	}
	return nil
}

func growPairs(s [][2]int32, n int) [][2]int32 {
	if cap(s) < n {
		return make([][2]int32, n, n+n/2)
	}
	return s[:n]
}

func growJac(s [][2][6]float64, n int) [][2][6]float64 {
	if cap(s) < n {
		return make([][2][6]float64, n, n+n/2)
	}
	return s[:n]
}

// RedundantRigid reports whether the problem's first face is singular by
// its structure: among the rows that start free (start[i] == Free, or
// unbounded on both sides) with a lower bound below the upper one and no
// compliance (KKT.C[i] == 0), a run of consecutive rows on the same bodies
// (the rows of one contact manifold or joint) has linearly dependent
// Jacobians. Their principal block of J M⁻¹ Jᵀ is then singular, and so
// is A_FF, which contains it (a null vector of a principal block of a
// positive semidefinite matrix, padded with zeros, is one of the whole):
// a box resting on four coplanar points has four normal rows of rank 3,
// and with box friction twelve rows of rank 6. Dependence is judged by
// Gram–Schmidt on each row's Jacobian (both bodies' blocks): a row whose
// component orthogonal to the run's earlier rows is below
// redundantRigidTol of its length. It reports false without a KKT or
// when start is shorter than the problem; it does not validate p.
//
// BPP's regularized mode exists for such faces (see BPP); a caller that
// knows it is coming says so with Settings.Semidefinite, which spares BPP
// the factorization that would find the rounding-level pivot first.
func (p *Problem) RedundantRigid(start []State) bool {
	k := p.KKT
	n := p.N()
	if k == nil || k.N() != n || len(start) < n || len(p.Lo) < n || len(p.Hi) < n {
		return false
	}
	var basis [12][12]float64
	m := 0 // basis vectors of the current run
	run := [2]int32{-2, -2}
	for i := 0; i < n; i++ {
		if k.Body[i] != run {
			run, m = k.Body[i], 0
		}
		lo, hi := p.Lo[i], p.Hi[i]
		free := start[i] == Free || (math.IsInf(lo, -1) && math.IsInf(hi, 1))
		if !free || !(lo < hi) || k.C[i] != 0 || run[0] < 0 {
			continue
		}
		var v [12]float64
		copy(v[:6], k.J[i][0][:])
		if run[1] >= 0 {
			copy(v[6:], k.J[i][1][:])
		}
		size := norm12(&v)
		if size == 0 {
			continue // a row of no body velocity: its pivot is its compliance alone
		}
		for pass := 0; pass < 2; pass++ { // twice is enough (Giraud, Langou and Rozložník, "The loss of orthogonality in the Gram–Schmidt orthogonalization process", 2005)
			for b := 0; b < m; b++ {
				d := 0.0
				for c := range v {
					d += basis[b][c] * v[c]
				}
				for c := range v {
					v[c] -= d * basis[b][c]
				}
			}
		}
		r := norm12(&v)
		if r <= redundantRigidTol*size {
			return true
		}
		if m == len(basis) {
			continue // twelve independent rows span the space: the next one is dependent
		}
		for c := range v {
			basis[m][c] = v[c] / r
		}
		m++
	}
	return false
}

// redundantRigidTol is the relative size of a row's Jacobian component
// outside its run's earlier rows below which RedundantRigid counts it
// dependent: its pivot in J M⁻¹ Jᵀ is then about 10⁻¹² of its diagonal,
// far below kktLDL's static regularization kktDelta = 10⁻⁸, so the
// factorization meets it at rounding level.
const redundantRigidTol = 1e-6

// norm12 returns the Euclidean norm of v.
func norm12(v *[12]float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// BodyProduct multiplies by the lead matrix of a KKT in body space,
// w = J (M⁻¹ (Jᵀ x)) + C x + b: one pass over the rows for Jᵀ x, two
// triangular solves with each mass block's Cholesky factor, one pass for
// J v and C x. It costs MulCost multiply-adds, O(rows + bodies), where a
// product with A costs one per stored entry, O(nnz A): on a structure
// whose bodies carry many rows (a brick wall) A couples each body's rows
// pairwise and the body-space product is the cheaper. BPP computes its
// iterates' w with it on such problems (the same code, so the same bits
// for the same x). The zero value is ready; after the first Factor for a
// size it allocates nothing. A BodyProduct is not safe for concurrent use.
type BodyProduct struct {
	k    *KKT
	chol [][36]float64 // the Cholesky factors of k.Mass
	// validated: the KKT whose Mass blocks KKT.validate last checked into
	// chol, nil once anything else wrote chol (factorValidated), and its
	// MulCost, counted by the validation.
	validated *KKT
	validCost int
	gv        [][6]float64 // Jᵀ x, then M⁻¹ Jᵀ x, per body
	cost      int
}

// Factor prepares the product for k: the Cholesky factor of each Mass
// block (O(bodies)) and the cost MulCost. It reports false, leaving the
// product unprepared, when a block is not positive definite (a k that
// fails Validate); k must not change until the last MulAdd.
func (m *BodyProduct) Factor(k *KKT) bool {
	m.k, m.validated = nil, nil
	m.chol = growSlice(m.chol, len(k.Mass))
	for b := range k.Mass {
		if _, ok := cholesky6(&m.chol[b], &k.Mass[b]); !ok {
			return false
		}
	}
	m.prepared(k, k.MulCost())
	return true
}

// factorValidated is Factor for the k that KKT.validate last checked into
// m in the same Solve (k unchanged since, as a Problem is during a
// Solve): its factors are those validate computed, the same bits Factor
// would, so it keeps them; for any other k it is Factor.
func (m *BodyProduct) factorValidated(k *KKT) bool {
	if m.validated != k || len(m.chol) != len(k.Mass) {
		return m.Factor(k)
	}
	m.validated = nil
	m.prepared(k, m.validCost)
	return true
}

// prepared finishes Factor for k, whose factors are in chol and whose
// MulCost is cost.
func (m *BodyProduct) prepared(k *KKT, cost int) {
	m.gv = growSlice(m.gv, len(k.Mass))
	m.cost = cost
	m.k = k
}

// MulCost returns the multiply-adds of a body-space product with k's
// lead matrix (BodyProduct.MulAdd): 12 per dynamic body a row touches
// (Jᵀ x and J v), 72 per body (the two triangular solves with its mass
// block's Cholesky factor) and one per row (C x).
func (k *KKT) MulCost() int {
	cost := k.N() + 72*len(k.Mass)
	for _, bs := range k.Body {
		for _, b := range bs {
			if b >= 0 {
				cost += 12
			}
		}
	}
	return cost
}

// Cheaper reports whether the prepared product costs under half of a
// product with a (one multiply-add per stored entry of a *Sparse, n² for
// a *Dense; false for any other Matrix and before a successful Factor):
// BPP's rule for computing an iterate's w in body space.
func (m *BodyProduct) Cheaper(a Matrix) bool {
	if m.k == nil {
		return false
	}
	switch a := a.(type) {
	case *Sparse:
		return 2*m.cost < a.NNZ()
	case *Dense:
		return 2*m.cost < a.r*a.c
	}
	return false
}

// MulAdd sets w = J (M⁻¹ (Jᵀ x)) + C x + b for the KKT of the last
// successful Factor, equal to A x + b to rounding when that KKT
// describes A. w, x and b have one entry per row; w may not alias x.
func (m *BodyProduct) MulAdd(w, x, b []float64) {
	kk := m.k
	body := kk.Body
	jac, c := kk.J[:len(body)], kk.C[:len(body)]
	x, w, b = x[:len(body)], w[:len(body)], b[:len(body)]
	gv := m.gv
	clear(gv)
	moved := false // some x_i is nonzero
	for i, bs := range body {
		xi := x[i]
		if xi == 0 {
			continue
		}
		moved = true
		ji := &jac[i]
		if b0 := bs[0]; b0 >= 0 {
			addScaled6(&gv[b0], &ji[0], xi)
		}
		if b1 := bs[1]; b1 >= 0 {
			addScaled6(&gv[b1], &ji[1], xi)
		}
	}
	if !moved {
		m.rowsAtRest(w, x, b)
		return
	}
	for bd := range m.chol {
		solve6(&m.chol[bd], &gv[bd])
	}
	for i, bs := range body {
		s := c[i]*x[i] + b[i]
		ji := &jac[i]
		if b0 := bs[0]; b0 >= 0 {
			s += dot6(&ji[0], &gv[b0])
		}
		if b1 := bs[1]; b1 >= 0 {
			s += dot6(&ji[1], &gv[b1])
		}
		w[i] = s
	}
}

// addScaled6 adds a·j to v, entry by entry.
func addScaled6(v, j *[6]float64, a float64) {
	v[0] += j[0] * a
	v[1] += j[1] * a
	v[2] += j[2] * a
	v[3] += j[3] * a
	v[4] += j[4] * a
	v[5] += j[5] * a
}

// dot6 returns j·v summed in component order.
func dot6(j, v *[6]float64) float64 {
	return j[0]*v[0] + j[1]*v[1] + j[2]*v[2] + j[3]*v[3] + j[4]*v[4] + j[5]*v[5]
}

// rowsAtRest is MulAdd's last pass for an x that is all ±0, with the
// same bits: Jᵀ x is then +0 in every body (MulAdd skips zero rows and
// starts from cleared sums), the triangular solves leave +0 at +0 (the
// diagonal of a Cholesky factor is positive, and +0 − ±0 is +0), so M⁻¹
// Jᵀ x is +0 without them; and a row's J v terms are ±0, which leave a
// nonzero c_i x_i + b_i as it is: only a row whose c_i x_i + b_i is ±0
// sums them (its sign of zero depends on theirs). The face solves of a
// time stepper start so (every fixed row at a zero bound).
func (m *BodyProduct) rowsAtRest(w, x, b []float64) {
	kk := m.k
	body := kk.Body
	jac, c := kk.J[:len(body)], kk.C[:len(body)]
	gv := m.gv
	for i := range body {
		s := c[i]*x[i] + b[i]
		if s != 0 {
			w[i] = s
			continue
		}
		ji := &jac[i]
		if b0 := body[i][0]; b0 >= 0 {
			s += dot6(&ji[0], &gv[b0])
		}
		if b1 := body[i][1]; b1 >= 0 {
			s += dot6(&ji[1], &gv[b1])
		}
		w[i] = s
	}
}
