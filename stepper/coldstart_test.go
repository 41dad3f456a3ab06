package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
)

// masonry returns a wall of 0.2 × 0.1 × 0.1 m, 4 kg bricks in running
// bond, rows of three and two alternating, 1 mm gaps, μ = 0.6, resting
// exactly on each other and on the ground (the geometry of the brick-wall
// scene, built here because scenes imports stepper).
func masonry(tb testing.TB, rows int) *World { return masonryMu(tb, rows, 0.6) }

// masonryMu is masonry with friction coefficient mu.
func masonryMu(tb testing.TB, rows int, mu float64) *World { return masonryPitch(tb, rows, mu, 0.201) }

// masonryPitch is masonryMu with the bricks' centres pitch apart in a row
// (the brick's 0.2 m length plus the gap).
func masonryPitch(tb testing.TB, rows int, mu, pitch float64) *World {
	w, err := New(Settings{H: 1.0 / 60, Gravity: StandardGravity})
	if err != nil {
		tb.Fatal(err)
	}
	mat := Material{Friction: mu}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: mat}); err != nil {
		tb.Fatal(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.1, 0.1})
	if err != nil {
		tb.Fatal(err)
	}
	for r := 0; r < rows; r++ {
		n, x0 := 3, -pitch
		if r%2 == 1 {
			n, x0 = 2, -pitch/2
		}
		for k := 0; k < n; k++ {
			b, err := body.New(body.Params{Mass: 4, Inertia: body.BoxInertia(4, 0.2, 0.1, 0.1),
				Pos: mgl64.Vec3{x0 + float64(k)*pitch, 0, 0.05 + 0.1*float64(r)}, Rot: mgl64.QuatIdent()})
			if err != nil {
				tb.Fatal(err)
			}
			id, err := w.AddBody(b)
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: mat}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return w
}

// Step 1 of a wall built at rest is a cold start: every contact is new. The
// new-contact pre-solve once needed 2 690 block-pivoting iterations at 30
// bricks and ran out of its whole 100 + 10 n budget (19 180) at 100 bricks,
// cycling in single pivots from a start with every brick–brick contact at
// its bound; started from the index sets of a few Gauss–Seidel sweeps it
// needs 5 to 8 (the bound of 20 leaves room for pivoting paths that change
// with rounding, and is still a thousand times below the old count).
func TestColdStartPreSolveIsShort(t *testing.T) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		w := masonry(t, c.rows)
		st, err := w.Step()
		if err != nil {
			t.Fatalf("%d bricks: %v", c.bricks, err)
		}
		if got := w.ws.presolve.eres.Iterations; got == 0 || got > 20 {
			t.Errorf("%d bricks: the pre-solve took %d iterations, want 1 to 20", c.bricks, got)
		}
		if w.ws.presolve.eres.Status != lcp.Converged {
			t.Errorf("%d bricks: the pre-solve ended %v", c.bricks, w.ws.presolve.eres.Status)
		}
		if st.BudgetHit || st.Status != lcp.Converged {
			t.Errorf("%d bricks: step 1 ended %v after %d iterations", c.bricks, st.Status, st.Iterations)
		}
	}
}

// A frictionless wall built at rest needs no pre-solve (there are no
// friction bounds to estimate), but its new normal rows start the step's
// solve from the Gauss–Seidel sweeps' index sets all the same: from the
// effective-mass start (every brick–brick contact at its bound, b_n = 0)
// block pivoting crawled through all 100 + 10 n = 1 980 iterations of the
// 30-brick wall's budget and returned an iterate that threw the bricks
// with 1.07 J, and the 200-brick wall hit the budget twice (39 J).
func TestColdStartFrictionless(t *testing.T) {
	for _, c := range []struct{ bricks, rows int }{{30, 12}, {100, 40}} {
		w := masonryMu(t, c.rows, 0)
		st, err := w.Step()
		if err != nil {
			t.Fatalf("%d bricks: %v", c.bricks, err)
		}
		if st.BudgetHit || st.Status != lcp.Converged || st.Iterations > 20 {
			t.Errorf("%d bricks: step 1 ended %v after %d iterations, want converged in at most 20", c.bricks, st.Status, st.Iterations)
		}
		if st.SeedSweeps == 0 || st.PreSolveIterations != 0 {
			t.Errorf("%d bricks: %d seed sweeps, %d pre-solve iterations; want sweeps and no pre-solve", c.bricks, st.SeedSweeps, st.PreSolveIterations)
		}
		// At rest: rounding of the rigid rows (1e-15 J measured).
		if st.Kinetic > 1e-9 {
			t.Errorf("%d bricks: kinetic energy %.3g J after step 1, want the wall at rest", c.bricks, st.Kinetic)
		}
	}
}

