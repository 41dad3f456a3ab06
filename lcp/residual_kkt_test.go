package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// productCases are a KKT whose body-space product is the cheaper (2
// bodies, 200 rows) and one whose A's is (40 bodies, 30 rows).
var productCases = []productCase{{2, 200, true}, {40, 30, false}}

type productCase struct {
	nb, n int
	body  bool // the body-space product is the cheaper
}

// build returns the case's random KKT (randomKKT, seeded by the sizes),
// its A, a kktLDL built on it, and the generator for further draws.
func (c productCase) build() (*rand.Rand, *KKT, *Sparse, *kktLDL) {
	rng := rand.New(rand.NewPCG(uint64(c.nb), uint64(c.n)))
	k, a, _ := randomKKT(rng, c.nb, c.n, 0)
	diag := make([]float64, c.n)
	for i := range diag {
		diag[i] = a.At(i, i)
	}
	g := new(kktLDL)
	g.build(k, diag, 0)
	return rng, k, a, g
}

// Problem.ResidualKKT is A x + b: in body space where KKTAssembled says
// the KKT describes A and BodyProduct.Cheaper holds, with the bits of
// BPP's iterate w (kktLDL.iterateW, the same rule and the same code), and
// A's own product, Residual's bits, everywhere else: without a
// BodyProduct, without KKTAssembled, where A's product is the cheaper, and
// for a KKT whose mass block is not positive definite.
func TestResidualKKT(t *testing.T) {
	for _, c := range productCases {
		rng, k, a, g := c.build()
		x, b := make([]float64, c.n), make([]float64, c.n)
		for i := range x {
			x[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		x[3] = 0 // a row that adds nothing to Jᵀ x
		p := &Problem{A: a, B: b, KKT: k, KKTAssembled: true}
		bpp, want := make([]float64, c.n), p.Residual(nil, x)
		g.iterateW(p, a, x, bpp)
		var mul BodyProduct
		w := p.ResidualKKT(nil, x, &mul)
		require.Len(t, w, c.n)
		assert.Equal(t, c.body, mul.Cheaper(a), "%d bodies, %d rows, nnz(A) %d, body-space cost %d", c.nb, c.n, a.NNZ(), k.MulCost())
		differ := 0
		for i := range w {
			assert.Equal(t, math.Float64bits(bpp[i]), math.Float64bits(w[i]), "w[%d]: BPP's iterate w", i)
			// Rounding of two orders of summation: 1e-12 of the terms
			// (entries of J, M and x of order 1).
			assert.InDelta(t, want[i], w[i], 1e-12*(1+math.Abs(want[i])), "w[%d]", i)
			if math.Float64bits(want[i]) != math.Float64bits(w[i]) {
				differ++
			}
		}
		if c.body {
			assert.Positive(t, differ, "the body-space product rounds differently from A's somewhere")
		} else {
			assert.Zero(t, differ, "A's product where it is the cheaper")
		}
		same := func(name string, got []float64) {
			for i := range got {
				require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "%s: w[%d] is Residual's", name, i)
			}
		}
		same("no BodyProduct", p.ResidualKKT(make([]float64, 2), x, nil))
		p.KKTAssembled = false
		same("KKTAssembled false", p.ResidualKKT(nil, x, &mul))
		p.KKTAssembled = true
		bad := *k
		bad.Mass = append([][36]float64(nil), k.Mass...)
		bad.Mass[0][0] = -1
		p.KKT = &bad
		same("mass block not positive definite", p.ResidualKKT(nil, x, &mul))
		assert.False(t, mul.Cheaper(a), "an unprepared product is never the cheaper")
	}
}

// Problem.Diag of a *Sparse reads the diagonal slots: At's entries bit for
// bit, 0 on a row whose diagonal is outside the pattern, and the dense
// copy's diagonal.
func TestDiagSparseSlots(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	_, a, _ := randomKKT(rng, 6, 40, 0)
	p := &Problem{A: a, B: make([]float64, 40)}
	d := p.Diag(make([]float64, 3))
	require.Len(t, d, 40)
	for i, v := range d {
		require.Equal(t, math.Float64bits(a.At(i, i)), math.Float64bits(v), "row %d", i)
		require.Positive(t, v, "row %d: J M⁻¹ Jᵀ + C is positive definite", i)
	}
	// Row 1 without a diagonal entry: an off-diagonal pattern only.
	var s Sparse
	s.Reset(3)
	s.Add(0, 0, 2)
	s.Add(1, 2, 5)
	s.Add(2, 2, 3)
	s.Finish()
	p = &Problem{A: &s, B: make([]float64, 3)}
	assert.Equal(t, []float64{2, 0, 3}, p.Diag(nil))
	dense := NewDense(3, 3, []float64{2, 0, 0, 0, 0, 5, 0, 5, 3})
	assert.Equal(t, p.Diag(nil), (&Problem{A: dense, B: make([]float64, 3)}).Diag(nil))
}

// BPP's Result.BodyW says its w has ResidualKKT's bits for its x: set on
// the case whose body-space product is the cheaper (its face solves go
// through K̃, kktForce), and then W is ResidualKKT's bit for bit; clear
// where A's product is the cheaper, without KKTAssembled (ResidualKKT
// then takes A's product), and on the dual path (kktOff).
func TestBPPBodyW(t *testing.T) {
	for _, c := range productCases {
		rng, k, a, _ := c.build()
		n := c.n
		p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n), KKT: k, KKTAssembled: true}
		for i := range p.B {
			p.B[i], p.Hi[i] = rng.NormFloat64(), math.Inf(1)
		}
		for _, tc := range []struct {
			name      string
			path      int8
			assembled bool
			want      bool
		}{
			{"kkt", kktForce, true, c.body},
			{"kkt, not assembled", kktForce, false, false},
			{"dual", kktOff, true, false},
		} {
			p.KKTAssembled = tc.assembled
			s := &BPP{kktPath: tc.path}
			var res Result
			require.NoError(t, s.Solve(&res, p, Settings{}))
			require.Equal(t, Converged, res.Status, "%s", tc.name)
			assert.Equal(t, tc.want, res.BodyW, "%d bodies, %d rows, %s", c.nb, n, tc.name)
			if res.BodyW {
				var mul BodyProduct
				w := p.ResidualKKT(nil, res.X, &mul)
				for i := range w {
					require.Equal(t, math.Float64bits(w[i]), math.Float64bits(res.W[i]), "%s: w[%d]", tc.name, i)
				}
			}
		}
	}
}
