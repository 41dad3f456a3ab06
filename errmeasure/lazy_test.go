package errmeasure

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// SolveGuarded without a further Observer computes, per iterate, only the
// total its measure ranks by, and the other totals of the last and the
// kept iterate when the solve ends (Picker.settle). What it returns and
// what its Pickers report afterwards are the bits of the solve that
// computes every total per iterate (an Observer that does nothing composed
// after the pickers keeps them eager): on every problem of
// testdata/mlcp's collection, with every solver, under every measure,
// the returned x, w, status and Solved, and each Picker's Best and
// LastTotals, compared bit for bit.
func TestLazyTotalsSameBits(t *testing.T) {
	solves, iterates := 0, 0
	for _, cp := range collectionProblems(t) {
		p := cp.p
		for _, name := range lcp.Names() {
			if name == "enum" && p.N() > lcp.EnumMaxRows {
				continue
			}
			for _, m := range []Measure{Energy, FB, Residual, Last, EnergyExact} {
				type run struct {
					r         lcp.Result
					sol       Solved
					pk, guard *Picker
				}
				solve := func(obs lcp.Observer) *run {
					s, _ := lcp.New(name)
					u := &run{pk: NewPicker(m), guard: NewPicker(m)}
					u.guard.RejectGain = true
					u.sol, _ = SolveGuarded(&u.r, p, s, lcp.Settings{Observer: obs}, u.pk, u.guard)
					return u
				}
				seen := 0
				lazy := solve(nil)
				eager := solve(lcp.ObserverFunc(func(lcp.Iterate) { seen++ }))
				iterates += seen
				solves++
				where := cp.name + ", " + name + ", " + m.String()
				if !sameBits(lazy.r.X, eager.r.X) || !sameBits(lazy.r.W, eager.r.W) || lazy.r.Status != eager.r.Status {
					t.Errorf("%s: x, w or status differ", where)
				}
				if !sameSolved(lazy.sol, eager.sol) {
					t.Errorf("%s: Solved %+v, eager %+v", where, lazy.sol, eager.sol)
				}
				for k, pair := range [][2]*Picker{{lazy.pk, eager.pk}, {lazy.guard, eager.guard}} {
					a, aok := pair[0].Best()
					b, bok := pair[1].Best()
					if aok != bok || a.Iter != b.Iter || !sameTotals(a.Totals, b.Totals) || !sameBits(a.X, b.X) || !sameBits(a.W, b.W) ||
						math.Float64bits(a.Value) != math.Float64bits(b.Value) {
						t.Errorf("%s: picker %d kept %+v, eager %+v", where, k, a, b)
					}
					la, aok := pair[0].LastTotals()
					lb, bok := pair[1].LastTotals()
					if aok != bok || !sameTotals(la, lb) {
						t.Errorf("%s: picker %d LastTotals %+v, eager %+v", where, k, la, lb)
					}
				}
			}
		}
	}
	if solves < 500 || iterates < 2000 {
		t.Fatalf("only %d solves with %d iterates compared", solves, iterates)
	}
}

func sameTotals(a, b Totals) bool {
	return sameBits([]float64{a.FB, a.Residual, a.Energy}, []float64{b.FB, b.Residual, b.Energy})
}

func sameSolved(a, b Solved) bool {
	return a.Picked == b.Picked && sameTotals(a.Totals, b.Totals) && a.FromPicker == b.FromPicker &&
		a.SolverStatus == b.SolverStatus && a.SolverReason == b.SolverReason &&
		sameBits([]float64{a.Residual, a.Bound}, []float64{b.Residual, b.Bound}) && a.Sweeps == b.Sweeps
}

// measureAll is Compute, maxResidual and CertifiedBound in one pass, with
// their bits, on rows inside and outside their boxes, at bounds, with
// infinite bounds and with NaN and infinite entries.
func TestMeasureAllSameBits(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1e-300, -2.5, 3, 1e300, math.Inf(1), math.Inf(-1), math.NaN()}
	bounds := [][2]float64{{0, math.Inf(1)}, {-1, 1}, {math.Inf(-1), math.Inf(1)}, {2, 2}, {-3, 0}}
	cases := 0
	for _, bd := range bounds {
		for _, x := range vals {
			for _, w := range vals {
				for _, a := range []float64{0.7, 0, math.Inf(1)} {
					// One odd row between two ordinary ones, so that an
					// early exit or a NaN shows in the sums.
					p := &lcp.Problem{
						A:  lcp.NewDense(3, 3, []float64{2, 0, 0, 0, a, 0, 0, 0, 1}),
						B:  []float64{-1, 0, 0.5},
						Lo: []float64{0, bd[0], -1},
						Hi: []float64{math.Inf(1), bd[1], 1},
					}
					xs, ws := []float64{0.5, x, 0.25}, []float64{0, w, -0.125}
					am := []float64{0.5, a, 1}
					tot, res, bound := measureAll(p, xs, ws, am)
					want := Compute(p, xs, ws, am)
					if !sameTotals(tot, want) {
						t.Errorf("x %v, w %v, box %v, a %v: totals %+v, want %+v", x, w, bd, a, tot, want)
					}
					if r := maxResidual(p, xs, ws); math.Float64bits(r) != math.Float64bits(res) {
						t.Errorf("x %v, w %v, box %v: residual %v, want %v", x, w, bd, res, r)
					}
					if b := CertifiedBound(p, xs, ws); math.Float64bits(b) != math.Float64bits(bound) {
						t.Errorf("x %v, w %v, box %v: bound %v, want %v", x, w, bd, bound, b)
					}
					if e := energyTotal(p, xs, ws, am); math.Float64bits(e) != math.Float64bits(want.Energy) {
						t.Errorf("x %v, w %v, box %v, a %v: energy %v, want %v", x, w, bd, a, e, want.Energy)
					}
					cases++
				}
			}
		}
	}
	if cases != len(bounds)*len(vals)*len(vals)*3 {
		t.Fatalf("%d cases", cases)
	}
}
