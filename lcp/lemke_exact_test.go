package lcp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exactLemke is Lemke's method with the covering vector d = e and the
// lexicographic minimum ratio test, in exact rational arithmetic: the
// reference the floating-point Lemke is held against. It solves the
// standard LCP w = M z + q, 0 ≤ z ⊥ w ≥ 0, with the same tableau
// [I | −M | −d | q] and the same rules as Lemke.solveStd (first pivot: the
// lexicographic minimum of (q_k, e_k); then the lexicographic minimum of
// (rhs_k, (B⁻¹)_k)/t_k over t_k > 0). It returns z, the number of pivots and
// whether it ended in a solution (false: a ray, or maxPivots reached).
func exactLemke(mm [][]int64, q []int64, maxPivots int) (z []*big.Rat, pivots int, ok bool) {
	mr := make([][]*big.Rat, len(q))
	qr := make([]*big.Rat, len(q))
	for k := range q {
		mr[k] = make([]*big.Rat, len(q))
		for j := range q {
			mr[k][j] = new(big.Rat).SetInt64(mm[k][j])
		}
		qr[k] = new(big.Rat).SetInt64(q[k])
	}
	return exactLemkeRat(mr, qr, maxPivots)
}

// exactLemkeRat is exactLemke on rational data (float64 data converts
// exactly with big.Rat.SetFloat64).
func exactLemkeRat(mm [][]*big.Rat, q []*big.Rat, maxPivots int) (z []*big.Rat, pivots int, ok bool) {
	m := len(q)
	cols := 2*m + 2
	tab := make([][]*big.Rat, m)
	basis := make([]int, m)
	for k := range tab {
		tab[k] = make([]*big.Rat, cols)
		for j := range tab[k] {
			tab[k][j] = new(big.Rat)
		}
		tab[k][k].SetInt64(1)
		for j := 0; j < m; j++ {
			tab[k][m+j].Neg(mm[k][j])
		}
		tab[k][2*m].SetInt64(-1)
		tab[k][2*m+1].Set(q[k])
		basis[k] = k
	}
	z = make([]*big.Rat, m)
	for j := range z {
		z[j] = new(big.Rat)
	}
	negative := false
	for _, v := range q {
		negative = negative || v.Sign() < 0
	}
	if !negative {
		return z, 0, true
	}
	// ratio returns row k's ratio vector entry j (j = −1: the rhs) over t.
	ratio := func(k, j int, t *big.Rat) *big.Rat {
		c := 2*m + 1
		if j >= 0 {
			c = j
		}
		return new(big.Rat).Quo(tab[k][c], t)
	}
	lexLeave := func(c int, sign int) int {
		leave := -1
		for k := 0; k < m; k++ {
			t := new(big.Rat).Set(tab[k][c])
			if sign < 0 {
				t.Neg(t)
			}
			if t.Sign() <= 0 {
				continue
			}
			if leave < 0 {
				leave = k
				continue
			}
			tl := new(big.Rat).Set(tab[leave][c])
			if sign < 0 {
				tl.Neg(tl)
			}
			for j := -1; j < m; j++ {
				a, b := ratio(k, j, t), ratio(leave, j, tl)
				if sign < 0 { // the first pivot compares (q_k, e_k) themselves
					a, b = tab[k][colOf(j, m)], tab[leave][colOf(j, m)]
				}
				if cmp := a.Cmp(b); cmp != 0 {
					if cmp < 0 {
						leave = k
					}
					break
				}
			}
		}
		return leave
	}
	pivot := func(r, c int) {
		inv := new(big.Rat).Inv(tab[r][c])
		for j := range tab[r] {
			tab[r][j].Mul(tab[r][j], inv)
		}
		for k := 0; k < m; k++ {
			if k == r || tab[k][c].Sign() == 0 {
				continue
			}
			f := new(big.Rat).Set(tab[k][c])
			tmp := new(big.Rat)
			for j := range tab[k] {
				if tab[r][j].Sign() == 0 {
					continue
				}
				tab[k][j].Sub(tab[k][j], tmp.Mul(f, tab[r][j]))
			}
		}
		basis[r] = c
	}
	r := lexLeave(2*m, -1)
	pivot(r, 2*m)
	pivots = 1
	entering := m + r
	for pivots < maxPivots {
		leave := lexLeave(entering, 1)
		if leave < 0 {
			return z, pivots, false
		}
		out := basis[leave]
		pivot(leave, entering)
		pivots++
		if out == 2*m {
			for k := 0; k < m; k++ {
				if b := basis[k]; b >= m && b < 2*m {
					z[b-m].Set(tab[k][2*m+1])
				}
			}
			return z, pivots, true
		}
		if out < m {
			entering = out + m
		} else {
			entering = out - m
		}
	}
	return z, pivots, false
}

