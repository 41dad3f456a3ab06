package stepper_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// A range sensor above a 1 kg box resting on the ground reads the box's
// top; after a step, the ground carries the box's weight.
func ExampleWorld_Raycast() {
	s := stepper.DefaultSettings()
	s.Sleep.On = false
	w, _ := stepper.New(s)
	_, _ = w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: 0.5}})
	b, _ := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2), Pos: mgl64.Vec3{0, 0, 0.1}, Rot: mgl64.QuatIdent()})
	id, _ := w.AddBody(b)
	box, _ := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	_, _ = w.AddGeom(stepper.Geom{Body: id, Shape: box, Material: stepper.Material{Friction: 0.5}})

	hit, ok, err := w.Raycast(mgl64.Vec3{0, 0, 2}, mgl64.Vec3{0, 0, -1}, 10, nil)
	fmt.Printf("hit %v (err %v): body %d at %.3f m, normal %.0f\n", ok, err, hit.Body, hit.Dist, hit.Normal)

	for i := 0; i < 30; i++ {
		_, _ = w.Step()
	}
	for _, p := range w.ContactWrenches(nil) {
		fmt.Printf("bodies (%d, %d), %d points: upward force on %d %.3f N\n", p.A, p.B, p.Points, p.B, p.OnB.Force[2])
	}
	// Output:
	// hit true (err <nil>): body 0 at 1.800 m, normal [0 0 1]
	// bodies (-1, 0), 4 points: upward force on 0 9.810 N
}
