package articulated

import (
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"
)

// Method selects the forward-dynamics algorithm of step 1 of Sec. 2.3: the
// accelerations as a linear function of the unknown contact forces.
type Method int

// The three classes of Sec. 3.
const (
	// Traditional builds the joint-space mass matrix M(q) (composite rigid
	// bodies) and the bias forces F (recursive Newton–Euler) and solves
	// Eq. (12b) by a Cholesky factorization: O(n³) (Sec. 3.1).
	Traditional Method = iota
	// ABA is the articulated-body algorithm, O(n) (Sec. 3.2, Eqs. 14–15):
	// one backward sweep of articulated inertias, and per unknown contact
	// force a backward bias sweep from its link to the root and a forward
	// sweep.
	ABA
	// DCA is the divide-and-conquer algorithm (Sec. 3.3, Eqs. 16–17):
	// assembly and disassembly of handle equations over a balanced binary
	// tree of joints, O(log n) on O(n) processors. Settings.Parallel runs
	// subtrees on goroutines.
	DCA
)

var methodNames = [...]string{Traditional: "on3", ABA: "aba", DCA: "dca"}

// String returns "on3", "aba" or "dca".
func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// ParseMethod is the inverse of String.
func ParseMethod(s string) (Method, error) {
	for m := range methodNames {
		if methodNames[m] == s {
			return Method(m), nil
		}
	}
	return 0, fieldErr("method", s, "unknown value %q (want on3, aba or dca)", s)
}

// dynamics is one forward-dynamics method. prepare, at the state in k with
// joint torques tau, fills the contact-space operator of the rows,
//
//	K[r][s] = w_rᵀ a_link(r)   for a unit force along row s,
//	a0[r]   = w_rᵀ a_link(r)   for zero row forces,
//
// (row-major r×r and r; the accelerations are spatial, the caller adds the
// velocity term of the contact points) and readies accel, which writes u̇
// for the row forces f (N). K is J M⁻¹ Jᵀ and a0 − (velocity terms) is
// J M⁻¹ (τ − C) whatever the method: the three yield the same LCP.
//
// prepare returns an error wrapping ErrSingularMass when M(q) (or an
// articulated inertia, or a joint's constraint block) is not positive
// definite in floating point; accel must not be called then.
type dynamics interface {
	prepare(k *kin, tau []float64, rows []row, K, a0 []float64) error
	accel(udot, f []float64)
}

// ErrSingularMass is wrapped by the errors of Step, Accelerations and LCP
// when the forward dynamics meets a mass matrix M(q) that is not positive
// definite in floating point. M of a valid Model is positive definite in
// exact arithmetic, so this means rounding or non-finite numbers.
var ErrSingularMass = errors.New("articulated: mass matrix not positive definite")

// singular returns the ErrSingularMass error for column col of M (a
// generalized coordinate) with the pivot that was not positive, and the
// likely cause.
func (t *tree) singular(col int, pivot float64) error {
	cause := fmt.Sprintf("link %d's inertia is lost to rounding against the rest of the system "+
		"(masses or inertias that differ by a factor of ~1e15 or more)", t.link[col])
	if !num.Finite(pivot) {
		cause = "a non-finite quantity in the state, Tau or Forces, or an overflow"
	}
	return fmt.Errorf("%w at column %d (%s; pivot %g): likely cause: %s",
		ErrSingularMass, col, t.coordName(col), pivot, cause)
}

// coordName describes generalized coordinate j.
func (t *tree) coordName(j int) string {
	switch i := t.link[j]; {
	case t.floating && j < 2:
		return fmt.Sprintf("the floating root's %c", "xy"[j])
	case i == t.root:
		return fmt.Sprintf("link %d's absolute angle", i)
	default:
		return fmt.Sprintf("link %d's joint angle", i)
	}
}

// col is one column of a joint's motion subspace: the coordinate it drives
// and its spatial direction.
type col struct {
	dof int
	s   vec3
}

// cols returns the motion-subspace columns of link i's joint.
func (t *tree) cols(k *kin, i int, dst []col) []col {
	dst = dst[:0]
	if t.parent[i] < 0 && t.floating {
		dst = append(dst, col{0, vec3{0, 1, 0}}, col{1, vec3{0, 0, 1}})
	}
	return append(dst, col{t.dof[i], k.s[i]})
}

// ---------------------------------------------------------------------
// Traditional O(n³): Eq. (12).

