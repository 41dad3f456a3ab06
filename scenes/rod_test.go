package scenes_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rod's first step assembles Eq. (26) of Enzenhöfer et al. 2019 and
// its exact solution x = [0.32953, 0.06287] N·s (§5.1).
func TestRodFirstStepIsEq26(t *testing.T) {
	w, err := scenes.Rod(scenes.DefaultRodParams())
	require.NoError(t, err)
	st, err := w.Step()
	require.NoError(t, err)
	require.Equal(t, 2, st.Rows, "frictionless: two normal rows")
	p := w.LastProblem()
	require.NotNil(t, p)
	// The paper's row 1 is the contact at y = −l/2 (its J has −l/2 under ωₓ).
	// Map our rows onto the paper's order by b, which differs per end.
	order := []int{0, 1}
	if p.B[0] > p.B[1] {
		order = []int{1, 0}
	}
	wantA := [2][2]float64{{1, -0.5}, {-0.5, 1}}
	wantB := [2]float64{-0.2981, 0.1019}
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			// 1e-12: the assembly is exact up to rounding.
			assert.InDelta(t, wantA[i][j], p.A.At(order[i], order[j]), 1e-12, "A[%d][%d]", i, j)
		}
		assert.InDelta(t, wantB[i], p.B[order[i]], 1e-12, "b[%d]", i)
		assert.Equal(t, 0.0, p.Lo[i])
		assert.True(t, math.IsInf(p.Hi[i], 1))
	}
	x, v := w.LastSolution()
	// 5e-6: the paper prints five decimals.
	assert.InDelta(t, 0.32953, x[order[0]], 5e-6)
	assert.InDelta(t, 0.06287, x[order[1]], 5e-6)
	assert.InDelta(t, 0, v[0], 1e-12)
	assert.InDelta(t, 0, v[1], 1e-12)
	assert.InDelta(t, 0, st.Errors.Energy, 1e-20) // J; rounding only
	// The paper's incorrect iterate x = [0, −0.1019] with w = [−0.2981, 0]
	// has δe = 4.96e−2 J (Eq. 23), measured on this assembled problem.
	xs := make([]float64, 2)
	ws := make([]float64, 2)
	xs[order[1]] = -0.1019
	ws[order[0]] = -0.2981
	tot := errmeasure.Compute(p, xs, ws, nil)
	assert.InDelta(t, 4.962e-2, tot.Energy, 1e-5)
}

func TestRodErrors(t *testing.T) {
	for _, c := range []struct {
		mod  func(*scenes.RodParams)
		want string
	}{
		{func(p *scenes.RodParams) { p.Mass = 0 }, "rod: Mass: must be finite and > 0 kg, got 0"},
		{func(p *scenes.RodParams) { p.Length = math.NaN() }, "rod: Length"},
		{func(p *scenes.RodParams) { p.Friction = -1 }, "rod: Friction"},
		{func(p *scenes.RodParams) { p.Settings.H = 0 }, "H: time step"},
	} {
		p := scenes.DefaultRodParams()
		c.mod(&p)
		_, err := scenes.Rod(p)
		assert.ErrorContains(t, err, c.want)
	}
}
