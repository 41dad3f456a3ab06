package stepper_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failingSolver fails every solve with err, leaving x = 0, or with a NaN x
// when nan is set.
type failingSolver struct {
	err error
	nan bool
}

func (f failingSolver) Name() string { return "failing" }

func (f failingSolver) Solve(dst *lcp.Result, p *lcp.Problem, _ lcp.Settings) error {
	n := p.N()
	dst.X, dst.W = make([]float64, n), p.Residual(nil, make([]float64, n))
	if f.nan {
		dst.X[0] = math.NaN()
	}
	dst.Status = lcp.Failed
	return f.err
}

// The chain in Post mode projects every step. A projection solver that
// finds the MLCP singular is backed by block pivoting on the regularized
// matrix, which does the projection; one that fails otherwise, or gives a
// correction that is not finite, makes the step skip the projection with
// the reason in Stats, and the run goes on.
func TestProjectionFallbackAndSkip(t *testing.T) {
	run := func(post lcp.Solver) []stepper.Stats {
		p := scenes.DefaultChainParams()
		p.Settings.Stabilization = stepper.Post
		w, err := scenes.Chain(p)
		require.NoError(t, err)
		w.Settings.PostSolver = post
		var sts []stepper.Stats
		for i := 0; i < 60; i++ {
			st, err := w.Step()
			require.NoError(t, err, "step %d", i+1)
			sts = append(sts, st)
		}
		return sts
	}
	ref := run(nil)
	singular := run(failingSolver{err: fmt.Errorf("test: %w", lcp.ErrSingular)})
	projected, regularized := 0, 0
	for i, st := range singular {
		assert.Equal(t, stepper.ProjectionNotSkipped, st.ProjectionSkipped, "step %d", i+1)
		projected += st.Projections
		regularized += st.ProjectionsRegularized
		// The regularized correction leaves ProjectionShift of the error
		// per solve; the solves repeat to the tolerance.
		assert.Less(t, st.MaxViolation, 1e-6, "step %d", i+1)
		assert.Zero(t, ref[i].ProjectionsRegularized)
	}
	assert.Positive(t, projected)
	assert.Equal(t, projected, regularized, "every solve fell back")

	for _, c := range []struct {
		name   string
		solver failingSolver
		skip   stepper.ProjectionSkip
		reason string
	}{
		{"failed", failingSolver{err: errors.New("test: boom")}, stepper.ProjectionFailed, "test: boom"},
		{"not finite", failingSolver{nan: true}, stepper.ProjectionFailed, "not finite"},
	} {
		skipped := 0
		for _, st := range run(c.solver) {
			if st.Projections > 0 {
				assert.Equal(t, c.skip, st.ProjectionSkipped, c.name)
				assert.Contains(t, st.ProjectionSkipReason, c.reason, c.name)
				skipped++
			}
		}
		assert.Positive(t, skipped, c.name)
	}
	assert.Equal(t, "inconsistent", stepper.ProjectionInconsistent.String())
	assert.Equal(t, "", stepper.ProjectionNotSkipped.String())
}
