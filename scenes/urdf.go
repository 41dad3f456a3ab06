package scenes

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/stepper"
)

// URDF import (the ROS Unified Robot Description Format).
//
// Mapping: each link with an <inertial> mass becomes a body whose
// position is the link's centre of mass (the inertial origin) and whose
// orientation is the link frame's, so the inertia tensor given in the
// rotated inertial frame is carried into the link frame exactly
// (I_link = R I Rᵀ, R of the inertial rpy) and collision shapes sit at
// their origin minus the centre of mass. Link frames compose along the
// tree at the joints' zero positions (child frame = parent frame ∘ joint
// origin). A link without mass joined to its parent by a fixed joint
// is merged into it (its shapes move to the parent's body). A root link
// without mass that hangs a link with mass on fixed joints (a ROS mobile
// robot's base_footprint over its base_link) is a frame of that link's
// body: its shapes and the joints to its children move there, and the
// robot is free (unless ImportOptions.FixedBase), as Gazebo's URDF→SDF
// conversion lumps links joined by fixed joints into one (sdformat's
// parser_urdf "fixed joint reduction", which keeps the lumped links as
// frames). A root link without mass whose links with mass all hang on
// moving joints (an arm on a massless mount), a root link with
// ImportOptions.FixedBase, or a root link named "world" is static (the
// last is the world itself); the first is warned.
//
// Joints join child (A) to parent (B) at the joint origin, the axis
// rotated into the world: revolute → hinge with limits (θ is the child's
// rotation about the axis relative to the parent, as URDF's), continuous
// → hinge, prismatic → prismatic with limits, fixed → fixed, floating →
// no joint; <dynamics friction> → the joint's Coulomb friction,
// <dynamics damping> → its viscous damping (an implicit damper row,
// JointSpec.Spring). Planar joints, mimic joints, effort and velocity
// limits have no gorigid counterpart yet and are reported as warnings
// that say what gorigid does instead.

// urdfDefaultH is the time step of an imported URDF (URDF has none).
const urdfDefaultH = 0.01

// urdfDefaultFriction is the Coulomb coefficient of URDF collision
// shapes when ImportOptions.Friction is 0.
const urdfDefaultFriction = 0.5

// LoadURDF reads the URDF file at path into a SceneSpec. Warnings list,
// once per kind, what was ignored or approximated; errors name the file,
// the line and the element.
func LoadURDF(path string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	data, err := openModel(path)
	if err != nil {
		return nil, nil, err
	}
	return parseURDF(data, path, filepath.Dir(path), opts)
}

// ParseURDF reads a URDF document from r; name (a file name) is used in
// messages, and relative mesh paths resolve against ImportOptions.SearchPath.
func ParseURDF(r io.Reader, name string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	data, err := readModel(r, name)
	if err != nil {
		return nil, nil, err
	}
	return parseURDF(data, name, "", opts)
}

type urdfLink struct {
	node   *xnode
	name   string
	mass   float64
	inert  transform // inertial origin in the link frame
	I      mgl64.Mat3
	parent *urdfJoint // nil for a root
	world  transform  // link frame in the world at zero joint positions
	owner  string     // body (or WorldName) that carries the link's shapes
	body   bool       // the link is a body of its own
	static bool
}

type urdfJoint struct {
	node          *xnode
	name, typ     string
	parent, child string
	origin        transform
	axis          mgl64.Vec3
	mimic         *xnode // <mimic>, nil when none
}

