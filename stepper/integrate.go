package stepper

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// heldAxes returns an orthonormal basis e[:n] of the directions about
// which body bi's rigid bilateral angular rows of the last assembly hold
// its turning: the span of the rows' angular Jacobian blocks on bi, for
// rows with no translational part on bi (a hinge's two axis rows, a
// fixed joint's or a slider's three, a universal joint's one). Springs
// (compliant rows), limits, motors and contacts hold nothing here: they
// let the body turn. The blocks are orthonormalized in row order
// (Gram–Schmidt; a block within 1e-9 of its length of the span of the
// earlier ones adds nothing); n is 0 for a body without such rows.
func (a *Assembly) heldAxes(bi int, rows []constraint.Row) (e [3]mgl64.Vec3, n int) {
	if bi >= len(a.byBody) {
		return e, 0
	}
	for _, p := range a.byBody[bi] {
		r := &rows[p.row]
		j := &r.J[p.slot]
		if r.Kind != constraint.Bilateral || compliant(r) || j[0] != 0 || j[1] != 0 || j[2] != 0 {
			continue
		}
		v := mgl64.Vec3{j[3], j[4], j[5]}
		l0 := v.Len()
		for k := 0; k < n; k++ {
			v = v.Sub(e[k].Mul(v.Dot(e[k])))
		}
		if l := v.Len(); l > 1e-9*l0 {
			e[n] = v.Mul(1 / l)
			if n++; n == 3 {
				break
			}
		}
	}
	return e, n
}

// heldGyroscopic returns the change of a body's momentum target L⁺ along
// the directions its joints hold (heldAxes, the orthonormal e[:n]) when the
// gyroscopic impulse of its free step is taken at the velocity the joints
// let it have there instead of its free velocity:
//
//	Σₖ eₖ eₖ·h (ω'_m × I_w ω'_m − ω_m × I_w ω_m),   ω_m = (ω₀ + ω_f)/2,
//	ω'_m = ω_m + ½ Σₖ eₖ eₖ·(ω⁺ − ω_f),
//
// with iw the world inertia at the step's start, w0 the angular velocity
// at the start, wf the free one and wp the one after the solve (rad/s).
//
// Why. The momentum balance L⁺ = L₀ + h τ + (Jᵀx)_ω that integrate aligns
// the body with contains, through Jᵀx = I_w (ω⁺ − ω_f), the midpoint
// rule's gyroscopic impulse of the free velocity ω_f. Along a held
// direction ω_f is a turn the body never makes: a torque across a hinge
// moves ω_f there, and the joint's reaction takes it out of ω⁺. Its
// gyroscopic impulse is that of a motion that does not happen, and
// aligning the body with it turned the body about the held directions,
// which opens the joint by O(h²) per step; in Regularized mode the
// feedback of that error is a velocity φ/h about the held axis, which the
// next alignment turned away again, and the body's velocity about the held
// axis grew without bound (a body on a world hinge about its principal x
// axis under a torque (0.5, 0, 0.7) N·m at h = 1 ms reached 0.28 rad/s
// about z in 200 steps). Along a held direction the velocity after the
// solve is the joint's, not an estimate, so the target takes the midpoint
// of the actual motion there. Along the free directions the target stays
// L₀ + h τ + (Jᵀx)_ω, the exact balance of the impulses the body received:
// there the alignment corrects ω⁺'s linearized response to the joints'
// impulses (with the actual midpoint in every direction a top on a pivot
// precessed 1.9 % slow instead of 0.025 %).
func heldGyroscopic(h float64, iw mgl64.Mat3, w0, wf, wp mgl64.Vec3, e *[3]mgl64.Vec3, n int) mgl64.Vec3 {
	wm := w0.Add(wf).Mul(0.5)
	d := wp.Sub(wf)
	wh := wm
	for k := 0; k < n; k++ {
		wh = wh.Add(e[k].Mul(0.5 * e[k].Dot(d)))
	}
	dg := wh.Cross(iw.Mul3x1(wh)).Sub(wm.Cross(iw.Mul3x1(wm)))
	var out mgl64.Vec3
	for k := 0; k < n; k++ {
		out = out.Add(e[k].Mul(h * e[k].Dot(dg)))
	}
	return out
}

