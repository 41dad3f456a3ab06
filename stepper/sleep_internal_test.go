package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
)

// A box dropped onto one column of the sleeping 125-box pile wakes that
// column's island only (its 5 boxes; the columns stand 2 mm apart, beyond
// the contact margin, so each is an island of its own): the other 120
// boxes sleep throughout and keep their bits, the 5 + 1 boxes sleep again
// once the new one rests, and the step with only the woken column awake
// has its 6 boxes' 24 contact points, not the whole pile's 504.
func TestSleepPileWakesOneColumn(t *testing.T) {
	w := sleepingPile(t, true)
	n := len(w.Bodies)
	saved := make([]mgl64.Vec3, n)
	for i, b := range w.Bodies {
		saved[i] = b.Pos
	}
	b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1),
		Pos: mgl64.Vec3{0, 0, 0.7}, Rot: mgl64.QuatIdent()})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddBody(b)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
		t.Fatal(err)
	}
	least, contacts := n, 0
	for s := 0; s < 300 && !w.Asleep(id); s++ {
		st, err := w.Step()
		if err != nil {
			t.Fatal(err)
		}
		least = min(least, st.Sleeping)
		if st.Sleeping == n-5 {
			contacts = max(contacts, st.Contacts)
		}
	}
	if !w.Asleep(id) {
		t.Fatal("the dropped box never sleeps")
	}
	t.Logf("fewest asleep %d of %d; %d contact points with the column awake", least, n, contacts)
	if least != n-5 {
		t.Errorf("fewest asleep: %d, want %d (one column woken)", least, n-5)
	}
	if contacts != 24 {
		t.Errorf("contact points with one column awake: %d, want 24 (5 stacked + 1 dropped boxes, 4 each)", contacts)
	}
	if w.Sleeping() != n+1 {
		t.Errorf("asleep at the end: %d, want %d", w.Sleeping(), n+1)
	}
	for i := 5; i < n; i++ { // the first column is bodies 0–4
		if w.Bodies[i].Pos != saved[i] {
			t.Errorf("body %d moved: %v → %v", i, saved[i], w.Bodies[i].Pos)
		}
	}
}
