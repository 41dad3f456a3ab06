package stepper

import (
	"fmt"
	"strings"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// Body returns the body named name (body.Body.Name) and its index in
// w.Bodies, which joints and geoms use. Names need not be unique: a name
// that no body or more than one body has is an error naming it.
func (w *World) Body(name string) (*body.Body, int, error) {
	i, err := lookup("body", "bodies", name, len(w.Bodies), func(i int) string {
		if w.Bodies[i] == nil { // an edit Step names ("body i: is nil")
			return ""
		}
		return w.Bodies[i].Name
	})
	if err != nil {
		return nil, 0, err
	}
	return w.Bodies[i], i, nil
}

// Geom returns the geom named name (Geom.Name) and its index in w.Geoms.
// The pointer is into w.Geoms, valid until the next AddGeom. A name that
// no geom or more than one geom has is an error naming it.
func (w *World) Geom(name string) (*Geom, int, error) {
	i, err := lookup("geom", "geoms", name, len(w.Geoms), func(i int) string { return w.Geoms[i].Name })
	if err != nil {
		return nil, 0, err
	}
	return &w.Geoms[i], i, nil
}

// NameJoint names joint i (its index in w.Joints, len(w.Joints)−1 for the
// one just added) for Joint and messages; "" removes the name. Names need
// not be unique, as body names; scene files name their joints this way.
func (w *World) NameJoint(i int, name string) error {
	if i < 0 || i >= len(w.Joints) {
		return fmt.Errorf("joint %d: NameJoint %q: no such joint, the world has %d", i, name, len(w.Joints))
	}
	for len(w.jointNames) <= i {
		w.jointNames = append(w.jointNames, "")
	}
	w.jointNames[i] = name
	return nil
}

// JointName returns the name NameJoint gave joint i, or "".
func (w *World) JointName(i int) string {
	if i < 0 || i >= len(w.jointNames) || i >= len(w.Joints) {
		return ""
	}
	return w.jointNames[i]
}

// Joint returns the joint named name (World.NameJoint) and its index in
// w.Joints, for JointState. A name that no joint or more than one joint
// has is an error naming it.
func (w *World) Joint(name string) (constraint.Constraint, int, error) {
	i, err := lookup("joint", "joints", name, len(w.Joints), w.JointName)
	if err != nil {
		return nil, 0, err
	}
	return w.Joints[i], i, nil
}

// JointState returns joint i's coordinate q and its rate at the bodies'
// current poses and velocities: for a *constraint.Hinge its angle θ (rad,
// in (−π, π], 0 at creation; continuous from its reference after
// Hinge.SetReference) and θ̇ (rad/s), for a *constraint.Prismatic
// its slide s (m, 0 at creation) and ṡ (m/s); the same θ and s that the
// joint's limits and motor act on (Hinge.Angle, Prismatic.Slide). Other
// joints have no single coordinate and give an error naming their type.
func (w *World) JointState(i int) (q, rate float64, err error) {
	if i < 0 || i >= len(w.Joints) {
		return 0, 0, fmt.Errorf("joint %d: no such joint, the world has %d", i, len(w.Joints))
	}
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	switch j := w.Joints[i].(type) {
	case *constraint.Hinge:
		if q, err = j.Angle(ctx); err == nil {
			rate, err = j.AngleRate(ctx)
		}
	case *constraint.Prismatic:
		if q, err = j.Slide(ctx); err == nil {
			rate, err = j.SlideRate(ctx)
		}
	default:
		err = fmt.Errorf("%T has no single coordinate (JointState reads hinges and prismatic joints)", j)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("joint %d%s: %w", i, quotedName(w.JointName(i)), err)
	}
	return q, rate, nil
}

// quotedName returns ` "name"` for a non-empty name, for messages.
func quotedName(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" %q", name)
}

// lookup returns the one index below n whose name is name, or an error
// naming name: it is empty, none has it, or several do (their first
// indices listed).
func lookup(kind, kinds, name string, n int, nameOf func(int) string) (int, error) {
	if name == "" {
		return 0, fmt.Errorf("%s \"\": the empty name names no %s; look it up by index", kind, kind)
	}
	var hits []int
	for i := 0; i < n; i++ {
		if nameOf(i) == name {
			hits = append(hits, i)
		}
	}
	switch {
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) == 0:
		return 0, fmt.Errorf("%s %q: no %s has that name (%s in the world: %d)", kind, name, kind, kinds, n)
	}
	idx := make([]string, 0, 4)
	for _, i := range hits[:min(len(hits), 4)] {
		idx = append(idx, fmt.Sprint(i))
	}
	if len(hits) > 4 {
		idx = append(idx, "…")
	}
	return 0, fmt.Errorf("%s %q: %d %s have that name (indices %s); look it up by index", kind, name, len(hits), kinds, strings.Join(idx, ", "))
}
