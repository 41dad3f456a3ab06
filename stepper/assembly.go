package stepper

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// This file is the one home of the velocity-level equations of a step,
// Eq. (1) of Enzenhöfer, Peiret, Teichmann and Kövecses, "A Unit-Consistent
// Error Measure for Multibody Systems With Unilateral Constraints" (2019),
//
//	[ M  −Jᵀ ] [ v⁺  ]   [ −p  ]   [ 0 ]
//	[ J   C  ] [ hλ⁺ ] + [ Φ/h ] = [ w ],
//
// and of the MLCP that eliminating v⁺ leaves, their Eqs. (2)–(4):
// A x + b = w, l ≤ x ≤ u complementary to w, with
//
//	A = J M⁻¹ Jᵀ + C,   b = J M⁻¹ p + Φ/h,   x = hλ⁺.
//
// Mass computes M⁻¹ and the free velocities M⁻¹p, the ContactInfo row
// methods build a contact's rows of J, and Assembly builds A, b and the
// bounds. World.Step builds every step's problem with them and the position
// projection its J M⁻¹ Jᵀ; package bpmd rebuilds recorded problems with
// them, so that a rebuilt problem is the stepper's bit for bit.

// Mass holds, for a set of bodies at their current poses, the blocks of
// M⁻¹ (M = diag(m I₃, I_world) per body, velocities ordered [v ω] in world
// axes) and the free velocities M⁻¹p, p = M v + h f_a: the velocity each
// body would have after a step h without constraints. M and p are those of
// Eq. (1) of Enzenhöfer, Peiret, Teichmann and Kövecses, "A Unit-Consistent
// Error Measure for Multibody Systems With Unilateral Constraints" (2019). The zero value is
// ready for Update; its slices are reused.
type Mass struct {
	// Bodies are the bodies of the last Update, in the order rows index
	// them (constraint.Row.Body).
	Bodies []*body.Body
	// InvInertia is each body's world inverse inertia I_w⁻¹ = R I⁻¹ Rᵀ
	// ((kg·m²)⁻¹); the zero matrix for static and kinematic bodies (infinite
	// mass), all NaN for a body whose inertia is singular
	// (body.Body.InvInertiaWorld).
	InvInertia []mgl64.Mat3
	// Free is each body's free velocity M⁻¹p, [v ω] (m/s, rad/s): v + h
	// (f/m + g) and Euler's equations under the applied torque by the
	// implicit midpoint rule (body.Body.FreeVelocity); a kinematic body's
	// set velocity, which b carries into its rows; zero for static bodies.
	Free [][6]float64
}

// Update computes InvInertia and Free for bodies at their current state,
// for a step h (s) under gravity g (m/s²). It allocates only when the
// number of bodies grew.
func (m *Mass) Update(bodies []*body.Body, h float64, g mgl64.Vec3) {
	m.resize(bodies)
	for i, b := range bodies {
		switch {
		case b.Static:
			m.Free[i] = [6]float64{}
		case b.Kinematic:
			// Infinite mass: its set velocity is its free velocity, so
			// J M⁻¹ p in b carries it into its contact rows.
			m.Free[i] = [6]float64{b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2]}
		default:
			m.Free[i] = b.FreeVelocity(h, g)
		}
	}
	m.UpdateInertia()
}

// UpdateInertia recomputes InvInertia at the bodies' current poses and
// keeps Free (the position projection moves bodies after the velocity
// step).
func (m *Mass) UpdateInertia() {
	for i, b := range m.Bodies {
		m.InvInertia[i] = b.InvInertiaWorld()
	}
}

func (m *Mass) resize(bodies []*body.Body) {
	nb := len(bodies)
	m.Bodies = bodies
	if cap(m.InvInertia) < nb {
		m.InvInertia = make([]mgl64.Mat3, nb)
		m.Free = make([][6]float64, nb)
	}
	m.InvInertia, m.Free = m.InvInertia[:nb], m.Free[:nb]
}

// invMassTimes sets out = M_b⁻¹ j for body bi's 6-vector j.
func (m *Mass) invMassTimes(out *[6]float64, bi int, j *[6]float64) {
	invM := m.Bodies[bi].InvMass()
	out[0], out[1], out[2] = invM*j[0], invM*j[1], invM*j[2]
	ang := m.InvInertia[bi].Mul3x1(mgl64.Vec3{j[3], j[4], j[5]})
	out[3], out[4], out[5] = ang[0], ang[1], ang[2]
}