// colOf is the tableau column of ratio component j (−1: the rhs).
func colOf(j, m int) int {
	if j < 0 {
		return 2*m + 1
	}
	return j
}

// stdProblem is the standard LCP (M, q) as a Problem: lo = 0, hi = +∞.
func stdProblem(mm [][]int64, q []int64) *Problem {
	n := len(q)
	a := NewDense(n, n, nil)
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range q {
		for j := range q {
			a.Set(i, j, float64(mm[i][j]))
		}
		p.B[i] = float64(q[i])
		p.Hi[i] = inf
	}
	return p
}

// degenerateLCP returns a monotone, degenerate standard LCP with integer data
// and a known solution, in the style of the degenerate test problems of the
// LCP literature (Cottle, Pang & Stone, "The Linear Complementarity Problem",
// 1992): M = BᵀB + S with B a k×n matrix of small
// integers (so M is positive semidefinite and, for k < n, singular) and S
// skew-symmetric (0 for a symmetric M), and q = w* − M z* for a
// complementary pair z*, w* ≥ 0 that is zero on about a third of the rows
// (z*_i = w*_i = 0: a degenerate solution). Seeded: the same arguments give
// the same problem.
func degenerateLCP(n, k int, skew bool, seed uint64) (mm [][]int64, q []int64) {
	rng := rand.New(rand.NewPCG(seed, 14))
	b := make([][]int64, k)
	for r := range b {
		b[r] = make([]int64, n)
		for j := range b[r] {
			b[r][j] = int64(rng.IntN(5)) - 2
		}
	}
	mm = make([][]int64, n)
	for i := range mm {
		mm[i] = make([]int64, n)
		for j := range mm[i] {
			for r := 0; r < k; r++ {
				mm[i][j] += b[r][i] * b[r][j]
			}
		}
	}
	if skew {
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				s := int64(rng.IntN(3)) - 1
				mm[i][j] += s
				mm[j][i] -= s
			}
		}
	}
	zs, ws := make([]int64, n), make([]int64, n)
	for i := range zs {
		switch rng.IntN(3) {
		case 0:
			zs[i] = int64(1 + rng.IntN(2))
		case 1:
			ws[i] = int64(1 + rng.IntN(2))
		}
	}
	q = make([]int64, n)
	for i := range q {
		q[i] = ws[i]
		for j := range zs {
			q[i] -= mm[i][j] * zs[j]
		}
	}
	return mm, q
}

// murtyInts is murty(n) as integer data.
func murtyInts(n int) ([][]int64, []int64) {
	mm := make([][]int64, n)
	q := make([]int64, n)
	for i := range mm {
		mm[i] = make([]int64, n)
		mm[i][i] = 1
		for j := 0; j < i; j++ {
			mm[i][j] = 2
		}
		for k := 0; k <= i; k++ {
			q[i] -= 1 << (n - k)
		}
	}
	return mm, q
}

// murtyUpperInts is Murty's matrix transposed (1 on the diagonal, 2 above)
// with q = −e: every ratio of the first pivot ties; the solution is e_n.
func murtyUpperInts(n int) ([][]int64, []int64) {
	mm := make([][]int64, n)
	q := make([]int64, n)
	for i := range mm {
		mm[i] = make([]int64, n)
		mm[i][i] = 1
		for j := i + 1; j < n; j++ {
			mm[i][j] = 2
		}
		q[i] = -1
	}
	return mm, q
}

// checkAgainstExact solves (M, q) with Lemke and exactLemke and requires the
// same pivot count and the same z.
func checkAgainstExact(t *testing.T, mm [][]int64, q []int64, budget int) int {
	t.Helper()
	ze, piv, ok := exactLemke(mm, q, budget)
	require.True(t, ok, "the exact Lemke must end in a solution")
	p := stdProblem(mm, q)
	var r Result
	require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{MaxIterations: budget}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, piv, r.Pivots, "pivots: float vs exact")
	scale := 1.0
	for _, v := range q {
		scale = math.Max(scale, math.Abs(float64(v)))
	}
	for i := range ze {
		f, _ := ze[i].Float64()
		// 1e-9 relative to max|q|: the float tableau's rounding after a few
		// hundred pivots on integer data of this size.
		assert.InDelta(t, f, r.X[i], 1e-9*scale, "z[%d]", i)
	}
	return piv
}