func parseURDF(data []byte, file, dir string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	im := newImporter(file)
	root, err := parseXML(data, file)
	if err != nil {
		return nil, nil, err
	}
	if root.name != "robot" {
		return nil, nil, im.errAt(root, "the root element must be <robot>")
	}
	if err := im.noXacro(root); err != nil {
		return nil, nil, err
	}
	t := &urdfTree{im: im, byName: map[string]*urdfLink{}, children: map[string][]*urdfJoint{}, bodyIndex: map[string]int{}}
	if err := t.read(root); err != nil {
		return nil, nil, err
	}
	if err := t.link(); err != nil {
		return nil, nil, err
	}
	spec := &SceneSpec{Name: "", Settings: SettingsSpec{H: urdfDefaultH, Gravity: mgl64.Vec3{0, 0, -9.81}}}
	if n, ok := root.attr("name"); ok {
		spec.Name = n
	}
	if opts.H != 0 {
		spec.Settings.H = opts.H
	}
	friction := opts.Friction
	if friction == 0 {
		friction = urdfDefaultFriction
	}
	if opts.Ground {
		spec.WorldShapes = append(spec.WorldShapes, ShapeSpec{Type: contact.Plane, Material: stepper.Material{Friction: friction}})
	}
	taken := map[string]bool{}
	for _, l := range t.links {
		taken[l.name] = true
	}
	if err := t.place(); err != nil {
		return nil, nil, err
	}
	if err := t.addBodies(spec, opts); err != nil {
		return nil, nil, err
	}
	if err := t.addShapes(spec, dir, opts, friction); err != nil {
		return nil, nil, err
	}
	if err := t.addJoints(spec, opts, taken); err != nil {
		return nil, nil, err
	}
	if err := im.urdfMimics(t.joints, spec); err != nil {
		return nil, nil, err
	}
	im.finishMeshes(spec)
	if err := spec.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: the imported scene: %w", file, err)
	}
	im.warnStartInside(spec, root, "URDF places the root link's frame at the world origin: raise every body by the depth, or lift the links' collision origins")
	return spec, im.warnings, nil
}

// urdfTree is a URDF model while parseURDF turns it into a SceneSpec: its
// links and joints in file order, then the links in tree order (parents
// before children) and the bodies they became.
type urdfTree struct {
	im        *importer
	links     []*urdfLink
	joints    []*urdfJoint
	byName    map[string]*urdfLink
	children  map[string][]*urdfJoint // by parent link name, in file order
	order     []*urdfLink             // place: parents before children
	bodyIndex map[string]int          // addBodies: a body link's index in SceneSpec.Bodies
}

// read collects root's links and joints and warns about the elements
// gorigid ignores.
func (t *urdfTree) read(root *xnode) error {
	im := t.im
	for _, c := range root.children {
		switch c.name {
		case "link":
			l, err := im.urdfLink(c)
			if err != nil {
				return err
			}
			if t.byName[l.name] != nil {
				return im.errAt(c, "link name %q given twice", clip(l.name))
			}
			t.byName[l.name] = l
			t.links = append(t.links, l)
		case "joint":
			j, err := im.urdfJoint(c)
			if err != nil {
				return err
			}
			t.joints = append(t.joints, j)
		case "material":
		case "transmission":
			im.warnOnce("transmission", c, "transmissions ignored: the joints are unactuated; drive them from Go with stepper.Effort (a torque or force on the joint)")
		case "gazebo":
			im.warnOnce("gazebo", c, "<gazebo> ignored: its friction (mu1, mu2), contact stiffness and damping, and plugins (a mimic joint plugin: use <mimic>) are not imported; collision shapes get ImportOptions.Friction (default 0.5)")
		default:
			im.warnOnce("elem:"+c.name, c, "element <%s> ignored (no effect on gorigid's dynamics)", c.name)
		}
	}
	if len(t.links) == 0 {
		return im.errAt(root, "no <link>")
	}
	return nil
}

// link joins each joint's parent and child links: a joint name given
// twice, a missing link or a link that is the child of two joints is an
// error.
func (t *urdfTree) link() error {
	im := t.im
	jointNames := map[string]bool{}
	for _, j := range t.joints {
		if jointNames[j.name] {
			return im.errAt(j.node, "joint name %q given twice", clip(j.name))
		}
		jointNames[j.name] = true
		p, c := t.byName[j.parent], t.byName[j.child]
		if p == nil {
			return im.errAt(j.node, "parent link %q does not exist", clip(j.parent))
		}
		if c == nil {
			return im.errAt(j.node, "child link %q does not exist", clip(j.child))
		}
		if c.parent != nil {
			return im.errAt(j.node, "link %q is the child of two joints (%q and %q)", clip(j.child), clip(c.parent.name), clip(j.name))
		}
		c.parent = j
		t.children[j.parent] = append(t.children[j.parent], j)
	}
	return nil
}

