package errmeasure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// TestSolveStatesDescribePick: under a budget, when the Picker returns an
// earlier iterate than the solver's last, dst.States are that iterate's
// index sets: a BPP warm-started from them solves the same face first, so
// its first iterate is the returned x again (to the rounding of the face
// solve), and the States say AtLower or AtUpper exactly where x sits on a
// bound. The solver's own final States, which the budget cut off, are
// another face on every such solve here.
func TestSolveStatesDescribePick(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 24))
	picked, differ := 0, 0
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
			case r.X[i] == p.Lo[i] && s != lcp.AtLower, r.X[i] == p.Hi[i] && p.Lo[i] != p.Hi[i] && s != lcp.AtUpper:
				t.Fatalf("trial %d row %d: x = %v on a bound [%v, %v], state %v", trial, i, r.X[i], p.Lo[i], p.Hi[i], s)
			case r.X[i] != p.Lo[i] && r.X[i] != p.Hi[i] && s != lcp.Free:
				t.Fatalf("trial %d row %d: x = %v inside [%v, %v], state %v", trial, i, r.X[i], p.Lo[i], p.Hi[i], s)
			}
		}
		if !same {
			differ++
		}
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
	if picked < 20 {
		t.Fatalf("only %d budget-bound solves picked an earlier iterate", picked)
	}
	if differ == 0 {
		t.Fatal("the picked iterate's index sets were the solver's final ones on every solve: the test shows nothing")
	}
	t.Logf("%d solves picked an earlier iterate; on %d the solver's final index sets were another face", picked, differ)
}
