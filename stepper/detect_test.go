package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// pile returns a world with k×k×k unit-spaced 0.1 m boxes resting on each
// other and on a ground plane (a 1000-box pile for k = 10).
func pile(tb testing.TB, k int) *World {
	w, err := New(Settings{H: 1.0 / 60, Gravity: StandardGravity})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: Material{Friction: 0.5}}); err != nil {
		tb.Fatal(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			for l := 0; l < k; l++ {
				b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1),
					Pos: mgl64.Vec3{0.102 * float64(i), 0.102 * float64(j), 0.05 + 0.1*float64(l)}, Rot: mgl64.QuatIdent()})
				if err != nil {
					tb.Fatal(err)
				}
				id, err := w.AddBody(b)
				if err != nil {
					tb.Fatal(err)
				}
				if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	return w
}

// The broad phase does not test all pairs: a 1000-box pile in columns
// gives only the 900 stacked pairs and the 100 ground pairs as candidates
// (not 1000·1001/2), and 4 contact points each.
func TestPileDetection(t *testing.T) {
	w := pile(t, 10)
	w.detectContacts(&Mass{}) // no free velocities: the boxes at rest, unswept
	if got := len(w.ws.contacts.pairs); got != 1000 {
		t.Errorf("candidate pairs: got %d, want 1000 (900 stacked + 100 on the ground)", got)
	}
	if got := len(w.ws.contacts.points); got != 4000 {
		t.Errorf("contact points: got %d, want 4000", got)
	}
}

// Detection alone (bounds, sweep and prune, narrow phase) for 1000 boxes.
func BenchmarkDetect1000Boxes(b *testing.B) {
	w := pile(b, 10)
	var rest Mass // no free velocities: the boxes at rest, unswept
	w.detectContacts(&rest)
	b.ReportAllocs()
	for b.Loop() {
		w.detectContacts(&rest)
	}
}
