package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// mulAddFull is BodyProduct.MulAdd's general path written out (Jᵀ x from
// cleared sums over the rows with x_i ≠ 0, the two triangular solves with
// each mass block's Cholesky factor, J v + C x + b): the oracle of the
// bits of its shortcuts.
func mulAddFull(k *KKT, w, x, b []float64) {
	gv := make([][6]float64, len(k.Mass))
	for i, bs := range k.Body {
		if x[i] == 0 {
			continue
		}
		for s, bd := range bs {
			if bd < 0 {
				continue
			}
			for t := range 6 {
				gv[bd][t] += k.J[i][s][t] * x[i]
			}
		}
	}
	for bd := range k.Mass {
		var l [36]float64
		if _, ok := cholesky6(&l, &k.Mass[bd]); !ok {
			panic("mass block not positive definite")
		}
		v := &gv[bd]
		for r := 0; r < 6; r++ {
			s := v[r]
			for t := 0; t < r; t++ {
				s -= l[6*r+t] * v[t]
			}
			v[r] = s / l[6*r+r]
		}
		for r := 5; r >= 0; r-- {
			s := v[r]
			for t := r + 1; t < 6; t++ {
				s -= l[6*t+r] * v[t]
			}
			v[r] = s / l[6*r+r]
		}
	}
	for i, bs := range k.Body {
		s := k.C[i]*x[i] + b[i]
		for q, bd := range bs {
			if bd < 0 {
				continue
			}
			v, j := &gv[bd], &k.J[i][q]
			s += j[0]*v[0] + j[1]*v[1] + j[2]*v[2] + j[3]*v[3] + j[4]*v[4] + j[5]*v[5]
		}
		w[i] = s
	}
}

// TestBodyProductAtRestSameBits: MulAdd with x all ±0 (the start of a
// stepper's face solve, every fixed row at a zero bound) skips the
// triangular solves and the J v pass of rows whose c x + b is nonzero;
// its w must have the bits of the general path, signs of zero included:
// rows with b = ±0 and c = 0 whose Jacobians are all negative (J v sums
// −0 terms) or all positive, x = −0 and +0, on 40 random KKTs.
func TestBodyProductAtRestSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 9))
	zeros := 0
	for trial := 0; trial < 40; trial++ {
		k, _, _ := randomKKT(rng, 2+rng.IntN(6), 5+rng.IntN(40), 3)
		n := k.N()
		x, b := make([]float64, n), make([]float64, n)
		for i := range x {
			if rng.IntN(2) == 0 {
				x[i] = math.Copysign(0, -1)
			}
			switch rng.IntN(4) {
			case 0:
				b[i] = math.Copysign(0, -1)
			case 1:
				b[i] = 0
			default:
				b[i] = rng.NormFloat64()
			}
			if rng.IntN(3) == 0 { // one sign for the whole Jacobian row
				sign := float64(1 - 2*rng.IntN(2))
				for s := range 2 {
					for c := range 6 {
						k.J[i][s][c] = sign * math.Abs(k.J[i][s][c])
					}
				}
			}
		}
		var m BodyProduct
		require.True(t, m.Factor(k))
		w, want := make([]float64, n), make([]float64, n)
		m.MulAdd(w, x, b)
		mulAddFull(k, want, x, b)
		for i := range w {
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(w[i]), "trial %d, w[%d] = %v, the general path's %v", trial, i, w[i], want[i])
			if want[i] == 0 {
				zeros++
			}
		}
		// One nonzero x_i takes the general path: the same bits as the oracle.
		x[rng.IntN(n)] = rng.NormFloat64()
		m.MulAdd(w, x, b)
		mulAddFull(k, want, x, b)
		for i := range w {
			require.Equal(t, math.Float64bits(want[i]), math.Float64bits(w[i]), "trial %d, general path, w[%d]", trial, i)
		}
	}
	require.Greater(t, zeros, 100, "rows whose w is ±0 (the sign-of-zero cases)")
}
