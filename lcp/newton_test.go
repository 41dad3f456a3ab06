package lcp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newSolvers are the solvers of newton.go and prox.go.
func newSolvers() []Solver {
	return []Solver{&Newton{}, &Newton{Func: ChenChenKanzow}, &Newton{Func: MinMap}, &Prox{}}
}

func TestNewSolverNames(t *testing.T) {
	var names []string
	for _, s := range newSolvers() {
		names = append(names, s.Name())
	}
	assert.Equal(t, []string{"newton-fb", "newton-cck", "newton-min", "prox"}, names)
}

// energyDiff returns ½(x−y)ᵀA(x−y).
func energyDiff(p *Problem, x, y []float64) float64 {
	n := p.N()
	d := make([]float64, n)
	for i := range d {
		d[i] = x[i] - y[i]
	}
	ad := make([]float64, n)
	p.A.MulVecTo(ad, d)
	return 0.5 * dot(d, ad)
}

// naturalResidual is max_i a_ii |x_i − clamp(x_i − w_i/a_ii)| with w = A x + b,
// in velocity units.
func naturalResidual(p *Problem, x []float64) float64 {
	w := p.Residual(nil, x)
	res := 0.0
	for i := range x {
		a := p.A.At(i, i)
		res = math.Max(res, a*math.Abs(x[i]-clamp(x[i]-w[i]/a, p.Lo[i], p.Hi[i])))
	}
	return res
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

func TestNewSolversAgreeWithEnum(t *testing.T) {
	// The seeded random problems of TestSolversAgreeWithEnum, with the
	// same comparisons: the energy norm of x − x* and the objective.
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := map[genKind]string{genMixed: "mixed", genZeroWidth: "zero-width", genRedundant: "redundant", genSeparating: "separating", genBilateral: "bilateral"}
	for kind := genMixed; kind <= genBilateral; kind++ {
		for trial := 0; trial < 40; trial++ {
			n := 1 + rng.IntN(10)
			p := randomProblem(rng, n, kind)
			var ref Result
			require.NoError(t, (&Enum{}).Solve(&ref, p, Settings{Tolerance: 1e-9}), "%s #%d", kinds[kind], trial)
			fref := objective(p, ref.X)
			scale := 1 + math.Abs(fref)
			for _, s := range newSolvers() {
				name := fmt.Sprintf("%s/%s/#%d/n=%d", s.Name(), kinds[kind], trial, n)
				_, prox := s.(*Prox)
				set := Settings{}
				if prox {
					set.MaxIterations = 200000
				}
				var r Result
				require.NoError(t, s.Solve(&r, p, set), name)
				if !prox || kind != genRedundant {
					require.Equal(t, Converged, r.Status, name)
				} // else: Jacobi contracts by about 1 − c/λ_max per step on redundant rows with compliance c, as PGS does; only the energy norm is asserted.
				w := p.Residual(nil, r.X)
				for i := range w {
					assert.InDelta(t, w[i], r.W[i], 1e-9*(1+math.Abs(w[i])), name)
				}
				// Newton stops at ‖Φ‖∞ ≤ 1e-10·max|b| but converges
				// quadratically, so it lands at rounding level; Prox stops
				// at a natural residual of 1e-10·max|b| (observed energy
				// error ≤ 1e-18·scale) or, on redundant rows, crawls
				// (observed ≤ 1.1e-7·scale after 2·10⁵ steps).
				tol := 1e-12 * scale
				if prox {
					tol = 1e-9 * scale
					if kind == genRedundant {
						tol = 1e-5 * scale
					}
				}
				assert.LessOrEqual(t, energyDiff(p, r.X, ref.X), tol, name)
				// The objective differs at first order, by w·(x − x*) on
				// rows at a bound, which FB and CCK approach to within
				// 1e-10·max|b|/a_ii: 1e-9·scale as for BPP.
				assert.InDelta(t, fref, objective(p, r.X), math.Max(tol, 1e-9*scale), name)
				if kind != genRedundant {
					// Well-conditioned: the components agree (Newton to
					// rounding of the LU, Prox to residual/λ_min(A)).
					ctol := 1e-8
					if prox {
						ctol = 1e-6
					}
					assert.InDeltaSlice(t, ref.X, r.X, ctol, name)
				}
			}
		}
	}
}

func TestNewSolversAgreeWithBPP(t *testing.T) {
	// Chains (200 rows), redundant brick walls (180 rows on 20 bricks),
	// multibody random rows, each with A as *Sparse and as *Dense.
	for _, c := range sparseCases() {
		var ref Result
		require.NoError(t, (&BPP{}).Solve(&ref, c.dn, Settings{}), c.name)
		for _, s := range newSolvers() {
			for _, p := range []*Problem{c.dn, c.sp} {
				name := fmt.Sprintf("%s/%s/%T", c.name, s.Name(), p.A)
				var r Result
				require.NoError(t, s.Solve(&r, p, Settings{MaxIterations: 100000}), name)
				require.Equal(t, Converged, r.Status, name)
				// Observed: Newton ≤ 6e-11, Prox ≤ 1e-8 (a natural
				// residual of 1e-10·max|b| over the smallest eigenvalue).
				tol := 1e-9
				if _, prox := s.(*Prox); prox {
					tol = 1e-7
				}
				assert.LessOrEqual(t, relMaxDiff(ref.X, r.X), tol, name)
			}
		}
	}
}

func TestNewSolversRod(t *testing.T) {
	f, err := os.Open("../testdata/mlcp/rod.json")
	require.NoError(t, err)
	defer f.Close()
	p, err := ReadProblem(f)
	require.NoError(t, err)
	want := []float64{(0.2981 - 0.5*0.1019) / 0.75, (-0.1019 + 0.5*0.2981) / 0.75}
	for _, s := range newSolvers() {
		t.Run(s.Name(), func(t *testing.T) {
			var r Result
			require.NoError(t, s.Solve(&r, p, Settings{}))
			assert.Equal(t, Converged, r.Status)
			assert.InDeltaSlice(t, []float64{0.32953, 0.06287}, r.X, 5e-6) // the paper's digits
			// 1e-9: a residual of 1e-10·max|b| = 3e-11 m/s over λ_min(A) = 0.5 kg⁻¹.
			assert.InDeltaSlice(t, want, r.X, 1e-9)
			assert.InDeltaSlice(t, []float64{0, 0}, r.W, 1e-9)
			assert.Equal(t, []State{Free, Free}, r.States)
		})
	}
}

// semidefiniteProblem is the box on four contacts of TestBPPSemidefinite:
// 12 rows of rank 6 (4 normal rows, 8 box-friction rows with |x| ≤ 0.5)
// and a consistent b = J v.
func semidefiniteProblem(rng *rand.Rand) *Problem {
	const n, r = 12, 6
	j := make([]float64, n*r)
	for i := range j {
		j[i] = rng.NormFloat64()
	}
	v := make([]float64, r)
	for k := range v {
		v[k] = rng.NormFloat64()
	}
	a := NewDense(n, n, nil)
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			a.Set(i, k, dot(j[i*r:(i+1)*r], j[k*r:(k+1)*r]))
		}
		p.B[i] = dot(j[i*r:(i+1)*r], v)
		if i < 4 {
			p.Lo[i], p.Hi[i] = 0, inf
		} else {
			p.Lo[i], p.Hi[i] = -0.5, 0.5
		}
	}
	return p
}

