package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ground adds a plane through the world origin with normal R·z.
func ground(t testing.TB, w *stepper.World, rot mgl64.Quat, mu float64) {
	t.Helper()
	_, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(),
		Local: contact.Pose{Rot: rot}, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
}

// addBox adds a box body of full sides s with mass m at pos, rotated by rot.
func addBox(t testing.TB, w *stepper.World, m float64, s, pos mgl64.Vec3, rot mgl64.Quat, mu float64) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Mass: m, Inertia: body.BoxInertia(m, s[0], s[1], s[2]), Pos: pos, Rot: rot})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	shape, err := contact.NewBoxSize(s)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	return b
}

// A sphere resting on the ground takes exactly the impulse m g h per step
// through its normal row and does not move.
func TestSphereRestsWithImpulseMGH(t *testing.T) {
	const m, r, h, g = 3.0, 0.1, 0.01, 9.81
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: mgl64.Vec3{0.3, -0.2, r}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	sphere, err := contact.NewSphere(r)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sphere, Material: stepper.Material{Friction: 0.5}})
	require.NoError(t, err)
	start := b.Pos
	for i := 0; i < 1000; i++ { // 10 s
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 1, st.Contacts)
		require.Equal(t, 3, st.Rows) // normal and two friction rows
		x, _ := w.LastSolution()
		// 1e-12 relative: x = −b/a exactly for one decoupled row.
		require.InDelta(t, m*g*h, x[0], 1e-12*m*g*h, "step %d", i)
	}
	// Rounding only: v⁺ = v_free + M⁻¹Jᵀx is zero to ~1e-17 m/s per step.
	assert.Less(t, b.Pos.Sub(start).Len(), 1e-12)
}

// incline returns a world with a plane tilted by theta about y and a cube
// resting on it, and the cube.
func incline(t *testing.T, theta, mu float64) (*stepper.World, *body.Body) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 0.001, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
	ground(t, w, rot, mu)
	const s = 0.1
	n := rot.Rotate(mgl64.Vec3{0, 0, 1})
	b := addBox(t, w, 2, mgl64.Vec3{s, s, s}, n.Mul(s/2), rot, mu)
	return w, b
}

// A cube on an incline sticks while tan θ < μ (box friction bounds each
// tangent row by μ x̂ₙ; a cube's first-step estimate of x̂ₙ is exact).
func TestBlockOnInclineSticks(t *testing.T) {
	const mu = 0.5
	theta := math.Atan(0.9 * mu)
	w, b := incline(t, theta, mu)
	start := b.Pos
	for i := 0; i < 2000; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	d := b.Pos.Sub(start).Len()
	t.Logf("tan θ = %.3f, μ = %v: moved %.3g m in 2 s", math.Tan(theta), mu, d)
	// Sticking is exact up to rounding and the O(h) settling of the first step.
	assert.Less(t, d, 1e-6)
}

// A cube on an incline with tan θ > μ slides with a = g (sin θ − μ cos θ).
func TestBlockOnInclineSlides(t *testing.T) {
	const mu, g = 0.5, 9.81
	theta := 40 * math.Pi / 180
	w, b := incline(t, theta, mu)
	want := g * (math.Sin(theta) - mu*math.Cos(theta))
	var v1 float64
	for i := 0; i < 1500; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		if i == 499 {
			v1 = b.Vel.Len()
		}
	}
	got := (b.Vel.Len() - v1) / 1.0
	t.Logf("acceleration %.4f m/s², analytic %.4f m/s²", got, want)
	// 2 %: the bound.
	assert.InDelta(t, want, got, 0.02*want)
}

// A stack of five boxes stands: it moves less than 1 mm in 5 s.
func TestStackOfFiveStands(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	const s = 0.1
	var boxes []*body.Body
	var starts []mgl64.Vec3
	for i := 0; i < 5; i++ {
		b := addBox(t, w, 1, mgl64.Vec3{s, s, s}, mgl64.Vec3{0, 0, s/2 + float64(i)*s}, mgl64.QuatIdent(), 0.5)
		boxes = append(boxes, b)
		starts = append(starts, b.Pos)
	}
	worst := 0.0
	for i := 0; i < 300; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 20, st.Contacts, "4 points per face on face")
	}
	for i, b := range boxes {
		worst = math.Max(worst, b.Pos.Sub(starts[i]).Len())
	}
	t.Logf("max box displacement after 5 s: %.3g m", worst)
	assert.Less(t, worst, 1e-3)
}

// Redundant contacts (each box rests on four points: 12 rows of rank 6 per
// box) break no solver: block pivoting, PGS and Lemke all hold a stack of
// three boxes.
func TestRedundantContactsEverySolver(t *testing.T) {
	for _, c := range []struct {
		solver lcp.Solver
		tol    float64 // m, drift of the top box in 1 s
	}{
		// Exact: rounding only.
		{&lcp.BPP{}, 1e-9},
		// 200 sweeps leave a small velocity error per step.
		{&lcp.PGS{}, 1e-3},
		// The dense tableau on degenerate (redundant) rows loses digits:
		// ~3e-5 m/s per step.
		{&lcp.Lemke{}, 5e-3},
	} {
		solver := c.solver
		t.Run(solver.Name(), func(t *testing.T) {
			w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity, Solver: solver, Budget: 200})
			require.NoError(t, err)
			ground(t, w, mgl64.QuatIdent(), 0.5)
			var boxes []*body.Body
			for i := 0; i < 3; i++ {
				boxes = append(boxes, addBox(t, w, 1, mgl64.Vec3{0.1, 0.1, 0.1}, mgl64.Vec3{0, 0, 0.05 + 0.1*float64(i)}, mgl64.QuatIdent(), 0.5))
			}
			for i := 0; i < 60; i++ {
				st, err := w.Step()
				require.NoError(t, err, "step %d", i)
				require.Equal(t, 36, st.Rows)
			}
			top := boxes[2].Pos
			t.Logf("top box moved %.3g m", top.Sub(mgl64.Vec3{0, 0, 0.25}).Len())
			assert.Less(t, top.Sub(mgl64.Vec3{0, 0, 0.25}).Len(), c.tol)
		})
	}
}

// Issue 18: a body state that turns non-finite after creation made the
// step fail with "A[1][5]: must be finite", which named no body or field.
// The error now carries the body and field (body.Validate).
func TestInvalidMLCPNamesTheBody(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.0999}, mgl64.QuatIdent(), 0.5)
	b.Name = "crate"
	b.AngVel = mgl64.Vec3{math.NaN(), 0, 0} // set after Validate, as a controller might
	_, err = w.Step()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `body "crate": AngVel: must be finite`)
}
