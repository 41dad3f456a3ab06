package lcp

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
)

// bppGolden is the SHA-256 of everything BPP returned and showed its
// Observer on bppCorpus (see TestBPPGolden).
const bppGolden = "51611169168d5f35985295418adf691155cb8752a530ec1b9dc45b6019d1b3e4"

// goldenHasher hashes BPP's answers: every Result (the bits of X and W,
// Status, Iterations, Pivots, Reason, States), the error text, and every
// iterate the Observer sees.
type goldenHasher struct {
	h      hash.Hash
	solves int
	iters  int
	status map[Status]int
}

func (g *goldenHasher) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	g.h.Write(b[:])
}

func (g *goldenHasher) floats(v []float64) {
	g.u64(uint64(len(v)))
	for _, f := range v {
		g.u64(math.Float64bits(f))
	}
}

func (g *goldenHasher) str(s string) {
	g.u64(uint64(len(s)))
	g.h.Write([]byte(s))
}

func (g *goldenHasher) Observe(it Iterate) {
	g.iters++
	g.u64(uint64(it.Iter))
	g.floats(it.X)
	g.floats(it.W)
	if it.SatisfiesEq2 {
		g.u64(1)
	}
}

// solve runs s on p with set (its Observer replaced by g, unless set
// already has one, which g then follows) and hashes the answer.
func (g *goldenHasher) solve(s *BPP, p *Problem, set Settings) Result {
	if set.Observer == nil {
		set.Observer = g
	} else {
		set.Observer = Observers{g, set.Observer}
	}
	var r Result
	err := s.Solve(&r, p, set)
	g.solves++
	g.status[r.Status]++
	g.floats(r.X)
	g.floats(r.W)
	g.u64(uint64(r.Status))
	g.u64(uint64(r.Iterations))
	g.u64(uint64(r.Pivots))
	g.str(r.Reason)
	g.u64(uint64(len(r.States)))
	for _, v := range r.States {
		g.u64(uint64(v))
	}
	if err != nil {
		g.str(err.Error())
	} else {
		g.str("<nil>")
	}
	return r
}

// variants solves p cold with the default budget and tolerance, with
// Settings.Tolerance set, with every budget 1..20, warm-started from the
// cold answer's States and X (b perturbed by 1 %, as between time steps),
// with MaxBlockFailures 1 and 6, and as a sequence of warm-started solves
// on one BPP (which carries the regularization from solve to solve).
func (g *goldenHasher) variants(p *Problem) {
	cold := g.solve(&BPP{}, p, Settings{})
	g.solve(&BPP{}, p, Settings{Tolerance: 1e-8})
	g.solve(&BPP{}, p, Settings{Tolerance: 1e-12})
	for budget := 1; budget <= 20; budget++ {
		g.solve(&BPP{}, p, Settings{MaxIterations: budget})
	}
	g.solve(&BPP{MaxBlockFailures: 1}, p, Settings{})
	g.solve(&BPP{MaxBlockFailures: 6}, p, Settings{})
	if cold.States == nil {
		return
	}
	q := *p
	q.B = slices.Clone(p.B)
	rng := rand.New(rand.NewPCG(uint64(p.N()), 5))
	for i := range q.B {
		q.B[i] *= 1 + 0.01*rng.NormFloat64()
	}
	g.solve(&BPP{}, &q, Settings{X0: cold.X})
	g.solve(&BPP{}, &q, Settings{Start: cold.States, MaxIterations: 3})
	seq := &BPP{}
	start := cold.States
	for k := 0; k < semidefiniteInherit+3; k++ {
		pk := p
		if k%2 == 1 {
			pk = &q
		}
		r := g.solve(seq, pk, Settings{Start: start})
		if r.States != nil {
			start = r.States
		}
	}
}

// sparseOf returns p with A as a *Sparse, or nil if A is not symmetric
// (a *Sparse holds a symmetric matrix).
func sparseOf(p *Problem) *Problem {
	d, ok := p.A.(*Dense)
	if !ok || !isSymmetric(d, 0) {
		return nil
	}
	q := *p
	q.A = sparseFromDense(d)
	return &q
}

