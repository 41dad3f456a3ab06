package bpmd

import (
	"path/filepath"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// wallProblems returns the box MLCPs of the shipped wall database.
func wallProblems(tb testing.TB) []*lcp.Problem {
	frames, err := ReadFile(filepath.Join("..", "testdata", "bpmd", "brickwall-rows3.h5"))
	if err != nil {
		tb.Fatal(err)
	}
	var ps []*lcp.Problem
	for _, f := range frames {
		p, _, err := Rebuild(f, Box, Options{})
		if err != nil {
			tb.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// energyDist returns ½ (x − y)ᵀ A (x − y) (J): well defined where A is only
// semidefinite (the wall's redundant contacts), since A(x − y) is unique
// over the solutions.
func energyDist(p *lcp.Problem, x, y []float64) float64 {
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - y[i]
	}
	ad := make([]float64, len(x))
	p.A.MulVecTo(ad, d)
	s := 0.0
	for i := range d {
		s += d[i] * ad[i]
	}
	return 0.5 * s
}

// scaleE0 is Σ bᵢ²/(2 aᵢᵢ) (J), the energy scale of a problem.
func scaleE0(p *lcp.Problem) float64 {
	s := 0.0
	for i, b := range p.B {
		s += b * b / (2 * p.A.At(i, i))
	}
	return s
}

func newSolvers() []lcp.Solver {
	return []lcp.Solver{
		&lcp.Newton{}, &lcp.Newton{Func: lcp.ChenChenKanzow}, &lcp.Newton{Func: lcp.MinMap}, &lcp.Prox{},
	}
}

// Every new solver agrees with block pivoting on the wall frames: the
// velocity error its x causes relative to BPP's, ½ΔxᵀAΔx, is below a
// stated fraction of the problem's energy scale E₀.
func TestNewSolversAgreeWithBPPOnWallFrames(t *testing.T) {
	for k, p := range wallProblems(t) {
		var ref lcp.Result
		if err := (&lcp.BPP{}).Solve(&ref, p, lcp.Settings{}); err != nil {
			t.Fatal(err)
		}
		e0 := scaleE0(p)
		for _, s := range newSolvers() {
			var res lcp.Result
			// Both stop at 1e-10 of the velocity scale, which bounds the
			// energy distance far below 1e-10 E₀; Newton takes ~10 steps,
			// projected Jacobi ~700 sweeps here (a large budget for margin).
			budget, tol := 500, 1e-10
			if s.Name() == "prox" {
				budget = 50000
			}
			if err := s.Solve(&res, p, lcp.Settings{MaxIterations: budget}); err != nil {
				t.Fatalf("frame %d %s: %v", k, s.Name(), err)
			}
			d := energyDist(p, res.X, ref.X)
			t.Logf("frame %d %-10s %5d iterations, ½ΔxᵀAΔx = %.3g E₀", k, s.Name(), res.Iterations, d/e0)
			if d > tol*e0 {
				t.Errorf("frame %d %s: ½ΔxᵀAΔx = %.3g E₀, want ≤ %g E₀", k, s.Name(), d/e0, tol)
			}
		}
	}
}

// One solve of a wall frame (cold) by each new solver, allocations
// reported; BPP for scale.
func BenchmarkSolversOnWallFrame(b *testing.B) {
	p := wallProblems(b)[1]
	for _, s := range append([]lcp.Solver{&lcp.BPP{}}, newSolvers()...) {
		budget := 100
		if s.Name() == "prox" {
			budget = 1000
		}
		b.Run(s.Name(), func(b *testing.B) {
			var res lcp.Result
			_ = s.Solve(&res, p, lcp.Settings{MaxIterations: budget})
			b.ReportAllocs()
			iters := 0
			for b.Loop() {
				_ = s.Solve(&res, p, lcp.Settings{MaxIterations: budget})
				iters += res.Iterations
			}
			b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
		})
	}
}
