package scenes

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// MJCF fixed tendons and joint equalities, both as TendonSpec: MuJoCo's
// <fixed> tendon has length L = Σ coef·qpos over its joints, and a range
// limits it; <equality><joint> ties joint1's displacement from qpos0 to a
// polynomial of joint2's. gorigid's coordinates are 0 at the built pose
// (qpos0, or the keyframe's), so each range or offset is shifted by the
// coefficients times the keyframe coordinates.

// tendons reads <tendon>: fixed tendons with a range become TendonSpecs;
// spatial tendons and unlimited fixed ones (no effect without stiffness,
// damping or an actuator, which are not imported) are warned.
func (m *mjcf) tendons(n *xnode) error {
	for _, c := range n.children {
		if c.name != "fixed" {
			m.warnOnce("tendon:"+c.name, c, "<%s> tendons not imported: gorigid has fixed tendons only (a range on a linear combination of joint coordinates)", c.name)
			continue
		}
		e, err := m.resolve(c, "main")
		if err != nil {
			return err
		}
		name, _ := c.attr("name")
		r, limited, err := m.rangeOf(e)
		if err != nil {
			return err
		}
		for _, k := range []string{"stiffness", "damping", "frictionloss"} {
			if v, err := m.efloat(e, k, 0); err != nil {
				return err
			} else if v != 0 {
				m.warnOnce("tendon:"+k, c, "tendon %s ignored (%v): gorigid's tendon is a range only", k, v)
			}
		}
		for _, k := range []string{"solreflimit", "solimplimit", "margin", "springlength"} {
			if _, ok := e.get(k); ok {
				m.warnOnce("tendon:"+k, c, "tendon %s ignored: gorigid's tendon limit is a rigid unilateral constraint", k)
			}
		}
		t := TendonSpec{Name: name, Lower: math.Inf(-1), Upper: math.Inf(1)}
		shift := 0.0
		for _, jn := range c.children {
			if jn.name != "joint" {
				m.warnOnce("tendon:child:"+jn.name, jn, "element <%s> in a fixed tendon ignored", jn.name)
				continue
			}
			idx, err := m.jointRef(jn, "joint")
			if err != nil {
				return err
			}
			coef, err := m.floatAttr(jn, "coef", 1)
			if err != nil {
				return err
			}
			if coef == 0 {
				continue // MuJoCo allows it; it adds nothing
			}
			t.Terms = append(t.Terms, TendonTerm{Joint: m.spec.Joints[idx].Name, Coef: coef})
			shift += coef * m.jointQ0[idx]
		}
		if !limited {
			m.warnOnce("tendon:nolimit", c, "fixed tendon %q without a range not imported: without stiffness, damping or an actuator (not imported) it does not act", clip(name))
			continue
		}
		if r[0] > r[1] {
			return m.errAt(c, "range: lower %v > upper %v", r[0], r[1])
		}
		if len(t.Terms) == 0 {
			return m.errAt(c, "a fixed tendon with a range needs a <joint> with a non-zero coef")
		}
		t.Lower, t.Upper = r[0]-shift, r[1]-shift
		m.spec.Tendons = append(m.spec.Tendons, t)
	}
	return nil
}

