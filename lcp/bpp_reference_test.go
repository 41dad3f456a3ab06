package lcp

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// twoRedundant is two identical contact rows, A = [1 1; 1 1], b = (−1, −1),
// x ≥ 0: a singular A whose solutions are the segment x₁ + x₂ = 1, x ≥ 0,
// all with w = 0 (two contacts sharing one load). BPP solves it in
// regularized mode; which point of the segment it returns depends on the
// proximal centre x̄ it starts from.
func twoRedundant() *Problem {
	inf := math.Inf(1)
	return &Problem{A: NewDense(2, 2, []float64{1, 1, 1, 1}), B: []float64{-1, -1},
		Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
}

// Settings.Reference is regularized mode's first proximal centre x̄. The
// regularized problem min ½xᵀAx + bᵀx + ½ε‖x − x̄‖²_D has the solution x̄
// itself when x̄ solves the MLCP (both terms are least there), so a
// reference on the solution segment comes back exactly, in the first face
// solve, with no proximal move; one off the segment comes back projected
// onto it in D's norm, (1, 1) → (½, ½). Without a reference (x̄ = 0) the
// answer is the projection of 0, (½, ½) less ε/(2(2 + ε)) in each entry,
// within regTol of the velocity scale (1e-6 m/s here). Rounding: the
// shifted block A + εD has condition number (2 + ε)/ε = 2·10⁶, so its
// solve is exact to about 2·10⁶ ulps along the segment (4e-10; 7e-11
// measured): 1e-9.
func TestBPPReferenceIsFirstProximalCentre(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		p := twoRedundant()
		if sparse {
			p = sparseOf(p)
		}
		var cold Result
		if err := (&BPP{}).Solve(&cold, p, Settings{}); err != nil || cold.Status != Converged {
			t.Fatalf("sparse %v: no reference: %v %v", sparse, cold.Status, err)
		}
		half := 1 / (2 + SemidefiniteShift)
		for i, v := range cold.X {
			if math.Abs(v-half) > 1e-9 {
				t.Errorf("sparse %v: no reference: x[%d] = %.17g, want 1/(2 + ε) = %.17g", sparse, i, v, half)
			}
		}
		for _, c := range []struct {
			ref, want []float64
		}{
			{[]float64{0.8, 0.2}, []float64{0.8, 0.2}},     // on the segment: itself
			{[]float64{0, 1}, []float64{0, 1}},             // its end: itself
			{[]float64{1, 1}, []float64{0.5, 0.5}},         // off it: projected
			{[]float64{0.7, 0.1}, []float64{0.8, 0.2}},     // below it: projected
			{[]float64{0.25, 0.75}, []float64{0.25, 0.75}}, // on it
		} {
			var r Result
			err := (&BPP{}).Solve(&r, p, Settings{Reference: c.ref})
			if err != nil || r.Status != Converged {
				t.Fatalf("sparse %v: reference %v: %v %v", sparse, c.ref, r.Status, err)
			}
			for i := range r.X {
				if math.Abs(r.X[i]-c.want[i]) > 1e-6 {
					t.Errorf("sparse %v: reference %v: x = %v, want %v", sparse, c.ref, r.X, c.want)
					break
				}
				if math.Abs(r.W[i]) > 1e-6 {
					t.Errorf("sparse %v: reference %v: w = %v, want 0 (a solution)", sparse, c.ref, r.W)
					break
				}
			}
			if r.Iterations > cold.Iterations {
				t.Errorf("sparse %v: reference %v: %d iterations, %d without", sparse, c.ref, r.Iterations, cold.Iterations)
			}
		}
		// On the segment: exact to rounding, and the caller's slice is
		// read, not written.
		ref := []float64{0.8, 0.2}
		var r Result
		if err := (&BPP{}).Solve(&r, p, Settings{Reference: ref}); err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.X[0]-0.8) > 1e-9 || math.Abs(r.X[1]-0.2) > 1e-9 {
			t.Errorf("sparse %v: reference on the segment: x = %.17g, want (0.8, 0.2) to rounding", sparse, r.X)
		}
		if !slices.Equal(ref, []float64{0.8, 0.2}) {
			t.Errorf("sparse %v: the solve wrote the reference: %v", sparse, ref)
		}
	}
}

// A positive definite problem never enters regularized mode, so a
// reference changes no bit of the answer: A = [2 1; 1 2], b = (−1, −1)
// gives x = (⅓, ⅓) either way.
func TestBPPReferenceIgnoredWhenDefinite(t *testing.T) {
	inf := math.Inf(1)
	p := &Problem{A: NewDense(2, 2, []float64{2, 1, 1, 2}), B: []float64{-1, -1},
		Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
	var a, b Result
	if err := (&BPP{}).Solve(&a, p, Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := (&BPP{}).Solve(&b, p, Settings{Reference: []float64{5, -3}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X, b.X) || !slices.Equal(a.W, b.W) || a.Iterations != b.Iterations {
		t.Errorf("with a reference x = %v (%d its), without %v (%d its)", b.X, b.Iterations, a.X, a.Iterations)
	}
	if math.Abs(a.X[0]-1.0/3) > 1e-15 {
		t.Errorf("x = %v, want (1/3, 1/3)", a.X)
	}
}

// A reference of the wrong length or with a non-finite entry is refused
// with an error naming the field, before the solve touches the result.
func TestBPPReferenceInvalid(t *testing.T) {
	for _, c := range []struct {
		ref  []float64
		want string
	}{
		{[]float64{1}, "Reference has 1 entries, problem has 2 rows"},
		{[]float64{0, math.NaN()}, "Reference[1]: must be finite"},
		{[]float64{math.Inf(-1), 0}, "Reference[0]: must be finite"},
	} {
		var r Result
		err := (&BPP{}).Solve(&r, twoRedundant(), Settings{Reference: c.ref})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("reference %v: error %v, want one containing %q", c.ref, err, c.want)
		}
		if r.X != nil {
			t.Errorf("reference %v: the refused solve wrote x = %v", c.ref, r.X)
		}
	}
}
