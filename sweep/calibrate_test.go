package sweep

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// calibSpec is the shipped calibration (experiments, holdout e2) with bpp
// on a 5 × 5 × 5 × 5 window of the paper's grid (friction coefficients
// every 0.1, the tripod radius every 5 mm) around the truth, which lies
// on that grid as on the paper's. A coarser grid that misses the truth's
// basin can leave Nelder–Mead in a local minimum of E (contacts switching
// make E piecewise smooth): the grid is what finds the basin.
func calibSpec(t testing.TB) *Spec {
	t.Helper()
	s := shippedSpecRaw(t)
	src := fmt.Sprintf(`{"scene": "push", "steps": %d, "set": {"push_speed": "0.5", "push_distance": "0.06"},
  "params": [
    {"name": "mu_p", "min": 0.1, "max": 0.5, "step": 0.1},
    {"name": "mu_f", "min": 0.2, "max": 0.6, "step": 0.1},
    {"name": "mu_s", "min": 0.3, "max": 0.7, "step": 0.1},
    {"name": "tripod", "min": 0.02, "max": 0.04, "step": 0.005}
  ],
  "experiments": %s, "holdout": "e2", "solvers": ["bpp"], "body": 0, "angle_length": %v,
  "refine": {"starts": 3, "evaluations": 150}}`, s.Steps, experimentsJSON(s), s.AngleLength)
	return parseTestSpec(t, src)
}

func experimentsJSON(s Spec) string {
	var b strings.Builder
	b.WriteString("[")
	for i, e := range s.Experiments {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name": %q, "set": {`, e.Name)
		for k, key := range sortedKeys(e.Set) {
			if k > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%q: %q", key, e.Set[key])
		}
		fmt.Fprintf(&b, `}, "measured": %q}`, e.Measured)
	}
	b.WriteString("]")
	return b.String()
}

// noiseTolerance derives, per parameter, how far a least-squares fit to
// data with shippedNoise may land from the truth: with J the Jacobian of
// the calibration residuals r = (x − x̄, y − ȳ, ρ(θ − θ̄)) per frame
// with respect to the parameters (central differences of noise-free
// runs at the truth, step 2 % of the value), the fit's error is
// δ ≈ (JᵀJ)⁻¹Jᵀε with Cov(ε) = diag(σ_xy², σ_xy², ρ²σ_θ²) per frame, so
// Cov(δ) = (JᵀJ)⁻¹ JᵀΣJ (JᵀJ)⁻¹. The tolerance is 4 standard deviations
// (a normal error exceeds it with probability 6e-5).
func noiseTolerance(t *testing.T, s *Spec) map[string]float64 {
	t.Helper()
	names := s.ParamNames()
	var exps []int
	for i, e := range s.Experiments {
		if e.Name != s.Holdout {
			exps = append(exps, i)
		}
	}
	run := func(theta map[string]float64) []float64 {
		var out []float64
		for _, e := range exps {
			set := s.runSet(e, nil, nil)
			for k, v := range theta {
				set[k] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			f, err := Simulate(s.Scene, set, "bpp", s.Steps, s.Body)
			require.NoError(t, err)
			for _, fr := range f {
				out = append(out, fr.Q[0], fr.Q[1], s.AngleLength*fr.Q[2])
			}
		}
		return out
	}
	nr := len(run(shippedTruth))
	jm := mat.NewDense(nr, len(names), nil)
	for c, n := range names {
		h := 0.02 * shippedTruth[n]
		up, dn := map[string]float64{}, map[string]float64{}
		for k, v := range shippedTruth {
			up[k], dn[k] = v, v
		}
		up[n] += h
		dn[n] -= h
		a, b := run(up), run(dn)
		for i := range a {
			jm.Set(i, c, (a[i]-b[i])/(2*h))
		}
	}
	var jtj, inv mat.Dense
	jtj.Mul(jm.T(), jm)
	require.NoError(t, inv.Inverse(&jtj))
	sig := mat.NewDiagDense(nr, nil)
	for i := 0; i < nr; i++ {
		v := shippedNoise.SigmaXY * shippedNoise.SigmaXY
		if i%3 == 2 {
			v = math.Pow(s.AngleLength*shippedNoise.SigmaAngle, 2)
		}
		sig.SetDiag(i, v)
	}
	var jts, jtsj, left, cov mat.Dense
	jts.Mul(jm.T(), sig)
	jtsj.Mul(&jts, jm)
	left.Mul(&inv, &jtsj)
	cov.Mul(&left, &inv)
	tol := map[string]float64{}
	for c, n := range names {
		tol[n] = 4 * math.Sqrt(cov.At(c, c))
	}
	return tol
}

// Identifiability: from the shipped data, calibration (coarse grid, then
// Nelder–Mead) recovers the true coefficients within the tolerance the
// noise allows (noiseTolerance), and its E is that of the noise: at the
// truth E would be about 2σ_xy² + ρ²σ_θ² per frame.
func TestCalibrationRecoversTruth(t *testing.T) {
	s := calibSpec(t)
	tol := noiseTolerance(t, s)
	cals, err := Calibrate(context.Background(), s, Local{}, "test", nil)
	require.NoError(t, err)
	require.Len(t, cals, 1)
	c := cals[0]
	for i, n := range s.ParamNames() {
		t.Logf("%s: true %v, calibrated %.4f, tolerance %.4f", n, shippedTruth[n], c.Best[i], tol[n])
		assert.InDelta(t, shippedTruth[n], c.Best[i], tol[n], n)
	}
	noise := shippedNoise.ExpectedE(s.AngleLength)
	t.Logf("E: grid %.4g, refined %.4g, noise alone %.4g; prediction E %.4g", c.GridE, c.E, noise, c.Prediction.E)
	// The fit may absorb a little of the noise (4 parameters against
	// 4·41·3 residuals) but not be far above it: within ±20 %, the
	// spread of a mean of ~500 squared normals is ~±6 % (1σ).
	assert.InEpsilon(t, noise, c.E, 0.2)
	assert.InEpsilon(t, noise, c.Prediction.E, 0.5, "the held-out experiment is predicted to the noise level")
	require.Len(t, c.Prediction.Trajectory, s.Steps+1)
}
