package stepper_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPendulumPeriod(t *testing.T) {
	p := scenes.DefaultPendulumParams()
	w, err := scenes.Pendulum(p)
	require.NoError(t, err)
	// Rod about its end: I = m(3r² + L²)/12 + m(L/2)², d = L/2.
	m, l, r, g := p.Mass, p.Length, p.Radius, 9.81
	inertia := m*(3*r*r+l*l)/12 + m*l*l/4
	want := 2 * math.Pi * math.Sqrt(inertia/(m*g*l/2))
	// Time the upward zero crossings of the link's x (the angle off the
	// vertical changes sign there) over five periods.
	var crossings []float64
	prevX := w.Bodies[0].Pos.X()
	for w.Time() < 5.5*want {
		_, err := w.Step()
		require.NoError(t, err)
		x := w.Bodies[0].Pos.X()
		if prevX < 0 && x >= 0 {
			// Linear interpolation inside the step.
			crossings = append(crossings, w.Time()-p.Settings.H*x/(x-prevX))
		}
		prevX = x
	}
	require.GreaterOrEqual(t, len(crossings), 5)
	got := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	// 0.5 %: the bound; the 0.05 rad amplitude lengthens the period
	// by θ₀²/16 ≈ 0.016 % and h = 1 ms adds O(h) phase error.
	assert.InDelta(t, want, got, 0.005*want, "period %v s, analytic %v s", got, want)
	t.Logf("period %.6f s, analytic small-amplitude %.6f s (%.3f %%)", got, want, 100*(got-want)/want)
}

func TestTorqueFreeBodyConservesMomentum(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.001})
	require.NoError(t, err)
	b, err := body.New(body.Params{
		Mass: 2, Inertia: body.BoxInertia(2, 0.3, 0.2, 0.1),
		Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 2, 3}.Normalize()),
		Pos: mgl64.Vec3{1, 2, 3}, Vel: mgl64.Vec3{0.5, -0.2, 0.1}, AngVel: mgl64.Vec3{3, 1, -2},
	})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	p0, l0 := b.LinearMomentum(), b.AngularMomentum()
	for i := 0; i < 10000; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	p1, l1 := b.LinearMomentum(), b.AngularMomentum()
	// 1e-9 relative: the bound; the update is exact up to rounding.
	assert.InDelta(t, 0, p1.Sub(p0).Len()/p0.Len(), 1e-9)
	assert.InDelta(t, 0, l1.Sub(l0).Len()/l0.Len(), 1e-9)
}

func chainMaxViolation(t *testing.T, mode stepper.Stabilization, beta float64) float64 {
	p := scenes.DefaultChainParams()
	p.Settings.Stabilization = mode
	p.Settings.Baumgarte = beta
	w, err := scenes.Chain(p)
	require.NoError(t, err)
	worst := 0.0
	for i := 0; i < 600; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		worst = math.Max(worst, st.MaxViolation)
	}
	return worst
}

func TestChainDriftOrdering(t *testing.T) {
	none := chainMaxViolation(t, stepper.None, 0)
	baum := chainMaxViolation(t, stepper.Baumgarte, 50)
	reg := chainMaxViolation(t, stepper.Regularized, 0)
	post := chainMaxViolation(t, stepper.Post, 0)
	t.Logf("max violation over 600 steps: none %.3g, Baumgarte 50/s %.3g, regularized %.3g, post %.3g (m or rad)", none, baum, reg, post)
	assert.Less(t, post, baum)
	assert.Less(t, baum, none)
}

func TestSettingsErrors(t *testing.T) {
	cases := []struct {
		s    stepper.Settings
		want string
	}{
		{stepper.Settings{H: 0}, "H: time step must be finite and > 0, got 0"},
		{stepper.Settings{H: -1}, "H: time step must be finite and > 0, got -1"},
		{stepper.Settings{H: 0.01, Gravity: mgl64.Vec3{0, 0, math.NaN()}}, "Gravity: must be finite"},
		{stepper.Settings{H: 0.01, Budget: -2}, "Budget: must be ≥ 0, got -2"},
		{stepper.Settings{H: 0.01, Stabilization: stepper.Baumgarte, Baumgarte: math.Inf(1)}, "Baumgarte: must be finite"},
	}
	for _, c := range cases {
		_, err := stepper.New(c.s)
		assert.ErrorContains(t, err, c.want)
	}
}

func TestSteadyStepAllocatesNothing(t *testing.T) {
	p := scenes.DefaultChainParams()
	w, err := scenes.Chain(p)
	require.NoError(t, err)
	for i := 0; i < 5; i++ {
		_, _ = w.Step()
	}
	allocs := testing.AllocsPerRun(20, func() { _, _ = w.Step() })
	assert.Zero(t, allocs)
}

func BenchmarkChainStep(b *testing.B) {
	for _, n := range []int{100, 1000} {
		p := scenes.DefaultChainParams()
		p.Links = n
		w, err := scenes.Chain(p)
		require.NoError(b, err)
		for i := 0; i < 3; i++ {
			_, _ = w.Step()
		}
		b.Run(fmt.Sprintf("links=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = w.Step()
			}
		})
	}
}

// One brick-wall step (detection, assembly, warm-started exact BPP solve,
// integration) in the wall's resting state.
func BenchmarkBrickWallStep(b *testing.B) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(b, err)
	for i := 0; i < 20; i++ {
		_, err := w.Step()
		require.NoError(b, err)
	}
	b.ReportAllocs()
	iters := 0
	for b.Loop() {
		st, _ := w.Step()
		iters += st.Iterations
	}
	b.ReportMetric(float64(iters)/float64(b.N), "iterations/op")
}

// A brick-wall step in steady state allocates nothing.
func TestBrickWallStepAllocatesNothing(t *testing.T) {
	w, err := scenes.BrickWall(scenes.DefaultBrickWallParams())
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.Zero(t, testing.AllocsPerRun(5, func() { _, _ = w.Step() }))
}

// DefaultSettings is a valid, complete start: standard gravity, h = 1/60 s,
// sleeping on, friction frames turned (TurnFriction), and every other
// field zero (its documented default, so JointFeedback), where the zero
// Settings has no gravity, no sleeping and no turn.
func TestDefaultSettings(t *testing.T) {
	s := stepper.DefaultSettings()
	require.NoError(t, s.Validate())
	assert.Equal(t, stepper.StandardGravity, s.Gravity)
	assert.Equal(t, 1.0/60, s.H)
	want := stepper.Settings{H: s.H, Gravity: s.Gravity, Sleep: stepper.Sleep{On: true}, TurnFriction: true}
	assert.Equal(t, want, s, "only H, Gravity, Sleep.On and TurnFriction are set")
	assert.Nil(t, s.Solver, "nil Solver: lcp.BPP")
	assert.Equal(t, errmeasure.Energy, s.Pick)
	assert.Equal(t, stepper.Regularized, s.Stabilization)
	// A fresh value each call: changing one does not change the next.
	s.Gravity[2] = 0
	assert.Equal(t, -9.81, stepper.DefaultSettings().Gravity[2])
}
