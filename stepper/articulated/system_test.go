package articulated

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pinned 2-link pendulum (point masses are not used: rods of length l,
// mass m, central inertia I) matches the accelerations of an independent
// Lagrangian derivation in absolute angles φ1 = q0, φ2 = q0 + q1:
//
//	[ I1 + m1 a1² + m2 l1²      m2 l1 a2 cos(φ1−φ2) ] [φ̈1]   [ −m2 l1 a2 sin(φ1−φ2) φ̇2² − (m1 a1 + m2 l1) g cos φ1 ]
//	[ m2 l1 a2 cos(φ1−φ2)        I2 + m2 a2²          ] [φ̈2] = [  m2 l1 a2 sin(φ1−φ2) φ̇1² − m2 a2 g cos φ2          ]
//
// with a_i = l_i/2 and I_i about the centre of mass.
func TestTwoLinkPendulumMatchesLagrange(t *testing.T) {
	m1, m2, l1, l2, g := 1.3, 0.7, 1.1, 0.8, 9.81
	links := []Link{{Parent: -1, Length: l1, Mass: m1}, {Parent: 0, Offset: Vec2{l1, 0}, Length: l2, Mass: m2, Inertia: 0.09}}
	I1, I2 := m1*l1*l1/12, 0.09
	a1, a2 := l1/2, l2/2
	for _, me := range allMethods {
		sys := newSys(t, Model{Links: links, Pin: Vec2{0.2, 3}, Gravity: Vec2{0, -g}},
			Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, []float64{0.4, -1.1}, []float64{1.7, -0.6})
		p1, p2 := 0.4, 0.4-1.1
		w1, w2 := 1.7, 1.7-0.6
		M := [2][2]float64{{I1 + m1*a1*a1 + m2*l1*l1, m2 * l1 * a2 * math.Cos(p1-p2)}, {m2 * l1 * a2 * math.Cos(p1-p2), I2 + m2*a2*a2}}
		rhs := [2]float64{-m2*l1*a2*math.Sin(p1-p2)*w2*w2 - (m1*a1+m2*l1)*g*math.Cos(p1), m2*l1*a2*math.Sin(p1-p2)*w1*w1 - m2*a2*g*math.Cos(p2)}
		det := M[0][0]*M[1][1] - M[0][1]*M[1][0]
		f1 := (rhs[0]*M[1][1] - M[0][1]*rhs[1]) / det
		f2 := (M[0][0]*rhs[1] - M[1][0]*rhs[0]) / det
		a, err := sys.Accelerations(nil, nil)
		require.NoError(t, err)
		// q0 = φ1, q1 = φ2 − φ1. Tolerance: rounding of O(10) terms.
		assert.InDelta(t, f1, a[0], 1e-12, me.name)
		assert.InDelta(t, f2-f1, a[1], 1e-12, me.name)
	}
}

// A single pinned rod released horizontal swings with the period of a
// compound pendulum of large amplitude, T = 4 √(I_P/(m g d)) K(sin(π/4)) for
// a 90° amplitude (I_P = m l²/3, d = l/2), and RK4 keeps its energy.
func TestPendulumPeriodAndEnergy(t *testing.T) {
	l, g := 1.0, 9.81
	sys := newSys(t, Model{Links: Chain(1, 1, l), Gravity: Vec2{0, -g}}, Settings{H: 1e-4, Method: ABA, Integrator: RK4},
		[]float64{0}, []float64{0})
	// K(k) for k = sin 45° by the arithmetic–geometric mean: K = π/(2 AGM(1, cos 45°)).
	a, b := 1.0, math.Sqrt(0.5)
	for range 10 {
		a, b = (a+b)/2, math.Sqrt(a*b)
	}
	period := 4 * math.Sqrt((l*l/3)/(g*l/2)) * math.Pi / (2 * a)
	k0, p0 := sys.Energy()
	// q passes −π/2 (hanging) at T/4 going down and at 3T/4 coming back.
	prev := sys.Q[0]
	var cross []float64
	for sys.Time < 1.1*period {
		_, err := sys.Step()
		require.NoError(t, err)
		if (prev+math.Pi/2)*(sys.Q[0]+math.Pi/2) < 0 {
			// Linear interpolation of the crossing time.
			cross = append(cross, sys.Time-sys.Settings.H*(sys.Q[0]+math.Pi/2)/(sys.Q[0]-prev))
		}
		prev = sys.Q[0]
	}
	require.Len(t, cross, 2)
	crossing := 2 * (cross[1] - cross[0])
	k, p := sys.Energy()
	assert.InDelta(t, period, crossing, 1e-6, "period (s); interpolation error ~h²")
	assert.InDelta(t, k0+p0, k+p, 1e-9, "RK4 energy drift (J) over 1.5 periods at h = 0.1 ms")
}

// A floating chain without gravity or contact keeps its linear and angular
// momentum (to the first-order integration's error for Euler, tighter with
// RK4).
func TestFloatingChainConservesMomentum(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, q, u := randomTree(rng, 7, true)
	m.Gravity, m.Contacts = Vec2{}, nil
	for _, in := range []Integrator{SemiImplicitEuler, RK4} {
		sys := newSys(t, m, Settings{H: 1e-3, Method: DCA, Integrator: in}, q, u)
		p0, l0 := sys.Momentum()
		for range 500 {
			_, err := sys.Step()
			require.NoError(t, err)
		}
		p, l := sys.Momentum()
		tol := 1e-9 // RK4: the state error of 500 steps
		if in == SemiImplicitEuler {
			tol = 0.05 * (math.Abs(l0) + math.Hypot(p0[0], p0[1])) // first order: O(h) per unit time
		}
		assert.InDelta(t, p0[0], p[0], tol, "%v px", in)
		assert.InDelta(t, p0[1], p[1], tol, "%v py", in)
		assert.InDelta(t, l0, l, tol, "%v L", in)
	}
}

// The contact rows of the LCP are J M⁻¹ Jᵀ with J the contact Jacobian:
// J u must equal the finite-difference rate of the contact points, so we
// check n·ṗ and t·ṗ against (p(q + εu) − p(q − εu))/2ε, and the diagonal
// of A against nᵀ J M⁻¹ Jᵀ n from a unit impulse.
func TestContactJacobianFiniteDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 10 {
		m, q, u := randomTree(rng, 2+rng.IntN(8), trial%2 == 0)
		sys := newSys(t, m, Settings{H: 1e-3, Method: ABA}, q, u)
		sys.build()
		for qi, rw := range sys.rows {
			ct := m.Contacts[rw.contact]
			const eps = 1e-6
			qp, qm := make([]float64, len(q)), make([]float64, len(q))
			for i := range q {
				qp[i], qm[i] = q[i]+eps*u[i], q[i]-eps*u[i]
			}
			require.NoError(t, sys.SetState(qp, u))
			pp := sys.Point(ct.Link, ct.Point)
			require.NoError(t, sys.SetState(qm, u))
			pm := sys.Point(ct.Link, ct.Point)
			require.NoError(t, sys.SetState(q, u))
			fd := (rw.d[0]*(pp[0]-pm[0]) + rw.d[1]*(pp[1]-pm[1])) / (2 * eps)
			// Central differences: error ~ε² |u|³.
			assert.InDelta(t, fd, sys.vel[qi], 1e-6*(1+math.Abs(fd)), "trial %d row %d", trial, qi)
		}
		// Impulse response: a unit impulse along a row changes u by M⁻¹ Jᵀ
		// and that row's velocity by K_rr.
		for qi := range sys.rows {
			f := make([]float64, len(sys.rows))
			f[qi] = 1
			ud := make([]float64, len(q))
			ud0 := make([]float64, len(q))
			sys.dyn.accel(ud, f)
			sys.dyn.accel(ud0, make([]float64, len(f)))
			for i := range ud {
				ud[i] -= ud0[i]
			}
			r := len(sys.rows)
			// J (M⁻¹ Jᵀ e) by finite differences of the point position along ud.
			rw := sys.rows[qi]
			ct := m.Contacts[rw.contact]
			const eps = 1e-6
			qp, qm := make([]float64, len(q)), make([]float64, len(q))
			for i := range q {
				qp[i], qm[i] = q[i]+eps*ud[i], q[i]-eps*ud[i]
			}
			require.NoError(t, sys.SetState(qp, u))
			pp := sys.Point(ct.Link, ct.Point)
			require.NoError(t, sys.SetState(qm, u))
			pm := sys.Point(ct.Link, ct.Point)
			require.NoError(t, sys.SetState(q, u))
			fd := (rw.d[0]*(pp[0]-pm[0]) + rw.d[1]*(pp[1]-pm[1])) / (2 * eps)
			assert.InDelta(t, fd, sys.K[qi*r+qi], 1e-6*(1+fd), "K diagonal trial %d row %d", trial, qi)
			sys.build()
		}
	}
}

