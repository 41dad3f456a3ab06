package constraint_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// A pendulum arm hinged to the world about z at the origin, with both angle
// limits: 7 rows. The arm's COM is 1 m along x; its body z (the rod's axis)
// is turned onto x.
func ExampleHinge() {
	arm, err := body.New(body.Params{Name: "arm", Mass: 1, Inertia: body.RodInertiaZ(1, 2),
		Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0})})
	if err != nil {
		fmt.Println(err)
		return
	}
	bodies := []*body.Body{arm}
	h, err := constraint.NewHinge(bodies, 0, constraint.World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := h.SetLimits(-0.5, 0.5); err != nil {
		fmt.Println(err)
		return
	}
	rows := make([]constraint.Row, h.Dim())
	if err := h.Fill(rows, &constraint.Context{Bodies: bodies, H: 0.01}); err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		j := r.J[0]
		for i := range j {
			j[i] += 0 // print −0 as +0
		}
		fmt.Printf("%-10v φ=%+.2f J=%+.0f lo=%v hi=%v\n", r.Kind, r.Phi, j, r.Lo, r.Hi)
	}
	_, err = constraint.NewHinge(bodies, 0, 0, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	fmt.Println(err)
	// Output:
	// Bilateral  φ=+0.00 J=[+1 +0 +0 +0 +0 +0] lo=-Inf hi=+Inf
	// Bilateral  φ=+0.00 J=[+0 +1 +0 +0 +0 -1] lo=-Inf hi=+Inf
	// Bilateral  φ=+0.00 J=[+0 +0 +1 +0 +1 +0] lo=-Inf hi=+Inf
	// Bilateral  φ=+0.00 J=[+0 +0 +0 -1 +0 +0] lo=-Inf hi=+Inf
	// Bilateral  φ=+0.00 J=[+0 +0 +0 +0 -1 +0] lo=-Inf hi=+Inf
	// LimitLower φ=+0.50 J=[+0 +0 +0 +0 +0 +1] lo=0 hi=+Inf
	// LimitUpper φ=+0.50 J=[+0 +0 +0 +0 +0 -1] lo=0 hi=+Inf
	// hinge: both sides are body 0; a joint needs two different bodies
}

// The compliance of a row with stiffness 10⁴ N/m at h = 0.01 s, plain and
// with a SPOOK damping time of 0.05 s.
func ExampleRow_Compliance() {
	for _, d := range []float64{0, 0.05} {
		r := constraint.Row{Stiffness: 1e4, Damping: d}
		c, phiF, jvF := r.Compliance(0.01)
		fmt.Printf("d=%v: c=%.4f 1/kg, b += %.3f·φ %+.4f·Jv\n", d, c, phiF, jvF)
	}
	erp, cfm := constraint.ERPCFM(0.01, 1e4, 0)
	fmt.Printf("ODE: ERP=%v CFM=%v m/(N·s)\n", erp, cfm)
	// Output:
	// d=0: c=1.0000 1/kg, b += 100.000·φ +0.0000·Jv
	// d=0.05: c=0.1905 1/kg, b += 19.048·φ -0.0476·Jv
	// ODE: ERP=1 CFM=0.01 m/(N·s)
}
