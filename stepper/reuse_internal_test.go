package stepper

import (
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// The next step's narrow phase takes the projection's recorded points
// (pairReuse) and leaves every bit as colliding every pair does: a pile
// of 36 boxes falling onto the ground and a resting stack of three, one
// world with the recording, one without (pairReuse.off), have the same
// state hash (poses, velocities, solution, warm starts, contact memory)
// and the same contact points, bit for bit, after each of 90 steps (the
// fall, the landing with its projection solves, the settling), on one
// worker and on two (the pile's 144 candidate pairs go in chunks on the
// workPool). At step 70 a box is moved by 1 mm in both worlds: its pairs
// collide afresh. The recorded points serve most of the steps' pairs:
// more than 10 per step on average (the resting stack's from the first
// steps, the pile's after it lands).
func TestPairReuseSameBits(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("procs", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			a, b := cancelPile(t, 6), cancelPile(t, 6)
			b.ws.contacts.reuse.off = true
			const steps = 90
			for s := 1; s <= steps; s++ {
				if s == 70 {
					for _, w := range []*World{a, b} {
						w.Bodies[5].Pos = w.Bodies[5].Pos.Add(mgl64.Vec3{0.001, 0, 0})
					}
				}
				stepBoth(t, 1, a, b)
				if stateHash(a) != stateHash(b) {
					t.Fatalf("step %d: state hashes differ", s)
				}
				if err := samePoints(a, b); err != nil {
					t.Fatalf("step %d: %v", s, err)
				}
			}
			hits := a.ws.contacts.reuse.hits.Load()
			t.Logf("%d pairs took recorded points in %d steps", hits, steps)
			if hits <= 10*steps {
				t.Errorf("%d pairs took recorded points in %d steps, want more than %d", hits, steps, 10*steps)
			}
			if n := b.ws.contacts.reuse.hits.Load(); n != 0 {
				t.Errorf("%d pairs took recorded points with the recording off", n)
			}
		})
	}
}

// The user's case: boxes dropped with DefaultSettings (h = 1/60 s,
// sleeping on): nine of 0.1 m, 0.15 m apart, each turned about a tilted
// axis, tumble from 0.3–0.7 m onto the ground and are stepped for 3 s
// (the fall, the landings on edges and corners, settling, sleep). With
// and without the recorded points the worlds keep the same state hash
// after every step, every box ends on the ground or another box (under
// 0.2 m, not falling or bouncing: |v_z| ≤ 0.05 m/s; the ground has the
// zero Material, μ = 0, so a box may slide on: one slides at 0.058 m/s),
// and the recording serves some pairs (the settling boxes' before they
// sleep).
func TestPairReuseSameBitsDroppedBoxes(t *testing.T) {
	build := func() *World {
		w, err := New(DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.Shape{Kind: contact.Plane}}); err != nil {
			t.Fatal(err)
		}
		for k := range 9 {
			axis := mgl64.Vec3{1, float64(k%3) - 1, 0.5}.Normalize()
			pos := mgl64.Vec3{0.15 * float64(k%3), 0.15 * float64(k/3), 0.3 + 0.05*float64(k)}
			addBox(t, w, 0.1, pos, mgl64.QuatRotate(0.2+0.1*float64(k), axis))
		}
		return w
	}
	a, b := build(), build()
	b.ws.contacts.reuse.off = true
	const steps = 180
	for s := 1; s <= steps; s++ {
		stepBoth(t, 1, a, b)
		if stateHash(a) != stateHash(b) {
			t.Fatalf("step %d: state hashes differ", s)
		}
	}
	for _, bd := range a.Bodies {
		if bd.Pos.Z() > 0.2 || math.Abs(bd.Vel.Z()) > 0.05 {
			t.Errorf("%s at height %.3g m, %.3g m/s after %d steps: not at rest on the ground or another box", bd.Name, bd.Pos.Z(), bd.Vel.Len(), steps)
		}
	}
	hits := a.ws.contacts.reuse.hits.Load()
	t.Logf("%d pairs took recorded points in %d steps", hits, steps)
	if hits == 0 {
		t.Error("no pair took recorded points")
	}
}

// A recording collect after a projection solve (positionRows' again)
// takes the last recording's points of each pair the solve left at its
// bits (lookupPrev), and leaves every bit as colliding every pair: the
// user's case of droppedClumps (27 boxes dropped with DefaultSettings,
// h = 1/60 s, whose projection solves correct a landing clump and leave
// the resting ones, selectProjectionRows), with and without the
// recording (pairReuse.off), the same state hash after each of 300 steps;
// more than 100 pairs take the points recorded before a solve.
func TestPairReuseAfterSolveSameBits(t *testing.T) {
	a, b := droppedClumps(t), droppedClumps(t)
	b.ws.contacts.reuse.off = true
	const steps = 300
	for s := 1; s <= steps; s++ {
		stepBoth(t, 1, a, b)
		if stateHash(a) != stateHash(b) {
			t.Fatalf("step %d: state hashes differ", s)
		}
	}
	re := a.ws.contacts.reuse.rehits.Load()
	t.Logf("%d pairs took the points recorded before a projection solve, %d recorded points in all", re, a.ws.contacts.reuse.hits.Load())
	if re <= 100 {
		t.Errorf("%d pairs took the points recorded before a projection solve, want more than 100", re)
	}
	if n := b.ws.contacts.reuse.hits.Load(); n != 0 {
		t.Errorf("%d pairs took recorded points with the recording off", n)
	}
}
