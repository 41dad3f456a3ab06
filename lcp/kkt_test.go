package lcp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// randomKKT returns a random body-space description of nb bodies (6×6 mass
// blocks B Bᵀ + I) and n rows on one or two nearby bodies, every zeroC-th
// row rigid (c = 0, others c ∈ [0.5, 1.5]·1e-3), and its A = J M⁻¹ Jᵀ + C
// as a Sparse and as a dense matrix.
func randomKKT(rng *rand.Rand, nb, n, zeroC int) (*KKT, *Sparse, *mat.Dense) {
	k := &KKT{Mass: make([][36]float64, nb), Body: make([][2]int32, n), J: make([][2][6]float64, n), C: make([]float64, n)}
	minv := make([]*mat.Dense, nb)
	for b := range k.Mass {
		var bm [36]float64
		for t := range bm {
			bm[t] = rng.NormFloat64()
		}
		m := mat.NewDense(6, 6, nil)
		for r := 0; r < 6; r++ {
			for c := 0; c < 6; c++ {
				s := 0.0
				for t := 0; t < 6; t++ {
					s += bm[6*r+t] * bm[6*c+t]
				}
				if r == c {
					s++
				}
				m.Set(r, c, s)
				k.Mass[b][6*r+c] = s
			}
		}
		minv[b] = mat.NewDense(6, 6, nil)
		if err := minv[b].Inverse(m); err != nil {
			panic(err)
		}
	}
	for i := range k.Body {
		b0 := int32(rng.IntN(nb))
		b1 := int32(-1)
		if rng.IntN(4) > 0 {
			b1 = (b0 + 1 + int32(rng.IntN(2))) % int32(nb)
		}
		if b1 == b0 {
			b1 = -1
		}
		k.Body[i] = [2]int32{b0, b1}
		for s := range 2 {
			for t := range 6 {
				k.J[i][s][t] = rng.NormFloat64()
			}
		}
		if zeroC == 0 || i%zeroC != 0 {
			k.C[i] = 1e-3 * (0.5 + rng.Float64())
		}
	}
	d := denseA(k, minv)
	return k, kktSparse(k, d), d
}

// kktSparse returns d as a Sparse in the pattern of k's rows sharing a body.
func kktSparse(k *KKT, d *mat.Dense) *Sparse {
	n := k.N()
	var a Sparse
	a.Reset(n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if shareBody(k, i, j) {
				a.Add(i, j, d.At(i, j))
			}
		}
	}
	a.Finish()
	return &a
}

func shareBody(k *KKT, i, j int) bool {
	if i == j {
		return true
	}
	for _, p := range k.Body[i] {
		for _, q := range k.Body[j] {
			if p >= 0 && p == q {
				return true
			}
		}
	}
	return false
}

// denseA returns J M⁻¹ Jᵀ + C of k with the given inverse mass blocks.
func denseA(k *KKT, minv []*mat.Dense) *mat.Dense {
	n := k.N()
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for si, p := range k.Body[i] {
				for sj, q := range k.Body[j] {
					if p < 0 || p != q {
						continue
					}
					for r := 0; r < 6; r++ {
						for c := 0; c < 6; c++ {
							s += k.J[i][si][r] * minv[p].At(r, c) * k.J[j][sj][c]
						}
					}
				}
			}
			if i == j {
				s += k.C[i]
			}
			d.Set(i, j, s)
		}
	}
	return d
}

func inverses(t *testing.T, k *KKT) []*mat.Dense {
	minv := make([]*mat.Dense, len(k.Mass))
	for b := range k.Mass {
		minv[b] = mat.NewDense(6, 6, nil)
		require.NoError(t, minv[b].Inverse(mat.NewDense(6, 6, slices.Clone(k.Mass[b][:]))))
	}
	return minv
}

func TestKKTValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	k, _, _ := randomKKT(rng, 4, 10, 0)
	require.NoError(t, k.Validate(10))
	for _, c := range []struct {
		edit func(k *KKT)
		want string
	}{
		{func(k *KKT) { k.C = k.C[:9] }, "KKT.C: has 9 rows, the problem 10"},
		{func(k *KKT) { k.Body = k.Body[:3] }, "KKT.Body: has 3 rows"},
		{func(k *KKT) { k.J = nil }, "KKT.J: has 0 rows"},
		{func(k *KKT) { k.C[4] = -1 }, "KKT.C[4]: must be finite and ≥ 0, got -1"},
		{func(k *KKT) { k.C[2] = math.Inf(1) }, "KKT.C[2]: must be finite and ≥ 0, got +Inf"},
		{func(k *KKT) { k.Body[3][1] = 4 }, "KKT.Body[3][1]: 4 is not a body index in [-1, 4)"},
		{func(k *KKT) { k.Body[3] = [2]int32{1, 1} }, "KKT.Body[3]: names body 1 twice"},
		{func(k *KKT) { k.J[5][0][2] = math.NaN() }, "KKT.J[5][0][2]: must be finite, got NaN"},
		{func(k *KKT) { k.Mass[2][8] = 1e9 }, "KKT.Mass[2]: not symmetric: entry (1, 2) = 1e+09"},
		{func(k *KKT) { k.Mass[1][1] += 1 }, "KKT.Mass[1]: not symmetric: entry (0, 1)"},
		{func(k *KKT) { k.Mass[0][0] = -1 }, "KKT.Mass[0]: not positive definite (Cholesky pivot 0)"},
		{func(k *KKT) { k.Mass[3][35] = math.Inf(-1) }, "KKT.Mass[3]: entry (5, 5) must be finite, got -Inf"},
	} {
		k, _, _ := randomKKT(rand.New(rand.NewPCG(1, 2)), 4, 10, 0)
		c.edit(k)
		err := k.Validate(10)
		require.Error(t, err, c.want)
		assert.Contains(t, err.Error(), c.want)
	}
	// Problem.Validate reports it.
	k, a, _ := randomKKT(rng, 4, 10, 0)
	k.C[7] = math.NaN()
	p := &Problem{A: a, B: make([]float64, 10), Lo: make([]float64, 10), Hi: make([]float64, 10), KKT: k}
	require.ErrorContains(t, p.Validate(), "KKT.C[7]: must be finite and ≥ 0, got NaN")
}

// The KKT of a row subset (an island) describes the principal submatrix
// of A on those rows, and extracting into a reused dst does not allocate.
func TestKKTSubTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	k, _, d := randomKKT(rng, 12, 60, 3)
	rows := []int32{41, 3, 17, 18, 59, 0, 33}
	var sub KKT
	require.NoError(t, k.SubTo(&sub, rows))
	require.NoError(t, sub.Validate(len(rows)))
	ds := denseA(&sub, inverses(t, &sub))
	for r, i := range rows {
		for c, j := range rows {
			// The same products in the same order: equal to rounding.
			assert.InDelta(t, d.At(int(i), int(j)), ds.At(r, c), 1e-12*(1+math.Abs(d.At(int(i), int(j)))), "(%d, %d)", i, j)
		}
	}
	// Bodies renumbered in first appearance: row 41's first body is 0.
	assert.Equal(t, int32(0), sub.Body[0][0])
	assert.Equal(t, k.Mass[k.Body[41][0]], sub.Mass[0])
	allocs := testing.AllocsPerRun(10, func() { _ = k.SubTo(&sub, rows) })
	assert.Zero(t, allocs)
	require.ErrorContains(t, k.SubTo(&sub, []int32{1, 60}), "KKT.SubTo: rows[1] = 60 is not a row in [0, 60)")
	require.ErrorContains(t, k.SubTo(k, rows), "dst is the source")
}

