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

// ldlBackwardError returns, for the factor f of the padded C (cxOld), the
// largest |(L D Lᵀ − C)_ij| / (|L| |D| |L|ᵀ)_ij over the lower triangle
// (0 where both vanish), formed densely, and the largest column count of
// L. Higham ("Accuracy and Stability of Numerical Algorithms", 2nd ed.
// 2002, Thm. 10.3 and §11.1) bounds it by γ_{c+1} = (c+1)u / (1 − (c+1)u),
// c the number of terms in an entry's sum: at most the column count + 1.
func ldlBackwardError(f *sparseLDL) (worst float64, maxCount int) {
	n := len(f.perm)
	L := make([][]float64, n) // L[i][j], unit diagonal
	for i := range L {
		L[i] = make([]float64, n)
		L[i][i] = 1
	}
	for j := 0; j < n; j++ {
		maxCount = max(maxCount, f.lp[j+1]-f.lp[j])
		for p := f.lp[j]; p < f.lp[j+1]; p++ {
			L[f.li[p]][j] = f.lx[p]
		}
	}
	C := make([][]float64, n)
	for k := range C {
		C[k] = make([]float64, n)
		for p := f.cp[k]; p < f.cp[k+1]; p++ {
			v := f.cxOld[p]
			if int(f.ci[p]) == k {
				v *= 1 + f.shift
			}
			C[k][f.ci[p]] = v
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s, abs := 0.0, 0.0
			for c := 0; c <= j; c++ {
				s += L[i][c] * f.d[c] * L[j][c]
				abs += math.Abs(L[i][c] * f.d[c] * L[j][c])
			}
			if e := math.Abs(s - C[i][j]); e > 0 {
				worst = max(worst, e/abs)
			}
		}
	}
	return worst, maxCount
}

// snCase is a matrix to factor, quasi-definite (K̃ of a random body-space
// description) or positive definite (the dual of a compliant wall), with a
// free set.
type snCase struct {
	name  string
	a     *Sparse
	state []State
	neg   int // negBelow
}

func snCases(rng *rand.Rand) []snCase {
	var cs []snCase
	for trial, nb := range []int{8, 20, 40} {
		k, g := builtKKT(rng, nb, 4*nb)
		st := make([]State, g.k.n)
		for i := 0; i < k.N(); i++ {
			if rng.IntN(3) == 0 {
				st[i] = AtUpper // a constraint row outside F
			}
		}
		cs = append(cs, snCase{fmt.Sprintf("kkt%d", trial), &g.k, st, k.N()})
	}
	for trial, lv := range []int{4, 7} {
		_, a, st := compliantWall(rng, lv, 4, 8*lv, 4)
		cs = append(cs, snCase{fmt.Sprintf("wall%d", trial), a, st, 0})
	}
	return cs
}

// builtKKT draws a random K̃ of nb bodies and n constraint rows
// (randomKKT) with compliances in [1, 2), built.
func builtKKT(rng *rand.Rand, nb, n int) (*KKT, *kktLDL) {
	k, _, _ := randomKKT(rng, nb, n, 0)
	diag := make([]float64, k.N())
	for i := range diag {
		diag[i] = 1 + rng.Float64()
	}
	g := new(kktLDL)
	g.build(k, diag, 0)
	return k, g
}

