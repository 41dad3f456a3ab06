package stepper

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
)

// GeomHit is a ray's hit on one geom of the world.
type GeomHit struct {
	contact.RayHit
	// Geom is the index in World.Geoms of the geom hit, Body its body
	// (constraint.World for fixed geometry).
	Geom, Body int
}

// RayFilter chooses the geoms a ray may hit: it returns false for a geom
// (an index into World.Geoms) the ray passes through. A nil RayFilter
// lets the ray hit every geom. Test w.Geoms[g].Category against a mask
// for a Box2D-style filter, or compare w.Geoms[g].Body to skip the
// sensor's own body.
type RayFilter func(geom int) bool

// Raycast returns the nearest geom that the ray origin + t·dir/|dir|, 0 ≤ t
// ≤ maxDist (m; +Inf allowed), meets at the bodies' current poses, and
// true; false when it meets none. Each geom is tested first against the
// ball of Shape.BoundingRadius about its origin (not hulls and planes),
// then against its world AABB (the slab test of contact.AABB.Ray), and
// only the geoms whose box the ray enters nearer than the best hit so far
// go to contact.Raycast, whose conventions the hit follows (an origin
// inside a geom hits it at distance 0). Equal distances go to the lower
// geom index, so the answer depends on nothing but the world's state.
// Geoms of a kind contact.RaySupported refuses, and geoms whose Body is
// not an index of World.Bodies (nor constraint.World) or names a nil body,
// which Step would refuse, are never hit.
//
// It reads the bodies' poses, not the last step's broad phase, so it may
// be called at any time outside a Step; it does not allocate. A
// non-finite origin, a zero or non-finite dir, or a maxDist that is NaN or
// negative gives a *num.FieldError (What "ray") naming the field.
func (w *World) Raycast(origin, dir mgl64.Vec3, maxDist float64, filter RayFilter) (GeomHit, bool, error) {
	u, err := rayInput(origin, dir, maxDist)
	if err != nil {
		return GeomHit{}, false, err
	}
	best := GeomHit{Geom: -1}
	best.Dist = maxDist
	found := false
	for g := range w.Geoms {
		h, ok := w.rayGeom(g, origin, dir, u, best.Dist, filter)
		if ok && (!found || h.Dist < best.Dist) {
			best, found = h, true
		}
	}
	if !found {
		return GeomHit{}, false, nil
	}
	return best, true, nil
}

// RaycastAll appends to dst[:0] every geom hit by the ray of Raycast, one
// hit per geom (its first), in order of distance and then geom index, and
// returns it. It allocates only when dst is too short.
func (w *World) RaycastAll(dst []GeomHit, origin, dir mgl64.Vec3, maxDist float64, filter RayFilter) ([]GeomHit, error) {
	dst = dst[:0]
	u, err := rayInput(origin, dir, maxDist)
	if err != nil {
		return dst, err
	}
	for g := range w.Geoms {
		if h, ok := w.rayGeom(g, origin, dir, u, maxDist, filter); ok {
			dst = append(dst, h)
		}
	}
	slices.SortFunc(dst, func(a, b GeomHit) int {
		if c := cmp.Compare(a.Dist, b.Dist); c != 0 {
			return c
		}
		return cmp.Compare(a.Geom, b.Geom)
	})
	return dst, nil
}

// rayInput checks a ray and returns its unit direction.
func rayInput(origin, dir mgl64.Vec3, maxDist float64) (mgl64.Vec3, error) {
	ferr := func(field string, v any, reason string) error {
		return &num.FieldError{What: "ray", Field: field, Value: v, Reason: reason}
	}
	if !num.FiniteVec(origin) {
		return mgl64.Vec3{}, ferr("origin", origin, fmt.Sprintf("must be finite, got %v", origin))
	}
	l := dir.Len()
	if !num.FiniteVec(dir) || !(l > 0) || math.IsInf(l, 0) {
		return mgl64.Vec3{}, ferr("dir", dir, fmt.Sprintf("must be finite and non-zero, got %v", dir))
	}
	if !(maxDist >= 0) {
		return mgl64.Vec3{}, ferr("maxDist", maxDist, fmt.Sprintf("must be ≥ 0 m (+Inf = unlimited), got %v", maxDist))
	}
	return dir.Mul(1 / l), nil
}