// denseFace returns A_FF⁻¹ r_F by a dense LU, by free row of state.
func denseFace(t *testing.T, d *mat.Dense, state []State, r []float64) map[int]float64 {
	var free []int
	for i, v := range state {
		if v == Free {
			free = append(free, i)
		}
	}
	m := len(free)
	blk := mat.NewDense(m, m, nil)
	rhs := mat.NewVecDense(m, nil)
	for p, i := range free {
		rhs.SetVec(p, r[i])
		for q, j := range free {
			blk.Set(p, q, d.At(i, j))
		}
	}
	var x mat.VecDense
	require.NoError(t, x.SolveVec(blk, rhs))
	out := map[int]float64{}
	for p, i := range free {
		out[i] = x.AtVec(p)
	}
	return out
}

// sameAsDense requires x on the free rows of state to be A_FF⁻¹ r_F by a
// dense LU of d within 1e-8 of max|x|: A_FF's condition number is below
// 1e6 in these tests, and refinement stops at a componentwise backward
// error of 1e-13.
func sameAsDense(t *testing.T, d *mat.Dense, state []State, r, x []float64, trial int) {
	t.Helper()
	want := denseFace(t, d, state, r)
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i, v := range want {
		assert.InDelta(t, v, x[i], 1e-8*scale, "trial %d row %d", trial, i)
	}
}

// Random quasi-definite systems: the body-space solve of a face agrees
// with a dense LU of A_FF, with compliant rows (K exact, one refinement at
// most) and with rigid ones (c = 0: the δ-regularized K̃ refined to A_FF),
// in any free set; the pivots have the signs of a quasi-definite matrix.
func TestKKTLDLRandomFaces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 12; trial++ {
		zeroC := []int{0, 2, 1}[trial%3] // all compliant, half rigid, all rigid
		nb := 4 + rng.IntN(10)
		n := nb + rng.IntN(3*nb) // fewer rows than 6 per body: A positive definite
		k, a, d := randomKKT(rng, nb, n, zeroC)
		diag := make([]float64, n)
		for i := range diag {
			diag[i] = a.At(i, i)
		}
		var g kktLDL
		g.build(k, diag, 0)
		state := make([]State, n)
		r := make([]float64, n)
		for i := range state {
			if rng.IntN(4) == 0 {
				state[i] = AtLower
			}
			r[i] = rng.NormFloat64()
		}
		x := make([]float64, n)
		require.True(t, g.solve(state, r, x), "trial %d", trial)
		sameAsDense(t, d, state, r, x, trial)
		for kpos, i := range g.f.perm {
			if int(i) < n {
				assert.Negative(t, g.f.d[kpos], "trial %d: row %d's pivot", trial, i)
			} else {
				assert.Positive(t, g.f.d[kpos], "trial %d: velocity %d's pivot", trial, int(i)-n)
			}
		}
		if zeroC == 0 {
			assert.LessOrEqual(t, g.refineIts, 1, "trial %d: exact K", trial)
		}
		// Body-space w = A x + b.
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		w1, w2 := make([]float64, n), make([]float64, n)
		g.mulAdd(w1, x, b)
		(&Problem{A: a, B: b}).Residual(w2, x)
		for i := range w1 {
			assert.InDelta(t, w2[i], w1[i], 1e-12*(1+math.Abs(w2[i])), "trial %d: w[%d]", trial, i)
		}
	}
}

