package bpmd

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// Formulation selects the complementarity problem Rebuild builds from a
// frame (bpmd-benchmark-framework.md, "Dynamic formulations").
type Formulation int

const (
	// Box is the boxed MLCP gorigid's stepper solves
	// (energy-error-measure.md Eqs. 1–4): joint rows, then per contact a
	// normal row, two friction rows t₁, t₂ with bounds ±μ x̂ₙ (box
	// friction) and a rolling row; A = J M⁻¹ Jᵀ + C, b = J M⁻¹ p + Φ-terms.
	// It equals World.LastProblem row for row.
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
	return 0, fmt.Errorf("formulation: unknown value %q (want box, lcp or mixed)", s)
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
// errors name the dataset.
func Rebuild(f *Frame, form Formulation, o Options) (*lcp.Problem, *Layout, error) {
	if err := f.Validate(); err != nil {
		return nil, nil, err
	}
	m, err := newMassModel(f)
	if err != nil {
		return nil, nil, err
	}
	switch form {
	case Box:
		rows := jointRows(f)
		lay := &Layout{Joints: [2]int{0, len(rows)}, Directions: 2}
		for i := range f.Contacts.Gap {
			base := len(rows)
			rows = appendContactRows(rows, f, m, i)
			lay.Normal = append(lay.Normal, base)
			var fr []int
			roll := -1
			for k := base + 1; k < len(rows); k++ {
				if rows[k].Kind == constraint.ContactFriction {
					fr = append(fr, k)
				} else {
					roll = k
				}
			}
			lay.Friction = append(lay.Friction, fr)
			lay.Slide = append(lay.Slide, -1)
			lay.Rolling = append(lay.Rolling, roll)
		}
		a, b := assemble(f, m, rows)
		lo, hi := make([]float64, len(rows)), make([]float64, len(rows))
		for i := range rows {
			lo[i], hi[i] = rows[i].Lo, rows[i].Hi
		}
		return &lcp.Problem{A: a, B: b, Lo: lo, Hi: hi}, lay, nil
	case LCP, Mixed:
		return rebuildCone(f, m, form, o)
	}
	return nil, nil, fmt.Errorf("formulation: unknown value %d", int(form))
}

// massModel holds each body's inverse mass and world inverse inertia and
// its free velocity M⁻¹p = v + h M⁻¹ f, computed exactly as the stepper
// does (stepper.World.freeVelocities), so that A and b come out the same.
type massModel struct {
	bodies []*body.Body
	invI   []mgl64.Mat3
	vfree  [][6]float64
}

func newMassModel(f *Frame) (*massModel, error) {
	h := f.H
	g := mgl64.Vec3(f.Gravity)
	nb := len(f.Bodies.IDs)
	m := &massModel{bodies: make([]*body.Body, nb), invI: make([]mgl64.Mat3, nb), vfree: make([][6]float64, nb)}
	for i := 0; i < nb; i++ {
		fb := &f.Bodies
		q := fb.Quaternions[i]
		var in mgl64.Mat3
		for k := 0; k < 3; k++ {
			for l := 0; l < 3; l++ {
				in.Set(k, l, fb.Inertia[i][3*k+l])
			}
		}
		v, ap := fb.Velocities[i], fb.Applied[i]
		bd := &body.Body{
			Mass: fb.Masses[i], Inertia: in, Static: fb.Static[i],
			Pos:    mgl64.Vec3(fb.Positions[i]),
			Rot:    mgl64.Quat{W: q[0], V: mgl64.Vec3{q[1], q[2], q[3]}},
			Vel:    mgl64.Vec3{v[0], v[1], v[2]},
			AngVel: mgl64.Vec3{v[3], v[4], v[5]},
			Force:  mgl64.Vec3{ap[0], ap[1], ap[2]},
			Torque: mgl64.Vec3{ap[3], ap[4], ap[5]},
		}
		m.bodies[i] = bd
		if bd.Static {
			continue
		}
		m.invI[i] = bd.InvInertiaWorld()
		for _, x := range m.invI[i] {
			if math.IsNaN(x) {
				return nil, fmt.Errorf("bodies/inertia[%d]: singular or not finite", i)
			}
		}
		m.vfree[i] = bd.FreeVelocity(h, g)
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
		r.Stiffness, r.Damping, r.Speed = j.Stiffness[i], j.Damping[i], j.Speed[i]
	}
	return rows
}

// pointRow is stepper's contact row along d at x between bodies a (pushed
// along −d) and b (along +d): constraint.Row.SetPoint, as the stepper builds it.
func pointRow(r *constraint.Row, k constraint.Kind, m *massModel, a, b int, x, d mgl64.Vec3) {
	var ca, cb mgl64.Vec3
	if a != constraint.World {
		ca = m.bodies[a].Pos
	}
	if b != constraint.World {
		cb = m.bodies[b].Pos
	}
	r.SetPoint(k, a, ca, b, cb, x, d)
}

// appendContactRows appends contact i's box rows (stepper.fillContactRows).
func appendContactRows(rows []constraint.Row, f *Frame, m *massModel, i int) []constraint.Row {
	c := &f.Contacts
	a, b := int(c.Pairs[i][0]), int(c.Pairs[i][1])
	x, n := mgl64.Vec3(c.PointsWorld[i]), mgl64.Vec3(c.Normals[i])
	var r constraint.Row
	pointRow(&r, constraint.ContactNormal, m, a, b, x, n)
	r.Phi, r.Lo = c.Gap[i], 0
	r.Stiffness, r.Damping = c.Stiffness[i], c.Damping[i]
	rows = append(rows, r)
	if mu := c.Mu[i][0]; mu > 0 {
		t1 := mgl64.Vec3(c.Directions[i])
		bound := mu * c.XN[i]
		for _, t := range [2]mgl64.Vec3{t1, n.Cross(t1)} {
			pointRow(&r, constraint.ContactFriction, m, a, b, x, t)
			r.Lo, r.Hi = -bound, bound
			rows = append(rows, r)
		}
	}
	if c.Roll[i] > 0 {
		rows = append(rows, rollingRow(c, i))
	}
	return rows
}

func rollingRow(c *Contacts, i int) constraint.Row {
	var r constraint.Row
	u := mgl64.Vec3(c.RollAxis[i])
	r.Reset(constraint.RollingFriction)
	r.AddBody(int(c.Pairs[i][0]), mgl64.Vec3{}, u.Mul(-1))
	r.AddBody(int(c.Pairs[i][1]), mgl64.Vec3{}, u)
	r.Lo, r.Hi = -c.RollBound[i], c.RollBound[i]
	return r
}

// assemble returns A = J M⁻¹ Jᵀ + C and b for rows, as stepper.assemble
// computes them (same sums in the same order per entry).
func assemble(f *Frame, m *massModel, rows []constraint.Row) (*lcp.Dense, []float64) {
	n := len(rows)
	h := f.H
	a := lcp.NewDense(n, n, nil)
	b := make([]float64, n)
	jminv := make([][constraint.MaxBodies][6]float64, n)
	type inc struct{ row, slot int }
	byBody := make([][]inc, len(m.bodies))
	for i := range rows {
		r := &rows[i]
		jmp, jv := 0.0, 0.0
		for k := 0; k < r.N; k++ {
			bi := r.Body[k]
			bd := m.bodies[bi]
			jm := &jminv[i][k]
			im := bd.InvMass()
			jm[0], jm[1], jm[2] = im*r.J[k][0], im*r.J[k][1], im*r.J[k][2]
			ang := m.invI[bi].Mul3x1(mgl64.Vec3{r.J[k][3], r.J[k][4], r.J[k][5]})
			jm[3], jm[4], jm[5] = ang[0], ang[1], ang[2]
			byBody[bi] = append(byBody[bi], inc{i, k})
			for c := 0; c < 6; c++ {
				jmp += r.J[k][c] * m.vfree[bi][c]
			}
			jv += r.J[k][0]*bd.Vel[0] + r.J[k][1]*bd.Vel[1] + r.J[k][2]*bd.Vel[2] +
				r.J[k][3]*bd.AngVel[0] + r.J[k][4]*bd.AngVel[1] + r.J[k][5]*bd.AngVel[2]
		}
		c, pf, jf := r.Compliance(h)
		a.Add(i, i, c)
		b[i] = jmp + jf*jv - r.Speed + positionTerm(f, r, pf)
	}
	for bi, list := range byBody {
		if m.bodies[bi].Static {
			continue
		}
		for _, p := range list {
			jm := &jminv[p.row][p.slot]
			for _, q := range list {
				if q.row < p.row {
					continue
				}
				jq := &rows[q.row].J[q.slot]
				v := jm[0]*jq[0] + jm[1]*jq[1] + jm[2]*jq[2] + jm[3]*jq[3] + jm[4]*jq[4] + jm[5]*jq[5]
				a.Add(p.row, q.row, v)
				if q.row != p.row {
					a.Add(q.row, p.row, v)
				}
			}
		}
	}
	return a, b
}

// positionTerm is stepper.World.positionTerm for the frame's stabilization.
func positionTerm(f *Frame, r *constraint.Row, pf float64) float64 {
	if !r.Kind.Positional() {
		return pf * r.Phi
	}
	if r.Kind != constraint.Bilateral && r.Phi > 0 {
		return r.Phi / f.H
	}
	if r.Stiffness != 0 && !math.IsInf(r.Stiffness, 1) {
		return pf * r.Phi
	}
	switch f.Stabilization {
	case "none", "post":
		return 0
	case "baumgarte":
		return f.Baumgarte * r.Phi
	}
	return pf * r.Phi
}

// rebuildCone builds the LCP or Mixed form.
func rebuildCone(f *Frame, m *massModel, form Formulation, o Options) (*lcp.Problem, *Layout, error) {
	d := o.Directions
	if d == 0 {
		d = 4
	}
	if d < 3 {
		return nil, nil, fmt.Errorf("directions: need at least 3 friction directions for a cone, got %d", d)
	}
	c := &f.Contacts
	var rows []constraint.Row
	lay := &Layout{Directions: d}
	if form == Mixed {
		rows = jointRows(f)
	} else {
		if f.JointRowCount() > 0 {
			return nil, nil, fmt.Errorf("joints: the frame has %d joint rows, which the pure LCP cannot hold (use the mixed form)", f.JointRowCount())
		}
		for i, r := range c.Roll {
			if r > 0 {
				return nil, nil, fmt.Errorf("contacts/roll[%d]: rolling rows need the mixed form", i)
			}
		}
	}
	lay.Joints = [2]int{0, len(rows)}
	nc := len(c.Gap)
	lay.Normal = make([]int, nc)
	lay.Friction = make([][]int, nc)
	lay.Slide = make([]int, nc)
	lay.Rolling = make([]int, nc)
	var r constraint.Row
	for i := 0; i < nc; i++ {
		a, b := int(c.Pairs[i][0]), int(c.Pairs[i][1])
		pointRow(&r, constraint.ContactNormal, m, a, b, mgl64.Vec3(c.PointsWorld[i]), mgl64.Vec3(c.Normals[i]))
		r.Phi, r.Lo = c.Gap[i], 0
		r.Stiffness, r.Damping = c.Stiffness[i], c.Damping[i]
		lay.Normal[i] = len(rows)
		rows = append(rows, r)
	}
	for i := 0; i < nc; i++ {
		lay.Slide[i], lay.Rolling[i] = -1, -1
		if c.Mu[i][0] == 0 {
			continue
		}
		a, b := int(c.Pairs[i][0]), int(c.Pairs[i][1])
		n, t1 := mgl64.Vec3(c.Normals[i]), mgl64.Vec3(c.Directions[i])
		t2 := n.Cross(t1)
		for k := 0; k < d; k++ {
			th := 2 * math.Pi * float64(k) / float64(d)
			dir := t1.Mul(math.Cos(th)).Add(t2.Mul(math.Sin(th)))
			pointRow(&r, constraint.ContactFriction, m, a, b, mgl64.Vec3(c.PointsWorld[i]), dir)
			r.Lo = 0
			lay.Friction[i] = append(lay.Friction[i], len(rows))
			rows = append(rows, r)
		}
	}
	nv := len(rows)
	nroll := 0
	for i := 0; i < nc; i++ {
		if c.Roll[i] > 0 {
			nroll++
		}
	}
	a0, b0 := assemble(f, m, rows)
	ns := 0
	for i := 0; i < nc; i++ {
		if lay.Friction[i] != nil {
			lay.Slide[i] = nv + ns
			ns++
		}
	}
	// Rolling rows (Mixed) go last, after the sliding speeds.
	var rollRows []constraint.Row
	for i := 0; i < nc; i++ {
		if c.Roll[i] > 0 {
			lay.Rolling[i] = nv + ns + len(rollRows)
			rollRows = append(rollRows, rollingRow(c, i))
		}
	}
	n := nv + ns + len(rollRows)
	all := append(append([]constraint.Row(nil), rows...), make([]constraint.Row, ns)...)
	all = append(all, rollRows...)
	// The velocity part (joints, normals, directions, rolling) through one
	// assembly; the s rows and columns are added by hand.
	velRows := append(append([]constraint.Row(nil), rows...), rollRows...)
	av, bv := a0, b0
	if len(rollRows) > 0 {
		av, bv = assemble(f, m, velRows)
	}
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
		A.Set(s, lay.Normal[i], c.Mu[i][0]) // U
	}
	return &lcp.Problem{A: A, B: B, Lo: lo, Hi: hi}, lay, nil
}
