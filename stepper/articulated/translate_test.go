package articulated

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// eps is float64's machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// fallen1e4 is where the root of a chain released at rest has fallen after
// 1e4 s of free fall (m), and how fast (m/s): ½ g t² and g t.
var fallen1e4 = struct{ y, v float64 }{-0.5 * 9.81 * 1e8, -9.81 * 1e4}

// The dynamics depend on where the system is only through the gaps: a
// floating tree far from the world origin (translated by 1e6 m, or where
// a free fall of 1e4 s takes it, 4.9e8 m down) has the same accelerations,
// by every method, as the same tree at the origin. About the world origin
// the spatial inertia holds I_c + m|c|² with m|c|² ≈ 1e12 kg·m² at
// |c| = 1e6 m, so the rounding of the mass matrix is ε·m|c|² ≈ 2e-4 kg·m²
// against inertias of 0.05–1 kg·m² (measured before the change: 1e-3
// relative for O(n³) and ABA, O(1) for DCA), and at 4.9e8 m
// (ε·m|c|² ≈ 50 kg·m²) a mass matrix that is not positive definite.
func TestTranslationInvariantAccelerations(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 6 {
		m, q, u := randomTree(rng, 2+rng.IntN(10), true)
		tau := make([]float64, len(q))
		for i := range tau {
			tau[i] = rng.NormFloat64()
		}
		ext := []PointForce{{Link: rng.IntN(len(m.Links)), Point: Vec2{0.3, 0.1}, F: Vec2{3, -20}}}
		for _, d := range []Vec2{{1e6, 0}, {0, -1e6}, {3e7, fallen1e4.y}} {
			for _, me := range allMethods {
				name := fmt.Sprintf("trial %d, %d links, shift %g, %s", trial, len(m.Links), d, me.name)
				set := Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}
				at0 := newSys(t, m, set, q, u)
				copy(at0.Tau, tau)
				a0, err := at0.Accelerations(nil, ext)
				require.NoError(t, err, name)
				qd := append([]float64(nil), q...)
				qd[0] += d[0]
				qd[1] += d[1]
				far := newSys(t, m, set, qd, u)
				copy(far.Tau, tau)
				a, err := far.Accelerations(nil, ext)
				require.NoError(t, err, name)
				// About the root's joint every position the dynamics see is
				// computed from the same angles and link data whatever
				// (q₀, q₁): what may differ is float64 rounding of
				// quantities of the tree's own size, ε times the O(100)
				// operations of a sweep, well inside 1e-13.
				assert.Less(t, relDiff(a0, a), 1e-13, name)
			}
		}
	}
}

// A chain that has fallen freely for 1e4 s moves at 9.81e4 m/s and is
// 4.9e8 m below where it started; its accelerations are those of the same
// chain at rest at the origin (Galilean invariance). The velocity-product
// terms of the spatial formulation (ω ẑ × v, v ×* I v) carry the fall
// speed V and cancel between links, so their rounding is of order
// ε·V·|ω| per operation.
func TestFallenChainAccelerations(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	m, q, u := randomTree(rng, 8, true)
	m.Contacts, m.Lines = nil, nil
	var wmax float64 // largest angular speed (rad/s)
	for i := 2; i < len(u); i++ {
		wmax = math.Max(wmax, math.Abs(u[i]))
	}
	for _, me := range allMethods {
		set := Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}
		a0, err := newSys(t, m, set, q, u).Accelerations(nil, nil)
		require.NoError(t, err)
		qd, ud := append([]float64(nil), q...), append([]float64(nil), u...)
		qd[1] += fallen1e4.y
		ud[1] += fallen1e4.v
		a, err := newSys(t, m, set, qd, ud).Accelerations(nil, nil)
		require.NoError(t, err)
		// ε·V·|ω| rounding of each velocity product, summed over the
		// O(10²) products a sweep of 8 links forms and scaled by M⁻¹
		// (links of 0.5–2.5 kg, 0.3–1.3 m: entries below 1e2).
		tol := 1e3 * eps * math.Abs(fallen1e4.v) * wmax
		var worst float64
		for i := range a {
			worst = math.Max(worst, math.Abs(a[i]-a0[i]))
		}
		t.Logf("%s: worst |Δu̇| %.3g (tolerance %.3g)", me.name, worst, tol)
		for i := range a {
			assert.InDelta(t, a0[i], a[i], tol, "%s u̇[%d]", me.name, i)
		}
	}
}

