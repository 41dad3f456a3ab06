package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bothReferences is block pivoting that solves each problem twice: with
// the stepper's Settings.Reference (the answer it returns) and, on a
// second BPP of its own, from x̄ = 0 (Reference nil), the main solve as it
// was before the last step's impulses became its proximal centre. It
// keeps each solve's iterations and the largest difference of the two
// answers' w = A x + b, scaled by max|b|.
type bothReferences struct {
	lcp.BPP
	zero      lcp.BPP
	zeroRes   lcp.Result
	steady    bool // count only the solves after this is set
	withRef   int  // solves given a Reference
	its, its0 int  // iterations with the reference and from 0
	solves    int
	maxDW     float64   // max |w − w₀| / max|b|
	lastRef   []float64 // a copy of the last solve's Reference
}

func (s *bothReferences) Solve(dst *lcp.Result, p *lcp.Problem, set lcp.Settings) error {
	s.lastRef = append(s.lastRef[:0], set.Reference...)
	err := s.BPP.Solve(dst, p, set)
	if !s.steady || err != nil {
		return err
	}
	hasRef := set.Reference != nil
	set.Reference = nil
	if err := s.zero.Solve(&s.zeroRes, p, set); err != nil {
		return err
	}
	s.solves++
	if hasRef {
		s.withRef++
	}
	s.its += dst.Iterations
	s.its0 += s.zeroRes.Iterations
	scale := 0.0
	for _, v := range p.B {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range dst.W {
		s.maxDW = math.Max(s.maxDW, math.Abs(dst.W[i]-s.zeroRes.W[i])/scale)
	}
	return nil
}

// Steady steps of the 30-brick wall built at rest (after 60 steps of
// settling, as BenchmarkWallSteady) with Settings.Coherent: no contact is
// new, no pre-solve runs, and the main solve takes the last step's impulses as regularized
// mode's first proximal centre (lcp.Settings.Reference, the proximal
// point method's centre). The wall's A is semidefinite (four points per
// brick face), so its MLCP's solutions form a set; from the last step's
// impulses block pivoting lands on the one near them in 1 iteration per
// step, where a second BPP given the same problem and index sets but
// x̄ = 0 pivots first to the regularized solution near 0 and needs a
// proximal move and more pivots to reach an answer (6 iterations per step
// logged; the stepper's own BPP, whose factor follows the steps, needed 2:
// BenchmarkWallSteady before the reference). Both answers solve the same
// MLCP to the solver's tolerance regTol = 10⁻⁶ of max|b| (lcp.BPP), and
// two solutions differ only in the null space of A = J M⁻¹ Jᵀ, which
// changes no w = A x + b (the constraint velocities) and moves no body:
// so w agrees within 2·10⁻⁶ max|b|, the two tolerances added.
func TestSteadyReferenceIsLastImpulses(t *testing.T) {
	w, solver := settledWall(t, stepper.CoherentOn)
	solver.steady = true
	const steps = 20
	for i := 0; i < steps; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, lcp.Converged, st.Status)
		require.Zero(t, st.PreSolveIterations, "steady step %d: no new contact, no pre-solve", i)
		require.Equal(t, solver.lastRef, w.LastReference(), "step %d: World.LastReference is the solve's Reference", i)
	}
	require.Equal(t, steps, solver.solves, "one main solve per step (one island)")
	t.Logf("%d steady steps: %.2f iterations per step from the last step's impulses, %.2f from 0; max |w − w₀| = %.3g max|b|",
		steps, float64(solver.its)/steps, float64(solver.its0)/steps, solver.maxDW)
	assert.Equal(t, steps, solver.withRef, "every steady solve has the last step's impulses as its reference")
	assert.LessOrEqual(t, solver.its, steps, "1 iteration per steady step from the last step's impulses")
	assert.Less(t, solver.its, solver.its0, "the reference saves iterations")
	assert.LessOrEqual(t, solver.maxDW, 2e-6, "the same constraint velocities within the two solves' tolerances")
}

// With Settings.Coherent off a steady step's solve has no reference: its
// answer depends on the step's problem alone.
func TestSteadyReferenceOff(t *testing.T) {
	w, solver := settledWall(t, stepper.CoherentOff)
	solver.steady = true
	for i := 0; i < 5; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		assert.Nil(t, w.LastReference(), "x̄ = 0")
	}
	assert.Equal(t, 5, solver.solves)
	assert.Zero(t, solver.withRef, "no steady solve has a reference with Coherent off")
}

