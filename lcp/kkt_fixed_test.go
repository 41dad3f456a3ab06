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

// TestKKTValidateThroughBPPCache: BPP.Solve validates a KKT's mass blocks
// into its body-space product's factors, which the Solve's build keeps
// (factorValidated) instead of factoring the blocks again. Every
// corruption of a mass block made after a successful Solve with the same
// BPP is rejected by the next Solve with KKT.Validate's field, index and
// value, and again by the one after (a rejected KKT is not marked
// validated); after the block is put back the Solve succeeds with the
// first answer's bits, and those of a fresh BPP.
func TestKKTValidateThroughBPPCache(t *testing.T) {
	k, a, bv, lo, hi := contactKKTProblem()
	p := &Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k}
	s := &BPP{kktPath: kktForce}
	var first, r Result
	require.NoError(t, s.Solve(&first, p, Settings{}))
	require.Nil(t, s.kkt.mul.validated, "the validated factors were taken by the build")
	require.Same(t, k, s.kkt.mul.k, "the product is prepared for k")
	for _, c := range []struct {
		edit func(m *[36]float64)
		want string
	}{
		{func(m *[36]float64) { m[8] = 1e9 }, "KKT.Mass[0]: not symmetric: entry (1, 2) = 1e+09"},
		{func(m *[36]float64) { m[0] = -1 }, "KKT.Mass[0]: not positive definite (Cholesky pivot 0)"},
		{func(m *[36]float64) { m[35] = math.Inf(-1) }, "KKT.Mass[0]: entry (5, 5) must be finite, got -Inf"},
		{func(m *[36]float64) { m[7] = math.NaN() }, "KKT.Mass[0]: entry (1, 1) must be finite, got NaN"},
	} {
		saved := k.Mass[0]
		c.edit(&k.Mass[0])
		err := s.Solve(&r, p, Settings{})
		require.ErrorContains(t, err, c.want)
		require.Nil(t, s.kkt.mul.validated)
		require.ErrorContains(t, p.Validate(), c.want, "Validate without the product agrees")
		require.ErrorContains(t, s.Solve(&r, p, Settings{}), c.want, "still rejected")
		k.Mass[0] = saved
		require.NoError(t, s.Solve(&r, p, Settings{}))
		require.Equal(t, first.X, r.X, "block put back: the first answer's bits")
	}
	var fresh Result
	require.NoError(t, (&BPP{kktPath: kktForce}).Solve(&fresh, p, Settings{}))
	require.Equal(t, r.X, fresh.X)
	require.Equal(t, r.W, fresh.W)
}

// TestBodyProductFactorValidated: the factors KKT.validate leaves in a
// product are Factor's, bit for bit, and factorValidated keeps them only
// for the KKT validated: for another KKT, or after a validation that
// failed, it factors (and rejects a block that is not positive definite).
func TestBodyProductFactorValidated(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 25))
	k1, _, _ := randomKKT(rng, 5, 12, 3)
	k2, _, _ := randomKKT(rng, 7, 12, 3)
	var m, ref BodyProduct
	require.NoError(t, k1.validate(12, &m))
	require.Same(t, k1, m.validated)
	require.True(t, ref.Factor(k1))
	require.True(t, m.factorValidated(k1))
	require.Nil(t, m.validated, "taken once")
	require.Equal(t, ref.chol, m.chol, "validate's factors are Factor's")
	require.Same(t, k1, m.k)
	require.Equal(t, ref.cost, m.cost, "validate's MulCost")

	require.NoError(t, k1.validate(12, &m))
	require.True(t, m.factorValidated(k2), "another KKT: factored")
	require.True(t, ref.Factor(k2))
	require.Equal(t, ref.chol, m.chol)
	require.Same(t, k2, m.k)

	k2.Mass[3][14] = -50 // entry (2, 2): not positive definite
	require.ErrorContains(t, k2.validate(12, &m), "KKT.Mass[3]: not positive definite")
	require.Nil(t, m.validated)
	require.Nil(t, m.k, "unprepared after a validation")
	require.False(t, m.factorValidated(k2))
}

// TestKKTRowsValidAgreesWithRowError: Validate's one-pass row test
// (rowsValid) passes exactly the KKTs whose rows rowError passes, on 2 000
// random corruptions of one entry (a body index out of range or repeated,
// a non-finite or negative compliance, a non-finite Jacobian entry in a
// used or an unused slot: an unused slot's block is ignored).
func TestKKTRowsValidAgreesWithRowError(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 25))
	bad, unusedNaN := 0, 0
	for trial := 0; trial < 2000; trial++ {
		k, _, _ := randomKKT(rng, 2+rng.IntN(5), 3+rng.IntN(20), 4)
		n, nb := k.N(), len(k.Mass)
		i, s := rng.IntN(n), rng.IntN(2)
		switch rng.IntN(6) {
		case 0:
			k.Body[i][s] = int32(rng.IntN(nb+4)) - 2
		case 1:
			k.Body[i][1] = k.Body[i][0]
		case 2:
			k.C[i] = []float64{-1e-300, math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}[rng.IntN(5)]
		case 3, 4:
			k.J[i][s][rng.IntN(6)] = []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e308}[rng.IntN(4)]
			if k.Body[i][s] < 0 {
				unusedNaN++
			}
		case 5:
			k.Body[i][1] = -1
			k.J[i][1][rng.IntN(6)] = math.NaN()
			unusedNaN++
		}
		err := k.rowError()
		used, ok := k.rowsValid()
		require.Equal(t, err == nil, ok, "trial %d: rowError %v", trial, err)
		if ok {
			require.Equal(t, k.MulCost(), k.N()+72*nb+12*used, "trial %d: the used slots are MulCost's", trial)
		}
		require.Equal(t, err, k.Validate(n), "trial %d", trial)
		if err != nil {
			bad++
		}
	}
	require.Greater(t, bad, 800, "corruptions that are errors")
	require.Greater(t, unusedNaN, 100, "non-finite entries in unused slots (no error)")
}

// TestKKTBuildRecordsFromMulCost: build counts K̃'s records from the
// prepared product's MulCost when it is prepared for the KKT (one per
// row, 21 per mass block, 6 per used Jacobian slot); the count is the
// one Finish kept, so the next build refills the pattern, on KKTs with
// rows on one and on two bodies.
func TestKKTBuildRecordsFromMulCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 25))
	for trial := 0; trial < 20; trial++ {
		k, _, _ := randomKKT(rng, 2+rng.IntN(6), 4+rng.IntN(30), 3)
		n, nb := k.N(), len(k.Mass)
		want := n + 21*nb
		for _, bs := range k.Body {
			for _, b := range bs {
				if b >= 0 {
					want += 6
				}
			}
		}
		diag := make([]float64, n)
		for i := range diag {
			diag[i] = 1
		}
		var g kktLDL
		g.build(k, diag, 0) // first build: Factor inside, then the records
		require.Same(t, k, g.mul.k)
		require.Equal(t, want, g.k.nrec, "trial %d: the records Finish kept", trial)
		g.build(k, diag, 0)
		require.True(t, g.refilling, "trial %d: the count from MulCost matches: a refill", trial)
	}
}