// The supernodal factorization of quasi-definite and positive definite
// matrices, against the up-looking rows on the same ordering: L D Lᵀ
// reproduces the padded P A_FF Pᵀ to within Higham's componentwise bound
// γ_{c+1} |L||D||L|ᵀ, the two factors agree entry by entry to 1e-9 of
// |L||D| (both backward stable; these blocks are well conditioned), and the
// supernodal substitutions solve A_FF x = r to a residual of 1e-12 of
// Σ|a_ij x_j| + |r_i| (rounding times the blocks' condition: the
// up-looking factor's own residual, logged, is up to 9e-14 here).
func TestSupernodalMatchesUpLooking(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	const u = 0x1p-53
	for _, c := range snCases(rng) {
		var sn, up sparseLDL
		sn.negBelow, up.negBelow = c.neg, c.neg
		sn.snForce, up.snForce = 1, -1
		require.True(t, sn.factor(c.a, c.state), c.name)
		require.True(t, up.factor(c.a, c.state), c.name)
		require.True(t, sn.sn, c.name)
		require.False(t, up.sn, c.name)
		require.Equal(t, up.fullFlops, sn.fullFlops, "%s: the rows' structural flops", c.name)
		require.Equal(t, up.li[:up.lp[c.a.n]], sn.li[:sn.lp[c.a.n]], "%s: L's pattern", c.name)
		// The rows' patterns, which structure found by columns and
		// leaves to knowRow row by row: the up-looking rows' own.
		require.True(t, sn.rowLazy, c.name)
		for k := 0; k < c.a.n; k++ {
			sn.knowRow(k)
		}
		require.Equal(t, up.rs[:c.a.n+1], sn.rs[:c.a.n+1], "%s: the rows' lengths", c.name)
		require.Equal(t, up.rcol[:up.lp[c.a.n]], sn.rcol[:sn.lp[c.a.n]], "%s: the rows' columns in order", c.name)
		require.Equal(t, up.rslot[:up.lp[c.a.n]], sn.rslot[:sn.lp[c.a.n]], "%s: the rows' slots", c.name)
		require.Equal(t, up.rowFlops[:c.a.n], sn.rowFlops[:c.a.n], "%s: the rows' flops", c.name)
		require.Equal(t, up.rowLen[:c.a.n], sn.rowLen[:c.a.n], "%s: the rows' column entries", c.name)
		multi := 0
		for s := 0; s+1 < len(sn.snStart); s++ {
			if sn.snStart[s+1]-sn.snStart[s] > 1 && sn.snUpdPtr[s+1] > sn.snUpdPtr[s] {
				multi++
			}
		}
		require.Greater(t, multi, 0, "%s: supernodes of several columns with updates", c.name)
		worst, cnt := ldlBackwardError(&sn)
		g := float64(cnt+2) * u / (1 - float64(cnt+2)*u)
		assert.LessOrEqual(t, worst, g, "%s: backward error (column count %d)", c.name, cnt)
		t.Logf("%s: n %d, %d supernodes, backward error %.2g (bound %.2g)", c.name, c.a.n, len(sn.snStart)-1, worst, g)
		n := c.a.n
		for k := 0; k < n; k++ {
			assert.InDelta(t, up.d[k], sn.d[k], 1e-9*math.Abs(up.d[k]), "%s: d_%d", c.name, k)
		}
		for j := 0; j < n; j++ {
			for p := up.lp[j]; p < up.lp[j+1]; p++ {
				scale := math.Sqrt(math.Abs(up.d[j])) + math.Abs(up.lx[p])*math.Abs(up.d[j])
				assert.InDelta(t, up.lx[p], sn.lx[p], 1e-9*scale, "%s: l(%d,%d)", c.name, up.li[p], j)
			}
		}
		// The substitutions.
		r := make([]float64, len(sn.free))
		for k := range r {
			r[k] = rng.NormFloat64()
		}
		x, xu := slices.Clone(r), slices.Clone(r)
		require.True(t, sn.solve(x))
		require.True(t, up.solve(xu))
		worstU := 0.0
		for k, i := range up.free {
			cols, vals := c.a.row(int(i))
			s, sc := r[k], math.Abs(r[k])
			for q, j := range cols {
				if l := up.loc[j]; l >= 0 {
					s -= vals[q] * xu[l]
					sc += math.Abs(vals[q] * xu[l])
				}
			}
			worstU = max(worstU, math.Abs(s)/sc)
		}
		t.Logf("up-looking residual %.2g", worstU)
		for k, i := range sn.free {
			cols, vals := c.a.row(int(i))
			s, sc := r[k], math.Abs(r[k])
			for q, j := range cols {
				if l := sn.loc[j]; l >= 0 {
					s -= vals[q] * x[l]
					sc += math.Abs(vals[q] * x[l])
				}
			}
			assert.LessOrEqual(t, math.Abs(s), 1e-12*sc, "%s: row %d", c.name, i)
		}
	}
}

