package articulated

import "math"

// Planar spatial vectors (Featherstone's notation restricted to the plane),
// in world axes about one reference point R of the current state, the
// root's inboard joint (its pin, or a floating root's (q₀, q₁)):
//
//	motion  v̂ = (ω, vx, vy): angular velocity and the velocity of the body
//	        point that coincides with R;
//	force   f̂ = (n, fx, fy): moment about R and force.
//
// Every position r below is relative to R (kin.o, kin.c, row.r); a force F
// at r is f̂ = (r × F, F); a revolute joint at o has the motion subspace
// s = (1, o_y, −o_x); a body of mass m with centre of mass c and central
// inertia I_c has the spatial inertia
//
//	I = [ I_c + m|c|²  −m c_y  m c_x ]
//	    [ −m c_y        m      0     ]
//	    [ m c_x         0      m     ].
//
// The paper writes spatial quantities about each body's origin (Eqs. 5–6);
// expressing them about one point instead removes the shifts 𝒮^{rP}
// between bodies, and the classical acceleration of a body point r is then
// a_r = a_R + α ẑ × r + ω ẑ × v_r (Eq. 6 with the velocity term written at
// r). R is a fixed point of the plane that coincides with the root's joint
// at the state being evaluated: the formulas are those of any fixed point,
// and a new R is taken at every state (every step, every RK4 stage), so no
// spatial quantity is carried from one state to the next. About the world
// origin instead, a chain that has fallen freely for a long time (|c| of
// 1e6 m and more) has I_c + m|c|² in which I_c is lost to rounding, and the
// mass matrix turns singular; about R, |c| is the size of the system and
// the dynamics are translation invariant to rounding. Only the gaps (and
// Point, Energy's potential, CenterOfMass, Momentum's moment about the
// origin) add R back.

type vec3 = [3]float64
type mat3 = [9]float64 // row-major

