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
	cube, err := contact.NewBoxSize(mgl64.Vec3{1, 1, 1})
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
	wheel, _ := contact.NewCylinderLength(0.3, 0.2)
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

// A cylinder (r = 0.1 m, length 0.4 m) above a box, 1 cm clear of it
// and then sunk 2 mm in: GJK measures the gap, EPA the depth; the normal
// points from the box to the cylinder.
func ExampleDistance() {
	box, _ := contact.NewBoxSize(mgl64.Vec3{1, 1, 0.2})
	can, _ := contact.NewCylinderLength(0.1, 0.4)
	for _, z := range []float64{0.31, 0.298} {
		pose := contact.Pose{Pos: mgl64.Vec3{0.2, 0, z}, Rot: mgl64.QuatIdent()}
		sep, ok := contact.Distance(box, contact.IdentityPose(), can, pose)
		fmt.Printf("centre at z = %.3f m: ok %v, gap %+.4f m, normal·z %.6f\n", z, ok, sep.Gap, sep.Normal[2])
	}
	fmt.Println("cylinder-box supported:", contact.Supported(contact.Cylinder, contact.Box))
	fmt.Println("plane-plane supported:", contact.Supported(contact.Plane, contact.Plane))
	// Output:
	// centre at z = 0.310 m: ok true, gap +0.0100 m, normal·z 1.000000
	// centre at z = 0.298 m: ok true, gap -0.0020 m, normal·z 1.000000
	// cylinder-box supported: true
	// plane-plane supported: false
}

// A cylinder standing on a box face touches it at four rim points; lying
// on its side, along the line of its two lowest rim points.
func ExampleCollide_cylinderOnBox() {
	box, _ := contact.NewBoxSize(mgl64.Vec3{1, 1, 0.2})
	can, _ := contact.NewCylinderLength(0.1, 0.4)
	standing := contact.Pose{Pos: mgl64.Vec3{0, 0, 0.3}, Rot: mgl64.QuatIdent()}
	lying := contact.Pose{Pos: mgl64.Vec3{0, 0, 0.2}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})}
	for _, pose := range []contact.Pose{standing, lying} {
		pts := contact.Collide(nil, box, contact.IdentityPose(), can, pose, 0.001)
		fmt.Printf("%d points:", len(pts))
		for _, p := range pts {
			fmt.Printf(" (%+.1f, %+.1f) key %d", p.Pos[0], p.Pos[1], p.Key.B)
		}
		fmt.Println()
	}
	// Output:
	// 4 points: (-0.1, +0.0) key 0 (+0.0, +0.1) key 2 (+0.1, +0.0) key 4 (+0.0, -0.1) key 6
	// 2 points: (+0.0, +0.2) key 0 (+0.0, -0.2) key 1
}

// A tetrahedron's hull rests on a 1 m cube hull on its base: the base's
// three corners, over the cube's top face, are the contact points (in the
// base's loop order, counter-clockwise seen from outside the tetrahedron).
func ExampleNewConvex() {
	tet, err := contact.NewConvex([]mgl64.Vec3{{0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}}, 0)
	if err != nil {
		panic(err)
	}
	cube, err := contact.NewConvex([]mgl64.Vec3{
		{-0.5, -0.5, -0.5}, {0.5, -0.5, -0.5}, {-0.5, 0.5, -0.5}, {0.5, 0.5, -0.5},
		{-0.5, -0.5, 0.5}, {0.5, -0.5, 0.5}, {-0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}}, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(tet.Hull.Mesh().Faces), "faces,", len(cube.Hull.Mesh().Faces), "faces")
	// The tetrahedron's base (z = 0) 1 mm above the cube's top.
	pts := contact.Collide(nil, cube, contact.IdentityPose(), tet, contact.Pose{Pos: mgl64.Vec3{0, 0, 0.501}, Rot: mgl64.QuatIdent()}, 0.01)
	for _, p := range pts {
		fmt.Printf("(%.1f, %.1f): gap %.4f m, normal %v\n", p.Pos[0], p.Pos[1], p.Gap, p.Normal)
	}
	// Output:
	// 4 faces, 6 faces
	// (0.0, 0.0): gap 0.0010 m, normal [0 0 1]
	// (0.0, 0.2): gap 0.0010 m, normal [0 0 1]
	// (0.2, 0.0): gap 0.0010 m, normal [0 0 1]
}
