package stepper_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Step 1 of the 210-brick pyramid (base 20, 7 080 rows) built at rest:
// every contact new, A's pattern and the factor's ordering built from
// scratch, the new contacts' pre-solve; against BenchmarkPyramidSteady, the
// cost of a cold start on a two-dimensional contact graph.
func BenchmarkPyramidStep1(b *testing.B) { benchPyramidStep1(b, 20) }

// Step 1 of the 496-brick pyramid (base 31), against
// BenchmarkPyramidSteadyLarge.
func BenchmarkPyramidStep1Large(b *testing.B) { benchPyramidStep1(b, 31) }

// benchPyramidStep1 times step 1 of a pyramid of the given base built at
// rest, with its iterations and stage times per step (reportTimings).
func benchPyramidStep1(b *testing.B, base int) {
	p := scenes.DefaultPyramidParams()
	p.Base = base
	b.ReportAllocs()
	iters, pre := 0, 0
	var sum stepper.Timings
	for b.Loop() {
		b.StopTimer()
		w, err := scenes.Pyramid(p)
		require.NoError(b, err)
		b.StartTimer()
		st, err := w.Step()
		require.NoError(b, err)
		iters += st.Iterations
		pre += st.PreSolveIterations
		addTimings(&sum, st.Timings)
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
	b.ReportMetric(float64(pre)/float64(b.N), "presolve-its/op")
	reportTimings(b, sum)
}

// withoutReference is block pivoting that drops Settings.Reference: the
// main solve of step 1 as it was before the pre-solve's x became its
// proximal centre, for comparison.
type withoutReference struct {
	lcp.BPP
	strip bool // drop the reference
}

func (s *withoutReference) Solve(dst *lcp.Result, p *lcp.Problem, set lcp.Settings) error {
	if s.strip {
		set.Reference = nil
	}
	return s.BPP.Solve(dst, p, set)
}

// Step 1 of the 55-brick pyramid built at rest: every contact is new, so
// the pre-solve solves the scene with the new friction rows pinned, and
// the main solve takes the pre-solve's x as regularized mode's first
// proximal centre (lcp.Settings.Reference). Its A is semidefinite (four
// points per brick face), and from x̄ = 0 the main solve pivoted to the
// regularized problem's solution near 0 and then, after a proximal move,
// to the one near the answer: 5 iterations; from the pre-solve's x it
// needs 1 (6 and 3 when the new contacts that carry no load in the
// pre-solve started loaded, their normal and friction rows free:
// freshLoadFloor). The answer is the same to the solver's tolerance: both
// solutions have a true residual under regTol = 10⁻⁶ of the velocity
// scale max|b| (lcp.BPP), and two solutions of the semidefinite MLCP
// differ only in the null space of A = J M⁻¹ Jᵀ, which moves no body, so
// the bodies' velocities agree within that tolerance (1.8e-10 m/s
// measured, 2.5e-9 at 210 bricks, against a bound of 1.6e-7).
func TestStep1MainSolveFromPreSolve(t *testing.T) {
	var its [2]int
	var vel [2][]float64
	scale := 0.0
	for k, strip := range []bool{false, true} {
		p := scenes.DefaultPyramidParams()
		p.Base = 10
		p.Settings.Solver = &withoutReference{strip: strip}
		w, err := scenes.Pyramid(p)
		require.NoError(t, err)
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, lcp.Converged, st.Status)
		require.Positive(t, st.PreSolveIterations, "step 1: every contact is new")
		its[k] = st.Iterations
		for _, b := range w.Bodies {
			vel[k] = append(vel[k], b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2])
		}
		for _, v := range w.LastProblem().B {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	dv := 0.0
	for i := range vel[0] {
		dv = math.Max(dv, math.Abs(vel[0][i]-vel[1][i]))
	}
	t.Logf("main solve: %d iterations from the pre-solve's x, %d from 0; velocities differ by %.3g (bound %.3g)", its[0], its[1], dv, 1e-6*scale)
	assert.LessOrEqual(t, its[0], 1, "from the pre-solve's x")
	assert.Less(t, its[0], its[1], "the reference saves iterations")
	assert.LessOrEqual(t, dv, 1e-6*scale, "velocities within the solver's tolerance")
}