// place walks the trees from the roots, in file order, setting each link's
// world frame at zero joint positions and t.order; joints that form a
// cycle are an error.
func (t *urdfTree) place() error {
	im := t.im
	visited := 0
	var walk func(l *urdfLink, depth int) error
	walk = func(l *urdfLink, depth int) error {
		if depth > len(t.links) {
			return im.errAt(l.node, "the joints form a cycle through link %q", clip(l.name))
		}
		visited++
		t.order = append(t.order, l)
		for _, j := range t.children[l.name] {
			c := t.byName[j.child]
			c.world = l.world.then(j.origin)
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	for _, l := range t.links {
		if l.parent == nil {
			l.world = identity
			if err := walk(l, 0); err != nil {
				return err
			}
		}
	}
	if visited != len(t.links) {
		for _, l := range t.links {
			if l.parent != nil {
				return im.errAt(l.parent.node, "the joints form a cycle through link %q", clip(l.name))
			}
		}
	}
	return nil
}

// staticLink reports whether the link named name is part of the static
// world or of a static body (addBodies has placed it).
func (t *urdfTree) staticLink(name string) bool {
	l := t.byName[name]
	if l == nil {
		return false
	}
	if l.owner == WorldName {
		return true
	}
	o := t.byName[l.owner]
	return o != nil && o.static
}

// addBodies decides what each link is, parents before children (the
// static world, a body of its own, a static body welded to the world, or
// a part of its parent's body through a fixed joint), and appends a
// BodySpec for each body link.
func (t *urdfTree) addBodies(spec *SceneSpec, opts ImportOptions) error {
	im := t.im
	for _, l := range t.order {
		switch {
		case l.parent == nil && l.name == WorldName:
			l.owner = WorldName
			if l.mass > 0 {
				im.warnOnce("worldmass", l.node, "link \"world\" is the static world: its inertial is ignored")
			}
		case l.parent == nil && l.mass == 0 && !opts.FixedBase && t.fixedCarrier(l) != nil:
			// A mobile robot's base_footprint: its frame is a frame of
			// the body its fixed joints hang the mass on (Gazebo's
			// fixed-joint lumping), which is free.
			l.owner = t.fixedCarrier(l).name
		case l.parent == nil && (opts.FixedBase || l.mass == 0):
			if !opts.FixedBase {
				im.warnOnce("massroot", l.node, "root link %q has no mass: it is made static (fixed to the world)", clip(l.name))
			}
			l.body, l.static, l.owner = true, true, l.name
		case l.parent != nil && l.parent.typ == "fixed" && l.mass > 0 && t.staticLink(l.parent.parent):
			// Welded to the world (a "world" link's fixed joint, as ROS
			// descriptions mount an arm): static, as a weld row would only
			// hold it to the stepper's tolerance (MuJoCo, too, makes a
			// body without joints part of the world).
			l.body, l.static, l.owner = true, true, l.name
		case l.mass > 0:
			l.body, l.owner = true, l.name
		case l.parent != nil && l.parent.typ == "fixed":
			l.owner = t.byName[l.parent.parent].owner
		case l.name == WorldName:
			return im.errAt(l.node, "link \"world\" must be a root (no joint's child)")
		default:
			return im.errAt(l.parent.node, "child link %q has no <inertial> mass, but joint %q lets it move: gorigid bodies need a mass > 0", clip(l.name), clip(l.parent.name))
		}
		if l.name == WorldName && l.owner != WorldName {
			return im.errAt(l.node, "link \"world\" must be a root (no joint's child)")
		}
		if !l.body {
			continue
		}
		b := BodySpec{Name: l.name, Static: l.static, Rot: l.world.Rot}
		if l.static {
			b.Pos = l.world.Pos
		} else {
			b.Mass = l.mass
			b.Pos = l.world.point(l.inert.Pos)
			I := symmetrize(rotateInertia(l.inert.Rot, l.I))
			b.Inertia = &I
		}
		t.bodyIndex[l.name] = len(spec.Bodies)
		spec.Bodies = append(spec.Bodies, b)
	}
	return nil
}

// fixedCarrier returns the first link with mass reached from the root
// link root through fixed joints only, breadth first in file order, or nil
// when there is none (every massive link below root hangs on a moving
// joint).
func (t *urdfTree) fixedCarrier(root *urdfLink) *urdfLink {
	queue := []*urdfLink{root}
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		for _, j := range t.children[l.name] {
			if j.typ != "fixed" {
				continue
			}
			c := t.byName[j.child]
			if c.mass > 0 {
				return c
			}
			queue = append(queue, c)
		}
	}
	return nil
}

// addShapes puts each link's collision shapes onto the body that owns the
// link (or into the world's shapes), in that body's frame.
func (t *urdfTree) addShapes(spec *SceneSpec, dir string, opts ImportOptions, friction float64) error {
	im := t.im
	for _, l := range t.order {
		for _, c := range l.node.children {
			if c.name != "collision" {
				continue
			}
			sh, mg, ok, err := im.urdfShape(c, dir, opts)
			if err != nil {
				return err
			}
			if !ok && mg == nil {
				continue
			}
			sh.Material = stepper.Material{Friction: friction}
			geom := transform{Pos: sh.Pos, Rot: sh.Rot}
			w := l.world.then(geom)
			if l.owner == WorldName {
				sh.Pos, sh.Rot = w.Pos, w.Rot
				if mg != nil {
					mg.geom.Body, mg.geom.Pos, mg.geom.Rot, mg.geom.Material = WorldName, sh.Pos, sh.Rot, sh.Material
					im.addMesh(c, mg.geom, mg.file)
					continue
				}
				spec.WorldShapes = append(spec.WorldShapes, sh)
				continue
			}
			b := &spec.Bodies[t.bodyIndex[l.owner]]
			local := transform{Pos: b.Pos, Rot: b.Rot}.inverse().then(w)
			if l.body {
				// Exactly origin − com in the link frame, no round trip.
				local = transform{Pos: geom.Pos.Sub(l.inert.Pos), Rot: geom.Rot}
				if l.static {
					local.Pos = geom.Pos
				}
			}
			sh.Pos, sh.Rot = local.Pos, local.Rot
			if mg != nil {
				mg.geom.Body, mg.geom.Pos, mg.geom.Rot, mg.geom.Material = l.owner, sh.Pos, sh.Rot, sh.Material
				im.addMesh(c, mg.geom, mg.file)
				continue
			}
			b.Shapes = append(b.Shapes, sh)
		}
	}
	return nil
}

// addJoints appends a JointSpec for the joint above each body link, in
// world coordinates at zero joint positions: revolute and continuous are
// hinges, prismatic a slider, fixed a weld; floating adds none, planar
// two sliders and a hinge (ImportOptions.SplitJoints) or none.
func (t *urdfTree) addJoints(spec *SceneSpec, opts ImportOptions, taken map[string]bool) error {
	im := t.im
	for _, l := range t.order {
		j := l.parent
		if j == nil || !l.body {
			continue
		}
		pa := t.byName[j.parent].owner
		if pa == l.name {
			continue // the body that carries a massless root (fixedCarrier)
		}
		pivot := l.world.Pos
		axis := l.world.Rot.Rotate(j.axis)
		js := JointSpec{Name: j.name, A: l.name, B: pa, Pivot: pivot, Axis: axis}
		switch j.typ {
		case "revolute", "continuous":
			js.Type = JointHinge
		case "prismatic":
			js.Type = JointPrismatic
		case "fixed":
			js.Type = JointFixed
			js.Axis = mgl64.Vec3{}
		case "floating":
			continue
		case "planar":
			if !(opts.SplitJoints > 0) {
				im.warnOnce("planar", j.node, "planar joint %q: the child link is left free (6 degrees of freedom); import with ImportOptions.SplitJoints > 0 to make it two sliders and a hinge", clip(j.name))
				continue
			}
			if err := im.urdfPlanar(j, &js, spec, t.bodyIndex[l.name], taken, opts.SplitJoints); err != nil {
				return err
			}
			continue
		}
		if l.static && (pa == WorldName || t.staticLink(j.parent)) {
			continue // a static link needs no weld
		}
		if err := im.urdfJointOptions(j, &js); err != nil {
			return err
		}
		spec.Joints = append(spec.Joints, js)
	}
	return nil
}

func (im *importer) urdfLink(n *xnode) (*urdfLink, error) {
	name, ok := n.attr("name")
	if !ok || name == "" {
		return nil, im.errAt(n, "name: missing")
	}
	l := &urdfLink{node: n, name: name, inert: identity}
	for _, c := range n.children {
		switch c.name {
		case "inertial":
			if err := im.urdfInertial(c, l); err != nil {
				return nil, err
			}
		case "collision":
		case "visual":
			im.warnOnce("visual", c, "visual geometry ignored: gorigid shows the collision shapes")
		default:
			im.warnOnce("link:"+c.name, c, "element <%s> in a link ignored", c.name)
		}
	}
	return l, nil
}

func (im *importer) urdfInertial(n *xnode, l *urdfLink) error {
	for _, c := range n.children {
		switch c.name {
		case "origin":
			t, err := im.urdfOrigin(c)
			if err != nil {
				return err
			}
			l.inert = t
		case "mass":
			m, err := im.floatAttr(c, "value", math.NaN())
			if err != nil {
				return err
			}
			if !(m >= 0) {
				return im.errAt(c, "value: want a mass ≥ 0 kg")
			}
			l.mass = m
		case "inertia":
			var v [6]float64
			for i, k := range []string{"ixx", "ixy", "ixz", "iyy", "iyz", "izz"} {
				x, err := im.floatAttr(c, k, 0)
				if err != nil {
					return err
				}
				v[i] = x
			}
			l.I = mgl64.Mat3{v[0], v[1], v[2], v[1], v[3], v[4], v[2], v[4], v[5]}
		}
	}
	if l.mass > 0 && !(l.I.At(0, 0) > 0 && l.I.At(1, 1) > 0 && l.I.At(2, 2) > 0) {
		return im.errAt(n, "inertia: ixx, iyy and izz must be > 0 for a link of mass %v kg", l.mass)
	}
	return nil
}

// urdfOrigin reads <origin xyz rpy>.
func (im *importer) urdfOrigin(n *xnode) (transform, error) {
	p, err := im.vecAttr(n, "xyz", mgl64.Vec3{})
	if err != nil {
		return identity, err
	}
	r, err := im.vecAttr(n, "rpy", mgl64.Vec3{})
	if err != nil {
		return identity, err
	}
	q := mgl64.QuatIdent()
	if r != (mgl64.Vec3{}) {
		q = rpyQuat(r[0], r[1], r[2])
	}
	return transform{Pos: p, Rot: q}, nil
}

var urdfJointTypes = []string{"revolute", "continuous", "prismatic", "fixed", "floating", "planar"}

func (im *importer) urdfJoint(n *xnode) (*urdfJoint, error) {
	j := &urdfJoint{node: n, origin: identity, axis: mgl64.Vec3{1, 0, 0}}
	j.name, _ = n.attr("name")
	j.typ, _ = n.attr("type")
	if j.name == "" {
		return nil, im.errAt(n, "name: missing")
	}
	ok := false
	for _, t := range urdfJointTypes {
		ok = ok || t == j.typ
	}
	if !ok {
		return nil, im.errAt(n, "type: %q is not a URDF joint type (want %s)", clip(j.typ), strings.Join(urdfJointTypes, ", "))
	}
	for _, c := range n.children {
		var err error
		switch c.name {
		case "origin":
			j.origin, err = im.urdfOrigin(c)
		case "parent":
			j.parent, _ = c.attr("link")
		case "child":
			j.child, _ = c.attr("link")
		case "axis":
			j.axis, err = im.vecAttr(c, "xyz", j.axis)
			if err == nil && j.axis.Len() == 0 {
				err = im.errAt(c, "xyz: the axis must not be zero")
			}
		case "limit", "dynamics":
		case "mimic":
			j.mimic = c
		default:
			im.warnOnce("joint:"+c.name, c, "element <%s> in a joint ignored", c.name)
		}
		if err != nil {
			return nil, err
		}
	}
	if j.parent == "" || j.child == "" {
		return nil, im.errAt(n, "joint %q needs <parent link> and <child link>", clip(j.name))
	}
	return j, nil
}

// urdfJointOptions maps <limit> and <dynamics> onto js.
func (im *importer) urdfJointOptions(j *urdfJoint, js *JointSpec) error {
	moving := j.typ == "revolute" || j.typ == "prismatic" || j.typ == "continuous"
	for _, c := range j.node.children {
		switch {
		case c.name == "limit" && moving:
			if j.typ != "continuous" {
				lo, err := im.floatAttr(c, "lower", 0)
				if err != nil {
					return err
				}
				hi, err := im.floatAttr(c, "upper", 0)
				if err != nil {
					return err
				}
				if lo > hi {
					return im.errAt(c, "lower %v > upper %v", lo, hi)
				}
				if j.typ == "revolute" {
					// A continuous angle, 0 at the zero pose the model is
					// built in: limits past ±π or of several turns hold.
					zero := 0.0
					js.Reference = &zero
				}
				if lo > 0 || hi < 0 {
					im.warnStartOutside(c, j.name, j.typ, 0, lo, hi)
				}
				js.Limits = &LimitsSpec{Lower: lo, Upper: hi}
			}
			_, e := c.attr("effort")
			_, v := c.attr("velocity")
			if e || v {
				im.warnOnce("effort", c, "effort and velocity limits have no effect: URDF gives no actuator, and gorigid's joints are unactuated")
			}
		case c.name == "dynamics" && moving:
			d, err := im.floatAttr(c, "damping", 0)
			if err != nil {
				return err
			}
			if d < 0 {
				return im.errAt(c, "damping: must be ≥ 0, got %v", d)
			}
			if d > 0 {
				// Viscous damping on the coordinate: the implicit damper row.
				js.Spring = &SpringSpec{Damping: d}
			}
			f, err := im.floatAttr(c, "friction", 0)
			if err != nil {
				return err
			}
			if f < 0 {
				return im.errAt(c, "friction: must be ≥ 0, got %v", f)
			}
			js.Friction = f
		}
	}
	return nil
}

// urdfShape reads a <collision> element; ok is false when it is skipped
// (with a warning).
func (im *importer) urdfShape(n *xnode, dir string, opts ImportOptions) (ShapeSpec, *pendingMesh, bool, error) {
	sh := ShapeSpec{Rot: mgl64.QuatIdent()}
	if o := n.child("origin"); o != nil {
		t, err := im.urdfOrigin(o)
		if err != nil {
			return sh, nil, false, err
		}
		sh.Pos, sh.Rot = t.Pos, t.Rot
	}
	g := n.child("geometry")
	if g == nil || len(g.children) == 0 {
		return sh, nil, false, im.errAt(n, "no <geometry>")
	}
	e := g.children[0]
	positive := func(name string) (float64, error) {
		v, err := im.floatAttr(e, name, math.NaN())
		if err == nil && !(v > 0) {
			err = im.errAt(e, "%s: must be given and > 0 m", name)
		}
		return v, err
	}
	var err error
	switch e.name {
	case "box":
		sh.Type = contact.Box
		sh.Size, err = im.vecAttr(e, "size", mgl64.Vec3{})
		if err == nil && !(sh.Size[0] > 0 && sh.Size[1] > 0 && sh.Size[2] > 0) {
			err = im.errAt(e, "size: want three sides > 0 m")
		}
	case "sphere":
		sh.Type = contact.Sphere
		sh.Radius, err = positive("radius")
	case "cylinder":
		sh.Type = contact.Cylinder
		sh.Radius, err = positive("radius")
		if err == nil {
			sh.Length, err = positive("length")
		}
	case "mesh":
		f, _ := e.attr("filename")
		path, found := resolveMesh(f, dir, opts.SearchPath)
		if !found {
			if !opts.SkipMissingMeshes {
				return sh, nil, false, im.errAt(e, "collision mesh file %q not found in the model's directory or the search path (package://NAME/PATH is looked up as DIR/NAME/PATH in each search directory): give the mesh files, or import with ImportOptions.SkipMissingMeshes to leave the shape out", clipPath(f))
			}
			im.warnOnce("meshfile:"+f, e, "collision mesh file %q not found in the model's directory or the search path: the shape is left out (SkipMissingMeshes)", clipPath(f))
		}
		sc, err := im.vecAttr(e, "scale", mgl64.Vec3{1, 1, 1})
		if err != nil {
			return sh, nil, false, err
		}
		name, _ := n.attr("name")
		return sh, &pendingMesh{node: n, file: f, geom: MeshGeom{Name: name, File: path, Scale: sc}}, false, nil
	default:
		im.warnOnce("geom:"+e.name, e, "geometry <%s> not supported: skipped", e.name)
		return sh, nil, false, nil
	}
	return sh, nil, err == nil, err
}

// resolveMesh returns the path a mesh reference resolves to and whether
// that file exists: package://NAME/REST in DIR/NAME/REST of the search
// path, a relative path in the model's directory, then the search path.
// Only regular files count (no devices or pipes).
func resolveMesh(ref, dir string, search []string) (string, bool) {
	var cands []string
	if rest, ok := strings.CutPrefix(ref, "package://"); ok {
		for _, d := range search {
			cands = append(cands, filepath.Join(d, rest))
		}
	} else if rest, ok := strings.CutPrefix(ref, "file://"); ok {
		cands = append(cands, rest)
	} else if filepath.IsAbs(ref) {
		cands = append(cands, ref)
	} else {
		if dir != "" {
			cands = append(cands, filepath.Join(dir, ref))
		}
		for _, d := range search {
			cands = append(cands, filepath.Join(d, ref))
		}
	}
	for _, c := range cands {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c, true
		}
	}
	return "", false
}

