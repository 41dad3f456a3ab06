package stepper

import (
	"errors"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"
	"sync/atomic"

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
//
// Gyroscopic bodies. The free angular velocity solves the midpoint rule of
// Euler's equations (body.Body.AngularStep), whose response to a
// constraint impulse p (world frame) is not I_w⁻¹ p but, linearized at the
// free solution, W p with
//
//	W = R J_f⁻¹ Rᵀ,   J_f = I + (h/2) ([ω_m]× I − [I ω_m]×)
//
// (body.Body.AngularStepJacobian; E. Catto, "Numerical Methods", GDC 2015).
// W is not symmetric. Update sets Gyroscopic[i] and Response[i] = W for a
// dynamic body whose gyroscopic stiffness is not negligible,
//
//	ρ = ‖I⁻¹ J_f − E‖_F = (h/2) ‖I⁻¹ ([ω_m]× I − [I ω_m]×)‖_F > GyroscopicTol,
//
// the relative change of the response (W = R (E + I⁻¹(J_f − I))⁻¹ I⁻¹ Rᵀ),
// and whose J_f has a positive definite symmetric part, so that every
// impulse does positive work, p·W p > 0, and the diagonal of A stays
// positive (a thin body tumbling many radians per step can fail that; it
// keeps I_w⁻¹). For every other body the response is InvInertia, and a
// step without a constrained gyroscopic body is assembled exactly as
// before (Assembly).
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
	// Gyroscopic reports, per body, whether its angular response to an
	// impulse is Response, not InvInertia: ρ > GyroscopicTol and J_f's
	// symmetric part positive definite (see Mass).
	Gyroscopic []bool
	// Response is, for a gyroscopic body, the world-frame angular response
	// W = R J_f⁻¹ Rᵀ ((kg·m²)⁻¹, not symmetric) of the step h of the last
	// Update; the zero matrix for the other bodies.
	Response []mgl64.Mat3
	// Rho is each dynamic body's ρ (dimensionless, see Mass); 0 for static
	// and kinematic bodies.
	Rho []float64

	// invBody[i] is body.Inv3 of invOf[i], body i's body-frame inertia
	// when it was computed (bit for bit; invSet[i] once it was).
	invBody, invOf []mgl64.Mat3
	invSet         []bool
}

// bodyInvInertia returns I⁻¹ of body i's body-frame inertia, body.Inv3
// computed again only when the inertia's bits changed.
func (m *Mass) bodyInvInertia(i int) mgl64.Mat3 {
	in := &m.Bodies[i].Inertia
	if i >= len(m.invSet) { // a Mass not sized by Update
		return body.Inv3(*in)
	}
	if !m.invSet[i] || !sameMat3(&m.invOf[i], in) {
		m.invBody[i], m.invOf[i], m.invSet[i] = body.Inv3(*in), *in, true
	}
	return m.invBody[i]
}

// sameMat3 reports whether a and b have the same bits.
func sameMat3(a, b *mgl64.Mat3) bool {
	for k := range a {
		if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
			return false
		}
	}
	return true
}

// invInertiaWorld is body.Body.InvInertiaWorld of body i, R I⁻¹ Rᵀ, with
// I⁻¹ kept (bodyInvInertia).
func (m *Mass) invInertiaWorld(i int) mgl64.Mat3 {
	b := m.Bodies[i]
	if b.Static || b.Kinematic {
		return mgl64.Mat3{}
	}
	r := b.Rotation()
	return r.Mul3(m.bodyInvInertia(i)).Mul3(r.Transpose())
}

// GyroscopicTol is the ρ (dimensionless; see Mass) above which a body's
// gyroscopic stiffness enters the constraint solve. For a rotor symmetric
// about its spin s, ρ = h|λ|/√2 with λ = s (I_s − I_t)/I_t its torque-free
// nutation rate; at ρ = 0.5 (h|λ| ≈ 0.71 rad per step) the midpoint rule's
// turn of the transverse angular velocity, 2 atan(hλ/2), is within 4 % of
// the exact hλ and the constraint rows may keep I_w⁻¹. The papers' scenes
// stay below it (largest ρ over their runs: the forklift's wheels 0.071,
// chain6 0.026, the rod 7e-4, the brick wall and pyramid 1e-11), so their
// numbers do not change; a 500 rad/s wheel at h = 1/60 s has ρ ≈ 5.7. A
// thin link tumbling at |ω| has ρ ≈ h|ω|/2 (the 10-link chain at h = 0.05 s
// reaches 1.2), but there J_f's symmetric part is indefinite and the link
// keeps I_w⁻¹ (see Mass).
const GyroscopicTol = 0.5

// Update computes InvInertia, Free, Gyroscopic and Response for bodies at
// their current state, for a step h (s) under gravity g (m/s²). It
// allocates only when the number of bodies grew.
func (m *Mass) Update(bodies []*body.Body, h float64, g mgl64.Vec3) {
	m.resize(bodies)
	m.updateRange(0, len(bodies), h, g)
}

// updateRange is Update for the bodies lo:hi of m.Bodies (resized): it
// writes only their entries, so ranges run in parallel (World.forRange).
func (m *Mass) updateRange(lo, hi int, h float64, g mgl64.Vec3) {
	for i := lo; i < hi; i++ {
		b := m.Bodies[i]
		m.Gyroscopic[i], m.Response[i], m.Rho[i] = false, mgl64.Mat3{}, 0
		switch {
		case b.Static:
			m.Free[i] = [6]float64{}
		case b.Kinematic:
			// Infinite mass: its set velocity is its free velocity, so
			// J M⁻¹ p in b carries it into its contact rows.
			m.Free[i] = [6]float64{b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2]}
		default:
			var jf mgl64.Mat3
			m.Free[i], jf = b.FreeVelocityJacobian(h, g)
			m.gyroscopic(i, jf)
		}
		m.InvInertia[i] = m.invInertiaWorld(i)
	}
}

// gyroscopic sets Rho, Gyroscopic and Response of dynamic body i from its
// midpoint Jacobian jf (body frame).
func (m *Mass) gyroscopic(i int, jf mgl64.Mat3) {
	b := m.Bodies[i]
	e := m.bodyInvInertia(i).Mul3(jf).Sub(mgl64.Ident3())
	rho := 0.0
	for _, x := range e {
		rho += x * x
	}
	rho = math.Sqrt(rho)
	if !(rho <= math.MaxFloat64) { // NaN or Inf: leave the body on I_w⁻¹
		return
	}
	m.Rho[i] = rho
	if rho <= GyroscopicTol {
		return
	}
	if !symPosDef(jf) {
		return // the linearized response would give energy to an impulse: keep I_w⁻¹
	}
	inv := body.Inv3(jf)
	for _, x := range inv {
		if !num.Finite(x) { // singular J_f: keep I_w⁻¹
			return
		}
	}
	r := b.Rotation()
	m.Gyroscopic[i] = true
	m.Response[i] = r.Mul3(inv).Mul3(r.Transpose())
}

// symPosDef reports whether the symmetric part (m + mᵀ)/2 is positive
// definite (its leading principal minors are positive, Sylvester's
// criterion).
func symPosDef(m mgl64.Mat3) bool {
	s := m.Add(m.Transpose()).Mul(0.5)
	d1 := s.At(0, 0)
	d2 := d1*s.At(1, 1) - s.At(0, 1)*s.At(1, 0)
	return d1 > 0 && d2 > 0 && s.Det() > 0
}

