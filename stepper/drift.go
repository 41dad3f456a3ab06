package stepper

import (
	"math"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
)

// maxDriftTurn (rad) is the largest turn h|ω̂| of a body in a step for which
// predictDrift gives its joint rows their drift; beyond it they keep the
// first-order form. The drift itself is exact at any turn (the rows are
// filled at the predicted pose), but what it can hold is bounded: a body
// whirled round a hinge at a distance r from its centre of mass moves its
// centre along the chord and the hinge's impulse passes through the hinge,
// so the step keeps L_d = I_c ω + m r² sin(hω)/h, not I_p ω
// (TestWhirledBarKeepsDiscreteMomentum). L_d is at most I_c ω + m r²/h and
// falls again past hω = π/2, so at h = 1/60 s a bar thrown at 100 rad/s
// has no orbit near that speed which the drift could hold it on; with the
// drift for such bodies up to hω = π/2 a bar spun up by a torque coasted
// at its speed, but thrown bars gained speed (60 → 65.7 rad/s in the first
// steps), chains whose links whip past the bound gained energy
// (TestSpinningChainEnergy, TestNewUserChain10) and the island scene's
// swinging chain came out up to 18 times more sensitive to the solver's
// tolerance. A wheel turning 8 rad per step about its axle is far beyond
// it: its rows keep the first-order form.
const maxDriftTurn = 0.5

