package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// The user's case for the projection's islands (selectProjectionRows):
// three clumps of nine tilted 0.1 m boxes, 1 m apart, dropped with
// DefaultSettings (h = 1/60 s, Regularized, sleeping on) onto a ground
// of friction 0.5, each clump a column 0.2 m a box from 0.15 m, 0.55 m
// and 0.95 m up, so that boxes land on boxes while others rest, stepped
// for 5 s. One world leaves the islands within ProjectionTolerance
// out of each projection solve, the other (projectAll) solves every
// island, the projection as it was. Checked:
//   - the same state hash after every step up to the first solve that left
//     an island out (before it, the two solves are the same rows in the same
//     order);
//   - the islands are left out (pleft > 0);
//   - after every step with a projection solve, each rigid error of both
//     worlds is within ProjectionTolerance (Stats.MaxViolation, the same
//     tolerance the iteration stops at), unless MaxProjections solves ran;
//   - the same number of solves over the run, within 10 % (the trajectories
//     part by rounding after the first left-out island), and every box of
//     both worlds at rest at the end (under 0.2 m, 0.05 m/s).
func TestProjectionIslandsDroppedBoxes(t *testing.T) {
	a, b := droppedClumps(t), droppedClumps(t)
	b.ws.projection.projectAll = true
	const steps = 300
	same := true
	solves := [2]int{}
	for s := 1; s <= steps; s++ {
		left := a.ws.projection.pleft
		for i, w := range []*World{a, b} {
			st, err := w.Step()
			if err != nil {
				t.Fatal(err)
			}
			solves[i] += st.Projections
			if st.Projections > 0 && st.Projections < MaxProjections && st.MaxViolation > ProjectionTolerance {
				t.Errorf("step %d, world %d: %d projection solves left an error of %g m, want ≤ %g", s, i, st.Projections, st.MaxViolation, ProjectionTolerance)
			}
		}
		if same && stateHash(a) != stateHash(b) {
			if a.ws.projection.pleft == left {
				t.Fatalf("step %d: state hashes differ, no island left out of a solve", s)
			}
			t.Logf("step %d: the first solve that left an island out (%d)", s, a.ws.projection.pleft-left)
			same = false
		}
	}
	t.Logf("%d islands left out; %d projection solves, %d solving every island", a.ws.projection.pleft, solves[0], solves[1])
	if a.ws.projection.pleft == 0 {
		t.Error("no island was left out of a projection solve")
	}
	if b.ws.projection.pleft != 0 {
		t.Errorf("projectAll left %d islands out", b.ws.projection.pleft)
	}
	if d := solves[0] - solves[1]; 10*d > solves[1] || -10*d > solves[1] {
		t.Errorf("%d projection solves, %d solving every island: more than 10 %% apart", solves[0], solves[1])
	}
	for i, w := range []*World{a, b} {
		for _, bd := range w.Bodies {
			if bd.Pos.Z() > 0.5 || bd.Vel.Len() > 0.05 {
				t.Errorf("world %d: %s at height %.3g m, %.3g m/s after %d steps: not at rest", i, bd.Name, bd.Pos.Z(), bd.Vel.Len(), steps)
			}
		}
	}
}

// droppedClumps is the scene of TestProjectionIslandsDroppedBoxes: three
// columns of nine tilted 0.1 m boxes, 1 m apart, 0.2 m a box from 0.15 m,
// 0.55 m and 0.95 m up, over a ground of friction 0.5, DefaultSettings.
func droppedClumps(t *testing.T) *World {
	w, err := New(DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.Shape{Kind: contact.Plane}, Material: Material{Friction: 0.5}}); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		for k := range 9 {
			axis := mgl64.Vec3{1, float64(k%3) - 1, 0.5}.Normalize()
			pos := mgl64.Vec3{float64(c) + 0.06*float64(k%3), 0.06 * float64(k/3), 0.15 + 0.4*float64(c) + 0.2*float64(k)}
			addBox(t, w, 0.1, pos, mgl64.QuatRotate(0.2+0.1*float64(k), axis))
		}
	}
	return w
}
