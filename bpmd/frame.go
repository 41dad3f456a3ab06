package bpmd

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
)

// MaxBodies is the number of Jacobian blocks stored per joint row
// (constraint.MaxBodies): a row touching fewer bodies pads with body −1 and
// zero blocks.
const MaxBodies = constraint.MaxBodies

// Frame is one time step's problem data, solution and solver history: one
// group /frames/NNNNNN of the file (see the package doc for the datasets).
// Slices of fixed-size arrays are the datasets' rows.
type Frame struct {
	Index int     // the stepper's step number (attribute "index")
	Time  float64 // s, at the start of the step (attribute "time")
	// H is the time step h (s): dataset "step".
	H float64
	// Gravity (m/s²), extra dataset "gravity". Forces in Bodies.Forces
	// include m·g; Bodies.Applied do not.
	Gravity [3]float64
	// Stabilization and Baumgarte are the stepper's mode and β (1/s), which
	// decide how a violation enters b (attributes).
	Stabilization string
	Baumgarte     float64
	// MaxCorrectingSpeed is the cap (m/s or rad/s) on the regularized
	// position feedback that the step used (attribute
	// "max_correcting_speed", stepper.Settings.CorrectingSpeed; +Inf for
	// none); 0, as in files written before it, means the stepper's
	// default for the frame's h.
	MaxCorrectingSpeed float64
	// JointCorrection is stepper.Settings.JointCorrection's name
	// (attribute "joint_correction", written when not "default"): with
	// "projection" a rigid joint row with a drift gets no φ in b; "", as
	// in files written before it, is the default.
	JointCorrection string

	Bodies   Bodies
	Joints   Joints
	Contacts Contacts
	Solution Solution
}

// Bodies is Table 2's "bodies" group, n_b bodies, state at the start of the
// step (after the world's controllers ran).
type Bodies struct {
	IDs    []int64      // ids (n_b): the index in World.Bodies
	Masses []float64    // masses (n_b), kg; static bodies keep their stored mass
	Forces [][6]float64 // forces (n_b × 6): [f + m g; τ], N and N·m
	// Inertia (n_b × 3 × 3, stored as 3n_b × 3): body-frame inertia about
	// the centre of mass, kg·m²; the world inertia is R I Rᵀ with R from
	// Quaternions.
	Inertia     [][9]float64
	Positions   [][3]float64 // positions (n_b × 3), m
	Quaternions [][4]float64 // quaternion (n_b × 4): real part first
	Velocities  [][6]float64 // velocities (n_b × 6): [v; ω], world frame
	// Extras.
	Static  []bool       // static (n_b, uint8): infinite mass
	Applied [][6]float64 // applied (n_b × 6): [f; τ] without gravity
}

// Joints is Table 2's "bilateral constraints" group: n_j joints of
// World.Joints with R rows in all. gorigid's joint rows also include
// limits, motors and joint friction (bounded rows); Kinds says which.
type Joints struct {
	// Rows (n_j × 3): first row, row count and bodies touched of each
	// joint; the rows of joint k are [Rows[k][0], Rows[k][0]+Rows[k][1]).
	Rows [][3]int64
	// Pairs (n_j × 2): the joint's first two bodies, −1 for the world.
	Pairs [][2]int64
	// Per row (R):
	Violations []float64                // violations: φ (m or rad; 0 for velocity rows)
	Jacobians  [][6 * MaxBodies]float64 // jacobians (R × 24): one [v ω] block per body of RowBodies
	Bounds     [][2]float64             // bounds (R × 2): lo, hi in impulse units; ±Inf = none
	// Extras, per row.
	RowBodies  [][MaxBodies]int64 // row_bodies (R × 4): body ids of the blocks, −1 = unused
	Kinds      []int64            // kinds: constraint.Kind
	Stiffness  []float64          // stiffness k (0 or +Inf = rigid)
	Damping    []float64          // damping: SPOOK damping time d (s)
	Speed      []float64          // speed: target velocity of motors (m/s or rad/s)
	Compliance []float64          // compliance: c of Row.Compliance(h), kg⁻¹ (derived, for readers)
	Drift      []float64          // drift: constraint.Row.Drift, the row's second-order change over the step (m or rad; 0 = none)
	// Viscous (R): constraint.Row.Viscous, the implicit spring-damper's
	// viscous coefficient c_d (N·s/m or N·m·s/rad; 0 = none) of Spring rows
	// (joint damping, armature, position servos). Absent in files of
	// format version 1: 0.
	Viscous []float64
}

