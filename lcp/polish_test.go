package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// psdProblem is randomProblem's box with A = J Jᵀ of rank k < n (no
// compliance): symmetric positive semidefinite and singular, the case of
// redundant rigid rows. A zero column of J makes some rows couple to nothing.
func psdProblem(rng *rand.Rand, n int) *Problem {
	p := randomProblem(rng, n, genMixed)
	k := max(1, n/2)
	j := make([]float64, n*k)
	for i := range j {
		j[i] = rng.NormFloat64()
	}
	a := NewDense(n, n, nil)
	for r := 0; r < n; r++ {
		for s := 0; s < n; s++ {
			a.Set(r, s, dot(j[r*k:(r+1)*k], j[s*k:(s+1)*k]))
		}
	}
	p.A = a
	return p
}

// TestPolishNeverIncreasesObjective is the property of Polish's doc: for
// symmetric PSD A with fixed bounds and a start inside the box, no sweep
// raises f(x) = ½xᵀAx + bᵀx. Problems: positive definite (randomProblem's
// kinds) and singular PSD ones, 2 to 30 rows; starts: random points of the
// box (projected normals), 20 single sweeps each.
func TestPolishNeverIncreasesObjective(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 5))
	for trial := 0; trial < 300; trial++ {
		n := 2 + rng.IntN(29)
		var p *Problem
		if trial%2 == 0 {
			p = psdProblem(rng, n)
		} else {
			p = randomProblem(rng, n, genKind(rng.IntN(int(genBilateral)+1)))
		}
		x := make([]float64, n)
		for i := range x {
			x[i] = clamp(3*rng.NormFloat64(), p.Lo[i], p.Hi[i])
		}
		w := make([]float64, n)
		f := objective(p, x)
		for s := 0; s < 20; s++ {
			done, err := Polish(x, w, p, 1)
			require.NoError(t, err)
			require.LessOrEqual(t, done, 1)
			g := objective(p, x)
			// Rounding of the O(n) sums in f and of the row update: 1e-12
			// relative to the terms' size (|f| and ½xᵀAx of order 10–10³).
			scale := 1 + math.Abs(f) + math.Abs(g)
			if g > f+1e-12*scale {
				t.Fatalf("trial %d (n=%d), sweep %d: f rose from %.17g to %.17g", trial, n, s+1, f, g)
			}
			for i := range x {
				if x[i] < p.Lo[i] || x[i] > p.Hi[i] {
					t.Fatalf("trial %d, sweep %d: x[%d] = %v left its box [%v, %v]", trial, s+1, i, x[i], p.Lo[i], p.Hi[i])
				}
			}
			f = g
		}
		// w is A x + b on return.
		r := p.Residual(nil, x)
		for i := range r {
			require.InDelta(t, r[i], w[i], 1e-12*(1+math.Abs(r[i])), "w[%d]", i) // the same sum, recomputed
		}
	}
}

// TestPolishSolutionIsFixedPoint: a sweep from the solution x* of an SPD
// problem (BPP, converged) moves no row, and Polish reports the early stop
// after one sweep; from x = 0, 400 sweeps bring f to f(x*) (PGS converges
// for SPD A).
func TestPolishSolutionIsFixedPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 6))
	for trial := 0; trial < 40; trial++ {
		p := randomProblem(rng, 3+rng.IntN(10), genMixed)
		var r Result
		require.NoError(t, (&BPP{}).Solve(&r, p, Settings{}))
		require.Equal(t, Converged, r.Status)
		x := append([]float64(nil), r.X...)
		w := make([]float64, len(x))
		done, err := Polish(x, w, p, 5)
		require.NoError(t, err)
		require.Equal(t, 1, done, "a sweep from x* changes nothing, so Polish stops after it")
		for i := range x {
			// BPP solves its free block to rounding; a sweep moves such a
			// row by the rounding of its residual over a_ii.
			require.InDelta(t, r.X[i], x[i], 1e-8*(1+math.Abs(r.X[i])), "x[%d]", i)
		}
		z := make([]float64, len(x))
		_, err = Polish(z, w, p, 400)
		require.NoError(t, err)
		fs, fz := objective(p, r.X), objective(p, z)
		// PGS's linear rate on these well-conditioned 3–12-row problems
		// gets within 1e-6 of the optimum's scale in far fewer than 400 sweeps.
		require.InDelta(t, fs, fz, 1e-6*(1+math.Abs(fs)), "f after 400 sweeps from 0")
	}
}

func TestPolishErrors(t *testing.T) {
	p := rodProblem()
	n := p.N()
	for _, tc := range []struct {
		name      string
		x, w      []float64
		sweeps    int
		wantInErr string
	}{
		{"negative sweeps", make([]float64, n), make([]float64, n), -1, "sweeps"},
		{"short x", make([]float64, n-1), make([]float64, n), 1, "x has"},
		{"short w", make([]float64, n), make([]float64, n+1), 1, "w has"},
		{"NaN x", append([]float64{math.NaN()}, make([]float64, n-1)...), make([]float64, n), 1, "x[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Polish(tc.x, tc.w, p, tc.sweeps)
			require.ErrorContains(t, err, tc.wantInErr)
		})
	}
	// Zero sweeps leave x as it is and set w.
	x := []float64{1, 2}
	w := make([]float64, n)
	done, err := Polish(x, w, p, 0)
	require.NoError(t, err)
	require.Equal(t, 0, done)
	require.Equal(t, p.Residual(nil, x), w)
}