// A chain of 8 links dropped flat from 1 m onto the ground with a contact
// at P and at every link's tip (μ = 0.5) comes to rest: kinetic energy below
// 1e-12 J after 2 s, and no contact penetrates more than 1e-6 m at any
// step (the first-order gap error h² ω² r is far below that for a flat
// impact).
func TestChainFallsAndRests(t *testing.T) {
	nb := 8
	m := Model{Links: Chain(nb, 1, 1), Floating: true, Gravity: Vec2{0, -9.81}, Lines: []Line{Ground()}}
	m.Contacts = append(m.Contacts, Contact{Link: 0, Line: 0, Mu: 0.5})
	for i := range nb {
		m.Contacts = append(m.Contacts, Contact{Link: i, Point: Vec2{1, 0}, Line: 0, Mu: 0.5})
	}
	q := make([]float64, nb+2)
	q[1], q[3] = 1, 0.1 // a slight bend so that the impact is not simultaneous
	sys := newSys(t, m, Settings{H: 1e-3, Method: ABA}, q, make([]float64, nb+2))
	var pen, worstReg float64
	regularized := 0
	for range 2000 {
		st, err := sys.Step()
		require.NoError(t, err)
		pen = math.Max(pen, st.MaxPenetration)
		// Lemke's pivots on these degenerate frictional LCPs (9 contacts,
		// 36 rows, rank ≤ 10) leave residuals of up to ~3e-5.
		assert.Less(t, st.Errors.Residual, 1e-4, "natural residual of the kept iterate (N·s and m/s)")
		if st.Regularized > 0 {
			regularized++
			worstReg = math.Max(worstReg, st.Errors.Residual)
		}
	}
	t.Logf("%d of 2000 steps needed the regularized retry; worst residual then %.3g", regularized, worstReg)
	assert.Less(t, worstReg, 1e-4, "natural residual of regularized solves (N·s and m/s)")
	k, _ := sys.Energy()
	assert.Less(t, k, 1e-12, "kinetic energy at rest (J)")
	assert.Less(t, pen, 1e-6, "worst penetration (m)")
	for c := range m.Contacts {
		assert.Greater(t, sys.Gap(c), -1e-6, "contact %d", c)
	}
}

