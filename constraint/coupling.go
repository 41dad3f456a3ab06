package constraint

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"
)

// side is one body of a coupling with an axis fixed in it.
type side struct {
	id int
	n  mgl64.Vec3 // axis in the body's frame (world frame for World)
}

func (s side) world(ctx *Context) (mgl64.Vec3, error) {
	p, err := poseOf(ctx, s.id)
	if err != nil {
		return mgl64.Vec3{}, err
	}
	return p.vec(s.n), nil
}

// couplingBodies validates the indices of a coupling: each in range (World
// allowed only where allowWorld[i]), all distinct, World aside.
func couplingBodies(what string, bodies []*body.Body, names []string, ids []int, allowWorld []bool) error {
	for i, id := range ids {
		if id == World && !allowWorld[i] {
			return fieldErr(what, names[i], nil, "must be a body, got World")
		}
		if err := checkIndex(what, names[i], bodies, id); err != nil {
			return err
		}
		for k := 0; k < i; k++ {
			if id != World && ids[k] == id {
				return fmt.Errorf("%s: %s and %s are both body %d; they must differ", what, names[k], names[i], id)
			}
		}
	}
	return nil
}

func newSide(what, field string, bodies []*body.Body, id int, axisW mgl64.Vec3) (side, error) {
	n, err := unitAxis(what, field, axisW)
	if err != nil {
		return side{}, err
	}
	return side{id: id, n: localPose(bodies, id).toLocalVec(n)}, nil
}

// GearJoint couples two spin speeds at the velocity level:
//
//	(ω_a − ω_h)·n_a = r (ω_b − ω_h)·n_b
//
// with n_a fixed in A, n_b fixed in B and h an optional housing body (World
// = none, ω_h = 0). One bilateral row, Kind Gear, φ = 0:
// J_a = [0, n_a], J_b = [0, −r n_b], J_h = [0, −n_a + r n_b]. A gear has no
// position-level violation (its phase may slip), so it is not Positional.
type GearJoint struct {
	shafts
	ratio float64
}

// NewGear couples body a (axis axisA, world, at creation) with body b
// (axisB) at ratio r (finite, non-zero): ω_a·n_a = r ω_b·n_b, relative to
// housing (World for none). One of a, b may be World.
func NewGear(bodies []*body.Body, a, b int, axisA, axisB mgl64.Vec3, ratio float64, housing int) (*GearJoint, error) {
	const what = "gear"
	sh, err := newShafts(what, bodies, a, b, axisA, axisB, housing)
	if err != nil {
		return nil, err
	}
	if !num.Finite(ratio) || ratio == 0 {
		return nil, fieldErr(what, "ratio", ratio, "must be finite and non-zero, got %v", ratio)
	}
	return &GearJoint{shafts: sh, ratio: ratio}, nil
}

// shafts are the two axes and the optional housing of a ratio row (Gear,
// Converter), and the bodies it touches.
type shafts struct {
	a, b    side
	housing int
	list    [3]int
	nlist   int
}

// newShafts checks and records the sides of a ratio row: a, b and the
// housing exist (World allowed), not both a and b are World, and the axes
// are non-zero.
func newShafts(what string, bodies []*body.Body, a, b int, axisA, axisB mgl64.Vec3, housing int) (shafts, error) {
	if err := couplingBodies(what, bodies, []string{"body A", "body B", "housing"}, []int{a, b, housing}, []bool{true, true, true}); err != nil {
		return shafts{}, err
	}
	if a == World && b == World {
		return shafts{}, fmt.Errorf("%s: both sides are the world; at least one must be a body", what)
	}
	sa, err := newSide(what, "axis A", bodies, a, axisA)
	if err != nil {
		return shafts{}, err
	}
	sb, err := newSide(what, "axis B", bodies, b, axisB)
	if err != nil {
		return shafts{}, err
	}
	sh := shafts{a: sa, b: sb, housing: housing}
	for _, id := range []int{a, b, housing} {
		if id != World {
			sh.list[sh.nlist] = id
			sh.nlist++
		}
	}
	return sh, nil
}

// Bodies returns A, B and the housing, World left out. Do not modify.
func (sh *shafts) Bodies() []int { return sh.list[:sh.nlist] }

// Dim returns 1.
func (g *GearJoint) Dim() int { return 1 }

