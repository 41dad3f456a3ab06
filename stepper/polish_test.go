package stepper_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// TestPolishAndBoundOnScenes steps the forklift under a budget of 3 pivots
// with 5 polish sweeps, picking by energy and by energy-exact (the brick
// wall's warm-started picks at this budget lie outside their box, so none
// is polished): every step counts 0–5 sweeps apart from its iterations, 0
// only when the pick is outside its box or converged; a polished x lies in its box (a
// sweep projects every row); Stats.Bound is
// errmeasure.CertifiedBound of the used x, and wherever it is finite it is
// at least the energy distance ½(x − x*)ᵀA(x − x*) of the used x from the
// step's unbudgeted BPP solution x*. (On these scenes it is rarely finite:
// a contact normal or joint row has no bound on one side, and a polished
// iterate's w on such a row has the wrong sign by rounding half the time;
// errmeasure's tests exercise the finite case.)
func TestPolishAndBoundOnScenes(t *testing.T) {
	fk, err := scenes.Forklift(scenes.DefaultForkliftParams())
	require.NoError(t, err)
	fk2, err := scenes.Forklift(scenes.DefaultForkliftParams())
	require.NoError(t, err)
	fk2.Settings.Pick = errmeasure.EnergyExact
	for name, w := range map[string]*stepper.World{"forklift": fk, "forklift energy-exact": fk2} {
		w.Settings.Budget = 3
		w.Settings.Polish = 5
		finite, polished := 0, 0
		for k := 0; k < 15; k++ {
			st, err := w.Step()
			require.NoError(t, err, name)
			p := w.LastProblem()
			if p == nil {
				continue
			}
			x, wv := w.LastSolution()
			assert.True(t, st.PolishSweeps >= 0 && st.PolishSweeps <= 5, "%s step %d: %d sweeps", name, k+1, st.PolishSweeps)
			if st.PolishSweeps == 0 {
				// errmeasure.Polish starts only from inside the box, and
				// leaves a converged answer alone.
				assert.True(t, st.Status == lcp.Converged || !errmeasure.InBox(p, x), "%s step %d: an unconverged in-box pick was not polished", name, k+1)
				continue
			}
			polished++
			if b := errmeasure.CertifiedBound(p, x, wv); b != st.Bound {
				t.Errorf("%s step %d: Stats.Bound = %v, CertifiedBound of the used x = %v", name, k+1, st.Bound, b)
			}
			for i := range x {
				require.True(t, x[i] >= p.Lo[i] && x[i] <= p.Hi[i], "%s step %d: x[%d] = %v outside [%v, %v]", name, k+1, i, x[i], p.Lo[i], p.Hi[i])
			}
			if math.IsInf(st.Bound, 1) {
				continue
			}
			finite++
			var ref lcp.Result
			require.NoError(t, (&lcp.BPP{}).Solve(&ref, p, lcp.Settings{}))
			require.Equal(t, lcp.Converged, ref.Status)
			d := make([]float64, len(x))
			for i := range d {
				d[i] = x[i] - ref.X[i]
			}
			ad := make([]float64, len(d))
			p.A.MulVecTo(ad, d)
			dist, scale := 0.0, 1.0
			for i := range d {
				dist += d[i] * ad[i] / 2
				scale += math.Abs(ref.X[i] * p.A.RowDot(i, ref.X))
			}
			// x* is BPP's to its 1e-10 tolerance: slack 1e-8 of x*ᵀAx*.
			assert.LessOrEqual(t, dist, st.Bound+1e-8*scale, "%s step %d", name, k+1)
		}
		t.Logf("%s: %d of 15 steps polished, certified bound finite on %d", name, polished, finite)
		assert.Positive(t, polished, "%s: no step polished", name)
	}
}

func TestPolishSettingError(t *testing.T) {
	_, err := stepper.New(stepper.Settings{H: 0.01, Polish: -1})
	assert.ErrorContains(t, err, "Polish: must be ≥ 0 sweeps, got -1")
}

// TestPolishedWallStepAllocatesNothing: the polish and the bound reuse the
// step's buffers.
func TestPolishedWallStepAllocatesNothing(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(t, err)
	w.Settings.Polish = 5 // unbudgeted: BPP converges and one sweep confirms it
	for i := 0; i < 10; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.Zero(t, testing.AllocsPerRun(5, func() { _, _ = w.Step() }))
}

// The rigid scenes' A is singular, which is why the energy-exact pick
// uses the pseudoinverse (docs/studies.md, "Choosing a pick under a
// budget"): after step 1, 20 of the forklift's 81 eigenvalues and 384 of
// the brick wall's 564 are zero to rounding (|λ| ≤ 1e-10 λ_max; the
// counts are the same at 1e-14).
func TestScenesASingular(t *testing.T) {
	fk, err := scenes.Forklift(scenes.DefaultForkliftParams())
	require.NoError(t, err)
	wall, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(t, err)
	for _, c := range []struct {
		name    string
		w       *stepper.World
		n, zero int
	}{{"forklift", fk, 81, 20}, {"brick wall", wall, 564, 384}} {
		_, err := c.w.Step()
		require.NoError(t, err)
		p := c.w.LastProblem()
		n := p.N()
		a := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a.SetSym(i, j, (p.A.At(i, j)+p.A.At(j, i))/2)
			}
		}
		var e mat.EigenSym
		require.True(t, e.Factorize(a, false))
		vals := e.Values(nil)
		largest := math.Max(math.Abs(vals[0]), math.Abs(vals[n-1]))
		zero := 0
		for _, v := range vals {
			if math.Abs(v) <= 1e-10*largest {
				zero++
			}
		}
		t.Logf("%s: %d of %d eigenvalues of A zero to rounding", c.name, zero, n)
		assert.Equal(t, c.n, n, c.name)
		assert.Equal(t, c.zero, zero, c.name)
	}
}