// urdfMimics turns each <mimic joint multiplier offset> of a joint that
// became a hinge or prismatic joint into an equality tendon
// q = multiplier·q_joint + offset (both coordinates 0 at the model's
// zero pose, as URDF's); a mimic of a joint that is not a hinge or
// prismatic joint in the scene is warned and left out.
func (im *importer) urdfMimics(joints []*urdfJoint, spec *SceneSpec) error {
	axial := map[string]bool{}
	for i := range spec.Joints {
		if t := spec.Joints[i].Type; t == JointHinge || t == JointPrismatic {
			axial[spec.Joints[i].Name] = true
		}
	}
	declared := map[string]bool{}
	for _, j := range joints {
		declared[j.name] = true
	}
	for _, j := range joints {
		c := j.mimic
		if c == nil {
			continue
		}
		of, ok := c.attr("joint")
		if !ok || of == "" {
			return im.errAt(c, "joint: required (the name of the joint %q follows)", clip(j.name))
		}
		mult, err := im.floatAttr(c, "multiplier", 1)
		if err != nil {
			return err
		}
		off, err := im.floatAttr(c, "offset", 0)
		if err != nil {
			return err
		}
		if of == j.name {
			return im.errAt(c, "joint: joint %q mimics itself", clip(of))
		}
		if !declared[of] {
			im.warnOnce("mimic:"+j.name, c, "mimic of joint %q by %q not imported: the model has no joint %q; %q moves independently", clip(of), clip(j.name), clip(of), clip(j.name))
			continue
		}
		if !axial[j.name] || !axial[of] {
			im.warnOnce("mimic:"+j.name, c, "mimic of joint %q by %q not imported: both must be revolute, continuous or prismatic joints between bodies with mass; %q moves independently", clip(of), clip(j.name), clip(j.name))
			continue
		}
		t := TendonSpec{Name: j.name + "_mimic", Terms: []TendonTerm{{Joint: j.name, Coef: 1}}, Lower: off, Upper: off}
		if mult != 0 {
			t.Terms = append(t.Terms, TendonTerm{Joint: of, Coef: -mult})
		}
		spec.Tendons = append(spec.Tendons, t)
		if off != 0 {
			unit := "rad"
			for i := range spec.Joints {
				if spec.Joints[i].Name == j.name && spec.Joints[i].Type == JointPrismatic {
					unit = "m"
				}
			}
			im.warnOnce("mimicoffset:"+j.name, c, "joint %q starts %.4g %s off its mimic of %q (the offset, at the zero pose where URDF builds the model): the constraint moves it there on the first step", clip(j.name), off, unit, clip(of))
		}
	}
	return nil
}

