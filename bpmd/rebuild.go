package bpmd

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
)

// Formulation selects the complementarity problem Rebuild builds from a
// frame (Lu, Williams, Trinkle and Lacoursière, "A Framework for Problem
// Standardization and Algorithm Comparison in Multibody System", 2014,
// "Dynamic formulations").
type Formulation int

const (
	// Box is the boxed MLCP gorigid's stepper solves (Enzenhöfer, Peiret,
	// Teichmann and Kövecses, "A Unit-Consistent Error Measure for
	// Multibody Systems With Unilateral Constraints", 2019, Eqs. 1–4):
	// joint rows, then per contact a normal row, two friction rows t₁, t₂
	// with bounds ±μ x̂ₙ (box friction) and a rolling row; A = J M⁻¹ Jᵀ + C,
	// b = J M⁻¹ p + Φ-terms. It equals World.LastProblem entry for entry
	// (see Rebuild).
	Box Formulation = iota
	// LCP is the standard LCP of the paper's Eq. (11) with a polyhedral
	// friction cone of d directions and the sliding-speed variable s
	// (Stewart–Trinkle, Anitescu–Potra), unknowns z = [xₙ; β; s] ≥ 0:
	//
	//	[ N M⁻¹Nᵀ  N M⁻¹Dᵀ  0 ] [xₙ]   [ bₙ     ]
	//	[ D M⁻¹Nᵀ  D M⁻¹Dᵀ  E ] [β ] + [ D M⁻¹p ]  ⟂  z ≥ 0,
	//	[ U        −Eᵀ      0 ] [s ]   [ 0      ]
	//
	// N the normal rows, D the direction rows dₖ = cos(2πk/d) t₁ +
	// sin(2πk/d) t₂, E the 0/1 matrix that sums a contact's β, U = diag(μ).
	// s is the contact's sliding speed; at a solution Σβ ≤ μ xₙ, with
	// equality when it slides. It needs a frame without joint and rolling
	// rows (use Mixed).
	LCP
	// Mixed is the mixed LCP of the paper's Eqs. (9)–(10): the frame's
	// joint rows as in Box (bilateral rows free, limits and motors boxed),
	// then the LCP blocks of the contacts, then rolling rows as in Box.
	Mixed
)

func (f Formulation) String() string {
	switch f {
	case Box:
		return "box"
	case LCP:
		return "lcp"
	case Mixed:
		return "mixed"
	}
	return fmt.Sprintf("Formulation(%d)", int(f))
}