// bppCorpus feeds g every problem of the golden corpus: the testdata/mlcp
// collection, random problems of every generator kind (dense and sparse),
// semidefinite boxes, rigid and compliant walls (the regularized and the
// damped modes), chains, singular and indefinite blocks, canceled and
// stopped solves.
func bppCorpus(t *testing.T, g *goldenHasher) {
	both := func(p *Problem) {
		g.variants(p)
		if q := sparseOf(p); q != nil {
			g.variants(q)
		}
	}
	for _, e := range loadCollection(t) {
		both(e.P)
	}
	rng := rand.New(rand.NewPCG(27, 1))
	for _, kind := range []genKind{genMixed, genZeroWidth, genRedundant, genSeparating, genBilateral} {
		for _, n := range []int{1, 3, 8, 20, 45} {
			both(randomProblem(rng, n, kind))
		}
	}
	for k := 0; k < 4; k++ {
		both(semidefiniteProblem(rng))
		both(psdProblem(rng, 6+5*k))
	}
	// Multibody rows: chains, random couplings, rigid (semidefinite) and
	// compliant walls, sparse and dense.
	for _, c := range []struct {
		rows       []mbRow
		nb         int
		compliance float64
	}{
		{chainRows(rng, 6), 6, 0},
		{chainRows(rng, 12), 12, 1e-3},
		{randomRows(rng, 5, 8, genMixed), 5, 0.1},
		{randomRows(rng, 5, 8, genRedundant), 5, 0},
	} {
		sp, dn := mbProblem(rng, c.nb, c.rows, c.compliance)
		g.variants(sp)
		g.variants(dn)
	}
	for _, c := range []struct {
		levels, perLevel, contacts int
		compliance                 float64
	}{
		{2, 2, 8, 0}, {3, 3, 24, 0}, {3, 3, 24, 1e-3}, {4, 4, 60, 0}, {5, 4, 60, 0.1},
	} {
		rows, nb := wallRows(rng, c.levels, c.perLevel, c.contacts)
		sp, dn := mbProblem(rng, nb, rows, c.compliance)
		g.variants(sp)
		g.variants(dn)
		allFree := make([]State, sp.N())
		g.solve(&BPP{}, sp, Settings{Start: allFree})
		g.solve(&BPP{}, dn, Settings{Start: allFree})
	}
	// The damped mode: the compliant wall on which single pivots crawl
	// (TestBPPDampedModeEndsACrawl), to the end and cut off on the way.
	{
		rows, nb := wallRows(rand.New(rand.NewPCG(91, 92)), 8, 6, 160)
		p, _ := mbProblem(rand.New(rand.NewPCG(91, 93)), nb, rows, 1e-3)
		for _, budget := range []int{0, 40, 60, 80, 100} {
			g.solve(&BPP{}, p, Settings{MaxIterations: budget})
		}
		g.solve(&BPP{}, p, Settings{Tolerance: 1e-6})
		g.solve(&BPP{MaxBlockFailures: 1}, p, Settings{})
	}
	// A rigid wall in the damped mode: regularized and damped together.
	{
		rows, nb := wallRows(rand.New(rand.NewPCG(93, 94)), 6, 5, 120)
		p, _ := mbProblem(rand.New(rand.NewPCG(93, 95)), nb, rows, 0)
		g.solve(&BPP{}, p, Settings{})
		g.solve(&BPP{}, p, Settings{Tolerance: 1e-9})
		g.solve(&BPP{}, p, Settings{Start: make([]State, p.N())})
	}
	// Semidefinite and inconsistent by a little (rigid rows closing loops
	// carry their position errors): b = A y plus noise of 1e-7 to 1e-3 of
	// max|b|, so that the proximal moves stall below regTol, between regTol
	// and proxAccept, and above it; in the damped mode too.
	for _, c := range []struct {
		levels, perLevel, contacts int
		seed                       uint64
	}{
		{2, 2, 8, 1}, {3, 3, 24, 2}, {6, 5, 120, 3},
	} {
		rows, nb := wallRows(rand.New(rand.NewPCG(c.seed, 7)), c.levels, c.perLevel, c.contacts)
		base, _ := mbProblem(rand.New(rand.NewPCG(c.seed, 8)), nb, rows, 0)
		for _, rel := range []float64{1e-7, 1e-5, 1e-3} {
			p := nearlyConsistent(base, rel, c.seed)
			g.solve(&BPP{}, p, Settings{})
			g.solve(&BPP{}, p, Settings{Tolerance: 1e-9})
			g.solve(&BPP{}, p, Settings{Start: make([]State, p.N())})
			for _, m := range []int{0, 10, 30} {
				g.solve(&BPP{}, bilateral(p, m), Settings{})
			}
		}
	}
	// The damped and the regularized mode together, the proximal moves
	// stalling below regTol ("semidefinite block solved to") and not.
	{
		rows, nb := wallRows(rand.New(rand.NewPCG(5, 92)), 4, 6, 90)
		base, _ := mbProblem(rand.New(rand.NewPCG(5, 93)), nb, rows, 0)
		p := nearlyConsistent(base, 1e-8, 5)
		for _, m := range []int{p.N() / 2, p.N() / 8} {
			q := bilateral(p, p.N()-m)
			g.solve(&BPP{}, q, Settings{})
			g.solve(&BPP{}, q, Settings{MaxIterations: 150})
		}
	}
	// Same pattern, new values (the next time step): the sparse factor
	// refines or is updated across solves.
	{
		p, a, state := compliantWall(rng, 4, 4, 50, 3)
		s := &BPP{}
		for k := 0; k < 5; k++ {
			r := g.solve(s, p, Settings{Start: state})
			state = r.States
			n := a.n
			ti, tj, tv := slices.Clone(a.ti), slices.Clone(a.tj), slices.Clone(a.tv)
			a.Reset(n)
			for m := range ti {
				a.Add(int(ti[m]), int(tj[m]), (1+0.1*float64(k))*tv[m])
			}
			a.Finish()
		}
	}
	// Singular and inconsistent, indefinite, non-symmetric, invalid.
	{
		a, _ := DenseFromRows([][]float64{{1, 1}, {1, 1}})
		p := &Problem{A: a, B: []float64{1, -1}, Lo: []float64{-inf, -inf}, Hi: []float64{inf, inf}}
		both(p)
		d, _ := DenseFromRows([][]float64{{1, 2, 0}, {2, 1, 0}, {0, 0, 3}})
		p = &Problem{A: d, B: []float64{-1.2, -0.2, 0.8}, Lo: []float64{-inf, -inf, -inf}, Hi: []float64{inf, inf, inf}}
		both(p)
		g.solve(&BPP{MaxDenseFallback: 2}, sparseOf(p), Settings{})
		ns, _ := DenseFromRows([][]float64{{2, 1}, {-1, 2}})
		g.variants(&Problem{A: ns, B: []float64{-1, 1}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}})
		g.solve(&BPP{}, p, Settings{X0: []float64{math.NaN(), 0, 0}})
		g.solve(&BPP{}, p, Settings{Start: []State{Free}})
		g.solve(&BPP{}, p, Settings{X0: []float64{0}})
		g.solve(&BPP{}, p, Settings{Start: []State{Free, 7, Free}})
		// Start states the bounds do not allow; b = 0; an invalid problem.
		q := &Problem{A: d, B: make([]float64, 3), Lo: []float64{-inf, -inf, 0}, Hi: []float64{inf, 1, inf}}
		g.solve(&BPP{}, q, Settings{Start: []State{AtLower, AtLower, AtUpper}})
		g.solve(&BPP{}, q, Settings{Start: []State{AtUpper, AtLower, AtLower}})
		g.solve(&BPP{}, &Problem{A: d, B: make([]float64, 3), Lo: []float64{1, 0, 0}, Hi: []float64{0, 1, 1}}, Settings{})
	}
	// Canceled before the first iterate; stopped after the k-th.
	{
		p := randomProblem(rng, 30, genMixed)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		g.solve(&BPP{}, p, Settings{Context: ctx})
		for k := 1; k <= 4; k++ {
			stop := NewStopper(func(it Iterate) error {
				if it.Iter >= k {
					return errors.New("enough")
				}
				return nil
			})
			g.solve(&BPP{}, p, Settings{Observer: stop})
			g.solve(&BPP{}, sparseOf(p), Settings{Observer: stop})
		}
	}
}

