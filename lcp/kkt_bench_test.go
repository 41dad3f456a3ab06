package lcp_test

import (
	"fmt"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// Steady steps of the brick wall and pyramid with the face solves forced
// through the body-space factorization (path=kkt; path=kkt-uplooking with
// K̃ factored by up-looking rows instead of supernodes) or the dual one
// (path=dual): the world settles with the KKT path (fast), then steps with
// the path under test, reporting BPP iterations per step.
func BenchmarkKKTPaths(b *testing.B) {
	type scene struct {
		name   string
		build  func() (*stepper.World, error)
		settle int
	}
	wall := func(rows int) func() (*stepper.World, error) {
		return func() (*stepper.World, error) {
			p := scenes.DefaultBrickWallParams()
			p.Rows = rows
			return scenes.BrickWall(p)
		}
	}
	pyramid := func(base int) func() (*stepper.World, error) {
		return func() (*stepper.World, error) {
			p := scenes.DefaultPyramidParams()
			p.Base = base
			return scenes.Pyramid(p)
		}
	}
	for _, sc := range []scene{
		{"wall30", wall(12), 60},
		{"wall100", wall(40), 60},
		{"pyramid210", pyramid(20), 30},
		{"pyramid496", pyramid(31), 30},
	} {
		for _, path := range []struct {
			name string
			mode int8
			sn   int8
		}{{"kkt", 1, 0}, {"kkt-uplooking", 1, -1}, {"dual", 2, 0}} {
			b.Run(fmt.Sprintf("%s/path=%s", sc.name, path.name), func(b *testing.B) {
				w, err := sc.build()
				require.NoError(b, err)
				settle := &lcp.BPP{}
				lcp.KKTPath(settle, 1)
				w.Settings.Solver = settle
				for i := 0; i < sc.settle; i++ {
					_, err := w.Step()
					require.NoError(b, err)
				}
				s := &lcp.BPP{}
				lcp.KKTPath(s, path.mode)
				lcp.KKTSupernodes(s, path.sn)
				w.Settings.Solver = s
				_, err = w.Step() // the path's first factorization
				require.NoError(b, err)
				loopIterations(b, func() int {
					st, err := w.Step()
					require.NoError(b, err)
					return st.Iterations
				})
			})
		}
	}
}

// The solver alone on a settled scene's last MLCP, warm-started from its
// answer's index sets, per path.
func BenchmarkKKTSolve(b *testing.B) {
	for _, sc := range []struct {
		name  string
		rows  int
		base  int
		steps int
	}{{"wall30", 12, 0, 60}, {"wall100", 40, 0, 60}, {"pyramid210", 0, 20, 30}} {
		w := wallOrPyramid(b, sc.rows, sc.base)
		s0 := &lcp.BPP{}
		lcp.KKTPath(s0, 1)
		w.Settings.Solver = s0
		for i := 0; i < sc.steps; i++ {
			_, err := w.Step()
			require.NoError(b, err)
		}
		p := w.LastProblem()
		var res lcp.Result
		require.NoError(b, s0.Solve(&res, p, lcp.Settings{}))
		start := append([]lcp.State(nil), res.States...)
		for _, path := range []struct {
			name string
			mode int8
		}{{"kkt", 1}, {"dual", 2}} {
			b.Run(fmt.Sprintf("%s/path=%s", sc.name, path.name), func(b *testing.B) {
				s := &lcp.BPP{}
				lcp.KKTPath(s, path.mode)
				require.NoError(b, s.Solve(&res, p, lcp.Settings{}))
				loopIterations(b, func() int {
					require.NoError(b, s.Solve(&res, p, lcp.Settings{Start: start}))
					return res.Iterations
				})
			})
		}
	}
}

// wallOrPyramid builds the brick wall of the given rows when rows > 0,
// else the pyramid of the given base.
func wallOrPyramid(b *testing.B, rows, base int) *stepper.World {
	var w *stepper.World
	var err error
	if rows > 0 {
		p := scenes.DefaultBrickWallParams()
		p.Rows = rows
		w, err = scenes.BrickWall(p)
	} else {
		p := scenes.DefaultPyramidParams()
		p.Base = base
		w, err = scenes.Pyramid(p)
	}
	require.NoError(b, err)
	return w
}

// settledFace steps w steps times and returns its last MLCP with the
// answer of a BPP on the body-space path.
func settledFace(b *testing.B, w *stepper.World, steps int) (*lcp.Problem, lcp.Result) {
	for i := 0; i < steps; i++ {
		_, err := w.Step()
		require.NoError(b, err)
	}
	prob := w.LastProblem()
	var res lcp.Result
	s := &lcp.BPP{}
	lcp.KKTPath(s, 1)
	require.NoError(b, s.Solve(&res, prob, lcp.Settings{}))
	return prob, res
}

// loopIterations times op once per b.Loop iteration, reporting
// allocations, the process's CPU time and op's BPP iterations per op.
func loopIterations(b *testing.B, op func() int) {
	b.ReportAllocs()
	iters := 0
	c0 := lcp.ProcessCPU()
	for b.Loop() {
		iters += op()
	}
	b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
}

// A full numeric factorization of a settled pyramid's K̃ (496 bricks:
// 17 112 constraint rows, 2 976 body velocities) for the face of its last
// solve, by supernodes and by up-looking rows.
func BenchmarkKKTFactor(b *testing.B) {
	prob, res := settledFace(b, wallOrPyramid(b, 0, 31), 5)
	for _, m := range []struct {
		name  string
		force int8
	}{{"supernodal", 1}, {"uplooking", -1}} {
		refactor, solve, flops, shape := lcp.KKTFactor(prob, res.States, m.force)
		b.Logf("%s: %s", m.name, shape)
		b.Run("factor/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := lcp.ProcessCPU()
			for b.Loop() {
				if !refactor() {
					b.Fatal("factorization failed")
				}
			}
			cpu := float64(lcp.ProcessCPU()-c0) / float64(b.N)
			b.ReportMetric(cpu, "cpu-ns/op")
			b.ReportMetric(float64(flops), "flops")
			// Two flops (a multiply and an add) per structural flop.
			b.ReportMetric(2*float64(flops)/cpu*1e3, "Mflop/s")
		})
		b.Run("solve/"+m.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := lcp.ProcessCPU()
			for b.Loop() {
				solve()
			}
			b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// The ordering and symbolic analysis of a settled pyramid's K̃ for the
// face of its last solve (210 and 496 bricks), from scratch: what step 1
// pays once per pattern before its first factorization.
func BenchmarkKKTAnalyze(b *testing.B) {
	for _, sc := range []struct {
		name  string
		base  int
		steps int
	}{{"pyramid210", 20, 30}, {"pyramid496", 31, 5}} {
		prob, res := settledFace(b, wallOrPyramid(b, 0, sc.base), sc.steps)
		analyze, nnzL := lcp.KKTAnalyze(prob, res.States)
		b.Run(sc.name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := lcp.ProcessCPU()
			for b.Loop() {
				analyze()
			}
			b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(nnzL), "nnzL")
		})
	}
}

// The cost of a factorization's multiply-add against a solve's, on the
// K̃ of settled scenes for the face of their last solve (factored as the
// flops choose: up-looking rows on the walls and the 55-brick pyramid,
// supernodes on the 210-brick one): factor/ reports the structural flops
// and cpu-ns per flop, solve/ the substitutions' cpu-ns per multiply-add
// (2·nnz L). Their ratio is sparseLDL.factorFlopCost, which sets where a
// stale or modified factor replaces a refactorization (worthModify).
func BenchmarkFactorSolveCost(b *testing.B) {
	for _, sc := range []struct {
		name       string
		rows, base int
	}{{"wall30", 12, 0}, {"wall100", 40, 0}, {"pyramid55", 0, 10}, {"pyramid210", 0, 20}} {
		prob, res := settledFace(b, wallOrPyramid(b, sc.rows, sc.base), 30)
		refactor, solve, flops, _ := lcp.KKTFactor(prob, res.States, 0)
		nnzL := lcp.KKTFactorNnzL(prob, res.States)
		b.Run(sc.name+"/factor", func(b *testing.B) {
			c0 := lcp.ProcessCPU()
			for b.Loop() {
				refactor()
			}
			b.ReportMetric(float64(flops), "flops")
			b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N)/float64(flops), "cpu-ns/flop")
		})
		b.Run(sc.name+"/solve", func(b *testing.B) {
			c0 := lcp.ProcessCPU()
			for b.Loop() {
				solve()
			}
			b.ReportMetric(float64(2*nnzL), "flops")
			b.ReportMetric(float64(lcp.ProcessCPU()-c0)/float64(b.N)/float64(2*nnzL), "cpu-ns/flop")
		})
	}
}