// UpdateInertia recomputes InvInertia at the bodies' current poses and
// keeps Free (the position projection moves bodies after the velocity
// step). Response is left as it was: it belongs to the velocity step.
func (m *Mass) UpdateInertia() {
	for i := range m.Bodies {
		m.InvInertia[i] = m.invInertiaWorld(i)
	}
}

func (m *Mass) resize(bodies []*body.Body) {
	nb := len(bodies)
	m.Bodies = bodies
	if cap(m.InvInertia) < nb {
		m.InvInertia = make([]mgl64.Mat3, nb)
		m.Free = make([][6]float64, nb)
	}
	if cap(m.Gyroscopic) < nb {
		m.Gyroscopic = make([]bool, nb)
		m.Response = make([]mgl64.Mat3, nb)
		m.Rho = make([]float64, nb)
	}
	if cap(m.invSet) < nb {
		m.invBody = make([]mgl64.Mat3, nb)
		m.invOf = make([]mgl64.Mat3, nb)
		m.invSet = make([]bool, nb)
	}
	m.invBody, m.invOf, m.invSet = m.invBody[:nb], m.invOf[:nb], m.invSet[:nb]
	m.InvInertia, m.Free = m.InvInertia[:nb], m.Free[:nb]
	m.Gyroscopic, m.Response, m.Rho = m.Gyroscopic[:nb], m.Response[:nb], m.Rho[:nb]
}

// invMassTimes sets out = M_b⁻¹ j for body bi's 6-vector j.
func (m *Mass) invMassTimes(out *[6]float64, bi int, j *[6]float64) {
	invM := m.Bodies[bi].InvMass()
	out[0], out[1], out[2] = invM*j[0], invM*j[1], invM*j[2]
	// I_w⁻¹ j_ang as mgl64.Mat3.Mul3x1 sums it (column-major w).
	w := &m.InvInertia[bi]
	out[3] = w[0]*j[3] + w[3]*j[4] + w[6]*j[5]
	out[4] = w[1]*j[3] + w[4]*j[4] + w[7]*j[5]
	out[5] = w[2]*j[3] + w[5]*j[4] + w[8]*j[5]
}

// responseTimes sets out = W_b j for body bi's 6-vector j, W_b the
// body's response to an impulse: M_b⁻¹ with the angular block Response
// for a gyroscopic body, as invMassTimes otherwise.
func (m *Mass) responseTimes(out *[6]float64, bi int, j *[6]float64) {
	if !m.gyro(bi) {
		m.invMassTimes(out, bi, j)
		return
	}
	invM := m.Bodies[bi].InvMass()
	out[0], out[1], out[2] = invM*j[0], invM*j[1], invM*j[2]
	ang := m.Response[bi].Mul3x1(mgl64.Vec3{j[3], j[4], j[5]})
	out[3], out[4], out[5] = ang[0], ang[1], ang[2]
}