// After the pre-solve the new contacts' friction rows start the step's
// solve free (static friction), not at the lower bound they had in the
// pre-solve, where they were pinned at zero: at the lower bound of ±μ x̂ₙ
// every new contact would start by pushing sideways with its full friction
// (on a 200-brick wall with a few hundred new contacts that start had 1 438
// infeasible rows and the solve ran out of its budget).
func TestNewFrictionRowsStartFree(t *testing.T) {
	w := masonry(t, 4)
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	// Step 1: every contact is new, so every friction row must start free.
	nf := 0
	for i := range w.ws.contacts.points {
		pt := &w.ws.contacts.points[i]
		if !pt.Fresh || pt.Mu == 0 {
			continue
		}
		for r := pt.Row + 1; r < pt.Row+pt.Rows; r++ {
			nf++
			if w.ws.build.start[r] != lcp.Free {
				t.Errorf("point %d: friction row %d starts %v", i, r, w.ws.build.start[r])
			}
		}
	}
	if nf == 0 {
		t.Fatal("no new frictional contact on step 1")
	}
}

// Two 30-brick walls 3 m apart built at rest are two islands, whose step-1
// problems the stepper solves apart (solveIslands) after one pre-solve of
// the whole world. Each island's solve takes the pre-solve's x on its rows
// as its lcp.Settings.Reference, as the world's solve of one wall does,
// and so needs the iterations of one wall alone: 1 (from x̄ = 0 an island
// took 6, as the wall alone did).
func TestColdStartIslandsTakeThePreSolve(t *testing.T) {
	one := masonry(t, 12)
	st1, err := one.Step()
	if err != nil {
		t.Fatal(err)
	}
	two := masonry(t, 12)
	nb := len(two.Bodies)
	for i := 0; i < nb; i++ {
		b := *two.Bodies[i]
		b.Pos = b.Pos.Add(mgl64.Vec3{0, 3, 0})
		id, err := two.AddBody(&b)
		if err != nil {
			t.Fatal(err)
		}
		g := two.Geoms[i+1] // geom 0 is the ground
		g.Body = id
		if _, err := two.AddGeom(g); err != nil {
			t.Fatal(err)
		}
	}
	st2, err := two.Step()
	if err != nil {
		t.Fatal(err)
	}
	if len(st2.Islands) != 2 {
		t.Fatalf("%d islands, want the two walls", len(st2.Islands))
	}
	if st1.PreSolveIterations == 0 || st2.PreSolveIterations == 0 {
		t.Fatalf("pre-solve iterations %d and %d: step 1 has new contacts", st1.PreSolveIterations, st2.PreSolveIterations)
	}
	for k, is := range st2.Islands {
		t.Logf("island %d: %d rows, %d iterations (one wall: %d rows, %d)", k, is.Rows, is.Iterations, st1.Rows, st1.Iterations)
		if is.Rows != st1.Rows || is.Status != lcp.Converged || is.Iterations > st1.Iterations || is.Iterations > 2 {
			t.Errorf("island %d: %d rows, %v after %d iterations; one wall: %d rows, %d iterations", k, is.Rows, is.Status, is.Iterations, st1.Rows, st1.Iterations)
		}
	}
}
