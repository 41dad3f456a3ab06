package study

import (
	"context"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
)

// RodIterate is the incorrect iterate of the rod example in the paper's
// row order (N·s): the direct method's guess x₁ = 0, w₂ = 0.
var RodIterate = [2]float64{0, -0.1019}

// RodRow is one line of the rod table.
type RodRow struct {
	Quantity string  // a name such as "A11", "energy_total_approx"
	Value    float64 // ours
	Unit     string
	Paper    string // the paper's printed value as a number, "" when it prints none
	Note     string // why ours and the paper's differ, or where the value comes from
}

// RodResult is the rod table.
type RodResult struct {
	Rows []RodRow
}

// Value returns the value of quantity q, and false if the table has no
// such row.
func (r *RodResult) Value(q string) (float64, bool) {
	for _, row := range r.Rows {
		if row.Quantity == q {
			return row.Value, true
		}
	}
	return 0, false
}

// Rod reproduces the rod example of A. Enzenhöfer, A. Peiret, M.
// Teichmann and J. Kövecses, "A Unit-Consistent Error Measure for
// Multibody Systems With Unilateral Constraints" (J. Comput. Nonlinear
// Dyn., 2019), §5.1–5.1.1 (Fig. 7, Eqs. 25–27): the registered rod scene
// takes one step, whose MLCP is Eq. (26); the table holds A, b, the exact
// solution, the exact effective masses of Eq. (27), and the FB (Eq. 7),
// natural-residual (Eq. 10) and energy (Eq. 23) errors of the paper's
// incorrect iterate x = RodIterate, with the paper's printed values.
//
// Two w go with that x. The paper uses w = [−0.2981, 0] m/s, whose w₁ is
// b₁ (it drops the coupling −0.5·x₂ of row 1); A x + b gives w₁ = −0.24715
// m/s. Both are reported, the second with the suffix _axb. The "approx"
// rows use the diagonal effective mass of Eq. (13), the "exact" rows Eq.
// (11). Options are ignored (one step); ctx is checked before the step.
func Rod(ctx context.Context, _ Options) (*RodResult, error) {
	if err := stopped(ctx, "rod"); err != nil {
		return nil, err
	}
	s, err := scenes.Lookup("rod")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(nil)
	if err != nil {
		return nil, err
	}
	if _, err := w.Step(); err != nil {
		return nil, fmt.Errorf("rod: first step: %w", err)
	}
	p := w.LastProblem()
	if p == nil || p.N() != 2 {
		n := 0
		if p != nil {
			n = p.N()
		}
		return nil, fmt.Errorf("rod: first step has %d constraint rows, want the two contacts of Eq. 26", n)
	}
	// The paper's row 1 is the contact whose b is negative (b₁ = −0.2981 m/s).
	r1, r2 := 0, 1
	if p.B[0] >= 0 && p.B[1] < 0 {
		r1, r2 = 1, 0
	} else if !(p.B[0] < 0 && p.B[1] >= 0) {
		return nil, fmt.Errorf("rod: b = %v: want one negative and one non-negative entry (Eq. 26)", p.B)
	}
	// The MLCP in the paper's order, so the error rows are the paper's rows.
	A, err := lcp.DenseFromRows([][]float64{
		{p.A.At(r1, r1), p.A.At(r1, r2)},
		{p.A.At(r2, r1), p.A.At(r2, r2)},
	})
	if err != nil {
		return nil, err
	}
	q := &lcp.Problem{A: A,
		B:  []float64{p.B[r1], p.B[r2]},
		Lo: []float64{p.Lo[r1], p.Lo[r2]},
		Hi: []float64{p.Hi[r1], p.Hi[r2]}}
	xs, _ := w.LastSolution()
	exact, err := errmeasure.ExactInverseMass(q.A)
	if err != nil {
		return nil, fmt.Errorf("rod: exact effective mass: %w", err)
	}

	rows := []RodRow{
		{"A11", q.A.At(0, 0), "kg^-1", "1", "printed 0.1: a typo for 4/m"},
		{"A12", q.A.At(0, 1), "kg^-1", "-0.5", ""},
		{"A22", q.A.At(1, 1), "kg^-1", "1", "printed 0.1"},
		{"b1", q.B[0], "m/s", "-0.2981", ""},
		{"b2", q.B[1], "m/s", "0.1019", ""},
		{"x1", xs[r1], "N·s", "0.32953", ""},
		{"x2", xs[r2], "N·s", "0.06287", ""},
		{"meff_exact1", 1 / exact[0], "kg", "1.33", "Eq. 27"},
		{"meff_exact2", 1 / exact[1], "kg", "1.33", "Eq. 27"},
		{"iterate_x1", RodIterate[0], "N·s", "0", ""},
		{"iterate_x2", RodIterate[1], "N·s", "-0.1019", ""},
	}
	x := RodIterate[:]
	paperW := []float64{q.B[0], 0} // the paper's w: w₁ = b₁, w₂ = 0
	axb := q.Residual(nil, x)
	for _, pair := range []struct {
		suffix string
		w      []float64
		paper  bool
		w1Note string
	}{{"", paperW, true, "= b1"}, {"_axb", axb, false, "= b1 − 0.5·x2"}} {
		pp := func(v string) string { // the paper's value or note, for its own pair only
			if pair.paper {
				return v
			}
			return ""
		}
		rows = append(rows,
			RodRow{"iterate_w1" + pair.suffix, pair.w[0], "m/s", pp("-0.2981"), pair.w1Note},
			RodRow{"iterate_w2" + pair.suffix, pair.w[1], "m/s", pp("0"), ""})
		ra, ta := errmeasure.Rows(nil, q, x, pair.w, nil)
		re, te := errmeasure.Rows(nil, q, x, pair.w, exact)
		rows = append(rows,
			RodRow{"energy1_approx" + pair.suffix, ra[0].Energy, "J", pp("4.44e-2"), ""},
			RodRow{"energy2_approx" + pair.suffix, ra[1].Energy, "J", pp("5.2e-3"), ""},
			RodRow{"energy_total_approx" + pair.suffix, ta.Energy, "J", pp("4.96e-2"), ""},
			RodRow{"energy1_exact" + pair.suffix, re[0].Energy, "J", pp("5.91e-2"), pp("paper rounds m_eff to 1.33 kg")},
			RodRow{"energy2_exact" + pair.suffix, re[1].Energy, "J", pp("3.9e-3"), pp("paper rounds m_eff to 1.33 kg")},
			RodRow{"energy_total_exact" + pair.suffix, te.Energy, "J", pp("6.30e-2"), pp("paper rounds m_eff to 1.33 kg")},
			RodRow{"fb1" + pair.suffix, ra[0].FB, "m/s", pp("0.2981"), ""},
			RodRow{"fb2" + pair.suffix, ra[1].FB, "N·s", pp("0.1019"), pp("paper: |x2|; Eq. 5 gives φ(-0.1019, 0) = 2·0.1019")},
			RodRow{"fb_total" + pair.suffix, ta.FB, "m/s + N·s (mixed)", "", pp("paper: 0.2981 m/s + 0.1019 N·s, unit-inconsistent")},
			RodRow{"residual1" + pair.suffix, ra[0].Residual, "m/s", "", ""},
			RodRow{"residual2" + pair.suffix, ra[1].Residual, "N·s", "", ""},
			RodRow{"residual_total" + pair.suffix, ta.Residual, "m/s + N·s (mixed)", "", pp("unit-inconsistent like FB")},
		)
	}
	for _, r := range rows {
		if !num.Finite(r.Value) {
			return nil, fmt.Errorf("rod: %s = %v", r.Quantity, r.Value)
		}
	}
	return &RodResult{Rows: rows}, nil
}
