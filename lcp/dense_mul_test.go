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

// Problem.Validate of a Dense A sums v·0 over its entries and scans for
// the first non-finite entry only when the sum is not 0: entries at the
// largest finite magnitude and negative zeros pass, and the error names
// the first NaN or ±Inf in row-major order, as the entry-by-entry scan
// did.
func TestDenseValidateFinite(t *testing.T) {
	p := &Problem{
		A:  NewDense(3, 3, []float64{math.MaxFloat64, -math.MaxFloat64, math.Copysign(0, -1), 1, 2, 3, 4, 5, 6}),
		B:  []float64{0, 0, 0},
		Lo: []float64{0, 0, 0},
		Hi: []float64{1, 1, 1},
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("finite A: %v", err)
	}
	for _, c := range []struct {
		at   [][2]int
		v    []float64
		want string
	}{
		{[][2]int{{2, 1}}, []float64{math.Inf(-1)}, "A[2][1]: must be finite, got -Inf"},
		{[][2]int{{2, 1}, {1, 2}}, []float64{math.Inf(1), math.NaN()}, "A[1][2]: must be finite, got NaN"},
		{[][2]int{{0, 0}, {0, 1}}, []float64{math.Inf(1), math.Inf(-1)}, "A[0][0]: must be finite, got +Inf"},
	} {
		q := *p
		d := NewDense(3, 3, append([]float64(nil), p.A.(*Dense).data...))
		for k, ij := range c.at {
			d.Set(ij[0], ij[1], c.v[k])
		}
		q.A = d
		if err := q.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.at, err, c.want)
		}
	}
}
