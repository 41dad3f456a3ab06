package articulated

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// Integrator selects how a step advances the state once the contact
// impulses are known.
type Integrator int

// Integrators.
const (
	// SemiImplicitEuler is the time stepper of Sec. 2.3: u⁺ = u + h u̇,
	// q⁺ = q + h u⁺, for which the LCP's contact conditions (Eq. 4) hold
	// at the end of the step. The default.
	SemiImplicitEuler Integrator = iota
	// ExplicitEuler is forward Euler, q⁺ = q + h u, u⁺ = u + h u̇: the
	// "first order" integration of Fig. 7.
	ExplicitEuler
	// RK4 is the explicit fourth-order Runge–Kutta method of Sec. 4.1: the
	// LCP is solved once at the start of the step and its impulses x are
	// applied as constant forces x/h at the contact points over the four
	// stages. Meant for frictionless contact (μ = 0); with friction the
	// forces are no longer guaranteed dissipative (Sec. 4.1, last
	// paragraphs).
	RK4
)

var integratorNames = [...]string{SemiImplicitEuler: "euler", ExplicitEuler: "explicit-euler", RK4: "rk4"}

// String returns "euler", "explicit-euler" or "rk4".
func (i Integrator) String() string {
	if i >= 0 && int(i) < len(integratorNames) {
		return integratorNames[i]
	}
	return fmt.Sprintf("Integrator(%d)", int(i))
}

// Settings steer a System. The zero value is invalid only in H.
type Settings struct {
	H          float64 // time step (s), > 0
	Method     Method  // forward dynamics; the zero value is Traditional
	Parallel   bool    // DCA only: assemble and disassemble subtrees on goroutines
	Integrator Integrator
	// Solver solves the LCP of Eq. (13). nil picks by the LCP's structure:
	// with friction rows the matrix of Eq. (11) is not symmetric and has
	// zero diagonal entries on the sliding-speed rows, which suits Lemke's
	// method (a copositive-plus LCP, Anitescu–Potra [3]); frictionless, it
	// is J M⁻¹ Jᵀ, symmetric positive semidefinite, and block principal
	// pivoting (lcp.BPP) applies.
	Solver lcp.Solver
	// MaxIterations is the solver's budget; 0 = the solver's default.
	MaxIterations int
	// Measure is the errmeasure criterion for the iterate kept from the
	// solve (default Energy; Lemke's iterates are never candidates, so its
	// final one is kept).
	Measure errmeasure.Measure
	// Margin (m): contacts whose gap exceeds it are left out of the LCP.
	// 0 means every contact enters every step, as in the paper (Eq. 4a at
	// position level keeps a distant contact's impulse at 0 anyway).
	Margin float64
	// ClampGap replaces g_N by max(g_N, GapFloor) in Eq. (4a) (Sec. 4.1):
	// GapFloor = 0 switches a penetrating contact to the velocity-level
	// condition 0 ≤ n·v ⊥ λ_N ≥ 0; GapFloor = g_Nε < 0 lets the solver see
	// at most |g_Nε| of penetration.
	ClampGap bool
	GapFloor float64 // m, ≤ 0
}

// StepStats describe one step.
type StepStats struct {
	Contacts   int // contacts in the LCP
	Rows       int // LCP rows: 1 per frictionless contact, 4 per frictional one (λ_N, two λ_F, 𝒮)
	Iterations int
	Status     lcp.Status
	Picked     int               // the iteration whose iterate was kept
	Errors     errmeasure.Totals // FB, residual and energy errors of the kept iterate
	// MaxPenetration is max(0, −g_N) over all contacts after the step (m).
	MaxPenetration float64
	// Regularized is the relative ε of the retry that solved the LCP after
	// Lemke ended on a ray (see Step), 0 when the first solve succeeded.
	Regularized float64
}

