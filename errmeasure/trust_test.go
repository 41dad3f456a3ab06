package errmeasure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

func dense(t testing.TB, rows [][]float64) *lcp.Dense {
	t.Helper()
	a, err := lcp.DenseFromRows(rows)
	must(t, err)
	return a
}

// TestInverseMassRules checks each rule of InverseMass on a matrix where it
// decides, against the value worked out by hand.
func TestInverseMassRules(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		rows [][]float64
		want []float64
	}{
		// Rule 1 only: the diagonal.
		{"positive diagonal", [][]float64{{2, 1}, {1, 3}}, []float64{2, 3}},
		// Rule 2: A⁻¹ = [[1, −1], [1, 0]], so ā₀ = 1/{A⁻¹}₀₀ = 1.
		{"exact", [][]float64{{0, 1}, {-1, 1}}, []float64{1, 1}},
		// Rule 3: {A⁻¹}₀₀ = −4/4 = −1 < 0, so â₀ = |2·2|/4 = 1.
		{"coupling", [][]float64{{0, 2}, {2, 4}}, []float64{1, 4}},
		// Rule 4: a skew 2×2: {A⁻¹}ᵢᵢ = 0 and no neighbour with mass.
		{"isolated", [][]float64{{0, 1}, {-1, 0}}, []float64{1, 1}},
		// A negative diagonal (not PSD): A⁻¹ = −⅓[[1, −1], [−1, −2]] has
		// {A⁻¹}₀₀ = −⅓ < 0; the coupling rule gives |1·1|/1 = 1.
		{"negative diagonal", [][]float64{{-2, 1}, {1, 1}}, []float64{1, 1}},
	}
	for _, c := range cases {
		p := &lcp.Problem{A: dense(t, c.rows), B: make([]float64, 2), Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
		got := InverseMass(nil, p)
		for i := range got {
			near(t, c.name, c.want[i], got[i], 1e-12) // hand values; rounding of a 2×2 inverse
		}
	}
}

// TestEnergyDefinedOnEveryRow: on rows with aᵢᵢ ≤ 0 a violated bound or a
// velocity of the wrong sign has a positive, finite energy error (it was 0
// for a bound violation and +Inf for an unbounded row with w ≠ 0), and a
// solution still has 0.
func TestEnergyDefinedOnEveryRow(t *testing.T) {
	inf := math.Inf(1)
	// A circuit-like MLCP: row 0 an equation with zero diagonal (the
	// current through a voltage source), row 1 a diode (x ≥ 0).
	p := &lcp.Problem{A: dense(t, [][]float64{{0, 1}, {-1, 2}}), B: []float64{-1, 0}, Lo: []float64{-inf, 0}, Hi: []float64{inf, inf}}
	// Solution: w₀ = x₁ − 1 = 0 → x₁ = 1; w₁ = −x₀ + 2 = 0 → x₀ = 2.
	sol := []float64{2, 1}
	if e := TotalOf(Energy, p, sol, p.Residual(nil, sol), nil); e != 0 {
		t.Errorf("energy of the solution = %v, want 0", e)
	}
	for _, x := range [][]float64{{2, -0.5}, {0, 0}, {5, 1}, {2, 3}} {
		w := p.Residual(nil, x)
		tot := Compute(p, x, w, nil)
		if !(tot.Energy > 0) || math.IsInf(tot.Energy, 0) {
			t.Errorf("x = %v, w = %v: energy %v, want positive and finite", x, w, tot.Energy)
		}
	}
}