// predictDrift sets constraint.Row.Drift on the step's rigid bilateral joint
// rows (ws.build.rows[:nj]) in the Regularized mode: the rows are filled again
// at the poses the bodies would reach with their velocities at the step's
// start v̂ (the last step's constrained velocities: the free ones would add
// the unconstrained response to gravity and torques that the rows then remove)
// (q ⊕ h v̂, body.Body.Displace), and a row's drift is
//
//	Drift = φ(q ⊕ h v̂) − φ(q) − h J(q) v̂,
//
// its change over the step beyond the linear term, ½h² v̂ᵀ∇²φ v̂ to
// leading order. The assembly then asks φ + h J v⁺ + Drift = 0, the
// end-of-step value of φ to second order, instead of φ + h J v⁺ = 0;
// under Settings.JointCorrection = JointProjection a row with a drift
// asks h J v⁺ + Drift = 0 and leaves φ to the projection (the error the
// prediction misses, fed back as φ/h, does work with the drift:
// TestNewUserChainEnergySource), and the prediction moves the bodies with
// ω̂'s direction turned on once more by its last turn (extrapolate).
//
// Why: a velocity-level step keeps J(q) v⁺ = −φ/h, the velocity tangent
// to the constraint at the start of the step. A pendulum's bob then leaves
// its circle by ½ L θ² per step (θ = h ω), and the next step removes the
// velocity component along the arm, a loss of about θ² of the kinetic
// energy per step: at h = 1/60 a 1 m pendulum released at 120° lost 59 %
// of its swing energy in 10 s and its period came out 16 % short, and the
// position projection ran on 267 of 600 steps. With the drift the velocity
// after the step is the chord of the arc (SHAKE's position constraint at
// the end of the step, J. P. Ryckaert, G. Ciccotti and H. J. C. Berendsen,
// "Numerical integration of the Cartesian equations of motion of a system
// with constraints", 1977, to second order): the next step reflects its
// small component along the arm instead of removing it, which keeps the
// speed. The forklift (h = 1/60 s) loses the same way through its wheel
// anchors: it settled at 1.97 m/s without the drift and at 2.15 m/s with
// it, which is where it settles at h = 1/240 s either way.
//
// Only rows that hold a point (a block with a translational part: the
// anchors of ball, hinge and fixed joints, a slider's lateral rows, a
// distance) get a drift; there it is the centripetal ½h² ω×(ω×r) of each
// anchor. Orientation rows keep the first-order form: their second-order
// change is dominated by ½h² ω_a×ω_b, the commutator of the two bodies'
// separately integrated rotations (a wheel spinning on a turning chassis),
// an artefact of the integrator, not a curvature of the constraint, and
// feeding it forward made the forklift settle 4 % above its small-step
// speed. The prediction moves a fast rotor (Mass's gyroscopic bodies
// turning more than maxDriftTurn) as integrate does, spinning on its axle
// (body.Body.SpinDisplace). Rows of another body turning more than
// maxDriftTurn in the step, limit,
// motor and coupling rows, springs and contacts keep the first-order form
// too, but for the friction rows of a contact between two bodies turning
// together, which carry the arc of one about the other (contactDrift,
// ContactInfo.SetDrift); the other modes (None, Baumgarte, Post) are the
// papers' schemes and are left as they are.
func (w *World) predictDrift(nj int) error {
	dr := &w.ws.drift
	ws := &w.ws
	if w.Settings.Stabilization != Regularized || nj == 0 {
		return nil
	}
	h := w.Settings.H
	nb := len(w.Bodies)
	if cap(dr.savedPos) < nb {
		dr.savedPos = make([]mgl64.Vec3, nb)
		dr.savedRot = make([]mgl64.Quat, nb)
		dr.savedAng = make([]mgl64.Vec3, nb)
		dr.fastTurn = make([]bool, nb)
	}
	dr.savedPos, dr.savedRot, dr.savedAng, dr.fastTurn = dr.savedPos[:nb], dr.savedRot[:nb], dr.savedAng[:nb], dr.fastTurn[:nb]
	if cap(dr.drows) < nj {
		dr.drows = make([]constraint.Row, nj)
	}
	dr.drows = dr.drows[:nj]
	w.extrapolate()
	for i, b := range w.Bodies {
		dr.savedPos[i], dr.savedRot[i], dr.savedAng[i] = b.Pos, b.Rot, b.AngVel
		dr.fastTurn[i] = false
		if b.Static {
			continue
		}
		v, av := dr.ext[i][0], dr.ext[i][1]
		dth := av.Mul(h)
		if dth.Len() > maxDriftTurn {
			// A fast rotor moves as integrate will move it, spinning on
			// its axle (body.Body.SpinDisplace); another fast body's rows
			// keep the first-order form.
			if !b.Kinematic && ws.mass.gyro(i) && b.SpinDisplace(v.Mul(h), dth, mgl64.Vec3{}) {
				continue
			}
			dr.fastTurn[i] = true
		}
		b.Displace(v.Mul(h), dth)
	}
	dr.dctx = constraint.Context{Bodies: w.Bodies, H: h}
	k := 0
	var ferr error
	for j, c := range w.Joints {
		d := c.Dim()
		if w.jointAsleep(j) {
			continue // no rows (buildRows)
		}
		if k/cancelCheckRows != (k+d)/cancelCheckRows && w.chunkCancelled(stageRows) {
			break // StepContext: the poses are restored below, the step stops (Step)
		}
		if ferr = c.Fill(dr.drows[k:k+d], &dr.dctx); ferr != nil {
			break
		}
		k += d
	}
	for i, b := range w.Bodies {
		b.Pos, b.Rot, b.AngVel = dr.savedPos[i], dr.savedRot[i], dr.savedAng[i]
	}
	if w.cancel.stopped.Load() {
		return nil
	}
	if ferr != nil {
		// The predicted poses are outside what a joint accepts (a
		// degenerate frame); the rows keep the first-order form. The
		// same joint at the real poses filled without error.
		return nil
	}
rows:
	for i := 0; i < nj; i++ {
		r, p := &ws.build.rows[i], &dr.drows[i]
		r.Drift = 0
		if r.Kind != constraint.Bilateral || p.Kind != r.Kind || compliant(r) || !translational(r) {
			continue
		}
		jv := 0.0
		for s := 0; s < r.N; s++ {
			bi := r.Body[s]
			if dr.fastTurn[bi] {
				continue rows
			}
			v, av := dr.ext[bi][0], dr.ext[bi][1]
			j := &r.J[s]
			jv += j[0]*v[0] + j[1]*v[1] + j[2]*v[2] + j[3]*av[0] + j[4]*av[1] + j[5]*av[2]
		}
		if d := p.Phi - r.Phi - h*jv; num.Finite(d) {
			r.Drift = d
		}

	}
	return nil
}

// translational reports whether r has a body block with a translational
// part (it holds a point, not only an orientation).
func translational(r *constraint.Row) bool {
	for k := 0; k < r.N; k++ {
		if j := &r.J[k]; j[0] != 0 || j[1] != 0 || j[2] != 0 {
			return true
		}
	}
	return false
}