// The chain of Fig. 4 dropped onto a ground line that is moved with it
// (1e6 m along the line, 1e6 m across it) steps as at the origin, through
// the impacts at P and Q, with friction, for 600 steps: each step starts
// the far chain from the state of the one at the origin, shifted, and
// compares the speeds after the step.
func TestTranslatedDropSteps(t *testing.T) {
	for _, d := range []Vec2{{1e6, 0}, {0, 1e6}} {
		for _, me := range allMethods {
			var sys [2]*System
			for k, shift := range []Vec2{{}, d} {
				m := Model{Links: Chain(6, 1, 1), Floating: true, Gravity: Vec2{0, -9.81},
					Lines:    []Line{{P: shift, N: Vec2{0, 1}}},
					Contacts: []Contact{{Link: 0, Line: 0, Mu: 0.3}, {Link: 5, Point: Vec2{1, 0}, Line: 0, Mu: 0.3}}}
				q := make([]float64, 8)
				q[1], q[2] = 1, -0.2
				sys[k] = newSys(t, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, q, make([]float64, 8))
			}
			// The far gaps are those at the origin to the rounding of
			// q₁ + d, half an ulp of d (P = d is exact); b_N = g/h + …
			// moves by ulp/2h, and an active contact's impulse enforces
			// n·v⁺ = −g/h, so the speeds move by ‖J⁺‖·ulp/2h, with ‖J⁺‖
			// below 20 for six 1 m links (lever arms up to 6 m). Along
			// the line the gaps do not depend on d: identical steps.
			ulp := math.Nextafter(math.Hypot(d[0], d[1]), math.Inf(1)) - math.Hypot(d[0], d[1])
			tol := 20 * ulp / (2 * sys[0].Settings.H)
			var worst float64
			contacts := 0
			for s := range 600 {
				copy(sys[1].Q, sys[0].Q)
				copy(sys[1].U, sys[0].U)
				sys[1].Q[0] += d[0]
				sys[1].Q[1] += d[1]
				st0, err := sys[0].Step()
				require.NoError(t, err)
				st1, err := sys[1].Step()
				require.NoError(t, err)
				require.Equal(t, st0.Contacts, st1.Contacts, "step %d", s)
				contacts += st0.Contacts
				for i := range sys[0].U {
					worst = math.Max(worst, math.Abs(sys[0].U[i]-sys[1].U[i]))
				}
			}
			require.Positive(t, contacts, "the chain reaches the ground")
			t.Logf("shift %g %s: worst |Δu| %.3g (tolerance %.3g)", d, me.name, worst, tol)
			if d[1] == 0 {
				assert.Zero(t, worst, "shift %g %s", d, me.name)
			} else {
				assert.Less(t, worst, tol, "shift %g %s", d, me.name)
			}
		}
	}
}

// A mass matrix that is singular in floating point is an error of Step
// naming the column, not a panic: a floating rod of 1 m whose central
// inertia (1e-20 kg·m²) is lost against m (l/2)² = 0.25 kg·m² about its
// end. DCA works with I⁻¹ directly and does not meet the cancellation.
func TestSingularMassMatrixIsAnError(t *testing.T) {
	m := Model{Links: []Link{{Parent: -1, Length: 1, Mass: 1, Inertia: 1e-20}}, Floating: true, Gravity: Vec2{0, -9.81}}
	for _, me := range allMethods {
		sys := newSys(t, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, []float64{0, 0, 0.3}, []float64{0, 0, 1})
		q0 := append([]float64(nil), sys.Q...)
		_, err := sys.Step()
		if me.method == DCA {
			assert.NoError(t, err, me.name)
			continue
		}
		require.ErrorIs(t, err, ErrSingularMass, me.name)
		assert.ErrorContains(t, err, "column 2 (link 0's absolute angle", me.name)
		assert.ErrorContains(t, err, "likely cause: link 0's inertia is lost to rounding", me.name)
		assert.Equal(t, q0, sys.Q, "%s: the state is left as it was", me.name)
		_, err = sys.Accelerations(nil, nil)
		assert.ErrorIs(t, err, ErrSingularMass, me.name)
		_, err = sys.LCP()
		assert.ErrorIs(t, err, ErrSingularMass, me.name)
	}
}

// A state, torque or force that is not finite or does not fit the model is
// an error naming the field, for every entry point that runs the dynamics.
func TestBadStateIsAnError(t *testing.T) {
	m := Model{Links: Chain(3, 1, 1), Floating: true, Gravity: Vec2{0, -9.81}, Lines: []Line{Ground()},
		Contacts: []Contact{{Link: 2, Point: Vec2{1, 0}, Line: 0, Mu: 0.5}}}
	for _, c := range []struct {
		name, field string
		edit        func(s *System)
	}{
		{"NaN q", "Q[3]: not finite (NaN)", func(s *System) { s.Q[3] = math.NaN() }},
		{"Inf u", "U[0]: not finite (+Inf)", func(s *System) { s.U[0] = math.Inf(1) }},
		{"NaN tau", "Tau[4]: not finite", func(s *System) { s.Tau[4] = math.NaN() }},
		{"short tau", "Tau: has 2 entries, the model has 5", func(s *System) { s.Tau = s.Tau[:2] }},
		{"short q", "Q: has 0 entries", func(s *System) { s.Q = nil }},
		{"force link", "Forces[1].Link: 3 refers to no link", func(s *System) {
			s.Forces = []PointForce{{Link: 0}, {Link: 3}}
		}},
		{"force NaN", "Forces[0]: Point and F must be finite", func(s *System) {
			s.Forces = []PointForce{{Link: 1, F: Vec2{math.NaN(), 0}}}
		}},
	} {
		for _, me := range allMethods {
			for _, in := range []Integrator{SemiImplicitEuler, RK4} {
				sys := newSys(t, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel, Integrator: in},
					[]float64{0, 1, 0.1, 0.2, -0.3}, make([]float64, 5))
				c.edit(sys)
				_, err := sys.Step()
				assert.ErrorContains(t, err, c.field, "%s %s %s Step", c.name, me.name, in)
				_, err = sys.Accelerations(nil, nil)
				assert.ErrorContains(t, err, c.field, "%s %s Accelerations", c.name, me.name)
				_, err = sys.LCP()
				assert.ErrorContains(t, err, c.field, "%s %s LCP", c.name, me.name)
			}
		}
	}
	sys := newSys(t, m, Settings{H: 1e-3}, make([]float64, 5), make([]float64, 5))
	_, err := sys.Accelerations(nil, []PointForce{{Link: -1}})
	assert.ErrorContains(t, err, "ext[0].Link: -1 refers to no link")
}
