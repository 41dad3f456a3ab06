package articulated

import (
	"math"
	"runtime"
	"sync"
)

// Divide-and-conquer algorithm (Sec. 3.3, Eqs. 16–17; Featherstone 1999,
// refs. [16, 17]; the two-handle form of ref. [34]).
//
// With spatial vectors about one point (R, see kin.go) every handle of a
// body has the body's spatial acceleration, and a body's handle equations
// (Eq. 16) are
//
//	a_h = I⁻¹ Σ_g f_g + I⁻¹ (f_ext − v ×* I v)   for every handle h,
//
// i.e. Φ_hg = I⁻¹ and β_h = −I⁻¹ p. A contact point is a handle like a
// joint's (Sec. 3.3, last paragraph). An assembly keeps the equations of
// its boundary handles, a_h = Σ_g Φ_hg f_g + β_h. Assembling A and B at
// the joint of link j (handle a on A's side, b on B's; the force on B is f,
// on A −f) imposes the joint's kinematics and statics,
//
//	a_b − a_a = s q̈ + c,   sᵀ f = τ,
//
// with T (3×2) spanning the forces through the joint point (sᵀ T = 0):
// f = T λ + τ e₁ and Tᵀ(a_b − a_a − c) = 0 give
//
//	f = Q (Σ_{i∈A'} Φ^A_ai f_i − Σ_{k∈B'} Φ^B_bk f_k) + z,
//	Q = T (Tᵀ (Φ^A_aa + Φ^B_bb) T)⁻¹ Tᵀ,
//	z = τ e₁ − Q ((Φ^A_aa + Φ^B_bb) e₁ τ + β^B_b − β^A_a − c),
//
// and substituting f into the remaining handles' equations gives the
// assembly's. The fixed world of a pinned root is a leaf with Φ = 0. Once
// everything is assembled only the contact handles remain: their equations
// are Eq. (17), the contact-space operator of the LCP. Disassembly runs the
// tree back down with the solved contact forces, recovering each joint's
// force f and q̈ = (a_b − a_a)₀.
//
// The assembly tree is built once per model: each node cuts the joint
// that splits its set of bodies most evenly, so a chain gets a balanced
// binary tree of depth ⌈log₂ n⌉. Parallel runs the two subtrees of the top
// ⌈log₂ GOMAXPROCS⌉ levels on goroutines; the arithmetic of every node is
// the same as in the serial order, so the results are bit-identical.

type dcaNode struct {
	leaf   int // body index, nb for the fixed world; −1 for an assembly
	joint  int // an assembly's joint (its child link)
	a, b   *dcaNode
	ia, ib int   // position of the joint's handles in a.h and b.h
	h      []int // boundary handles
	size   int   // bodies (and world) below
	phi    []float64
	beta   []float64
	f      []float64 // handle forces during disassembly
	Q      mat3
	z      vec3
	R      []mat3 // Q Φ^A_ai for i ∈ A' and Q Φ^B_bk for k ∈ B', in h order
	// err is set by assemble when the joint's Tᵀ(Φ^A_aa + Φ^B_bb)T, or one
	// below, is not positive definite; the node is then left unfinished.
	err error
}

type dca struct {
	t        *tree
	k        *kin
	tau      []float64
	top      *dcaNode
	pos      []int // contact → position in top.h
	parallel bool
	depth    int // parallel levels
	udot     []float64
	nc       int
	rows     []row
}