// Fill writes the row.
func (g *GearJoint) Fill(rows []Row, ctx *Context) error {
	return ratioRow("gear", rows, ctx, Gear, g.a, g.b, g.housing, g.ratio)
}

// ratioRow fills rows[0] with the velocity row ω_a·n_a − r ω_b·n_b, both
// speeds relative to the housing h: J_a = [0, n_a], J_b = [0, −r n_b],
// J_h = [0, −n_a + r n_b]; φ = 0, no bounds. Gear and Converter rows.
func ratioRow(what string, rows []Row, ctx *Context, k Kind, a, b side, housing int, ratio float64) error {
	if err := checkStep(what, rows, 1, ctx); err != nil {
		return err
	}
	na, err := a.world(ctx)
	if err != nil {
		return err
	}
	nb, err := b.world(ctx)
	if err != nil {
		return err
	}
	if _, err := poseOf(ctx, housing); err != nil {
		return err
	}
	r := &rows[0]
	r.reset(k)
	var zero mgl64.Vec3
	r.add(a.id, zero, na)
	r.add(b.id, zero, nb.Mul(-ratio))
	r.add(housing, zero, nb.Mul(ratio).Sub(na))
	return nil
}

// DifferentialJoint makes a carrier spin at the mean of two outputs, each
// speed taken relative to an optional housing h (World = none):
//
//	(ω_c − ω_h)·n_c = ½ [(ω_a − ω_h)·n_a + (ω_b − ω_h)·n_b]
//
// One bilateral row, Kind Differential, φ = 0, touching 3 or 4 bodies:
// J_c = [0, n_c], J_a = [0, −½ n_a], J_b = [0, −½ n_b],
// J_h = [0, −n_c + ½ n_a + ½ n_b]. Each axis is fixed in its own body.
type DifferentialJoint struct {
	c, a, b side
	housing int
	list    [4]int
	nlist   int
}

// NewDifferential couples carrier c (axis axisC, world, at creation) with
// outputs a (axisA) and b (axisB), relative to housing (World for none).
// c, a, b must be distinct bodies, not World.
func NewDifferential(bodies []*body.Body, c, a, b int, axisC, axisA, axisB mgl64.Vec3, housing int) (*DifferentialJoint, error) {
	const what = "differential"
	if err := couplingBodies(what, bodies, []string{"carrier", "body A", "body B", "housing"}, []int{c, a, b, housing}, []bool{false, false, false, true}); err != nil {
		return nil, err
	}
	sc, err := newSide(what, "carrier axis", bodies, c, axisC)
	if err != nil {
		return nil, err
	}
	sa, err := newSide(what, "axis A", bodies, a, axisA)
	if err != nil {
		return nil, err
	}
	sb, err := newSide(what, "axis B", bodies, b, axisB)
	if err != nil {
		return nil, err
	}
	d := &DifferentialJoint{c: sc, a: sa, b: sb, housing: housing}
	for _, id := range []int{c, a, b, housing} {
		if id != World {
			d.list[d.nlist] = id
			d.nlist++
		}
	}
	return d, nil
}

// Dim returns 1.
func (d *DifferentialJoint) Dim() int { return 1 }

// Bodies returns carrier, A, B and the housing, World left out. Do not
// modify.
func (d *DifferentialJoint) Bodies() []int { return d.list[:d.nlist] }

// Fill writes the row.
func (d *DifferentialJoint) Fill(rows []Row, ctx *Context) error {
	if err := checkStep("differential", rows, 1, ctx); err != nil {
		return err
	}
	nc, err := d.c.world(ctx)
	if err != nil {
		return err
	}
	na, err := d.a.world(ctx)
	if err != nil {
		return err
	}
	nb, err := d.b.world(ctx)
	if err != nil {
		return err
	}
	if _, err := poseOf(ctx, d.housing); err != nil {
		return err
	}
	r := &rows[0]
	r.reset(Differential)
	var zero mgl64.Vec3
	r.add(d.c.id, zero, nc)
	r.add(d.a.id, zero, na.Mul(-0.5))
	r.add(d.b.id, zero, nb.Mul(-0.5))
	r.add(d.housing, zero, na.Add(nb).Mul(0.5).Sub(nc))
	return nil
}

