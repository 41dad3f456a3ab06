package lcp

import "fmt"

// KKTPath forces the face solves of s with a Problem.KKT through the
// body-space factorization (mode 1), the dual (2), or lets the flops choose
// (0); for the tests of package lcp_test.
func KKTPath(s *BPP, mode int8) { s.kktPath = mode }

// KKTStats returns s's body-space solves and fallbacks so far, the last
// solve's refinement steps, and the structural flops of the last choice
// (K̃'s, the dual's).
func KKTStats(s *BPP) (solves, fallbacks, refine, kFlops, dFlops int) {
	g := &s.kkt
	return g.solves, g.fallbacks, g.refineIts, g.kFlops, g.dFlops
}

// KKTFactor returns a full numeric refactorization of p's K̃ (p.KKT, A's
// diagonal, no shift) for the free set of states, by supernodes (force 1)
// or by up-looking rows (−1), and the pattern's structural flops; for
// BenchmarkKKTFactor, with a solve by the factor.
func KKTFactor(p *Problem, states []State, force int8) (refactor func() bool, solve func(), flops int, shape string) {
	g, st := kktFor(p, states, force, true)
	refactor = func() bool {
		g.f.valid = false
		return g.f.factor(&g.k, st)
	}
	refactor()
	x := make([]float64, len(g.f.free))
	solve = func() {
		for i := range x {
			x[i] = 1
		}
		g.f.solveDirect(x)
	}
	return refactor, solve, g.f.symFlops, snShape(&g.f)
}

// kktFor builds p's K̃ from the diagonal of p's A, as a BPP solve builds
// it, with the factor's supernode choice force and noModify set before
// the build, and returns it unfactored with a copy of states sized to K̃.
func kktFor(p *Problem, states []State, force int8, noModify bool) (*kktLDL, []State) {
	a := p.A.(*Sparse)
	diag := make([]float64, a.n)
	for i := range diag {
		diag[i] = a.At(i, i)
	}
	g := &kktLDL{}
	g.f.snForce, g.f.noModify = force, noModify
	g.build(p.KKT, diag, 0)
	st := make([]State, g.k.n)
	copy(st, states)
	return g, st
}

// snShape describes f's supernodes: how many there are, how many have one
// column, the widest, the updating pairs (T, S) whose T has one column
// (see numericSN), and what relaxed amalgamation could merge: the
// supernodes whose last column's parent starts the next one (a child and
// its parent consecutive, the only merge of CHOLMOD's nrelax/zrelax), with
// the entries they hold and the explicit zeros merging would add (each
// column padded to the parent's first column's rows).
func snShape(f *sparseLDL) string {
	if !f.sn {
		return "no supernodes"
	}
	ns := len(f.snStart) - 1
	one, widest, pairs1 := 0, 0, 0
	merge, held, zeros := 0, 0, 0
	for s := 0; s < ns; s++ {
		w := int(f.snStart[s+1] - f.snStart[s])
		widest = max(widest, w)
		if w == 1 {
			one++
		}
		if e := int(f.snStart[s+1]) - 1; s+1 < ns && f.parent[e] == int32(e+1) {
			merge++
			held += f.lp[e+1] - f.lp[f.snStart[s]]
			zeros += (int(f.lnz[e+1]) + 1 - int(f.lnz[e])) * w
		}
		for p := f.snUpdPtr[s]; p < f.snUpdPtr[s+1]; p++ {
			t := f.snUpd[3*p]
			if f.snStart[t+1]-f.snStart[t] == 1 {
				pairs1++
			}
		}
	}
	return fmt.Sprintf("%d columns, %d supernodes (%d of one column, widest %d), %d updating pairs, %d from one column; %d supernodes followed by their parent (%d entries, merging adds %d zeros)",
		len(f.perm), ns, one, widest, f.snUpdPtr[ns], pairs1, merge, held, zeros)
}

// ProcessCPU returns the process's CPU time in nanoseconds (0 where the
// platform does not say): the benchmarks' cpu-ns/op, which the other
// processes on a loaded machine move much less than the wall clock.
func ProcessCPU() int64 { return processCPU() }

// KKTSupernodes forces K̃'s factor of s by supernodes (force 1), by
// up-looking rows (−1), or lets its flops choose (0).
func KKTSupernodes(s *BPP, force int8) { s.kkt.f.snForce = force }

// KKTAnalyze returns the ordering and symbolic analysis of p's K̃ (as
// KKTFactor builds it) from scratch — minimum degree, elimination tree,
// column counts, supernodes and the supernodal structure, what a new
// pattern costs before its first numeric factorization — and the
// strictly lower L's entries; for BenchmarkKKTAnalyze.
func KKTAnalyze(p *Problem, states []State) (analyze func(), nnzL int) {
	g, st := kktFor(p, states, 0, false)
	g.f.factor(&g.k, st)
	analyze = func() {
		g.f.a = nil
		g.f.analyze(&g.k)
	}
	return analyze, g.f.nnzL()
}

// KKTFactorNnzL returns the entries of the strictly lower L of p's K̃
// factored as KKTFactor(p, states, 0) factors it: a solve's
// substitutions cost 2·nnz L multiply-adds.
func KKTFactorNnzL(p *Problem, states []State) int {
	g, st := kktFor(p, states, 0, true)
	g.f.factor(&g.k, st)
	return g.f.nnzL()
}

// KKTWorthModify factors p's K̃ (as KKTFactor with force 0) for the free
// set of states and returns its full factorization's structural flops,
// a refinement step's (stepFlops) and whether worthModify would replace
// that factorization by a stale or modified factor.
func KKTWorthModify(p *Problem, states []State) (full, step int, worth bool) {
	g, st := kktFor(p, states, 0, false)
	g.f.factor(&g.k, st)
	return g.f.fullFlops, g.f.stepFlops(), g.f.worthModify(g.f.fullFlops)
}

// KKTFactorizations returns how many of s's body-space factor calls
// recomputed rows of L (a full or partial refactorization, not a kept,
// stale or modified factor), since s was made.
func KKTFactorizations(s *BPP) int { return s.kkt.factorizations }

// SemidefiniteInherit is semidefiniteInherit, for the tests of package
// lcp_test.
const SemidefiniteInherit = semidefiniteInherit

// KKTRegularized reports whether s's last Solve ended in regularized mode.
func KKTRegularized(s *BPP) bool { return s.reg }

// DualFactored reports whether s has ever factored a dual A (its sparse
// LDLᵀ holds a factor's storage).
func DualFactored(s *BPP) bool { return s.sfac.d != nil }

// KKTAttempts returns the body-space factorizations-and-refinements s has
// attempted so far (kktLDL.attempt calls).
func KKTAttempts(s *BPP) int { return s.kkt.attempts }