// All methods give the same trajectory: the chain of Fig. 4 with P and Q,
// frictionless and with friction, 600 steps through the impact.
func TestMethodsSameTrajectory(t *testing.T) {
	for _, mu := range []float64{0, 0.3} {
		m := Model{Links: Chain(6, 1, 1), Floating: true, Gravity: Vec2{0, -9.81}, Lines: []Line{Ground()},
			Contacts: []Contact{{Link: 0, Line: 0, Mu: mu}, {Link: 5, Point: Vec2{1, 0}, Line: 0, Mu: mu}}}
		var ref []float64
		for _, me := range allMethods {
			q := make([]float64, 8)
			q[1], q[2] = 1, -0.2
			sys := newSys(t, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, q, make([]float64, 8))
			for range 600 {
				_, err := sys.Step()
				require.NoError(t, err)
			}
			if ref == nil {
				ref = append(ref, sys.Q...)
				continue
			}
			// Rounding differences of the three methods (1e-15) grow through
			// the impacts and, with friction, through Lemke's pivot choices
			// on nearly degenerate LCPs; bounds over 600 steps.
			tol := 1e-8
			if mu > 0 {
				tol = 1e-6
			}
			assert.Less(t, relDiff(ref, sys.Q), tol, "μ %v %s", mu, me.name)
		}
	}
}