// A singular face: a rigid row repeated gives A_FF a zero eigenvalue.
// With r in A_FF's range the refinement from y = 0 against the
// δ-regularized K̃ is the proximal point iteration of the metric δ·diag(A)
// and converges to the solution of least diag(A)-norm, the one the dual
// path's regularized mode (proximal steps of ε·diag(A) from x̄ = 0)
// approaches; with r outside the range it cannot converge: the KKT solve
// gives up, BPP solves the face with the dual factorization, which meets
// its rounding-level pivot and enters regularized mode, where K̃
// (c = ε a_ii) is exact and solves every later face.
func TestKKTSingularFace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	k, _, _ := randomKKT(rng, 6, 12, 1)
	k.Body = append(k.Body, k.Body[0]) // row 12 repeats row 0
	k.J = append(k.J, k.J[0])
	k.C = append(k.C, 0)
	n := 13
	a := kktSparse(k, denseA(k, inverses(t, k)))
	lo, hi := make([]float64, n), make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	consistent := make([]float64, n)
	a.MulVecTo(consistent, xs)
	inconsistent := slices.Clone(consistent)
	inconsistent[12] += 1e-3 // rows 0 and 12 now ask for different velocities

	solve := func(b []float64, path int8) (*BPP, Result) {
		s := &BPP{kktPath: path}
		var r Result
		require.NoError(t, s.Solve(&r, &Problem{A: a, B: b, Lo: lo, Hi: hi, KKT: k}, Settings{}))
		return s, r
	}
	s1, r1 := solve(consistent, kktForce)
	s2, r2 := solve(consistent, kktOff)
	assert.Equal(t, 0, s1.kkt.fallbacks, "consistent: the KKT path solves it")
	assert.False(t, s1.reg)
	assert.True(t, s2.reg, "the dual path regularizes")
	scale := 0.0
	for _, v := range r2.X {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range r1.X {
		// The dual path stops within regTol (1e-6 of max|b|) of the least
		// norm solution.
		assert.InDelta(t, r2.X[i], r1.X[i], 1e-5*scale, "x[%d]", i)
	}
	// x₀ and x₁₂ share the impulse of the repeated row equally (least
	// diag(A)-norm: a₀₀ = a₁₂,₁₂), to the rounding the δ-regularized
	// factor amplifies by up to 1/kktDelta in the null direction.
	assert.InDelta(t, r1.X[0], r1.X[12], 1e-7*scale)

	s3, r3 := solve(inconsistent, kktForce)
	s4, r4 := solve(inconsistent, kktOff)
	assert.True(t, s4.reg)
	assert.Equal(t, 1, s3.kkt.fallbacks, "inconsistent: the unregularized face")
	assert.Positive(t, s3.kkt.solves, "the regularized faces")
	assert.True(t, s3.reg)
	assert.Equal(t, r4.Status, r3.Status)
	assert.Equal(t, r4.Reason[:20], r3.Reason[:20])
	for i := range r3.X {
		assert.InDelta(t, r4.X[i], r3.X[i], 1e-6*(1+math.Abs(r4.X[i])), "x[%d]", i)
	}

	// When the dual's factorization costs more than kktDualRatio of K̃'s
	// (here forced), the failed face enters regularized mode without
	// factoring the dual at all; the answer is the same.
	s5 := &BPP{kktPath: kktForce}
	s5.kkt.dualRatio = -1
	var r5 Result
	require.NoError(t, s5.Solve(&r5, &Problem{A: a, B: inconsistent, Lo: lo, Hi: hi, KKT: k}, Settings{}))
	assert.True(t, s5.reg)
	assert.Equal(t, 1, s5.kkt.fallbacks)
	assert.Nil(t, s5.sfac.d, "the dual was never factored")
	assert.Equal(t, r4.Status, r5.Status)
	for i := range r5.X {
		assert.InDelta(t, r4.X[i], r5.X[i], 1e-6*(1+math.Abs(r4.X[i])), "x[%d]", i)
	}
}

// contactKKTProblem returns a random 30-row problem on 8 bodies with its
// KKT (randomKKT), b drawn from a normal distribution and contact bounds
// [0, ∞).
func contactKKTProblem() (k *KKT, a *Sparse, bv, lo, hi []float64) {
	rng := rand.New(rand.NewPCG(9, 10))
	k, a, _ = randomKKT(rng, 8, 30, 0)
	n := 30
	bv, lo, hi = make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range bv {
		bv[i] = rng.NormFloat64()
		lo[i], hi[i] = 0, math.Inf(1)
	}
	return k, a, bv, lo, hi
}

