package articulated_test

import (
	"fmt"

	"github.com/gorigid/gorigid/stepper/articulated"
)

// A chain of four links dropped flat onto the ground, with frictional
// contacts at its two ends P and Q (Fig. 4 of the paper).
func Example() {
	model := articulated.Model{
		Links:    articulated.Chain(4, 1, 1), // 1 kg, 1 m each
		Floating: true,
		Gravity:  articulated.Vec2{0, -9.81},
		Lines:    []articulated.Line{articulated.Ground()},
		Contacts: []articulated.Contact{
			{Link: 0, Line: 0, Mu: 0.5},                                // P
			{Link: 3, Point: articulated.Vec2{1, 0}, Line: 0, Mu: 0.5}, // Q
		},
	}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: articulated.ABA})
	if err != nil {
		fmt.Println(err)
		return
	}
	sys.Q[1] = 1 // the root's inboard end at height 1 m
	for range 1000 {
		if _, err := sys.Step(); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Only P and Q touch: the links between them sag below y = 0.
	fmt.Printf("gaps at P and Q within 1e-6 m: %v %v\n",
		sys.Gap(0) > -1e-6 && sys.Gap(0) < 1e-6, sys.Gap(1) > -1e-6 && sys.Gap(1) < 1e-6)
	// Output:
	// gaps at P and Q within 1e-6 m: true true
}

// The accelerations of a pinned two-link pendulum by each method: the
// three forward-dynamics algorithms agree.
func ExampleSystem_Accelerations() {
	model := articulated.Model{Links: articulated.Chain(2, 1, 1), Gravity: articulated.Vec2{0, -9.81}}
	for _, m := range []articulated.Method{articulated.Traditional, articulated.ABA, articulated.DCA} {
		sys, err := articulated.New(model, articulated.Settings{H: 1e-3, Method: m})
		if err != nil {
			fmt.Println(err)
			return
		}
		a, err := sys.Accelerations(nil, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: q̈ = [%.6f %.6f]\n", m, a[0], a[1])
	}
	// Output:
	// on3: q̈ = [-12.612857 16.817143]
	// aba: q̈ = [-12.612857 16.817143]
	// dca: q̈ = [-12.612857 16.817143]
}

// The LCP of Eq. (13) for one frictional contact: rows λ_N, λ_F+, λ_F−, 𝒮.
func ExampleSystem_LCP() {
	model := articulated.Model{Links: articulated.Chain(1, 1, 1), Floating: true, Gravity: articulated.Vec2{0, -9.81},
		Lines: []articulated.Line{articulated.Ground()}, Contacts: []articulated.Contact{{Link: 0, Line: 0, Mu: 0.5}}}
	sys, err := articulated.New(model, articulated.Settings{H: 1e-3})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := sys.LCP()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("rows:", p.N())
	fmt.Printf("b = %.5g\n", p.B)
	// Output:
	// rows: 4
	// b = [-0.00981 0 -0 0]
}
