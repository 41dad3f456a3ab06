package stepper_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
)

// The MLCP of one step of a 2 kg cube of side 0.2 m resting on the ground
// (μ = 0.5), built by the stepper's own assembly: one contact point under
// the centre of mass gives a normal row and two friction rows. With
// h = 10 ms, A = J M⁻¹ Jᵀ has 1/m = 0.5 kg⁻¹ on the normal row and
// 1/m + r²/I = 0.5 + 0.1²/(2·0.2²/6) = 1.25 kg⁻¹ on the friction rows
// (the 0.1 m lever to the centre of mass); b_n = v + h g = −0.0981 m/s is
// the approach speed gravity would give in the step. The solution is the
// impulse that holds the cube's weight for one step, x_n = m g h.
func ExampleAssembly() {
	set := stepper.DefaultSettings()
	set.H = 0.01
	cube, err := body.New(body.Params{Mass: 2, Inertia: body.BoxInertia(2, 0.2, 0.2, 0.2),
		Pos: mgl64.Vec3{0, 0, 0.1}, Rot: mgl64.QuatIdent()})
	if err != nil {
		panic(err)
	}
	bodies := []*body.Body{cube}
	var mass stepper.Mass
	mass.Update(bodies, set.H, set.Gravity) // M⁻¹ and the free velocities M⁻¹p

	// The contact between the world (A) and the cube (B), as World.Contacts
	// reports it; XN is the normal-impulse estimate behind the friction
	// bounds ±μ x̂ₙ.
	c := stepper.ContactInfo{A: constraint.World, B: 0, Point: mgl64.Vec3{0, 0, 0},
		Normal: mgl64.Vec3{0, 0, 1}, Mu: 0.5, XN: 0.2, T1: mgl64.Vec3{1, 0, 0}}
	rows := make([]constraint.Row, 3)
	rows = rows[:c.FillRows(rows, bodies)]

	var asm stepper.Assembly
	if err := asm.Assemble(&set, &mass, rows); err != nil {
		panic(err)
	}
	for i := range rows {
		fmt.Printf("%-15v A_ii = %.4f  b = %+.4f  [%v, %v]\n", rows[i].Kind, asm.A.At(i, i), asm.B[i], asm.Lo[i], asm.Hi[i])
	}
	p := asm.Problem()
	var res lcp.Result
	if err := (&lcp.BPP{}).Solve(&res, &p, lcp.Settings{}); err != nil {
		panic(err)
	}
	fmt.Printf("x = %.4f N·s (m g h = %.4f)\n", res.X, 2*9.81*set.H)
	// Output:
	// ContactNormal   A_ii = 0.5000  b = -0.0981  [0, +Inf]
	// ContactFriction A_ii = 1.2500  b = +0.0000  [-0.1, 0.1]
	// ContactFriction A_ii = 1.2500  b = +0.0000  [-0.1, 0.1]
	// x = [0.1962 0.0000 0.0000] N·s (m g h = 0.1962)
}
