package sweep

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// TestStepFailedNamesTheStepOnce: without substeps a job's failed step
// names the step once: the stepper's error alone when it names it (the
// review saw "step 28: step 28: …"), prefixed when it does not; with
// substeps it adds the job's step and the substep, which the stepper's
// count (in substeps) does not give. The error still wraps the stepper's.
func TestStepFailedNamesTheStepOnce(t *testing.T) {
	// The stepper numbers its steps from 1: the job's step 28 without
	// substeps is its step 28; with 4 substeps, substep 3 of the job's
	// step 7 is its step 4·6 + 3 = 27.
	inner := fmt.Errorf("step 28: %w", lcp.ErrSingular)
	for _, c := range []struct {
		step, s, sub int
		err          error
		want         string
	}{
		{28, 0, 1, inner, "step 28: " + lcp.ErrSingular.Error()},
		{28, 0, 1, lcp.ErrSingular, "step 28: " + lcp.ErrSingular.Error()},
		{28, 0, 1, fmt.Errorf("step 280: %w", lcp.ErrSingular), "step 28: step 280: " + lcp.ErrSingular.Error()},
		{7, 2, 4, fmt.Errorf("step 27: %w", lcp.ErrSingular), "step 7 of the job, substep 3 of 4: step 27: " + lcp.ErrSingular.Error()},
	} {
		got := stepFailed(c.step, c.s, c.sub, c.err)
		if got.Error() != c.want || !errors.Is(got, lcp.ErrSingular) {
			t.Errorf("stepFailed(%d, %d, %d) = %q, want %q wrapping lcp.ErrSingular", c.step, c.s, c.sub, got, c.want)
		}
	}
}
