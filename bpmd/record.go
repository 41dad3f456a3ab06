package bpmd

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
)

// Recorder captures one Frame per step of a World through its public API
// only, without changing what Step computes:
//
//   - it is the world's last Controller, so at the start of each step, after
//     the scene's controllers have set forces and targets, it copies the
//     bodies' state and fills the joints' rows itself (Constraint.Fill is a
//     pure function of the poses, so the rows equal the step's), except
//     for their drift, which the stepper predicts and Solve copies
//     (World.JointDrift);
//   - it wraps the world's Solver, so it sees every iterate of the step's
//     solve (before the Picker does) and records the per-iteration errors;
//   - after Step, Frame reads the step's contacts (World.Contacts), the
//     solution (LastSolution, LastStates) and the statistics.
//
// Use NewRecorder after the world's Solver is set; call Frame after every
// Step whose frame is wanted. A Recorder is not safe for concurrent use.
type Recorder struct {
	w     *stepper.World
	inner lcp.Solver

	cur      Frame // bodies and joints of the step in progress
	contacts []stepper.ContactInfo
	rows     []constraint.Row
	solved   bool
	hist     Solution // per-iteration errors of the last solve
	normal   []bool   // row is a contact normal row
	friction []bool   // row is a contact friction row
}

var (
	_ stepper.Controller = (*Recorder)(nil)
	_ lcp.Solver         = (*Recorder)(nil)
)

// NewRecorder attaches a Recorder to w: it appends itself to w.Controllers
// and replaces w.Settings.Solver by itself, wrapping the solver that was
// set (nil means lcp.BPP, as in Step). It sets w.Settings.SingleProblem:
// a frame holds one MLCP per step, the world's (Rebuild), so the recorded
// solve and its per-iteration errors are that problem's, not its islands'
// one by one.
func NewRecorder(w *stepper.World) *Recorder {
	inner := w.Settings.Solver
	if inner == nil {
		inner = &lcp.BPP{}
	}
	r := &Recorder{w: w, inner: inner}
	w.Controllers = append(w.Controllers, r)
	w.Settings.Solver = r
	w.Settings.SingleProblem = true
	return r
}

// Name returns the wrapped solver's name.
func (r *Recorder) Name() string { return r.inner.Name() }

// Control snapshots the bodies and the joint rows at the start of a step.
func (r *Recorder) Control(w *stepper.World) error {
	f := &r.cur
	s := &w.Settings
	*f = Frame{
		Index: w.Steps() + 1, Time: w.Time(), H: s.H,
		Gravity:       [3]float64{s.Gravity[0], s.Gravity[1], s.Gravity[2]},
		Stabilization: s.Stabilization.String(), Baumgarte: s.Baumgarte,
		MaxCorrectingSpeed: s.CorrectingSpeed(),
	}
	if s.JointCorrection != stepper.JointCorrectionDefault {
		f.JointCorrection = s.JointCorrection.String()
	}
	b := &f.Bodies
	for i, bd := range w.Bodies {
		if bd.Kinematic {
			// The BPMD layout has no moving body of infinite mass: its
			// velocity would be lost from the rebuilt b.
			return fmt.Errorf("bpmd: body %d (%q) is kinematic: the BPMD layout has no kinematic bodies", i, bd.Name)
		}
		b.IDs = append(b.IDs, int64(i))
		b.Masses = append(b.Masses, bd.Mass)
		b.Static = append(b.Static, bd.Static)
		fg := bd.Force
		if !bd.Static {
			fg = fg.Add(s.Gravity.Mul(bd.Mass))
		}
		b.Forces = append(b.Forces, [6]float64{fg[0], fg[1], fg[2], bd.Torque[0], bd.Torque[1], bd.Torque[2]})
		b.Applied = append(b.Applied, [6]float64{bd.Force[0], bd.Force[1], bd.Force[2], bd.Torque[0], bd.Torque[1], bd.Torque[2]})
		var in [9]float64
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				in[3*k+l] = bd.Inertia.At(k, l)
			}
		}
		b.Inertia = append(b.Inertia, in)
		b.Positions = append(b.Positions, [3]float64(bd.Pos))
		b.Quaternions = append(b.Quaternions, [4]float64{bd.Rot.W, bd.Rot.V[0], bd.Rot.V[1], bd.Rot.V[2]})
		b.Velocities = append(b.Velocities, [6]float64{bd.Vel[0], bd.Vel[1], bd.Vel[2], bd.AngVel[0], bd.AngVel[1], bd.AngVel[2]})
	}
	j := &f.Joints
	ctx := constraint.Context{Bodies: w.Bodies, H: s.H}
	row := 0
	for k, c := range w.Joints {
		d := c.Dim()
		if cap(r.rows) < d {
			r.rows = make([]constraint.Row, d)
		}
		rows := r.rows[:d]
		if err := c.Fill(rows, &ctx); err != nil {
			return fmt.Errorf("bpmd: constraint %d: %w", k, err)
		}
		ids := c.Bodies()
		pair := [2]int64{-1, -1}
		for i := 0; i < len(ids) && i < 2; i++ {
			pair[i] = int64(ids[i])
		}
		j.Rows = append(j.Rows, [3]int64{int64(row), int64(d), int64(len(ids))})
		j.Pairs = append(j.Pairs, pair)
		for i := range rows {
			jr := &rows[i]
			var jac [6 * MaxBodies]float64
			rb := [MaxBodies]int64{-1, -1, -1, -1}
			for q := 0; q < jr.N; q++ {
				rb[q] = int64(jr.Body[q])
				copy(jac[6*q:6*q+6], jr.J[q][:])
			}
			cc, _, _ := jr.Compliance(s.H)
			j.Violations = append(j.Violations, jr.Phi)
			j.Jacobians = append(j.Jacobians, jac)
			j.Bounds = append(j.Bounds, [2]float64{jr.Lo, jr.Hi})
			j.RowBodies = append(j.RowBodies, rb)
			j.Kinds = append(j.Kinds, int64(jr.Kind))
			j.Stiffness = append(j.Stiffness, jr.Stiffness)
			j.Damping = append(j.Damping, jr.Damping)
			j.Speed = append(j.Speed, jr.Speed)
			j.Drift = append(j.Drift, jr.Drift)
			j.Viscous = append(j.Viscous, jr.Viscous)
			j.Compliance = append(j.Compliance, cc)
		}
		row += d
	}
	r.solved = false
	return nil
}

