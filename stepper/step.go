package stepper

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// Stats are one step's diagnostics: the step-statistics columns of
// shared/DESIGN.md, plus the error totals of the solver's last iterate.
type Stats struct {
	Step       int
	Time       float64 // s, at the end of the step
	Rows       int
	Iterations int
	BudgetHit  bool
	Status     lcp.Status
	Picked     int               // iteration whose iterate was used
	Errors     errmeasure.Totals // of the used iterate (J for Energy)
	LastErrors errmeasure.Totals // of the solver's last iterate
	Kinetic    float64           // J, after the step
	Potential  float64           // J, after the step
	// MaxViolation is the largest |φ| of a bilateral row or penetration −φ
	// of a unilateral row, after the step (m or rad).
	MaxViolation float64
	// Contacts is the number of contact points this step.
	Contacts int
}

// incidence is one (row, slot) entry of a body's row list.
type incidence struct{ row, slot int }

// workspace holds everything Step reuses across steps.
type workspace struct {
	rows   []constraint.Row
	jminv  [][constraint.MaxBodies][6]float64
	byBody [][]incidence
	a      lcp.Sparse
	b      []float64
	lo, hi []float64
	vfree  [][6]float64
	res    lcp.Result
	prob   lcp.Problem
	pprob  lcp.Problem
	picker *errmeasure.Picker
	start  []lcp.State
	ctx    constraint.Context
	nj     int // joint rows this step; contact rows follow them
	// jointStart holds the joint rows' final index sets of the last step,
	// valid for warm start while the joint row count stays the same.
	jointStart []lcp.State
	// contacts
	points []point
	poses  []contact.Pose
	boxes  []contact.AABB
	pairs  [][2]int
	pts    []contact.Point
	sap    contact.SweepAndPrune
	skip   func(i, j int) bool
	cache  map[contactKey]cached // by key: last step's impulses and states
	// the new contacts' pre-solve (estimateNewContacts)
	estSolver *lcp.BPP // when Settings.Solver is not a BPP
	eprob     lcp.Problem
	eres      lcp.Result
	elo, ehi  []float64
	seedPGS   lcp.PGS    // the pre-solve's start index sets (seedNewNormals)
	seedRes   lcp.Result // its iterate
	next      map[contactKey]cached
	// post-stabilization
	pa     lcp.Dense
	pb     []float64
	plo    []float64
	phi    []float64
	prow   []int
	pres   lcp.Result
	pstart []lcp.State
	dq     [][6]float64
	invI   []mgl64.Mat3
}

// Step advances the world by one time step h (Eq. 1): it fills the
// constraint rows, assembles A = J M⁻¹ Jᵀ + C and b = J M⁻¹ p + Φ/h by row
// sparsity, solves the MLCP under the budget keeping the picked iterate,
// applies v⁺ = M⁻¹(p + Jᵀx), integrates poses, and (in Post mode) projects
// positions. A step in steady state allocates nothing.
func (w *World) Step() (Stats, error) {
	s := &w.Settings
	if err := s.Validate(); err != nil {
		return Stats{}, err
	}
	ws := &w.ws
	for i, c := range w.Controllers {
		if err := c.Control(w); err != nil {
			return Stats{}, fmt.Errorf("controller %d: %w", i, err)
		}
	}
	w.freeVelocities()
	w.detectContacts()
	if err := w.buildRows(); err != nil {
		return Stats{}, err
	}
	w.assemble()
	w.estimateNewContacts()
	st, err := w.solve()
	if err != nil && st.Status != lcp.BudgetExhausted && len(ws.res.X) != len(ws.rows) {
		return st, err
	}
	w.integrate()
	w.storeImpulses(ws.nj)
	w.advanceContactGaps()
	if s.Stabilization == Post {
		if perr := w.postStabilize(); perr != nil && err == nil {
			err = perr
		}
	}
	w.time += s.H
	w.steps++
	st.Step = w.steps
	st.Time = w.time
	st.Contacts = len(ws.points)
	st.Kinetic, st.Potential = w.Energy()
	st.MaxViolation = w.maxViolation()
	return st, err
}

