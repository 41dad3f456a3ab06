package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// TestMLCPSolvePolish: one BPP pivot on the rod leaves it unsolved; 40
// projected Gauss–Seidel sweeps from the picked iterate reach the exact
// x = [0.32953, 0.06287] N·s of Eq. (26) (PGS contracts by ¼ per sweep on
// this 2×2), the status says converged, and the sweeps are reported apart
// from the solver's iterations. Under energy-exact the rod has its exact
// effective mass.
func TestMLCPSolvePolish(t *testing.T) {
	out, stderr, code := runSim(t, "mlcp", "solve", rodFile, "--solver", "bpp", "--budget", "1", "--polish", "40", "--pick", "energy-exact")
	require.Equal(t, 0, code, stderr)
	var got struct {
		X            []float64
		Iterations   int
		Status       string
		PolishSweeps int    `json:"polish_sweeps"`
		SolverStatus string `json:"solver_status"`
		ExactMass    bool   `json:"exact_mass"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "converged", got.Status)
	assert.Equal(t, "budget_exhausted", got.SolverStatus)
	assert.Equal(t, 1, got.Iterations)
	assert.True(t, got.PolishSweeps >= 1 && got.PolishSweeps <= 40, "sweeps %d", got.PolishSweeps)
	assert.True(t, got.ExactMass)
	assert.InDeltaSlice(t, []float64{0.32953, 0.06287}, got.X, 5e-6) // the paper's digits

	_, stderr, code = runSim(t, "mlcp", "solve", rodFile, "--polish", "-1")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--polish: must be ≥ 0 sweeps, got -1")
}

// TestMLCPSolveCertifiedBound: on the collection's 2×2 SPD LCP (A =
// [[2,1],[1,2]], b = (−5,−6), x* = (4/3, 7/3)), the answer of a 1-pivot
// budget polished by 5 sweeps has w ≥ 0 on both rows, so its certified
// bound Σ wᵢ(xᵢ − 0) is finite, and it is at least ½(x − x*)ᵀA(x − x*).
func TestMLCPSolveCertifiedBound(t *testing.T) {
	file := "../../testdata/mlcp/lemke-2x2.json"
	out, stderr, code := runSim(t, "mlcp", "solve", file, "--solver", "bpp", "--budget", "1", "--polish", "5")
	require.Equal(t, 0, code, stderr)
	var got struct {
		X     []float64
		Bound *float64 `json:"certified_bound"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var meta struct{ X []float64 }
	require.NoError(t, json.Unmarshal(data, &meta))
	f, err := os.Open(file)
	require.NoError(t, err)
	p, err := lcp.ReadProblem(f)
	f.Close()
	require.NoError(t, err)
	require.NotNil(t, got.Bound, "certified_bound absent (infinite)")
	w := p.Residual(nil, got.X)
	assert.InDelta(t, w[0]*got.X[0]+w[1]*got.X[1], *got.Bound, 1e-15) // Σ wᵢ(xᵢ − lᵢ), lᵢ = 0: the same two products
	d := make([]float64, p.N())
	for i := range d {
		d[i] = got.X[i] - meta.X[i]
	}
	ad := p.Residual(nil, d)
	for i := range ad {
		ad[i] -= p.B[i]
	}
	dist := 0.0
	for i := range d {
		dist += d[i] * ad[i] / 2
	}
	assert.LessOrEqual(t, dist, *got.Bound*(1+1e-9)+1e-12) // rounding of two O(n) sums
}

// TestRunPolishDump: sim run --polish writes the sweeps into each dumped
// solution, apart from the solver's iterations (0 only for a converged
// answer or a pick outside its box).
func TestRunPolishDump(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "chain6", "--set", "links=3", "--steps", "3", "--every", "3",
		"--dump-mlcp", dir, "--budget", "2", "--polish", "3")
	require.Equal(t, 0, code, stderr)
	f, err := os.Open(filepath.Join(dir, "step-000003.solution.json"))
	require.NoError(t, err)
	s, err := lcp.ReadSolution(f)
	f.Close()
	require.NoError(t, err)
	sw, ok := s.Extra["polish_sweeps"].(float64)
	require.True(t, ok, "polish_sweeps missing: %v", s.Extra)
	assert.True(t, sw >= 0 && sw <= 3, "sweeps %v", sw)
	if sw == 0 { // errmeasure.Polish leaves converged answers and picks outside the box alone
		f, err := os.Open(filepath.Join(dir, "step-000003.mlcp.json"))
		require.NoError(t, err)
		p, err := lcp.ReadProblem(f)
		f.Close()
		require.NoError(t, err)
		assert.True(t, s.Status == "converged" || !errmeasure.InBox(p, s.X), "an unconverged in-box answer was not polished")
	}
	_, stderr, code = runSim(t, "run", "chain6", "--polish", "-2")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "--polish: must be ≥ 0 sweeps, got -2")
}
