package lcp

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