// gyro reports whether body bi is a gyroscopic dynamic body.
func (m *Mass) gyro(bi int) bool {
	return bi < len(m.Gyroscopic) && m.Gyroscopic[bi]
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

// MaxGyroscopicRows is the largest number of rows whose MLCP Assemble
// builds with the gyroscopic response (a dense, non-symmetric A solved by
// LU in lcp.BPP: 300 rows cost about 18 MFlop per factorization). A step
// with more rows keeps I_w⁻¹ for its gyroscopic bodies and counts them in
// Assembly.Dropped (Stats.GyroscopicDropped).
const MaxGyroscopicRows = 300

// Assembly is the MLCP of Eqs. (2)–(4) of Enzenhöfer, Peiret, Teichmann
// and Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints" (2019), for a set of constraint rows, built by
// Assemble from Eq. (1), and the buffers it is built in, reused from call to call (a World assembles
// every step without allocating). The zero value is ready to use; an
// Assembly must not be copied after first use (A is an lcp.Sparse).
//
// Two paths. Without a constrained gyroscopic body (Mass.Gyroscopic) the
// lead matrix is the symmetric sparse A. With one, and at most
// MaxGyroscopicRows rows, Assemble uses each body's response W_b to an
// impulse (M_b⁻¹ with Mass.Response as its angular block for a gyroscopic
// body) and builds the dense, non-symmetric
//
//	D_ij = Σ_b J_i,b (W_b J_j,bᵀ) + C_ij,   v⁺ = M⁻¹p + Σᵢ (W Jᵢᵀ) xᵢ,
//
// the MLCP of the midpoint rule linearized at the free velocities: the
// joint rows holding a fast rotor see its gyroscopic stiffness within the
// step. Matrix returns the one in use.
type Assembly struct {
	// A is the lead matrix J M⁻¹ Jᵀ + C (Assemble) or J M⁻¹ Jᵀ
	// (MassMatrix), n × n for n rows, symmetric and finished: entry (i, j)
	// sums J_i,b M_b⁻¹ J_j,bᵀ over the dynamic bodies b that rows i and j
	// share, in body order, then adds C_ii. In a gyroscopic assembly
	// (Gyroscopic > 0) A is empty (0 × 0) and D holds the matrix. A
	// World's Assemble may leave A's values off the diagonal, and on a
	// new layout its pattern, to its first reader (lcp.Sparse.Defer,
	// lcp.Sparse.ResetCliquesLazy: a step solved in body space reads only
	// the diagonal); every read gets the same bits either way.
	A lcp.Sparse
	// D is the lead matrix of a gyroscopic assembly (see Assembly), n × n,
	// dense and not symmetric; unused otherwise.
	D lcp.Dense
	// Gyroscopic is the number of constrained gyroscopic bodies whose
	// response entered D and JMinv (0: the symmetric path).
	Gyroscopic int
	// Dropped is the number of constrained gyroscopic bodies left on I_w⁻¹
	// because there were more than MaxGyroscopicRows rows or Symmetric
	// was set.
	Dropped int
	// Symmetric, when set, makes Assemble keep the symmetric path with
	// every body's I_w⁻¹, gyroscopic or not (World.Step sets it to solve a
	// step again when the non-symmetric MLCP failed).
	Symmetric bool
	// B is b (m/s or rad/s), Lo and Hi the bounds l and u of x = hλ⁺
	// (N·s or N·m·s): set by Assemble, left alone by MassMatrix.
	B, Lo, Hi []float64
	// JMinv holds M_b⁻¹ J_i,bᵀ (W_b J_i,bᵀ in a gyroscopic assembly) for
	// each row i and body slot k (the body rows[i].Body[k]): v⁺ = M⁻¹p +
	// Σᵢ JMinv[i] xᵢ is the velocity after the step (Eq. 1's first row),
	// Δq = M⁻¹ Jᵀ δ the projection's move.
	JMinv [][constraint.MaxBodies][6]float64
	// KKT describes A in body space, A = J M⁻¹ Jᵀ + C (lcp.KKT; to the
	// rounding of M_b = diag(m I₃, R I Rᵀ) against A's m⁻¹ and R I⁻¹ Rᵀ):
	// set by Assemble on the symmetric path when no row touches more than
	// two dynamic bodies, one Mass block per dynamic body that a row
	// touches, numbered in body order (static and kinematic bodies have no
	// columns), Problem attaching it so that lcp.BPP may factor the
	// sparser [M Jᵀ; J −C]. The same rows and bodies give the same layout,
	// so its pattern stays from step to step while the contact set does.
	KKT lcp.KKT

	byBody [][]incidence // the rows of each body
	// byBodyJ[bi][k] is the Jacobian block of byBody[bi][k] (a copy of
	// its row's J[slot]), so that a body's pair loop reads its rows'
	// blocks in one contiguous run.
	byBodyJ [][][6]float64
	// incArena and incJ back every byBody and byBodyJ list; incCount is
	// each body's share.
	incArena []incidence
	incJ     [][6]float64
	incCount []int
	// A's refill (lcp.Sparse.Refill): the layout of the last Assemble or
	// MassMatrix that built A's pattern (per row N and its bodies, per
	// body whether it is static or kinematic), its record count, whether
	// this call refills them, and the running record index.
	layout    rowLayout
	pre       layoutCheck // checkLayout's verdict for the next Assemble
	layOK     bool
	layRecs   int
	refilling bool
	rec       int
	kktOK     bool // KKT describes A (the last call was a symmetric Assemble)
	// firstFill's cliques (each dynamic body's rows, from cliqueRows) and
	// whether this Assemble built A's pattern with them (filled).
	cliqueRows []int32
	cliques    [][]int32
	filled     bool
	// layDiag: the kept layout's records end with the diagonal's (the
	// last call was Assemble, not MassMatrix); massOnly: MassMatrix is
	// running.
	layDiag, massOnly bool
	kktCol            []int32 // the KKT body index of each body, or −1

	// par runs a per-row pass in chunks (World.forRange, set by the world
	// that owns the Assembly; nil: one call). rowJob runs rowTerms and
	// jminvJob jminvRows; s, m and rows are the call's arguments while
	// they run, diagC each row's compliance for A's diagonal.
	par              func(j *rangeJob, n int)
	rowJob, jminvJob rangeJob
	s                *Settings
	m                *Mass
	rows             []constraint.Row
	diagC            []float64
	// stop, when set (World.StepContext), is asked before each chunk of
	// Assemble: true stops it (errAssemblyStopped, see halt).
	stop func() bool
	// groups, when set with par (World.assemble), partitions the rows'
	// bodies into islands, and a refill puts A's pairs island by island
	// on par (pairsByIsland).
	groups *islandSet
	islandPairs

	// massJob runs kktMasses. kktRows says the row pass fills KKT's rows
	// (bodySpace set its masses), kktBad (atomic) that a row could not
	// be, diagRefill that it sets A's diagonal records, diagNaN (atomic)
	// that one was not finite.
	massJob             rangeJob
	kktRows, diagRefill bool
	kktBad, diagNaN     int32

	// A's values off its diagonal on demand (lcp.Sparse.Defer). lazyA
	// (set by the world that owns the Assembly) lets a symmetric fill
	// put them off; deferA says this Assemble does: massMatrix sets only
	// the diagonal's records (bodyDiag), pairRecs of massMatrix's records
	// in all, and fillA sets the rest when a read needs them, from
	// JMinv, byBodyJ and diagC, which stand until the next Assemble.
	// sumJM and sumJ are Σ‖JMinv‖² and Σ‖J‖² over the dynamic bodies'
	// incidences (the bound that vouches the put-off sums finite,
	// deferrable); deferred and filledA count the Assembles that put A
	// off and the fills that ran.
	// eagerA, set by a test, keeps the world's A filled at every
	// Assemble (the reference the deferred fill is checked against).
	// read says the last Assemble's A was read off its diagonal (fillA,
	// or probe's fill on an A filled at once), reads the last eight
	// Assembles' read, newest in bit 0: two reads in a row (a problem
	// that BPP factors as A, a solver that reads A) fill A at once, to
	// spare the diagonal's pass, until a step does not read it.
	lazyA, deferA, eagerA bool
	read                  bool
	reads                 uint8
	pairRecs              int
	sumJM, sumJ           float64
	fill, probe           lcp.DeferredFill
	deferred, filledA     int
}

// forRows runs j over the rows 0…n−1 (par, or one call).
func (a *Assembly) forRows(j *rangeJob, n int) {
	if a.par == nil {
		j.run(0, n)
		return
	}
	a.par(j, n)
}

// Matrix returns the lead matrix of the last assembly: D in a gyroscopic
// assembly, A otherwise.
func (a *Assembly) Matrix() lcp.Matrix {
	if a.Gyroscopic > 0 {
		return &a.D
	}
	return &a.A
}

// Problem returns the assembled MLCP, a view of a's buffers valid until
// the next Assemble.
func (a *Assembly) Problem() lcp.Problem {
	p := lcp.Problem{A: a.Matrix(), B: a.B, Lo: a.Lo, Hi: a.Hi}
	if a.kktOK && a.Gyroscopic == 0 {
		// A's entries are J M⁻¹ Jᵀ + C of the same rows, masses and
		// compliances as KKT's blocks (massMatrix, bodySpace).
		p.KKT, p.KKTAssembled = &a.KKT, true
	}
	return p
}

// Assemble builds the MLCP of rows: A = J M⁻¹ Jᵀ + C and, per row i,
//
//	bᵢ = Jᵢ M⁻¹ p + φᶠ·PositionTerm + j_v·(Jᵢ v) − Speedᵢ,   [Loᵢ, Hiᵢ],
//
// where C_ii and the factors come from constraint.Row.Compliance(s.H) (c =
// 0 and Φ/h for a rigid row, Eq. 1's 1/(k h²) for a spring, SPOOK's form
// with a damping time), v are the bodies' velocities at the step's start
// and the position term follows s.Stabilization (Settings.PositionTerm).
// A row with a restitution target (constraint.Row.Bounce > 0, a bouncing
// contact's normal row) then gets min(t, −Bounce) − t added to bᵢ, t its
// position term: Newton's law J v⁺ ≥ max(−t, Bounce).
// m must hold the rows' bodies after Update at the same state. A is
// visited by row sparsity: only row pairs that share a dynamic body, never
// a dense rows × 6m product. s.H, s.Stabilization and s.Baumgarte are
// read; the rest of s is not. A row that names no body of m (or more than
// constraint.MaxBodies) is an error naming the row, and a is left as it was.
func (a *Assembly) Assemble(s *Settings, m *Mass, rows []constraint.Row) error {
	same, err := a.layoutVerdict(m, rows)
	if err != nil {
		return err
	}
	if a.stopped() {
		return errAssemblyStopped
	}
	n := len(rows)
	a.B = grow(a.B, n)
	a.Lo = grow(a.Lo, n)
	a.Hi = grow(a.Hi, n)
	a.refilling = same && a.layDiag && a.A.Refill(n, a.layRecs)
	a.rec, a.filled, a.deferA = 0, false, false
	a.reads <<= 1
	if a.read {
		a.reads |= 1
	}
	a.read = false
	if !a.massMatrix(m, rows, true) || a.stopped() {
		return a.halt()
	}
	if a.Gyroscopic > 0 {
		a.layOK, a.refilling = false, false // no A this time
	}
	a.kktOK = false
	if a.kktRows = a.Gyroscopic == 0; a.kktRows {
		a.bodySpace(m, n)
	}
	if a.stopped() {
		return a.halt()
	}
	a.diagC = grow(a.diagC, n)
	if a.rowJob.run == nil {
		a.rowJob.run, a.rowJob.rows = a.rowTerms, true
	}
	// On a refill the diagonal's records, one per row after massMatrix's,
	// are set by the row pass (rowTerms), each row's its own entry.
	a.diagRefill = a.refilling && a.Gyroscopic == 0
	a.kktBad, a.diagNaN = 0, 0
	a.s, a.m, a.rows = s, m, rows
	a.forRows(&a.rowJob, n)
	a.s, a.m, a.rows = nil, nil, nil
	if a.stopped() {
		return a.halt()
	}
	a.kktOK = a.kktRows && a.kktBad == 0
	switch {
	case a.diagRefill:
		if a.diagNaN != 0 {
			a.A.AddRecordTerms(math.NaN())
		}
		a.rec += n
	case a.Gyroscopic > 0:
		for i, c := range a.diagC {
			a.D.Add(i, i, c)
		}
	default:
		for i, c := range a.diagC {
			a.putA(i, i, c)
			if a.kktRows {
				a.KKT.C[i] = c
			}
		}
	}
	if a.refilling {
		if a.rec != a.layRecs {
			panic(fmt.Sprintf("stepper: Assembly refilled %d of A's %d records", a.rec, a.layRecs))
		}
		if a.deferA && !(a.kktOK && a.deferrable()) {
			// Not to be put off: the rest now, before A's finiteness,
			// into the pattern firstFill put off.
			a.A.BuildPattern()
			a.A.AddRecordTerms(a.fillRest())
			a.deferA = false
		}
		a.A.Refilled()
		switch {
		case a.deferA:
			if a.fill.Fill == nil {
				a.fill.Fill = a.fillA
			}
			a.A.Defer(&a.fill)
			a.deferred++
		case a.lazyA && a.Gyroscopic == 0 && !a.filled:
			// A refill filled at once: the probe notes whether it is
			// read (a first fill's read is expected, not noted).
			if a.probe.Fill == nil {
				a.probe.Fill = a.probed
			}
			a.A.Defer(&a.probe)
		}
		if a.filled {
			a.layOK = true // sameLayout kept this layout
		}
	} else {
		a.A.Finish()
		a.layRecs, a.layOK = a.rec, a.Gyroscopic == 0
	}
	a.layDiag = true
	return nil
}

// errAssemblyStopped is Assemble's error when its stop said so.
var errAssemblyStopped = errors.New("stepper: assembly stopped")

// stopped asks stop, when set, whether Assemble is to stop before its
// next chunk.
func (a *Assembly) stopped() bool { return a.stop != nil && a.stop() }

// halt leaves a stopped Assemble: A is unfinished and B, Lo, Hi, JMinv
// and KKT partly written, so nothing of this call is reused: the next
// Assemble builds A's pattern from the bodies' rows again (firstFill; the
// same rows give the same pattern, its version unchanged, and the bits of
// a refill) and rebuilds the rest. The assembly is not to be read before
// the next Assemble.
func (a *Assembly) halt() error {
	a.layOK, a.refilling, a.kktOK = false, false, false
	a.s, a.m, a.rows = nil, nil, nil
	return errAssemblyStopped
}

// rowTerms sets b, the bounds and the compliance (diagC) of the rows
// lo:hi of a.rows (Assemble's per-row terms), their KKT rows (kktRow)
// when bodySpace set KKT's masses, and on a refill their records of A's
// diagonal (record rec+i for row i, after massMatrix's rec records; a
// not finite one sets diagNaN). Otherwise A's diagonal is Assemble's, in
// row order.
func (a *Assembly) rowTerms(lo, hi int) {
	s, m, rows := a.s, a.m, a.rows
	if a.kktRows {
		for i := lo; i < hi; i++ {
			if !a.kktRow(i, &rows[i]) {
				atomic.StoreInt32(&a.kktBad, 1)
			}
		}
	}
	for i := lo; i < hi; i++ {
		r := &rows[i]
		jmp, jv := 0.0, 0.0
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			bd := m.Bodies[bi]
			j, f := &r.J[k], &m.Free[bi]
			// J M⁻¹ p summed term by term in row order, as a loop over
			// the components would.
			jmp = jmp + j[0]*f[0] + j[1]*f[1] + j[2]*f[2] + j[3]*f[3] + j[4]*f[4] + j[5]*f[5]
			jv += j[0]*bd.Vel[0] + j[1]*bd.Vel[1] + j[2]*bd.Vel[2] +
				j[3]*bd.AngVel[0] + j[4]*bd.AngVel[1] + j[5]*bd.AngVel[2]
		}
		c, pf, jf := r.Compliance(s.H)
		a.diagC[i] = c
		if a.diagRefill {
			a.KKT.C[i] = c
			if a.A.SetRecordPart(a.rec+i, c) != 0 {
				atomic.StoreInt32(&a.diagNaN, 1)
			}
		}
		t := s.positionTerm(r, pf)
		a.B[i] = jmp + jf*jv - r.Speed + t
		if r.Bounce > 0 {
			// Newton's restitution: J v⁺ ≥ max(−t, Bounce).
			a.B[i] += math.Min(t, -r.Bounce) - t
		}
		a.Lo[i], a.Hi[i] = r.Lo, r.Hi
	}
}