// System is a Model in motion: its state, settings and workspace. It is not
// safe for concurrent use.
type System struct {
	Model    Model
	Settings Settings
	// Q and U are the generalized coordinates and speeds (u = q̇): for a
	// floating root (x, y, θ) of its inboard end first, for a pinned root
	// its absolute angle; then each other link's angle relative to its
	// parent, at index DOF(link).
	Q, U []float64
	// Tau are generalized forces (N·m at joints; N for a floating root's
	// x, y), held constant over a step.
	Tau []float64
	// Forces are known external forces applied every step.
	Forces []PointForce
	Time   float64 // s

	// Impulse holds, per contact, the impulses of the last step (N·s):
	// normal, and tangential along t = (n_y, −n_x).
	Impulse []Vec2

	t   *tree
	k   *kin
	dyn dynamics
	// workspace
	rows            []row
	K, a0, vel, acc []float64
	prob            lcp.Problem
	dense, regA     lcp.Dense
	res             lcp.Result
	picker          *errmeasure.Picker
	lemke           lcp.Lemke
	bpp             lcp.BPP
	f               []float64 // row forces (N)
	udot            []float64
	ext             []PointForce
	rk              [8][]float64 // q, u stage buffers and derivatives
	lines           []Line       // normalized
	xa, xb          []int        // LCP variables of each contact-space row
	nc, nf          int          // contacts and frictional contacts in the LCP
}

// New validates m and s and returns a System at q = 0, u = 0 (for a chain:
// every link horizontal along +x, at rest). The model is copied.
func New(m Model, s Settings) (*System, error) {
	if !(s.H > 0) || math.IsInf(s.H, 0) {
		return nil, fieldErr("Settings.H", s.H, "must be > 0 and finite, got %v", s.H)
	}
	if s.Method < Traditional || s.Method > DCA {
		return nil, fieldErr("Settings.Method", s.Method, "unknown value %d", s.Method)
	}
	if s.Integrator < SemiImplicitEuler || s.Integrator > RK4 {
		return nil, fieldErr("Settings.Integrator", s.Integrator, "unknown value %d", s.Integrator)
	}
	if s.Margin < 0 || math.IsNaN(s.Margin) {
		return nil, fieldErr("Settings.Margin", s.Margin, "must be ≥ 0 (0 = every contact), got %v", s.Margin)
	}
	if s.ClampGap && !(s.GapFloor <= 0) {
		return nil, fieldErr("Settings.GapFloor", s.GapFloor, "must be ≤ 0, got %v", s.GapFloor)
	}
	if s.MaxIterations < 0 {
		return nil, fieldErr("Settings.MaxIterations", s.MaxIterations, "must be ≥ 0, got %d", s.MaxIterations)
	}
	m.Links = append([]Link(nil), m.Links...)
	m.Lines = append([]Line(nil), m.Lines...)
	m.Contacts = append([]Contact(nil), m.Contacts...)
	t, err := compile(&m)
	if err != nil {
		return nil, err
	}
	sys := &System{Model: m, Settings: s, t: t, k: newKin(t.nb),
		Q: make([]float64, t.n), U: make([]float64, t.n), Tau: make([]float64, t.n),
		Impulse: make([]Vec2, len(m.Contacts)), udot: make([]float64, t.n),
		picker: errmeasure.NewPicker(s.Measure)}
	for i := range sys.rk {
		sys.rk[i] = make([]float64, t.n)
	}
	for _, ln := range m.Lines {
		l := math.Hypot(ln.N[0], ln.N[1])
		sys.lines = append(sys.lines, Line{P: ln.P, N: Vec2{ln.N[0] / l, ln.N[1] / l}})
	}
	switch s.Method {
	case Traditional:
		sys.dyn = newTraditional(t)
	case ABA:
		sys.dyn = newABA(t)
	case DCA:
		sys.dyn = newDCA(t, &m, s.Parallel)
	}
	return sys, nil
}

// NumDOF returns the number of generalized coordinates.
func (s *System) NumDOF() int { return s.t.n }