func TestNewSolversSemidefinite(t *testing.T) {
	// Newton regularizes its singular systems (H + μ D_β D_A), Prox needs
	// nothing: every solver reaches the default tolerance (natural residual
	// ≤ 1e-10·max|b|; observed ≤ 6.6e-11·max|b| for Newton in ≤ 37 steps,
	// ≤ 1e-10·max|b| for Prox in ≤ 8000 steps).
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 20; trial++ {
		dn := semidefiniteProblem(rng)
		sp := *dn
		sp.A = sparseFromDense(dn.A.(*Dense))
		sw := maxAbs(dn.B)
		for _, s := range newSolvers() {
			for _, p := range []*Problem{dn, &sp} {
				name := fmt.Sprintf("%s/#%d/%T", s.Name(), trial, p.A)
				var r Result
				require.NoError(t, s.Solve(&r, p, Settings{}), name)
				require.Equal(t, Converged, r.Status, name)
				// 1e-9: the test's margin over the stopping rule, which
				// FB and CCK meet on ‖Φ‖∞ (within a factor 2 + √2 of the
				// natural residual).
				assert.LessOrEqual(t, naturalResidual(dn, r.X), 1e-9*sw, name)
				for i, x := range r.X {
					xtol := 1e-9 * sw / dn.A.At(i, i)
					assert.GreaterOrEqual(t, x, dn.Lo[i]-xtol, name)
					assert.LessOrEqual(t, x, dn.Hi[i]+xtol, name)
				}
			}
		}
	}
}