// jminvRows sets JMinv of the rows lo:hi of a.rows.
func (a *Assembly) jminvRows(lo, hi int) {
	for i := lo; i < hi; i++ {
		a.jminvRow(a.m, a.rows, i)
	}
}

// jminvRow sets JMinv of row i of rows.
func (a *Assembly) jminvRow(m *Mass, rows []constraint.Row, i int) {
	r := &rows[i]
	for k := 0; k < r.N; k++ {
		m.invMassTimes(&a.JMinv[i][k], r.Body[k], &r.J[k])
	}
}

// sameLayout reports whether rows touch the same bodies, in the same slots,
// with the same bodies static or kinematic, as at the last Assemble or
// MassMatrix that built A's pattern (layOK), so that the records repeat (the pairs of
// massMatrix follow from the rows of each body, the diagonal's from the
// rows). When they differ it keeps the new layout for the next call. In
// the same pass it checks the rows as checkRows does: a bad row is
// checkRows' error, and a is left as it was.
func (a *Assembly) sameLayout(m *Mass, rows []constraint.Row) (bool, error) {
	nb := len(m.Bodies)
	same := a.layOK && a.layout.sameBodies(m.Bodies)
	k := 0
	for i := range rows {
		r := &rows[i]
		if err := checkRow(r, nb); err != nil {
			return false, fmt.Errorf("row %d: %w", i, err)
		}
		if same {
			k, same = a.layout.sameRow(k, r)
		}
	}
	if same && k == len(a.layout.rows) {
		return true, nil
	}
	a.layOK = false
	a.layout.record(m.Bodies, rows)
	return false, nil
}

// putA adds v to A's entry (i, j), the rec-th of the assembly's calls:
// lcp.Sparse.Add, or straight into its slot when Assemble refills A.
func (a *Assembly) putA(i, j int, v float64) {
	if a.refilling {
		a.A.SetRecord(a.rec, v)
	} else {
		a.A.Add(i, j, v)
	}
	a.rec++
}

// MassMatrix sets A to J M⁻¹ Jᵀ of rows (finished; no compliance) and
// JMinv to M⁻¹ Jᵀ: the lead matrix of the position projection,
// (J M⁻¹ Jᵀ) δ + Φ = w of Cline and Pai, "Post-Stabilization for Rigid
// Body Simulation with Contact and Constraints" (2003), Eqs. (13)–(15).
// B, Lo and Hi are left to the caller. Rows are checked as by Assemble.
func (a *Assembly) MassMatrix(m *Mass, rows []constraint.Row) error {
	same, err := a.sameLayout(m, rows)
	if err != nil {
		return err
	}
	// A without C: Assemble's records without the diagonal's (layDiag),
	// refilled while the layout stays, built from the bodies' rows
	// (firstFill) when it changes.
	n := len(rows)
	a.refilling = same && !a.layDiag && a.A.Refill(n, a.layRecs)
	a.rec, a.filled, a.massOnly = 0, false, true
	a.massMatrix(m, rows, false)
	a.massOnly = false
	if a.rec != a.layRecs {
		panic(fmt.Sprintf("stepper: Assembly refilled %d of A's %d records", a.rec, a.layRecs))
	}
	a.A.Refilled()
	// A later massMatrix outside MassMatrix (the projection's regularized
	// fallback, which adds to A's diagonal) records its calls.
	a.layOK, a.layDiag, a.refilling = true, false, false
	a.kktOK = false
	return nil
}

