package stepper

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// Collision filtering: which pairs of geoms the broad phase hands to the
// narrow phase. Two geoms get contacts only when every rule lets them:
//
//  1. not on the same body, and not both of infinite mass (fixed, static
//     or kinematic);
//  2. their category and mask bits match both ways (Geom.Category,
//     Geom.Mask; Box2D's categoryBits and maskBits):
//     (cat_a & mask_b) ≠ 0 and (cat_b & mask_a) ≠ 0;
//  3. their bodies are not joined by a constraint, unless that
//     constraint's collision is turned on (World.SetJointCollision);
//  4. neither the geom pair (World.ExcludePair) nor the body pair
//     (World.ExcludeBodies) is excluded.
//
// Rule 3 follows Bullet (disableCollisionsBetweenLinkedBodies) and PhysX
// (joints collide only with PxConstraintFlag::eCOLLISION_ENABLED): every
// constraint counts, couplings included. MuJoCo excludes only parent and
// child of a kinematic tree; gorigid has no tree, and a gear or
// differential couples bodies whose shapes are drawn touching (pitch
// cylinders, a housing around its shafts), which the coupling replaces.
// Two bodies joined by several constraints collide only when every one
// of them has collision turned on (as in Bullet and PhysX, a constraint
// that keeps its bodies apart wins). The static world (constraint.World) is never in a
// constraint's Bodies, so a body hinged to the world still lands on the
// ground.
//
// The filter is a pure function of the world's geoms, joints and
// exclusions, read at each step: a run stays deterministic.

// DefaultCategory is the category bits of a geom whose Category is 0.
const DefaultCategory uint32 = 1

// category returns g's effective category bits.
func (g *Geom) category() uint32 {
	if g.Category == 0 {
		return DefaultCategory
	}
	return g.Category
}

// mask returns g's effective mask bits.
func (g *Geom) mask() uint32 {
	if g.Mask == 0 {
		return ^uint32(0)
	}
	return g.Mask
}

// filterBits reports whether geoms a and b pass the category and mask
// rule.
func filterBits(a, b *Geom) bool {
	return a.category()&b.mask() != 0 && b.category()&a.mask() != 0
}

// CategoriesCollide reports whether two geoms with these Category and
// Mask fields (0 meaning DefaultCategory and every bit, as in Geom) pass
// the category and mask rule the narrow phase applies: each one's
// category meets the other's mask.
func CategoriesCollide(catA, maskA, catB, maskB uint32) bool {
	a, b := Geom{Category: catA, Mask: maskA}, Geom{Category: catB, Mask: maskB}
	return filterBits(&a, &b)
}

// SetJointCollision turns collision between the bodies of constraint
// joint (its index in World.Joints, the order of AddConstraint) on or
// off. Off is the default: bodies joined by a constraint do not collide.
// Turn it on for a joint whose bodies should still meet away from the
// joint (a knee that should not fold through the thigh); their shapes
// must then not overlap where the joint holds them, or the step has
// constraints that cannot all hold (Step returns an error naming the
// bodies and the joint).
func (w *World) SetJointCollision(joint int, on bool) error {
	if joint < 0 || joint >= len(w.Joints) {
		return fmt.Errorf("SetJointCollision: joint: index %d out of range [0, %d)", joint, len(w.Joints))
	}
	if len(w.jointCollide) < len(w.Joints) {
		w.jointCollide = append(w.jointCollide, make([]bool, len(w.Joints)-len(w.jointCollide))...)
	}
	w.jointCollide[joint] = on
	return nil
}

// JointCollision reports whether the bodies of constraint joint collide
// (SetJointCollision); false for an index out of range.
func (w *World) JointCollision(joint int) bool {
	return joint >= 0 && joint < len(w.jointCollide) && joint < len(w.Joints) && w.jointCollide[joint]
}

// ExcludePair keeps geoms a and b (indices in World.Geoms) from
// colliding, whatever their bits and joints. Excluding a pair twice is
// not an error.
func (w *World) ExcludePair(a, b int) error {
	for _, g := range [2]struct {
		name string
		i    int
	}{{"a", a}, {"b", b}} {
		if g.i < 0 || g.i >= len(w.Geoms) {
			return fmt.Errorf("ExcludePair: %s: geom %d out of range [0, %d)", g.name, g.i, len(w.Geoms))
		}
	}
	if a == b {
		return fmt.Errorf("ExcludePair: b: geom %d is a itself (a geom never collides with itself)", b)
	}
	if w.exclGeoms == nil {
		w.exclGeoms = make(map[[2]int]struct{})
	}
	w.exclGeoms[orderedPair(a, b)] = struct{}{}
	return nil
}

// ExcludeBodies keeps every geom of body a from colliding with every geom
// of body b (indices in World.Bodies; constraint.World, −1, for the geoms
// fixed in the world), as MuJoCo's <exclude>. Excluding a pair twice is
// not an error.
func (w *World) ExcludeBodies(a, b int) error {
	for _, g := range [2]struct {
		name string
		i    int
	}{{"a", a}, {"b", b}} {
		if g.i != constraint.World && (g.i < 0 || g.i >= len(w.Bodies)) {
			return fmt.Errorf("ExcludeBodies: %s: body %d out of range [0, %d) (or constraint.World, -1)", g.name, g.i, len(w.Bodies))
		}
	}
	if a == b {
		return fmt.Errorf("ExcludeBodies: b: body %d is a itself (a body's geoms never collide with each other)", b)
	}
	if w.exclBodies == nil {
		w.exclBodies = make(map[[2]int]struct{})
	}
	w.exclBodies[orderedPair(a, b)] = struct{}{}
	return nil
}