// freeVelocities computes each body's world inverse inertia and its free
// velocity M⁻¹ p = v + h M⁻¹ f (gravity and applied forces), the velocity
// it would have after the step without constraints.
func (w *World) freeVelocities() {
	ws := &w.ws
	s := &w.Settings
	h := s.H
	nb := len(w.Bodies)
	if cap(ws.invI) < nb {
		ws.invI = make([]mgl64.Mat3, nb)
		ws.vfree = make([][6]float64, nb)
	}
	ws.invI, ws.vfree = ws.invI[:nb], ws.vfree[:nb]
	for i, b := range w.Bodies {
		if b.Static {
			ws.invI[i] = mgl64.Mat3{}
			ws.vfree[i] = [6]float64{}
			continue
		}
		ws.invI[i] = b.InvInertiaWorld()
		im := b.InvMass()
		f := b.Force.Mul(im).Add(s.Gravity)
		wv := ws.invI[i].Mul3x1(b.Torque)
		ws.vfree[i] = [6]float64{
			b.Vel[0] + h*f[0], b.Vel[1] + h*f[1], b.Vel[2] + h*f[2],
			b.AngVel[0] + h*wv[0], b.AngVel[1] + h*wv[1], b.AngVel[2] + h*wv[2],
		}
	}
}

// buildRows asks every constraint for its rows (the ODE contract), then
// appends the contact rows, and sets the warm-start index sets ws.start:
// joint rows from the last step while their count is unchanged, contact
// rows from the last step's states of the same contact keys.
func (w *World) buildRows() error {
	ws := &w.ws
	nj := 0
	for _, c := range w.Joints {
		nj += c.Dim()
	}
	n := nj + w.contactRowCount()
	if cap(ws.rows) < n {
		ws.rows = make([]constraint.Row, n)
	}
	ws.rows = ws.rows[:n]
	if cap(ws.start) < n {
		ws.start = make([]lcp.State, n)
	}
	ws.start = ws.start[:n]
	if err := w.fillJointRows(nj); err != nil {
		return err
	}
	if len(ws.jointStart) == nj {
		copy(ws.start, ws.jointStart)
	} else {
		for i := 0; i < nj; i++ {
			ws.start[i] = lcp.AtLower // the solver maps it onto what the bounds allow
		}
	}
	w.fillContactRows(ws.rows[nj:], ws.start[nj:])
	return nil
}

// fillJointRows fills ws.rows[:nj] from the joints at the current poses.
func (w *World) fillJointRows(nj int) error {
	ws := &w.ws
	ws.nj = nj
	ws.ctx = constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	k := 0
	for i, c := range w.Joints {
		d := c.Dim()
		if err := c.Fill(ws.rows[k:k+d], &ws.ctx); err != nil {
			return fmt.Errorf("constraint %d: %w", i, err)
		}
		k += d
	}
	return nil
}

// advanceContactGaps moves each contact row's gap to the new poses to
// first order, φ⁺ = φ + h J v⁺ (the contact geometry is recomputed at the
// next step's detection; this serves post-stabilization and the step's
// MaxViolation).
func (w *World) advanceContactGaps() {
	ws := &w.ws
	h := w.Settings.H
	for i := range ws.points {
		r := &ws.rows[ws.nj+ws.points[i].row]
		r.Phi += h * r.Velocity(w.Bodies)
	}
}

// invMassTimes sets out = M_b⁻¹ j for one body's 6-vector j.
func invMassTimes(out *[6]float64, invM float64, invI *mgl64.Mat3, j *[6]float64) {
	out[0], out[1], out[2] = invM*j[0], invM*j[1], invM*j[2]
	ang := invI.Mul3x1(mgl64.Vec3{j[3], j[4], j[5]})
	out[3], out[4], out[5] = ang[0], ang[1], ang[2]
}

