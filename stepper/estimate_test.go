package stepper_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A box set on one of four boxes resting on the ground has 4 new contact
// points among 16 old ones, so the step estimates their x̂ₙ against the old
// contacts' last impulses (estimateLocally) instead of a pre-solve: with
// the lower box's ground contacts held at the impulse that held it alone,
// the new points stop the two boxes closing with the pair's reduced mass,
// Σ x̂ₙ = g h m_a m_b/(m_a + m_b) (0.0818 N·s for two 1 kg boxes at
// h = 1/60 s), half the full weight impulse m_b g h that the step's own
// solve then gives them. The estimate only sets the friction bounds μ x̂ₙ;
// the next step takes the solved impulse.
func TestFewNewContactsEstimatedLocally(t *testing.T) {
	const m, h, g = 1.0, 1.0 / 60, 9.81
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	s := mgl64.Vec3{0.2, 0.2, 0.2}
	for i := 0; i < 4; i++ {
		addBox(t, w, m, s, mgl64.Vec3{0.5 * float64(i), 0, 0.1}, mgl64.QuatIdent(), 0.5)
	}
	for i := 0; i < 10; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	a := w.Bodies[0]
	addBox(t, w, m, s, a.Pos.Add(mgl64.Vec3{0, 0, 0.2}), mgl64.QuatIdent(), 0.5)
	top := len(w.Bodies) - 1
	st, err := w.Step()
	require.NoError(t, err)
	assert.Zero(t, st.PreSolveIterations, "no pre-solve")
	assert.Positive(t, st.SeedSweeps, "the local sweeps ran")
	estimate, solved, fresh := 0.0, 0.0, 0
	x, _ := w.LastSolution()
	for _, c := range w.Contacts(nil) {
		if c.B == top || c.A == top {
			require.True(t, c.Fresh)
			fresh++
			estimate += c.XN
			solved += x[c.Row]
		}
	}
	require.Equal(t, 4, fresh, "the top box's four corners")
	reduced := g * h * m * m / (m + m)
	t.Logf("top box: Σ x̂ₙ %.6f N·s (reduced-mass impulse %.6f), solved %.6f (m g h %.6f)", estimate, reduced, solved, m*g*h)
	// The sweeps stop once no impulse moves by 10⁻⁶ of the largest
	// (estimateLocally): 10⁻⁴ relative leaves room for that.
	assert.InEpsilon(t, reduced, estimate, 1e-4, "Σ x̂ₙ")
	// The step's solve is exact: the weight impulse, to its tolerance.
	assert.InEpsilon(t, m*g*h, solved, 1e-6, "Σ x_n solved")
}