func TestLemkeMatchesExactOnDegenerateProblems(t *testing.T) {
	// Textbook degenerate cases with q = −e (every ratio of the first pivot
	// ties): the cyclic matrix of Cottle, Pang & Stone (1992), the
	// non-P symmetric [[1,2],[2,1]], Murty's upper-triangular 1/2 matrix.
	cyclic := [][]int64{{1, 2, 0}, {0, 1, 2}, {2, 0, 1}}
	assert.Equal(t, 4, checkAgainstExact(t, cyclic, []int64{-1, -1, -1}, 100))
	checkAgainstExact(t, [][]int64{{1, 2}, {2, 1}}, []int64{-1, -1}, 100)
	for n := 3; n <= 12; n++ {
		mm, q := murtyUpperInts(n)
		// The lexicographic first pivot takes the last row; z_n then ends
		// the method: 2 pivots, z = e_n.
		assert.Equal(t, 2, checkAgainstExact(t, mm, q, 100), "n = %d", n)
	}
	for seed := uint64(0); seed < 40; seed++ {
		n := 3 + int(seed%6)
		mm, q := degenerateLCP(n, 1+n/2, seed%2 == 1, seed)
		checkAgainstExact(t, mm, q, 10*n*n)
	}
}

func TestLemkeMurtyExponential(t *testing.T) {
	// Murty (1978): with d = e Lemke's method needs exactly 2ⁿ pivots on
	// murty(n), whatever the arithmetic; z = (2ⁿ, 0, …, 0). Against the
	// exact Lemke for n = 8..12 (2⁸..2¹² pivots), and on the count and
	// solution alone for n = 13..16, where the rational tableau is slow.
	for n := 8; n <= 16; n++ {
		mm, q := murtyInts(n)
		if n <= 12 {
			assert.Equal(t, 1<<n, checkAgainstExact(t, mm, q, 1<<n+1), "n = %d", n)
			continue
		}
		var r Result
		require.NoError(t, (&Lemke{}).Solve(&r, stdProblem(mm, q), Settings{MaxIterations: 1<<n + 1}))
		assert.Equal(t, Converged, r.Status)
		assert.Equal(t, 1<<n, r.Pivots, "n = %d", n)
		want := make([]float64, n)
		want[0] = math.Ldexp(1, n)
		assert.InDeltaSlice(t, want, r.X, 0) // integer data, exact in float64
	}
}

func TestLemkeDegenerate40(t *testing.T) {
	// The degenerate LCPs of testdata/mlcp (degenerate-*.json). Lemke with
	// the smallest-index first pivot and the relative tie test cycled on
	// degenerate-psd-40 and -40b until a budget of 10 n² = 16 000 pivots ran
	// out; the exact Lemke needs 40 and 57 pivots.
	for _, c := range []struct {
		n, k int
		skew bool
		seed uint64
		want int
	}{{40, 11, false, 5779, 40}, {40, 16, false, 6011, 57}, {40, 20, false, 4040, 56},
		{40, 20, true, 4041, 36}, {8, 4, false, 8, 3}, {8, 4, true, 9, 5}} {
		mm, q := degenerateLCP(c.n, c.k, c.skew, c.seed)
		assert.Equal(t, c.want, checkAgainstExact(t, mm, q, 10*c.n*c.n), "seed %d", c.seed)
	}
}

// TestLemkeDegenerateLarger: on 60 seeded degenerate monotone LCPs of 30 to
// 90 rows (too large for the exact Lemke in a quick test) Lemke ends in a
// solution within 10 n² pivots, the bound of the test collection.
func TestLemkeDegenerateLarger(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		n := 30 + int(seed%5)*15
		mm, q := degenerateLCP(n, n/2+int(seed%3)*n/4, seed%2 == 1, 1000+seed)
		p := stdProblem(mm, q)
		var r Result
		require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{}), "seed %d", seed)
		assert.Equal(t, Converged, r.Status)
		assert.LessOrEqual(t, r.Pivots, 10*n*n, "seed %d", seed)
		// 1e-9 relative to max|q|: a converged Lemke is exact to rounding.
		assert.LessOrEqual(t, maxNaturalResidual(p, r.X, p.Residual(nil, r.X)), 1e-9*normInf(p.B), "seed %d", seed)
	}
}
