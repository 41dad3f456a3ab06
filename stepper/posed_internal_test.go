package stepper

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// geomBounds' kept poses and Extents (posedGeom) leave every bit as
// computing each geom's pose and box afresh: the user's case of
// droppedClumps (27 boxes dropped with DefaultSettings, h = 1/60 s), one
// world with the kept poses, one without (posedOff), the same state hash
// and the same contact points after each of 300 steps (the fall, the
// landings with their projection solves, sleep). At step 100 a box is
// moved by 1 mm and one of another clump turned by 0.01 rad in both
// worlds. The kept poses serve: before some steps more than 10 awake geoms
// stand at the bits their entry was computed from (the next
// detectContacts takes them).
func TestPosedGeomSameBits(t *testing.T) {
	a, b := droppedClumps(t), droppedClumps(t)
	b.ws.contacts.posedOff = true
	const steps = 300
	most := 0
	for s := 1; s <= steps; s++ {
		if s == 100 {
			for _, w := range []*World{a, b} {
				w.Bodies[4].Pos = w.Bodies[4].Pos.Add(mgl64.Vec3{0.001, 0, 0})
				w.Bodies[14].Rot = mgl64.QuatRotate(0.01, mgl64.Vec3{0, 0, 1}).Mul(w.Bodies[14].Rot).Normalize()
				w.Wake(4)
				w.Wake(14)
			}
		}
		kept := 0
		cs := &a.ws.contacts
		for g := range cs.posed {
			c, gm := &cs.posed[g], &a.Geoms[g]
			if c.ok && gm.Body >= 0 && !a.sleep.asleepAt(gm.Body) && sameVec(&c.pos, &a.Bodies[gm.Body].Pos) && sameQuat(&c.rot, &a.Bodies[gm.Body].Rot) {
				kept++
			}
		}
		most = max(most, kept)
		stepBoth(t, 1, a, b)
		if stateHash(a) != stateHash(b) {
			t.Fatalf("step %d: state hashes differ", s)
		}
		if err := samePoints(a, b); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		for g := range a.ws.contacts.boxes {
			x, y := &a.ws.contacts.boxes[g], &b.ws.contacts.boxes[g]
			if !sameVec(&x.Min, &y.Min) || !sameVec(&x.Max, &y.Max) {
				t.Fatalf("step %d: geom %d's box differs", s, g)
			}
		}
	}
	t.Logf("at most %d geoms stood awake at their kept poses before a step", most)
	if most <= 10 {
		t.Errorf("at most %d geoms stood awake at their kept poses before a step, want more than 10", most)
	}
}

// collect's shortcut for a world with no mover (noMovers) leaves every
// bit as the full broad phase: droppedClumps (27 boxes dropped with
// DefaultSettings) stepped for 8 s, with and without the shortcut
// (restOff), has the same state hash and the same contact points after
// every step; the boxes fall asleep and the shortcut serves the steps
// after (more than 100 collects); at step 380 a sleeping box's shape
// grows by 2 cm without a wake, and at step 400 a box lifted by 0.3 m in
// both worlds wakes and falls back as in the reference.
func TestNoMoversSameBits(t *testing.T) {
	a, b := droppedClumps(t), droppedClumps(t)
	b.ws.contacts.restOff = true
	const steps = 480
	for s := 1; s <= steps; s++ {
		for _, w := range []*World{a, b} {
			switch s {
			case 380:
				w.Geoms[6].Shape.Size = mgl64.Vec3{0.1, 0.1, 0.12} // a sleeping box grown, not woken
			case 400:
				w.Bodies[20].Pos = w.Bodies[20].Pos.Add(mgl64.Vec3{0, 0, 0.3})
			}
		}
		stepBoth(t, 1, a, b)
		if stateHash(a) != stateHash(b) {
			t.Fatalf("step %d: state hashes differ", s)
		}
		if err := samePoints(a, b); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		if s == 399 && a.Sleeping() != len(a.Bodies) {
			t.Fatalf("step %d: %d of %d boxes asleep, want all", s, a.Sleeping(), len(a.Bodies))
		}
		if s == 401 && a.Asleep(20) {
			t.Fatalf("step %d: the lifted box still sleeps", s)
		}
	}
	t.Logf("%d collects found no mover", a.ws.contacts.rested)
	if a.ws.contacts.rested <= 100 {
		t.Errorf("%d collects found no mover, want more than 100", a.ws.contacts.rested)
	}
	if b.ws.contacts.rested != 0 {
		t.Errorf("%d collects took the shortcut with restOff", b.ws.contacts.rested)
	}
}

// samePoints returns an error naming the first difference between the
// step's contact points of a and b (count, position, normal, gap, key,
// bit for bit), nil when they are the same.
func samePoints(a, b *World) error {
	pa, pb := a.ws.contacts.points, b.ws.contacts.points
	if len(pa) != len(pb) {
		return fmt.Errorf("%d contact points, %d in the reference", len(pa), len(pb))
	}
	for i := range pa {
		p, q := &pa[i], &pb[i]
		if !sameVec(&p.Point, &q.Point) || !sameVec(&p.Normal, &q.Normal) || math.Float64bits(p.Gap) != math.Float64bits(q.Gap) || p.ck != q.ck {
			return fmt.Errorf("point %d differs", i)
		}
	}
	return nil
}