// bodySpace sets KKT's Mass and sizes its Body, J and C for n rows
// (kktRow fills a row, Assemble sets C): the dynamic bodies with rows get
// consecutive indices in body order, with M_b = diag(m I₃, I_w),
// I_w = R I Rᵀ made exactly symmetric, each body's block computed on its
// own (par).
func (a *Assembly) bodySpace(m *Mass, n int) {
	k := &a.KKT
	nb := len(m.Bodies)
	if cap(a.kktCol) < nb {
		a.kktCol = make([]int32, nb)
	}
	a.kktCol = a.kktCol[:nb]
	nm := int32(0)
	for bi, list := range a.byBody {
		b := m.Bodies[bi]
		a.kktCol[bi] = -1
		if len(list) == 0 || b.Static || b.Kinematic {
			continue
		}
		a.kktCol[bi] = nm
		nm++
	}
	if cap(k.Mass) < int(nm) {
		k.Mass = make([][36]float64, nm, nm+nm/4)
	}
	k.Mass = k.Mass[:nm]
	if a.massJob.run == nil {
		a.massJob.run = a.kktMasses
	}
	a.m = m
	if a.par == nil {
		a.kktMasses(0, nb)
	} else {
		a.par(&a.massJob, nb)
	}
	a.m = nil
	k.Body, k.J, k.C = grow(k.Body, n), grow(k.J, n), grow(k.C, n)
}

// kktMasses sets KKT's mass blocks of the bodies lo:hi of a.m that have
// a KKT index (bodySpace).
func (a *Assembly) kktMasses(lo, hi int) {
	for bi := lo; bi < hi; bi++ {
		col := a.kktCol[bi]
		if col < 0 {
			continue
		}
		b := a.m.Bodies[bi]
		mb := &a.KKT.Mass[col]
		*mb = [36]float64{}
		mb[0], mb[7], mb[14] = b.Mass, b.Mass, b.Mass
		iw := b.InertiaWorld()
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				mb[6*(3+r)+3+c] = 0.5 * (iw.At(r, c) + iw.At(c, r))
			}
		}
	}
}

// kktRow fills KKT's Body and J of row i, r: its dynamic bodies' KKT
// indices and blocks, a body named twice having its blocks summed. It
// reports false for a row on more than two dynamic bodies (lcp.KKT has two
// slots): no KKT.
func (a *Assembly) kktRow(i int, r *constraint.Row) bool {
	k := &a.KKT
	k.Body[i] = [2]int32{-1, -1}
	k.J[i] = [2][6]float64{}
	s := 0
	for t := 0; t < r.N; t++ {
		col := a.kktCol[r.Body[t]]
		switch {
		case col < 0:
			continue // static or kinematic: no columns
		case s > 0 && k.Body[i][0] == col, s > 1 && k.Body[i][1] == col:
			slot := 0
			if k.Body[i][0] != col {
				slot = 1
			}
			for c := range 6 {
				k.J[i][slot][c] += r.J[t][c]
			}
			continue
		case s == 2:
			return false // a third dynamic body: KKT has two slots
		}
		k.Body[i][s] = col
		k.J[i][s] = r.J[t]
		s++
	}
	return true
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
// adds C to the diagonal, and fills JMinv and byBody. With gyro, and a
// constrained gyroscopic body among at most MaxGyroscopicRows rows, it
// builds D = J W Jᵀ and JMinv = W Jᵀ instead (see Assembly) and leaves A
// empty (finished, 0 × 0). It reports false when stop stopped it, which
// it asks before the blocks of each cancelCheckBodies bodies.
func (a *Assembly) massMatrix(m *Mass, rows []constraint.Row, gyro bool) bool {
	n := len(rows)
	nb := len(m.Bodies)
	a.JMinv = grow(a.JMinv, n)
	// When the rows touch the bodies in the same slots as at the last
	// Assemble (sameLayout), its incidence lists stand, and only their
	// Jacobian blocks are new (copyJ: refreshJ, or pairsByIsland island
	// by island).
	copyJ := a.refilling && len(a.byBody) == nb
	if !copyJ {
		a.incidences(rows, nb)
	}
	a.Gyroscopic, a.Dropped = 0, 0
	if gyro {
		for bi, list := range a.byBody {
			if len(list) > 0 && m.gyro(bi) {
				a.Gyroscopic++
			}
		}
		if a.Gyroscopic > 0 && (n > MaxGyroscopicRows || a.Symmetric) {
			a.Gyroscopic, a.Dropped = 0, a.Gyroscopic
		}
	}
	if a.Gyroscopic > 0 {
		if copyJ {
			a.refreshJ(rows)
		}
		a.responseMatrix(m, rows)
		return true
	}
	// lazy: this fill will put A's values off its diagonal off (deferA
	// below, once firstFill has opened A for a refill).
	lazy := a.lazyA && a.reads&3 != 3 && gyro && !a.massOnly
	switch {
	case a.refilling:
	case gyro || a.massOnly:
		a.firstFill(m, n, !a.massOnly, lazy) // Assemble's or MassMatrix's A: its pattern, then a refill
	default:
		a.A.Reset(n)
		a.A.Grow(a.records(m))
	}
	// A symmetric fill of Assemble (the diagonal's records follow), of
	// the kept layout or a new one's first (firstFill), in a world that
	// allows it, puts A's values off its diagonal off. Step 1 of a scene
	// built at rest reads none: its pre-solve's seed sweeps run in body
	// space, its block pivoting factors in body space (Problem.KKT) and
	// the new-contact starts read A's diagonal alone (estimateNewContacts);
	// a reader that needs the rest (estimateLocally's RowDot, a dual
	// factor) fills them there, with a fill at once's bits.
	a.deferA = lazy && a.refilling
	if !a.deferA {
		// Every record is set now: the pattern a lazy fill put off (a
		// refill of its layout) is built first.
		a.A.BuildPattern()
	}
	a.sumJM, a.sumJ = 0, 0
	if a.refilling && a.groups != nil && a.par != nil && !a.deferA {
		// JMinv, the blocks and the pairs island by island (islands.go).
		return a.pairsByIsland(m, rows, copyJ)
	}
	if copyJ {
		a.refreshJ(rows)
	}
	if a.jminvJob.run == nil {
		a.jminvJob.run, a.jminvJob.rows = a.jminvRows, true
	}
	a.m, a.rows = m, rows
	a.forRows(&a.jminvJob, n)
	a.m, a.rows = nil, nil
	for bi := range a.byBody {
		if bi%cancelCheckBodies == 0 && a.stopped() {
			return false
		}
		if b := m.Bodies[bi]; b.Static || b.Kinematic { // M⁻¹ = 0: nothing in A
			continue
		}
		var z float64
		if a.deferA {
			a.rec, z = a.bodyDiag(bi, a.rec)
		} else {
			a.rec, z = a.bodyPairs(bi, rows, a.rec)
		}
		a.A.AddRecordTerms(z)
	}
	a.pairRecs = a.rec
	return true
}

// bodyDiag is bodyPairs for the records of A's diagonal alone, J_p M⁻¹
// J_qᵀ for the slots p and q of one row on dynamic body bi (the first
// records of each of its incidences' runs, the same bits): it returns the
// record after the body's last pair and the sum of the diagonal records'
// finiteness terms, and adds the body's Σ‖JMinv‖² and Σ‖J‖² over its
// incidences to sumJM and sumJ (deferrable's bound).
func (a *Assembly) bodyDiag(bi int, rec int) (int, float64) {
	list, js := a.byBody[bi], a.byBodyJ[bi]
	z, sm, sj := 0.0, 0.0, 0.0
	from, to := 0, 0
	for pi, p := range list {
		if pi > 0 && list[pi-1].row != p.row {
			from = pi
		}
		if to <= pi {
			for to = pi + 1; to < len(list) && list[to].row == p.row; to++ {
			}
		}
		jm, q := &a.JMinv[p.row][p.slot], &js[pi]
		z += a.A.SetRecordsDot6(rec, jm, js[from:to])
		rec += len(list) - from
		sm += jm[0]*jm[0] + jm[1]*jm[1] + jm[2]*jm[2] + jm[3]*jm[3] + jm[4]*jm[4] + jm[5]*jm[5]
		sj += q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3] + q[4]*q[4] + q[5]*q[5]
	}
	a.sumJM += sm
	a.sumJ += sj
	return rec, z
}

