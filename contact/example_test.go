package contact_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
)

// A 1 m cube resting 1 mm above the ground: the four bottom vertices.
func ExampleCollide() {
	ground := contact.NewPlane()
	cube, err := contact.NewBoxHalf(mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		panic(err)
	}
	pose := contact.Pose{Pos: mgl64.Vec3{0, 0, 0.501}, Rot: mgl64.QuatIdent()}
	pts := contact.Collide(nil, ground, contact.IdentityPose(), cube, pose, 0.01)
	for _, p := range pts {
		fmt.Printf("vertex %d at (%+.2f, %+.2f, %.4f): gap %.4f m, normal %v\n",
			p.Key.B&^contact.FeatureVertex, p.Pos[0], p.Pos[1], p.Pos[2], p.Gap, p.Normal)
	}
	// Output:
	// vertex 0 at (-0.50, -0.50, 0.0005): gap 0.0010 m, normal [0 0 1]
	// vertex 1 at (+0.50, -0.50, 0.0005): gap 0.0010 m, normal [0 0 1]
	// vertex 2 at (-0.50, +0.50, 0.0005): gap 0.0010 m, normal [0 0 1]
	// vertex 3 at (+0.50, +0.50, 0.0005): gap 0.0010 m, normal [0 0 1]
}

// A wheel standing on the ground touches it along a line: one point at
// each rim end.
func ExampleCollide_wheel() {
	wheel, _ := contact.NewCylinder(0.3, 0.1)
	pose := contact.Pose{Pos: mgl64.Vec3{0, 0, 0.299}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})}
	for _, p := range contact.Collide(nil, contact.NewPlane(), contact.IdentityPose(), wheel, pose, 0.01) {
		fmt.Printf("rim end %d: y = %+.1f, gap %.3f m\n", p.Key.B, p.Pos[1], p.Gap)
	}
	// Output:
	// rim end 0: y = +0.1, gap -0.001 m
	// rim end 1: y = -0.1, gap -0.001 m
}

func ExampleSweepAndPrune() {
	ball, _ := contact.NewSphere(0.5)
	centres := []mgl64.Vec3{{0, 0, 0}, {0.9, 0, 0}, {5, 0, 0}, {1.8, 0, 0}}
	boxes := make([]contact.AABB, len(centres))
	for i, c := range centres {
		boxes[i] = ball.Bounds(contact.Pose{Pos: c, Rot: mgl64.QuatIdent()}, 0)
	}
	var sap contact.SweepAndPrune
	fmt.Println(sap.Pairs(nil, boxes, nil))
	// Skip pairs that involve ball 0 (say, both on one body).
	fmt.Println(sap.Pairs(nil, boxes, func(i, j int) bool { return i == 0 }))
	// Output:
	// [[0 1] [1 3]]
	// [[1 3]]
}