// rayGeom is geom g's hit within maxDist of the ray along dir (u =
// dir/|dir|), after the filter and the AABB test. contact.Raycast gets
// dir itself, so a hit is bit for bit the one it gives for the caller's ray.
func (w *World) rayGeom(g int, origin, dir, u mgl64.Vec3, maxDist float64, filter RayFilter) (GeomHit, bool) {
	if filter != nil && !filter(g) {
		return GeomHit{}, false
	}
	gm := &w.Geoms[g]
	if !contact.RaySupported(gm.Shape.Kind) || gm.Body < constraint.World || gm.Body >= len(w.Bodies) ||
		(gm.Body != constraint.World && w.Bodies[gm.Body] == nil) {
		return GeomHit{}, false
	}
	// The ball about the geom's origin that holds it, then its AABB: the
	// ball needs no rotation of the geom's pose, and most geoms fail it.
	// A hull's radius is a scan of its vertices, as its Bounds is: hulls go
	// to the AABB test alone, and a plane's ball is unbounded.
	if k := gm.Shape.Kind; k != contact.Convex && k != contact.Plane {
		c := gm.Local.Pos
		if gm.Body != constraint.World {
			b := w.Bodies[gm.Body]
			c = b.Pos
			if gm.Local.Pos != (mgl64.Vec3{}) {
				c = c.Add(b.Rot.Rotate(gm.Local.Pos))
			}
		}
		r := gm.Shape.BoundingRadius()
		v := c.Sub(origin)
		tc := v.Dot(u)
		if tc < -r || tc > maxDist+r || v.Dot(v)-tc*tc > r*r {
			return GeomHit{}, false
		}
	}
	p := gm.Local
	if p.Rot == (mgl64.Quat{}) { // Geom.Local: a zero quaternion means no rotation
		p.Rot = mgl64.QuatIdent()
	}
	if gm.Body != constraint.World {
		b := w.Bodies[gm.Body]
		p = contact.Pose{Pos: b.Pos, Rot: b.Rot}.Mul(p)
	}
	if _, ok := gm.Shape.Bounds(p, 0).Ray(origin, u, maxDist); !ok {
		return GeomHit{}, false
	}
	h, ok := contact.Raycast(gm.Shape, p, origin, dir, maxDist)
	if !ok {
		return GeomHit{}, false
	}
	return GeomHit{RayHit: h, Geom: g, Body: gm.Body}, true
}

// Wrench is a force (N) and a torque (N·m) about a stated point.
type Wrench struct {
	Force, Torque mgl64.Vec3
}

// Shift returns the same force system with its torque taken about the
// point to instead of from: Torque + (from − to) × Force.
func (x Wrench) Shift(from, to mgl64.Vec3) Wrench {
	return Wrench{Force: x.Force, Torque: x.Torque.Add(from.Sub(to).Cross(x.Force))}
}

// PairWrench is the total contact load between two bodies over the last
// Step: the contact impulses of the step's solution divided by the step
// H, the mean force the contacts carried during the step.
type PairWrench struct {
	// A < B are the body indices (constraint.World, −1, for fixed geometry
	// and static bodies, which ContactInfo reports as World).
	A, B int
	// OnB is the load on B from A: the force, and its torque about B's
	// centre of mass. B receives it; A receives the equal and opposite
	// force.
	OnB Wrench
	// OnA is the load on A from B: −OnB.Force, and its torque about A's
	// centre of mass (about the world origin when A is constraint.World).
	OnA Wrench
	// Points is the number of contact points between A and B.
	Points int
}

// ContactWrenches appends to dst[:0] one PairWrench per pair of bodies in
// contact after the last Step, in order of (A, B), and returns it. Each
// point's force is (n xₙ + t₁ x₁ + t₂ x₂)/H acting at ContactInfo.Point,
// with x the step's impulses (LastSolution) on the point's rows
// (ContactInfo.Row and Layout), and a rolling row adds the torque u x_r/H:
// exactly the load the step's rows applied, since its Jacobian acts at that
// point. Sums run in row order. Impulses resolved before the solve
// (Settings.Impacts = PropagatedImpacts) are not in x and not counted, nor
// are sleeping islands' contacts, which the step did not detect.
//
// It allocates only when dst is too short; before the first step it
// returns dst[:0].
func (w *World) ContactWrenches(dst []PairWrench) []PairWrench {
	dst = dst[:0]
	x, _ := w.LastSolution()
	h := w.Settings.H
	pts := w.ws.contacts.points
	if len(x) == 0 || !(h > 0) {
		return dst
	}
	for i := range pts {
		c := &pts[i].ContactInfo
		lay := c.Layout()
		if c.Row < 0 || c.Row+lay.N > len(x) {
			continue
		}
		imp := c.Normal.Mul(x[c.Row])
		if lay.Friction >= 0 {
			imp = imp.Add(c.T1.Mul(x[c.Row+lay.Friction])).Add(c.T2.Mul(x[c.Row+lay.Friction+1]))
		}
		f := imp.Mul(1 / h)
		var roll mgl64.Vec3
		if lay.Rolling >= 0 {
			roll = c.RollAxis.Mul(x[c.Row+lay.Rolling] / h)
		}
		a, b := c.A, c.B
		if a > b { // the load on B is the load on the pair's higher index
			a, b, f, roll = b, a, f.Mul(-1), roll.Mul(-1)
		}
		pw := PairWrench{A: a, B: b, Points: 1}
		pw.OnB = Wrench{Force: f, Torque: c.Point.Sub(w.bodyCentre(b)).Cross(f).Add(roll)}
		pw.OnA = Wrench{Force: f.Mul(-1), Torque: c.Point.Sub(w.bodyCentre(a)).Cross(f.Mul(-1)).Sub(roll)}
		dst = append(dst, pw)
	}
	slices.SortStableFunc(dst, func(p, q PairWrench) int {
		if c := cmp.Compare(p.A, q.A); c != 0 {
			return c
		}
		return cmp.Compare(p.B, q.B)
	})
	n := 0
	for i := range dst {
		if n > 0 && dst[n-1].A == dst[i].A && dst[n-1].B == dst[i].B {
			s := &dst[n-1]
			s.Points++
			s.OnB.Force = s.OnB.Force.Add(dst[i].OnB.Force)
			s.OnB.Torque = s.OnB.Torque.Add(dst[i].OnB.Torque)
			s.OnA.Force = s.OnA.Force.Add(dst[i].OnA.Force)
			s.OnA.Torque = s.OnA.Torque.Add(dst[i].OnA.Torque)
			continue
		}
		dst[n] = dst[i]
		n++
	}
	return dst[:n]
}

