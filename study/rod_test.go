package study_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/gorigid/gorigid/study"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Rod reproduces Eq. 26, the exact solution and the paper's energy errors
// of §5.1 from the scene's first step.
func TestRod(t *testing.T) {
	res, err := study.Rod(context.Background(), study.Options{})
	require.NoError(t, err)
	for _, c := range []struct {
		q         string
		want, tol float64
	}{
		// Eq. 26 as the scene builds it: exact up to rounding.
		{"A11", 1, 1e-12}, {"A12", -0.5, 1e-12}, {"A22", 1, 1e-12},
		{"b1", -0.2981, 1e-12}, {"b2", 0.1019, 1e-12},
		// The paper prints 5 digits: half a unit of the last one.
		{"x1", 0.32953, 5e-6}, {"x2", 0.06287, 5e-6},
		// Eq. 27: m_eff = 4/3 kg exactly, to rounding.
		{"meff_exact1", 4.0 / 3, 1e-12}, {"meff_exact2", 4.0 / 3, 1e-12},
		// The paper's pair, w = [b1, 0] (§5.1): 4.44e-2 + 5.2e-3 = 4.96e-2 J,
		// printed to 1e-4 J.
		{"energy1_approx", 4.44e-2, 1e-4}, {"energy2_approx", 5.2e-3, 1e-4},
		{"energy_total_approx", 4.96e-2, 1e-4},
		// §5.1.1 with the exact 4/3 kg (the paper rounds to 1.33 kg: 6.30e-2).
		{"energy_total_exact", 6.30e-2, 2e-4},
		{"energy1_exact", 0.5 * 4.0 / 3 * 0.2981 * 0.2981, 1e-12},
		{"energy2_exact", 0.5 * 0.75 * 0.1019 * 0.1019, 1e-12},
		// FB: |w1| + 2|x2| (φ(s, 0) = 2s, Eq. 5); residual |w1| + |x2|.
		{"fb_total", 0.2981 + 2*0.1019, 1e-12}, {"residual_total", 0.2981 + 0.1019, 1e-12},
		// The pair with w = A x + b: w1 = b1 − 0.5·x2 = −0.24715 m/s.
		{"iterate_w1_axb", -0.24715, 1e-12},
		{"energy_total_approx_axb", 0.5*0.24715*0.24715 + 0.5*0.1019*0.1019, 1e-12},
	} {
		got, ok := res.Value(c.q)
		if assert.True(t, ok, "quantity %s missing", c.q) {
			assert.InDelta(t, c.want, got, c.tol, c.q)
		}
	}
	seen := map[string]bool{}
	for _, r := range res.Rows {
		assert.False(t, seen[r.Quantity], "quantity %s twice", r.Quantity)
		seen[r.Quantity] = true
	}
}

// A cancelled context stops a study before it starts, with the context's
// error.
func TestStudiesStopOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, f := range map[string]func() error{
		"rod":       func() error { _, err := study.Rod(ctx, study.Options{}); return err },
		"chain6":    func() error { _, err := study.Chain6(ctx, study.Options{}); return err },
		"brickwall": func() error { _, err := study.BrickWall(ctx, study.Options{}); return err },
		"forklift":  func() error { _, err := study.Forklift(ctx, study.Options{}); return err },
		"contact":   func() error { _, err := study.ContactStabilization(ctx, study.Options{}); return err },
		"scaling":   func() error { _, err := study.Scaling(ctx, study.Options{}); return err },
		"rk4":       func() error { _, err := study.RK4Contact(ctx, study.Options{Steps: 300}); return err },
		"recursive": func() error { _, err := study.RecursiveTiming(ctx, study.Options{Steps: 300}); return err },
	} {
		assert.ErrorIs(t, f(), context.Canceled, name)
	}
}

// A negative step count is an error naming the option.
func TestStudiesRejectNegativeSteps(t *testing.T) {
	_, err := study.Chain6(context.Background(), study.Options{Steps: -3})
	assert.EqualError(t, err, "chain6: Options.Steps: must be ≥ 0, got -3")
}

// Example: the rod's exact effective mass (Eq. 27) and the energy error of
// the paper's iterate with the paper's w.
func ExampleRod() {
	res, err := study.Rod(context.Background(), study.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := res.Value("meff_exact1")
	e, _ := res.Value("energy_total_approx")
	fmt.Printf("m_eff = %.4f kg, energy error %.3g J\n", m, e)
	// Output:
	// m_eff = 1.3333 kg, energy error 0.0496 J
}