// deferrable reports whether every sum of the put-off records of A is
// finite: a record J_p M⁻¹ J_qᵀ is at most ‖M⁻¹J_pᵀ‖‖J_q‖ ≤ √(sumJM·sumJ)
// in magnitude (Cauchy–Schwarz) and an entry sums at most layRecs of
// them, so with layRecs·√(sumJM·sumJ) ≤ 1e300 every partial sum is
// (rounding adds under 1 + 10⁻⁶ to it), as Refilled would have found:
// A's finiteness is then the diagonal's. A NaN, an infinity or an
// overflow of the sums gives false (A filled at once).
func (a *Assembly) deferrable() bool {
	return float64(a.layRecs)*math.Sqrt(a.sumJM*a.sumJ) <= 1e300
}

// fillA is the deferred fill of A (lcp.DeferredFill): every record of
// massMatrix's pairs and then the diagonal's compliance, in record order,
// the bits of a refill that did not put them off.
func (a *Assembly) fillA() {
	a.fillRest()
	a.filledA++
	a.read = true
}

// probed is the fill of an A filled at once (probe): it only notes that
// A was read.
func (a *Assembly) probed() { a.read = true }

// fillRest sets every record of A (massMatrix's pairs of each dynamic
// body, in body order, then each row's compliance diagC), from JMinv,
// byBodyJ and diagC as the last Assemble left them, and returns the sum
// of their finiteness terms.
func (a *Assembly) fillRest() float64 {
	rec, z := 0, 0.0
	for bi := range a.byBody {
		if a.kktCol[bi] < 0 { // static, kinematic or without rows: no pairs
			continue
		}
		var zb float64
		rec, zb = a.refillPairs(bi, rec)
		z += zb
	}
	if rec != a.pairRecs {
		panic(fmt.Sprintf("stepper: Assembly filled %d of A's %d pair records", rec, a.pairRecs))
	}
	for i, c := range a.diagC[:len(a.B)] {
		z += a.A.SetRecordPart(rec+i, c)
	}
	return z
}

// ensureA fills A's values put off by the last Assemble (lcp.Sparse.Defer),
// if any: for a reader that needs them all, on the caller's goroutine.
func (a *Assembly) ensureA() { a.A.FillPending() }

// firstFill builds A's pattern for Assemble's records (massMatrix's pairs
// of each dynamic body's rows, then, with diag, the diagonal's
// compliance; MassMatrix's have no diagonal records) straight
// from the rows of each body (lcp.Sparse.ResetCliques, one clique per
// dynamic body) and opens A for them as a refill does, so that the first
// assembly of a layout fills A as a steady one, without recording its
// calls; the next Assemble with the same layout refills it (layOK). With
// lazy (a fill that puts A's values off its diagonal off) it builds the
// diagonal's slots alone (lcp.Sparse.ResetCliquesLazy): the rest of the
// pattern is built by the first read that needs A's values, and not at
// all on a step that reads none (step 1 of a structure at rest, whose
// solves run in body space).
func (a *Assembly) firstFill(m *Mass, n int, diag, lazy bool) {
	total := 0
	for _, list := range a.byBody {
		total += len(list)
	}
	if cap(a.cliqueRows) < total {
		a.cliqueRows = make([]int32, 0, total+total/8)
	}
	a.cliqueRows = a.cliqueRows[:0]
	if cap(a.cliques) < len(a.byBody) {
		a.cliques = make([][]int32, 0, len(a.byBody)) // one clique per body at most
	}
	a.cliques = a.cliques[:0]
	for bi, list := range a.byBody {
		if b := m.Bodies[bi]; len(list) == 0 || b.Static || b.Kinematic { // M⁻¹ = 0: nothing in A
			continue
		}
		from := len(a.cliqueRows)
		for _, p := range list {
			a.cliqueRows = append(a.cliqueRows, int32(p.row))
		}
		a.cliques = append(a.cliques, a.cliqueRows[from:])
	}
	if lazy {
		a.layRecs = a.A.ResetCliquesLazy(n, a.cliques, diag)
	} else {
		a.layRecs = a.A.ResetCliques(n, a.cliques, diag)
	}
	a.refilling, a.filled = true, true
}

// refreshJ sets byBodyJ to the Jacobian blocks of rows, whose bodies'
// incidence lists (byBody) stand.
func (a *Assembly) refreshJ(rows []constraint.Row) {
	for bi := range a.byBody {
		a.refreshBodyJ(bi, rows)
	}
}

// refreshBodyJ is refreshJ for body bi's list alone.
func (a *Assembly) refreshBodyJ(bi int, rows []constraint.Row) {
	js := a.byBodyJ[bi]
	for k, p := range a.byBody[bi] {
		js[k] = rows[p.row].J[p.slot]
	}
}

// incidences builds byBody and byBodyJ for rows over nb bodies: each
// body's (row, slot) incidences in row order and their Jacobian blocks.
// The record offsets pairsByIsland kept belong to the lists it replaces.
func (a *Assembly) incidences(rows []constraint.Row, nb int) {
	a.islandPairs.kept = false
	if cap(a.byBody) < nb {
		a.byBody = make([][]incidence, nb)
	}
	a.byBody = a.byBody[:nb]
	// Every body's list is carved from one arena, sized by a counting pass:
	// one allocation when the step's rows outgrow it, none after.
	if cap(a.incCount) < nb {
		a.incCount = make([]int, nb)
	}
	a.incCount = a.incCount[:nb]
	clear(a.incCount)
	total := 0
	for i := range rows {
		for k := 0; k < rows[i].N; k++ {
			a.incCount[rows[i].Body[k]]++
			total++
		}
	}
	a.incArena, a.incJ = grow(a.incArena, total), grow(a.incJ, total)
	if cap(a.byBodyJ) < nb {
		a.byBodyJ = make([][][6]float64, nb)
	}
	a.byBodyJ = a.byBodyJ[:nb]
	off := 0
	for i := range a.byBody {
		c := a.incCount[i]
		a.byBody[i] = a.incArena[off : off : off+c]
		a.byBodyJ[i] = a.incJ[off : off : off+c]
		off += c
	}
	for i := range rows {
		r := &rows[i]
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			a.byBody[bi] = append(a.byBody[bi], incidence{i, k})
			a.byBodyJ[bi] = append(a.byBodyJ[bi], r.J[k])
		}
	}
}

