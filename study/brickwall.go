package study

import (
	"context"
	"fmt"
	"math"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"gonum.org/v1/gonum/stat"
)

// BrickWallSteps is BrickWall's default length (steps of 1/60 s).
const BrickWallSteps = 500

// WallSweeps is the paper's projected Gauss–Seidel iteration count per
// stored MLCP of BrickWall.
const WallSweeps = 100

// WallMeasures are the three measures of BrickWall's curves, in the
// paper's order: Fischer–Burmeister (Eq. 7), natural residual (Eq. 10) and
// energy error (Eq. 23).
var WallMeasures = []errmeasure.Measure{errmeasure.FB, errmeasure.Residual, errmeasure.Energy}

// WallCurve is one measure's statistics over the stored MLCPs after each
// sweep (index i for sweep i+1).
type WallCurve struct {
	Measure errmeasure.Measure
	Mean    []float64 // Eq. (28)
	Std     []float64 // Eq. (29): the sample standard deviation, 1/(T−1); 0 for one MLCP
}

// Peak returns the sweep (1-based) at which the mean is largest.
func (c *WallCurve) Peak() int {
	best := 0
	for i := range c.Mean {
		if c.Mean[i] > c.Mean[best] {
			best = i
		}
	}
	return best + 1
}

// BrickWallResult is what BrickWall measures.
type BrickWallResult struct {
	H float64 // time step (s)
	// Contacts and Iterations are, per step of the block-pivoting run, the
	// contact count and the solver's iterations.
	Contacts, Iterations []int
	// MaxDisplacement is the largest distance (m) any brick moved from its
	// start over the run: the wall stands if it is small.
	MaxDisplacement float64
	// Totals holds, per stored MLCP (steps with constraint rows), the
	// three totals after each of the WallSweeps sweeps. A solve that
	// converges exactly before WallSweeps (a sweep that changes nothing)
	// keeps its last totals for the remaining sweeps.
	Totals [][]errmeasure.Totals
	// Curves are the mean and deviation over Totals, one per WallMeasures.
	Curves []WallCurve
}

// ContactsMean returns the mean number of contacts per step.
func (r *BrickWallResult) ContactsMean() float64 { return meanInts(r.Contacts) }

// IterationsMean returns the mean block-pivoting iterations per step.
func (r *BrickWallResult) IterationsMean() float64 { return meanInts(r.Iterations) }

// IterationsMax returns the most block-pivoting iterations of a step.
func (r *BrickWallResult) IterationsMax() int {
	m := 0
	for _, v := range r.Iterations {
		m = max(m, v)
	}
	return m
}

// BrickWall is the brick-wall experiment of Enzenhöfer, Peiret, Teichmann
// and Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints" (2019), §5.2, Figs. 8–9, Eqs. (28)–(29). Phase 1
// runs the registered brickwall scene (30 bricks) with its defaults (block
// pivoting, no budget, h = 1/60 s) for o.Steps steps (default
// BrickWallSteps) and keeps a copy of every step's MLCP. Phase 2 solves
// each stored MLCP with projected Gauss–Seidel for WallSweeps sweeps from
// x = 0 (no warm start), records the three error totals after every sweep
// (an errmeasure.Picker with Trace; diagonal effective mass), and reduces
// them per sweep to the mean (Eq. 28) and sample standard deviation (Eq.
// 29) over the steps. The paper's finding: FB and residual rise for about
// 10 sweeps, then fall; the energy error falls from the start.
func BrickWall(ctx context.Context, o Options) (*BrickWallResult, error) {
	steps, err := o.steps("brickwall", BrickWallSteps)
	if err != nil {
		return nil, err
	}
	pr := newMeter(o, 2*steps) // phase 1 steps, then phase 2 solves
	run, err := runWall(ctx, steps, pr)
	if err != nil {
		return nil, err
	}
	if len(run.problems) == 0 {
		return nil, fmt.Errorf("brickwall: no step had constraint rows")
	}
	pr.add(steps - len(run.problems)) // steps without rows have nothing to solve
	res := &BrickWallResult{H: run.h, Contacts: run.contacts, Iterations: run.iters, MaxDisplacement: run.maxDisp}
	if res.Totals, err = wallCurves(ctx, run.problems, pr); err != nil {
		return nil, err
	}
	col := make([]float64, len(res.Totals))
	for _, m := range WallMeasures {
		c := WallCurve{Measure: m, Mean: make([]float64, WallSweeps), Std: make([]float64, WallSweeps)}
		for i := 0; i < WallSweeps; i++ {
			for k := range res.Totals {
				col[k] = res.Totals[k][i].Of(m)
			}
			c.Mean[i], c.Std[i] = meanStd(col)
		}
		res.Curves = append(res.Curves, c)
	}
	return res, nil
}