// Contacts is Table 2's "unilateral constraints" group, n_c points.
type Contacts struct {
	Gap     []float64    // gap (n_c): φ, m; > 0 separated
	Pairs   [][2]int64   // pairs (n_c × 2): body ids, −1 = the world (fixed or static)
	Mu      [][2]float64 // mu (n_c × 2): μ along both friction directions (isotropic: equal)
	Normals [][3]float64 // normals (n_c × 3): unit, away from the first body
	// Points (n_c × 3): from the first body's centre of mass to the contact
	// point, world axes (the contact point itself when the first body is
	// the world).
	Points [][3]float64
	// Extras.
	PointsWorld [][3]float64 // points_world (n_c × 3): the contact point, m
	XN          []float64    // xn: x̂ₙ (N·s), friction bounds are ±μ x̂ₙ
	Directions  [][3]float64 // directions (n_c × 3): t₁; t₂ = n × t₁
	RowIndex    [][2]int64   // rows (n_c × 2): first row in z, row count
	Roll        []float64    // roll: rolling coefficient c_rr (m), 0 = no rolling row
	RollAxis    [][3]float64 // roll_axis (n_c × 3)
	RollBound   []float64    // roll_bound (N·m·s)
	Stiffness   []float64    // stiffness: normal-row contact stiffness k (N/m), 0 = rigid
	Damping     []float64    // damping: normal-row SPOOK damping time (s)
	// Bounce (n_c): the normal row's restitution target (m/s), 0 = none
	// (stepper.ContactInfo.Bounce; absent in older files: 0).
	Bounce []float64
}

// Solution is Table 2's "solution" group.
type Solution struct {
	Z          []float64 // z: the impulses x the stepper used (N·s or N·m·s), one per MLCP row
	Iterations int       // iterations of the solver
	// Per iteration (iter): the paper's total error ½‖φ_FB‖² (Eq. 16) over
	// all rows, the normal part (contact normal rows only) and the friction
	// error Σ (u|w| + x w) over friction rows (slip velocity times the
	// friction impulse's distance from the bound that opposes it, J).
	TotalError    []float64
	NormalError   []float64
	FrictionError []float64
	Stick         []bool // stick (n_c): the contact's friction rows are all free (not sliding)
	// Extras.
	W []float64 // w = A z + b (m/s or rad/s)
	// Reference (rows): the proximal centre x̄ the step's solve started
	// from (lcp.Settings.Reference, stepper.World.LastReference: the
	// pre-solve's x or, with stepper.Settings.Coherent, the last step's
	// impulses), N·s or N·m·s; nil for x̄ = 0, as in files of format
	// version 2 and older. Rebuild returns it as Layout.Reference.
	Reference []float64
	States    []int8    // states: lcp.State per row (0 free, 1 lower, 2 upper)
	Picked    int       // picked: the iteration whose iterate is z
	Status    string    // attribute "status": of z, the picked iterate (converged, unconverged, budget_exhausted, failed; see errmeasure.Solve)
	Solver    string    // attribute "solver"
	Pick      string    // attribute "pick": the error measure that picked z
	FB        []float64 // fb_error: ‖δψ_FB‖₁ per iteration (Enzenhöfer et al. 2019 Eq. 7)
	Residual  []float64 // residual_error: natural residual per iteration (Eq. 10)
	Energy    []float64 // energy_error: per iteration (Eq. 23), J
}

// JointRowCount returns R, the number of joint rows.
func (f *Frame) JointRowCount() int { return len(f.Joints.Violations) }

// RowCount returns the number of rows of the boxed MLCP the stepper
// solved: joint rows, then each contact's rows.
func (f *Frame) RowCount() int {
	n := f.JointRowCount()
	for _, r := range f.Contacts.RowIndex {
		n += int(r[1])
	}
	return n
}

// Validate checks the frame's sizes and values; errors name the dataset,
// the row and the value.
func (f *Frame) Validate() error {
	if !(f.H > 0) || math.IsInf(f.H, 0) {
		return fieldErr("step", f.H, "time step must be finite and > 0, got %v", f.H)
	}
	if err := f.validateBodies(); err != nil {
		return err
	}
	if err := finiteRow("gravity", 0, f.Gravity[:]); err != nil {
		return err
	}
	if err := f.validateJoints(); err != nil {
		return err
	}
	n, err := f.validateContacts()
	if err != nil {
		return err
	}
	return f.validateSolution(n)
}