// turnStage holds the momentum alignments of a step (integrate) until
// projectTurns has made them consistent with the held rows and the
// touching contacts.
type turnStage struct {
	turn    []mgl64.Vec3  // per body, the alignment's rotation vector (rad)
	shift   []mgl64.Vec3  // per body, the translation that keeps its point rows (m; projectTurns)
	minv    []float64     // per aligned body, 1/m (set with turn)
	aligned []bool        // per body, whether turn applies
	winv    []mgl64.Mat3  // per aligned body, I_w⁻¹ at the moved pose (set with turn)
	hold    []contactHold // per aligned body, what its touching contacts hold (holdContacts)
	touch   []bool        // per body, whether it is aligned and touching (holdContacts)
}

// contactHold is a body's basis of the turns its touching contacts hold
// (holdContacts): e[:n], orthonormal in the metric W = I_w⁻¹
// (eᵢ·W eⱼ = δᵢⱼ), and we[k] = W e[k].
type contactHold struct {
	e, we [3]mgl64.Vec3
	n     int
}

func (ts *turnStage) resetTurns(nb int) {
	if cap(ts.turn) < nb {
		ts.turn = make([]mgl64.Vec3, nb)
		ts.shift = make([]mgl64.Vec3, nb)
		ts.minv = make([]float64, nb)
		ts.aligned = make([]bool, nb)
		ts.winv = make([]mgl64.Mat3, nb)
		ts.hold = make([]contactHold, nb)
		ts.touch = make([]bool, nb)
	}
	ts.turn, ts.aligned, ts.winv, ts.hold = ts.turn[:nb], ts.aligned[:nb], ts.winv[:nb], ts.hold[:nb]
	ts.touch, ts.shift, ts.minv = ts.touch[:nb], ts.shift[:nb], ts.minv[:nb]
	for i := range ts.aligned {
		ts.aligned[i] = false
		ts.shift[i] = mgl64.Vec3{}
	}
}

// maxTurnSweeps bounds projectTurns' sweeps over the held rows.
const maxTurnSweeps = 20