// Solve runs the wrapped solver with an Observer that records the paper's
// per-iteration errors, composed (lcp.Compose) before the caller's Observer
// (the Picker and the world's Settings.Observer), whose lcp.Stopper, if
// any, can still stop the solve.
func (r *Recorder) Solve(dst *lcp.Result, p *lcp.Problem, s lcp.Settings) error {
	n := p.N()
	r.contacts = r.w.Contacts(r.contacts)
	// The drift is the stepper's prediction (World.JointDrift), made
	// after the controllers ran: Control recorded 0.
	if d := r.w.JointDrift(r.cur.Joints.Drift[:0]); len(d) == len(r.cur.Joints.Violations) {
		r.cur.Joints.Drift = d
	}
	r.normal = growBool(r.normal, n)
	r.friction = growBool(r.friction, n)
	for _, c := range r.contacts {
		if c.Row < n {
			r.normal[c.Row] = true
		}
		if l := c.Layout(); l.Friction > 0 && c.Row+l.Friction+1 < n {
			r.friction[c.Row+l.Friction], r.friction[c.Row+l.Friction+1] = true, true
		}
	}
	h := &r.hist
	*h = Solution{}
	// The recording observer runs first, then the caller's (the step's
	// Picker and the world's Settings.Observer), composed so that a
	// caller's lcp.Stopper still stops the solve.
	s.Observer = lcp.Compose(lcp.ObserverFunc(func(it lcp.Iterate) {
		if len(it.X) == n && len(it.W) == n {
			tot, nor, fr := PaperErrors(p, it.X, it.W, r.normal, r.friction)
			t := errmeasure.Compute(p, it.X, it.W, nil)
			h.TotalError = append(h.TotalError, tot)
			h.NormalError = append(h.NormalError, nor)
			h.FrictionError = append(h.FrictionError, fr)
			h.FB = append(h.FB, t.FB)
			h.Residual = append(h.Residual, t.Residual)
			h.Energy = append(h.Energy, t.Energy)
		}
	}), s.Observer)
	r.solved = true
	return r.inner.Solve(dst, p, s)
}

