package stepper_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// A custom scene through the public API: a box dropped onto a ground plane
// and a 1 m pendulum on a hinge, 0.1 rad off the vertical, stepped for one
// second at h = 1 ms. The box comes to rest on the plane (its centre at
// half its height) and the pendulum follows the small-angle solution
// θ(t) = 0.1·cos(2πt/T), T = 1.638 s: −0.077 rad at t = 1 s.
func ExampleWorld() {
	set := stepper.DefaultSettings() // standard gravity, BPP, least-energy pick
	set.H = 0.001                    // the default is 1/60 s
	w, err := stepper.New(set)
	if err != nil {
		panic(err)
	}
	// The ground: a plane through the origin, normal +z, fixed to the world.
	if _, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(),
		Material: stepper.Material{Friction: 0.5}}); err != nil {
		panic(err)
	}
	// A 2 kg box of 0.4 × 0.2 × 0.2 m (full side lengths, as every size in
	// gorigid), released 0.3 m up.
	box, err := body.New(body.Params{Name: "box", Mass: 2, Inertia: body.BoxInertia(2, 0.4, 0.2, 0.2),
		Pos: mgl64.Vec3{2, 0, 0.4}, Rot: mgl64.QuatIdent()})
	if err != nil {
		panic(err)
	}
	ib, err := w.AddBody(box)
	if err != nil {
		panic(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.4, 0.2, 0.2})
	if err != nil {
		panic(err)
	}
	if _, err := w.AddGeom(stepper.Geom{Body: ib, Shape: shape, Material: stepper.Material{Friction: 0.5}}); err != nil {
		panic(err)
	}
	// A 1 kg, 1 m rod hanging from a hinge about y at (0, 0, 2).
	const theta0 = 0.1
	dir := mgl64.Vec3{math.Sin(theta0), 0, -math.Cos(theta0)}
	pivot := mgl64.Vec3{0, 0, 2}
	rod, err := body.New(body.Params{Name: "rod", Mass: 1, Inertia: body.RodInertiaZ(1, 1),
		Pos: pivot.Add(dir.Mul(0.5)), Rot: mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, dir)})
	if err != nil {
		panic(err)
	}
	ir, err := w.AddBody(rod)
	if err != nil {
		panic(err)
	}
	hinge, err := constraint.NewHinge(w.Bodies, constraint.World, ir, pivot, mgl64.Vec3{0, 1, 0})
	if err != nil {
		panic(err)
	}
	if err := w.AddConstraint(hinge); err != nil {
		panic(err)
	}
	for w.Time() < 1-1e-9 {
		if _, err := w.Step(); err != nil {
			panic(err)
		}
	}
	c := rod.Pos.Sub(pivot)
	fmt.Printf("t = %.3f s: box at z = %.4f m, pendulum %.3f rad off the vertical\n",
		w.Time(), box.Pos[2], math.Atan2(c.X(), -c.Z()))
	// Output:
	// t = 1.000 s: box at z = 0.1000 m, pendulum -0.077 rad off the vertical
}

// Newton's cradle with Settings.Impacts = PropagatedImpacts: a ball
// arriving at 1 m/s at a row of four touching balls (restitution 1, no
// gravity) stops, and the last ball leaves at 1 m/s. With the default
// SimultaneousImpacts the four would leave together at 0.4 m/s and the
// first ball would come back at 0.6 m/s.
func ExampleImpacts() {
	// Explicit settings, not DefaultSettings: the zero Gravity is none.
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Impacts: stepper.PropagatedImpacts})
	if err != nil {
		panic(err)
	}
	const m, r = 0.2, 0.025
	ball, err := contact.NewSphere(r)
	if err != nil {
		panic(err)
	}
	var balls []*body.Body
	for i := 0; i < 5; i++ {
		x := 2 * r * float64(i) // touching
		if i == 0 {
			x -= 0.002 // 2 mm short of the row
		}
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: mgl64.Vec3{x, 0, 0}, Rot: mgl64.QuatIdent()})
		if err != nil {
			panic(err)
		}
		id, err := w.AddBody(b)
		if err != nil {
			panic(err)
		}
		if _, err := w.AddGeom(stepper.Geom{Body: id, Shape: ball, Material: stepper.Material{Restitution: 1}}); err != nil {
			panic(err)
		}
		balls = append(balls, b)
	}
	balls[0].Vel = mgl64.Vec3{1, 0, 0}
	for i := 0; i < 10; i++ {
		if _, err := w.Step(); err != nil {
			panic(err)
		}
	}
	for i, b := range balls {
		fmt.Printf("ball %d: %.3f m/s\n", i+1, math.Round(b.Vel[0]*1e3)/1e3+0) // +0: no "-0.000" for a rounding-level −1e-16
	}
	// Output:
	// ball 1: 0.000 m/s
	// ball 2: 0.000 m/s
	// ball 3: 0.000 m/s
	// ball 4: 0.000 m/s
	// ball 5: 1.000 m/s
}
