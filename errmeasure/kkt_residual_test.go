package errmeasure_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// On the stepper's MLCP of the 30-brick wall (settled, 60 steps), whose A
// is assembled from its KKT blocks, BPP converges and SolveGuarded returns
// its x and its w bit for bit: the returned w = A x + b is taken in body
// space (lcp.Problem.ResidualKKT), the product BPP's face solves use on
// such a problem, instead of A's product (whose bits differ on some rows).
// Both are A x + b to rounding: within 1e-12 of the velocity scale
// max|b|, the rounding of sums of a few tens of terms of that size.
func TestSolveGuardedBodySpaceW(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	if err != nil {
		t.Fatal(err)
	}
	stepN(t, w, 60)
	if differ := checkGuardedW(t, w.LastProblem()); differ == 0 {
		t.Error("w has the bits of A's product on every row: the body-space product was not taken")
	}
}

// The user's case of the same: 30 boxes of random sizes dropped on the
// ground with stepper.DefaultSettings (h = 1/60 s, sleeping on), free
// bodies landing on one another. After 40 steps (0.67 s: boxes landed,
// others still falling onto them) the step's MLCP (201 rows of small
// heaps and lone boxes) has its KKT, but A's product is the cheaper there
// (lcp.BodyProduct.Cheaper is false: small islands' A has few entries
// beside J's, M⁻¹'s and Jᵀ's), so BPP and the guard both take A's: the
// guarded w is BPP's and A x + b bit for bit. Were the body-space product
// the cheaper, the checks of the wall above would hold instead.
func TestSolveGuardedBodySpaceWDroppedPile(t *testing.T) {
	p := scenes.DefaultRandomPileParams()
	p.Boxes = 30
	w, err := scenes.RandomPile(p)
	if err != nil {
		t.Fatal(err)
	}
	stepN(t, w, 40)
	prob := w.LastProblem()
	var mul lcp.BodyProduct
	cheaper := prob != nil && prob.KKT != nil && mul.Factor(prob.KKT) && mul.Cheaper(prob.A)
	differ := checkGuardedW(t, prob)
	t.Logf("body-space product cheaper: %v", cheaper)
	if !cheaper && differ != 0 {
		t.Errorf("%d rows of w with other bits than A's product, which is the cheaper", differ)
	}
}

