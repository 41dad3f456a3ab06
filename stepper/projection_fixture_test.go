package stepper_test

import (
	"os"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/forklift-projection-step123.json is the position projection's
// MLCP of `sim run forklift --budget 5` at step 123 before the step's
// safeguard existed (57 rows: 45 hinge and 4 limit rows, 8 wheel-contact
// normals; both rear wheels 3.2 mm in the ground, inner rim edges deeper
// than outer ones). Block pivoting calls its semidefinite free block
// inconsistent; the stepper's fallback, block pivoting on the matrix
// regularized by ProjectionShift, solves it. Its answer leaves 1.5e-7 m of
// the millimetre errors on the unregularized rows (the share of the
// inconsistent ones), which the projection's next Newton solves, at the
// corrected poses, work on.
func TestProjectionFixtureRegularized(t *testing.T) {
	f, err := os.Open("testdata/forklift-projection-step123.json")
	require.NoError(t, err)
	defer f.Close()
	p, err := lcp.ReadProblem(f)
	require.NoError(t, err)
	n := p.N()
	var res lcp.Result
	err = (&lcp.BPP{}).Solve(&res, p, lcp.Settings{})
	require.ErrorIs(t, err, lcp.ErrSingular, "the failure of issue 24")

	data := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			data[i*n+j] = p.A.At(i, j)
		}
		data[i*n+i] *= 1 + stepper.ProjectionShift
	}
	reg := &lcp.Problem{A: lcp.NewDense(n, n, data), B: p.B, Lo: p.Lo, Hi: p.Hi}
	require.NoError(t, (&lcp.BPP{}).Solve(&res, reg, lcp.Settings{}))
	assert.Equal(t, lcp.Converged, res.Status)
	// 1e-6 m: far below the 1 mm (Settings.ProjectAbove) that starts a
	// projection; measured 1.5e-7 m.
	w := p.Residual(nil, res.X)
	r := 0.0
	for i := range w {
		r = max(r, errmeasure.ResidualRow(res.X[i], w[i], p.Lo[i], p.Hi[i]))
	}
	t.Logf("natural residual on the unregularized problem: %.3g m", r)
	assert.Less(t, r, 1e-6)
}