// DOF returns the index in Q and U of link i's joint angle (the root's
// absolute angle, the others' angles relative to their parents).
func (s *System) DOF(i int) int { return s.t.dof[i] }

// SetState copies q and u into the state; both must have NumDOF entries.
func (s *System) SetState(q, u []float64) error {
	if len(q) != s.t.n {
		return fieldErr("q", len(q), "has %d entries, the model has %d coordinates", len(q), s.t.n)
	}
	if len(u) != s.t.n {
		return fieldErr("u", len(u), "has %d entries, the model has %d coordinates", len(u), s.t.n)
	}
	copy(s.Q, q)
	copy(s.U, u)
	return nil
}

// SetRootPose places a floating root: its centre of mass at c (m) and its
// absolute angle θ (rad). It returns an error for a pinned root.
func (s *System) SetRootPose(c Vec2, theta float64) error {
	if !s.t.floating {
		return fmt.Errorf("SetRootPose: the root is pinned at Model.Pin")
	}
	d := rot(theta, Vec2{s.t.length[s.t.root] / 2, 0})
	s.Q[0], s.Q[1], s.Q[2] = c[0]-d[0], c[1]-d[1], theta
	return nil
}

// Point returns the world position of point p of link i's frame.
func (s *System) Point(i int, p Vec2) Vec2 {
	s.t.update(s.k, s.Q, s.U, nil)
	return s.k.world(i, p)
}

// Gap returns contact c's gap g_N = n·(p − P) (m, Eq. 3) at the current state.
func (s *System) Gap(c int) float64 {
	s.t.update(s.k, s.Q, s.U, nil)
	return s.gap(c)
}

func (s *System) gap(c int) float64 {
	ct := s.Model.Contacts[c]
	ln := s.lines[ct.Line]
	// p − P as (R − P) + (p − R): a line that is near the chain then
	// gives the same gap wherever in the plane the two are (R − P is exact
	// when R and P are within a factor 2, Sterbenz).
	r := s.k.rel(ct.Link, ct.Point)
	ref := s.k.ref
	return ln.N[0]*((ref[0]-ln.P[0])+r[0]) + ln.N[1]*((ref[1]-ln.P[1])+r[1])
}

// Energy returns the kinetic and potential energy (J) of the current state.
func (s *System) Energy() (kinetic, potential float64) {
	s.t.update(s.k, s.Q, s.U, nil)
	t, k := s.t, s.k
	for i := range t.nb {
		iv := mulMV(&k.I[i], k.v[i])
		kinetic += 0.5 * dot3(k.v[i], iv)
		c := k.worldC(i)
		potential -= t.mass[i] * (t.gravity[0]*c[0] + t.gravity[1]*c[1])
	}
	return kinetic, potential
}

// Momentum returns the linear momentum (kg·m/s) and the angular momentum
// about the world origin (kg·m²/s).
func (s *System) Momentum() (p Vec2, l float64) {
	s.t.update(s.k, s.Q, s.U, nil)
	for i := range s.t.nb {
		h := mulMV(&s.k.I[i], s.k.v[i]) // about R
		l += h[0]
		p[0] += h[1]
		p[1] += h[2]
	}
	// Moved from R to the origin: L_O = L_R + R × p.
	r := s.k.ref
	return p, l + r[0]*p[1] - r[1]*p[0]
}

// CenterOfMass returns the system's centre of mass (m).
func (s *System) CenterOfMass() Vec2 {
	s.t.update(s.k, s.Q, s.U, nil)
	var c Vec2
	var m float64
	for i := range s.t.nb {
		c[0] += s.t.mass[i] * s.k.c[i][0] // relative to R
		c[1] += s.t.mass[i] * s.k.c[i][1]
		m += s.t.mass[i]
	}
	return Vec2{s.k.ref[0] + c[0]/m, s.k.ref[1] + c[1]/m}
}

