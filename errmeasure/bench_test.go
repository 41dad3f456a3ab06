package errmeasure

import (
	"math/rand/v2"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// benchProblem is a random 480-row MLCP (about the brick wall's 160
// contacts × 3 rows) with a perturbed candidate x and w = A x + b.
func benchProblem(b *testing.B) (*lcp.Problem, []float64, []float64) {
	b.Helper()
	rng := rand.New(rand.NewPCG(480, 1))
	p, x, _ := randomSolved(rng, 480)
	for i := range x {
		x[i] += 0.1 * rng.NormFloat64()
	}
	return p, x, p.Residual(nil, x)
}

func BenchmarkCompute480(b *testing.B) {
	p, x, w := benchProblem(b)
	b.Run("diag", func(b *testing.B) { // a = nil: aᵢᵢ read from A (Eq. 13)
		b.ReportAllocs()
		for b.Loop() {
			Compute(p, x, w, nil)
		}
	})
	a := p.Diag(nil)
	b.Run("given_a", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Compute(p, x, w, a)
		}
	})
}

func BenchmarkTotalOfEnergy480(b *testing.B) {
	p, x, w := benchProblem(b)
	b.ReportAllocs()
	for b.Loop() {
		TotalOf(Energy, p, x, w, nil)
	}
}

func BenchmarkPickerObserve480(b *testing.B) {
	p, x, w := benchProblem(b)
	pk := NewPicker(Energy)
	pk.Reset(p, Energy)
	it := lcp.Iterate{Iter: 1, X: x, W: w, SatisfiesEq2: true}
	pk.Observe(it)
	b.ReportAllocs()
	for b.Loop() {
		pk.Observe(it)
	}
}

// BenchmarkComputeSolved480 is Compute on the solution of the random
// 480-row MLCP: every impulse within its bounds, as the face solutions of
// block pivoting and a stepper's converged iterates are.
func BenchmarkComputeSolved480(b *testing.B) {
	rng := rand.New(rand.NewPCG(480, 1))
	p, x, _ := randomSolved(rng, 480)
	w := p.Residual(nil, x)
	a := p.Diag(nil)
	b.ReportAllocs()
	for b.Loop() {
		Compute(p, x, w, a)
	}
}