// urdfPlanar makes a planar joint (the child translates in the plane
// normal to the axis and turns about it) a chain: parent —slider along
// p₁— added body —slider along p₂— added body —hinge about the axis—
// child, with p₁, p₂ ⟂ the axis; the added bodies, at the joint origin,
// have eps times the child's mass and inertia (they only translate, so
// only their mass enters the plane's dynamics, as (1 + 2 eps) m along p₁
// and (1 + eps) m along p₂ for the child's translation). The hinge is
// named after the joint; the sliders NAME_x and NAME_y. The child does
// not collide with the parent, as when joined directly. js is the joint
// with its pivot, axis and bodies.
func (im *importer) urdfPlanar(j *urdfJoint, js *JointSpec, spec *SceneSpec, child int, taken map[string]bool, eps float64) error {
	if js.Axis.Len() == 0 {
		return im.errAt(j.node, "planar joint %q: the axis must not be zero", clip(j.name))
	}
	n := js.Axis.Normalize()
	p1, p2 := num.Perp(n)
	cb := spec.Bodies[child]
	I := cb.Inertia.Mul(eps)
	prev := js.B
	for k, p := range [2]mgl64.Vec3{p1, p2} {
		name := uniqueName(taken, fmt.Sprintf("%s_planar_%c", cb.Name, "xy"[k]))
		spec.Bodies = append(spec.Bodies, BodySpec{Name: name, Pos: js.Pivot, Rot: cb.Rot, Mass: eps * cb.Mass, Inertia: &I})
		spec.Joints = append(spec.Joints, JointSpec{Type: JointPrismatic, Name: fmt.Sprintf("%s_%c", j.name, "xy"[k]), A: name, B: prev, Pivot: js.Pivot, Axis: p})
		prev = name
	}
	h := *js
	h.Type, h.B, h.Axis = JointHinge, prev, n
	spec.Joints = append(spec.Joints, h)
	if js.B != WorldName {
		spec.Exclude = append(spec.Exclude, ExcludeSpec{A: cb.Name, B: js.B})
	}
	im.warnOnce("planar", j.node, "planar joint %q: two sliders and a hinge through added bodies of %g times the child's mass and inertia (ImportOptions.SplitJoints)", clip(j.name), eps)
	return nil
}

// noXacro returns an error at the first trace of an unexpanded xacro file
// under n (a ROS robot description before `xacro FILE.urdf.xacro >
// FILE.urdf`): an element of the xacro namespace (<xacro:macro>,
// <xacro:include>, a macro's call) or an attribute holding a ${…}
// expression or a $(…) substitution. Read as URDF, its macros' links would
// be missing and its expressions would be reported as bad numbers.
func (im *importer) noXacro(n *xnode) error {
	const hint = "an unexpanded xacro file: expand it first with ROS's xacro (xacro FILE.urdf.xacro > FILE.urdf) and import that"
	if n.space == "xacro" || strings.HasSuffix(n.space, "/xacro") {
		return im.errAt(n, "the xacro:%s element of %s", n.name, hint)
	}
	for _, a := range n.attrs {
		if strings.Contains(a.Value, "${") || strings.Contains(a.Value, "$(") {
			return im.errAt(n, "%s=%q, an expression of %s", a.Name.Local, clip(a.Value), hint)
		}
	}
	for _, c := range n.children {
		if err := im.noXacro(c); err != nil {
			return err
		}
	}
	return nil
}