func newDCA(t *tree, m *Model, parallel bool) *dca {
	nb := t.nb
	d := &dca{t: t, parallel: parallel, nc: len(m.Contacts)}
	// Handles: joint j → 2j (parent side), 2j+1 (child side); contact c → 2nb+c.
	bodyHandles := make([][]int, nb+1)
	pnode := func(i int) int {
		if i == nb {
			return -1 // the fixed world
		}
		if p := t.parent[i]; p >= 0 {
			return p
		}
		if t.floating {
			return -1
		}
		return nb
	}
	for _, j := range t.order {
		if p := pnode(j); p >= 0 {
			bodyHandles[p] = append(bodyHandles[p], 2*j)
			bodyHandles[j] = append(bodyHandles[j], 2*j+1)
		}
	}
	for c, ct := range m.Contacts {
		bodyHandles[ct.Link] = append(bodyHandles[ct.Link], 2*nb+c)
	}
	comp := make([]int, 0, nb+1)
	if !t.floating {
		comp = append(comp, nb)
	}
	comp = append(comp, t.order...)
	in := make([]bool, nb+1)
	size := make([]int, nb+1)
	var build func(comp []int) *dcaNode
	build = func(comp []int) *dcaNode {
		if len(comp) == 1 {
			x := comp[0]
			return newNode(&dcaNode{leaf: x, h: bodyHandles[x], size: 1})
		}
		for _, x := range comp {
			in[x], size[x] = true, 1
		}
		best, bestDiff := -1, len(comp)+1
		for e := len(comp) - 1; e > 0; e-- {
			x := comp[e]
			if p := pnode(x); p >= 0 && in[p] {
				size[p] += size[x]
				if diff := abs(2*size[x] - len(comp)); diff < bestDiff {
					best, bestDiff = x, diff
				}
			}
		}
		// Split: B is best's subtree within comp (comp is in topological order).
		inB := make(map[int]bool)
		var A, B []int
		for _, x := range comp {
			if x == best || (pnode(x) >= 0 && in[pnode(x)] && inB[pnode(x)]) {
				inB[x] = true
				B = append(B, x)
			} else {
				A = append(A, x)
			}
		}
		for _, x := range comp {
			in[x] = false
		}
		n := &dcaNode{leaf: -1, joint: best, a: build(A), b: build(B), size: len(comp)}
		n.ia, n.ib = index(n.a.h, 2*best), index(n.b.h, 2*best+1)
		for p, hd := range n.a.h {
			if p != n.ia {
				n.h = append(n.h, hd)
			}
		}
		for p, hd := range n.b.h {
			if p != n.ib {
				n.h = append(n.h, hd)
			}
		}
		n.R = make([]mat3, len(n.h))
		return newNode(n)
	}
	d.top = build(comp)
	d.pos = make([]int, d.nc)
	for p, hd := range d.top.h {
		d.pos[hd-2*nb] = p
	}
	for g := runtime.GOMAXPROCS(0); g > 1; g = (g + 1) / 2 {
		d.depth++
	}
	d.udot = make([]float64, t.n)
	return d
}

func newNode(n *dcaNode) *dcaNode {
	h := len(n.h)
	n.phi = make([]float64, 9*h*h)
	n.beta = make([]float64, 3*h)
	n.f = make([]float64, 3*h)
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func index(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	panic("articulated: handle missing from assembly")
}

// blk returns block (p, q) of the node's Φ as a mat3.
func (n *dcaNode) blk(p, q int) mat3 {
	w := 3 * len(n.h)
	var m mat3
	for r := range 3 {
		copy(m[r*3:r*3+3], n.phi[(3*p+r)*w+3*q:(3*p+r)*w+3*q+3])
	}
	return m
}

func (n *dcaNode) setBlk(p, q int, m *mat3) {
	w := 3 * len(n.h)
	for r := range 3 {
		copy(n.phi[(3*p+r)*w+3*q:(3*p+r)*w+3*q+3], m[r*3:r*3+3])
	}
}

func mulMM(a, b *mat3) mat3 {
	var c mat3
	for i := range 3 {
		for j := range 3 {
			c[i*3+j] = a[i*3]*b[j] + a[i*3+1]*b[3+j] + a[i*3+2]*b[6+j]
		}
	}
	return c
}

// both runs f on a and b, concurrently if the level allows (the serial
// path makes no closure, so it allocates nothing).
func (d *dca) both(level int, f func(*dcaNode, int), a, b *dcaNode) {
	if d.parallel && level < d.depth {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); f(a, level+1) }()
		f(b, level+1)
		wg.Wait()
		return
	}
	f(a, level+1)
	f(b, level+1)
}