// rowDiag returns J M⁻¹ Jᵀ of one row (a_ii without compliance) and
// J M⁻¹ p (the row's velocity under the free velocities).
func (m *Mass) rowDiag(r *constraint.Row) (aii, jvfree float64) {
	for k := 0; k < r.N; k++ {
		bi := r.Body[k]
		var jm [6]float64
		m.invMassTimes(&jm, bi, &r.J[k])
		for c := 0; c < 6; c++ {
			aii += jm[c] * r.J[k][c]
			jvfree += r.J[k][c] * m.Free[bi][c]
		}
	}
	return aii, jvfree
}

// incidence is one (row, slot) entry of a body's row list.
type incidence struct{ row, slot int }

// Assembly is the MLCP of Eqs. (2)–(4) of Enzenhöfer, Peiret, Teichmann
// and Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints" (2019), for a set of constraint rows, built by
// Assemble from Eq. (1), and the buffers it is built in, reused from call to call (a World assembles
// every step without allocating). The zero value is ready to use; an
// Assembly must not be copied after first use (A is an lcp.Sparse).
type Assembly struct {
	// A is the lead matrix J M⁻¹ Jᵀ + C (Assemble) or J M⁻¹ Jᵀ
	// (MassMatrix), n × n for n rows, symmetric and finished: entry (i, j)
	// sums J_i,b M_b⁻¹ J_j,bᵀ over the dynamic bodies b that rows i and j
	// share, in body order, then adds C_ii.
	A lcp.Sparse
	// B is b (m/s or rad/s), Lo and Hi the bounds l and u of x = hλ⁺
	// (N·s or N·m·s): set by Assemble, left alone by MassMatrix.
	B, Lo, Hi []float64
	// JMinv holds M_b⁻¹ J_i,bᵀ for each row i and body slot k (the body
	// rows[i].Body[k]): v⁺ = M⁻¹p + Σᵢ JMinv[i] xᵢ is the velocity after
	// the step (Eq. 1's first row), Δq = M⁻¹ Jᵀ δ the projection's move.
	JMinv [][constraint.MaxBodies][6]float64

	byBody [][]incidence // the rows of each body
}

// Problem returns the assembled MLCP, a view of a's buffers valid until
// the next Assemble.
func (a *Assembly) Problem() lcp.Problem {
	return lcp.Problem{A: &a.A, B: a.B, Lo: a.Lo, Hi: a.Hi}
}

// Assemble builds the MLCP of rows: A = J M⁻¹ Jᵀ + C and, per row i,
//
//	bᵢ = Jᵢ M⁻¹ p + φᶠ·PositionTerm + j_v·(Jᵢ v) − Speedᵢ,   [Loᵢ, Hiᵢ],
//
// where C_ii and the factors come from constraint.Row.Compliance(s.H) (c =
// 0 and Φ/h for a rigid row, Eq. 1's 1/(k h²) for a spring, SPOOK's form
// with a damping time), v are the bodies' velocities at the step's start
// and the position term follows s.Stabilization (Settings.PositionTerm).
// m must hold the rows' bodies after Update at the same state. A is
// visited by row sparsity: only row pairs that share a dynamic body, never
// a dense rows × 6m product. s.H, s.Stabilization and s.Baumgarte are
// read; the rest of s is not. A row that names no body of m (or more than
// constraint.MaxBodies) is an error naming the row, and a is left as it was.
func (a *Assembly) Assemble(s *Settings, m *Mass, rows []constraint.Row) error {
	if err := checkRows(rows, len(m.Bodies)); err != nil {
		return err
	}
	n := len(rows)
	a.B = grow(a.B, n)
	a.Lo = grow(a.Lo, n)
	a.Hi = grow(a.Hi, n)
	a.massMatrix(m, rows)
	for i := range rows {
		r := &rows[i]
		jmp, jv := 0.0, 0.0
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			bd := m.Bodies[bi]
			for c := 0; c < 6; c++ {
				jmp += r.J[k][c] * m.Free[bi][c]
			}
			jv += r.J[k][0]*bd.Vel[0] + r.J[k][1]*bd.Vel[1] + r.J[k][2]*bd.Vel[2] +
				r.J[k][3]*bd.AngVel[0] + r.J[k][4]*bd.AngVel[1] + r.J[k][5]*bd.AngVel[2]
		}
		c, pf, jf := r.Compliance(s.H)
		a.A.Add(i, i, c)
		a.B[i] = jmp + jf*jv - r.Speed + s.positionTerm(r, pf)
		a.Lo[i], a.Hi[i] = r.Lo, r.Hi
	}
	a.A.Finish()
	return nil
}

