package lcp

// KKTOrderings returns the structural flops (Σ c(c−1)/2 over L's column
// counts c) and nnz L of two elimination orders of p's K̃ (as KKTFactor
// builds it): the minimum degree order the factor uses (ordering.minDegree
// on the whole K̃), and a structured one that eliminates every constraint
// row first, then the bodies in minimum degree order of the body graph
// (two bodies adjacent when a row touches both). A row touches no other
// row in K̃, so eliminating the rows first leaves exactly that body graph:
// row i's column has the 6 rows of each dynamic body it touches, and the
// bodies' columns are those of the body graph's own elimination. For
// BenchmarkKKTOrderingRowsFirst.
func KKTOrderings(p *Problem, states []State) (mdFlops, mdNnz, rfFlops, rfNnz int) {
	g, _ := kktFor(p, states, 0, false)
	var o ordering
	_, mdFlops, _ = o.minDegree(&g.k, nil, 0)
	for _, c := range o.cnt {
		mdNnz += int(c)
	}
	kk := p.KKT
	for _, b := range kk.Body {
		c := 0
		for _, x := range b {
			if x >= 0 {
				c += 6
			}
		}
		rfFlops += c * (c - 1) / 2
		rfNnz += c
	}
	var bg Sparse
	bg.Reset(6 * len(kk.Mass))
	block := func(a, b int32) {
		for i := range int32(6) {
			for j := range int32(6) {
				bg.Add(int(6*a+i), int(6*b+j), 1)
			}
		}
	}
	for bi := range int32(len(kk.Mass)) {
		block(bi, bi)
	}
	for _, b := range kk.Body {
		if b[0] >= 0 && b[1] >= 0 && b[0] != b[1] {
			block(b[0], b[1])
			block(b[1], b[0])
		}
	}
	bg.Finish()
	var ob ordering
	_, fb, _ := ob.minDegree(&bg, nil, 0)
	rfFlops += fb
	for _, c := range ob.cnt {
		rfNnz += int(c)
	}
	return mdFlops, mdNnz, rfFlops, rfNnz
}

// KKTAnalyzeCold is KKTAnalyze into a new factor each call, every array
// allocated again: the analysis as step 1 pays it, on fresh memory. The
// call returns the new factor's nnz L and whether it chose supernodes, as
// the kept factor did.
func KKTAnalyzeCold(p *Problem, states []State) (analyze func() (nnzL int, sn bool)) {
	g, _ := kktFor(p, states, 0, false)
	return func() (int, bool) {
		f := sparseLDL{negBelow: g.n, snForce: g.f.snForce}
		f.analyze(&g.k)
		return f.nnzL(), f.sn
	}
}