// ParseFormulation is the inverse of String.
func ParseFormulation(s string) (Formulation, error) {
	for f := Box; f <= Mixed; f++ {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fieldErr("formulation", s, "unknown value %q (want box, lcp or mixed)", s)
}

// Layout says where each unknown of a rebuilt problem sits (indices into
// x). Slices per contact have one entry per contact (−1 when absent).
type Layout struct {
	Joints     [2]int  // joint rows are [Joints[0], Joints[1])
	Normal     []int   // per contact: its normal impulse xₙ
	Friction   [][]int // per contact: its friction unknowns (Box: 2 rows; LCP/Mixed: d β's); nil if μ = 0
	Slide      []int   // per contact: the sliding speed s (LCP/Mixed), −1 otherwise
	Rolling    []int   // per contact: its rolling row, −1 if none
	Directions int     // d of LCP and Mixed; 2 (t₁, t₂) for Box
	// Reference is the proximal centre the step's solve started from
	// (Solution.Reference), to pass as lcp.Settings.Reference: Box only;
	// nil for x̄ = 0 and for the LCP and Mixed forms, whose unknowns differ.
	Reference []float64
}

// Options steer Rebuild. The zero value means the defaults.
type Options struct {
	// Directions is d, the number of friction directions per contact of the
	// LCP and Mixed forms, ≥ 3; 0 means 4 (±t₁, ±t₂: the pyramid with the
	// same facets as the box).
	Directions int
}

// Rebuild returns the problem of formulation form for frame f, with a
// dense A, and where its unknowns are. The frame is validated first;
// errors name the dataset. The rows and A and b come from the stepper's
// own assembly (stepper.ContactInfo's row methods, stepper.Mass and
// stepper.Assembly), so the Box form is World.LastProblem of the recorded
// step bit for bit, a bouncing contact's restitution target included
// (contacts/bounce; a file written before that dataset existed reads as no
// bounce, so its bouncing steps rebuild without their targets). The LCP
// and Mixed forms put the target on their normal rows the same way. That
// holds for a step with a
// constrained gyroscopic body too (stepper.Mass, stepper.Assembly): the
// frame's poses, velocities and torques give the same midpoint response
// R J_f⁻¹ Rᵀ, and A comes out non-symmetric as the stepper's did (the LCP
// and Mixed forms inherit it); a rebuilt step of more than
// stepper.MaxGyroscopicRows rows is symmetric, as the stepper's was.
//
// Block pivoting solves the Box form from the stored index sets
// (Solution.States) and Layout.Reference, the proximal centre the step
// started from, to the stored z: where A is semidefinite (a box resting
// on four points) the MLCP's solutions form a set, and which one lcp.BPP
// returns depends on that centre (stepper package doc, Coherent).
func Rebuild(f *Frame, form Formulation, o Options) (*lcp.Problem, *Layout, error) {
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	m, err := newFrameModel(f)
	if err != nil {
		return nil, nil, err
	}
	switch form {
	case Box:
		rows := make([]constraint.Row, f.RowCount())
		copy(rows, jointRows(f))
		lay := &Layout{Joints: [2]int{0, f.JointRowCount()}, Directions: 2, Reference: f.Solution.Reference}
		for i := range f.Contacts.Gap {
			ci := contactInfo(f, i)
			m.setDrift(&ci)
			ci.FillRows(rows[ci.Row:], m.mass.Bodies)
			l := ci.Layout()
			lay.Normal = append(lay.Normal, ci.Row)
			var fr []int
			if l.Friction > 0 {
				fr = []int{ci.Row + l.Friction, ci.Row + l.Friction + 1}
			}
			roll := -1
			if l.Rolling > 0 {
				roll = ci.Row + l.Rolling
			}
			lay.Friction = append(lay.Friction, fr)
			lay.Slide = append(lay.Slide, -1)
			lay.Rolling = append(lay.Rolling, roll)
		}
		var asm stepper.Assembly
		if err := asm.Assemble(&m.set, &m.mass, rows); err != nil {
			return nil, nil, err
		}
		return &lcp.Problem{A: dense(asm.Matrix()), B: asm.B, Lo: asm.Lo, Hi: asm.Hi}, lay, nil
	case LCP, Mixed:
		return rebuildCone(f, m, form, o)
	}
	return nil, nil, fieldErr("formulation", form, "unknown value %d", int(form))
}

// frameModel is a frame's step as the stepper's assembly takes it: the
// step's settings (h, gravity, stabilization mode and β) and the bodies at
// the step's start with their M⁻¹ and free velocities M⁻¹p.
type frameModel struct {
	set  stepper.Settings
	mass stepper.Mass
}

func newFrameModel(f *Frame) (*frameModel, error) {
	mode := stepper.Regularized // the reader's default for a file without the attribute
	if f.Stabilization != "" {
		var err error
		if mode, err = stepper.ParseStabilization(f.Stabilization); err != nil {
			return nil, err
		}
	}
	if mode == stepper.Baumgarte && !(f.Baumgarte >= 0 && finite(f.Baumgarte)) {
		return nil, fieldErr("baumgarte", f.Baumgarte, "must be finite and ≥ 0 (1/s) with stabilization baumgarte, got %v", f.Baumgarte)
	}
	if !(f.MaxCorrectingSpeed >= 0) {
		return nil, fieldErr("max_correcting_speed", f.MaxCorrectingSpeed, "must be ≥ 0 m/s (0 = the default, +Inf = no cap), got %v", f.MaxCorrectingSpeed)
	}
	var jc stepper.JointCorrection
	if f.JointCorrection != "" {
		var err error
		if jc, err = stepper.ParseJointCorrection(f.JointCorrection); err != nil {
			return nil, fieldErr("joint_correction", f.JointCorrection, "%v", err)
		}
	}
	m := &frameModel{set: stepper.Settings{H: f.H, Gravity: mgl64.Vec3(f.Gravity), Stabilization: mode, Baumgarte: f.Baumgarte,
		MaxCorrectingSpeed: f.MaxCorrectingSpeed, JointCorrection: jc}}
	fb := &f.Bodies
	bodies := make([]*body.Body, len(fb.IDs))
	for i := range bodies {
		q := fb.Quaternions[i]
		var in mgl64.Mat3
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				in.Set(k, l, fb.Inertia[i][3*k+l])
			}
		}
		v, ap := fb.Velocities[i], fb.Applied[i]
		bodies[i] = &body.Body{
			Mass: fb.Masses[i], Inertia: in, Static: fb.Static[i],
			Pos:    mgl64.Vec3(fb.Positions[i]),
			Rot:    mgl64.Quat{W: q[0], V: mgl64.Vec3{q[1], q[2], q[3]}},
			Vel:    mgl64.Vec3{v[0], v[1], v[2]},
			AngVel: mgl64.Vec3{v[3], v[4], v[5]},
			Force:  mgl64.Vec3{ap[0], ap[1], ap[2]},
			Torque: mgl64.Vec3{ap[3], ap[4], ap[5]},
		}
	}
	m.mass.Update(bodies, f.H, m.set.Gravity)
	for i, ii := range m.mass.InvInertia {
		for _, x := range ii {
			if math.IsNaN(x) {
				return nil, fieldErr(fmt.Sprintf("bodies/inertia[%d]", i), f.Bodies.Inertia[i], "singular or not finite")
			}
		}
	}
	return m, nil
}