// MassMatrix sets A to J M⁻¹ Jᵀ of rows (finished; no compliance) and
// JMinv to M⁻¹ Jᵀ: the lead matrix of the position projection,
// (J M⁻¹ Jᵀ) δ + Φ = w of Cline and Pai, "Post-Stabilization for Rigid
// Body Simulation with Contact and Constraints" (2003), Eqs. (13)–(15).
// B, Lo and Hi are left to the caller. Rows are checked as by Assemble.
func (a *Assembly) MassMatrix(m *Mass, rows []constraint.Row) error {
	if err := checkRows(rows, len(m.Bodies)); err != nil {
		return err
	}
	a.massMatrix(m, rows)
	a.A.Finish()
	return nil
}

// checkRows reports the first row that touches more than MaxBodies bodies
// or names a body outside [0, nb).
func checkRows(rows []constraint.Row, nb int) error {
	for i := range rows {
		if err := checkRow(&rows[i], nb); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil
}

func checkRow(r *constraint.Row, nb int) error {
	if r.N < 0 || r.N > constraint.MaxBodies {
		return fmt.Errorf("%v row: N = %d, want 0 to %d bodies", r.Kind, r.N, constraint.MaxBodies)
	}
	for k := 0; k < r.N; k++ {
		if b := r.Body[k]; b < 0 || b >= nb {
			return fmt.Errorf("%v row: Body[%d] = %d, want the index of one of the %d bodies", r.Kind, k, b, nb)
		}
	}
	return nil
}

// massMatrix resets A to J M⁻¹ Jᵀ without finishing it, so that Assemble
// adds C to the diagonal, and fills JMinv and byBody.
func (a *Assembly) massMatrix(m *Mass, rows []constraint.Row) {
	n := len(rows)
	nb := len(m.Bodies)
	if cap(a.byBody) < nb {
		a.byBody = make([][]incidence, nb)
	}
	a.byBody = a.byBody[:nb]
	for i := range a.byBody {
		a.byBody[i] = a.byBody[i][:0]
	}
	if cap(a.JMinv) < n {
		a.JMinv = make([][constraint.MaxBodies][6]float64, n)
	}
	a.JMinv = a.JMinv[:n]
	a.A.Reset(n)
	for i := range rows {
		r := &rows[i]
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			m.invMassTimes(&a.JMinv[i][k], bi, &r.J[k])
			a.byBody[bi] = append(a.byBody[bi], incidence{i, k})
		}
	}
	for bi, list := range a.byBody {
		if b := m.Bodies[bi]; b.Static || b.Kinematic { // M⁻¹ = 0: nothing in A
			continue
		}
		for _, p := range list {
			jm := &a.JMinv[p.row][p.slot]
			for _, q := range list {
				if q.row < p.row {
					continue // Sparse.Add fills both triangles: A is exactly symmetric
				}
				jq := &rows[q.row].J[q.slot]
				a.A.Add(p.row, q.row, jm[0]*jq[0]+jm[1]*jq[1]+jm[2]*jq[2]+jm[3]*jq[3]+jm[4]*jq[4]+jm[5]*jq[5])
			}
		}
	}
}

// constrained reports whether body bi has a row in the last assembly.
func (a *Assembly) constrained(bi int) bool {
	return bi < len(a.byBody) && len(a.byBody[bi]) > 0
}

// PositionTerm returns row r's position feedback in b (m/s or rad/s) under
// the settings' stabilization mode: φ/h in Eq. (1) of Enzenhöfer, Peiret,
// Teichmann and Kövecses, "A Unit-Consistent Error Measure for Multibody
// Systems With Unilateral Constraints" (2019), for a rigid row (SPOOK's 4Υφ/h for a row
// with a damping time, constraint.Row.Compliance). A gap (φ > 0 on a
// unilateral row) always enters as φ/h, so that a separated contact or
// limit is not sticky; penetrations and bilateral violations follow the
// mode: Regularized as above, capped at ±Settings.MaxCorrectingSpeed, None and Post none (Post removes them by
// projection after the step), Baumgarte β φ with β = Baumgarte. A
// compliant row (finite stiffness) is a spring, not a stabilization, and
// keeps its Eq. (1) term in every mode; a velocity-level row (motor,
// friction, coupling) has φ = 0.
func (s *Settings) PositionTerm(r *constraint.Row) float64 {
	_, pf, _ := r.Compliance(s.H)
	return s.positionTerm(r, pf)
}

