package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// A geom whose kind has no routine against a geom it could meet is an
// error naming both. Every kind pair has a routine today, so the check
// runs against a table without box–cylinder; geoms that never meet (one
// body, two static) are not checked.
func TestCheckPairsNamesTheGeoms(t *testing.T) {
	noBoxCyl := func(a, b contact.Kind) bool {
		return contact.Supported(a, b) && !(a == contact.Box && b == contact.Cylinder) && !(a == contact.Cylinder && b == contact.Box)
	}
	w, err := New(Settings{H: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	add := func(static bool) int {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.1), Static: static, Rot: mgl64.QuatIdent()})
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.AddBody(b)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	box := contact.Shape{Kind: contact.Box, Size: mgl64.Vec3{2, 2, 2}}
	cyl := contact.Shape{Kind: contact.Cylinder, Radius: 0.1, Length: 0.2}
	dyn, wall := add(false), add(true)
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: box}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: dyn, Shape: box}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		g    Geom
		want string
	}{
		{"static cylinder", Geom{Body: wall, Shape: cyl}, "geom 2: Shape: no collision routine for a cylinder (body 1) against geom 1's box (body 0); the two would pass through each other"},
		{"dynamic cylinder", Geom{Body: add(false), Shape: cyl}, "geom 2: Shape: no collision routine for a cylinder (body 2) against geom 0's box (body -1); the two would pass through each other"},
		{"on the box's own body", Geom{Body: dyn, Shape: cyl}, "geom 2: Shape: no collision routine for a cylinder (body 0) against geom 0's box (body -1); the two would pass through each other"},
	} {
		err := w.checkPairs(len(w.Geoms), tc.g, noBoxCyl)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	// A cylinder on a static body meets only the dynamic box; with both
	// boxes static it meets nothing and is accepted.
	w.Geoms = w.Geoms[:1]
	if err := w.checkPairs(1, Geom{Body: wall, Shape: cyl}, noBoxCyl); err != nil {
		t.Errorf("static cylinder against a fixed box: %v", err)
	}
	if err := w.checkPairs(1, Geom{Body: dyn, Shape: cyl}, contact.Supported); err != nil {
		t.Errorf("full table: %v", err)
	}
}
