package stepper

import (
	"math"
	"sync/atomic"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
)

// bookkeepingStage runs Step's passes over every body or row that are not
// a stage of the physics (the energies of Stats, the applied work, the
// inverse inertias at the moved poses) on the workPool (forRange): each
// body's or row's terms are computed on their own and summed in body or
// row order afterwards, the operations of a single loop in its order, so
// the sums are the same bits for any GOMAXPROCS.
type bookkeepingStage struct {
	ke, pe []float64 // per body: kinetic energy (0 asleep) and m g·x
	// energies: the finite job also sets ke and pe (checkedEnergy);
	// after: it checks the state alone (finiteState), not stepReady.
	energies, after bool
	// bw is each body's work of its applied loads, rw each row's terms of
	// the joint motors' and kinematic bodies' work, rn their count, −1
	// for a motor row's one term, which is added (the others are
	// subtracted), so that the sum reads rn and rw alone; x the solve's
	// impulses while the job runs.
	bw      []float64
	rw      [][constraint.MaxBodies]float64
	rn      []int8
	x       []float64
	bodyJob rangeJob
	rowJob  rangeJob
	work    rangePair
	// inertia sets mass's inverse inertias (Mass.UpdateInertia).
	inertia rangeJob
	mass    *Mass
	// finite finds the first body whose state is not finite; bad
	// (atomic) is the least such index found, len(w.Bodies) for none.
	finite rangeJob
	bad    int64
}

// checkedEnergy is checkFinite and World.Energy for Step in one pass on
// the workPool (firstNonFinite's, each chunk also setting its bodies'
// energy terms, bodyEnergies): the energies are the same terms summed in
// the same order as World.Energy, and err names the first body in body
// order whose state is not finite, as checkFinite, with the energies
// summed all the same. Before the step (after false) a body must be fit
// to step (stepReady); after it (after true) only the state the step
// wrote is checked (finiteState): the step sets no mass, inertia, load or
// flag, and moves no static or sleeping body, so stepReady's other tests
// would repeat the ones this step began with.
func (w *World) checkedEnergy(after bool) (kinetic, potential float64, err error) {
	bk := &w.ws.bookkeeping
	nb := len(w.Bodies)
	bk.ke, bk.pe = grow(bk.ke, nb), grow(bk.pe, nb)
	bk.energies, bk.after = true, after
	i := w.firstNonFinite()
	bk.energies, bk.after = false, false
	when := "before the step"
	if after {
		when = "after the step"
	}
	for i, b := range w.Bodies {
		if b.Static || b.Kinematic {
			continue
		}
		if !w.sleep.asleepAt(i) {
			kinetic += bk.ke[i]
		}
		potential -= bk.pe[i]
	}
	return kinetic, potential, w.nonFiniteError(i, when)
}

// bodyEnergies sets the energy terms of the bodies lo:hi (checkedEnergy).
func (w *World) bodyEnergies(lo, hi int) {
	bk := &w.ws.bookkeeping
	for i := lo; i < hi; i++ {
		b := w.Bodies[i]
		bk.ke[i], bk.pe[i] = 0, 0
		if b.Static || b.Kinematic {
			continue
		}
		if !w.sleep.asleepAt(i) {
			bk.ke[i] = b.KineticEnergy()
		}
		bk.pe[i] = b.Mass * w.Settings.Gravity.Dot(b.Pos)
	}
}