// Accelerations returns u̇ at the current state under Tau, Forces and the
// extra known forces ext, by the system's Method (no contact LCP). dst is
// reused if it is long enough. It returns an error for a state or forces
// that are not finite or do not fit the model, and one wrapping
// ErrSingularMass when the mass matrix is singular in floating point.
func (s *System) Accelerations(dst []float64, ext []PointForce) ([]float64, error) {
	if err := s.checkState(); err != nil {
		return nil, err
	}
	if err := s.checkForces("ext", ext); err != nil {
		return nil, err
	}
	if cap(dst) < s.t.n {
		dst = make([]float64, s.t.n)
	}
	dst = dst[:s.t.n]
	s.ext = append(append(s.ext[:0], s.Forces...), ext...)
	s.t.update(s.k, s.Q, s.U, s.ext)
	if err := s.dyn.prepare(s.k, s.Tau, nil, nil, nil); err != nil {
		return nil, err
	}
	s.dyn.accel(dst, nil)
	return dst, nil
}

// LCP builds the LCP of Eq. (13) at the current state, as Step would, and
// returns a copy of it. Rows are ordered as in Eq. (13): the normal
// impulses of the contacts in the LCP, then two friction impulses per
// frictional contact (along t and −t), then one sliding speed 𝒮 per
// frictional contact. Its errors are those of Accelerations.
func (s *System) LCP() (*lcp.Problem, error) {
	if err := s.build(); err != nil {
		return nil, err
	}
	p := s.prob
	r, c := s.dense.Dims()
	d := lcp.NewDense(r, c, append([]float64(nil), s.dense.RawData()...))
	return &lcp.Problem{A: d, B: append([]float64(nil), p.B...),
		Lo: append([]float64(nil), p.Lo...), Hi: append([]float64(nil), p.Hi...)}, nil
}

// checkState reports Q, U or Tau of the wrong length or with a non-finite
// entry, and Forces that name no link or are not finite.
func (s *System) checkState() error {
	n := s.t.n
	for _, v := range [...]struct {
		name string
		x    []float64
	}{{"Q", s.Q}, {"U", s.U}, {"Tau", s.Tau}} {
		if len(v.x) != n {
			return fieldErr(v.name, len(v.x), "has %d entries, the model has %d coordinates", len(v.x), n)
		}
		for i, x := range v.x {
			if !num.Finite(x) {
				return fieldErr(fmt.Sprintf("%s[%d]", v.name, i), x, "not finite (%v) at t = %g s", x, s.Time)
			}
		}
	}
	return s.checkForces("Forces", s.Forces)
}

// checkForces reports a PointForce of f that names no link or is not finite.
func (s *System) checkForces(name string, f []PointForce) error {
	for i, pf := range f {
		if pf.Link < 0 || pf.Link >= s.t.nb {
			return fieldErr(fmt.Sprintf("%s[%d].Link", name, i), pf.Link, "%d refers to no link (0…%d)", pf.Link, s.t.nb-1)
		}
		for _, x := range [...]float64{pf.Point[0], pf.Point[1], pf.F[0], pf.F[1]} {
			if !num.Finite(x) {
				return fieldErr(fmt.Sprintf("%s[%d]", name, i), pf, "Point and F must be finite, got Point = %v, F = %v", pf.Point, pf.F)
			}
		}
	}
	return nil
}