// assemble builds A, b and the bounds. A_ij sums J_i,b M_b⁻¹ J_j,bᵀ over the
// bodies b the two rows share: only row pairs sharing a body are visited.
func (w *World) assemble() {
	ws := &w.ws
	s := &w.Settings
	h := s.H
	n := len(ws.rows)
	nb := len(w.Bodies)
	if cap(ws.byBody) < nb {
		ws.byBody = make([][]incidence, nb)
	}
	ws.byBody = ws.byBody[:nb]
	for i := range ws.byBody {
		ws.byBody[i] = ws.byBody[i][:0]
	}
	if cap(ws.jminv) < n {
		ws.jminv = make([][constraint.MaxBodies][6]float64, n)
	}
	ws.jminv = ws.jminv[:n]
	ws.b = grow(ws.b, n)
	ws.lo = grow(ws.lo, n)
	ws.hi = grow(ws.hi, n)
	ws.a.Reset(n)
	for i := range ws.rows {
		r := &ws.rows[i]
		jmp, jv := 0.0, 0.0
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			bd := w.Bodies[bi]
			invMassTimes(&ws.jminv[i][k], bd.InvMass(), &ws.invI[bi], &r.J[k])
			ws.byBody[bi] = append(ws.byBody[bi], incidence{i, k})
			for c := 0; c < 6; c++ {
				jmp += r.J[k][c] * ws.vfree[bi][c]
			}
			jv += r.J[k][0]*bd.Vel[0] + r.J[k][1]*bd.Vel[1] + r.J[k][2]*bd.Vel[2] +
				r.J[k][3]*bd.AngVel[0] + r.J[k][4]*bd.AngVel[1] + r.J[k][5]*bd.AngVel[2]
		}
		c, pf, jf := r.Compliance(h)
		ws.a.Add(i, i, c)
		ws.b[i] = jmp + jf*jv - r.Speed + w.positionTerm(r, pf)
		ws.lo[i], ws.hi[i] = r.Lo, r.Hi
	}
	for bi := range ws.byBody {
		list := ws.byBody[bi]
		if w.Bodies[bi].Static {
			continue
		}
		for _, p := range list {
			jm := &ws.jminv[p.row][p.slot]
			for _, q := range list {
				if q.row < p.row {
					continue // Sparse.Add fills both triangles: A is exactly symmetric
				}
				jq := &ws.rows[q.row].J[q.slot]
				ws.a.Add(p.row, q.row, jm[0]*jq[0]+jm[1]*jq[1]+jm[2]*jq[2]+jm[3]*jq[3]+jm[4]*jq[4]+jm[5]*jq[5])
			}
		}
	}
	ws.a.Finish()
}

// positionTerm returns the row's position feedback in b for the mode: a
// gap (φ > 0 on a unilateral row) always enters as φ/h, so a separated
// contact or limit is not sticky; penetrations and bilateral violations
// follow the stabilization mode. A compliant row (stiffness set) is a
// spring, not a stabilization, and keeps its Eq. 1 / SPOOK term.
func (w *World) positionTerm(r *constraint.Row, pf float64) float64 {
	if !r.Kind.Positional() {
		return pf * r.Phi
	}
	unilateral := r.Kind != constraint.Bilateral
	if unilateral && r.Phi > 0 {
		return r.Phi / w.Settings.H
	}
	if r.Stiffness != 0 && !math.IsInf(r.Stiffness, 1) {
		return pf * r.Phi
	}
	switch w.Settings.Stabilization {
	case None, Post:
		return 0
	case Baumgarte:
		return w.Settings.Baumgarte * r.Phi
	}
	return pf * r.Phi
}

