package lcp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bodyProblem returns a random problem with a KKT that describes its A by
// construction (randomKKT): contact-like rows [0, ∞), boxes [−1, 1], rows
// pinned at 0 or at 0.3, and free rows, every third row rigid (c = 0).
func bodyProblem(rng *rand.Rand, nb, n int) *Problem {
	k, sp, _ := randomKKT(rng, nb, n, 3)
	p := &Problem{A: sp, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n), KKT: k, KKTAssembled: true}
	for i := range p.B {
		p.B[i] = rng.NormFloat64()
		switch i % 5 {
		case 0, 1:
			p.Lo[i], p.Hi[i] = 0, math.Inf(1)
		case 2:
			p.Lo[i], p.Hi[i] = -1, 1
		case 3:
			v := 0.0
			if i%2 == 1 {
				v = 0.3
			}
			p.Lo[i], p.Hi[i] = v, v
		default:
			p.Lo[i], p.Hi[i] = math.Inf(-1), math.Inf(1)
		}
	}
	return p
}

// PGS with BodySpace is the same projected Gauss–Seidel iteration as A's
// sweeps: after 15 sweeps (no early stop) on random problems whose KKT
// describes A, x agrees with A's sweeps within 1e-9 of its largest entry
// (each row's residual J_i v + c_i x_i + b_i is A's row product
// regrouped, 1e-16 relative per operation; the measured difference is
// logged) and the index sets agree wherever a row is not within that of
// a bound; w is A x + b to 1e-12 of the velocity scale. Run to a
// tolerance of 1e-12, its answer solves the MLCP judged by A's own
// residual (complementarity within 1e-8 of max|b|, the sweeps' stopping
// change times the coupling of a row to its neighbours), so the fixed
// points are the MLCP's.
func TestPGSBodySpaceSweepsAsA(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	worst := 0.0
	for trial := 0; trial < 20; trial++ {
		nb := 4 + rng.IntN(6)
		p := bodyProblem(rng, nb, 3*nb+rng.IntN(3*nb))
		var ra, rb Result
		set := Settings{MaxIterations: 15, Tolerance: 1e-300}
		require.NoError(t, (&PGS{}).Solve(&ra, p, set))
		require.NoError(t, (&PGS{BodySpace: true}).Solve(&rb, p, set))
		require.Equal(t, 15, rb.Iterations)
		xs, ws := 1.0, 1.0
		for i := range ra.X {
			xs = math.Max(xs, math.Abs(ra.X[i]))
			ws = math.Max(ws, math.Abs(p.B[i]))
		}
		aw := make([]float64, p.N())
		p.Residual(aw, rb.X)
		for i := range ra.X {
			d := math.Abs(ra.X[i] - rb.X[i])
			worst = math.Max(worst, d/xs)
			require.LessOrEqual(t, d, 1e-9*xs, "trial %d: x[%d]", trial, i)
			require.InDelta(t, aw[i], rb.W[i], 1e-12*ws*xs, "trial %d: w[%d] is A x + b", trial, i)
			if p.Lo[i] == p.Hi[i] {
				require.Equal(t, p.Lo[i], rb.X[i], "trial %d: pinned row %d at its bound", trial, i)
			}
			near := math.Abs(ra.X[i]-p.Lo[i]) <= 1e-9*xs || math.Abs(ra.X[i]-p.Hi[i]) <= 1e-9*xs
			if !near {
				require.Equal(t, ra.States[i], rb.States[i], "trial %d: state of row %d", trial, i)
			}
		}

		require.NoError(t, (&PGS{BodySpace: true}).Solve(&rb, p, Settings{MaxIterations: 200000, Tolerance: 1e-12}))
		require.Equal(t, Converged, rb.Status, "trial %d", trial)
		p.Residual(aw, rb.X)
		for i, x := range rb.X {
			switch {
			case p.Lo[i] == p.Hi[i]:
			case x > p.Lo[i] && x < p.Hi[i]:
				require.InDelta(t, 0, aw[i], 1e-8*ws, "trial %d: free row %d has w = 0", trial, i)
			case x <= p.Lo[i]:
				require.GreaterOrEqual(t, aw[i], -1e-8*ws, "trial %d: row %d at its lower bound", trial, i)
			default:
				require.LessOrEqual(t, aw[i], 1e-8*ws, "trial %d: row %d at its upper bound", trial, i)
			}
		}
	}
	t.Logf("body-space sweeps against A's: largest |Δx| %.3g of max|x|", worst)
}