// projectTurns removes from the step's alignment turns what would change
// the rigid bilateral angular-only rows (heldAxes' rows, between any
// bodies) or the gap of a body's touching contacts (holdContacts). For
// each such joint row with blocks u_k on its aligned bodies, the change
// Σ u_k·θ_k is taken out with the least kinetic-energy correction
// θ_k −= I_k⁻¹ u_k μ (the position projection's metric, Cline and Pai
// 2003), sweeping the rows (Gauss–Seidel) until the largest change left
// is 1e-12 of the largest turn or maxTurnSweeps sweeps ran; before the
// first sweep, and after each correction a joint row makes to it, a
// body's turn loses exactly its part in the directions its contacts hold.
// A body that is not aligned (static, kinematic, asleep, or not turned
// this step) takes no share.
//
// A rigid bilateral row with translational blocks n_k (a ball joint's
// anchor rows, a hinge's or a fixed joint's) between bodies that are all
// aligned and touching (holdContacts) is kept too, with a translation:
// its change Σ n_k·δ_k + u_k·θ_k is taken out by δ_k −= n_k μ/m_k and
// θ_k −= I_k⁻¹ u_k μ, and integrate moves each body by its δ (shift). Why:
// the contacts leave a body on two end contacts free to turn only about
// their normal and its axis, and a fixed joint's orientation rows make two
// such bodies' turns equal, so the alignment yawed two welded capsules
// each about its own centre, which opens their anchor; the next step's
// φ/h closed it and the alignment opened it again twice as far, and the
// rounding of the poses grew 2× a step into a wobble (2.1e-3 rad of tilt
// on a 20° incline whose slope ran at 45° to x, 3.7e-7 rad along x:
// TestRotationInvariance). Turning both about the joint's anchor keeps it
// closed. Bodies in the air and points held by the world keep their turns
// about their centres as before (a top on a pivot, a swinging chain).
func (ts *turnStage) projectTurns(rows []constraint.Row, a *Assembly, margin float64) {
	big := 0.0
	for i, ok := range ts.aligned {
		if ok {
			big = math.Max(big, ts.turn[i].Len())
		}
	}
	if big == 0 {
		return
	}
	ts.holdContacts(a, rows, margin)
	for sweep := 0; sweep < maxTurnSweeps; sweep++ {
		worst := 0.0
	rows:
		for ri := range rows {
			r := &rows[ri]
			if r.Kind != constraint.Bilateral || compliant(r) {
				continue
			}
			point := translational(r)
			if point && r.N < 2 {
				continue // a point held by the world
			}
			d, den := 0.0, 0.0
			for k := 0; k < r.N; k++ {
				j := &r.J[k]
				bi := r.Body[k]
				if point && !(ts.aligned[bi] && ts.touch[bi]) {
					continue rows
				}
				if ts.aligned[bi] {
					u := mgl64.Vec3{j[3], j[4], j[5]}
					d += u.Dot(ts.turn[bi])
					den += u.Dot(ts.winv[bi].Mul3x1(u))
					if point {
						n := mgl64.Vec3{j[0], j[1], j[2]}
						d += n.Dot(ts.shift[bi])
						den += ts.minv[bi] * n.Dot(n)
					}
				}
			}
			if !(den > 0) || d == 0 {
				continue
			}
			worst = math.Max(worst, math.Abs(d))
			mu := d / den
			for k := 0; k < r.N; k++ {
				if bi := r.Body[k]; ts.aligned[bi] {
					j := &r.J[k]
					ts.turn[bi] = ts.turn[bi].Sub(ts.winv[bi].Mul3x1(mgl64.Vec3{j[3], j[4], j[5]}).Mul(mu))
					ts.turn[bi] = ts.hold[bi].project(ts.turn[bi])
					if point {
						ts.shift[bi] = ts.shift[bi].Sub(mgl64.Vec3{j[0], j[1], j[2]}.Mul(mu * ts.minv[bi]))
					}
				}
			}
		}
		if worst <= 1e-12*big {
			return
		}
	}
}