// Coordinate is a joint with one coordinate q: a Hinge's angle θ (rad) or
// a Prismatic's slide s (m). A Tendon combines the coordinates of several.
type Coordinate interface {
	Constraint
	// coordinate returns q, the joint's two bodies and the Jacobian blocks
	// [lin ang] of q̇ for each (q̇ = J_a v_a + J_b v_b).
	coordinate(ctx *Context) (q float64, ids [2]int, ja, jb [6]float64, err error)
}

func (j *Hinge) coordinate(ctx *Context) (float64, [2]int, [6]float64, [6]float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, j.ids, [6]float64{}, [6]float64{}, err
	}
	th, g := j.angle(pa, pb)
	return th, j.ids, [6]float64{0, 0, 0, g[0], g[1], g[2]}, [6]float64{0, 0, 0, -g[0], -g[1], -g[2]}, nil
}

func (j *Prismatic) coordinate(ctx *Context) (float64, [2]int, [6]float64, [6]float64, error) {
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return 0, j.ids, [6]float64{}, [6]float64{}, err
	}
	wa, n := pa.point(j.la), pb.vec(j.nb)
	ra, rab := wa.Sub(pa.p).Cross(n), wa.Sub(pb.p).Cross(n)
	s := wa.Sub(pb.point(j.lb)).Dot(n)
	return s, j.ids, [6]float64{n[0], n[1], n[2], ra[0], ra[1], ra[2]}, [6]float64{-n[0], -n[1], -n[2], -rab[0], -rab[1], -rab[2]}, nil
}

// Tendon is a fixed tendon (MuJoCo's <fixed> tendon): the linear
// combination L = Σ c_i q_i of the coordinates q_i of hinges and sliders
// (each measured from its joint's creation pose, a hinge's in (−π, π], or
// its continuous angle from its reference after Hinge.SetReference)
// kept in [lo, hi]. Its rows, touching the joints' bodies (at most
// MaxBodies of them, World aside), have J = Σ c_i J_i with J_i the
// coordinate's Jacobian (Hinge's angle row, Prismatic's slide row):
//
//   - lo < hi: a LimitLower row φ = L − lo (when lo > −Inf) and a
//     LimitUpper row φ = hi − L, J negated (when hi < +Inf), both with
//     x ≥ 0 — a tendon's range;
//   - lo = hi: one Bilateral row φ = L − lo — an equality coupling such as
//     MJCF's joint equality q₁ = a + b q₂ or URDF's mimic joint, with
//     position-level correction where a GearJoint only couples speeds.
type Tendon struct {
	terms  []tendonTerm
	lo, hi float64
	list   [MaxBodies]int
	nlist  int
}

type tendonTerm struct {
	j Coordinate
	c float64
}

// NewTendon couples the coordinates of joints (hinges or sliders; a joint
// may appear once) with coefficients coef (finite, non-zero) in the range
// [lo, hi] (lo ≤ hi, not NaN; ±Inf leaves a side free, lo = hi is an
// equality). The joints together may touch at most MaxBodies bodies.
func NewTendon(joints []Coordinate, coef []float64, lo, hi float64) (*Tendon, error) {
	const what = "tendon"
	if len(joints) == 0 || len(joints) != len(coef) {
		return nil, fmt.Errorf("%s: need one coefficient per joint and at least one joint, got %d joints and %d coefficients", what, len(joints), len(coef))
	}
	switch {
	case math.IsNaN(lo) || math.IsNaN(hi) || lo > hi:
		return nil, fieldErr(what, "range", [2]float64{lo, hi}, "need lower ≤ upper, got [%v, %v]", lo, hi)
	case math.IsInf(lo, 1) || math.IsInf(hi, -1):
		return nil, fieldErr(what, "range", [2]float64{lo, hi}, "lower must be < +Inf and upper > −Inf, got [%v, %v]", lo, hi)
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return nil, fieldErr(what, "range", [2]float64{lo, hi}, "at least one side must be finite, got [%v, %v]", lo, hi)
	}
	t := &Tendon{lo: lo, hi: hi}
	for i, j := range joints {
		if j == nil {
			return nil, fieldErr(what, fmt.Sprintf("joint %d", i), nil, "is nil")
		}
		if !num.Finite(coef[i]) || coef[i] == 0 {
			return nil, fieldErr(what, fmt.Sprintf("coefficient %d", i), coef[i], "must be finite and non-zero, got %v", coef[i])
		}
		for k := 0; k < i; k++ {
			if joints[k] == j {
				return nil, fieldErr(what, fmt.Sprintf("joint %d", i), nil, "the same joint as joint %d", k)
			}
		}
		for _, id := range j.Bodies() {
			if !slices.Contains(t.list[:t.nlist], id) {
				if t.nlist == MaxBodies {
					return nil, fmt.Errorf("%s: the joints touch more than %d bodies", what, MaxBodies)
				}
				t.list[t.nlist] = id
				t.nlist++
			}
		}
		t.terms = append(t.terms, tendonTerm{j: j, c: coef[i]})
	}
	return t, nil
}