// build runs steps 1–3 of Sec. 2.3 at the current state: kinematics, the
// contact rows, the forward dynamics as a linear function of the row
// forces, and the LCP.
func (s *System) build() error {
	if err := s.checkState(); err != nil {
		return err
	}
	t, k := s.t, s.k
	s.ext = append(s.ext[:0], s.Forces...)
	t.update(k, s.Q, s.U, s.ext)
	s.rows = s.rows[:0]
	nc, nf := 0, 0
	for c, ct := range s.Model.Contacts {
		g := s.gap(c)
		if s.Settings.Margin > 0 && g > s.Settings.Margin {
			continue
		}
		n := s.lines[ct.Line].N
		p := k.rel(ct.Link, ct.Point)
		s.rows = append(s.rows, row{link: ct.Link, contact: c, r: p, d: n, w: wrench(p, n)})
		nc++
		if ct.Mu > 0 {
			tg := Vec2{n[1], -n[0]}
			s.rows = append(s.rows, row{link: ct.Link, contact: c, r: p, d: tg, w: wrench(p, tg)})
			nf++
		}
	}
	r := len(s.rows)
	s.K = growF(s.K, r*r)
	s.a0 = growF(s.a0, r)
	s.vel = growF(s.vel, r)
	s.acc = growF(s.acc, r)
	// Step 1: the accelerations as a linear function of the row forces.
	if err := s.dyn.prepare(k, s.Tau, s.rows, s.K, s.a0); err != nil {
		return err
	}
	// Step 2: the contact points' accelerations (Eq. 9): the spatial part
	// plus the velocity term d·(ω ẑ × v_p).
	for q, rw := range s.rows {
		vp := k.pointVel(rw.link, rw.r)
		w := k.v[rw.link][0]
		s.vel[q] = rw.d[0]*vp[0] + rw.d[1]*vp[1]
		s.acc[q] = s.a0[q] + w*(-rw.d[0]*vp[1]+rw.d[1]*vp[0])
	}
	// Step 3: v⁺ = v + h a (Eq. 10) in Eq. (4), in impulses x = h λ:
	//   normal  w = g_N/h + n·v⁺            ⊥ x_N ≥ 0   (4a)/h
	//   ±t      w = 𝒮 ± t·v⁺                ⊥ x_F± ≥ 0  (4b)
	//   𝒮       w = μ x_N − x_F+ − x_F−     ⊥ 𝒮 ≥ 0     (4c)
	h := s.Settings.H
	m := nc + 3*nf
	s.dense.Reset(m, m)
	s.prob.B = growF(s.prob.B, m)
	s.prob.Lo = growF(s.prob.Lo, m)
	s.prob.Hi = growF(s.prob.Hi, m)
	for i := range m {
		s.prob.Lo[i], s.prob.Hi[i] = 0, math.Inf(1)
	}
	// LCP variables of each contact-space row: a normal row carries x_N
	// (xa, sign +1); a tangent row x_F+ − x_F− (xa +1, xb −1).
	s.xa = growI(s.xa, r)
	s.xb = growI(s.xb, r)
	ni, fi := 0, 0
	for q := 0; q < r; q++ {
		rw := s.rows[q]
		s.xa[q], s.xb[q] = ni, -1
		s.prob.B[ni] = s.lcpGap(rw.contact)/h + s.vel[q] + h*s.acc[q]
		if q+1 < r && s.rows[q+1].contact == rw.contact { // its tangent row
			mu := s.Model.Contacts[rw.contact].Mu
			jp, jm, js := nc+2*fi, nc+2*fi+1, nc+2*nf+fi
			s.xa[q+1], s.xb[q+1] = jp, jm
			bt := s.vel[q+1] + h*s.acc[q+1]
			s.prob.B[jp], s.prob.B[jm], s.prob.B[js] = bt, -bt, 0
			s.dense.Set(jp, js, 1) // 𝒮 e
			s.dense.Set(jm, js, 1)
			s.dense.Set(js, ni, mu) // μ x_N − eᵀ x_F
			s.dense.Set(js, jp, -1)
			s.dense.Set(js, jm, -1)
			fi++
			q++
		}
		ni++
	}
	// The χ blocks of Eq. (11): K = J M⁻¹ Jᵀ with the signs of ±t.
	for q := range r {
		for sc := range r {
			kv := s.K[q*r+sc]
			s.dense.Add(s.xa[q], s.xa[sc], kv)
			if s.xb[sc] >= 0 {
				s.dense.Add(s.xa[q], s.xb[sc], -kv)
			}
			if s.xb[q] >= 0 {
				s.dense.Add(s.xb[q], s.xa[sc], -kv)
				if s.xb[sc] >= 0 {
					s.dense.Add(s.xb[q], s.xb[sc], kv)
				}
			}
		}
	}
	s.prob.A = &s.dense
	s.nc, s.nf = nc, nf
	return nil
}