// holdContacts sets, for each aligned body, the turns its touching
// contacts hold (ts.hold) and takes them out of its turn. A touching
// contact is a rigid contact normal row whose gap at detection is within
// margin (Settings.ContactMargin), with blocks n (translational) and
// u = r × n (angular) on the body: a turn θ about the centre of mass moves
// the contact point by θ × r and the gap by θ·u, a translation δ moves it
// by δ·n. What the contacts hold is what no translation can make up for:
// the angular parts Σ cₖuₖ of the combinations of the rows whose
// translational parts cancel, Σ cₖnₖ = 0 (the contacts' analogue of the
// angular-only joint rows of heldAxes). A body on one contact (a top on
// its tip, a coin on its rim) is held in no direction: the contact shifts
// it along n to close the gap its turn opens, the body turns freely about
// the contact point. Two contacts with one normal (a capsule or cylinder
// on its side) hold the turn about the horizontal across their line,
// which lifts one end and pushes the other into the floor, three or more
// on one plane (a box on a face, a tripod) both tilts. The combinations
// come from eliminating the normals in row order (a normal within 1e-6 of
// its length of the earlier ones' span counts as in it: contacts of one
// manifold share their normal), the held directions are orthonormalized in
// the metric W = I_w⁻¹ (Gram–Schmidt; one within 1e-9 of its W-length of
// the span of the earlier ones adds nothing), and the turn loses its part
// along them with the least kinetic-energy correction θ −= W U (Uᵀ W U)⁻¹
// Uᵀ θ: exact, and independent of the contacts' order up to rounding, so a
// box hull and a box on the same four corners get the same turn. Each body
// is held by its own contacts: another aligned body is not turned to make
// room for it. A body that shares a rigid angular-only joint row (the rows
// projectTurns keeps) with an aligned body that touches nothing keeps the
// joints' projection alone (turnHeld): the projection would turn that
// body to make room for the hold. Holding a forklift wheel's floor
// contacts turned its chassis through the axle, and at a budget of 5
// block pivots a step the forklift then fell into wheel slip and drove
// 79 % of its path instead of 102 % (cmd/sim's TestRunForkliftBudgets).
// A body joined only at points (ball, distance, rope), or by angular rows
// only to touching, static or unaligned bodies, is held by its contacts.
// Skipping every jointed body, two capsules joined end to end by a ball
// joint (or a hinge about their axis) rolling down a 20° incline tilted
// by up to 0.93 rad (0.59 rad) and rolled at 1.39 m/s (1.51 m/s) instead
// of 2.264 m/s (TestJointedCapsulesRollDownIncline).
//
// Why. The alignment turns a body about its centre so that its momentum
// matches the momentum balance (integrate); it knows nothing of contacts.
// On two end contacts it tilted a rolling capsule (r 0.05 m, 0.3 m long,
// 13.5 rad/s) into the floor, and the next step's φ/h feedback of that
// tilt, through the midpoint rule's gyroscopic term, turned it 10× further
// each step until its centre stood 13 mm up; the push scene's object
// rocked on its tripod, and its runs did not converge as the step shrank
// (sweep's TestPushConvergesInStep). Holding a single contact's direction
// as well stopped a top on the floor from nutating back: its tilt then
// wandered 0.04 rad in a quarter of a precession and it precessed 0.17 %
// slow (TestEverydayTopOnFloorPrecesses).
func (ts *turnStage) holdContacts(a *Assembly, rows []constraint.Row, margin float64) {
	for bi, ok := range ts.aligned {
		ts.touch[bi] = ok && bi < len(a.byBody) && a.touching(bi, rows, margin)
	}
	for bi, ok := range ts.aligned {
		h := &ts.hold[bi]
		h.n = 0
		if !ok || bi >= len(a.byBody) || !ts.touch[bi] || a.turnHeld(bi, rows, ts.aligned, ts.touch) {
			continue
		}
		wi := &ts.winv[bi]
		// lb[:nl]: orthonormal normals eliminated so far, la the angular
		// part of the same combination of rows.
		var lb, la [3]mgl64.Vec3
		nl := 0
		for _, p := range a.byBody[bi] {
			r := &rows[p.row]
			if r.Kind != constraint.ContactNormal || r.Phi > margin || compliant(r) {
				continue
			}
			j := &r.J[p.slot]
			n, u := mgl64.Vec3{j[0], j[1], j[2]}, mgl64.Vec3{j[3], j[4], j[5]}
			n0 := n.Len()
			for k := 0; k < nl; k++ {
				c := lb[k].Dot(n)
				n, u = n.Sub(lb[k].Mul(c)), u.Sub(la[k].Mul(c))
			}
			if l := n.Len(); l > 1e-6*n0 {
				if nl < 3 {
					lb[nl], la[nl] = n.Mul(1/l), u.Mul(1/l)
					nl++
				}
				continue
			}
			if h.n == 3 {
				continue
			}
			l0 := u.Dot(wi.Mul3x1(u))
			v := u
			for k := 0; k < h.n; k++ {
				v = v.Sub(h.e[k].Mul(h.we[k].Dot(u)))
			}
			wv := wi.Mul3x1(v)
			if l := v.Dot(wv); l > 1e-18*l0 {
				s := 1 / math.Sqrt(l)
				h.e[h.n], h.we[h.n] = v.Mul(s), wv.Mul(s)
				h.n++
			}
		}
		ts.turn[bi] = h.project(ts.turn[bi])
	}
}

