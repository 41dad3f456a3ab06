package lcp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Dense.MulVecTo takes four products per pass and gives dot's bits for
// every row: dot's two sums, in order, whatever the row length (0 to 13,
// every remainder of the unrolling), on entries spread over 40 decades so
// that any change of the order of the additions would show in the bits;
// and Dense.symmetric's exact-equality shortcut answers as the full test
// on symmetric, rounding-level asymmetric and asymmetric matrices.
func TestDenseMulVecToBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	val := func() float64 { return (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20)) }
	for c := range 14 {
		for _, r := range []int{1, 3, 12} {
			d := NewDense(r, c, nil)
			for i := range d.data {
				d.data[i] = val()
			}
			x := make([]float64, c)
			for i := range x {
				x[i] = val()
			}
			got := make([]float64, r)
			d.MulVecTo(got, x)
			for i := range r {
				if want := dot(d.Row(i), x); math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Errorf("%d×%d row %d: %v, dot %v", r, c, i, got[i], want)
				}
			}
		}
	}
	for _, n := range []int{1, 2, 7, 12} {
		d := NewDense(n, n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				v := val()
				d.Set(i, j, v)
				d.Set(j, i, v)
			}
			d.Set(i, i, 1+rng.Float64())
		}
		if !d.symmetric(0) || !d.symmetric(1e-12) {
			t.Errorf("n %d: a symmetric matrix reported asymmetric", n)
		}
		if n < 2 {
			continue
		}
		d.Set(0, 1, d.At(1, 0)*(1+1e-14))
		if d.symmetric(0) || !d.symmetric(1e-12) {
			t.Errorf("n %d: a 1e-14 asymmetry: symmetric(0) %v, symmetric(1e-12) %v; want false, true", n, d.symmetric(0), d.symmetric(1e-12))
		}
		d.Set(0, 1, 1)
		d.Set(1, 0, 2)
		if d.symmetric(1e-12) {
			t.Errorf("n %d: an asymmetric matrix reported symmetric", n)
		}
	}
}
