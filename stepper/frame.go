package stepper

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// ContactInfo describes one contact point of the last Step and where its
// rows sit in LastProblem: the record the step itself keeps per point,
// holding everything its rows are built from (the Rapier way: a contact
// constraint stores what a later stage re-derives its rows from). Read-only
// data for exporters such as the BPMD database (Lu et al. 2014, Table 2,
// "unilateral constraints"); its row methods (FillRows) rebuild the
// point's rows from it, as the step builds them, and Layout says where they
// sit.
type ContactInfo struct {
	// A and B are the body indices of the pair, constraint.World for fixed
	// geometry or a static body. The normal row pushes A along −Normal and B
	// along +Normal, so Normal points away from A's surface.
	A, B int
	// GeomA and GeomB are the geom indices (World.Geoms) of the pair.
	GeomA, GeomB int
	// Point is the contact point in world coordinates (m), Normal the unit
	// normal, Gap the signed gap φ at detection (m; > 0 separated, < 0
	// penetration), as the step's normal row used it.
	Point, Normal mgl64.Vec3
	Gap           float64
	// Mu is the pair's friction coefficient (0: no friction rows).
	Mu float64
	// Stiffness (N/m, 0 = rigid) and Damping (s) are the pair's contact
	// compliance on the normal row (Material, constraint.Row.Compliance).
	Stiffness, Damping float64
	// Bounce is the normal row's restitution target (m/s), 0 = none: a
	// point that reaches the surface within the step approaching at
	// Settings.BounceSpeed or more, with the pair's restitution e, gets
	// e·|v₋| without a normal acceleration, under gravity the velocity that
	// keeps e² of the approach's energy (Material.Restitution); the row
	// asks J v⁺ ≥ Bounce (constraint.Row.Bounce, honoured by Assemble). 0
	// also after PropagatedImpacts resolved the bounce before the solve.
	Bounce float64
	// XN is x̂ₙ (N·s), the normal impulse estimate behind the friction
	// bounds ±μ x̂ₙ: the previous step's normal impulse of the same contact
	// key, or for a new contact the pre-solve's (see fillContactRows).
	XN float64
	// T1 is the first friction direction (unit, ⊥ Normal) and T2 = Normal ×
	// T1 the second; both zero when Mu = 0.
	T1, T2 mgl64.Vec3
	// Roll is the rolling-resistance coefficient c_rr (m) of a rolling row
	// that follows this point's rows (the last point of a two-point
	// manifold), 0 if there is none; RollAxis is that row's unit axis u
	// (J = [0, −u] on A, [0, u] on B) and its bounds are ±RollBound (N·m·s).
	Roll      float64
	RollAxis  mgl64.Vec3
	RollBound float64
	// Drift (m) is the displacement of B's material point at Point
	// relative to A's over the step beyond its linear part h (v + ω×r),
	// when the two bodies turn together (SetDrift: a kinematic or dynamic
	// turntable and what rides on it): its friction rows ask the slip
	// t·(h J v⁺ + Drift) = 0, so that a body held by friction follows the
	// carrying body's arc, not its tangent. Zero on every other contact
	// (the world and static bodies carry nothing).
	Drift mgl64.Vec3
	// Row is the index of the point's normal row in LastProblem (joint rows
	// come first); the point owns Rows = Layout().N consecutive rows: the
	// normal row, then two friction rows when Mu > 0, then the rolling row
	// when Roll > 0.
	Row, Rows int
	// Fresh is true for a contact that had no impulse of its key in the
	// previous step (its x̂ₙ came from the pre-solve).
	Fresh bool
}

// ContactRows is where a contact's rows sit, as offsets from its normal
// row (offset 0): the one contact row layout, which the step, World.Contacts,
// RowLabels and package bpmd all take from ContactInfo.Layout.
type ContactRows struct {
	// Friction is the offset of the first of the two friction rows (t₁,
	// then t₂ at Friction+1), −1 when μ = 0.
	Friction int
	// Rolling is the offset of the rolling-resistance row, −1 without one.
	Rolling int
	// N is the number of rows, 1 to 4.
	N int
}

// Layout returns the layout of the contact's rows: the normal row, then two
// friction rows when Mu > 0, then a rolling row when Roll > 0 (which the
// step gives the last point of a two-point manifold whose pair has a
// rolling coefficient).
func (c *ContactInfo) Layout() ContactRows {
	l := ContactRows{Friction: -1, Rolling: -1, N: 1}
	if c.Mu > 0 {
		l.Friction, l.N = 1, 3
	}
	if c.Roll > 0 {
		l.Rolling = l.N
		l.N++
	}
	return l
}