// TestPickerNeverPrefersBoundViolation proves the Picker's rule on random
// problems, zero-diagonal rows included: whenever one of two iterates with
// finite totals violates a bound and the other does not, the Picker keeps
// the one that does not, in either order of arrival and under every
// measure, whatever their totals.
func TestPickerNeverPrefersBoundViolation(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	pairs := 0
	for k := 0; k < 1000; k++ {
		n := 2 + rng.IntN(6)
		p, x, _ := randomSolved(rng, n)
		if k%2 == 1 { // zero some diagonal entries (circuit rows)
			a := p.A.(*lcp.Dense)
			for i := 0; i < n; i += 2 {
				a.Set(i, i, 0)
			}
		}
		mk := func(iter int, scale float64) lcp.Iterate {
			xi := append([]float64(nil), x...)
			for i := range xi {
				xi[i] += scale * rng.NormFloat64()
			}
			return lcp.Iterate{Iter: iter, X: xi, W: p.Residual(nil, xi), SatisfiesEq2: true}
		}
		inBox := func(x []float64) bool {
			for i, v := range x {
				if v < p.Lo[i] || v > p.Hi[i] {
					return false
				}
			}
			return true
		}
		a, b := mk(1, 1e-3), mk(2, math.Exp(2*rng.NormFloat64()))
		va, vb := inBox(a.X), inBox(b.X)
		if va == vb {
			continue
		}
		pairs++
		good := a
		if vb {
			good = b
		}
		pk := NewPicker(Energy)
		for _, m := range []Measure{Energy, FB, Residual} {
			for _, order := range [][]lcp.Iterate{{a, b}, {b, a}} {
				pk.Reset(p, m)
				for _, it := range order {
					pk.Observe(it)
				}
				got, _ := pk.Best()
				ta, tb := Compute(p, a.X, a.W, nil), Compute(p, b.X, b.W, nil)
				if math.IsInf(ta.Of(m), 0) || math.IsInf(tb.Of(m), 0) {
					continue
				}
				if got.Iter != good.Iter {
					t.Fatalf("%v picked iterate %d (violates a bound), want %d: totals %v vs %v", m, got.Iter, good.Iter, ta.Of(m), tb.Of(m))
				}
			}
		}
	}
	if pairs < 100 {
		t.Fatalf("only %d pairs with one violating iterate: the test does not exercise the rule", pairs)
	}
}

// TestSolveStatusDescribesReturnedX: a solver that converges after visiting
// a bound-violating iterate that the energy measure rates 0 (a zero-diagonal
// row). The status must describe the x returned, under every pick.
func TestSolveStatusDescribesReturnedX(t *testing.T) {
	inf := math.Inf(1)
	// w = A x + b with A = [[0, 1], [−1, 0]] (skew), x₀ ≥ 0 free row 1:
	// solution x = (1, 1): w₀ = x₁ − 1 = 0, w₁ = −x₀ + 1 = 0.
	p := &lcp.Problem{A: dense(t, [][]float64{{0, 1}, {-1, 0}}), B: []float64{-1, 1}, Lo: []float64{0, -inf}, Hi: []float64{inf, inf}}
	its := [][]float64{{-1, 1}, {1, 1}} // an infeasible x₀ = −1 with w₀ = 0, then the solution
	solver := scripted{its: its}
	for _, m := range []Measure{Energy, FB, Residual, Last} {
		var r lcp.Result
		s, err := Solve(&r, p, &solver, lcp.Settings{}, NewPicker(m))
		must(t, err)
		if r.Status != lcp.Converged || s.Picked != 2 || r.X[0] != 1 {
			t.Errorf("%v: status %v, picked %d, x %v; want converged, 2, the solution", m, r.Status, s.Picked, r.X)
		}
	}
	// The same iterates in the other order: the solver "converges" on the
	// infeasible one. Its status is not believed.
	solver = scripted{its: [][]float64{{1, 1}, {-1, 1}}}
	for _, m := range []Measure{Energy, FB, Residual, Last} {
		var r lcp.Result
		s, err := Solve(&r, p, &solver, lcp.Settings{}, NewPicker(m))
		must(t, err)
		wantStatus, wantPick := lcp.Converged, 1
		if m == Last {
			wantStatus, wantPick = lcp.Unconverged, 2
		}
		if r.Status != wantStatus || s.Picked != wantPick || s.SolverStatus != lcp.Converged {
			t.Errorf("%v: status %v (%s), picked %d; want %v, %d", m, r.Status, r.Reason, s.Picked, wantStatus, wantPick)
		}
	}
}

// scripted is a Solver that reports fixed iterates and claims convergence
// on the last one.
type scripted struct{ its [][]float64 }

func (s *scripted) Name() string { return "scripted" }
func (s *scripted) Solve(dst *lcp.Result, p *lcp.Problem, set lcp.Settings) error {
	dst.X = append(dst.X[:0], s.its[len(s.its)-1]...)
	for k, x := range s.its {
		w := p.Residual(nil, x)
		if set.Observer != nil {
			set.Observer.Observe(lcp.Iterate{Iter: k + 1, X: x, W: w, SatisfiesEq2: true})
		}
	}
	dst.W = p.Residual(dst.W, dst.X)
	dst.Iterations = len(s.its)
	dst.Status = lcp.Converged
	return nil
}
