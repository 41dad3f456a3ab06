package lcp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A partial refactorization (a few indices entering or leaving F, or a few
// changed values of A) recomputes only the changed rows and their ancestors
// in the elimination tree and gives bit for bit the factor of a
// factorization from scratch; the same F and A recompute nothing.
func TestSparseLDLPartialIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	sp, a, state := compliantWall(rng, 6, 4, 40, 4)
	n := sp.N()
	var inc sparseLDL
	inc.noModify = true // the refactorization path; modifications round differently
	require.True(t, inc.factor(a, state))
	require.Equal(t, n, inc.recompute)
	require.True(t, inc.factor(a, state))
	assert.Zero(t, inc.recompute, "same F, same A")

	same := func(what string) {
		t.Helper()
		var ref sparseLDL
		require.True(t, ref.factor(a, state))
		require.Equal(t, ref.free, inc.free, what)
		m := ref.lp[n]
		// Bitwise: the same operations in the same order.
		assert.True(t, slices.Equal(ref.lx[:m], inc.lx[:m]), "%s: L differs", what)
		assert.True(t, slices.Equal(ref.d[:n], inc.d[:n]), "%s: D differs", what)
		assert.Less(t, inc.recompute, n, "%s: a full refactorization", what)
		assert.Greater(t, inc.recompute, 0, what)
		// And it solves A_FF x = r.
		r := make([]float64, len(inc.free))
		for k := range r {
			r[k] = rng.NormFloat64()
		}
		x := slices.Clone(r)
		inc.solve(x)
		for k, i := range inc.free {
			s := 0.0
			for l, j := range inc.free {
				s += a.At(int(i), int(j)) * x[l]
			}
			// Rounding of a well-conditioned (compliant) block.
			assert.InDelta(t, r[k], s, 1e-9*(1+math.Abs(r[k])), "%s: row %d", what, i)
		}
	}
	for trial := 0; trial < 8; trial++ {
		for c := 0; c < 1+trial%3; c++ {
			i := rng.IntN(n)
			if state[i] == Free {
				state[i] = AtUpper
			} else {
				state[i] = Free
			}
		}
		require.True(t, inc.factor(a, state))
		same("indices moved")
	}
	// New values in one row and column of A (same pattern).
	i := rng.IntN(n)
	for state[i] != Free {
		i = rng.IntN(n)
	}
	lo, hi := a.ptr[i], a.ptr[i+1]
	for p := lo; p < hi; p++ {
		j := int(a.col[p])
		if j == i {
			a.val[p] *= 1.5 // stays positive definite: a larger diagonal
		}
	}
	a.restamp() // values written in place
	require.True(t, inc.factor(a, state))
	same("a new value")
}

// A time stepper's warm-started solves of a semidefinite problem start in
// the regularization that an earlier one needed (a solve that started in it
// no longer clears the flag), and test the unshifted block again once in
// semidefiniteInherit+1 solves. Starting regularized changes the pivoting
// path, not the answer: w = A x + b (unique for a symmetric positive
// semidefinite MLCP) agrees with a cold BPP's to the regularized solve's
// tolerance.
func TestBPPKeepsRegularization(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	rows, nb := wallRows(rng, 3, 3, 24)
	p, _ := mbProblem(rng, nb, rows, 0) // rigid, redundant contacts: 72 rows on 54 degrees of freedom
	s := &BPP{}
	var r Result
	// Every row free at the start: the first face is all of A, 72 rows of
	// rank 54, singular, so the solve enters the regularization at once.
	allFree := make([]State, p.N())
	require.NoError(t, s.Solve(&r, p, Settings{Start: allFree}))
	require.True(t, s.semidefinite, "the wall-like problem is semidefinite")
	sw := 0.0
	for _, v := range p.B {
		sw = math.Max(sw, math.Abs(v))
	}
	start := slices.Clone(r.States)
	for k := 1; k <= semidefiniteInherit+1; k++ {
		require.NoError(t, s.Solve(&r, p, Settings{Start: start}))
		require.Equal(t, Converged, r.Status)
		assert.Equal(t, k%(semidefiniteInherit+1), s.inherited, "solve %d", k)
		if k <= semidefiniteInherit {
			assert.True(t, s.semidefinite, "solve %d", k)
		}
		var cold Result
		require.NoError(t, (&BPP{}).Solve(&cold, p, Settings{Start: start}))
		for i := range r.W {
			// Both are within proxAccept (1e-4) of the velocity scale of
			// the exact w at worst (a stalled proximal solve), usually
			// within regTol (1e-6).
			assert.InDelta(t, cold.W[i], r.W[i], 2*proxAccept*sw, "solve %d, row %d", k, i)
		}
	}
}

