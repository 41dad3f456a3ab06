package constraint

import (
	"fmt"

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
			return fmt.Errorf("%s: %s: must be a body, got World", what, names[i])
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
		return nil, fmt.Errorf("%s: ratio: must be finite and non-zero, got %v", what, ratio)
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