func (d *dca) assemble(n *dcaNode, level int) {
	if n.leaf >= 0 {
		d.leaf(n)
		return
	}
	if d.parallel && level < d.depth {
		d.both(level, d.assemble, n.a, n.b)
	} else {
		d.assemble(n.a, level+1)
		d.assemble(n.b, level+1)
	}
	n.err = n.a.err // the first failure in the serial order
	if n.err == nil {
		n.err = n.b.err
	}
	if n.err != nil {
		return
	}
	k, j := d.k, n.joint
	A, B := n.a, n.b
	paa, pbb := A.blk(n.ia, n.ia), B.blk(n.ib, n.ib)
	var P mat3
	for e := range 9 {
		P[e] = paa[e] + pbb[e]
	}
	o := k.o[j]
	T := [3][2]float64{{-o[1], o[0]}, {1, 0}, {0, 1}}
	// W = Tᵀ P T.
	var PT [3][2]float64
	for r := range 3 {
		for c := range 2 {
			PT[r][c] = P[r*3]*T[0][c] + P[r*3+1]*T[1][c] + P[r*3+2]*T[2][c]
		}
	}
	var W [2][2]float64
	for r := range 2 {
		for c := range 2 {
			W[r][c] = T[0][r]*PT[0][c] + T[1][r]*PT[1][c] + T[2][r]*PT[2][c]
		}
	}
	det := W[0][0]*W[1][1] - W[0][1]*W[1][0]
	// W is the joint's inverse inertia across the cut: positive definite
	// when M is; its pivots W₀₀ and det/W₀₀ tell.
	if piv := W[0][0]; !(piv > 0) || math.IsInf(piv, 0) {
		n.err = d.t.singular(d.t.dof[j], piv)
		return
	}
	if piv := det / W[0][0]; !(piv > 0) || math.IsInf(piv, 0) {
		n.err = d.t.singular(d.t.dof[j], piv)
		return
	}
	Wi := [2][2]float64{{W[1][1] / det, -W[0][1] / det}, {-W[1][0] / det, W[0][0] / det}}
	for r := range 3 {
		for c := range 3 {
			var v float64
			for x := range 2 {
				for y := range 2 {
					v += T[r][x] * Wi[x][y] * T[c][y]
				}
			}
			n.Q[r*3+c] = v
		}
	}
	tau := d.tau[d.t.dof[j]]
	cv := k.cvp[j]
	var rhs vec3
	for r := range 3 {
		rhs[r] = P[r*3]*tau + B.beta[3*n.ib+r] - A.beta[3*n.ia+r] - cv[r]
	}
	qr := mulMV(&n.Q, rhs)
	n.z = vec3{tau - qr[0], -qr[1], -qr[2]}
	// R_i = Q Φ^A_ai, R_k = Q Φ^B_bk; the new blocks and β.
	na := len(A.h) - 1
	src := func(p int) (*dcaNode, int, int) { // child, handle position, joint handle position
		if p < na {
			if p >= n.ia {
				p++
			}
			return A, p, n.ia
		}
		p -= na
		if p >= n.ib {
			p++
		}
		return B, p, n.ib
	}
	for p := range n.h {
		c, cp, cj := src(p)
		m := c.blk(cj, cp)
		n.R[p] = mulMM(&n.Q, &m)
	}
	for p := range n.h {
		c, cp, cj := src(p)
		pj := c.blk(cp, cj) // Φ_{p, joint handle}
		sign := -1.0        // A: Φ_ij − Φ_ia R_j ; B: Φ_kl − Φ_kb R_l
		if c == B {
			sign = 1 // with R_l = Q Φ_bl: Φ_kl − Φ_kb R_l as well; cross terms flip
		}
		for q := range n.h {
			cq, qp, _ := src(q)
			m := mulMM(&pj, &n.R[q])
			var out mat3
			if cq == c {
				orig := c.blk(cp, qp)
				for e := range 9 {
					out[e] = orig[e] - m[e]
				}
			} else {
				// i ∈ A', k ∈ B': Φ_ik = Φ^A_ia Q Φ^B_bk, Φ_ki = Φ^B_kb Q Φ^A_ai.
				out = m
			}
			n.setBlk(p, q, &out)
		}
		pz := mulMV(&pj, n.z)
		for r := range 3 {
			n.beta[3*p+r] = c.beta[3*cp+r] + sign*pz[r]
		}
	}
}

// leaf fills a body's handle equations (Eq. 16): Φ_hg = I⁻¹, β_h = −I⁻¹ p.
func (d *dca) leaf(n *dcaNode) {
	n.err = nil
	h := len(n.h)
	if n.leaf == d.t.nb { // the fixed world
		clear(n.phi)
		clear(n.beta)
		return
	}
	k := d.k
	Ii := &k.Iinv[n.leaf]
	pb := d.bias(n.leaf)
	b := mulMV(Ii, vec3{-pb[0], -pb[1], -pb[2]})
	for p := range h {
		for q := range h {
			n.setBlk(p, q, Ii)
		}
		copy(n.beta[3*p:3*p+3], b[:])
	}
}

