package stepper

import (
	"errors"
	"math"
	"slices"
	"strings"
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

// A sleeping body's free velocity is not computed by freeVelocities
// (updateAwake) but when a contact wakes it within the step: the woken
// island's bodies then hold the bits of Mass.updateRange over every body,
// free velocity, world inverse inertia and gyroscopic response, and the
// bodies still asleep a zero free velocity.
func TestWokenFreeVelocitySameBits(t *testing.T) {
	w := sleepingPile(t, true)
	w.wakeChanged()
	m := w.freeVelocities()
	var ref Mass
	ref.resize(w.Bodies)
	ref.updateRange(0, len(w.Bodies), w.Settings.H, w.Settings.Gravity)
	for i := range w.Bodies {
		if m.InvInertia[i] != ref.InvInertia[i] {
			t.Errorf("body %d before the wake: inverse inertia %v, want %v", i, m.InvInertia[i], ref.InvInertia[i])
		}
	}
	w.wakeIsland(0, m) // the first column, bodies 0–4
	for i := range w.Bodies {
		if w.Asleep(i) {
			if m.Free[i] != ([6]float64{}) {
				t.Errorf("sleeping body %d: free velocity %v, want 0", i, m.Free[i])
			}
			if m.InvInertia[i] != ref.InvInertia[i] {
				t.Errorf("sleeping body %d: inverse inertia %v, want %v", i, m.InvInertia[i], ref.InvInertia[i])
			}
			continue
		}
		if m.Free[i] != ref.Free[i] || m.InvInertia[i] != ref.InvInertia[i] || m.Gyroscopic[i] != ref.Gyroscopic[i] || m.Response[i] != ref.Response[i] {
			t.Errorf("woken body %d: free %v inverse inertia %v, want %v %v", i, m.Free[i], m.InvInertia[i], ref.Free[i], ref.InvInertia[i])
		}
	}
	if got := len(w.Bodies) - w.Sleeping(); got != 5 {
		t.Fatalf("%d bodies awake, want the column's 5", got)
	}
}

// The bounding boxes of sleeping geoms that collect takes from the kept
// entries (sleptBounds) are the bits geomBounds computes, and a sleeping
// geom whose shape or local pose changes (without World.Wake) gets its box
// at the new shape and pose, not the kept one. (With every body asleep
// collect returns before the boxes, noMovers; restOff makes it compute
// them, as it does when some body moves.)
func TestSleptBoundsSameBits(t *testing.T) {
	w := sleepingPile(t, true)
	w.ws.contacts.restOff = true
	check := func(when string) {
		t.Helper()
		cs := &w.ws.contacts
		margin := w.margin()
		for g := range w.Geoms {
			p := w.geomPose(g)
			if cs.poses[g] != p {
				t.Errorf("%s: geom %d pose %v, want %v", when, g, cs.poses[g], p)
			}
			if box := w.Geoms[g].Shape.Bounds(p, margin+cs.sweep[g]); cs.boxes[g] != box {
				t.Errorf("%s: geom %d box %v, want %v", when, g, cs.boxes[g], box)
			}
			if w.Asleep(w.Geoms[g].Body) && cs.sweep[g] != 0 {
				t.Errorf("%s: sleeping geom %d sweep %v, want 0", when, g, cs.sweep[g])
			}
		}
	}
	for range 3 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		check("asleep")
	}
	top := len(w.Geoms) - 1 // the last column's top box
	w.Geoms[top].Shape.Size = mgl64.Vec3{0.1, 0.1, 0.3}
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	check("shape changed")
	w.Geoms[top].Local.Pos = mgl64.Vec3{0, 0, 0.2}
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	check("local pose changed")
	if got := w.ws.contacts.boxes[top].Max[2]; got < 0.45+0.2+0.15 {
		t.Errorf("top box's box reaches %.3f m, want ≥ %.3f (body at 0.45 m, local 0.2 m, half height 0.15 m)", got, 0.45+0.2+0.15)
	}
}

