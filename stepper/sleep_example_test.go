package stepper_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// Sleeping under DefaultSettings: a box dropped 0.4 m lands after about
// 0.3 s and falls asleep 0.5 s after it stopped moving; a push wakes it.
func ExampleSleep() {
	w, err := stepper.New(stepper.DefaultSettings()) // Sleep.On, h = 1/60 s
	if err != nil {
		panic(err)
	}
	if _, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(),
		Material: stepper.Material{Friction: 0.5}}); err != nil {
		panic(err)
	}
	box, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2),
		Pos: mgl64.Vec3{0, 0, 0.5}, Rot: mgl64.QuatIdent()})
	if err != nil {
		panic(err)
	}
	i, err := w.AddBody(box)
	if err != nil {
		panic(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	if err != nil {
		panic(err)
	}
	if _, err := w.AddGeom(stepper.Geom{Body: i, Shape: shape, Material: stepper.Material{Friction: 0.5}}); err != nil {
		panic(err)
	}
	for !w.Asleep(i) {
		if _, err := w.Step(); err != nil {
			panic(err)
		}
	}
	fmt.Printf("asleep at t = %.3f s, z = %.4f m\n", w.Time(), box.Pos[2])
	box.ApplyForce(mgl64.Vec3{20, 0, 0}) // a load wakes the island at the next step
	st, err := w.Step()
	if err != nil {
		panic(err)
	}
	fmt.Printf("pushed: asleep %v, %d sleeping, v = %.4f m/s\n", w.Asleep(i), st.Sleeping, box.Vel[0])
	// Output:
	// asleep at t = 0.783 s, z = 0.1000 m
	// pushed: asleep false, 0 sleeping, v = 0.2516 m/s
}