// A KKT that does not describe A (a compliance off by 10 %) is caught by
// the Solve's check of the body-space w against A x + b: the dual solves
// that face and the rest, and the answer is the dual path's.
func TestKKTMismatchFallsBack(t *testing.T) {
	k, a, bv, lo, hi := contactKKTProblem()
	k.C[3] *= 1.1
	p := &Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k}
	var viaKKT, viaDual BPP
	viaKKT.kktPath, viaDual.kktPath = kktForce, kktOff
	var r1, r2 Result
	require.NoError(t, viaKKT.Solve(&r1, p, Settings{}))
	require.NoError(t, viaDual.Solve(&r2, p, Settings{}))
	assert.True(t, viaKKT.kkt.mismatch)
	assert.Equal(t, 1, viaKKT.kkt.fallbacks)
	assert.Equal(t, r2.X, r1.X, "every face by the dual: the same bits")
}

// Problem.KKTAssembled spares the once-per-Solve check that KKT describes
// A and changes nothing else: on a KKT that describes A the answer is the
// checked Solve's bit for bit, on the KKT path, with no fallback. A KKT
// that does not describe A (a compliance off by 10 %), vouched for wrongly,
// is still caught where the face's w comes from A (this problem: A's
// product is the cheaper, kktLDL.iterateW) by the face residual check, and
// the answer is the dual path's bit for bit, as in
// TestKKTMismatchFallsBack.
func TestKKTAssembledSkipsTheCheck(t *testing.T) {
	k, a, bv, lo, hi := contactKKTProblem()
	solve := func(p *Problem, path int8) (Result, *BPP) {
		t.Helper()
		s := &BPP{kktPath: path}
		var r Result
		require.NoError(t, s.Solve(&r, p, Settings{}))
		return r, s
	}
	checked, sc := solve(&Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k}, kktForce)
	vouched, sv := solve(&Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k, KKTAssembled: true}, kktForce)
	assert.False(t, sc.kkt.mismatch)
	assert.False(t, sv.kkt.mismatch)
	assert.Zero(t, sv.kkt.fallbacks)
	assert.Positive(t, sv.kkt.solves, "the faces went through K")
	assert.NotNil(t, sc.kkt.probe, "checked: describes ran")
	assert.Nil(t, sv.kkt.probe, "vouched for: describes never ran")
	assert.Equal(t, checked.X, vouched.X, "the check has no other effect: the same bits")
	assert.Equal(t, checked.Iterations, vouched.Iterations)

	k.C[3] *= 1.1
	dual, _ := solve(&Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k}, kktOff)
	wrong, sm := solve(&Problem{A: a, B: bv, Lo: lo, Hi: hi, KKT: k, KKTAssembled: true}, kktForce)
	assert.False(t, sm.kkt.mulUse, "w from A's product")
	assert.True(t, sm.kkt.mismatch, "caught by the face residual")
	assert.Equal(t, dual.X, wrong.X, "every face by the dual: the same bits")
}