// validateBodies checks the bodies group: every column one row per body,
// ids in order, masses, finite states, unit quaternions.
func (f *Frame) validateBodies() error {
	b := &f.Bodies
	nb := len(b.IDs)
	for _, lc := range []lenCheck{
		{"bodies/masses", len(b.Masses)}, {"bodies/forces", len(b.Forces)}, {"bodies/inertia", len(b.Inertia)},
		{"bodies/positions", len(b.Positions)}, {"bodies/quaternion", len(b.Quaternions)},
		{"bodies/velocities", len(b.Velocities)}, {"bodies/static", len(b.Static)}, {"bodies/applied", len(b.Applied)},
	} {
		if lc.n != nb {
			return fieldErr(lc.name, lc.n, "has %d rows, bodies/ids has %d", lc.n, nb)
		}
	}
	for i := 0; i < nb; i++ {
		if b.IDs[i] != int64(i) {
			return fieldErr(fmt.Sprintf("bodies/ids[%d]", i), b.IDs[i], "want %d (ids are body indices in order), got %d", i, b.IDs[i])
		}
		if !b.Static[i] && !(b.Masses[i] > 0 && !math.IsInf(b.Masses[i], 0)) {
			return fieldErr(fmt.Sprintf("bodies/masses[%d]", i), b.Masses[i], "must be finite and > 0 for a dynamic body, got %v", b.Masses[i])
		}
		if err := finiteRow("bodies/inertia", i, b.Inertia[i][:]); err != nil {
			return err
		}
		for _, c := range []struct {
			n string
			v []float64
		}{{"bodies/positions", b.Positions[i][:]}, {"bodies/quaternion", b.Quaternions[i][:]}, {"bodies/velocities", b.Velocities[i][:]}, {"bodies/applied", b.Applied[i][:]}} {
			if err := finiteRow(c.n, i, c.v); err != nil {
				return err
			}
		}
		q := b.Quaternions[i]
		if l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]); math.Abs(l-1) > 1e-6 {
			return fieldErr(fmt.Sprintf("bodies/quaternion[%d]", i), q, "must be a unit quaternion, has length %v", l)
		}
	}
	return nil
}

// validateJoints checks the joints group: one row per joint row in every
// column, each joint's rows following the last, the rows' bodies dynamic,
// finite Jacobians and consistent bounds, compliance and kinds.
func (f *Frame) validateJoints() error {
	b := &f.Bodies
	nb := len(b.IDs)
	j := &f.Joints
	r := len(j.Violations)
	for _, lc := range []lenCheck{
		{"joints/jacobians", len(j.Jacobians)}, {"joints/bounds", len(j.Bounds)}, {"joints/row_bodies", len(j.RowBodies)},
		{"joints/kinds", len(j.Kinds)}, {"joints/stiffness", len(j.Stiffness)}, {"joints/damping", len(j.Damping)},
		{"joints/speed", len(j.Speed)}, {"joints/compliance", len(j.Compliance)}, {"joints/drift", len(j.Drift)},
		{"joints/viscous", len(j.Viscous)},
	} {
		if lc.n != r {
			return fieldErr(lc.name, lc.n, "has %d rows, joints/violations has %d", lc.n, r)
		}
	}
	if len(j.Pairs) != len(j.Rows) {
		return fieldErr("joints/pairs", len(j.Pairs), "has %d rows, joints/rows has %d", len(j.Pairs), len(j.Rows))
	}
	next := int64(0)
	for k, jr := range j.Rows {
		if jr[0] != next || jr[1] < 0 || jr[0]+jr[1] > int64(r) {
			return fieldErr(fmt.Sprintf("joints/rows[%d]", k), jr, "rows [%d, %d+%d) do not follow the previous joint's or exceed the %d rows", jr[0], jr[0], jr[1], r)
		}
		next = jr[0] + jr[1]
	}
	if next != int64(r) {
		return fieldErr("joints/rows", next, "cover %d rows, joints/violations has %d", next, r)
	}
	for i := 0; i < r; i++ {
		for k, id := range j.RowBodies[i] {
			if id < -1 || id >= int64(nb) || (id >= 0 && b.Static[id]) {
				return fieldErr(fmt.Sprintf("joints/row_bodies[%d][%d]", i, k), id, "must be −1 or a dynamic body in [0, %d), got %d", nb, id)
			}
		}
		if err := finiteRow("joints/jacobians", i, j.Jacobians[i][:]); err != nil {
			return err
		}
		lo, hi := j.Bounds[i][0], j.Bounds[i][1]
		if math.IsNaN(lo) || math.IsNaN(hi) || lo > hi || math.IsInf(lo, 1) || math.IsInf(hi, -1) {
			return fieldErr(fmt.Sprintf("joints/bounds[%d]", i), j.Bounds[i], "need lo ≤ hi, lo < +Inf, hi > −Inf, got [%v, %v]", lo, hi)
		}
		for _, c := range []struct {
			name string
			v    float64
			ok   bool
			want string
		}{
			{"joints/violations", j.Violations[i], finite(j.Violations[i]), "finite"},
			{"joints/speed", j.Speed[i], finite(j.Speed[i]), "finite"},
			{"joints/drift", j.Drift[i], finite(j.Drift[i]), "finite"},
			{"joints/damping", j.Damping[i], finite(j.Damping[i]) && j.Damping[i] >= 0, "finite and ≥ 0"},
			{"joints/stiffness", j.Stiffness[i], j.Stiffness[i] >= 0, "≥ 0 (+Inf = rigid)"},
		} {
			if !c.ok {
				return fieldErr(fmt.Sprintf("%s[%d]", c.name, i), c.v, "must be %s, got %v", c.want, c.v)
			}
		}
		if v := j.Viscous[i]; !finite(v) || v < 0 || (v > 0 && j.Damping[i] > 0) {
			return fieldErr(fmt.Sprintf("joints/viscous[%d]", i), v, "must be finite and ≥ 0, and 0 where damping is set (%v), got %v", j.Damping[i], v)
		}
		if j.Kinds[i] < int64(constraint.Bilateral) || j.Kinds[i] > int64(constraint.Spring) {
			return fieldErr(fmt.Sprintf("joints/kinds[%d]", i), j.Kinds[i], "unknown kind %d", j.Kinds[i])
		}
	}
	return nil
}

