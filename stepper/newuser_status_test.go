package stepper_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nuResidual is the unit-consistent natural residual of the last step's
// answer, max over rows of |aᵢᵢxᵢ − mid(aᵢᵢlᵢ, aᵢᵢxᵢ − wᵢ, aᵢᵢuᵢ)| (m/s or
// rad/s: a free row's |wᵢ|, a bound row's wrong-signed wᵢ, aᵢᵢ times a bound
// violation), with w = A x + b recomputed from its problem, and the
// velocity scale max |b| that lcp's tolerances multiply.
func nuResidual(w *stepper.World) (res, scale float64) {
	p := w.LastProblem()
	if p == nil {
		return 0, 0
	}
	x, _ := w.LastSolution()
	n := p.N()
	wv := make([]float64, n)
	p.A.MulVecTo(wv, x)
	for i := 0; i < n; i++ {
		a := p.A.At(i, i)
		wi := wv[i] + p.B[i]
		r := a*x[i] - math.Min(a*p.Hi[i], math.Max(a*p.Lo[i], a*x[i]-wi))
		res = math.Max(res, math.Abs(r))
		scale = math.Max(scale, math.Abs(p.B[i]))
	}
	return res, scale
}

// "Converged" only when solved: a pile of 30 random boxes dropped with
// DefaultSettings, with no budget and with a budget of 2 iterations a
// step, solved by island, and without a budget as one MLCP. A step whose Stats.Status is lcp.Converged has an answer whose
// natural residual, recomputed from LastProblem and LastSolution, is at
// most 1e-6 of max |b|: lcp.BPP's documented tolerance for a semidefinite
// block (a box's four corners with box friction) solved in its regularized
// mode, 1e-10 elsewhere; a step that hit its budget is never Converged.
func TestNewUserConvergedOnlyWhenSolved(t *testing.T) {
	for _, c := range []struct {
		budget int
		single bool
	}{{0, false}, {2, false}, {0, true}} {
		budget := c.budget
		p := scenes.DefaultRandomPileParams()
		p.Boxes = 30
		p.Settings = stepper.DefaultSettings()
		p.Settings.Budget = budget
		p.Settings.SingleProblem = c.single // by island (the default) or one MLCP
		w, err := scenes.RandomPile(p)
		require.NoError(t, err)
		var worst, worstUn float64
		conv, hit := 0, 0
		for s := 0; s < 120; s++ {
			st, err := w.Step()
			require.NoError(t, err)
			res, scale := nuResidual(w)
			rel := res / math.Max(scale, 1e-12)
			if st.Status == lcp.Converged {
				conv++
				worst = math.Max(worst, rel)
				assert.False(t, st.BudgetHit, "step %d: converged and budget hit", st.Step)
			} else {
				worstUn = math.Max(worstUn, rel)
			}
			if st.BudgetHit {
				hit++
			}
		}
		t.Logf("single problem %v, budget %d: %d steps converged (worst relative residual %.2e), %d hit the budget (worst unconverged residual %.2e)",
			c.single, budget, conv, worst, hit, worstUn)
		assert.LessOrEqual(t, worst, 1e-6)
	}
}