// bodyCentre is body i's centre of mass, the origin for constraint.World
// (and for an index the caller's edits left out of range or nil, which the
// next Step refuses).
func (w *World) bodyCentre(i int) mgl64.Vec3 {
	if i < 0 || i >= len(w.Bodies) || w.Bodies[i] == nil {
		return mgl64.Vec3{}
	}
	return w.Bodies[i].Pos
}

// BodyWrench is the load on one body: Body is its index in World.Bodies
// and the Wrench's torque is about its centre of mass.
type BodyWrench struct {
	Body int
	Wrench
}

// JointReaction appends to dst[:0] the load that joint j (World.Joints)
// put on each of its bodies over the last Step and returns it: for every
// body the joint's rows touch, in the order the rows first name them, the
// force J_v x/H and torque J_ω x/H about the body's centre of mass, summed
// over the joint's rows, with J the rows' Jacobian blocks and x their
// impulses in the step's solution (LastSolution), H the step. This is the
// constraint force the step applied, motors' and limits' rows included;
// the world's (or a static body's) side is not listed: it receives the
// opposite force, with the torque of Wrench.Shift to its point.
//
// A pendulum hanging at rest carries its weight m g at the hinge; a
// cantilever held by a Fixed joint carries m g and, about the joint's
// anchor, the moment m g L (Wrench.Shift from the body's centre).
//
// A joint of a sleeping island has no rows in the step: its result is
// empty. It returns an error naming j if j is out of range or the last
// step did not solve this joint (no step yet, or joints added since); it
// allocates only when dst is too short.
func (w *World) JointReaction(dst []BodyWrench, j int) ([]BodyWrench, error) {
	dst = dst[:0]
	if j < 0 || j >= len(w.Joints) {
		return dst, &num.FieldError{What: "joint reaction", Field: "j", Value: j, Reason: fmt.Sprintf("joint index out of range [0, %d), got %d", len(w.Joints), j)}
	}
	b := &w.ws.build
	x, _ := w.LastSolution()
	if len(b.jdims) != len(w.Joints) || len(x) < b.nj {
		return dst, &num.FieldError{What: "joint reaction", Field: "j", Value: j, Reason: fmt.Sprintf("joint %d has no solved rows: step the world after adding it", j)}
	}
	start := 0
	for _, d := range b.jdims[:j] {
		start += d
	}
	h := w.Settings.H
	for r := start; r < start+b.jdims[j]; r++ {
		row := &b.rows[r]
		for k := 0; k < row.N && k < constraint.MaxBodies; k++ {
			id := row.Body[k]
			at := -1
			for i := range dst {
				if dst[i].Body == id {
					at = i
					break
				}
			}
			if at < 0 {
				dst = append(dst, BodyWrench{Body: id})
				at = len(dst) - 1
			}
			jb := &row.J[k]
			s := x[r] / h
			dw := &dst[at].Wrench
			dw.Force = dw.Force.Add(mgl64.Vec3{jb[0], jb[1], jb[2]}.Mul(s))
			dw.Torque = dw.Torque.Add(mgl64.Vec3{jb[3], jb[4], jb[5]}.Mul(s))
		}
	}
	return dst, nil
}