func stepN(t *testing.T, w *stepper.World, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkGuardedW solves p with BPP alone and guarded and checks that the
// guarded x and w are BPP's bit for bit, w within 1e-12·max|b| of A's
// product on every row, and the totals Compute's. It returns the number
// of rows whose w has other bits than A's product.
func checkGuardedW(t *testing.T, p *lcp.Problem) int {
	t.Helper()
	if p == nil || p.KKT == nil || !p.KKTAssembled {
		t.Fatal("the stepper's problem has no assembled KKT")
	}
	var own, got lcp.Result
	if err := new(lcp.BPP).Solve(&own, p, lcp.Settings{}); err != nil {
		t.Fatal(err)
	}
	pk, guard := errmeasure.NewPicker(errmeasure.Energy), errmeasure.NewPicker(errmeasure.Energy)
	solved, err := errmeasure.SolveGuarded(&got, p, new(lcp.BPP), lcp.Settings{}, pk, guard)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != lcp.Converged || own.Status != lcp.Converged {
		t.Fatalf("statuses %v (guarded) and %v (BPP), want converged", got.Status, own.Status)
	}
	sw := num.MaxAbs(p.B)
	wa := p.Residual(nil, got.X)
	differ := 0
	for i := range got.X {
		if math.Float64bits(got.X[i]) != math.Float64bits(own.X[i]) || math.Float64bits(got.W[i]) != math.Float64bits(own.W[i]) {
			t.Fatalf("row %d: (x, w) = (%v, %v), BPP's (%v, %v)", i, got.X[i], got.W[i], own.X[i], own.W[i])
		}
		if d := math.Abs(got.W[i] - wa[i]); d > 1e-12*sw {
			t.Errorf("row %d: w %v, A's product %v: |difference| %.3g > 1e-12·max|b| = %.3g", i, got.W[i], wa[i], d, 1e-12*sw)
		}
		if math.Float64bits(got.W[i]) != math.Float64bits(wa[i]) {
			differ++
		}
	}
	// BodyW: BPP's w is the body-space product's exactly when that is
	// the cheaper, and then has ResidualKKT's bits for its x.
	var mul lcp.BodyProduct
	cheaper := mul.Factor(p.KKT) && mul.Cheaper(p.A)
	if own.BodyW != cheaper {
		t.Errorf("BPP's BodyW %v, body-space product cheaper %v", own.BodyW, cheaper)
	}
	if own.BodyW {
		rk := p.ResidualKKT(nil, own.X, &mul)
		for i := range rk {
			if math.Float64bits(rk[i]) != math.Float64bits(own.W[i]) {
				t.Fatalf("row %d: BPP's w %v, ResidualKKT's %v with BodyW set", i, own.W[i], rk[i])
			}
		}
	}
	if want := errmeasure.Compute(p, got.X, got.W, nil); solved.Totals != want {
		t.Errorf("Totals %+v, Compute's %+v", solved.Totals, want)
	}
	t.Logf("%d rows, %d with other bits than A's product; max|b| %.3g", p.N(), differ, sw)
	return differ
}

// bodyWSolver runs BPP and then adds 1 to each of w's entries, keeping or
// clearing lcp.Result.BodyW as told: a solver whose flag lies, so that
// whether SolveGuarded computed w again shows in the returned w.
type bodyWSolver struct {
	bpp  lcp.BPP
	keep bool
}

func (s *bodyWSolver) Name() string { return "bodyw" }

func (s *bodyWSolver) Solve(dst *lcp.Result, p *lcp.Problem, set lcp.Settings) error {
	err := s.bpp.Solve(dst, p, set)
	for i := range dst.W {
		dst.W[i]++
	}
	dst.BodyW = dst.BodyW && s.keep
	return err
}

// On the settled 30-brick wall BPP's converged answer says its w has
// ResidualKKT's bits (lcp.Result.BodyW): SolveGuarded, picking that
// answer, keeps w instead of computing it again, which shows on a solver
// that moves w by 1 after BPP and keeps the flag (w returned moved by
// exactly 1), and computes it again when the flag is cleared (w back to
// ResidualKKT's bits for x, those of BPP's own w).
func TestSolveGuardedKeepsBodyW(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	if err != nil {
		t.Fatal(err)
	}
	stepN(t, w, 60)
	p := w.LastProblem()
	var own lcp.Result
	if err := new(lcp.BPP).Solve(&own, p, lcp.Settings{}); err != nil {
		t.Fatal(err)
	}
	if !own.BodyW {
		t.Fatal("BPP's w on the wall is not the body-space product's")
	}
	for _, keep := range []bool{true, false} {
		s := &bodyWSolver{keep: keep}
		var got lcp.Result
		pk := errmeasure.NewPicker(errmeasure.Energy)
		if _, err := errmeasure.SolveGuarded(&got, p, s, lcp.Settings{}, pk, nil); err != nil {
			t.Fatal(err)
		}
		if got.BodyW != keep {
			t.Errorf("keep %v: returned BodyW %v", keep, got.BodyW)
		}
		for i := range got.W {
			want := own.W[i]
			if keep {
				want++
			}
			if math.Float64bits(got.X[i]) != math.Float64bits(own.X[i]) || math.Float64bits(got.W[i]) != math.Float64bits(want) {
				t.Fatalf("keep %v, row %d: (x, w) = (%v, %v), want (%v, %v)", keep, i, got.X[i], got.W[i], own.X[i], want)
			}
		}
	}
}