// A partial supernodal refactorization (indices entering and leaving F)
// computes only the dirty rows and gives the factor of a supernodal
// factorization from scratch bit for bit; row modifications on the
// supernodal factor solve A_FF to rounding.
func TestSupernodalPartialIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	for _, c := range snCases(rng) {
		var inc sparseLDL
		inc.negBelow, inc.snForce, inc.noModify = c.neg, 1, true
		state := slices.Clone(c.state)
		require.True(t, inc.factor(c.a, state), c.name)
		n := c.a.n
		for trial := 0; trial < 6; trial++ {
			toggleSome(rng, state, c.neg, 1+trial%3)
			require.True(t, inc.factor(c.a, state), c.name)
			var ref sparseLDL
			ref.negBelow, ref.snForce = c.neg, 1
			require.True(t, ref.factor(c.a, state), c.name)
			m := ref.lp[n]
			assert.True(t, slices.Equal(ref.lx[:m], inc.lx[:m]), "%s %d: L differs", c.name, trial)
			assert.True(t, slices.Equal(ref.d[:n], inc.d[:n]), "%s %d: D differs", c.name, trial)
			assert.Less(t, inc.recompute, n, "%s %d: a full refactorization", c.name, trial)
		}
	}
}

// BenchmarkSparseLDLFactor times a full numeric factorization (after the
// symbolic analysis) of a quasi-definite K̃ of 240 bodies and 960
// constraint rows, by supernodes and by up-looking rows, and their
// triangular solves.
func BenchmarkSparseLDLFactor(b *testing.B) {
	rng := rand.New(rand.NewPCG(75, 76))
	k, g := builtKKT(rng, 240, 960)
	state := make([]State, g.k.n)
	for _, mode := range []struct {
		name  string
		force int8
	}{{"supernodal", 1}, {"uplooking", -1}} {
		var f sparseLDL
		f.negBelow, f.snForce, f.noModify = k.N(), mode.force, true
		require.True(b, f.factor(&g.k, state))
		b.Run("factor/"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ReportMetric(float64(f.symFlops), "flops")
			for b.Loop() {
				f.valid = false
				if !f.factor(&g.k, state) {
					b.Fatal("factor failed")
				}
			}
		})
		x := make([]float64, len(f.free))
		b.Run("solve/"+mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range x {
					x[i] = 1
				}
				f.solveDirect(x)
			}
		})
	}
}

// Row modifications (indices entering and leaving F) on a supernodal
// factor, through the up-looking rows of the same storage, solve A_FF
// x = r as a factorization from scratch does, to 1e-9 of max|x| (the
// tolerance of TestSparseLDLModify's runs: a compliant block's condition
// times the modifications' rounding).
func TestSupernodalModify(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	_, a, state := compliantWall(rng, 8, 6, 160, 3)
	n := a.n
	inc := sparseLDL{minModify: 1, snForce: 1}
	require.True(t, inc.factor(a, state))
	require.True(t, inc.sn)
	modified := 0
	for trial := 0; trial < 30; trial++ {
		for m := 0; m < 1+rng.IntN(3); m++ {
			i := rng.IntN(n)
			if state[i] == Free {
				state[i] = AtLower
			} else {
				state[i] = Free
			}
		}
		require.True(t, inc.factor(a, state), "trial %d", trial)
		if inc.modifyOps > 0 {
			modified++
		}
		require.True(t, agreesWithScratch(t, rng, &inc, a, state, 1e-9, fmt.Sprintf("trial %d", trial)))
	}
	assert.Greater(t, modified, 10, "modifications, not refactorizations")
}