// extrapolate sets ws.drift.ext to the velocities predictDrift moves the
// bodies with: the step's start velocities v̂, under JointProjection with
// each angular velocity's direction turned on by the turn it took over
// the last step (turnOn; ws.drift.prev holds the last step's ω̂). The
// drift wants the chord of the step, taken with the end-of-step velocity
// v⁺; with v̂ it misses ½h² (v⁺ᵀ∇²φ v⁺ − v̂ᵀ∇²φ v̂), O(h³) a step, which
// JointProjection does not feed back. ω's length is not extrapolated: a
// planar chain's ω never turns, so its prediction is v̂'s (a linear
// extrapolation 2ω̂ − ω̂₋₁ gained 18 J on TestNewUserChainEnergySource's
// chain at h = 1/240 s). A body's ω̂ is turned on only when the last step
// that counted recorded it (driftPrev.usable): on the first step, after
// a step without the prediction, and for a body that is not the one the
// index held then or whose ω was changed since, it is v̂.
func (w *World) extrapolate() {
	dr := &w.ws.drift
	nb := len(w.Bodies)
	if cap(dr.ext) < nb {
		dr.ext = make([][2]mgl64.Vec3, nb)
	}
	dr.ext = dr.ext[:nb]
	on := w.Settings.JointCorrection == JointProjection
	p := &dr.prev
	for i, b := range w.Bodies {
		dr.ext[i] = [2]mgl64.Vec3{b.Vel, b.AngVel}
		if on && p.usable(i, b) {
			dr.ext[i][1] = turnOn(p.start[i], b.AngVel)
		}
	}
	p.fresh = on
	if on {
		p.pending = grow(p.pending, nb)
		for i, b := range w.Bodies {
			p.pending[i] = b.AngVel
		}
	}
}

// driftPrev is extrapolate's memory of the last step: each body's ω̂ at
// its start and ω at its end, kept only for a step that counted
// (endStep), so that a failed or cancelled step, which leaves the world
// at its start, leaves it too.
type driftPrev struct {
	start   []mgl64.Vec3 // ω̂ at the start of the last step that counted
	end     []mgl64.Vec3 // ω after it
	bodies  []*body.Body // the body each index held
	valid   bool         // start, end and bodies are that step's
	pending []mgl64.Vec3 // this step's ω̂ (extrapolate), kept by endStep
	fresh   bool         // extrapolate recorded pending in this step
}

// usable reports whether the recorded ω̂ of index i is b's and b's ω is
// still what the last step left: the same body at the same index, not
// edited since (a user's or a controller's new ω, a body moved in from
// elsewhere, a woken body's push).
func (p *driftPrev) usable(i int, b *body.Body) bool {
	return p.valid && i < len(p.bodies) && p.bodies[i] == b && p.end[i] == b.AngVel
}

// endStep records, at the end of a step that counted, the ω̂ that the
// step's extrapolate saw and the bodies' ω now; after a step without the
// prediction (another JointCorrection or Stabilization, no awake joint)
// it forgets the last step's.
func (p *driftPrev) endStep(bodies []*body.Body) {
	p.valid = p.fresh && len(p.pending) == len(bodies)
	p.fresh = false
	if !p.valid {
		return
	}
	p.start, p.pending = p.pending, p.start
	p.end = grow(p.end, len(bodies))
	for i, b := range bodies {
		p.end[i] = b.AngVel
	}
	p.bodies = append(p.bodies[:0], bodies...)
}

// turnOn returns w turned once more by the rotation that took the
// direction of p to that of w (its length kept): the next direction of
// an angular velocity that turns steadily, as a precessing top's does. It
// returns w when either is zero or they are 90° or more apart.
func turnOn(p, w mgl64.Vec3) mgl64.Vec3 {
	np, nw := p.Len(), w.Len()
	if np == 0 || nw == 0 {
		return w
	}
	c := p.Mul(1 / np).Cross(w.Mul(1 / nw))
	sn := c.Len()
	cs := p.Dot(w) / (np * nw)
	if sn == 0 || cs <= 0 {
		return w
	}
	return body.QuatExp(c.Mul(math.Atan2(sn, cs) / sn)).Rotate(w)
}

// contactDrift sets ContactInfo.Drift (SetDrift) on the step's contact
// points in the Regularized mode when a body that is not static turns; the
// points of the narrow phase start with none.
func (w *World) contactDrift(cs *contactStage) {
	if w.Settings.Stabilization != Regularized {
		return
	}
	turning := false
	for _, b := range w.Bodies {
		if !b.Static && b.AngVel != (mgl64.Vec3{}) {
			turning = true
			break
		}
	}
	if !turning {
		return
	}
	for i := range cs.points {
		cs.points[i].SetDrift(w.Bodies, w.Settings.H)
	}
}
