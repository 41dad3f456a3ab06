package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// rowCounter is a Matrix that counts RowDot calls per row.
type rowCounter struct {
	Matrix
	calls []int
}

func (m *rowCounter) RowDot(i int, x []float64) float64 {
	m.calls[i]++
	return m.Matrix.RowDot(i, x)
}

// PGS holds a row with equal bounds at them without its product with A:
// on problems with such rows (genZeroWidth), the sweeps give bit for bit
// the iterate of the sweeps that compute every row's update (each pinned
// row's clamps to its bound), and RowDot is never called for a pinned row.
func TestPGSPinnedRowsSkipProducts(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	pinned := 0
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(30)
		p := randomProblem(rng, n, genZeroWidth)
		const sweeps = 7
		// The sweeps with every row's product, as PGS computed them
		// before pinned rows were skipped.
		x := make([]float64, n)
		for i := range x {
			x[i] = clamp(0, p.Lo[i], p.Hi[i])
		}
		for s := 0; s < sweeps; s++ {
			for i := 0; i < n; i++ {
				a := p.A.At(i, i)
				x[i] = clamp(x[i]-(p.A.RowDot(i, x)+p.B[i])/a, p.Lo[i], p.Hi[i])
			}
		}
		rc := &rowCounter{Matrix: p.A, calls: make([]int, n)}
		q := *p
		q.A = rc
		var res Result
		require.NoError(t, (&PGS{}).Solve(&res, &q, Settings{MaxIterations: sweeps, Tolerance: 1e-300}))
		require.Equal(t, sweeps, res.Iterations)
		for i := 0; i < n; i++ {
			require.Equal(t, math.Float64bits(x[i]), math.Float64bits(res.X[i]), "trial %d: x[%d]", trial, i)
			if p.Lo[i] == p.Hi[i] {
				pinned++
				require.Zero(t, rc.calls[i], "trial %d: pinned row %d multiplied", trial, i)
			} else {
				require.Equal(t, sweeps, rc.calls[i], "trial %d: row %d", trial, i)
			}
		}
	}
	require.Greater(t, pinned, 20, "the problems have pinned rows")
}