// keepOut takes out of each aligned body's turn what would push one of
// its contacts in: a rigid contact normal row with angular block u on the
// body and gap φ + h J v⁺ at the step's end (v⁺ the velocities after the
// solve) ends at φ + h J v⁺ + θ·u after the turn θ about the centre, and
// where that is below min(0, φ + h J v⁺) the turn loses W u (θ·u + g⁺)/(u·W u)
// (g⁺ = max(0, φ + h J v⁺)), the least kinetic-energy correction, its
// held directions staying held (contactHold.project); sweeps until no row
// is pushed in by more than 1e-12 of the turn's size, or maxTurnSweeps.
// A jointed body (any bilateral row) keeps projectTurns' turn, and so does
// a body on fewer than two rigid contact rows, which turns freely about
// its one contact (holdContacts): kept out of its contact, the top on the
// floor stopped nutating back (its tilt off 30° by up to 0.041 rad, the
// precession 0.165 % slow: TestEverydayTopOnFloorPrecesses).
//
// Why: holdContacts holds only the turns no translation can make up for,
// so a body on contacts of independent normals (a capsule with an end on
// the floor and its side against a box) was turned about its centre by
// the alignment, 0.007–0.011 rad a step for capsule22 of the bin-pile
// scene spinning at 7 rad/s, alternately into and out of the floor: its
// end went 0.5–0.7 mm in (the step's own motion left 0.04 mm), the next
// step's φ/h pushed it out, and a step added 5.5 mJ
// (TestSpinningCapsuleOnTwoContactsTurnKeepsOut; bin-pile's largest step
// gain 5.5e-3 → 4.2e-8 J, and of 21 runs with its second body moved by
// 1–7 µm 16 were over its 1e-3 J bound before, 3 after).
func (ts *turnStage) keepOut(rows []constraint.Row, a *Assembly, bodies []*body.Body, h float64) {
	for bi, ok := range ts.aligned {
		if !ok || bi >= len(a.byBody) {
			continue
		}
		jointed, contacts := false, 0
		for _, p := range a.byBody[bi] {
			switch r := &rows[p.row]; {
			case r.Kind == constraint.Bilateral:
				jointed = true
			case r.Kind == constraint.ContactNormal && !compliant(r):
				contacts++
			}
		}
		if jointed || contacts < 2 {
			continue
		}
		t, wi, hold := ts.turn[bi], &ts.winv[bi], &ts.hold[bi]
		for sweep := 0; sweep < maxTurnSweeps; sweep++ {
			worst := 0.0
			for _, p := range a.byBody[bi] {
				r := &rows[p.row]
				if r.Kind != constraint.ContactNormal || compliant(r) {
					continue
				}
				end := r.Phi
				for k := 0; k < r.N; k++ {
					b := bodies[r.Body[k]]
					j := &r.J[k]
					end += h * (j[0]*b.Vel[0] + j[1]*b.Vel[1] + j[2]*b.Vel[2] + j[3]*b.AngVel[0] + j[4]*b.AngVel[1] + j[5]*b.AngVel[2])
				}
				j := &r.J[p.slot]
				u := mgl64.Vec3{j[3], j[4], j[5]}
				d := u.Dot(t) + math.Max(end, 0)
				if d >= 0 {
					continue
				}
				wu := wi.Mul3x1(u)
				den := u.Dot(wu)
				if !(den > 0) {
					continue
				}
				worst = math.Max(worst, -d)
				t = hold.project(t.Sub(wu.Mul(d / den)))
			}
			if worst <= 1e-12*t.Len() {
				break
			}
		}
		ts.turn[bi] = t
	}
}

// turnHeld reports whether body bi shares a row among rows that
// projectTurns keeps, a rigid bilateral row with only angular blocks (a
// hinge's axis rows, a fixed joint's or a slider's orientation rows; not a
// spring), with an aligned body that is not touching (touch): a body the
// row's projection would turn to make room for bi's contacts. Point rows
// (a ball joint's, a distance or a rope) hold no turn.
func (a *Assembly) turnHeld(bi int, rows []constraint.Row, aligned, touch []bool) bool {
	for _, p := range a.byBody[bi] {
		r := &rows[p.row]
		if r.Kind != constraint.Bilateral || compliant(r) || translational(r) {
			continue
		}
		for k := 0; k < r.N; k++ {
			if o := r.Body[k]; o != bi && aligned[o] && !touch[o] {
				return true
			}
		}
	}
	return false
}

