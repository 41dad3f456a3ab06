package lcp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crawlWall is the 480-row problem of TestBPPDampedModeEndsACrawl.
func crawlWall() *Problem {
	rng := rand.New(rand.NewPCG(91, 92))
	rows, nb := wallRows(rng, 8, 6, 160)
	p, _ := mbProblem(rng, nb, rows, 1e-3)
	return p
}

// A 480-row compliant wall-like problem (friction-box rows on 48 bodies,
// A positive definite, so the solution is unique) on which block pivoting
// cycles: its single pivots crawled through the whole 100 + 10 n = 4 900
// iteration budget. After maxSingles single pivots the damped mode's
// line-searched Newton steps reach the solution's index sets, and the
// final face solve is exact: converged in 129 iterations here, with a
// natural residual at rounding.
func TestBPPDampedModeEndsACrawl(t *testing.T) {
	p := crawlWall()
	var r Result
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{}))
	require.Equal(t, Converged, r.Status, r.Reason)
	assert.Less(t, r.Iterations, 400, "iterations")
	scale := math.Max(1, normInf(p.B))
	res := maxNaturalResidual(p, r.X, p.Residual(nil, r.X))
	// BPP's own tolerance, 1e-10 of the velocity scale.
	assert.LessOrEqual(t, res, 1e-10*scale, "natural residual")
}