// appliedWork returns the work (J) done in the step by the applied forces
// and torques on dynamic bodies, h (f·v⁺ + τ·ω⁺) (positions move by h v⁺),
// by the joint motors and servos, Σ x·J v⁺ over Motor and Actuator rows,
// and by kinematic bodies,
// which drive the rest through their rows: −Σ x·J_k v_k over the blocks of
// kinematic bodies (an ideal row does no work, J v⁺ = 0, so what the
// kinematic side takes the dynamic side gets). The terms are computed on
// the workPool and summed in body order, then row order.
func (w *World) appliedWork() float64 {
	ws := &w.ws
	bk := &ws.bookkeeping
	nb, nr := len(w.Bodies), len(ws.build.rows)
	bk.x = nil
	if len(ws.solve.res.X) == nr {
		bk.x = ws.solve.res.X
	} else {
		nr = 0
	}
	bk.bw = grow(bk.bw, nb)
	bk.rw, bk.rn = grow(bk.rw, nr), grow(bk.rn, nr)
	if bk.bodyJob.run == nil {
		bk.bodyJob.run, bk.rowJob.run, bk.rowJob.rows = w.bodyWork, w.rowWork, true
	}
	w.forRangePair(&bk.work, &bk.bodyJob, nb, &bk.rowJob, nr)
	bk.x = nil
	// A static or kinematic body's bw is +0, which leaves the sum as it
	// is (it starts at +0 and so never is −0): the sum reads bw alone.
	work := 0.0
	for _, v := range bk.bw {
		work += v
	}
	for i, n := range bk.rn {
		if n < 0 {
			work += bk.rw[i][0]
			continue
		}
		for k := range n {
			work -= bk.rw[i][k]
		}
	}
	return work
}

// bodyWork sets the work of the applied loads of the bodies lo:hi.
func (w *World) bodyWork(lo, hi int) {
	bk, h := &w.ws.bookkeeping, w.Settings.H
	for i := lo; i < hi; i++ {
		b := w.Bodies[i]
		bk.bw[i] = 0
		if !b.Static && !b.Kinematic {
			bk.bw[i] = h * (b.Force.Dot(b.Vel) + b.Torque.Dot(b.AngVel))
		}
	}
}

// rowWork sets the work terms of the rows lo:hi: a motor's or another
// actuator's row's x·J v⁺ (constraint.Row.Actuator: a position servo),
// another row's x·J_k v_k of each kinematic body on it, in slot order.
func (w *World) rowWork(lo, hi int) {
	bk := &w.ws.bookkeeping
	for i := lo; i < hi; i++ {
		r := &w.ws.build.rows[i]
		x := bk.x[i]
		bk.rn[i] = 0
		if x == 0 {
			continue
		}
		if r.Kind == constraint.Motor || r.Actuator {
			bk.rw[i][0], bk.rn[i] = x*r.Velocity(w.Bodies), -1
			continue
		}
		for k := 0; k < r.N; k++ {
			if b := w.Bodies[r.Body[k]]; b.Kinematic {
				j := &r.J[k]
				bk.rw[i][bk.rn[i]] = x * (j[0]*b.Vel[0] + j[1]*b.Vel[1] + j[2]*b.Vel[2] + j[3]*b.AngVel[0] + j[4]*b.AngVel[1] + j[5]*b.AngVel[2])
				bk.rn[i]++
			}
		}
	}
}

// updateInertia is Mass.UpdateInertia on the workPool.
func (w *World) updateInertia(m *Mass) {
	bk := &w.ws.bookkeeping
	if bk.inertia.run == nil {
		bk.inertia.run = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if w.sleep.asleepAt(i) {
					continue // updateAwake set it this step, at the same pose
				}
				bk.mass.InvInertia[i] = bk.mass.invInertiaWorld(i)
			}
		}
	}
	bk.mass = m
	w.forRange(&bk.inertia, len(m.Bodies))
	bk.mass = nil
}

// firstNonFinite returns the index of the first body (in body order),
// static ones included, that is not fit to step (stepReady: its state not
// finite, a mass or inertia Body.Validate refuses), or −1: each chunk of
// bodies (forRange) stops at its first such body and lowers bad to it, so
// the answer is the least index for any GOMAXPROCS.
func (w *World) firstNonFinite() int {
	bk := &w.ws.bookkeeping
	if bk.finite.run == nil {
		bk.finite.run = w.nonFiniteRange
	}
	nb := len(w.Bodies)
	bk.bad = int64(nb)
	w.forRange(&bk.finite, nb)
	if bk.bad == int64(nb) {
		return -1
	}
	return int(bk.bad)
}

