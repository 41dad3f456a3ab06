package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// faceResidual gives Problem.Residual's bits: for x of ±0 entries (no
// product with A), b with ±0 entries included (−0 + 0 = +0, as A·0 + b),
// and for an x with a non-zero entry.
func TestFaceResidualBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	const n = 9
	a := NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	negZero := math.Copysign(0, -1)
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	b[0], b[1] = negZero, 0
	p := Problem{A: a, B: b, Lo: make([]float64, n), Hi: make([]float64, n)}
	x := make([]float64, n)
	x[2], x[5] = negZero, negZero
	for _, nonzero := range []bool{false, true} {
		if nonzero {
			x[4] = 0.25
		}
		want := p.Residual(nil, x)
		got := make([]float64, n)
		faceResidual(&p, got, x)
		for i := range n {
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "row %d (x non-zero: %v)", i, nonzero)
		}
	}
	require.Equal(t, math.Float64bits(0), math.Float64bits(p.Residual(nil, make([]float64, n))[0]), "A·0 + (−0) is +0")
}