// The parallel DCA is bit-identical to the serial one.
func TestParallelDCABitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, q, u := randomTree(rng, 40, true)
	a := newSys(t, m, Settings{H: 1e-3, Method: DCA}, q, u)
	b := newSys(t, m, Settings{H: 1e-3, Method: DCA, Parallel: true}, q, u)
	for range 50 {
		_, err := a.Step()
		require.NoError(t, err)
		_, err = b.Step()
		require.NoError(t, err)
	}
	assert.Equal(t, a.Q, b.Q)
	assert.Equal(t, a.U, b.U)
}

// RK4's energy drift on the 8-link pendulum of Fig. 7 is far below
// explicit Euler's (the paper: about 1e6 times).
func TestRK4EnergyDriftSmallerThanEuler(t *testing.T) {
	drift := func(in Integrator) float64 {
		sys := newSys(t, Model{Links: Chain(8, 1, 1), Gravity: Vec2{0, -9.81}}, Settings{H: 1e-3, Method: ABA, Integrator: in},
			make([]float64, 8), make([]float64, 8))
		k0, p0 := sys.Energy()
		var d float64
		for range 1000 {
			_, err := sys.Step()
			require.NoError(t, err)
			k, p := sys.Energy()
			d = math.Max(d, math.Abs(k+p-k0-p0))
		}
		return d
	}
	e, r := drift(ExplicitEuler), drift(RK4)
	t.Logf("max |ΔE| over 1 s: explicit Euler %.3g J, RK4 %.3g J", e, r)
	assert.Greater(t, e/r, 1e5)
}

// edited returns a copy of ok (its slices copied) and Settings{H: 1e-3},
// both changed by edit.
func edited(ok Model, edit func(m *Model, s *Settings)) (Model, Settings) {
	m := ok
	m.Links = append([]Link(nil), ok.Links...)
	m.Lines = append([]Line(nil), ok.Lines...)
	m.Contacts = append([]Contact(nil), ok.Contacts...)
	s := Settings{H: 1e-3}
	edit(&m, &s)
	return m, s
}

func TestBadInput(t *testing.T) {
	ok := Model{Links: Chain(3, 1, 1), Lines: []Line{Ground()}, Contacts: []Contact{{Link: 2, Line: 0}}}
	for _, c := range []struct {
		name  string
		edit  func(m *Model, s *Settings)
		field string
	}{
		{"missing parent", func(m *Model, s *Settings) { m.Links[2].Parent = 7 }, "Links[2].Parent"},
		{"cycle", func(m *Model, s *Settings) { m.Links[1].Parent = 2 }, "Links[1].Parent"},
		{"no root", func(m *Model, s *Settings) { m.Links[0].Parent = 2; m.Links[1].Parent = 0 }, "cycle"},
		{"two roots", func(m *Model, s *Settings) { m.Links[2].Parent = -1 }, "Links[2].Parent"},
		{"zero length", func(m *Model, s *Settings) { m.Links[1].Length = 0 }, "Links[1].Length"},
		{"negative mass", func(m *Model, s *Settings) { m.Links[0].Mass = -1 }, "Links[0].Mass"},
		{"NaN inertia", func(m *Model, s *Settings) { m.Links[0].Inertia = math.NaN() }, "Links[0].Inertia"},
		{"zero normal", func(m *Model, s *Settings) { m.Lines[0].N = Vec2{} }, "Lines[0].N"},
		{"contact link", func(m *Model, s *Settings) { m.Contacts[0].Link = 3 }, "Contacts[0].Link"},
		{"contact line", func(m *Model, s *Settings) { m.Contacts[0].Line = 1 }, "Contacts[0].Line"},
		{"negative mu", func(m *Model, s *Settings) { m.Contacts[0].Mu = -0.1 }, "Contacts[0].Mu"},
		{"h zero", func(m *Model, s *Settings) { s.H = 0 }, "Settings.H"},
		{"h negative", func(m *Model, s *Settings) { s.H = -1e-3 }, "Settings.H"},
		{"no links", func(m *Model, s *Settings) { m.Links = nil }, "Links"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(edited(ok, c.edit))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.field)
		})
	}
	sys, err := New(ok, Settings{H: 1e-3})
	require.NoError(t, err)
	assert.ErrorContains(t, sys.SetState([]float64{1}, []float64{1, 2, 3}), "q:")
}