// A sleeping body's kept world inverse inertia (sleptInvInertia) follows a
// new body-frame inertia set without World.Wake: freeVelocities gives it
// Body.InvInertiaWorld at the new inertia, not the kept one.
func TestSleptInvInertiaFollowsInertia(t *testing.T) {
	w := sleepingPile(t, true)
	for range 2 {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	const i = 7
	w.Bodies[i].Inertia = body.BoxInertia(1, 0.1, 0.2, 0.3)
	w.wakeChanged()
	m := w.freeVelocities()
	if !w.Asleep(i) {
		t.Fatal("body 7 woke: the test wants it asleep")
	}
	if want := w.Bodies[i].InvInertiaWorld(); m.InvInertia[i] != want {
		t.Errorf("inverse inertia %v, want %v", m.InvInertia[i], want)
	}
}

// The broad phase's mover path (moverPairs) gives the sweep's pairs, the
// same pairs in the same order, while a box dropped onto the sleeping
// 125-box pile falls, wakes its column and settles, and another lands
// beside the pile: at every step the
// pairs of the movers' boxes equal contact.SweepAndPrune.Pairs under the
// same skip rule, and the mover path ran.
func TestMoverPairsAsSweep(t *testing.T) {
	w := sleepingPile(t, true)
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	// One box beside the pile (its pair with the ground comes after the
	// column's pairs among the movers: moverPairs must sort), one onto the
	// first column.
	for _, p := range []mgl64.Vec3{{-0.3, 0, 0.2}, {0.001, -0.001, 0.7}} {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1), Pos: p, Rot: mgl64.QuatIdent()})
		if err != nil {
			t.Fatal(err)
		}
		id, err := w.AddBody(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
			t.Fatal(err)
		}
	}
	var sap contact.SweepAndPrune
	used, nonEmpty := 0, 0
	for s := 0; s < 200; s++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		cs := &w.ws.contacts
		want := sap.Pairs(nil, cs.boxes, cs.skip)
		if !w.moverPairs(cs) {
			continue
		}
		used++
		if len(cs.pairs) > 0 {
			nonEmpty++
		}
		if !slices.Equal(cs.pairs, want) {
			t.Fatalf("step %d: mover pairs %v, sweep %v", s, cs.pairs, want)
		}
	}
	t.Logf("mover path in %d of 200 steps, %d with pairs", used, nonEmpty)
	if used == 0 || nonEmpty == 0 {
		t.Errorf("mover path ran %d times, %d with pairs: the test compares nothing", used, nonEmpty)
	}
}

// checkFinite skips sleeping bodies, whose state is the finite one they
// fell asleep in: a sleeping body given a non-finite position wakes
// (wakeChanged) and the step reports it.
func TestSleepingNonFiniteReported(t *testing.T) {
	w := sleepingPile(t, true)
	w.Bodies[42].Pos[2] = math.Inf(1)
	_, err := w.Step()
	if !errors.Is(err, ErrNonFinite) {
		t.Fatalf("step error %v, want ErrNonFinite", err)
	}
	if !strings.Contains(err.Error(), "body 42") {
		t.Errorf("error %q does not name body 42", err)
	}
}

// noMovers, from wakeChanged's counts, says "no mover" exactly when the
// walk over the geoms it replaces does (some body sleeps and no geom's
// body wakes others, wakesOthers) in the states a settled pile passes
// through: all asleep; a kinematic body at rest, then moving; one island
// woken by an applied force. Added bodies start awake. (A dynamic body
// without a geom, awake, is the one case where they differ: the count
// says movers, the walk none; collect then runs its full path and finds
// the same no points.)
func TestNoMoversCount(t *testing.T) {
	w := sleepingPile(t, true)
	walk := func() bool {
		if w.sleep.sleeping == 0 {
			return false
		}
		for g := range w.Geoms {
			if w.wakesOthers(w.bodyOf(g)) {
				return false
			}
		}
		return true
	}
	check := func(when string, want bool) {
		t.Helper()
		w.wakeChanged()
		if got, ref := w.noMovers(), walk(); got != ref || got != want {
			t.Errorf("%s: noMovers %v, the geom walk %v, want %v", when, got, ref, want)
		}
	}
	check("all asleep", true)
	pusher, err := body.New(body.Params{Pos: mgl64.Vec3{5, 5, 0.11}, Rot: mgl64.QuatIdent(), Kinematic: true})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddBody(pusher)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: id, Shape: shape}); err != nil {
		t.Fatal(err)
	}
	check("a kinematic box at rest", true)
	pusher.Vel = mgl64.Vec3{0.5, 0, 0}
	check("the kinematic box moving", false)
	pusher.Vel = mgl64.Vec3{}
	check("the kinematic box stopped", true)
	w.Bodies[0].Force = mgl64.Vec3{1, 0, 0}
	check("a force on box 0", false)
	if w.Asleep(0) {
		t.Error("box 0 sleeps under a force")
	}
}