// solve hands the MLCP to the solver with the Picker as observer.
func (w *World) solve() (Stats, error) {
	ws := &w.ws
	s := &w.Settings
	n := len(ws.rows)
	ws.prob = lcp.Problem{A: &ws.a, B: ws.b, Lo: ws.lo, Hi: ws.hi}
	p := &ws.prob
	solver := s.Solver
	if solver == nil {
		solver = &lcp.BPP{}
		s.Solver = solver
	}
	if ws.picker == nil || ws.picker.Measure() != s.Pick {
		ws.picker = errmeasure.NewPicker(s.Pick)
	}
	set := lcp.Settings{MaxIterations: s.Budget, Start: ws.start}
	st := Stats{Rows: n}
	if n == 0 {
		ws.res.X, ws.res.W = ws.res.X[:0], ws.res.W[:0]
		st.Status = lcp.Converged
		return st, nil
	}
	solved, err := errmeasure.Solve(&ws.res, p, solver, set, ws.picker)
	st.Iterations = ws.res.Iterations
	st.Status = ws.res.Status
	st.BudgetHit = ws.res.Status == lcp.BudgetExhausted
	st.Picked = solved.Picked
	st.Errors = solved.Totals
	if lt, ok := ws.picker.LastTotals(); ok {
		st.LastErrors = lt
	}
	if len(ws.res.States) == n {
		ws.jointStart = append(ws.jointStart[:0], ws.res.States[:ws.nj]...)
	}
	if err != nil {
		return st, fmt.Errorf("step %d: %w", w.steps+1, err)
	}
	return st, nil
}

// integrate applies v⁺ = M⁻¹(p + Jᵀx) and moves the poses (semi-implicit
// Euler; quaternions through the exponential map, renormalized). The
// angular velocity is then recomputed from the angular momentum with the
// new orientation, ω = I_w(q⁺)⁻¹ I_w(q) ω⁺, so a torque-free body keeps its
// angular momentum exactly (the gyroscopic term).
func (w *World) integrate() {
	ws := &w.ws
	h := w.Settings.H
	for i, b := range w.Bodies {
		if !b.Static {
			v := ws.vfree[i]
			b.Vel = mgl64.Vec3{v[0], v[1], v[2]}
			b.AngVel = mgl64.Vec3{v[3], v[4], v[5]}
		}
	}
	if len(ws.res.X) == len(ws.rows) {
		for i := range ws.rows {
			r := &ws.rows[i]
			x := ws.res.X[i]
			if x == 0 {
				continue
			}
			for k := 0; k < r.N; k++ {
				b := w.Bodies[r.Body[k]]
				if b.Static {
					continue
				}
				jm := &ws.jminv[i][k]
				b.Vel = b.Vel.Add(mgl64.Vec3{jm[0], jm[1], jm[2]}.Mul(x))
				b.AngVel = b.AngVel.Add(mgl64.Vec3{jm[3], jm[4], jm[5]}.Mul(x))
			}
		}
	}
	for _, b := range w.Bodies {
		if b.Static {
			continue
		}
		l := b.InertiaWorld().Mul3x1(b.AngVel)
		b.Displace(b.Vel.Mul(h), b.AngVel.Mul(h))
		b.AngVel = b.InvInertiaWorld().Mul3x1(l)
	}
}