func mulMV(m *mat3, v vec3) vec3 {
	return vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

func dot3(a, b vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// crf returns v ×* f, the spatial force cross product.
func crf(v, f vec3) vec3 {
	return vec3{-v[2]*f[1] + v[1]*f[2], -v[0] * f[2], v[0] * f[1]}
}

// wrench returns the spatial force of a force f at point r.
func wrench(r, f Vec2) vec3 { return vec3{r[0]*f[1] - r[1]*f[0], f[0], f[1]} }

// revolute returns the motion subspace of a revolute joint at o.
func revolute(o Vec2) vec3 { return vec3{1, o[1], -o[0]} }

// PointForce is a known force F (N, world axes) applied at Point (m, in the
// frame of Link).
type PointForce struct {
	Link  int
	Point Vec2
	F     Vec2
}

// tree is the compiled topology of a Model.
type tree struct {
	nb, n    int
	floating bool
	pin      Vec2
	gravity  Vec2
	root     int
	order    []int // parents before children
	parent   []int
	children [][]int
	dof      []int // index in q of link i's (relative, root: absolute) angle
	link     []int // the link of coordinate j (a floating root's x, y: the root)
	offset   []Vec2
	length   []float64
	mass     []float64
	inertia  []float64 // about the centre of mass
}

func compile(m *Model) (*tree, error) {
	order, err := m.topology()
	if err != nil {
		return nil, err
	}
	nb := len(m.Links)
	t := &tree{
		nb: nb, n: m.NumDOF(), floating: m.Floating, pin: m.Pin, gravity: m.Gravity,
		root: order[0], order: order,
		parent: make([]int, nb), children: make([][]int, nb), dof: make([]int, nb),
		offset: make([]Vec2, nb), length: make([]float64, nb), mass: make([]float64, nb), inertia: make([]float64, nb),
	}
	t.link = make([]int, t.n)
	k := 0
	if m.Floating {
		k = 2
		t.link[0], t.link[1] = t.root, t.root
	}
	t.dof[t.root] = k
	t.link[k] = t.root
	k++
	for i, l := range m.Links {
		t.parent[i] = l.Parent
		if l.Parent >= 0 {
			t.children[l.Parent] = append(t.children[l.Parent], i)
			t.dof[i] = k
			t.link[k] = i
			k++
		}
		t.offset[i], t.length[i], t.mass[i] = l.Offset, l.Length, l.Mass
		t.inertia[i] = l.Inertia
		if l.Inertia == 0 {
			t.inertia[i] = l.Mass * l.Length * l.Length / 12
		}
	}
	return t, nil
}

// kin holds the kinematic quantities of one state (q, u): the output of
// the forward position and velocity pass shared by the three methods.
type kin struct {
	ref  Vec2      // the reference point R (world): the root's inboard joint
	phi  []float64 // absolute angle
	o    []Vec2    // inboard joint, relative to R
	c    []Vec2    // centre of mass, relative to R
	s    []vec3    // motion subspace of the link's revolute joint
	v    []vec3    // spatial velocity
	vo   []Vec2    // velocity of the joint point o
	cvp  []vec3    // velocity-product term ṡ u of the joint (Featherstone's c_i)
	I    []mat3    // spatial inertia about R
	Iinv []mat3    // its inverse
	pb   []vec3    // v ×* I v − f_ext: the bias force (ABA's p_i)
}

func newKin(nb int) *kin {
	return &kin{
		phi: make([]float64, nb), o: make([]Vec2, nb), c: make([]Vec2, nb),
		s: make([]vec3, nb), v: make([]vec3, nb), vo: make([]Vec2, nb), cvp: make([]vec3, nb),
		I: make([]mat3, nb), Iinv: make([]mat3, nb), pb: make([]vec3, nb),
	}
}

// rot rotates p by angle a.
func rot(a float64, p Vec2) Vec2 {
	s, c := math.Sincos(a)
	return Vec2{c*p[0] - s*p[1], s*p[0] + c*p[1]}
}

// rootVel returns the root's joint-point velocity and angular velocity.
func (t *tree) rootVel(u []float64) (Vec2, float64) {
	if t.floating {
		return Vec2{u[0], u[1]}, u[2]
	}
	return Vec2{}, u[0]
}

// update fills k for state (q, u) and the known forces ext.
func (t *tree) update(k *kin, q, u []float64, ext []PointForce) {
	for _, i := range t.order {
		p := t.parent[i]
		qi := q[t.dof[i]]
		if p < 0 {
			k.phi[i] = qi
			if t.floating {
				k.ref = Vec2{q[0], q[1]}
			} else {
				k.ref = t.pin
			}
			k.o[i] = Vec2{} // R is the root's joint
			vo, w := t.rootVel(u)
			k.vo[i] = vo
			k.s[i] = revolute(k.o[i])
			// v̂ = (ω, v_o + ω ẑ × (R − o)) = (ω, v_o) with o = R.
			k.v[i] = vec3{w, vo[0], vo[1]}
			k.cvp[i] = vec3{0, w * vo[1], -w * vo[0]}
		} else {
			k.phi[i] = k.phi[p] + qi
			r := rot(k.phi[p], t.offset[i])
			k.o[i] = Vec2{k.o[p][0] + r[0], k.o[p][1] + r[1]}
			k.s[i] = revolute(k.o[i])
			ui := u[t.dof[i]]
			vp := k.v[p]
			k.vo[i] = Vec2{vp[1] - vp[0]*k.o[i][1], vp[2] + vp[0]*k.o[i][0]}
			k.v[i] = vec3{vp[0] + ui, vp[1] + ui*k.s[i][1], vp[2] + ui*k.s[i][2]}
			k.cvp[i] = vec3{0, ui * k.vo[i][1], -ui * k.vo[i][0]}
		}
		d := rot(k.phi[i], Vec2{t.length[i] / 2, 0})
		c := Vec2{k.o[i][0] + d[0], k.o[i][1] + d[1]}
		k.c[i] = c
		m, ic := t.mass[i], t.inertia[i]
		k.I[i] = mat3{
			ic + m*(c[0]*c[0]+c[1]*c[1]), -m * c[1], m * c[0],
			-m * c[1], m, 0,
			m * c[0], 0, m,
		}
		// Inverse: a = I⁻¹ f gives α = (n − c × f)/I_c, a_R = f/m − α ẑ × c.
		// Written out: with Ī = I_c, mass m.
		k.Iinv[i] = mat3{
			1 / ic, c[1] / ic, -c[0] / ic,
			c[1] / ic, 1/m + c[1]*c[1]/ic, -c[0] * c[1] / ic,
			-c[0] / ic, -c[0] * c[1] / ic, 1/m + c[0]*c[0]/ic,
		}
		g := wrench(c, Vec2{m * t.gravity[0], m * t.gravity[1]})
		b := crf(k.v[i], mulMV(&k.I[i], k.v[i]))
		k.pb[i] = vec3{b[0] - g[0], b[1] - g[1], b[2] - g[2]}
	}
	for _, f := range ext {
		w := wrench(k.rel(f.Link, f.Point), f.F)
		pb := &k.pb[f.Link]
		pb[0] -= w[0]
		pb[1] -= w[1]
		pb[2] -= w[2]
	}
}

// rel returns the position of point p of link i's frame relative to R.
func (k *kin) rel(i int, p Vec2) Vec2 {
	r := rot(k.phi[i], p)
	return Vec2{k.o[i][0] + r[0], k.o[i][1] + r[1]}
}

// world returns the world position of point p of link i's frame.
func (k *kin) world(i int, p Vec2) Vec2 {
	r := k.rel(i, p)
	return Vec2{k.ref[0] + r[0], k.ref[1] + r[1]}
}

// worldC returns the world position of link i's centre of mass.
func (k *kin) worldC(i int) Vec2 { return Vec2{k.ref[0] + k.c[i][0], k.ref[1] + k.c[i][1]} }

// pointVel returns the velocity of the body point of link i at r (relative
// to R).
func (k *kin) pointVel(i int, r Vec2) Vec2 {
	v := k.v[i]
	return Vec2{v[1] - v[0]*r[1], v[2] + v[0]*r[0]}
}

// row is one unknown contact-force direction: a unit force along d at the
// point r (relative to R) of a link, with the spatial force w = (r × d, d).
type row struct {
	link    int
	contact int
	r, d    Vec2
	w       vec3
}

// jointAcc returns, for each link, the spatial acceleration given joint
// accelerations udot (the forward pass a_i = a_p + s_i u̇_i + c_i), into acc.
// With vel false the velocity products are left out (the response to a
// unit force).
func (t *tree) linkAcc(k *kin, udot []float64, acc []vec3, vel bool) {
	for _, i := range t.order {
		p := t.parent[i]
		var a vec3
		if p < 0 {
			s := k.s[i]
			w := udot[t.dof[i]]
			a = vec3{w, w * s[1], w * s[2]}
			if t.floating {
				a[1] += udot[0]
				a[2] += udot[1]
			}
		} else {
			a = acc[p]
			w := udot[t.dof[i]]
			a[0] += w
			a[1] += w * k.s[i][1]
			a[2] += w * k.s[i][2]
		}
		if vel {
			a[0] += k.cvp[i][0]
			a[1] += k.cvp[i][1]
			a[2] += k.cvp[i][2]
		}
		acc[i] = a
	}
}
