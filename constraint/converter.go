package constraint

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
)

var _ Constraint = (*Converter)(nil)

// Converter is a viscous coupling between two shafts: the fluid coupling of
// a torque converter at its linear law (the forklift's drivetrain,
// Enzenhöfer et al. 2019 §5.3). With the slip
//
//	s = (ω_a − ω_h)·n_a − (ω_b − ω_h)·n_b   (rad/s)
//
// of shaft A over shaft B, both taken relative to an optional housing h
// (World = none, ω_h = 0), the coupling passes the torque
//
//	τ = K s   (N·m, K in N·m·s/rad)
//
// from A to B: A feels −τ n_a, B feels +τ n_b, the housing the rest. It is
// one velocity-level row with no position term (φ = 0), unbounded impulse,
// and the compliance c = 1/(K h) on the diagonal of A:
//
//	J_a = [0, n_a], J_b = [0, −n_b], J_h = [0, n_b − n_a],
//	w = J v⁺ + c x = 0  ⇒  x = −K h s⁺,  i.e. λ = x/h = −K s⁺.
//
// The law is implicit in the end-of-step slip s⁺, so it is stable for any
// K and h. In the Eq. 1 form of Row.Compliance (c = 1/(k h²)) this is the
// stiffness k = K/h, which Fill writes; as φ stays 0 the position term
// vanishes and only the damping remains (with φ⁺ = h s⁺ the implicit spring
// −k φ⁺ is exactly −K s⁺). A real converter's torque grows with the square
// of the impeller speed and multiplies torque near stall; the linear law is
// its slope about the operating point, which keeps the row an MLCP row.
//
// The row's Kind is Friction: a joint friction whose law is viscous
// instead of Coulomb's (a compliant velocity row, which creeps by design).
// With B the body that carries shaft A (its bearing) and no housing, the
// same row is a viscous loss of shaft A relative to it (the forklift's
// engine droop).
type Converter struct {
	shafts
	k float64
}

// NewConverter couples shaft a (axis axisA, world, at creation) with shaft
// b (axisB) through the viscous coefficient k (N·m·s/rad, finite, > 0),
// slip relative to housing (World for none). One of a, b may be World.
func NewConverter(bodies []*body.Body, a, b int, axisA, axisB mgl64.Vec3, k float64, housing int) (*Converter, error) {
	const what = "converter"
	sh, err := newShafts(what, bodies, a, b, axisA, axisB, housing)
	if err != nil {
		return nil, err
	}
	if !(k > 0) || math.IsInf(k, 1) {
		return nil, fieldErr(what, "coefficient K", k, "must be finite and > 0 N·m·s/rad, got %v (a rigid coupling is NewGear with ratio 1)", k)
	}
	return &Converter{shafts: sh, k: k}, nil
}

// Coefficient returns K (N·m·s/rad).
func (c *Converter) Coefficient() float64 { return c.k }

// Dim returns 1.
func (c *Converter) Dim() int { return 1 }

// Fill writes the row: Kind Friction, φ = 0, no bounds, Stiffness K/h
// (so that the compliance is 1/(K h)).
func (c *Converter) Fill(rows []Row, ctx *Context) error {
	if err := ratioRow("converter", rows, ctx, Friction, c.a, c.b, c.housing, 1); err != nil {
		return err
	}
	rows[0].Stiffness = c.k / ctx.H
	return nil
}

// Slip returns s (rad/s) for the bodies' current angular velocities.
func (c *Converter) Slip(ctx *Context) (float64, error) {
	var buf [1]Row
	tmp := stepless(ctx)
	if err := c.Fill(buf[:], &tmp); err != nil {
		return 0, err
	}
	return buf[0].Velocity(ctx.Bodies), nil
}