// Bodies returns the bodies of the joints, World left out. Do not modify.
func (t *Tendon) Bodies() []int { return t.list[:t.nlist] }

// Dim returns 1 for an equality, otherwise one per finite side of the
// range.
func (t *Tendon) Dim() int {
	if t.lo == t.hi {
		return 1
	}
	n := 0
	if !math.IsInf(t.lo, -1) {
		n++
	}
	if !math.IsInf(t.hi, 1) {
		n++
	}
	return n
}

// Length returns L = Σ c_i q_i for the bodies in ctx.
func (t *Tendon) Length(ctx *Context) (float64, error) {
	l, _, err := t.combine(ctx)
	return l, err
}

// Rate returns L̇ = Σ c_i q̇_i (rad/s or m/s) for the bodies' current
// velocities in ctx: the rows' J v.
func (t *Tendon) Rate(ctx *Context) (float64, error) {
	_, jac, err := t.combine(ctx)
	if err != nil {
		return 0, err
	}
	r := 0.0
	for i := 0; i < t.nlist; i++ {
		v, w := velOf(ctx, t.list[i])
		j := &jac[i]
		r += j[0]*v[0] + j[1]*v[1] + j[2]*v[2] + j[3]*w[0] + j[4]*w[1] + j[5]*w[2]
	}
	return r, nil
}

// combine returns L and its Jacobian blocks, one per body of t.list.
func (t *Tendon) combine(ctx *Context) (float64, [MaxBodies][6]float64, error) {
	var jac [MaxBodies][6]float64
	l := 0.0
	for _, tm := range t.terms {
		q, ids, ja, jb, err := tm.j.coordinate(ctx)
		if err != nil {
			return 0, jac, fmt.Errorf("tendon: %w", err)
		}
		l += tm.c * q
		for s, blk := range [2]*[6]float64{&ja, &jb} {
			if ids[s] == World {
				continue
			}
			k := slices.Index(t.list[:t.nlist], ids[s])
			for c := range blk {
				jac[k][c] += tm.c * blk[c]
			}
		}
	}
	return l, jac, nil
}

// Fill writes the rows (see Tendon).
func (t *Tendon) Fill(rows []Row, ctx *Context) error {
	n := t.Dim()
	if err := checkStep("tendon", rows, n, ctx); err != nil {
		return err
	}
	l, jac, err := t.combine(ctx)
	if err != nil {
		return err
	}
	put := func(r *Row, k Kind, phi, sign float64) {
		r.reset(k)
		r.Phi = phi
		for i := 0; i < t.nlist; i++ {
			r.Body[i] = t.list[i]
			for c := range jac[i] {
				r.J[i][c] = sign * jac[i][c]
			}
		}
		r.N = t.nlist
		if k != Bilateral {
			r.Lo = 0
		}
	}
	if t.lo == t.hi {
		put(&rows[0], Bilateral, l-t.lo, 1)
		return nil
	}
	i := 0
	if !math.IsInf(t.lo, -1) {
		put(&rows[i], LimitLower, l-t.lo, 1)
		i++
	}
	if !math.IsInf(t.hi, 1) {
		put(&rows[i], LimitUpper, t.hi-l, -1)
	}
	return nil
}

// Violation writes φ of the Dim() rows (rad or m, as the coordinates).
func (t *Tendon) Violation(ctx *Context, dst []float64) error {
	n := t.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [2]Row
	tmp := stepless(ctx)
	return copyPhi(t.Fill(buf[:n], &tmp), buf[:n], dst)
}
