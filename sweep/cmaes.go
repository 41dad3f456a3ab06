package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// cmaes minimizes f over the unit cube [0, 1]^d by the covariance matrix
// adaptation evolution strategy (Hansen, "The CMA Evolution Strategy: A
// Tutorial", 2016: the default (μ/μ_w, λ) strategy with rank-one and
// rank-μ updates and cumulative step-size adaptation), with restarts that
// double the population (Auger and Hansen, "A restart CMA evolution
// strategy with increasing population size", 2005) from the best point
// found so far. A generation's λ points are evaluated together (one
// batch: eval gets them all at once, so a queue runs them in parallel).
//
// Points outside the cube are evaluated at their projection onto it and
// ranked with the penalty f·(1 + 100‖x − proj x‖²), so the mean is drawn
// back inside. The random stream is a PCG seeded by seed: the same f and
// seed give the same points, bit for bit.
type cmaes struct {
	d      int
	seed   uint64
	sigma0 float64 // initial step size (unit-cube coordinates)
	lambda int     // first run's population; 0 = 4 + ⌊3 ln d⌋
	budget int     // evaluations (points) in all runs
	// eval returns f at each point (in the cube).
	eval func(ctx context.Context, xs [][]float64) ([]float64, error)

	used  int
	best  []float64
	bestF float64
	runs  int
}

// minimize runs from x0 until the budget is spent.
func (c *cmaes) minimize(ctx context.Context, x0 []float64) error {
	rng := rand.New(rand.NewPCG(c.seed, 0xda942042e4dd58b5))
	c.best, c.bestF = slices.Clone(x0), math.Inf(1)
	lambda := c.lambda
	if lambda == 0 {
		lambda = 4 + int(3*math.Log(float64(c.d)))
	}
	start := slices.Clone(x0)
	for c.used < c.budget {
		if err := c.run(ctx, rng, start, lambda); err != nil {
			return err
		}
		c.runs++
		copy(start, c.best)
		lambda *= 2
	}
	return nil
}

// run is one CMA-ES run from mean m0 with population lambda; it ends when
// the budget is spent, the step size has shrunk below 1e-7 of the cube,
// or the run's best f has not improved for 10 + ⌈30 d/λ⌉ generations.
func (c *cmaes) run(ctx context.Context, rng *rand.Rand, m0 []float64, lambda int) error {
	n := c.d
	nf := float64(n)
	mu := lambda / 2
	w := make([]float64, mu)
	sw, sw2 := 0.0, 0.0
	for i := range w {
		w[i] = math.Log(float64(mu)+0.5) - math.Log(float64(i+1))
		sw += w[i]
	}
	for i := range w {
		w[i] /= sw
		sw2 += w[i] * w[i]
	}
	mueff := 1 / sw2
	cs := (mueff + 2) / (nf + mueff + 5)
	ds := 1 + 2*math.Max(0, math.Sqrt((mueff-1)/(nf+1))-1) + cs
	cc := (4 + mueff/nf) / (nf + 4 + 2*mueff/nf)
	c1 := 2 / ((nf+1.3)*(nf+1.3) + mueff)
	cmu := math.Min(1-c1, 2*(mueff-2+1/mueff)/((nf+2)*(nf+2)+mueff))
	chiN := math.Sqrt(nf) * (1 - 1/(4*nf) + 1/(21*nf*nf))

	m := slices.Clone(m0)
	sigma := c.sigma0
	C := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		C.SetSym(i, i, 1)
	}
	B := mat.NewDense(n, n, nil)
	D := make([]float64, n)
	ps, pc := make([]float64, n), make([]float64, n)
	var eig mat.EigenSym
	runBest, stall := math.Inf(1), 0
	maxStall := 10 + int(math.Ceil(30*nf/float64(lambda)))
	z := make([][]float64, lambda)
	y := make([][]float64, lambda)
	x := make([][]float64, lambda)
	xe := make([][]float64, lambda)
	for k := range z {
		z[k], y[k], x[k], xe[k] = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	for g := 0; c.used < c.budget; g++ {
		if !eig.Factorize(C, true) {
			return nil // C lost definiteness: end the run, restart
		}
		vals := eig.Values(nil)
		eig.VectorsTo(B)
		for i, v := range vals {
			D[i] = math.Sqrt(math.Max(v, 1e-300))
		}
		k := min(lambda, c.budget-c.used)
		for j := 0; j < k; j++ {
			for i := range z[j] {
				z[j][i] = rng.NormFloat64()
			}
			for i := 0; i < n; i++ {
				s := 0.0
				for l := 0; l < n; l++ {
					s += B.At(i, l) * D[l] * z[j][l]
				}
				y[j][i] = s
				x[j][i] = m[i] + sigma*s
				xe[j][i] = math.Min(1, math.Max(0, x[j][i]))
			}
		}
		fs, err := c.eval(ctx, xe[:k])
		if err != nil {
			return err
		}
		c.used += k
		rank := make([]float64, k)
		order := make([]int, k)
		for j := 0; j < k; j++ {
			pen := 0.0
			for i := range x[j] {
				pen += (x[j][i] - xe[j][i]) * (x[j][i] - xe[j][i])
			}
			rank[j] = fs[j] * (1 + 100*pen)
			order[j] = j
			if fs[j] < c.bestF || (fs[j] == c.bestF && slices.Compare(xe[j], c.best) < 0) {
				c.bestF = fs[j]
				copy(c.best, xe[j])
			}
		}
		if k < lambda {
			return nil // budget spent mid-generation
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmpFloat(rank[a], rank[b]) })
		if f := fs[order[0]]; f < runBest {
			runBest, stall = f, 0
		} else if stall++; stall > maxStall {
			return nil
		}
		// Recombination: y_w = Σ w_i y_{i:λ}, m += σ y_w.
		yw := make([]float64, n)
		for i := 0; i < mu; i++ {
			for l := range yw {
				yw[l] += w[i] * y[order[i]][l]
			}
		}
		for l := range m {
			m[l] += sigma * yw[l]
		}
		// C^{-1/2} y_w = B D⁻¹ Bᵀ y_w.
		t := make([]float64, n)
		for l := 0; l < n; l++ {
			s := 0.0
			for i := 0; i < n; i++ {
				s += B.At(i, l) * yw[i]
			}
			t[l] = s / D[l]
		}
		norm := 0.0
		for i := 0; i < n; i++ {
			s := 0.0
			for l := 0; l < n; l++ {
				s += B.At(i, l) * t[l]
			}
			ps[i] = (1-cs)*ps[i] + math.Sqrt(cs*(2-cs)*mueff)*s
			norm += ps[i] * ps[i]
		}
		norm = math.Sqrt(norm)
		hs := 0.0
		if norm/math.Sqrt(1-math.Pow(1-cs, 2*float64(g+1))) < (1.4+2/(nf+1))*chiN {
			hs = 1
		}
		for i := range pc {
			pc[i] = (1-cc)*pc[i] + hs*math.Sqrt(cc*(2-cc)*mueff)*yw[i]
		}
		for i := 0; i < n; i++ {
			for l := i; l < n; l++ {
				v := (1-c1-cmu)*C.At(i, l) + c1*(pc[i]*pc[l]+(1-hs)*cc*(2-cc)*C.At(i, l))
				for r := 0; r < mu; r++ {
					v += cmu * w[r] * y[order[r]][i] * y[order[r]][l]
				}
				C.SetSym(i, l, v)
			}
		}
		sigma *= math.Exp(cs / ds * (norm/chiN - 1))
		if sigma*slices.Max(D) < 1e-7 {
			return nil
		}
	}
	return nil
}
