package mesh_test

import (
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/mesh"
)

// The hull of a box's corners and a point inside: 8 vertices, 6
// quadrilateral faces, 12 edges.
func ExampleNewHull() {
	pts := []mgl64.Vec3{
		{0, 0, 0}, {2, 0, 0}, {0, 1, 0}, {2, 1, 0},
		{0, 0, 3}, {2, 0, 3}, {0, 1, 3}, {2, 1, 3},
		{1, 0.5, 1.5}, // inside
	}
	h, err := mesh.NewHull(pts, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(h.Vertices), "vertices,", len(h.Faces), "faces,", len(h.Edges), "edges")
	for f, loop := range h.Faces {
		fmt.Printf("face %d: corners %v, normal %v, offset %g\n", f, loop, h.Normals[f], h.Offsets[f])
	}
	v, _ := h.Support(mgl64.Vec3{1, 1, 1})
	fmt.Println("support along (1, 1, 1):", v, "contains (1, 1, 1):", h.Contains(mgl64.Vec3{1, 1, 1}))
	// Output:
	// 8 vertices, 6 faces, 12 edges
	// face 0: corners [0 1 5 4], normal [0 -1 0], offset 0
	// face 1: corners [2 6 7 3], normal [0 1 0], offset 1
	// face 2: corners [0 4 6 2], normal [-1 0 0], offset 0
	// face 3: corners [1 3 7 5], normal [1 0 0], offset 2
	// face 4: corners [0 2 3 1], normal [0 0 -1], offset 0
	// face 5: corners [4 5 7 6], normal [0 0 1], offset 3
	// support along (1, 1, 1): [2 1 3] contains (1, 1, 1): true
}

// The mass properties of a 2 × 1 × 3 m steel block's hull: m = 6 m³ ×
// 7800 kg/m³, centre (1, 0.5, 1.5), inertia diag(m(1+9)/12, m(4+9)/12,
// m(4+1)/12) — body.BoxInertia's values.
func ExampleHull_MassProperties() {
	pts := []mgl64.Vec3{
		{0, 0, 0}, {2, 0, 0}, {0, 1, 0}, {2, 1, 0},
		{0, 0, 3}, {2, 0, 3}, {0, 1, 3}, {2, 1, 3},
	}
	h, _ := mesh.NewHull(pts, 0)
	m, com, I, err := h.MassProperties(7800)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mass %.6g kg, com %.6g\n", m, com)
	fmt.Printf("Ixx %.6g, Iyy %.6g, Izz %.6g, products zero: %v\n", I.At(0, 0), I.At(1, 1), I.At(2, 2), I.At(0, 1) == 0 && I.At(1, 2) == 0 && I.At(0, 2) == 0)
	// Output:
	// mass 46800 kg, com [1 0.5 1.5]
	// Ixx 39000, Iyy 50700, Izz 19500, products zero: true
}

// An ASCII STL tetrahedron: four facets, welded into 4 shared vertices, so
// the mesh is closed and its volume 1/6 follows.
func ExampleReadSTL() {
	facet := func(a, b, c string) string {
		return "facet normal 0 0 0\n outer loop\n  vertex " + a + "\n  vertex " + b + "\n  vertex " + c + "\n endloop\nendfacet\n"
	}
	o, x, y, z := "0 0 0", "1 0 0", "0 1 0", "0 0 1"
	src := "solid tet\n" + facet(o, y, x) + facet(o, x, z) + facet(o, z, y) + facet(x, y, z) + "endsolid tet\n"
	m, err := mesh.ReadSTL(strings.NewReader(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	vol, com, _, err := m.MassProperties(1)
	fmt.Println(len(m.Vertices), "vertices,", len(m.Triangles), "triangles")
	fmt.Printf("volume %.6g, centroid %.3g, %v\n", vol, com, err)
	// A corrupt file: one line naming where and what.
	_, err = mesh.ReadSTL(strings.NewReader("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zero\n"))
	fmt.Println(err)
	// Output:
	// 4 vertices, 4 triangles
	// volume 0.166667, centroid [0.25 0.25 0.25], <nil>
	// ASCII STL: line 4: vertex coordinate "zero" is not a finite number
}

// An OBJ unit cube with quadrilateral faces (v//vn corners), fanned into
// 12 triangles.
func ExampleReadOBJ() {
	src := `# unit cube
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
vn 0 0 1
f 1//1 4//1 3//1 2//1
f 5//1 6//1 7//1 8//1
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
`
	m, err := mesh.ReadOBJ(strings.NewReader(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	vol, com, I, err := m.MassProperties(1000)
	fmt.Println(len(m.Vertices), "vertices,", len(m.Triangles), "triangles")
	fmt.Printf("mass %.6g, com %.3g, Ixx %.6g (1000/6), %v\n", vol, com, I.At(0, 0), err)
	// Output:
	// 8 vertices, 12 triangles
	// mass 1000, com [0.5 0.5 0.5], Ixx 166.667 (1000/6), <nil>
}