// meanStd returns the mean and the sample standard deviation (1/(n−1)) of
// v; the deviation of a single value is 0.
func meanStd(v []float64) (mean, std float64) {
	if len(v) < 2 {
		return stat.Mean(v, nil), 0
	}
	return stat.MeanStdDev(v, nil)
}

// meanInts returns the mean of v; NaN if v is empty.
func meanInts(v []int) float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return stat.Mean(f, nil)
}

// storedMLCP is a deep copy of one step's MLCP: the upper triangle of the
// symmetric A in compressed rows (row i holds cols[ptr[i]:ptr[i+1]], all
// ≥ i, with vals), and b, lo, hi.
type storedMLCP struct {
	n         int
	ptr       []int32
	cols      []int32
	vals      []float64
	b, lo, hi []float64
}

// copyMLCP deep-copies p. A is read through the lcp.Matrix interface
// (At over the upper triangle), so any matrix type works; only the
// non-zeros are kept.
func copyMLCP(p *lcp.Problem) *storedMLCP {
	n := p.N()
	s := &storedMLCP{n: n, ptr: make([]int32, n+1),
		b: append([]float64(nil), p.B...), lo: append([]float64(nil), p.Lo...), hi: append([]float64(nil), p.Hi...)}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := p.A.At(i, j); v != 0 {
				s.cols = append(s.cols, int32(j))
				s.vals = append(s.vals, v)
			}
		}
		s.ptr[i+1] = int32(len(s.cols))
	}
	return s
}

// problem loads s into the reusable sparse matrix sp and returns the
// problem; it is valid until sp is loaded again.
func (s *storedMLCP) problem(sp *lcp.Sparse) *lcp.Problem {
	sp.Reset(s.n)
	for i := 0; i < s.n; i++ {
		for k := s.ptr[i]; k < s.ptr[i+1]; k++ {
			sp.Add(i, int(s.cols[k]), s.vals[k])
		}
	}
	sp.Finish()
	return &lcp.Problem{A: sp, B: s.b, Lo: s.lo, Hi: s.hi}
}

// wallRun is what phase 1 records.
type wallRun struct {
	problems        []*storedMLCP
	contacts, iters []int // per step
	maxDisp         float64
	h               float64
}

// runWall steps the default wall steps times with its own solver (block
// pivoting, no budget) and keeps every step's MLCP.
func runWall(ctx context.Context, steps int, pr *meter) (*wallRun, error) {
	s, err := scenes.Lookup("brickwall")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(nil)
	if err != nil {
		return nil, err
	}
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	r := &wallRun{h: w.Settings.H}
	for k := 1; k <= steps; k++ {
		if err := stopped(ctx, "brickwall: stopped at step %d of %d", k-1, steps); err != nil {
			return nil, err
		}
		st, err := w.Step()
		if err != nil {
			return nil, fmt.Errorf("brickwall: step %d: %w", k, err)
		}
		if p := w.LastProblem(); p != nil {
			r.problems = append(r.problems, copyMLCP(p))
		}
		r.contacts = append(r.contacts, st.Contacts)
		r.iters = append(r.iters, st.Iterations)
		for i, b := range w.Bodies {
			if b.Static {
				continue
			}
			r.maxDisp = math.Max(r.maxDisp, b.Pos.Sub(start[i]).Len())
		}
		pr.add(1)
	}
	return r, nil
}

// wallCurves solves every stored problem with PGS for WallSweeps sweeps
// from x = 0 and returns each step's totals per sweep.
func wallCurves(ctx context.Context, problems []*storedMLCP, pr *meter) ([][]errmeasure.Totals, error) {
	var (
		sp     lcp.Sparse
		res    lcp.Result
		solver lcp.PGS
	)
	pk := errmeasure.NewPicker(errmeasure.Energy)
	pk.Trace = true
	curves := make([][]errmeasure.Totals, len(problems))
	for k, s := range problems {
		if err := stopped(ctx, "brickwall: stopped in the PGS phase at problem %d of %d", k+1, len(problems)); err != nil {
			return nil, err
		}
		p := s.problem(&sp)
		pk.Reset(p, errmeasure.Energy)
		// Tolerance 1e-300: never stop on a small change, only on none.
		err := solver.Solve(&res, p, lcp.Settings{MaxIterations: WallSweeps, Tolerance: 1e-300, Observer: pk})
		if err != nil {
			return nil, fmt.Errorf("brickwall: PGS on step %d: %w", k+1, err)
		}
		if len(pk.History) == 0 {
			return nil, fmt.Errorf("brickwall: PGS on step %d: no iterate observed", k+1)
		}
		c := make([]errmeasure.Totals, WallSweeps)
		n := copy(c, pk.History)
		for i := n; i < WallSweeps; i++ {
			c[i] = c[n-1]
		}
		curves[k] = c
		pr.add(1)
	}
	return curves, nil
}