// A sequence of faces through one kktLDL, as BPP's iterations and time
// steps make them: indices entering and leaving F (row modifications of
// the quasi-definite factor, with negative pivots on the rows), and a new
// A at the same pattern (a stale factor refined against the new K). Every
// face agrees with a dense LU of A_FF, and modifications and stale factors
// were used.
func TestKKTLDLModifyAndStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	nb, n := 10, 40
	k, a, d := randomKKT(rng, nb, n, 2)
	var g kktLDL
	g.f.minModify = 1 // a small problem: modify it all the same
	diag := make([]float64, n)
	build := func() {
		for i := range diag {
			diag[i] = a.At(i, i)
		}
		g.built = false
		g.build(k, diag, 0)
	}
	build()
	state := make([]State, n)
	r := make([]float64, n)
	x := make([]float64, n)
	modified, staleUsed := 0, 0
	for trial := 0; trial < 30; trial++ {
		if trial%10 == 9 {
			// The next time step: the same bodies and rows, new values.
			for b := range k.Mass {
				for c := 0; c < 6; c++ {
					k.Mass[b][7*c] *= 1 + 1e-3*rng.Float64()
				}
			}
			for i := range k.J {
				for s := range 2 {
					for c := range 6 {
						k.J[i][s][c] *= 1 + 1e-3*rng.NormFloat64()
					}
				}
			}
			minv := inverses(t, k)
			d = denseA(k, minv)
			a = kktSparse(k, d)
			build()
		} else {
			for c := 0; c < 1+rng.IntN(3); c++ {
				i := rng.IntN(n)
				if state[i] == Free {
					state[i] = AtLower
				} else {
					state[i] = Free
				}
			}
		}
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		require.True(t, g.solve(state, r, x), "trial %d", trial)
		if g.f.modifyOps > 0 {
			modified++
		}
		if g.f.stale {
			staleUsed++
		}
		sameAsDense(t, d, state, r, x, trial)
	}
	t.Logf("modified %d, stale %d of 30 faces", modified, staleUsed)
	assert.Positive(t, modified, "row modifications")
	assert.Positive(t, staleUsed, "stale factors")
}

// dualFlopsBound is a lower bound of the minimum degree factorization's
// structural flops, and the flops the numeric phase counts are those of
// the symbolic analysis.
func TestDualFlopsBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := 0; trial < 10; trial++ {
		nb := 5 + rng.IntN(30)
		_, a, _ := randomKKT(rng, nb, nb+rng.IntN(5*nb), 0)
		var f sparseLDL
		state := make([]State, a.n)
		require.True(t, f.factor(a, state))
		assert.Equal(t, f.symFlops, f.fullFlops, "trial %d", trial)
		assert.LessOrEqual(t, dualFlopsBound(a), f.symFlops, "trial %d", trial)
	}
}

// The quasi-definite factor's blocked rows (supernodes of the body
// velocities): a partial refactorization after indices moved gives the
// factor of a factorization from scratch bit for bit, and the factor has
// supernodes of at least six columns.
func TestKKTLDLPartialIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	nb, n := 12, 50
	k, a, _ := randomKKT(rng, nb, n, 2)
	diag := make([]float64, n)
	for i := range diag {
		diag[i] = a.At(i, i)
	}
	var g kktLDL
	g.f.noModify = true
	g.build(k, diag, 0)
	state := make([]State, n)
	r := make([]float64, n)
	x := make([]float64, n)
	require.True(t, g.solve(state, r, x))
	widest := int32(0)
	for j, e := range g.f.snEnd {
		widest = max(widest, e-int32(j)+1)
	}
	assert.GreaterOrEqual(t, widest, int32(6), "a body's six velocities")
	for trial := 0; trial < 8; trial++ {
		for c := 0; c < 1+trial%3; c++ {
			i := rng.IntN(n)
			if state[i] == Free {
				state[i] = AtUpper
			} else {
				state[i] = Free
			}
		}
		require.True(t, g.solve(state, r, x))
		require.Less(t, g.f.recompute, g.k.n, "a partial refactorization")
		var ref kktLDL
		ref.build(k, diag, 0)
		require.True(t, ref.solve(state, r, x))
		m := ref.f.lp[ref.k.n]
		assert.True(t, slices.Equal(ref.f.lx[:m], g.f.lx[:m]), "trial %d: L differs", trial)
		assert.True(t, slices.Equal(ref.f.d, g.f.d), "trial %d: D differs", trial)
	}
}