// positionTerm is PositionTerm with the row's φ factor pf from Compliance.
func (s *Settings) positionTerm(r *constraint.Row, pf float64) float64 {
	if !r.Kind.Positional() {
		return pf * r.Phi
	}
	if r.Kind != constraint.Bilateral && r.Phi > 0 {
		return r.Phi / s.H
	}
	if compliant(r) {
		return pf * r.Phi
	}
	switch s.Stabilization {
	case None, Post:
		return 0
	case Baumgarte:
		return s.Baumgarte * r.Phi
	}
	// The cap is on the feedback of the error φ; the drift is the
	// motion's own curvature over the step (constraint.Row.Drift), which
	// the velocity must follow whatever its size.
	v, vmax := pf*r.Phi, s.correctingSpeed()
	if v < -vmax {
		v = -vmax
	} else if v > vmax && r.Kind == constraint.Bilateral {
		v = vmax
	}
	return v + pf*r.Drift
}

// CorrectingSpeed returns the cap v_max (m/s or rad/s) on the Regularized
// mode's position feedback that s resolves to: MaxCorrectingSpeed, or
// ProjectAbove/h when it is 0 (+Inf: no cap). Package bpmd records it so
// that a rebuilt step has the same b.
func (s *Settings) CorrectingSpeed() float64 { return s.correctingSpeed() }

// correctingSpeed is CorrectingSpeed.
func (s *Settings) correctingSpeed() float64 {
	if s.MaxCorrectingSpeed > 0 {
		return s.MaxCorrectingSpeed
	}
	above := s.ProjectAbove
	if above == 0 {
		above = DefaultProjectAbove
	}
	return above / s.H
}

// DirectionRow fills r as a row of kind k along the unit direction d at
// the contact point c.Point between bodies c.A (pushed along −d) and c.B
// (along +d), constraint.Row.SetPoint with the centres of mass of bodies
// (indexed by c.A and c.B; constraint.World is fixed): J v is the velocity
// of B's material point relative to A's along d. r has no bounds and no
// compliance.
func (c *ContactInfo) DirectionRow(r *constraint.Row, k constraint.Kind, bodies []*body.Body, d mgl64.Vec3) {
	var ca, cb mgl64.Vec3
	if c.A != constraint.World {
		ca = bodies[c.A].Pos
	}
	if c.B != constraint.World {
		cb = bodies[c.B].Pos
	}
	r.SetPoint(k, c.A, ca, c.B, cb, c.Point, d)
}

// NormalRow fills r as the contact's normal row: J along Normal, φ = Gap,
// x ∈ [0, ∞) (w = J v⁺ + … ≥ 0 keeps the bodies apart), compliant with the
// contact's Stiffness and Damping (Material).
func (c *ContactInfo) NormalRow(r *constraint.Row, bodies []*body.Body) {
	c.DirectionRow(r, constraint.ContactNormal, bodies, c.Normal)
	r.Phi, r.Lo = c.Gap, 0
	r.Stiffness, r.Damping = c.Stiffness, c.Damping
}

// FrictionRows fills r[0] and r[1] (len(r) ≥ 2) as the contact's
// box-friction rows along T1 and Normal × T1 (T2 is not read, it is that
// product), with bounds ±Mu·XN, rigid and without position term
// (regularized friction creeps).
func (c *ContactInfo) FrictionRows(r []constraint.Row, bodies []*body.Body) {
	bound := c.Mu * c.XN
	for i, t := range [2]mgl64.Vec3{c.T1, c.Normal.Cross(c.T1)} {
		c.DirectionRow(&r[i], constraint.ContactFriction, bodies, t)
		r[i].Lo, r[i].Hi = -bound, bound
	}
}

// RollingRow fills r as the contact's rolling-resistance row about the
// unit axis RollAxis = u: J = [0, −u] on A, [0, u] on B (the relative
// angular velocity about u), bounds ±RollBound.
func (c *ContactInfo) RollingRow(r *constraint.Row) {
	u := c.RollAxis
	r.Reset(constraint.RollingFriction)
	r.AddBody(c.A, mgl64.Vec3{}, u.Mul(-1))
	r.AddBody(c.B, mgl64.Vec3{}, u)
	r.Lo, r.Hi = -c.RollBound, c.RollBound
}

// FillRows writes the contact's rows into dst in the stepper's order, the
// normal row, then the two friction rows when Mu > 0, then the rolling row
// when Roll > 0, and returns how many it wrote (1 to 4; dst must have
// room). From the ContactInfo of World.Contacts it rebuilds the rows of
// the step at [Row, Row+Rows) of World.LastProblem.
func (c *ContactInfo) FillRows(dst []constraint.Row, bodies []*body.Body) int {
	c.NormalRow(&dst[0], bodies)
	n := 1
	if c.Mu > 0 {
		c.FrictionRows(dst[1:3], bodies)
		n = 3
	}
	if c.Roll > 0 {
		c.RollingRow(&dst[n])
		n++
	}
	return n
}