type traditional struct {
	t    *tree
	k    *kin
	M    []float64 // n×n, then its Cholesky factor (lower)
	ic   []mat3    // composite inertias
	f    []vec3
	acc  []vec3
	rhs  []float64
	free []float64 // u̇ with zero row forces
	G    []float64 // n×r: M⁻¹ Jᵀ, column s = response to row s
	jt   []float64 // n: a column of Jᵀ
	nr   int
	cs   []col
}

func newTraditional(t *tree) *traditional {
	n := t.n
	return &traditional{t: t, M: make([]float64, n*n), ic: make([]mat3, t.nb), f: make([]vec3, t.nb),
		acc: make([]vec3, t.nb), rhs: make([]float64, n), free: make([]float64, n), jt: make([]float64, n)}
}

func (d *traditional) prepare(k *kin, tau []float64, rows []row, K, a0 []float64) error {
	t, n := d.t, d.t.n
	d.k = k
	// Composite rigid bodies: M_ij = s_iᵀ I^c_i s_j for j on the path from
	// i to the root.
	for _, i := range t.order {
		d.ic[i] = k.I[i]
	}
	for x := len(t.order) - 1; x > 0; x-- {
		i := t.order[x]
		p := t.parent[i]
		for e := range d.ic[p] {
			d.ic[p][e] += d.ic[i][e]
		}
	}
	clear(d.M)
	for _, i := range t.order {
		d.cs = t.cols(k, i, d.cs)
		for _, ci := range d.cs {
			F := mulMV(&d.ic[i], ci.s)
			for j := i; j >= 0; j = t.parent[j] {
				var cj [3]col
				for _, c := range t.cols(k, j, cj[:0]) {
					v := dot3(c.s, F)
					d.M[ci.dof*n+c.dof] = v
					d.M[c.dof*n+ci.dof] = v
				}
			}
		}
	}
	// Bias forces by Newton–Euler with u̇ = 0: C = sᵀ f.
	clear(d.rhs)
	t.linkAcc(k, d.rhs, d.acc, true) // rhs is zero here: u̇ = 0
	for _, i := range t.order {
		f := mulMV(&k.I[i], d.acc[i])
		d.f[i] = vec3{f[0] + k.pb[i][0], f[1] + k.pb[i][1], f[2] + k.pb[i][2]}
	}
	for x := len(t.order) - 1; x >= 0; x-- {
		i := t.order[x]
		d.cs = t.cols(k, i, d.cs)
		for _, c := range d.cs {
			d.rhs[c.dof] = tau[c.dof] - dot3(c.s, d.f[i])
		}
		if p := t.parent[i]; p >= 0 {
			for e := range 3 {
				d.f[p][e] += d.f[i][e]
			}
		}
	}
	if j, piv := cholesky(d.M, n); j >= 0 {
		return t.singular(j, piv)
	}
	copy(d.free, d.rhs)
	cholSolve(d.M, n, d.free)
	// Jᵀ columns and M⁻¹ Jᵀ.
	r := len(rows)
	d.nr = r
	if cap(d.G) < n*r {
		d.G = make([]float64, n*r)
	}
	d.G = d.G[:n*r]
	for s, rw := range rows {
		d.jtCol(k, rw, d.jt)
		cholSolve(d.M, n, d.jt)
		for j := range n {
			d.G[j*r+s] = d.jt[j]
		}
	}
	// Contact-space quantities: a0 from the free link accelerations, K = J G.
	t.linkAcc(k, d.free, d.acc, true)
	for q, rw := range rows {
		a0[q] = dot3(rw.w, d.acc[rw.link])
	}
	for q, rw := range rows {
		d.jtCol(k, rw, d.jt)
		for s := range r {
			var v float64
			for j := range n {
				v += d.jt[j] * d.G[j*r+s]
			}
			K[q*r+s] = v
		}
	}
	return nil
}

// jtCol writes the generalized force of a unit force along row rw.
func (d *traditional) jtCol(k *kin, rw row, dst []float64) {
	clear(dst)
	for j := rw.link; j >= 0; j = d.t.parent[j] {
		var cj [3]col
		for _, c := range d.t.cols(k, j, cj[:0]) {
			dst[c.dof] = dot3(c.s, rw.w)
		}
	}
}

func (d *traditional) accel(udot, f []float64) {
	n, r := d.t.n, d.nr
	for j := range n {
		v := d.free[j]
		for s := range r {
			v += d.G[j*r+s] * f[s]
		}
		udot[j] = v
	}
}