// bodyPairs puts the entries of dynamic body bi's row pairs into A,
// J_p M⁻¹ J_qᵀ for its rows p ≤ q, as the records rec, rec+1, … of the
// assembly, and returns the next record and, when refilling, the sum of
// the records' finiteness terms (lcp.Sparse.SetRecordPart). It writes
// only the entries of rows on bi, so bodies of different islands
// (islandSet) run in parallel on a refill.
func (a *Assembly) bodyPairs(bi int, rows []constraint.Row, rec int) (int, float64) {
	if a.refilling {
		return a.refillPairs(bi, rec)
	}
	list, js := a.byBody[bi], a.byBodyJ[bi]
	// list ascends by row: the pairs with q.row ≥ p.row are list[from:],
	// from the first incidence of p's row (a row naming the body twice
	// pairs its slots both ways). Sparse.Add fills both triangles: A is
	// exactly symmetric.
	from := 0
	for pi, p := range list {
		if pi > 0 && list[pi-1].row != p.row {
			from = pi
		}
		jm := &a.JMinv[p.row][p.slot]
		for k, q := range list[from:] {
			jq := &js[from+k]
			a.A.Add(p.row, q.row, jm[0]*jq[0]+jm[1]*jq[1]+jm[2]*jq[2]+jm[3]*jq[3]+jm[4]*jq[4]+jm[5]*jq[5])
			rec++
		}
	}
	return rec, 0
}

// refillPairs is bodyPairs on a refill: the records rec, rec+1, … of
// body bi's row pairs set through lcp.Sparse.SetRecordsDot6.
func (a *Assembly) refillPairs(bi int, rec int) (int, float64) {
	list, js := a.byBody[bi], a.byBodyJ[bi]
	z := 0.0
	from := 0
	for pi, p := range list {
		if pi > 0 && list[pi-1].row != p.row {
			from = pi
		}
		// J_p M⁻¹ J_qᵀ = jm · js[q], summed in component order.
		z += a.A.SetRecordsDot6(rec, &a.JMinv[p.row][p.slot], js[from:])
		rec += len(list) - from
	}
	return rec, z
}

// records returns the number of A's records Assemble makes (the calls of
// massMatrix's loop over each dynamic body's row pairs, one per row for
// the compliance), so that A's record buffers are allocated once when
// they are recorded (the projection's regularized fallback).
func (a *Assembly) records(m *Mass) int {
	total := 0
	for bi, list := range a.byBody {
		if b := m.Bodies[bi]; b.Static || b.Kinematic {
			continue
		}
		from := 0
		for pi, p := range list {
			if pi > 0 && list[pi-1].row != p.row {
				from = pi
			}
			total += len(list) - from
		}
	}
	return total + len(a.JMinv)
}

// responseMatrix sets JMinv = W Jᵀ and D = J W Jᵀ (not finished with C)
// for a gyroscopic assembly, and empties A.
func (a *Assembly) responseMatrix(m *Mass, rows []constraint.Row) {
	n := len(rows)
	a.A.Reset(0)
	a.A.Finish()
	a.D.Reset(n, n)
	for i := range rows {
		r := &rows[i]
		for k := 0; k < r.N; k++ {
			m.responseTimes(&a.JMinv[i][k], r.Body[k], &r.J[k])
		}
	}
	for bi, list := range a.byBody {
		if b := m.Bodies[bi]; b.Static || b.Kinematic {
			continue
		}
		for _, p := range list {
			jp := &rows[p.row].J[p.slot]
			for _, q := range list {
				wq := &a.JMinv[q.row][q.slot]
				// D_pq = J_p (W J_qᵀ): the velocity of row p under row q's unit impulse.
				a.D.Add(p.row, q.row, jp[0]*wq[0]+jp[1]*wq[1]+jp[2]*wq[2]+jp[3]*wq[3]+jp[4]*wq[4]+jp[5]*wq[5])
			}
		}
	}
}

// constrained reports whether body bi has a row in the last assembly.
func (a *Assembly) constrained(bi int) bool {
	return bi < len(a.byBody) && len(a.byBody[bi]) > 0
}

// freeAxis returns the unit axis about which body bi's bilateral angular
// rows of the last assembly let it turn: the normal of their angular
// Jacobian blocks when these span a plane (a hinge's two axis rows), else
// zero (no such rows, one, or three: a ball or fixed joint).
func (a *Assembly) freeAxis(bi int, rows []constraint.Row) mgl64.Vec3 {
	var g [2]mgl64.Vec3
	n := 0
	for _, p := range a.byBody[bi] {
		r := &rows[p.row]
		j := &r.J[p.slot]
		if r.Kind != constraint.Bilateral || j[0] != 0 || j[1] != 0 || j[2] != 0 {
			continue
		}
		v := mgl64.Vec3{j[3], j[4], j[5]}
		if n == 2 {
			return mgl64.Vec3{} // a third angular row: no free axis
		}
		g[n] = v
		n++
	}
	if n != 2 {
		return mgl64.Vec3{}
	}
	c := g[0].Cross(g[1])
	l := c.Len()
	if !(l > 1e-6*g[0].Len()*g[1].Len()) {
		return mgl64.Vec3{}
	}
	return c.Mul(1 / l)
}