// disassemble pushes the forces n.f of n's handles down the tree and
// records q̈ of every joint.
func (d *dca) disassemble(n *dcaNode, level int) {
	if n.leaf >= 0 {
		d.leafAccel(n)
		return
	}
	A, B := n.a, n.b
	na := len(A.h) - 1
	f := n.z
	for p := range n.h {
		fp := vec3{n.f[3*p], n.f[3*p+1], n.f[3*p+2]}
		m := mulMV(&n.R[p], fp)
		sign := 1.0
		if p >= na {
			sign = -1
		}
		for r := range 3 {
			f[r] += sign * m[r]
		}
	}
	for p := range n.h {
		if p < na {
			q := p
			if q >= n.ia {
				q++
			}
			copy(A.f[3*q:3*q+3], n.f[3*p:3*p+3])
		} else {
			q := p - na
			if q >= n.ib {
				q++
			}
			copy(B.f[3*q:3*q+3], n.f[3*p:3*p+3])
		}
	}
	A.f[3*n.ia], A.f[3*n.ia+1], A.f[3*n.ia+2] = -f[0], -f[1], -f[2]
	B.f[3*n.ib], B.f[3*n.ib+1], B.f[3*n.ib+2] = f[0], f[1], f[2]
	// q̈ = (a_b − a_a)₀ (c₀ = 0, s₀ = 1).
	d.udot[d.t.dof[n.joint]] = angAcc(B, n.ib) - angAcc(A, n.ia)
	if d.parallel && level < d.depth {
		d.both(level, d.disassemble, A, B)
	} else {
		d.disassemble(A, level+1)
		d.disassemble(B, level+1)
	}
}

// angAcc returns the angular acceleration at handle p of n from n.f.
func angAcc(n *dcaNode, p int) float64 {
	w := 3 * len(n.h)
	v := n.beta[3*p]
	row := n.phi[3*p*w : 3*p*w+w]
	for i, x := range row {
		v += x * n.f[i]
	}
	return v
}

// bias returns link i's bias force p; a floating root's generalized forces
// (Q_x, Q_y, Q_θ) enter as the force (Q_x, Q_y) at its joint point and the
// moment Q_θ (then Sᵀ f = Q).
func (d *dca) bias(i int) vec3 {
	pb := d.k.pb[i]
	if i == d.t.root && d.t.floating {
		w := wrench(d.k.o[i], Vec2{d.tau[0], d.tau[1]})
		pb = vec3{pb[0] - w[0] - d.tau[2], pb[1] - w[1], pb[2] - w[2]}
	}
	return pb
}

// leafAccel recovers a floating root's u̇ from its body acceleration.
func (d *dca) leafAccel(n *dcaNode) {
	t := d.t
	if n.leaf != t.root || !t.floating {
		return
	}
	var sum vec3
	for p := range n.h {
		for r := range 3 {
			sum[r] += n.f[3*p+r]
		}
	}
	pb := d.bias(n.leaf)
	a := mulMV(&d.k.Iinv[n.leaf], vec3{sum[0] - pb[0], sum[1] - pb[1], sum[2] - pb[2]})
	c, o := d.k.cvp[n.leaf], d.k.o[n.leaf]
	// a = S u̇ + c with S = [(0,1,0) (0,0,1) (1, o_y, −o_x)].
	w := a[0]
	d.udot[0] = a[1] - w*o[1] - c[1]
	d.udot[1] = a[2] + w*o[0] - c[2]
	d.udot[2] = w
}

func (d *dca) prepare(k *kin, tau []float64, rows []row, K, a0 []float64) error {
	d.k, d.tau = k, tau
	d.assemble(d.top, 0)
	if d.top.err != nil {
		return d.top.err
	}
	r := len(rows)
	top := d.top
	// Eq. (17): K and a0 from the contact handles' equations.
	d.rows = rows
	for q, rq := range rows {
		pq := d.pos[rq.contact]
		a0[q] = rq.w[0]*top.beta[3*pq] + rq.w[1]*top.beta[3*pq+1] + rq.w[2]*top.beta[3*pq+2]
		for s, rs := range rows {
			ps := d.pos[rs.contact]
			m := top.blk(pq, ps)
			K[q*r+s] = dot3(rq.w, mulMV(&m, rs.w))
		}
	}
	return nil
}

func (d *dca) accel(udot, f []float64) {
	top := d.top
	clear(top.f)
	for s, rw := range d.rows {
		p := d.pos[rw.contact]
		for e := range 3 {
			top.f[3*p+e] += rw.w[e] * f[s]
		}
	}
	d.disassemble(top, 0)
	copy(udot, d.udot)
}