// Row modifications (an index entering or leaving F changes one row and
// column of the padded matrix) give a factor that solves A_FF x = r to
// rounding, as a factorization from scratch does, for single moves and for
// runs of them up to the modification bound; and a modification that meets
// a pivot at rounding level (a singular block) falls back to a
// factorization that reports the same failed row as one from scratch.
func TestSparseLDLModify(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	sp, a, state := compliantWall(rng, 8, 6, 160, 3)
	n := sp.N()
	inc := sparseLDL{minModify: 1} // a small problem: modify it all the same
	require.True(t, inc.factor(a, state))
	modified := 0
	for trial := 0; trial < 60; trial++ {
		moves := 1 + rng.IntN(4)
		if trial%10 == 9 {
			moves = 40 // a larger exchange: a refactorization
		}
		for c := 0; c < moves; c++ {
			i := rng.IntN(n)
			if state[i] == Free {
				state[i] = AtUpper
			} else {
				state[i] = Free
			}
		}
		require.True(t, inc.factor(a, state), "trial %d", trial)
		modified += inc.modifyOps
		// The compliant block's condition number is about 1e3: both
		// solves are within ~1e-13 of the exact one, relative.
		require.True(t, agreesWithScratch(t, rng, &inc, a, state, 1e-10, fmt.Sprintf("trial %d", trial)))
	}
	assert.Greater(t, modified, 60, "most small moves were modifications")

	// A rigid, redundant problem: free blocks turn singular.
	rows, nb := wallRows(rng, 3, 3, 24)
	rp, _ := mbProblem(rng, nb, rows, 0)
	ra := rp.A.(*Sparse)
	m := rp.N()
	st := make([]State, m)
	for i := range st {
		st[i] = AtLower
	}
	mod := sparseLDL{minModify: 1}
	require.True(t, mod.factor(ra, st))
	failedOnce := false
	for i := 0; i < m; i++ {
		st[i] = Free
		ok := mod.factor(ra, st)
		var ref sparseLDL
		okRef := ref.factor(ra, st)
		require.Equal(t, okRef, ok, "row %d free", i)
		if !ok {
			failedOnce = true
			assert.Equal(t, ref.failed, mod.failed, "row %d free", i)
			st[i] = AtLower // back to a positive definite block
			require.True(t, mod.factor(ra, st))
		}
	}
	assert.True(t, failedOnce, "72 rows on 54 degrees of freedom must turn singular")
}