// PositionTerm returns row r's position feedback in b (m/s or rad/s) under
// the settings' stabilization mode: φ/h in Eq. (1) of Enzenhöfer, Peiret,
// Teichmann and Kövecses, "A Unit-Consistent Error Measure for Multibody
// Systems With Unilateral Constraints" (2019), for a rigid row (SPOOK's 4Υφ/h for a row
// with a damping time, constraint.Row.Compliance). A gap (φ > 0 on a
// unilateral row) always enters as φ/h, so that a separated contact or
// limit is not sticky; penetrations and bilateral violations follow the
// mode: Regularized as above, capped at ±Settings.MaxCorrectingSpeed (none
// on a bilateral row with a drift beyond ProjectionTolerance under
// JointProjection), None and Post none (Post removes them by
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
		if r.Drift != 0 {
			// A friction row of two bodies turning together
			// (ContactInfo.SetDrift): the slip over the step, chord
			// of the arc.
			return pf*r.Phi + pf*r.Drift
		}
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
	if r.Kind == constraint.Bilateral && s.JointCorrection == JointProjection && math.Abs(r.Drift) > ProjectionTolerance {
		// A moving anchor: its error is left to the projection, φ/h
		// would do work with the drift (JointProjection).
		return pf * r.Drift
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
	return s.projectAbove() / s.H
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
// contact's Stiffness and Damping (Material), with its restitution target
// Bounce (constraint.Row.Bounce, which Assemble honours).
func (c *ContactInfo) NormalRow(r *constraint.Row, bodies []*body.Body) {
	c.DirectionRow(r, constraint.ContactNormal, bodies, c.Normal)
	r.Phi, r.Lo = c.Gap, 0
	r.Stiffness, r.Damping = c.Stiffness, c.Damping
	r.Bounce = c.Bounce
}

// FrictionRows fills r[0] and r[1] (len(r) ≥ 2) as the contact's
// box-friction rows along T1 and Normal × T1 (T2 is not read, it is that
// product), with bounds ±Mu·XN, rigid and without position term
// (regularized friction creeps); each row's constraint.Row.Drift is the
// contact's Drift along its direction.
func (c *ContactInfo) FrictionRows(r []constraint.Row, bodies []*body.Body) {
	bound := c.Mu * c.XN
	for i, t := range [2]mgl64.Vec3{c.T1, c.Normal.Cross(c.T1)} {
		c.DirectionRow(&r[i], constraint.ContactFriction, bodies, t)
		r[i].Lo, r[i].Hi = -bound, bound
		r[i].Drift = t.Dot(c.Drift)
	}
}

// SetDrift sets c.Drift for a step h (s) from the bodies' poses and
// velocities at the step's start: the drift of the contact over the step
// that comes from the turn of the body carrying the other, beyond the
// linear part h J v of its friction rows.
//
// A body's material point at offset r from its centre moves by
// h (v + ω×r) + M(ω) r over a step that turns it by exp(hω), with
//
//	M(ω) r = exp(hω) r − r − h ω×r ≈ ½h² ω×(ω×r),
//
// the centripetal term of predictDrift's anchors. Two bodies turning
// together at ω (a box riding a turntable) keep their material points at
// the contact together, and the integrator moves B's centre along the
// tangent h v while A turns the point on its arc: the slip's drift is
// M(ω) r_B − M(ω) r_A = M(ω)(x_A − x_B), the arc of B's centre about A's.
// Of two bodies turning at different rates the slower one (smaller |ω|)
// is taken as the carrier, ω = its ω, and only while they turn together,
// |ω_B − ω_A| < |ω|: beyond, the terms this leaves out (the other body's
// own turn relative to the carrier and the contact's motion over a
// rolling surface, of order h² |ω_B − ω_A| (|ω| + |ω_B − ω_A|)) are larger
// than the one kept, and what the other does relative to the carrier
// (rolls, pivots on an edge, spins, tumbles onto it) keeps the
// first-order rows, as on a fixed floor; so does a contact that slides,
// h|w| > 2|M(ω)(x_A − x_B)| for the tangential relative velocity w at the
// point at the step's start (a held one has h|w| = |M|: its velocity is
// the chord of the last arc, which lags the new tangent by M/h; two balls
// rolling side by side at the same ω slide against each other at
// |ω × (x_B − x_A)|). The world and a static body
// carry nothing, so a contact with them has no drift, nor has one whose
// drift is within the round-off of M(ω)(x_A − x_B), 2ε|x_A − x_B|: a
// body at rest keeps its bits.
//
// Why: friction rows that ask a sticking contact's velocity to match at
// the step's start move a carried body along the tangent of its arc, a
// chord: r grows by (hω)²/2 every step. A box put at 0.5 m on a table
// turning at 2 rad/s (μ = 0.5, ω²r < μg: it should ride round at 0.5 m)
// was at 0.5906 m after 5 s at h = 1/60 s, on a kinematic table and on a
// dynamic one (a motorized hinge, or a heavy disc spinning freely); with
// the drift the friction rows ask the chord of the arc, as a joint's
// anchor rows do, and it stays at 0.5 m to 3e-9. The relative drift of
// the two material points, M(ω_B) r_B − M(ω_A) r_A, is not the slip of a
// contact that moves over a body: a wheel's material point at the
// contact leaves the floor, and in a turn at Ω its drift has a tangential
// part ½h² vΩ that the rows turned into a lateral slip (the forklift's
// speed at step 900 went 2.108 → 2.138 m/s); on a box spinning on a floor
// the drift of the corners' material points, taken at ω before the step,
// kept it turning a step after friction had stopped it
// (TestFaceSpinDecaysAtCornerTorque); and with the slower body carrying
// whatever touched it, boxes tumbling onto slowly turning ones, the
// random box pile's costliest step by island took 35 iterations (27 as
// before with the condition, TestRandomBoxPile). See
// TestContactDriftCarrier and TestContactDriftCases.
func (c *ContactInfo) SetDrift(bodies []*body.Body, h float64) {
	c.Drift = mgl64.Vec3{}
	a, b := c.A, c.B
	if a < 0 || a >= len(bodies) || b < 0 || b >= len(bodies) || bodies[a].Static || bodies[b].Static {
		return // the world, a static body or an index out of range: no carrier turns
	}
	om, wr := bodies[a].AngVel, bodies[b].AngVel.Sub(bodies[a].AngVel)
	if wb := bodies[b].AngVel; wb.LenSqr() < om.LenSqr() {
		om = wb
	}
	if wr.LenSqr() >= om.LenSqr() {
		return // not turning together: M(ω) is not the leading term
	}
	// |M(ω)d| ≤ ½a²|d|(1 + a) with a = h|ω| (Rodrigues: M(ω)d =
	// (sin a/a − 1) θ×d + ((1 − cos a)/a²) θ×(θ×d), θ = hω), so for
	// a²(1 + a) ≤ 4ε the true drift is under the rounding floor 2ε|d|
	// that the computed one is held to below: skip the rotation (bricks
	// at rest turn at rounding-level ω, and rotating every contact's
	// lever cost 8.5 % of the steady 210-brick pyramid's step).
	if a2 := h * h * om.LenSqr(); a2*(1+math.Sqrt(a2)) <= 4*0x1p-52 {
		return
	}
	d := bodies[a].Pos.Sub(bodies[b].Pos)
	m := rotDrift(om, d, h)
	if m.Len() <= 2*0x1p-52*d.Len() || !num.FiniteVec(m) {
		return
	}
	// Held: a contact the last step held has its tangential relative
	// velocity w at the point at h w = M (its velocity is the chord of the
	// last arc, which lags the new tangent by M/h); a sliding one moves
	// far more, and its friction rows oppose the slip, first order.
	pa, pb := bodies[a], bodies[b]
	w := pb.Vel.Add(pb.AngVel.Cross(c.Point.Sub(pb.Pos))).Sub(pa.Vel.Add(pa.AngVel.Cross(c.Point.Sub(pa.Pos))))
	if w = w.Sub(c.Normal.Mul(w.Dot(c.Normal))); h*w.Len() > 2*m.Len() {
		return
	}
	c.Drift = m
}

// rotDrift returns M(ω) r = exp(hω) r − r − h ω×r (SetDrift).
func rotDrift(om, r mgl64.Vec3, h float64) mgl64.Vec3 {
	th := om.Mul(h)
	a := th.Len()
	if a == 0 {
		return mgl64.Vec3{}
	}
	return mgl64.QuatRotate(a, th.Mul(1/a)).Rotate(r).Sub(r).Sub(th.Cross(r))
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

// FillRows writes the contact's rows into dst in the order of its Layout,
// the normal row, then the two friction rows when Mu > 0, then the rolling
// row when Roll > 0, and returns how many it wrote (Layout().N, 1 to 4;
// dst must have room). From the ContactInfo of World.Contacts it rebuilds
// the rows of the step at [Row, Row+Rows) of World.LastProblem.
func (c *ContactInfo) FillRows(dst []constraint.Row, bodies []*body.Body) int {
	c.NormalRow(&dst[0], bodies)
	return c.fillTangentRows(dst, bodies)
}

// fillTangentRows is FillRows after the normal row dst[0]: the friction and
// rolling rows at their Layout offsets. It returns Layout().N.
func (c *ContactInfo) fillTangentRows(dst []constraint.Row, bodies []*body.Body) int {
	l := c.Layout()
	if l.Friction > 0 {
		c.FrictionRows(dst[l.Friction:l.Friction+2], bodies)
	}
	if l.Rolling > 0 {
		c.RollingRow(&dst[l.Rolling])
	}
	return l.N
}