// A partial refactorization for the same values of A refills only the rows
// of C on the elimination-tree paths of the positions that entered or left
// F (cxKnown): C's values come out those a refill of every row gives, and
// L and D bit for bit those of a factorization from scratch, by up-looking
// rows and by supernodes. minModify = the pattern's full flops keeps the
// record of A's values (modifiable) while every partial refactorization,
// which costs less, is computed rather than replaced by modifications.
func TestPartialRefillsTheTogglesPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 78))
	for _, c := range snCases(rng) {
		for _, force := range []int8{-1, 1} {
			name := fmt.Sprintf("%s/snForce=%d", c.name, force)
			var inc sparseLDL
			inc.negBelow, inc.snForce, inc.noModify = c.neg, force, true
			state := slices.Clone(c.state)
			require.True(t, inc.factor(c.a, state), name)
			inc.noModify, inc.minModify = false, inc.fullFlops
			inc.valid = false // a full factorization that keeps the record
			require.True(t, inc.factor(c.a, state), name)
			n, refilled := c.a.n, 0
			for trial := 0; trial < 8; trial++ {
				toggleSome(rng, state, c.neg, 1+trial%3)
				if inc.cxKnown(c.a) {
					refilled++
				}
				require.True(t, inc.factor(c.a, state), name)
				var ref sparseLDL
				ref.negBelow, ref.snForce = c.neg, force
				require.True(t, ref.factor(c.a, state), name)
				nc, m := ref.cp[n], ref.lp[n]
				assert.True(t, slices.Equal(ref.cxOld[:nc], inc.cxOld[:nc]), "%s %d: C differs", name, trial)
				assert.True(t, slices.Equal(ref.lx[:m], inc.lx[:m]), "%s %d: L differs", name, trial)
				assert.True(t, slices.Equal(ref.d[:n], inc.d[:n]), "%s %d: D differs", name, trial)
				assert.Zero(t, inc.modifyOps, "%s %d: modified", name, trial)
			}
			assert.Equal(t, 8, refilled, "%s: calls that refilled the paths only", name)
		}
	}
}

// toggleSome draws count positions of state and moves each between Free
// and AtUpper, skipping those from neg on when neg > 0 (a K̃'s body
// velocities, always free).
func toggleSome(rng *rand.Rand, state []State, neg, count int) {
	for q := 0; q < count; q++ {
		i := rng.IntN(len(state))
		if neg > 0 && i >= neg {
			continue
		}
		if state[i] == Free {
			state[i] = AtUpper
		} else {
			state[i] = Free
		}
	}
}

// BenchmarkModifyVsRefactor times the two paths modifyCheaper chooses
// between on the same face change of a quasi-definite K̃ (the 240 bodies
// and 960 constraint rows of BenchmarkSparseLDLFactor, every row free):
// drops constraint rows leave F, as on the second face of step 1's
// pre-solve, and the factor is either modified (minModify = 1) or
// partially refactored (noModify), from the full factor of the first
// face each time. It reports each path's flops (modifyFlops; the rowFlops
// of the rows it recomputes) and its time against modifyTime's or
// refactorTime's, fitted on the pyramids: a check of the cost model on
// another pattern and machine. Measured (2 heavily loaded cores, 4 runs
// of 3–20): 2.7–7.1 times the model for the modifications, 1.2–5.4 for
// the refactorizations; at 2 400 rows and at most 0.1 MFlop both are
// mostly fixed costs the pyramids' fit does not resolve (a modification's
// per-index work is not in the model), and modifying was 2.6–10 times
// faster, as the model says.
func BenchmarkModifyVsRefactor(b *testing.B) {
	rng := rand.New(rand.NewPCG(75, 76))
	k, g := builtKKT(rng, 240, 960)
	first := make([]State, g.k.n)
	for _, drops := range []int{4, 16, 36} {
		second := slices.Clone(first)
		for _, i := range rng.Perm(k.N())[:drops] {
			second[i] = AtUpper
		}
		for _, modify := range []bool{true, false} {
			name := fmt.Sprintf("drops=%d/refactor", drops)
			if modify {
				name = fmt.Sprintf("drops=%d/modify", drops)
			}
			b.Run(name, func(b *testing.B) {
				f := sparseLDL{negBelow: k.N(), snForce: 1, minModify: 1, noModify: !modify}
				flops := 0
				for b.Loop() {
					b.StopTimer()
					f.valid = false
					require.True(b, f.factor(&g.k, first))
					if modify {
						f.toggles(second)
						flops = f.modifyFlops()
					}
					b.StartTimer()
					require.True(b, f.factor(&g.k, second))
					b.StopTimer()
					if modify != (f.modifyOps > 0) {
						b.Fatalf("modified %d rows", f.modifyOps)
					}
					if !modify {
						flops = 0
						for r, d := range f.dirty[:g.k.n] {
							if d {
								flops += f.rowFlops[r]
							}
						}
					}
					b.StartTimer()
				}
				model := refactorTime(flops, g.k.n)
				if modify {
					model = modifyTime(flops, g.k.n)
				}
				b.ReportMetric(float64(flops), "flops")
				b.ReportMetric(model, "model-ns")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/model, "measured/model")
			})
		}
	}
}