// cholesky factors the SPD n×n a in place (lower triangle). It returns
// (−1, 0), or the first column whose pivot is not positive (or NaN) and
// that pivot, leaving a partly factored.
func cholesky(a []float64, n int) (int, float64) {
	for j := range n {
		s := a[j*n+j]
		for k := range j {
			s -= a[j*n+k] * a[j*n+k]
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return j, s
		}
		d := math.Sqrt(s)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := range j {
				s -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = s / d
		}
	}
	return -1, 0
}

// cholSolve solves L Lᵀ x = b in place.
func cholSolve(l []float64, n int, b []float64) {
	for i := range n {
		s := b[i]
		for k := range i {
			s -= l[i*n+k] * b[k]
		}
		b[i] = s / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= l[k*n+i] * b[k]
		}
		b[i] = s / l[i*n+i]
	}
}

// ---------------------------------------------------------------------
// Articulated-body algorithm: Eqs. (14)–(15).

type aba struct {
	t    *tree
	k    *kin
	IA   []mat3 // articulated inertias
	pA   []vec3 // articulated bias forces
	U    []vec3 // I^A s
	D    []float64
	uu   []float64 // τ − sᵀ p^A
	root struct {
		S    [3]vec3 // floating root: the three columns
		U    [3]vec3
		Dinv mat3
		uu   vec3
	}
	acc  []vec3
	free []float64
	G    []float64 // n×r
	col  []float64 // u̇ of one unit force
	bias []vec3    // unit-force bias on the path
	nr   int
}

func newABA(t *tree) *aba {
	nb := t.nb
	return &aba{t: t, IA: make([]mat3, nb), pA: make([]vec3, nb), U: make([]vec3, nb), D: make([]float64, nb),
		uu: make([]float64, nb), acc: make([]vec3, nb), free: make([]float64, t.n), col: make([]float64, t.n),
		bias: make([]vec3, nb)}
}

func (d *aba) prepare(k *kin, tau []float64, rows []row, K, a0 []float64) error {
	t := d.t
	d.k = k
	for _, i := range t.order {
		d.IA[i] = k.I[i]
		d.pA[i] = k.pb[i]
	}
	// Backward sweep (Eq. 14a): I^A_i, p^A_i; pass I^a, p^a to the parent.
	for x := len(t.order) - 1; x >= 0; x-- {
		i := t.order[x]
		p := t.parent[i]
		if p < 0 {
			if err := d.prepareRoot(k, tau, i); err != nil {
				return err
			}
			continue
		}
		s := k.s[i]
		U := mulMV(&d.IA[i], s)
		D := dot3(s, U)
		if !(D > 0) || math.IsInf(D, 0) {
			// D is a pivot of an LDLᵀ of M in the reverse order of the tree.
			return t.singular(t.dof[i], D)
		}
		uu := tau[t.dof[i]] - dot3(s, d.pA[i])
		d.U[i], d.D[i], d.uu[i] = U, D, uu
		var Ia mat3
		for r := range 3 {
			for c := range 3 {
				Ia[r*3+c] = d.IA[i][r*3+c] - U[r]*U[c]/D
			}
		}
		ic := mulMV(&Ia, k.cvp[i])
		for e := range 9 {
			d.IA[p][e] += Ia[e]
		}
		for e := range 3 {
			d.pA[p][e] += d.pA[i][e] + ic[e] + U[e]*uu/D
		}
	}
	// Forward sweep (Eq. 14b): u̇_i = (u_i − Uᵀ a')/D, a_i = a' + s u̇.
	d.forward(k, d.free, true)
	for q, rw := range rows {
		a0[q] = dot3(rw.w, d.acc[rw.link])
	}
	// Eq. (15): each unknown contact force, one at a time, through the sweeps.
	r := len(rows)
	d.nr = r
	n := t.n
	if cap(d.G) < n*r {
		d.G = make([]float64, n*r)
	}
	d.G = d.G[:n*r]
	for s, rw := range rows {
		d.unit(k, rw)
		for j := range n {
			d.G[j*r+s] = d.col[j]
		}
		for q, rq := range rows {
			K[q*r+s] = dot3(rq.w, d.acc[rq.link])
		}
	}
	return nil
}