// postStabilize projects positions onto the constraint manifold with the
// MLCP of post-stabilization-lcp.md Eq. (14).
func (w *World) postStabilize() error {
	ws := &w.ws
	if err := w.fillJointRows(ws.nj); err != nil {
		return err
	}
	ws.prow = ws.prow[:0]
	for i := range ws.rows {
		if ws.rows[i].Kind.Positional() {
			ws.prow = append(ws.prow, i)
		}
	}
	m := len(ws.prow)
	if m == 0 {
		return nil
	}
	nb := len(w.Bodies)
	for i, b := range w.Bodies {
		if b.Static {
			ws.invI[i] = mgl64.Mat3{}
		} else {
			ws.invI[i] = b.InvInertiaWorld()
		}
	}
	ws.pa.Reset(m, m)
	ws.pb = grow(ws.pb, m)
	ws.plo = grow(ws.plo, m)
	ws.phi = grow(ws.phi, m)
	for a, i := range ws.prow {
		ri := &ws.rows[i]
		for k := 0; k < ri.N; k++ {
			bd := w.Bodies[ri.Body[k]]
			invMassTimes(&ws.jminv[i][k], bd.InvMass(), &ws.invI[ri.Body[k]], &ri.J[k])
		}
		// Dense over positional rows: rows sharing no body give 0.
		for c, j := range ws.prow {
			rj := &ws.rows[j]
			v := 0.0
			for k := 0; k < ri.N; k++ {
				for l := 0; l < rj.N; l++ {
					if ri.Body[k] == rj.Body[l] {
						jm, jj := &ws.jminv[i][k], &rj.J[l]
						v += jm[0]*jj[0] + jm[1]*jj[1] + jm[2]*jj[2] + jm[3]*jj[3] + jm[4]*jj[4] + jm[5]*jj[5]
					}
				}
			}
			ws.pa.Set(a, c, v)
		}
		ws.pb[a] = ri.Phi
		if ri.Kind == constraint.Bilateral {
			ws.plo[a] = math.Inf(-1)
		} else {
			ws.plo[a] = 0
		}
	}
	hi := ws.phi[:m]
	for i := range hi {
		hi[i] = math.Inf(1)
	}
	solver := w.Settings.PostSolver
	if solver == nil {
		solver = &lcp.BPP{}
		w.Settings.PostSolver = solver
	}
	ws.pprob = lcp.Problem{A: &ws.pa, B: ws.pb, Lo: ws.plo, Hi: hi}
	p := &ws.pprob
	set := lcp.Settings{}
	if len(ws.pstart) == m {
		set.Start = ws.pstart
	}
	err := solver.Solve(&ws.pres, p, set)
	if len(ws.pres.X) != m {
		return fmt.Errorf("post-stabilization: %w", err)
	}
	ws.pstart = append(ws.pstart[:0], ws.pres.States...)
	if cap(ws.dq) < nb {
		ws.dq = make([][6]float64, nb)
	}
	ws.dq = ws.dq[:nb]
	clear(ws.dq)
	for a, i := range ws.prow {
		r := &ws.rows[i]
		d := ws.pres.X[a]
		for k := 0; k < r.N; k++ {
			jm := &ws.jminv[i][k]
			for c := 0; c < 6; c++ {
				ws.dq[r.Body[k]][c] += jm[c] * d
			}
		}
	}
	for i, b := range w.Bodies {
		if b.Static {
			continue
		}
		dq := ws.dq[i]
		b.Displace(mgl64.Vec3{dq[0], dq[1], dq[2]}, mgl64.Vec3{dq[3], dq[4], dq[5]})
	}
	// Contact gaps follow the correction to first order: φ += J Δq.
	for i := range ws.points {
		r := &ws.rows[ws.nj+ws.points[i].row]
		for k := 0; k < r.N; k++ {
			dq := &ws.dq[r.Body[k]]
			for c := 0; c < 6; c++ {
				r.Phi += r.J[k][c] * dq[c]
			}
		}
	}
	if err != nil {
		return fmt.Errorf("post-stabilization: %w", err)
	}
	return nil
}

// maxViolation returns the largest bilateral |φ| or unilateral penetration
// among the positional rows, evaluated at the current poses.
func (w *World) maxViolation() float64 {
	if w.fillJointRows(w.ws.nj) != nil {
		return math.NaN()
	}
	m := 0.0
	for i := range w.ws.rows {
		r := &w.ws.rows[i]
		switch {
		case r.Kind == constraint.Bilateral:
			m = math.Max(m, math.Abs(r.Phi))
		case r.Kind.Positional():
			m = math.Max(m, -r.Phi)
		}
	}
	return m
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