// BodySpace without a KKT that describes A by construction sweeps A's rows:
// the same bits as without BodySpace. A relaxed row whose diagonal
// J M⁻¹ Jᵀ + C is 0 (a rigid row touching no body) ends the solve with
// ErrSingular naming the row; pinned, the same row costs nothing and the
// solve goes on. Repeated solves of one size allocate nothing.
func TestPGSBodySpaceFallbackAndErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	p := bodyProblem(rng, 5, 20)
	q := *p
	q.KKTAssembled = false
	var ra, rb Result
	set := Settings{MaxIterations: 9}
	require.NoError(t, (&PGS{}).Solve(&ra, &q, set))
	require.NoError(t, (&PGS{BodySpace: true}).Solve(&rb, &q, set))
	for i := range ra.X {
		require.Equal(t, math.Float64bits(ra.X[i]), math.Float64bits(rb.X[i]), "x[%d]", i)
	}

	s := &PGS{BodySpace: true}
	require.NoError(t, s.Solve(&rb, p, set))
	allocs := testing.AllocsPerRun(5, func() { _ = s.Solve(&rb, p, set) })
	assert.Zero(t, allocs, "a second solve of the same size")

	// Row 0 is rigid (every third row is): detach it from every body.
	require.Zero(t, p.KKT.C[0])
	p.KKT.Body[0] = [2]int32{-1, -1}
	p.Lo[0], p.Hi[0] = 0, math.Inf(1)
	err := s.Solve(&rb, p, set)
	require.True(t, errors.Is(err, ErrSingular), "got %v", err)
	assert.Contains(t, err.Error(), "row 0")
	assert.Equal(t, Failed, rb.Status)
	p.Hi[0] = 0
	require.NoError(t, s.Solve(&rb, p, set), "pinned, the row is never relaxed")
}

// One PGS with BodySpace, kept from solve to solve as the stepper keeps
// its seed's, visits the relaxed rows of each problem it is given: on a
// sequence of random problems of different sizes whose pinned rows move
// (a row pinned in one is relaxed in the next and the other way round),
// its answers are bit for bit those of a new PGS on each problem, and the
// pinned rows stay at their bounds.
func TestPGSBodySpaceReusedAcrossPinnedSets(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	kept := &PGS{BodySpace: true}
	set := Settings{MaxIterations: 9, Tolerance: 1e-300}
	moved := 0
	for trial := 0; trial < 12; trial++ {
		n := 40 - 3*trial // shrinking: a longer relaxed list of the last problem must not leak
		p := bodyProblem(rng, 6, n)
		if trial%2 == 1 {
			// Pin the contact-like rows at 0 and relax the pinned ones,
			// as a pre-solve pins new friction rows.
			for i := range p.Lo {
				switch {
				case p.Lo[i] == p.Hi[i]:
					p.Lo[i], p.Hi[i] = -1, 1
					moved++
				case i%5 == 1:
					p.Lo[i], p.Hi[i] = 0, 0
					moved++
				}
			}
		}
		var got, want Result
		require.NoError(t, kept.Solve(&got, p, set))
		require.NoError(t, (&PGS{BodySpace: true}).Solve(&want, p, set))
		require.Equal(t, want.Iterations, got.Iterations, "trial %d", trial)
		for i := range want.X {
			require.Equal(t, math.Float64bits(want.X[i]), math.Float64bits(got.X[i]), "trial %d: x[%d]", trial, i)
			require.Equal(t, math.Float64bits(want.W[i]), math.Float64bits(got.W[i]), "trial %d: w[%d]", trial, i)
			if p.Lo[i] == p.Hi[i] {
				require.Equal(t, p.Lo[i], got.X[i], "trial %d: pinned row %d", trial, i)
			}
		}
	}
	require.Greater(t, moved, 50, "the pinned sets moved")
}