// Contacts appends the last Step's contact points to dst[:0] and returns
// it, in row order. It allocates only when dst is too short, so a caller
// that keeps dst across steps allocates nothing in steady state. Before the
// first step it returns dst[:0]. Called during a Step (from the step's
// solver or its Observer) it reports the step in progress, whose rows and
// bounds are final by then.
func (w *World) Contacts(dst []ContactInfo) []ContactInfo {
	dst = dst[:0]
	for i := range w.ws.contacts.points {
		dst = append(dst, w.ws.contacts.points[i].ContactInfo)
	}
	return dst
}

// RowLabel says what one row of LastProblem is: which joint or contact it
// belongs to, between which bodies it acts and, for a contact row, along
// which direction. RowLabels gives one per row.
type RowLabel struct {
	// Kind is the row's kind (constraint.Row.Kind).
	Kind constraint.Kind
	// Joint is the index in World.Joints of a joint row's joint and
	// JointRow the row's place among that joint's rows (0 to Dim()−1);
	// Joint is −1 for a contact row.
	Joint, JointRow int
	// Contact is the index in World.Contacts of a contact row's point, −1
	// for a joint row.
	Contact int
	// Bodies are a contact's A and B (B pushed along +Direction) or a
	// joint's first two bodies (constraint.Constraint.Bodies), indices into
	// World.Bodies; constraint.World (−1) for the world, for a static body
	// in a contact (ContactInfo) and where a joint has fewer bodies.
	Bodies [2]int
	// Geoms are a contact's two geoms (World.Geoms), −1 for a joint row.
	Geoms [2]int
	// Direction is a contact row's unit direction: the normal, t₁, t₂ = n ×
	// t₁ or the rolling axis (an angular direction); zero for a joint row.
	Direction mgl64.Vec3
}

// RowLabels appends to dst[:0] a label for each row of the last Step's
// LastProblem, in row order, and returns it: the joint rows of World.Joints
// in order, then each contact's rows at its ContactInfo.Layout. It
// allocates only when dst is too short. Before the first step it returns
// dst[:0]; during a Step (from its solver or Observer) it labels the step
// in progress.
func (w *World) RowLabels(dst []RowLabel) []RowLabel {
	dst = dst[:0]
	ws := &w.ws
	if len(ws.build.jdims) != len(w.Joints) { // no step yet, or joints added since
		return dst
	}
	for j, d := range ws.build.jdims {
		l := RowLabel{Joint: j, Contact: -1, Bodies: [2]int{constraint.World, constraint.World}, Geoms: [2]int{-1, -1}}
		for k, b := range w.Joints[j].Bodies() {
			if k < 2 {
				l.Bodies[k] = b
			}
		}
		for r := 0; r < d; r++ {
			l.JointRow = r
			l.Kind = ws.build.rows[len(dst)].Kind
			dst = append(dst, l)
		}
	}
	for i := range ws.contacts.points {
		c := &ws.contacts.points[i].ContactInfo
		lay := c.Layout()
		l := RowLabel{Joint: -1, JointRow: -1, Contact: i, Bodies: [2]int{c.A, c.B}, Geoms: [2]int{c.GeomA, c.GeomB}}
		for r := 0; r < lay.N; r++ {
			switch r {
			case 0:
				l.Kind, l.Direction = constraint.ContactNormal, c.Normal
			case lay.Friction:
				l.Kind, l.Direction = constraint.ContactFriction, c.T1
			case lay.Friction + 1:
				l.Kind, l.Direction = constraint.ContactFriction, c.T2
			case lay.Rolling:
				l.Kind, l.Direction = constraint.RollingFriction, c.RollAxis
			}
			dst = append(dst, l)
		}
	}
	return dst
}

// JointRows returns the number of joint rows of the last Step: rows
// [0, JointRows()) of LastProblem come from World.Joints in order, each
// joint contributing Dim() rows; contact rows follow. 0 before the first
// step; during a Step (from its solver) the step in progress.
func (w *World) JointRows() int { return w.ws.build.nj }

// JointDrift appends to dst the constraint.Row.Drift of each joint row of
// the last Step (during a Step, from its solver: the step in progress), in
// the order of LastProblem's rows, and returns it: the second-order change
// of φ over the step that the step's b includes (World.Step's drift
// prediction; 0 for rows without one).
func (w *World) JointDrift(dst []float64) []float64 {
	for i := 0; i < w.ws.build.nj && i < len(w.ws.build.rows); i++ {
		dst = append(dst, w.ws.build.rows[i].Drift)
	}
	return dst
}

// LastStates returns the final index set of every row of the last Step's
// solve (lcp.Result.States: free, at the lower or at the upper bound), a
// view valid until the next Step; nil before the first step or when the
// solver reported none. Given as Settings.Start, they let a pivoting
// solver reproduce the step's solution of a rebuilt problem.
func (w *World) LastStates() []lcp.State {
	if w.steps == 0 || len(w.ws.solve.res.States) != len(w.ws.build.rows) {
		return nil
	}
	return w.ws.solve.res.States
}