// build refills K̃'s kept pattern when the rows touch the same bodies as
// at the last build: the values, the finite flag and the pattern's version
// must be those of a build from scratch bit for bit (new Jacobians, masses,
// compliances and shift), and a changed layout must record its calls again
// (a new pattern, not a refill into the old one's slots).
func TestKKTBuildRefillsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	k, _, _ := randomKKT(rng, 5, 24, 0)
	diag := make([]float64, k.N())
	for i := range diag {
		diag[i] = 1 + rng.Float64()
	}
	var g kktLDL
	g.build(k, diag, 0)
	require.False(t, g.refilling, "first build makes its pattern")
	ver := g.k.version
	for trial := 0; trial < 3; trial++ {
		// New values in the same layout.
		for i := range k.J {
			for s := range 2 {
				for c := range 6 {
					k.J[i][s][c] += 1e-3 * rng.NormFloat64()
				}
			}
			k.C[i] *= 1 + 0.1*rng.Float64()
		}
		k.Mass[trial][0] *= 1.5
		shift := []float64{0, SemidefiniteShift, 0}[trial]
		g.build(k, diag, shift)
		require.True(t, g.refilling, "trial %d: same layout, refilled", trial)
		require.Equal(t, ver, g.k.version, "trial %d: the pattern stays", trial)
		var fresh kktLDL
		fresh.build(k, diag, shift)
		require.False(t, fresh.refilling)
		require.Equal(t, fresh.k.ptr, g.k.ptr, "trial %d", trial)
		require.Equal(t, fresh.k.col, g.k.col, "trial %d", trial)
		require.Equal(t, len(fresh.k.val), len(g.k.val))
		for p, v := range fresh.k.val {
			require.Equal(t, math.Float64bits(v), math.Float64bits(g.k.val[p]), "trial %d: slot %d", trial, p)
		}
		require.True(t, g.k.finite)
		require.True(t, g.k.finished)
	}
	// A non-finite value is reported as by Finish.
	k.J[3][0][2] = math.Inf(1)
	g.build(k, diag, 0)
	require.True(t, g.refilling)
	require.False(t, g.k.finite, "an Inf entry written by refill")
	k.J[3][0][2] = 1
	// A row moved to another body: recorded again, a new pattern.
	b0 := k.Body[0][0]
	k.Body[0][0] = (b0 + 3) % int32(len(k.Mass))
	if k.Body[0][0] == k.Body[0][1] {
		k.Body[0][0] = (b0 + 4) % int32(len(k.Mass))
	}
	g.build(k, diag, 0)
	require.False(t, g.refilling, "a changed layout makes its pattern again")
	var fresh kktLDL
	fresh.build(k, diag, 0)
	require.Equal(t, fresh.k.col, g.k.col)
	require.Equal(t, fresh.k.val, g.k.val)
}

// iterateW takes the body-space product where it costs under half of A's:
// with few bodies carrying many rows (A dense, as on a brick pyramid) it
// is mulAdd, equal to A x + b to rounding; with rows spread over many
// bodies (A sparse, a chain of dominoes) it is A's own product, the bits
// of p.Residual.
func TestKKTIterateWChoosesTheCheaperProduct(t *testing.T) {
	for _, c := range productCases {
		rng, k, a, g := c.build()
		require.Equal(t, c.body, g.mulCheaper(a), "%d bodies, %d rows, nnz(A) %d", c.nb, c.n, a.NNZ())
		x, b := make([]float64, c.n), make([]float64, c.n)
		for i := range x {
			x[i], b[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		p := &Problem{A: a, B: b, KKT: k}
		w, want := make([]float64, c.n), make([]float64, c.n)
		g.iterateW(p, a, x, w)
		p.Residual(want, x)
		for i := range w {
			if c.body {
				// Rounding of two orders of summation: 1e-12 of the terms.
				assert.InDelta(t, want[i], w[i], 1e-12*(1+math.Abs(want[i])), "w[%d]", i)
			} else {
				assert.Equal(t, math.Float64bits(want[i]), math.Float64bits(w[i]), "w[%d]: A's product", i)
			}
		}
	}
}