// lcpGap returns contact c's gap as Eq. (4a) sees it (Sec. 4.1's clamp).
func (s *System) lcpGap(c int) float64 {
	g := s.gap(c)
	if s.Settings.ClampGap && g < s.Settings.GapFloor {
		return s.Settings.GapFloor
	}
	return g
}

// Step advances the state by H: the LCP of Eq. (13) (if any contact is in
// it), solved with the error measures of the kept iterate reported, then
// the integration. A solver failure returns its error after integrating
// with the best iterate it returned. A state or forces that are not
// finite or do not fit the model, and a mass matrix that is singular in
// floating point (an error wrapping ErrSingularMass, naming the column and
// the likely cause), return an error before anything changes; an RK4
// stage that meets a singular mass matrix returns it with the state
// restored to the start of the step.
func (s *System) Step() (StepStats, error) {
	var st StepStats
	if err := s.build(); err != nil {
		return st, fmt.Errorf("articulated: step at t = %g s: %w", s.Time, err)
	}
	h := s.Settings.H
	r := len(s.rows)
	s.f = growF(s.f, r)
	clear(s.f)
	for c := range s.Impulse {
		s.Impulse[c] = Vec2{}
	}
	var solveErr error
	if m := s.prob.N(); m > 0 {
		solver := s.Settings.Solver
		if solver == nil {
			if s.nf > 0 {
				solver = &s.lemke
			} else {
				solver = &s.bpp
			}
		}
		set := lcp.Settings{MaxIterations: s.Settings.MaxIterations}
		sol, err := errmeasure.Solve(&s.res, &s.prob, solver, set, s.picker)
		iters := s.res.Iterations
		if err != nil && s.Settings.Solver == nil && s.nf > 0 {
			// Lemke's lexicographic rule resolves degenerate ties in exact
			// arithmetic; in floating point it can still end on a ray when
			// rows are nearly degenerate (𝒮 rows have b = 0, resting
			// contacts g_N ≈ 0). Retry on J M⁻¹ Jᵀ + εI for the impulse
			// rows, ε growing from 1e-10 to 1e-4 of the largest diagonal:
			// a compliance for this step only, reported in Regularized.
			// The errors are measured on the true problem.
			sol, st.Regularized, err = s.solveRegularized(set)
			iters += s.res.Iterations
		}
		solveErr = err
		st.Iterations, st.Status, st.Picked, st.Errors = iters, s.res.Status, sol.Picked, sol.Totals
		if st.Status == lcp.Converged && sol.SolverStatus == lcp.BudgetExhausted {
			// The picked iterate passed errmeasure's bound, but the solver
			// ran out of its budget: never reported Converged (as the
			// stepper's islands).
			st.Status = lcp.BudgetExhausted
		}
		st.Rows = m
		if len(s.res.X) == m {
			for q, rw := range s.rows {
				x := s.res.X[s.xa[q]]
				if s.xb[q] >= 0 {
					x -= s.res.X[s.xb[q]]
					s.Impulse[rw.contact][1] = x
				} else {
					s.Impulse[rw.contact][0] = x
				}
				s.f[q] = x / h
			}
		}
	}
	st.Contacts = s.nc
	n := s.t.n
	q, u := s.Q, s.U
	switch s.Settings.Integrator {
	case SemiImplicitEuler:
		s.dyn.accel(s.udot, s.f)
		for i := range n {
			u[i] += h * s.udot[i]
			q[i] += h * u[i]
		}
	case ExplicitEuler:
		s.dyn.accel(s.udot, s.f)
		for i := range n {
			q[i] += h * u[i]
			u[i] += h * s.udot[i]
		}
	case RK4:
		if err := s.rk4(); err != nil {
			return st, fmt.Errorf("articulated: step at t = %g s: RK4 stage: %w", s.Time, err)
		}
	}
	s.Time += h
	s.t.update(s.k, s.Q, s.U, nil)
	for c := range s.Model.Contacts {
		st.MaxPenetration = math.Max(st.MaxPenetration, -s.gap(c))
	}
	if solveErr != nil {
		return st, fmt.Errorf("articulated: step at t = %g s: %w", s.Time, solveErr)
	}
	return st, nil
}