// jointRows returns the frame's joint rows as constraint rows.
func jointRows(f *Frame) []constraint.Row {
	j := &f.Joints
	rows := make([]constraint.Row, len(j.Violations))
	for i := range rows {
		r := &rows[i]
		r.Kind = constraint.Kind(j.Kinds[i])
		for k, id := range j.RowBodies[i] {
			if id < 0 {
				continue
			}
			r.Body[r.N] = int(id)
			copy(r.J[r.N][:], j.Jacobians[i][6*k:6*k+6])
			r.N++
		}
		r.Phi = j.Violations[i]
		r.Lo, r.Hi = j.Bounds[i][0], j.Bounds[i][1]
		r.Stiffness, r.Damping, r.Speed, r.Drift, r.Viscous = j.Stiffness[i], j.Damping[i], j.Speed[i], j.Drift[i], j.Viscous[i]
	}
	return rows
}

// setDrift gives c the friction drift the stepper's step gave it
// (stepper.ContactInfo.SetDrift, from the bodies' recorded start-of-step
// poses and velocities: the arc of one body's centre about the other's
// while the two turn together and the contact holds), which the stepper
// computes in the Regularized mode only; it is not recorded in the frame
// because it follows from the recorded state, as the stepper's own
// assembly does.
func (m *frameModel) setDrift(c *stepper.ContactInfo) {
	if m.set.Stabilization == stepper.Regularized {
		c.SetDrift(m.mass.Bodies, m.set.H)
	}
}

// contactInfo returns contact i of the frame as the stepper describes it
// (World.Contacts), from which the stepper's row methods rebuild its rows.
func contactInfo(f *Frame, i int) stepper.ContactInfo {
	c := &f.Contacts
	n, t1 := mgl64.Vec3(c.Normals[i]), mgl64.Vec3(c.Directions[i])
	return stepper.ContactInfo{
		A: int(c.Pairs[i][0]), B: int(c.Pairs[i][1]), GeomA: -1, GeomB: -1,
		Point: mgl64.Vec3(c.PointsWorld[i]), Normal: n, Gap: c.Gap[i],
		Mu: c.Mu[i][0], Stiffness: c.Stiffness[i], Damping: c.Damping[i], Bounce: c.Bounce[i],
		XN: c.XN[i], T1: t1, T2: n.Cross(t1),
		Roll: c.Roll[i], RollAxis: mgl64.Vec3(c.RollAxis[i]), RollBound: c.RollBound[i],
		Row: int(c.RowIndex[i][0]), Rows: int(c.RowIndex[i][1]),
	}
}

// dense returns a as a dense matrix.
func dense(a lcp.Matrix) *lcp.Dense {
	n, _ := a.Dims()
	d := lcp.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, a.At(i, j))
		}
	}
	return d
}

