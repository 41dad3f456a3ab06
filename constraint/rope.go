package constraint

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
)

var (
	_ Positional = (*Rope)(nil)
	_ Positional = (*Universal)(nil)
)

// Rope keeps the anchors of A and B at most L apart (a maximum-distance
// joint, Box2D's rope joint): one unilateral row of kind LimitUpper,
// φ = L − |d| ≥ 0 with d = w_a − w_b, n = d/|d|, J_a = −[n, r_a × n],
// J_b = [n, r_b × n], impulse x ≥ 0 (the rope pulls, never pushes). While
// slack (φ > 0) the row enters as the gap φ/h, so the bodies move freely
// until the rope is taut. If the anchors coincide n is undefined and world
// z is used (the rope is then far from taut). SetSoft makes it elastic.
type Rope struct {
	Distance
}

// NewRope ties the world points pivotA (on a) and pivotB (on b), given in
// the current pose, with a rope of length length (m, finite and > 0).
func NewRope(bodies []*body.Body, a, b int, pivotA, pivotB mgl64.Vec3, length float64) (*Rope, error) {
	d, err := newDistance("rope joint", bodies, a, b, pivotA, pivotB, length)
	if err != nil {
		return nil, err
	}
	return &Rope{*d}, nil
}

// Fill writes the row: Distance's with the sign flipped, φ = L − |d|.
func (j *Rope) Fill(rows []Row, ctx *Context) error {
	if err := checkStep(j.what, rows, 1, ctx); err != nil {
		return err
	}
	l, ja, jb, err := j.line(ctx)
	if err != nil {
		return err
	}
	r := &rows[0]
	r.reset(LimitUpper)
	r.Phi, r.Lo = j.length-l, 0
	r.Stiffness, r.Damping = j.k, j.d
	r.add(j.ids[0], ja[0].Mul(-1), ja[1].Mul(-1))
	r.add(j.ids[1], jb[0].Mul(-1), jb[1].Mul(-1))
	return nil
}

// Violation writes φ = L − |d| (m; negative when overstretched).
func (j *Rope) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}

// Universal is a universal (Cardan, Hooke) joint: a ball joint at the
// pivot plus one row keeping axis n_a, fixed in A, perpendicular to axis
// n_b, fixed in B: φ = n_a·n_b, J_a = [0, n_a × n_b], J_b = −J_a (from
// d(a·b)/dt = (ω_a − ω_b)·(a × b)). A turns relative to B about n_a and
// n_b, not about the third direction n_a × n_b. 4 bilateral rows.
type Universal struct {
	pair
	la, lb mgl64.Vec3
	na, nb mgl64.Vec3 // axes in A's and B's frames
}

// NewUniversal joins a and b (one may be World) at the world point pivot
// with world axes axisA (turning with A) and axisB (turning with B), given
// in the current pose; they must be perpendicular (|cos| ≤ 1e-6).
func NewUniversal(bodies []*body.Body, a, b int, pivot, axisA, axisB mgl64.Vec3) (*Universal, error) {
	p, err := newPair("universal joint", bodies, a, b)
	if err != nil {
		return nil, err
	}
	if err := finitePoint(p.what, "pivot", pivot); err != nil {
		return nil, err
	}
	na, err := unitAxis(p.what, "axis A", axisA)
	if err != nil {
		return nil, err
	}
	nb, err := unitAxis(p.what, "axis B", axisB)
	if err != nil {
		return nil, err
	}
	if c := na.Dot(nb); math.Abs(c) > 1e-6 {
		return nil, fieldErr(p.what, "axes", c, "axis A %v and axis B %v must be perpendicular, got cos = %v", axisA, axisB, c)
	}
	sa, sb := localPose(bodies, a), localPose(bodies, b)
	return &Universal{pair: p, la: sa.toLocalPoint(pivot), lb: sb.toLocalPoint(pivot),
		na: sa.toLocalVec(na), nb: sb.toLocalVec(nb)}, nil
}

// Dim returns 4.
func (j *Universal) Dim() int { return 4 }

// Fill writes the 3 ball rows and the axis row.
func (j *Universal) Fill(rows []Row, ctx *Context) error {
	if err := checkStep(j.what, rows, 4, ctx); err != nil {
		return err
	}
	pa, pb, err := j.poses(ctx)
	if err != nil {
		return err
	}
	j.ballRows(rows, pa, pb, j.la, j.lb)
	na, nb := pa.vec(j.na), pb.vec(j.nb)
	r := &rows[3]
	j.bilateral(r, na.Dot(nb))
	g := na.Cross(nb)
	r.add(j.ids[0], mgl64.Vec3{}, g)
	r.add(j.ids[1], mgl64.Vec3{}, g.Mul(-1))
	return nil
}

// Violation writes φ of the 4 rows (m ×3, then cos of the axes' angle).
func (j *Universal) Violation(ctx *Context, dst []float64) error {
	n := j.Dim()
	if err := checkDst(dst, n); err != nil {
		return err
	}
	var buf [maxJointRows]Row
	tmp := stepless(ctx)
	return copyPhi(j.Fill(buf[:n], &tmp), buf[:n], dst)
}
