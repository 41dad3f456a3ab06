package errmeasure

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A body of unit mass resting on two redundant contact rows (A = [1 1; 1 1])
// under gravity: b = −g h on both rows. Solutions have x₁ + x₂ = g h and
// f = ½xᵀAx + bᵀx = −½(g h)²; x = 0 has f = 0.
func restingPair() *lcp.Problem {
	gh := 9.81 / 60
	return &lcp.Problem{A: lcp.NewDense(2, 2, []float64{1, 1, 1, 1}), B: []float64{-gh, -gh},
		Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
}

func TestGain(t *testing.T) {
	p := restingPair()
	gh := -p.B[0]
	for _, c := range []struct {
		name string
		x    []float64
		want float64
	}{
		{"zero", []float64{0, 0}, 0},
		{"solution: f = −½(g h)² < 0, no gain", []float64{gh, 0}, 0},
		{"twice the support: f = 0, no gain", []float64{gh, gh}, 0},
		{"three times: f = (3/2)(g h)²", []float64{3 * gh, 0}, 1.5 * gh * gh},
	} {
		got := Gain(p, c.x, p.Residual(nil, c.x))
		assert.InDelta(t, c.want, got, 1e-15, c.name)
	}
}

func TestLargestRoot(t *testing.T) {
	for _, c := range []struct {
		name      string
		fa, g, cc float64
		want      float64
	}{
		{"f ≤ 0 at 1", -1, 0.5, 0, 1},
		{"linear", -1, 2, 0, 0.5},
		{"convex: root of t² − 0.25", -0.25, 0, 2, 0.5},
		{"concave: first root of −t² + 2t − 0.75", -0.75, 2, -2, 0.5},
		{"f(0) = 0, rising", 0, 1, 1, 0},
	} {
		got := largestRoot(c.fa, c.g, c.cc)
		assert.InDelta(t, c.want, got, 1e-12, c.name)
		if got < 1 {
			assert.InDelta(t, 0, c.fa+c.g*got+0.5*c.cc*got*got, 1e-12, "%s: a root", c.name)
		}
	}
}

// Safeguard leaves a converged answer and one without a gain alone, and
// moves one with a gain towards the anchor, just to where the gain is 0.
func TestSafeguard(t *testing.T) {
	p := restingPair()
	gh := -p.B[0]
	pk, guard := NewPicker(Energy), NewPicker(Energy)
	guard.RejectGain = true
	pk.Reset(p, Energy)
	guard.resetFrom(p, pk)

	x := []float64{3 * gh, gh} // pushes the body up: a gain
	res := lcp.Result{X: x, W: p.Residual(nil, x), Status: lcp.Converged}
	var s Solved
	out := Safeguard(&res, p, pk, guard, &s, nil, nil, 0)
	assert.Equal(t, Safeguarded{Scale: 1}, out, "a converged answer is kept")

	res.Status = lcp.BudgetExhausted
	out = Safeguard(&res, p, pk, guard, &s, nil, nil, 0)
	require.Equal(t, AnchorZero, out.Anchor, "no iterate seen, no previous answer: towards 0")
	assert.Greater(t, out.Gain, 0.0)
	// f(t x) = ½ t² (4gh)² − t (4gh) gh ≤ 0 up to t = ½.
	assert.InDelta(t, 0.5, out.Scale, 1e-12)
	assert.InDelta(t, 1.5*gh, res.X[0], 1e-12)
	assert.InDelta(t, 0.5*gh, res.X[1], 1e-12)
	assert.Zero(t, Gain(p, res.X, res.W))
	assert.True(t, s.FromPicker)

	// With the previous step's answer (the solution) as anchor.
	x = []float64{3 * gh, gh}
	res = lcp.Result{X: x, W: p.Residual(nil, x), Status: lcp.BudgetExhausted}
	out = Safeguard(&res, p, pk, guard, &s, nil, []float64{gh, -1}, 0)
	require.Equal(t, AnchorPrevious, out.Anchor, "the previous answer, projected onto the box")
	assert.Zero(t, Gain(p, res.X, res.W))
	assert.Greater(t, out.Scale, 0.0)
	assert.Less(t, out.Scale, 1.0)

	// An answer without a gain is kept.
	x = []float64{0.5 * gh, 0.5 * gh}
	res = lcp.Result{X: x, W: p.Residual(nil, x), Status: lcp.BudgetExhausted}
	out = Safeguard(&res, p, pk, guard, &s, nil, nil, 5)
	assert.Equal(t, Safeguarded{Scale: 1}, out)
	assert.Equal(t, []float64{0.5 * gh, 0.5 * gh}, res.X)
}

// A guard Picker with RejectGain ranks an iterate with a gain after every
// iterate without one, whatever its energy error, while the plain Picker
// it shadows keeps the paper's rule.
func TestPickerRejectGain(t *testing.T) {
	p := restingPair()
	gh := -p.B[0]
	pk, guard := NewPicker(Last), NewPicker(Last)
	guard.RejectGain = true
	pk.Reset(p, Last)
	guard.resetFrom(p, pk)
	pk.shadow = guard
	for k, x := range [][]float64{{gh, 0}, {3 * gh, 0}} {
		pk.Observe(lcp.Iterate{Iter: k + 1, X: x, W: p.Residual(nil, x), SatisfiesEq2: true})
	}
	pk.shadow = nil
	b, _ := pk.Best()
	g, _ := guard.Best()
	assert.Equal(t, 2, b.Iter, "Last keeps the last iterate")
	assert.Equal(t, 1, g.Iter, "the guard keeps the last iterate without a gain")
	assert.Equal(t, 2, guard.Seen())
}