// TestBPPGolden guards BPP's bits: every answer (x and w to the bit,
// status, reason, iteration and pivot counts, index sets, error text) and
// every iterate shown to the Observer, on a corpus that reaches each of
// its modes (block and single pivots, the damped Newton mode, the
// regularized mode and its inheritance across warm-started solves, the
// dense LU fallback, breakdowns, cancellation), must hash to bppGolden. A
// change to BPP that moves a bit fails here; if the change is meant to
// (a new pivoting rule, a different tolerance), update bppGolden and say
// so in the commit. The hash holds on amd64 only: elsewhere the compiler
// may fuse multiply-adds, which rounds differently.
func TestBPPGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the golden hash is of amd64 arithmetic")
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" && s.Value != "v1" && s.Value != "v2" {
				t.Skipf("the golden hash is of GOAMD64 v1/v2 arithmetic; at %s Go fuses multiply-adds and the bits differ", s.Value)
			}
		}
	}
	g := &goldenHasher{h: sha256.New(), status: map[Status]int{}}
	bppCorpus(t, g)
	got := hex.EncodeToString(g.h.Sum(nil))
	t.Logf("%d solves, %d iterates, statuses %v: %s", g.solves, g.iters, g.status, got)
	if got != bppGolden {
		t.Errorf("BPP's answers hash to %s, want %s", got, bppGolden)
	}
}

// nearlyConsistent returns p with b = A y (y random, so the equations are
// consistent) plus noise of rel·max|b|.
func nearlyConsistent(p *Problem, rel float64, seed uint64) *Problem {
	rng := rand.New(rand.NewPCG(seed, 9))
	n := p.N()
	y := make([]float64, n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	q := *p
	q.B = make([]float64, n)
	p.A.MulVecTo(q.B, y)
	scale := normInf(q.B)
	for i := range q.B {
		q.B[i] += rel * scale * rng.NormFloat64()
	}
	return &q
}

// bilateral returns p with every row of index ≥ m unbounded.
func bilateral(p *Problem, m int) *Problem {
	q := *p
	q.Lo, q.Hi = slices.Clone(p.Lo), slices.Clone(p.Hi)
	for i := m; i < p.N(); i++ {
		q.Lo[i], q.Hi[i] = -inf, inf
	}
	return &q
}