// Excluded reports whether geoms a and b are excluded from colliding by
// ExcludePair or ExcludeBodies.
func (w *World) Excluded(a, b int) bool {
	if a < 0 || b < 0 || a >= len(w.Geoms) || b >= len(w.Geoms) {
		return false
	}
	if _, ok := w.exclGeoms[orderedPair(a, b)]; ok {
		return true
	}
	_, ok := w.exclBodies[orderedPair(w.Geoms[a].Body, w.Geoms[b].Body)]
	return ok
}

func orderedPair(a, b int) [2]int {
	if a > b {
		a, b = b, a
	}
	return [2]int{a, b}
}

// joinKey is the key of a pair of body indices a < b in ws.contacts.joined.
func joinKey(a, b int) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

// updateJoined fills ws.contacts.joined, sorted, with the body pairs joined by a
// constraint whose collision is off (rule 3). It allocates only when the
// number of pairs grew.
func (w *World) updateJoined() {
	ws := &w.ws
	ws.contacts.joined = ws.contacts.joined[:0]
	for i, c := range w.Joints {
		if w.JointCollision(i) {
			continue
		}
		ids := c.Bodies()
		for p := 0; p < len(ids); p++ {
			for q := p + 1; q < len(ids); q++ {
				if ids[p] != ids[q] {
					ws.contacts.joined = append(ws.contacts.joined, joinKey(ids[p], ids[q]))
				}
			}
		}
	}
	slices.Sort(ws.contacts.joined)
}

// joinedWithCollisionOff reports whether bodies a and b (indices, World
// allowed) are joined by a constraint whose collision is off.
func (w *World) joinedWithCollisionOff(a, b int) bool {
	if a == constraint.World || b == constraint.World || len(w.ws.contacts.joined) == 0 {
		return false
	}
	_, ok := slices.BinarySearch(w.ws.contacts.joined, joinKey(a, b))
	return ok
}

// mayCollide applies rules 2–4 to geoms i and j.
func (w *World) mayCollide(i, j int) bool {
	gi, gj := &w.Geoms[i], &w.Geoms[j]
	if !filterBits(gi, gj) {
		return false
	}
	if w.joinedWithCollisionOff(gi.Body, gj.Body) {
		return false
	}
	if len(w.exclGeoms) > 0 || len(w.exclBodies) > 0 {
		return !w.Excluded(i, j)
	}
	return true
}

// ErrConflict is wrapped by Step's error when the step's constraints
// cannot all hold: a contact between two bodies joined by a constraint
// whose collision is turned on (SetJointCollision) pushes the bodies
// apart where the constraint holds them together, so the MLCP's
// equations are inconsistent. The message names the bodies, the geoms,
// the overlap and the constraint.
var ErrConflict = errors.New("constraints cannot all hold")

// explainConflict returns, when err is the solver's singular-system
// failure (lcp.ErrSingular) and a contact of the step joins two bodies
// that a constraint with collision turned on also joins, the error that
// names them (ErrConflict, wrapping err); nil otherwise. Step returns it
// before integrating: the least-squares compromise of such rows is an
// impulse along the null space of A that grows without bound (a 10⁷ J
// step), and a step that adds no energy there does nothing but stand
// still, so the caller is told what to change instead.
//
// The conflict: the joint's rows fix the relative velocity at its pivot,
// and a contact row near the pivot whose normal crosses it has a Jacobian
// in the span of theirs (J_c = Σ αᵢ J_i), so J_c v⁺ = 0 whatever the
// impulses, while the contact asks J_c v⁺ ≥ min(−φ/h, v_max) > 0.
func (w *World) explainConflict(err error) error {
	if err == nil || !errors.Is(err, lcp.ErrSingular) {
		return nil
	}
	ws := &w.ws
	best, joint := -1, -1
	for i := range ws.contacts.points {
		pt := &ws.contacts.points[i]
		if pt.A == constraint.World || pt.B == constraint.World {
			continue
		}
		if best >= 0 && pt.Gap >= ws.contacts.points[best].Gap {
			continue
		}
		if j := w.collidingJoint(pt.A, pt.B); j >= 0 {
			best, joint = i, j
		}
	}
	if best < 0 {
		return nil
	}
	pt := &ws.contacts.points[best]
	cause := errors.Unwrap(err) // the solver's error, without solve's "step n: "
	if cause == nil {
		cause = err
	}
	depth := "a gap of " + fmt.Sprintf("%.3g m", pt.Gap)
	if pt.Gap < 0 {
		depth = fmt.Sprintf("an overlap of %.3g m", -pt.Gap)
	}
	name := ""
	if n := w.JointName(joint); n != "" {
		name = fmt.Sprintf(" %q", n)
	}
	return fmt.Errorf("step %d: %w: the contact between bodies %d (%q) and %d (%q), geoms %d and %d with %s, "+
		"pushes them apart where constraint %d%s (%T) holds them together, its collision turned on by SetJointCollision; "+
		"turn it off (World.SetJointCollision(%d, false), a scene file's \"collide\": false, the default) or draw the shapes apart at the joint "+
		"(the solver: %w)",
		w.steps+1, ErrConflict, pt.A, w.Bodies[pt.A].Name, pt.B, w.Bodies[pt.B].Name, pt.ck.ga, pt.ck.gb, depth,
		joint, name, w.Joints[joint], joint, cause)
}

// collidingJoint returns the first constraint with collision turned on
// whose bodies include a and b, or −1.
func (w *World) collidingJoint(a, b int) int {
	for i, c := range w.Joints {
		if !w.JointCollision(i) {
			continue
		}
		ids := c.Bodies()
		if slices.Contains(ids, a) && slices.Contains(ids, b) {
			return i
		}
	}
	return -1
}