// stepReady reports whether b can be stepped: its pose, velocities and
// applied force and torque finite, Rot a unit quaternion (body.UnitQuatTol:
// the integrators renormalize every step, so more is an edit, and a
// quaternion of norm 2 would scale every rotation by 4), Static and
// Kinematic not both set, and for a dynamic body a finite mass > 0 and a
// finite inertia with a positive diagonal. These are the cheap tests of
// Body.Validate, the ones an edit of the exported fields between steps
// breaks (a mass set to 0 or NaN, a zero quaternion, an infinite torque):
// run before the step they keep such a body from turning the world's
// state into NaN, and Validate's message (checkFinite) names the field.
func stepReady(b *body.Body) bool {
	if !finiteState(b) || !num.FiniteVec(b.Force) || !num.FiniteVec(b.Torque) {
		return false
	}
	if math.Abs(math.Sqrt(b.Rot.Dot(b.Rot))-1) > body.UnitQuatTol {
		return false
	}
	if b.Static || b.Kinematic {
		return !(b.Static && b.Kinematic)
	}
	in := &b.Inertia
	for _, x := range in {
		if !num.Finite(x) {
			return false
		}
	}
	return b.Mass > 0 && num.Finite(b.Mass) && in[0] > 0 && in[4] > 0 && in[8] > 0
}

// finiteState reports whether b's position, orientation, velocity and
// angular velocity are finite: what a step writes.
func finiteState(b *body.Body) bool {
	return num.FiniteVec(b.Pos) && num.FiniteQuat(b.Rot) && num.FiniteVec(b.Vel) && num.FiniteVec(b.AngVel)
}

// nonFiniteRange lowers bad to the first body of lo:hi that is not fit to
// step (stepReady), or after the step whose state is not finite
// (finiteState, bk.after), and sets their energy terms (bodyEnergies) when
// checkedEnergy asks for them.
func (w *World) nonFiniteRange(lo, hi int) {
	bk := &w.ws.bookkeeping
	if bk.energies {
		w.bodyEnergies(lo, hi)
	}
	for i := lo; i < hi; i++ {
		b := w.Bodies[i]
		if bk.after {
			// The step moves no static body.
			if b.Static || w.sleep.asleepAt(i) || finiteState(b) {
				continue
			}
		} else {
			// A static body is checked too: its geoms stand at its
			// pose, and the contact sweep reads its velocities
			// (geomSweep).
			if !b.Static && w.sleep.asleepAt(i) { // a sleeping body keeps the finite state it fell asleep in (wakeChanged)
				continue
			}
			if stepReady(b) {
				continue
			}
		}
		for {
			old := atomic.LoadInt64(&bk.bad)
			if int64(i) >= old || atomic.CompareAndSwapInt64(&bk.bad, old, int64(i)) {
				return
			}
		}
	}
}

// rangePair is two passes that forRangePair runs in one workPool job.
type rangePair struct {
	a, b *rangeJob
	na   int         // a's tasks, numbered before b's
	task func(k int) // runs a's task k, or b's k − na; made once
}

// forRangePair runs a over the items 0…na−1 and b over 0…nb−1, two passes
// that read nothing the other writes: each as forRange would run it alone
// when neither reaches its size for the workPool or with one worker, else
// both in one job, each in its own chunks (rangeJob.tasks), a's tasks
// first, so the step waits for one job where it would wait for two.
func (w *World) forRangePair(p *rangePair, a *rangeJob, na int, b *rangeJob, nb int) {
	ca, la := a.limits()
	cb, lb := b.limits()
	if (na < la && nb < lb) || w.ws.pool.workers(2) < 2 {
		a.run(0, na)
		b.run(0, nb)
		return
	}
	if p.task == nil {
		p.task = func(k int) {
			if k < p.na {
				p.a.task(k)
				return
			}
			p.b.task(k - p.na)
		}
	}
	p.a, p.b = a, b
	p.na = a.tasks(na, ca, &w.ws.pool)
	w.ws.pool.do(p.na+b.tasks(nb, cb, &w.ws.pool), p.task)
	p.a, p.b = nil, nil
}