// The zero Settings.Coherent and DefaultSettings' are CoherentDefault,
// which is on: the settled wall's steady solves with the field untouched
// each get the last step's impulses as their reference, as with CoherentOn
// (TestSteadyReferenceIsLastImpulses), and 1 iteration each.
func TestCoherentByDefault(t *testing.T) {
	assert.Equal(t, stepper.CoherentDefault, stepper.DefaultSettings().Coherent)
	assert.True(t, stepper.CoherentDefault.On())
	assert.True(t, stepper.CoherentOn.On())
	assert.False(t, stepper.CoherentOff.On())
	w, solver := settledWall(t, stepper.CoherentDefault)
	solver.steady = true
	for i := 0; i < 5; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.Equal(t, 5, solver.withRef, "every steady solve has the last step's impulses as its reference")
	assert.LessOrEqual(t, solver.its, 5, "1 iteration per steady step")
}

// settledWall returns the 30-brick wall (12 rows) after 60 steps of
// settling, with Settings.Coherent as given, solved by a bothReferences
// that counts from its next solve on (set steady).
func settledWall(t *testing.T, coherent stepper.Coherence) (*stepper.World, *bothReferences) {
	t.Helper()
	p := scenes.DefaultBrickWallParams()
	p.Rows = 12
	solver := &bothReferences{}
	p.Settings.Solver = solver
	p.Settings.Coherent = coherent
	w, err := scenes.BrickWall(p)
	require.NoError(t, err)
	for i := 0; i < 60; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	return w, solver
}

// A user's scene with Coherent: a stack of three free boxes (0.4 m cubes,
// 1 kg, μ 0.5) released 2 cm above the ground and each other, with
// stepper.DefaultSettings (h = 1/60 s, sleeping on) and Coherent on,
// stepped for 2 s beside the same scene with Coherent off. Both stacks
// land, stand and fall asleep (0.6 s here): every box ends within 1e-6 m
// of the other run's, since the two runs' answers differ only in the null
// space of A (how a box's weight splits among its four corners), which
// moves no body. Once the stack rests (from 0.25 s until it sleeps) a
// coherent step takes one block-pivoting iteration where one with
// Coherent off takes two (measured: 22 awake resting steps, 22 against 44 iterations).
func TestCoherentBoxStackAsDefault(t *testing.T) {
	run := func(coherent bool) (pos []mgl64.Vec3, rest, restIters, restMax int, asleep bool) {
		s := stepper.DefaultSettings()
		s.Coherent = stepper.CoherentOff
		if coherent {
			s.Coherent = stepper.CoherentOn
		}
		w, err := stepper.New(s)
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		var boxes []*body.Body
		for k := 0; k < 3; k++ {
			z := 0.2 + 0.02 + float64(k)*0.42
			boxes = append(boxes, addBox(t, w, 1, mgl64.Vec3{0.4, 0.4, 0.4}, mgl64.Vec3{0, 0, z}, mgl64.QuatIdent(), 0.5))
		}
		for k := 0; k < 120; k++ {
			st, err := w.Step()
			require.NoError(t, err)
			require.NotEqual(t, lcp.Failed, st.Status, "step %d", k)
			if k >= 15 && st.Iterations > 0 { // resting and awake
				rest++
				restIters += st.Iterations
				restMax = max(restMax, st.Iterations)
			}
			asleep = st.Iterations == 0
		}
		for _, b := range boxes {
			pos = append(pos, b.Pos)
		}
		return pos, rest, restIters, restMax, asleep
	}
	p0, rest0, its0, _, asleep0 := run(false)
	p1, rest1, its1, max1, asleep1 := run(true)
	t.Logf("resting awake steps: %d with %d iterations with Coherent off, %d with %d coherent (at most %d a step)", rest0, its0, rest1, its1, max1)
	assert.True(t, asleep0 && asleep1, "both stacks come to rest and sleep")
	for k := range p0 {
		assert.InDelta(t, 0.2+float64(k)*0.4, p1[k].Z(), 1e-3, "box %d stands on the one below", k)
		assert.Less(t, p1[k].Sub(p0[k]).Len(), 1e-6, "box %d where the default run puts it", k)
	}
	assert.Positive(t, rest1, "the coherent stack rests awake before it sleeps")
	assert.LessOrEqual(t, max1, 1, "a resting stack repeats last step's face")
	assert.Less(t, its1, its0, "coherent resting steps take fewer iterations")
}