// PaperErrors returns the errors that the BPMD paper stores per iteration
// for the candidate x with w = A x + b: the total ½‖φ_FB‖² (Eq. 16) with
// φ_FB of each row the box Fischer–Burmeister error δψ_FB (Eq. 6 of
// Enzenhöfer et al. 2019), its part over the rows flagged normal, and the
// friction error Σ (uᵢ|wᵢ| + xᵢ wᵢ)⁺ over the rows flagged friction, uᵢ =
// hiᵢ: the slip velocity times the distance of the friction impulse from
// the bound that opposes the slip (J; 0 when the row sticks or slides
// against its full bound). normal and friction may be nil.
func PaperErrors(p *lcp.Problem, x, w []float64, normal, friction []bool) (total, normalErr, frictionErr float64) {
	for i := range x {
		e := errmeasure.FBRow(x[i], w[i], p.Lo[i], p.Hi[i])
		total += 0.5 * e * e
		if i < len(normal) && normal[i] {
			normalErr += 0.5 * e * e
		}
		if i < len(friction) && friction[i] {
			u := p.Hi[i]
			if math.IsInf(u, 1) {
				continue
			}
			frictionErr += math.Max(0, u*math.Abs(w[i])+x[i]*w[i])
		}
	}
	return total, normalErr, frictionErr
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Frame returns the frame of the step just taken, with its statistics st
// (from World.Step). It is a new Frame that shares nothing with the
// Recorder or the world.
func (r *Recorder) Frame(st stepper.Stats) (*Frame, error) {
	w := r.w
	if w.Steps() != r.cur.Index {
		return nil, fmt.Errorf("bpmd: Frame: the recorder saw step %d, the world is at step %d (attach the recorder before stepping)", r.cur.Index, w.Steps())
	}
	f := r.cur
	r.cur = Frame{Index: -1}
	r.contacts = w.Contacts(r.contacts)
	c := &f.Contacts
	for _, ci := range r.contacts {
		c.Gap = append(c.Gap, ci.Gap)
		c.Pairs = append(c.Pairs, [2]int64{int64(ci.A), int64(ci.B)})
		c.Mu = append(c.Mu, [2]float64{ci.Mu, ci.Mu})
		c.Normals = append(c.Normals, [3]float64(ci.Normal))
		rel := ci.Point
		if ci.A != constraint.World {
			p0 := f.Bodies.Positions[ci.A] // the pose at the step's start, not the integrated one
			rel = [3]float64{ci.Point[0] - p0[0], ci.Point[1] - p0[1], ci.Point[2] - p0[2]}
		}
		c.Points = append(c.Points, [3]float64(rel))
		c.PointsWorld = append(c.PointsWorld, [3]float64(ci.Point))
		c.XN = append(c.XN, ci.XN)
		c.Directions = append(c.Directions, [3]float64(ci.T1))
		c.RowIndex = append(c.RowIndex, [2]int64{int64(ci.Row), int64(ci.Rows)})
		c.Roll = append(c.Roll, ci.Roll)
		c.RollAxis = append(c.RollAxis, [3]float64(ci.RollAxis))
		c.RollBound = append(c.RollBound, ci.RollBound)
		c.Stiffness = append(c.Stiffness, ci.Stiffness)
		c.Damping = append(c.Damping, ci.Damping)
		c.Bounce = append(c.Bounce, ci.Bounce)
	}
	s := &f.Solution
	x, wv := w.LastSolution()
	s.Z = append([]float64(nil), x...)
	s.W = append([]float64(nil), wv...)
	if ref := w.LastReference(); len(ref) == len(x) && len(x) > 0 {
		s.Reference = append([]float64(nil), ref...)
	}
	states := w.LastStates()
	for _, st := range states {
		s.States = append(s.States, int8(st))
	}
	s.Stick = make([]bool, len(r.contacts))
	for i, ci := range r.contacts {
		l := ci.Layout()
		if l.Friction < 0 || len(states) == 0 {
			continue
		}
		t := ci.Row + l.Friction
		s.Stick[i] = states[t] == lcp.Free && states[t+1] == lcp.Free
	}
	s.Iterations, s.Picked = st.Iterations, st.Picked
	s.Status = st.Status.String()
	s.Solver = r.inner.Name()
	s.Pick = w.Settings.Pick.String()
	if r.solved {
		h := &r.hist
		s.TotalError, s.NormalError, s.FrictionError = h.TotalError, h.NormalError, h.FrictionError
		s.FB, s.Residual, s.Energy = h.FB, h.Residual, h.Energy
		r.hist = Solution{}
	}
	if len(f.Solution.Z) == 0 {
		f.Solution.Stick = nil
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("bpmd: step %d: %w", f.Index, err)
	}
	return &f, nil
}