// validateContacts checks the contacts group, one row per contact point in
// every column, with each point's rows at ContactInfo.Layout after the
// joint rows, and returns the frame's row count.
func (f *Frame) validateContacts() (int, error) {
	b := &f.Bodies
	nb := len(b.IDs)
	r := len(f.Joints.Violations)
	c := &f.Contacts
	nc := len(c.Gap)
	for _, lc := range []lenCheck{
		{"contacts/pairs", len(c.Pairs)}, {"contacts/mu", len(c.Mu)}, {"contacts/normals", len(c.Normals)},
		{"contacts/points", len(c.Points)}, {"contacts/points_world", len(c.PointsWorld)}, {"contacts/xn", len(c.XN)},
		{"contacts/directions", len(c.Directions)}, {"contacts/rows", len(c.RowIndex)}, {"contacts/roll", len(c.Roll)},
		{"contacts/roll_axis", len(c.RollAxis)}, {"contacts/roll_bound", len(c.RollBound)},
		{"contacts/stiffness", len(c.Stiffness)}, {"contacts/damping", len(c.Damping)}, {"contacts/bounce", len(c.Bounce)},
	} {
		if lc.n != nc {
			return 0, fieldErr(lc.name, lc.n, "has %d rows, contacts/gap has %d", lc.n, nc)
		}
	}
	row := int64(r)
	for i := 0; i < nc; i++ {
		for k, id := range c.Pairs[i] {
			if id < -1 || id >= int64(nb) || (id >= 0 && b.Static[id]) {
				return 0, fieldErr(fmt.Sprintf("contacts/pairs[%d][%d]", i, k), id, "must be −1 or a dynamic body in [0, %d), got %d", nb, id)
			}
		}
		if c.Pairs[i][0] == c.Pairs[i][1] {
			return 0, fieldErr(fmt.Sprintf("contacts/pairs[%d]", i), c.Pairs[i], "a body cannot touch itself (%d, %d)", c.Pairs[i][0], c.Pairs[i][1])
		}
		nonNeg := func(x float64) bool { return x >= 0 && finite(x) }
		for _, v := range []struct {
			name string
			v    float64
			ok   bool
			want string
		}{
			{"contacts/stiffness", c.Stiffness[i], c.Stiffness[i] >= 0, "≥ 0 N/m (+Inf = rigid)"},
			{"contacts/damping", c.Damping[i], nonNeg(c.Damping[i]), "finite and ≥ 0"},
			{"contacts/bounce", c.Bounce[i], nonNeg(c.Bounce[i]), "finite and ≥ 0 m/s"},
			{"contacts/gap", c.Gap[i], finite(c.Gap[i]), "finite"},
			{"contacts/mu", c.Mu[i][0], nonNeg(c.Mu[i][0]), "finite and ≥ 0"},
			{"contacts/xn", c.XN[i], nonNeg(c.XN[i]), "finite and ≥ 0"},
			{"contacts/roll", c.Roll[i], c.Roll[i] >= 0, "≥ 0"},
			{"contacts/roll_bound", c.RollBound[i], c.RollBound[i] >= 0, "≥ 0"},
		} {
			if !v.ok {
				return 0, fieldErr(fmt.Sprintf("%s[%d]", v.name, i), v.v, "must be %s, got %v", v.want, v.v)
			}
		}
		for _, v := range []struct {
			n string
			v []float64
		}{{"contacts/normals", c.Normals[i][:]}, {"contacts/points_world", c.PointsWorld[i][:]}, {"contacts/directions", c.Directions[i][:]}, {"contacts/roll_axis", c.RollAxis[i][:]}} {
			if err := finiteRow(v.n, i, v.v); err != nil {
				return 0, err
			}
		}
		ci := contactInfo(f, i)
		want := int64(ci.Layout().N)
		if c.RowIndex[i][0] != row || c.RowIndex[i][1] != want {
			return 0, fieldErr(fmt.Sprintf("contacts/rows[%d]", i), c.RowIndex[i], "want (%d, %d) from the rows before it, mu and roll, got (%d, %d)", row, want, c.RowIndex[i][0], c.RowIndex[i][1])
		}
		row += want
	}
	return int(row), nil
}

