package lcp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// The largest first solve of the 1 000-box random pile
// (stepper.BenchmarkRandomPile1000Mean): an island of 54 rows (18 contact
// points with box friction, A semidefinite) at step 90, warm-started from
// the last step's index sets in the regularized mode that earlier solves
// of the island needed. Its faces are singular and, because b has a part
// outside the range of A, often inconsistent (stepper's
// TestPileOffRangeFromSeparatedPoints: that part sits on the rows of
// points not yet touching, φ > 0, mostly their friction rows, which ask a
// point not to slide while the tilt that closes its gap moves it
// sideways; touching points' position terms are consistent): the
// regularized face solution then
// grows as 1/ε along the null space of A_FF (ε = SemidefiniteShift). Of
// its 57 face solutions, 16 have an impulse above 20 times the answer's
// largest (up to 743 against 0.62), and the block exchange from them
// flips most rows; the damped mode's line search, whose Newton points
// they are, accepts steps of 2⁻⁵ to 2⁻²⁰ between them. That this is the
// cause: b less its projection on the range of A is 0.119 m/s in the
// largest row (max|b| 0.301), and with b projected on that range (every
// face consistent) the same start converges in 7 iterations; on six more
// of the pile's slowest solves 20 → 3, 32 → 7, 43 → 16, 41 → 4, 40 → 13,
// 41 → 5. The MLCP is the stepper's, so the cure belongs where b is
// built (rows of separated points that a rigid motion can meet). The test
// keeps the case and its numbers: the solve converges to the regularized
// mode's tolerance (natural residual within 10⁻⁶ max|b|) in at most the
// 57 iterations it takes today, and with b on the range of A in at most
// 7.
// Tried on the pile's 5 317 solves of 5 or more iterations (46 783 in
// all, 57 at most) and given up: freezing rows that flip back (48 144 at
// best), exchanging only the most violated rows after a failure
// (53 674), a non-monotone line search (51 746), a line search along the
// projected arc (76 191), a primal active-set step (50 189); ε = 1e-5
// (46 620, largest 46) would move every semidefinite solve for 0.3 %,
// and 1e-4 and above end some solves unconverged;
// MaxBlockFailures 2 cut the 1 000-box pile's counted iterations (5.38 →
// 5.05 a step, most 80 → 64) but raised the 100-box pile's most (32 →
// 42).
func TestBPPPileStep90InconsistentFaces(t *testing.T) {
	p := loadProblem(t, "pile1000_step90.json")
	n := p.N()
	start := loadStart(t, "pile1000_step90_start.json", n)
	var s BPP
	s.semidefinite = true // as the stepper's earlier solves of this island left it
	var r Result
	var sizes []float64
	obs := ObserverFunc(func(it Iterate) { sizes = append(sizes, normInf(it.X)) })
	require.NoError(t, s.Solve(&r, p, Settings{Start: start, Observer: obs}))
	require.Equal(t, Converged, r.Status, r.Reason)
	res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
	big, most := 0, 0.0
	for _, v := range sizes {
		if v > 20*normInf(r.X) {
			big++
		}
		most = math.Max(most, v)
	}
	t.Logf("%d rows: %d iterations, natural residual %.3g (max|b| %.3g); %d face solutions above 20 max|x| = %.3g, the largest %.3g",
		n, r.Iterations, res, normInf(p.B), big, 20*normInf(r.X), most)
	// The regularized mode's tolerance: 1e-6 of max|b|.
	assert.LessOrEqual(t, res, 1e-6*math.Max(1, normInf(p.B)))
	assert.LessOrEqual(t, r.Iterations, 57)

	// b on the range of A: eigenvectors of eigenvalues above 1e-9 of the
	// largest (A has rank 18: the 18th eigenvalue is 0.25, the 19th 1.9e-15).
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, p.A.At(i, j))
		}
	}
	var es mat.EigenSym
	require.True(t, es.Factorize(sym, true))
	var v mat.Dense
	es.VectorsTo(&v)
	ev := es.Values(nil)
	q := *p
	q.B = make([]float64, n)
	bv := mat.NewVecDense(n, append([]float64(nil), p.B...))
	rank, off := 0, 0.0
	for k, e := range ev {
		if e < 1e-9*ev[n-1] {
			continue
		}
		rank++
		c := mat.Dot(v.ColView(k), bv)
		for i := range q.B {
			q.B[i] += c * v.At(i, k)
		}
	}
	for i := range q.B {
		off = math.Max(off, math.Abs(p.B[i]-q.B[i]))
	}
	var sq BPP
	sq.semidefinite = true
	var rq Result
	require.NoError(t, sq.Solve(&rq, &q, Settings{Start: start}))
	require.Equal(t, Converged, rq.Status, rq.Reason)
	t.Logf("rank %d; b off the range of A by %.3g; with b on it: %d iterations", rank, off, rq.Iterations)
	assert.LessOrEqual(t, rq.Iterations, 7)
}