// prepareRoot finishes the backward sweep at the root.
func (d *aba) prepareRoot(k *kin, tau []float64, i int) error {
	t := d.t
	if !t.floating {
		s := k.s[i]
		d.U[i] = mulMV(&d.IA[i], s)
		d.D[i] = dot3(s, d.U[i])
		d.uu[i] = tau[t.dof[i]] - dot3(s, d.pA[i])
		if D := d.D[i]; !(D > 0) || math.IsInf(D, 0) {
			return t.singular(t.dof[i], D)
		}
		return nil
	}
	rt := &d.root
	rt.S = [3]vec3{{0, 1, 0}, {0, 0, 1}, k.s[i]}
	var D mat3
	for a := range 3 {
		rt.U[a] = mulMV(&d.IA[i], rt.S[a])
		rt.uu[a] = tau[a] - dot3(rt.S[a], d.pA[i])
	}
	for a := range 3 {
		for b := range 3 {
			D[a*3+b] = dot3(rt.S[a], rt.U[b])
		}
	}
	// D is the root's 3×3 block of M after the backward sweep: check that
	// it is positive definite (its Cholesky pivots) before inverting it.
	L := D
	if j, piv := cholesky(L[:], 3); j >= 0 {
		return t.singular(j, piv) // the root's columns are 0, 1, 2
	}
	rt.Dinv = inv3(D)
	return nil
}

// forward runs the forward sweep; with vel false it is the response to the
// unit force whose path bias is in d.bias (velocity terms and torques out).
func (d *aba) forward(k *kin, udot []float64, vel bool) {
	t := d.t
	for _, i := range t.order {
		p := t.parent[i]
		var a vec3
		if p >= 0 {
			a = d.acc[p]
		}
		if vel {
			a = vec3{a[0] + k.cvp[i][0], a[1] + k.cvp[i][1], a[2] + k.cvp[i][2]}
		}
		if p < 0 && t.floating {
			rt := &d.root
			var rhs vec3
			for c := range 3 {
				rhs[c] = -dot3(rt.U[c], a)
				if vel {
					rhs[c] += rt.uu[c]
				} else {
					rhs[c] -= dot3(rt.S[c], d.bias[i])
				}
			}
			ud := mulMV(&rt.Dinv, rhs)
			for c := range 3 {
				udot[c] = ud[c]
				for e := range 3 {
					a[e] += rt.S[c][e] * ud[c]
				}
			}
			d.acc[i] = a
			continue
		}
		var uu float64
		if vel {
			uu = d.uu[i]
		} else {
			uu = -dot3(k.s[i], d.bias[i])
		}
		ud := (uu - dot3(d.U[i], a)) / d.D[i]
		udot[t.dof[i]] = ud
		s := k.s[i]
		d.acc[i] = vec3{a[0] + s[0]*ud, a[1] + s[1]*ud, a[2] + s[2]*ud}
	}
}

// unit propagates a unit force along rw: bias p = −w on its link, carried
// to the root (p^a = p^A + U (−sᵀ p^A)/D), then the forward sweep.
func (d *aba) unit(k *kin, rw row) {
	t := d.t
	// Links off the path carry no bias; zeroing all is O(n), as the sweep is.
	clear(d.bias)
	b := vec3{-rw.w[0], -rw.w[1], -rw.w[2]}
	for j := rw.link; j >= 0; j = t.parent[j] {
		d.bias[j] = b
		if t.parent[j] < 0 {
			break
		}
		uu := -dot3(k.s[j], b)
		U, D := d.U[j], d.D[j]
		b = vec3{b[0] + U[0]*uu/D, b[1] + U[1]*uu/D, b[2] + U[2]*uu/D}
	}
	d.forward(k, d.col, false)
}

func (d *aba) accel(udot, f []float64) {
	n, r := d.t.n, d.nr
	for j := range n {
		v := d.free[j]
		for s := range r {
			v += d.G[j*r+s] * f[s]
		}
		udot[j] = v
	}
}

// inv3 inverts a 3×3 matrix by cofactors.
func inv3(m mat3) mat3 {
	c00 := m[4]*m[8] - m[5]*m[7]
	c01 := m[5]*m[6] - m[3]*m[8]
	c02 := m[3]*m[7] - m[4]*m[6]
	det := m[0]*c00 + m[1]*c01 + m[2]*c02
	id := 1 / det
	return mat3{
		c00 * id, (m[2]*m[7] - m[1]*m[8]) * id, (m[1]*m[5] - m[2]*m[4]) * id,
		c01 * id, (m[0]*m[8] - m[2]*m[6]) * id, (m[2]*m[3] - m[0]*m[5]) * id,
		c02 * id, (m[1]*m[6] - m[0]*m[7]) * id, (m[0]*m[4] - m[1]*m[3]) * id,
	}
}