// validateSolution checks the solution group against the frame's n rows
// and its contacts.
func (f *Frame) validateSolution(n int) error {
	nc := len(f.Contacts.Gap)
	s := &f.Solution
	if len(s.Z) != 0 || len(s.W) != 0 || len(s.States) != 0 {
		if len(s.Z) != n {
			return fieldErr("solution/z", len(s.Z), "has %d entries, the frame has %d rows", len(s.Z), n)
		}
		if len(s.W) != n {
			return fieldErr("solution/w", len(s.W), "has %d entries, the frame has %d rows", len(s.W), n)
		}
		if len(s.States) != 0 && len(s.States) != n {
			return fieldErr("solution/states", len(s.States), "has %d entries, the frame has %d rows", len(s.States), n)
		}
		if len(s.Stick) != nc {
			return fieldErr("solution/stick", len(s.Stick), "has %d entries, the frame has %d contacts", len(s.Stick), nc)
		}
	}
	if len(s.Reference) != 0 && len(s.Reference) != len(s.Z) {
		return fieldErr("solution/reference", len(s.Reference), "has %d entries, solution/z has %d", len(s.Reference), len(s.Z))
	}
	for i, x := range s.Reference {
		if !finite(x) {
			return fieldErr(fmt.Sprintf("solution/reference[%d]", i), x, "must be finite, got %v", x)
		}
	}
	for i, st := range s.States {
		if st < 0 || st > 2 {
			return fieldErr(fmt.Sprintf("solution/states[%d]", i), st, "must be 0, 1 or 2, got %d", st)
		}
	}
	it := len(s.TotalError)
	for _, lc := range []lenCheck{{"solution/normal_error", len(s.NormalError)}, {"solution/friction_error", len(s.FrictionError)},
		{"solution/fb_error", len(s.FB)}, {"solution/residual_error", len(s.Residual)}, {"solution/energy_error", len(s.Energy)}} {
		if lc.n != it {
			return fieldErr(lc.name, lc.n, "has %d entries, solution/total_error has %d", lc.n, it)
		}
	}
	return nil
}

var finite = num.Finite

// fieldErr is the frame's error for one bad dataset entry: a
// *num.FieldError whose Field is the dataset path with its indices
// ("bodies/masses[2]") and whose Value is the offending value.
func fieldErr(field string, value any, format string, args ...any) error {
	return &num.FieldError{Field: field, Value: value, Reason: fmt.Sprintf(format, args...)}
}

func finiteRow(name string, i int, v []float64) error {
	for k, x := range v {
		if !finite(x) {
			return fieldErr(fmt.Sprintf("%s[%d][%d]", name, i, k), x, "must be finite, got %v", x)
		}
	}
	return nil
}

type lenCheck struct {
	name string
	n    int
}