// rebuildCone builds the LCP or Mixed form.
func rebuildCone(f *Frame, m *frameModel, form Formulation, o Options) (*lcp.Problem, *Layout, error) {
	d := o.Directions
	if d == 0 {
		d = 4
	}
	if d < 3 {
		return nil, nil, fieldErr("directions", d, "need at least 3 friction directions for a cone, got %d", d)
	}
	// The frame's contacts as the stepper describes them, each with the
	// stepper's layout of its box rows, which says whether it has friction
	// and a rolling row.
	nc := len(f.Contacts.Gap)
	cis := make([]stepper.ContactInfo, nc)
	box := make([]stepper.ContactRows, nc)
	for i := range cis {
		cis[i] = contactInfo(f, i)
		m.setDrift(&cis[i])
		box[i] = cis[i].Layout()
	}
	var rows []constraint.Row
	lay := &Layout{Directions: d}
	if form == Mixed {
		rows = jointRows(f)
	} else {
		if f.JointRowCount() > 0 {
			return nil, nil, fmt.Errorf("joints: the frame has %d joint rows, which the pure LCP cannot hold (use the mixed form)", f.JointRowCount())
		}
		for i := range box {
			if box[i].Rolling >= 0 {
				return nil, nil, fieldErr(fmt.Sprintf("contacts/roll[%d]", i), f.Contacts.Roll[i], "rolling rows need the mixed form")
			}
		}
	}
	lay.Joints = [2]int{0, len(rows)}
	lay.Normal = make([]int, nc)
	lay.Friction = make([][]int, nc)
	lay.Slide = make([]int, nc)
	lay.Rolling = make([]int, nc)
	bodies := m.mass.Bodies
	var r constraint.Row
	for i := range cis {
		cis[i].NormalRow(&r, bodies)
		lay.Normal[i] = len(rows)
		rows = append(rows, r)
	}
	for i := range cis {
		lay.Slide[i], lay.Rolling[i] = -1, -1
		ci := &cis[i]
		if box[i].Friction < 0 {
			continue
		}
		for k := 0; k < d; k++ {
			th := 2 * math.Pi * float64(k) / float64(d)
			dir := ci.T1.Mul(math.Cos(th)).Add(ci.T2.Mul(math.Sin(th)))
			ci.DirectionRow(&r, constraint.ContactFriction, bodies, dir)
			r.Lo, r.Drift = 0, dir.Dot(ci.Drift)
			lay.Friction[i] = append(lay.Friction[i], len(rows))
			rows = append(rows, r)
		}
	}
	nv := len(rows)
	ns := 0
	for i := 0; i < nc; i++ {
		if lay.Friction[i] != nil {
			lay.Slide[i] = nv + ns
			ns++
		}
	}
	// Rolling rows (Mixed) go last, after the sliding speeds.
	var rollRows []constraint.Row
	for i := range cis {
		if box[i].Rolling >= 0 {
			lay.Rolling[i] = nv + ns + len(rollRows)
			cis[i].RollingRow(&r)
			rollRows = append(rollRows, r)
		}
	}
	n := nv + ns + len(rollRows)
	all := append(append([]constraint.Row(nil), rows...), make([]constraint.Row, ns)...)
	all = append(all, rollRows...)
	// The velocity part (joints, normals, directions, rolling) through one
	// assembly; the s rows and columns are added by hand.
	velRows := append(append([]constraint.Row(nil), rows...), rollRows...)
	var asm stepper.Assembly
	if err := asm.Assemble(&m.set, &m.mass, velRows); err != nil {
		return nil, nil, err
	}
	av, bv := asm.Matrix(), asm.B
	vIndex := func(k int) int { // index in velRows of unknown k (−1 for an s)
		switch {
		case k < nv:
			return k
		case k < nv+ns:
			return -1
		}
		return k - ns
	}
	A := lcp.NewDense(n, n, nil)
	B := make([]float64, n)
	lo, hi := make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		vi := vIndex(i)
		if vi >= 0 {
			for j := 0; j < n; j++ {
				if vj := vIndex(j); vj >= 0 {
					A.Set(i, j, av.At(vi, vj))
				}
			}
			B[i] = bv[vi]
			lo[i], hi[i] = velRows[vi].Lo, velRows[vi].Hi
			if rows := all[i]; rows.Kind == constraint.ContactFriction || rows.Kind == constraint.ContactNormal {
				lo[i], hi[i] = 0, math.Inf(1)
			}
		} else {
			lo[i], hi[i] = 0, math.Inf(1)
		}
	}
	for i := 0; i < nc; i++ {
		s := lay.Slide[i]
		if s < 0 {
			continue
		}
		for _, k := range lay.Friction[i] {
			A.Set(k, s, 1)  // E: w_β = D v⁺ + s ≥ 0
			A.Set(s, k, -1) // −Eᵀ
		}
		A.Set(s, lay.Normal[i], cis[i].Mu) // U
	}
	return &lcp.Problem{A: A, B: B, Lo: lo, Hi: hi}, lay, nil
}