// touching reports whether body bi has a touching contact among rows: a
// rigid contact normal row whose gap at detection is within margin.
func (a *Assembly) touching(bi int, rows []constraint.Row, margin float64) bool {
	for _, p := range a.byBody[bi] {
		if r := &rows[p.row]; r.Kind == constraint.ContactNormal && r.Phi <= margin && !compliant(r) {
			return true
		}
	}
	return false
}

// project returns θ without its part in the held directions:
// θ − Σₖ W eₖ (eₖ·θ).
func (h *contactHold) project(t mgl64.Vec3) mgl64.Vec3 {
	for k := 0; k < h.n; k++ {
		t = t.Sub(h.we[k].Mul(h.e[k].Dot(t)))
	}
	return t
}

// rangeJob is a pass over the bodies, geoms or rows 0…n−1 that forRange
// runs on the workPool: run(lo, hi) reads the world and writes only the
// items lo:hi and their entries of its stage, so the chunks' order changes
// no bit.
type rangeJob struct {
	run  func(lo, hi int) // made once
	task func(k int)      // runs chunk k; made once
	n    int
	size int // items per chunk of the running job
	// rows marks a pass over rows, whose items cost about a tenth of a
	// body's or a geom's: it takes rowChunk and rowParallel.
	rows bool
	// chunk and least, when set, are the job's items per task and the
	// fewest items it runs on the workPool for, in place of those.
	chunk, least int
}

// bodyChunk is the bodies or geoms of one forRange task and bodyParallel
// the fewest for which forRange runs on the workPool; rowChunk and
// rowParallel the same for a pass over rows. Measured: a body's
// Mass.Update takes 0.7 µs, a geom's box 0.65 µs, a body's energy or
// integrate pass 0.1–0.3 µs, a row's terms in Assemble or the energy model
// 0.025–0.035 µs, and a job on a second idle worker 0.5 µs to start and
// join (BenchmarkWorkPoolJob). The bounds keep a job above about 50 µs of
// work, a margin for a worker that first has to be given a core: a 30-brick
// wall (30 bodies, 31 geoms, 564 rows) runs none of these passes on the
// pool.
const (
	bodyChunk    = 64
	bodyParallel = 256
	rowChunk     = 512
	rowParallel  = 2048
)

// forRange runs j over the items 0…n−1: in one call below bodyParallel
// items (rowParallel for rows) or with one worker, else in chunks of about
// bodyChunk (rowChunk) on the workPool, as many chunks as a multiple of
// the job's workers (tasks) unless j sets its own chunk: the chunks then
// split evenly between them.
func (w *World) forRange(j *rangeJob, n int) {
	chunk, least := j.limits()
	if n < least || w.ws.pool.workers(2) < 2 {
		j.run(0, n)
		return
	}
	w.ws.pool.do(j.tasks(n, chunk, &w.ws.pool), j.task)
}

// limits returns j's items per task and the fewest items for which
// forRange runs it on the workPool (rangeJob).
func (j *rangeJob) limits() (chunk, least int) {
	if j.chunk > 0 {
		return j.chunk, j.least
	}
	if j.rows {
		return rowChunk, rowParallel
	}
	return bodyChunk, bodyParallel
}

// tasks sets j to run over the items 0…n−1 in chunks of about chunk items
// and returns its task count: the count of chunks of chunk items, rounded
// up to a multiple of the workers p gives a job of that many tasks
// (a job of 7 even tasks on 2 workers takes as long as 8), with the
// chunks shrunk to match. Which items share a chunk changes no bit
// (rangeJob). A job that sets its own chunk keeps chunks of exactly that
// many items: its pass may cut its work at their bounds (layoutRange
// starts chunk c at item c·layoutChunk).
func (j *rangeJob) tasks(n, chunk int, p *workPool) int {
	if j.task == nil {
		j.task = func(k int) {
			lo := k * j.size
			j.run(lo, min(lo+j.size, j.n))
		}
	}
	nt := (n + chunk - 1) / chunk
	if nw := p.workers(nt); j.chunk == 0 && nt%nw != 0 {
		nt += nw - nt%nw
		chunk = (n + nt - 1) / nt
		nt = (n + chunk - 1) / chunk
	}
	j.n, j.size = n, chunk
	return nt
}