func TestNewSolversIteratesSatisfyEq2(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	dn := randomProblem(rng, 60, genMixed)
	sp := *dn
	sp.A = sparseFromDense(dn.A.(*Dense))
	for _, s := range newSolvers() {
		for _, p := range []*Problem{dn, &sp} {
			name := fmt.Sprintf("%s/%T", s.Name(), p.A)
			seen := 0
			obs := ObserverFunc(func(it Iterate) {
				seen++
				assert.Equal(t, seen, it.Iter, name)
				assert.True(t, it.SatisfiesEq2, name)
				w := p.Residual(nil, it.X)
				for i := range w {
					// Newton's line search moves w by t·A d; the solver
					// recomputes A x + b before reporting, so this is rounding.
					assert.InDelta(t, w[i], it.W[i], 1e-12*(1+math.Abs(w[i])), name)
				}
			})
			var r Result
			require.NoError(t, s.Solve(&r, p, Settings{Observer: obs, MaxIterations: 100000}), name)
			assert.Equal(t, Converged, r.Status, name)
			assert.Equal(t, r.Iterations, seen, name)
			assert.Positive(t, seen, name)
			// A warm start from the solution converges at once.
			var r2 Result
			require.NoError(t, s.Solve(&r2, p, Settings{X0: r.X}), name)
			assert.Equal(t, Converged, r2.Status, name)
			assert.LessOrEqual(t, r2.Iterations, 1, name)
		}
	}
}

func TestNewSolversBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randomProblem(rng, 60, genMixed)
	for _, s := range newSolvers() {
		var r Result
		require.NoError(t, s.Solve(&r, p, Settings{MaxIterations: 1}), s.Name())
		assert.Equal(t, BudgetExhausted, r.Status, s.Name())
		assert.Equal(t, 1, r.Iterations, s.Name())
		w := p.Residual(nil, r.X)
		assert.InDeltaSlice(t, w, r.W, 1e-12, s.Name())
	}
}

func TestNewSolversNoAllocs(t *testing.T) {
	// A second solve with warm buffers allocates nothing, for a dense and a
	// sparse A.
	rng := rand.New(rand.NewPCG(3, 4))
	dn := randomProblem(rng, 40, genMixed)
	sp := *dn
	sp.A = sparseFromDense(dn.A.(*Dense))
	obs := ObserverFunc(func(Iterate) {})
	for _, s := range newSolvers() {
		for _, p := range []*Problem{dn, &sp} {
			var r Result
			set := Settings{Observer: obs, MaxIterations: 100000}
			require.NoError(t, s.Solve(&r, p, set))
			assert.Zero(t, testing.AllocsPerRun(3, func() { _ = s.Solve(&r, p, set) }), "%s/%T", s.Name(), p.A)
		}
	}
}

func TestNewSolversBreakdownAndSettings(t *testing.T) {
	// Inconsistent bilateral rows (x₁ + x₂ = −1 and = 1): the merit is
	// stationary at ‖Φ‖ = 1 without a solution. Newton reports ErrSingular
	// and the best iterate.
	a, _ := DenseFromRows([][]float64{{1, 1}, {1, 1}})
	p := &Problem{A: a, B: []float64{1, -1}, Lo: []float64{-inf, -inf}, Hi: []float64{inf, inf}}
	for _, s := range newSolvers()[:3] {
		var r Result
		err := s.Solve(&r, p, Settings{})
		assert.True(t, errors.Is(err, ErrSingular), "%s: %v", s.Name(), err)
		assert.Equal(t, Failed, r.Status)
		assert.NotEmpty(t, r.Reason)
		assert.InDeltaSlice(t, p.Residual(nil, r.X), r.W, 1e-12)
	}
	// Prox on the same: R = 1 is a 2-cycle (λ_max(D⁻¹A) = 2), which the
	// r-factor strategy breaks by halving R; x₁ + x₂ then settles at the
	// least-squares value with w = ±1 and the budget runs out: a status,
	// not an error.
	var r Result
	require.NoError(t, (&Prox{}).Solve(&r, p, Settings{MaxIterations: 50}))
	assert.Equal(t, BudgetExhausted, r.Status)
	// Prox cannot scale a zero diagonal.
	z := NewDense(1, 1, nil)
	err := (&Prox{}).Solve(&r, &Problem{A: z, B: []float64{1}, Lo: []float64{0}, Hi: []float64{inf}}, Settings{})
	assert.True(t, errors.Is(err, ErrSingular), "%v", err)
	// Bad parameters name themselves.
	rod := rodProblem()
	assert.ErrorContains(t, (&Newton{Func: ChenChenKanzow, Lambda: 1.5}).Solve(&r, rod, Settings{}), "Lambda")
	assert.ErrorContains(t, (&Newton{Func: 7}).Solve(&r, rod, Settings{}), "Func")
	assert.ErrorContains(t, (&Prox{Shrink: 1}).Solve(&r, rod, Settings{}), "Shrink")
	assert.ErrorContains(t, (&Prox{Grow: 0.5}).Solve(&r, rod, Settings{}), "Grow")
	assert.ErrorContains(t, (&Prox{FastRatio: 2}).Solve(&r, rod, Settings{}), "FastRatio")
	assert.ErrorContains(t, (&Prox{InitialR: -1}).Solve(&r, rod, Settings{}), "InitialR")
	for _, s := range newSolvers() {
		assert.ErrorContains(t, s.Solve(&r, rod, Settings{X0: []float64{1}}), "X0")
		assert.ErrorContains(t, s.Solve(&r, rod, Settings{X0: []float64{1, math.NaN()}}), "X0[1]")
	}
}