// solveRegularized retries a frictional LCP that Lemke could not solve.
func (s *System) solveRegularized(set lcp.Settings) (errmeasure.Solved, float64, error) {
	m := s.prob.N()
	var dmax float64
	for i := range s.nc + 2*s.nf {
		dmax = math.Max(dmax, s.dense.At(i, i))
	}
	r, c := s.dense.Dims()
	s.regA.Reset(r, c)
	reg := lcp.Problem{A: &s.regA, B: s.prob.B, Lo: s.prob.Lo, Hi: s.prob.Hi}
	var sol errmeasure.Solved
	var err error
	for eps := 1e-10; eps <= 1e-4; eps *= 100 {
		copy(s.regA.RawData(), s.dense.RawData())
		for i := range m {
			if i < s.nc+2*s.nf {
				s.regA.Add(i, i, eps*dmax)
			} else {
				s.regA.Add(i, i, eps/dmax) // 𝒮 rows: kg, so that ε is dimensionless
			}
		}
		sol, err = errmeasure.Solve(&s.res, &reg, &s.lemke, set, s.picker)
		if err == nil {
			s.res.W = s.prob.Residual(s.res.W, s.res.X)
			sol.Totals = errmeasure.Compute(&s.prob, s.res.X, s.res.W, nil)
			return sol, eps, nil
		}
	}
	return sol, 0, err
}

// rk4 integrates one step with the contact forces s.f held constant at the
// contact points (Sec. 4.1). The first stage reuses the LCP's dynamics. On
// an error the state is left at the start of the step.
func (s *System) rk4() error {
	n, h := s.t.n, s.Settings.H
	q0, u0 := s.rk[0], s.rk[1]
	qs, us := s.rk[2], s.rk[3]
	dq, du := s.rk[4], s.rk[5]
	kq, ku := s.rk[6], s.rk[7]
	copy(q0, s.Q)
	copy(u0, s.U)
	// Contact forces as known point forces at the contacts' material points.
	s.ext = append(s.ext[:0], s.Forces...)
	for qi, rw := range s.rows {
		if s.f[qi] != 0 {
			ct := s.Model.Contacts[rw.contact]
			s.ext = append(s.ext, PointForce{Link: ct.Link, Point: ct.Point, F: Vec2{rw.d[0] * s.f[qi], rw.d[1] * s.f[qi]}})
		}
	}
	s.dyn.accel(ku, s.f)
	copy(kq, u0)
	stage := func(c float64) error {
		for i := range n {
			qs[i] = q0[i] + c*h*kq[i]
			us[i] = u0[i] + c*h*ku[i]
		}
		s.t.update(s.k, qs, us, s.ext)
		if err := s.dyn.prepare(s.k, s.Tau, nil, nil, nil); err != nil {
			return err
		}
		copy(kq, us)
		s.dyn.accel(ku, nil)
		return nil
	}
	for i := range n {
		dq[i] = kq[i]
		du[i] = ku[i]
	}
	for _, c := range [...]float64{0.5, 0.5, 1} {
		if err := stage(c); err != nil {
			return err
		}
		w := 2.0
		if c == 1 {
			w = 1
		}
		for i := range n {
			dq[i] += w * kq[i]
			du[i] += w * ku[i]
		}
	}
	for i := range n {
		s.Q[i] = q0[i] + h/6*dq[i]
		s.U[i] = u0[i] + h/6*du[i]
	}
	return nil
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/2)
	}
	return s[:n]
}

func growI(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n, n+n/2)
	}
	return s[:n]
}
