package errmeasure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// TestSolveStatesDescribePick: under a budget, when the Picker returns an
// earlier iterate than the solver's last, dst.States are the index sets of
// its projection onto the box: AtLower or AtUpper exactly where x is at or
// beyond a bound. For a pick inside its box they are the face it was
// solved on: a BPP warm-started from them solves that face first, so its
// first iterate is the returned x again (to the rounding of the face
// solve). The solver's own final States, which the budget cut off, are
// another face on every such solve here.
func TestSolveStatesDescribePick(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 24))
	picked, differ, inside, outside := 0, 0, 0, 0
	for trial := 0; trial < 300 && picked < 20; trial++ {
		p := randomBoxProblem(rng, 12, 8, 0.05)
		var r lcp.Result
		pk := NewPicker(Energy)
		sol, err := Solve(&r, p, &lcp.BPP{}, lcp.Settings{MaxIterations: 3}, pk)
		if err != nil || !sol.FromPicker {
			continue
		}
		picked++
		// The solver's final index sets, for comparison: the same solve
		// without a Picker's substitution.
		var raw lcp.Result
		_ = (&lcp.BPP{}).Solve(&raw, p, lcp.Settings{MaxIterations: 3})
		last := raw.States
		same := true
		for i, s := range r.States {
			if s != last[i] {
				same = false
			}
			switch {
			case r.X[i] <= p.Lo[i] && s != lcp.AtLower, r.X[i] >= p.Hi[i] && p.Lo[i] != p.Hi[i] && s != lcp.AtUpper:
				t.Fatalf("trial %d row %d: x = %v at or beyond a bound of [%v, %v], state %v", trial, i, r.X[i], p.Lo[i], p.Hi[i], s)
			case r.X[i] > p.Lo[i] && r.X[i] < p.Hi[i] && s != lcp.Free:
				t.Fatalf("trial %d row %d: x = %v inside [%v, %v], state %v", trial, i, r.X[i], p.Lo[i], p.Hi[i], s)
			}
		}
		if !same {
			differ++
		}
		if !InBox(p, r.X) {
			outside++
			continue
		}
		inside++
		var again lcp.Result
		first := make([]float64, p.N())
		obs := lcp.ObserverFunc(func(it lcp.Iterate) {
			if it.Iter == 1 {
				copy(first, it.X)
			}
		})
		_ = (&lcp.BPP{}).Solve(&again, p, lcp.Settings{MaxIterations: 1, Start: r.States, Observer: obs})
		for i := range first {
			// The face solve of a 12-row SPD block: rounding, relative to
			// the largest impulse.
			if d := math.Abs(first[i] - r.X[i]); d > 1e-9*(1+math.Abs(r.X[i])) {
				t.Fatalf("trial %d row %d: the face of the returned States gives x = %v, the pick is %v", trial, i, first[i], r.X[i])
			}
		}
	}
	if inside < 5 {
		t.Fatalf("only %d picks inside their box", inside)
	}
	if picked < 20 {
		t.Fatalf("only %d budget-bound solves picked an earlier iterate", picked)
	}
	if differ == 0 {
		t.Fatal("the picked iterate's index sets were the solver's final ones on every solve: the test shows nothing")
	}
	t.Logf("%d solves picked an earlier iterate (%d inside their box, %d outside); on %d the solver's final index sets were another face", picked, inside, outside, differ)
}

// TestStatesOfOutsideBox: StatesOf gives the index sets of x's projection
// onto its box: a row beyond a bound is at that bound, a row with l = u at
// its lower bound, an unbounded row free.
func TestStatesOfOutsideBox(t *testing.T) {
	inf := math.Inf(1)
	p := &lcp.Problem{A: lcp.NewDense(6, 6, nil), B: make([]float64, 6),
		Lo: []float64{0, -1, -1, 0.5, -inf, 0},
		Hi: []float64{inf, 1, 1, 0.5, inf, inf}}
	x := []float64{-3, 2, 0.25, 0.5, -7, 0}
	got := make([]lcp.State, 6)
	StatesOf(got, p, x)
	want := []lcp.State{lcp.AtLower, lcp.AtUpper, lcp.Free, lcp.AtLower, lcp.Free, lcp.AtLower}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: x = %v in [%v, %v]: state %v, want %v", i, x[i], p.Lo[i], p.Hi[i], got[i], want[i])
		}
	}
	StatesOf(got[:2], p, x) // lengths differ: left alone
}