func TestNCPFunctions(t *testing.T) {
	// Each φ vanishes exactly on the complementarity set, and its
	// derivatives match central differences away from the kinks.
	for _, f := range []NCPFunc{FischerBurmeister, ChenChenKanzow, MinMap} {
		s := &Newton{Func: f, lam: 0.95, invSw: 0.5}
		for _, c := range []struct {
			a, b float64
			zero bool
		}{{0, 0, true}, {0, 3, true}, {2, 0, true}, {1, 1, false}, {-1, 2, false}, {2, -1, false}, {-1, -1, false}, {1e-300, 1e300, false}} {
			v, _, _ := s.ncp(c.a, c.b)
			if c.zero {
				assert.Zero(t, v, "%v(%v, %v)", f, c.a, c.b)
			} else {
				assert.NotZero(t, v, "%v(%v, %v)", f, c.a, c.b)
			}
		}
		for _, c := range [][2]float64{{1, 2}, {-1, 0.5}, {0.3, -2}, {-0.7, -0.2}, {1e6, 1e-6}} {
			_, da, db := s.ncp(c[0], c[1])
			const h = 1e-7
			fa := func(a, b float64) float64 { v, _, _ := s.ncp(a, b); return v }
			assert.InDelta(t, (fa(c[0]+h, c[1])-fa(c[0]-h, c[1]))/(2*h), da, 1e-5, "%v ∂a at %v", f, c)
			assert.InDelta(t, (fa(c[0], c[1]+h)-fa(c[0], c[1]-h))/(2*h), db, 1e-5, "%v ∂b at %v", f, c)
		}
	}
	// FB without cancellation: φ(1e8, 1e-8) = 2ab/(a+b+r) ≈ 1e-8.
	v, _, _ := fischer(1e8, 1e-8)
	assert.InDelta(t, 1e-8, v, 1e-20)
}

func TestNewtonBoxRowsJacobian(t *testing.T) {
	// The chain rule through the box composition: α, β against central
	// differences in x and w, for every kind of row and function.
	rows := []struct{ l, u float64 }{{-inf, inf}, {0, inf}, {-inf, 0.7}, {-0.5, 0.5}, {0.2, 0.2}}
	for _, f := range []NCPFunc{FischerBurmeister, ChenChenKanzow, MinMap} {
		s := &Newton{Func: f, lam: 0.95, invSw: 0.5, d: []float64{2}}
		for _, r := range rows {
			for _, pt := range [][2]float64{{0.13, 0.41}, {-0.31, 0.27}, {0.61, -0.9}, {0.02, -0.05}} {
				x, w := pt[0], pt[1]
				_, al, be := s.row(0, x, w, r.l, r.u)
				const h = 1e-7
				v := func(x, w float64) float64 { v, _, _ := s.row(0, x, w, r.l, r.u); return v }
				assert.InDelta(t, (v(x+h, w)-v(x-h, w))/(2*h), al, 1e-5, "%v row %v at %v: α", f, r, pt)
				assert.InDelta(t, (v(x, w+h)-v(x, w-h))/(2*h), be, 1e-5, "%v row %v at %v: β", f, r, pt)
			}
		}
	}
}

func BenchmarkNewton(b *testing.B) {
	for _, f := range []NCPFunc{FischerBurmeister, ChenChenKanzow, MinMap} {
		for _, n := range []int{30, 120} {
			p := benchProblem(n)
			s := &Newton{Func: f}
			var r Result
			require.NoError(b, s.Solve(&r, p, Settings{}))
			iters := r.Iterations
			b.Run(fmt.Sprintf("%v/n=%d", f, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = s.Solve(&r, p, Settings{})
				}
				b.ReportMetric(float64(iters), "iters")
			})
		}
	}
}

func BenchmarkProx(b *testing.B) {
	for _, n := range []int{30, 120} {
		p := benchProblem(n)
		s := &Prox{}
		var r Result
		set := Settings{MaxIterations: 1000000}
		require.NoError(b, s.Solve(&r, p, set))
		iters := r.Iterations
		b.Run(fmt.Sprintf("converge/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Solve(&r, p, set)
			}
			b.ReportMetric(float64(iters), "iters")
		})
		b.Run(fmt.Sprintf("100steps/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Solve(&r, p, Settings{MaxIterations: 100, Tolerance: 1e-300})
			}
		})
	}
}