// equality reads <equality>: joint equalities become TendonSpecs with
// Lower = Upper (the linear part of polycoef); connect, weld and tendon
// equalities are warned.
func (m *mjcf) equality(n *xnode) error {
	for _, c := range n.children {
		if c.name != "joint" && c.name != "connect" && c.name != "weld" {
			m.warnOnce("equality:"+c.name, c, "<%s> equality not imported: gorigid imports joint, connect and weld equalities", c.name)
			continue
		}
		e, err := m.resolve(c, "main")
		if err != nil {
			return err
		}
		if a, ok := e.get("active"); ok && a == "false" {
			m.warnOnce("equality:inactive", c, "inactive equality not imported")
			continue
		}
		for _, k := range []string{"solref", "solimp"} {
			if _, ok := e.get(k); ok {
				m.warnOnce("equality:"+k, c, "equality %s ignored: gorigid's equalities are rigid bilateral constraints", k)
			}
		}
		if c.name != "joint" {
			if err := m.bodyEquality(c, e); err != nil {
				return err
			}
			continue
		}
		pc := []float64{0, 1, 0, 0, 0}
		if f, ok, err := m.efloats(e, "polycoef", 5); err != nil {
			return err
		} else if ok {
			pc = f
		}
		if pc[2] != 0 || pc[3] != 0 || pc[4] != 0 {
			m.warnOnce("equality:poly", c, "polycoef terms of degree 2 to 4 ignored: gorigid's joint equality is linear, joint1 = polycoef[0] + polycoef[1]·joint2")
		}
		name, _ := c.attr("name")
		i1, err := m.jointRef(c, "joint1")
		if err != nil {
			return err
		}
		t := TendonSpec{Name: name, Terms: []TendonTerm{{Joint: m.spec.Joints[i1].Name, Coef: 1}}}
		// θ1 + q01 = a0 + a1 (θ2 + q02), θ the gorigid coordinates.
		off := pc[0] - m.jointQ0[i1]
		if _, ok := c.attr("joint2"); ok && pc[1] != 0 {
			i2, err := m.jointRef(c, "joint2")
			if err != nil {
				return err
			}
			if i2 == i1 {
				return m.errAt(c, "joint2: the same joint as joint1")
			}
			t.Terms = append(t.Terms, TendonTerm{Joint: m.spec.Joints[i2].Name, Coef: -pc[1]})
			off += pc[1] * m.jointQ0[i2]
		}
		t.Lower, t.Upper = off, off
		m.spec.Tendons = append(m.spec.Tendons, t)
	}
	return nil
}

// jointRef returns the spec.Joints index of the hinge or slide joint the
// attribute names.
func (m *mjcf) jointRef(n *xnode, attr string) (int, error) {
	jn, _ := n.attr(attr)
	idx, ok := m.jointIdx[jn]
	if !ok {
		return 0, m.errAt(n, "%s: %q is not a joint of the model (or is a free joint)", attr, clip(jn))
	}
	if t := m.spec.Joints[idx].Type; t != JointHinge && t != JointPrismatic {
		return 0, m.errAt(n, "%s: %q is a %s joint; tendons and joint equalities couple hinge and slide joints", attr, clip(jn), t)
	}
	return idx, nil
}

// bodyEquality maps <connect body1 body2 anchor> to a ball joint at the
// anchor (body1's frame; body2 absent is the world) and <weld body1
// body2> to a fixed joint, both at the bodies' built poses, which they
// hold (MuJoCo holds the poses of qpos0, the same unless a keyframe
// breaks the loop). The two bodies may collide, as MuJoCo's do.
func (m *mjcf) bodyEquality(c *xnode, e elem) error {
	b1, ok := e.get("body1")
	if !ok {
		return m.errAt(c, "body1: missing")
	}
	b2, ok := e.get("body2")
	if !ok {
		b2 = WorldName
	}
	o1, ok1 := m.ownerOf[b1]
	o2, ok2 := m.ownerOf[b2]
	if !ok1 {
		return m.errAt(c, "body1: %q is not a body", clip(b1))
	}
	if !ok2 {
		return m.errAt(c, "body2: %q is not a body", clip(b2))
	}
	if o1 == o2 {
		m.warnOnce("equality:same", c, "%s equality between %q and %q not imported: both are parts of gorigid body %q (welded), so it holds already", c.name, clip(b1), clip(b2), clip(o1))
		return nil
	}
	name, _ := c.attr("name")
	js := JointSpec{Name: name, A: o1, B: o2, Collide: true}
	f1 := m.frameOf[b1]
	if c.name == "connect" {
		a, _, err := m.efloats(e, "anchor", 3)
		if err != nil {
			return err
		}
		var anchor mgl64.Vec3
		if a != nil {
			anchor = mgl64.Vec3{a[0], a[1], a[2]}
		}
		js.Type, js.Pivot = JointBall, f1.point(anchor)
	} else {
		if rp, ok, err := m.efloats(e, "relpose", 7); err != nil {
			return err
		} else if ok && (rp[3] != 0 || rp[4] != 0 || rp[5] != 0 || rp[6] != 0) {
			m.warnOnce("equality:relpose", c, "weld relpose ignored: the weld holds the bodies' built relative pose")
		}
		js.Type, js.Pivot = JointFixed, f1.Pos
	}
	if name != "" {
		for _, j := range m.spec.Joints {
			if j.Name == name {
				return m.errAt(c, "name: %q is also a joint's name", clip(name))
			}
		}
	}
	m.spec.Joints = append(m.spec.Joints, js)
	m.jointQ0 = append(m.jointQ0, 0)
	return nil
}