// A factor kept for a new A of the same pattern (a time stepper's next
// step) is stale: solve refines against the new A and agrees with a
// factorization from scratch to rounding when A moved a little, and
// reports failure when A moved too far for the refinement, which makes
// BPP refactor; BPP's answers on a run of such problems match a cold BPP's.
func TestSparseLDLStale(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	sp, a, state := compliantWall(rng, 8, 6, 160, 3)
	n := sp.N()
	base := slices.Clone(a.val[:a.ptr[n]])
	// rescale sets A to D A D with D = diag(1 + δ_i), δ_i uniform in ±rel:
	// the same pattern, still symmetric positive definite.
	rescale := func(rel float64) {
		d := make([]float64, n)
		for i := range d {
			d[i] = 1 + rel*(2*rng.Float64()-1)
		}
		for i := 0; i < n; i++ {
			for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
				a.val[p] = base[p] * d[i] * d[a.col[p]]
			}
		}
		a.restamp() // values written in place
	}
	inc := sparseLDL{minModify: 1}
	require.True(t, inc.factor(a, state))
	check := func(what string) bool {
		t.Helper()
		// Both are within cond(A_FF)·(backward error) of the exact
		// solution: the refinement stops at a componentwise backward
		// error of refineTol = 1e-13, the direct solve is at rounding,
		// and the compliant block's condition number is about 1e3.
		return agreesWithScratch(t, rng, &inc, a, state, 1e-9, what)
	}
	for step := 0; step < 5; step++ {
		rescale(1e-9 * float64(step+1))
		if step%2 == 1 {
			i := rng.IntN(n) // and an index moves
			state[i] = map[State]State{Free: AtUpper, AtLower: Free, AtUpper: Free}[state[i]]
		}
		require.True(t, inc.factor(a, state))
		require.True(t, inc.stale, "step %d: the last factor is kept", step)
		require.True(t, check(fmt.Sprintf("step %d", step)), "step %d: refinement converges", step)
		assert.Positive(t, inc.refineIts, "step %d: it refined", step)
	}
	rescale(0.5) // far: the refinement must give up, not return a wrong x
	require.True(t, inc.factor(a, state))
	require.True(t, inc.stale)
	assert.False(t, check("far"), "a 50 % change of A is beyond the refinement")

	// BPP over a run of nearby problems, warm-started as a stepper does,
	// on the wall of BenchmarkBPPSparse (CFM about 1 % of the diagonal).
	rng = rand.New(rand.NewPCG(30, 72))
	rows, nb := wallRows(rng, 6, 5, 184)
	sp, _ = mbProblem(rng, nb, rows, 0.1)
	a = sp.A.(*Sparse)
	n = sp.N()
	base = slices.Clone(a.val[:a.ptr[n]])
	s := &BPP{}
	s.sfac.minModify = 1
	var r, cold Result
	var start []State
	stale := 0
	for step := 0; step < 6; step++ {
		rescale(1e-8)
		require.NoError(t, s.Solve(&r, sp, Settings{Start: start}))
		stale += btoi(s.sfac.stale)
		require.NoError(t, (&BPP{}).Solve(&cold, sp, Settings{Start: start}))
		require.Equal(t, Converged, cold.Status, "step %d: %s", step, cold.Reason)
		require.Equal(t, Converged, r.Status, "step %d: %s, %d iterations", step, r.Reason, r.Iterations)
		assert.Equal(t, cold.States, r.States, "step %d", step)
		for i := range r.X {
			assert.InDelta(t, cold.X[i], r.X[i], 1e-9*(1+math.Abs(cold.X[i])), "step %d, row %d", step, i)
		}
		start = slices.Clone(r.States)
	}
	assert.Positive(t, stale, "warm solves kept the factor")
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compliantWall is the wall-like problem of wallRows(levels, perLevel,
// contacts) with compliance 1e-3 (positive definite, condition number
// about 1e3), its *Sparse A and start states with each row at its lower
// bound with probability 1/oneIn.
func compliantWall(rng *rand.Rand, levels, perLevel, contacts, oneIn int) (*Problem, *Sparse, []State) {
	rows, nb := wallRows(rng, levels, perLevel, contacts)
	sp, _ := mbProblem(rng, nb, rows, 1e-3)
	state := make([]State, sp.N())
	for i := range state {
		if rng.IntN(oneIn) == 0 {
			state[i] = AtLower
		}
	}
	return sp, sp.A.(*Sparse), state
}

// agreesWithScratch solves A_FF x = r for a random r with inc and with a
// factorization of a and state from scratch, and requires the same free
// set and the two x within rel·max|x|. It returns false, checking nothing
// more, when inc's solve gave up (a stale factor that did not refine).
func agreesWithScratch(t *testing.T, rng *rand.Rand, inc *sparseLDL, a *Sparse, state []State, rel float64, what string) bool {
	t.Helper()
	var ref sparseLDL
	require.True(t, ref.factor(a, state), what)
	require.Equal(t, ref.free, inc.free, what)
	r := make([]float64, len(inc.free))
	for k := range r {
		r[k] = rng.NormFloat64()
	}
	x, xr := slices.Clone(r), slices.Clone(r)
	if !inc.solve(x) {
		return false
	}
	ref.solve(xr)
	scale := 0.0
	for _, v := range xr {
		scale = math.Max(scale, math.Abs(v))
	}
	for k := range x {
		require.InDelta(t, xr[k], x[k], rel*scale, "%s: row %d", what, inc.free[k])
	}
	return true
}

// The factor tells a new A from the one it holds by the values, through
// Sparse.stamp where that decides: the same values under a new stamp (a
// matrix refilled with what it held) and under the kept stamp both keep
// the factor fresh and modify the moved index in; new values under a new
// stamp make it stale. Each
// answer solves A_FF x = r as a factorization from scratch, to 1e-9 of
// max|x| (TestSparseLDLModify's tolerance).
func TestSparseLDLValuesByStamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	_, a, state := compliantWall(rng, 8, 6, 160, 3)
	n := a.n
	toggle := func() {
		i := rng.IntN(n)
		state[i] = map[State]State{Free: AtUpper, AtLower: Free, AtUpper: Free}[state[i]]
	}
	inc := sparseLDL{minModify: 1}
	require.True(t, inc.factor(a, state))
	for _, restamp := range []bool{true, false, true} {
		if restamp {
			a.restamp() // the same values, a new stamp
		}
		toggle()
		require.True(t, inc.factor(a, state))
		assert.False(t, inc.stale, "restamp %v: the same A keeps the factor fresh", restamp)
		assert.Positive(t, inc.modifyOps, "restamp %v: the moved index is modified in", restamp)
		require.True(t, agreesWithScratch(t, rng, &inc, a, state, 1e-9, fmt.Sprintf("restamp %v", restamp)))
	}
	for i := 0; i < n; i++ {
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			a.val[p] *= 1 + 1e-9*float64(1+(i+int(a.col[p]))%3)
		}
	}
	a.restamp() // new values
	toggle()
	require.True(t, inc.factor(a, state))
	assert.True(t, inc.stale, "new values: the last factor is kept as a preconditioner")
	require.True(t, agreesWithScratch(t, rng, &inc, a, state, 1e-9, "new values"))
}
