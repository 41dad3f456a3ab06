package stepper

import (
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
		pa, pb := a.ws.contacts.points, b.ws.contacts.points
		if len(pa) != len(pb) {
			t.Fatalf("step %d: %d contact points, %d computing every pose", s, len(pa), len(pb))
		}
		for i := range pa {
			p, q := &pa[i], &pb[i]
			if !sameVec(&p.Point, &q.Point) || !sameVec(&p.Normal, &q.Normal) || math.Float64bits(p.Gap) != math.Float64bits(q.Gap) || p.ck != q.ck {
				t.Fatalf("step %d: point %d differs", s, i)
			}
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
