package scenes

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/stepper"
)

// decodeScene turns the JSON tree into a SceneSpec, reporting type
// errors, missing required keys and unknown keys with their paths. Range
// checks are SceneSpec.Validate's.
func decodeScene(n *jnode, p *problems) *SceneSpec {
	s := &SceneSpec{}
	o := decObj(p, n, "")
	if o == nil {
		return s
	}
	o.field("$schema", false) // for editors; not checked
	var version float64
	if o.num("version", &version, true) && version != FileVersion {
		p.add("version", "unsupported version %v (this reader knows %d)", version, FileVersion)
	}
	o.str("name", &s.Name, false)
	o.str("doc", &s.Doc, false)
	if so := o.obj("settings", true); so != nil {
		decodeSettings(so, &s.Settings)
	}
	for i, e := range o.array("world_shapes") {
		if p.full() {
			break // 20 problems reported: decoding more only costs memory
		}
		s.WorldShapes = append(s.WorldShapes, decodeShape(p, e, fmt.Sprintf("world_shapes[%d]", i)))
	}
	for i, e := range o.array("bodies") {
		if p.full() {
			break // 20 problems reported: decoding more only costs memory
		}
		s.Bodies = append(s.Bodies, decodeBody(p, e, fmt.Sprintf("bodies[%d]", i)))
	}
	for i, e := range o.array("joints") {
		if p.full() {
			break // 20 problems reported: decoding more only costs memory
		}
		s.Joints = append(s.Joints, decodeJoint(p, e, fmt.Sprintf("joints[%d]", i)))
	}
	for i, e := range o.array("loads") {
		if p.full() {
			break // 20 problems reported: decoding more only costs memory
		}
		s.Loads = append(s.Loads, decodeLoad(p, e, fmt.Sprintf("loads[%d]", i)))
	}
	for i, e := range o.array("exclude") {
		if p.full() {
			break // 20 problems reported: decoding more only costs memory
		}
		var x ExcludeSpec
		if eo := decObj(p, e, fmt.Sprintf("exclude[%d]", i)); eo != nil {
			eo.str("body_a", &x.A, true)
			eo.str("body_b", &x.B, true)
			eo.done("")
		}
		s.Exclude = append(s.Exclude, x)
	}
	for i, e := range o.array("tendons") {
		s.Tendons = append(s.Tendons, decodeTendon(p, e, fmt.Sprintf("tendons[%d]", i)))
	}
	o.done("")
	return s
}

var pickNames = []string{"energy", "fb", "residual", "last", "energy-exact"}
var stabNames = []string{"regularized", "none", "baumgarte", "post"}

var impactNames = []string{"simultaneous", "propagated"}

var jointCorrectionNames = []string{"feedback", "projection"}

func decodeSettings(o *objDec, s *SettingsSpec) {
	o.num("h", &s.H, true)
	s.Gravity = stepper.StandardGravity
	o.vec3("gravity", &s.Gravity, false)
	o.enum("solver", &s.Solver, false, solverNames)
	o.integer("budget", &s.Budget)
	o.num("tolerance", &s.Tolerance, false)
	var name string
	if o.enum("pick", &name, false, pickNames) {
		s.Pick, _ = errmeasure.ParseMeasure(name)
	}
	o.integer("polish", &s.Polish)
	if o.enum("stabilization", &name, false, stabNames) {
		s.Stabilization, _ = stepper.ParseStabilization(name)
	}
	o.num("baumgarte", &s.Baumgarte, false)
	o.enum("post_solver", &s.PostSolver, false, solverNames)
	o.num("contact_margin", &s.ContactMargin, false)
	o.num("project_above", &s.ProjectAbove, false)
	o.num("bounce_speed", &s.BounceSpeed, false)
	o.num("max_correcting_speed", &s.MaxCorrectingSpeed, false)
	if o.enum("impacts", &name, false, impactNames) {
		s.Impacts, _ = stepper.ParseImpacts(name)
	}
	if so := o.obj("sleep", false); so != nil {
		s.Sleep.On = true
		so.num("linear_speed", &s.Sleep.LinearSpeed, false)
		so.num("angular_speed", &s.Sleep.AngularSpeed, false)
		so.num("time", &s.Sleep.Time, false)
		so.done("")
	}
	o.boolean("single_problem", &s.SingleProblem)
	o.boolean("turn_friction", &s.TurnFriction)
	o.boolean("coulomb_bounds", &s.CoulombBounds)
	if o.enum("joint_correction", &name, false, jointCorrectionNames) {
		s.JointCorrection, _ = stepper.ParseJointCorrection(name)
	}
	var on bool
	if o.boolean("coherent", &on) {
		s.Coherent = stepper.CoherentOff
		if on {
			s.Coherent = stepper.CoherentOn
		}
	}
	o.done("")
}

var shapeNames = []string{"box", "sphere", "capsule", "cylinder", "convex", "plane", "trimesh", "heightfield"}

func decodeShape(p *problems, n *jnode, path string) ShapeSpec {
	s := ShapeSpec{} // Rot zero: identity, unless given
	o := decObj(p, n, path)
	if o == nil {
		return s
	}
	var kind string
	if !o.enum("type", &kind, true, shapeNames) {
		o.skipRest()
		return s
	}
	switch kind {
	case "box":
		s.Type = contact.Box
		o.vec3("size", &s.Size, true)
	case "sphere":
		s.Type = contact.Sphere
		o.num("radius", &s.Radius, true)
	case "capsule":
		s.Type = contact.Capsule
		o.num("radius", &s.Radius, true)
		o.num("length", &s.Length, true)
	case "cylinder":
		s.Type = contact.Cylinder
		o.num("radius", &s.Radius, true)
		o.num("length", &s.Length, true)
	case "convex":
		s.Type = contact.Convex
		s.Points = decodeVecs(p, o.array("points"), path+".points")
		o.str("mesh", &s.Mesh, false)
		o.vec3("scale", &s.Scale, false)
	case "plane":
		s.Type = contact.Plane
	case "trimesh", "heightfield":
		decodeStaticMesh(p, o, path, kind, &s)
	}
	o.vec3("position", &s.Pos, false)
	o.quat("orientation", &s.Rot)
	if m := o.obj("material", false); m != nil {
		m.num("friction", &s.Material.Friction, false)
		m.num("rolling", &s.Material.Rolling, false)
		m.num("stiffness", &s.Material.Stiffness, false)
		m.num("damping", &s.Material.Damping, false)
		m.num("restitution", &s.Material.Restitution, false)
		m.done("")
	}
	o.bits("category", &s.Category)
	o.bits("mask", &s.Mask)
	o.done("a " + kind)
	return s
}

// decodeVecs reads an array of [x, y, z] points at path; a bad element is
// reported and left out.
func decodeVecs(p *problems, arr []*jnode, path string) []mgl64.Vec3 {
	var out []mgl64.Vec3
	for i, e := range arr {
		var x [3]float64
		pp := fmt.Sprintf("%s[%d]", path, i)
		if e.kind != jArray || len(e.arr) != 3 {
			p.add(pp, "must be an array of 3 numbers, got %s", describe(e))
		} else if decodeNums(p, e, pp, x[:]) {
			out = append(out, x)
		}
	}
	return out
}

// decodeStaticMesh reads the keys of a trimesh (mesh and scale, or
// vertices and triangles) or heightfield (heights, size) shape.
func decodeStaticMesh(p *problems, o *objDec, path, kind string, s *ShapeSpec) {
	if kind == "heightfield" {
		s.Type = contact.Heightfield
		o.vec3("size", &s.Size, true)
		for j, row := range o.array("heights") {
			rp := fmt.Sprintf("%s.heights[%d]", path, j)
			if row.kind != jArray {
				p.add(rp, "must be an array of numbers (one row along x), got %s", describe(row))
				continue
			}
			r := make([]float64, len(row.arr))
			decodeNums(p, row, rp, r)
			s.Heights = append(s.Heights, r)
		}
		return
	}
	s.Type = contact.TriMesh
	o.str("mesh", &s.Mesh, false)
	o.vec3("scale", &s.Scale, false)
	s.Vertices = decodeVecs(p, o.array("vertices"), path+".vertices")
	for i, e := range o.array("triangles") {
		var x [3]float64
		pp := fmt.Sprintf("%s.triangles[%d]", path, i)
		if e.kind != jArray || len(e.arr) != 3 {
			p.add(pp, "must be an array of 3 vertex indices, got %s", describe(e))
			continue
		}
		if !decodeNums(p, e, pp, x[:]) {
			continue
		}
		var t [3]int
		for k, v := range x {
			if v != math.Trunc(v) || v < 0 || v > math.MaxInt32 {
				p.addv(fmt.Sprintf("%s[%d]", pp, k), v, "must be a vertex index (an integer ≥ 0), got %v", v)
			}
			t[k] = int(v)
		}
		s.Triangles = append(s.Triangles, t)
	}
}

func decodeBody(p *problems, n *jnode, path string) BodySpec {
	b := BodySpec{Rot: mgl64.QuatIdent()}
	o := decObj(p, n, path)
	if o == nil {
		return b
	}
	o.str("name", &b.Name, true)
	o.boolean("static", &b.Static)
	o.boolean("kinematic", &b.Kinematic)
	o.num("mass", &b.Mass, false)
	o.num("density", &b.Density, false)
	if in := o.field("inertia", false); in != nil {
		b.Inertia = decodeInertia(p, in, path+".inertia")
	}
	o.str("parent", &b.Parent, false)
	o.vec3("position", &b.Pos, false)
	o.quat("orientation", &b.Rot)
	o.vec3("velocity", &b.Vel, false)
	o.vec3("angular_velocity", &b.AngVel, false)
	o.vec3("force", &b.Force, false)
	o.vec3("torque", &b.Torque, false)
	for i, e := range o.array("shapes") {
		b.Shapes = append(b.Shapes, decodeShape(p, e, fmt.Sprintf("%s.shapes[%d]", path, i)))
	}
	for i, e := range o.array("path") {
		wp := decObj(p, e, fmt.Sprintf("%s.path[%d]", path, i))
		if wp == nil {
			continue
		}
		var pt Waypoint
		wp.num("time", &pt.Time, true)
		wp.vec3("position", &pt.Pos, true)
		wp.done("")
		b.Path = append(b.Path, pt)
	}
	o.done("")
	return b
}

// decodeInertia reads [Ixx, Iyy, Izz] (principal axes along the body
// axes) or the rows [[…], […], […]] of the full matrix.
func decodeInertia(p *problems, n *jnode, path string) *mgl64.Mat3 {
	if n.kind != jArray || len(n.arr) != 3 {
		p.add(path, "must be [Ixx, Iyy, Izz] or a 3×3 array of rows, got %s", describe(n))
		return nil
	}
	if n.arr[0].kind != jArray {
		var d mgl64.Vec3
		if !decodeNums(p, n, path, d[:]) {
			return nil
		}
		m := mgl64.Diag3(d)
		return &m
	}
	var m mgl64.Mat3
	ok := true
	for i, row := range n.arr {
		var r [3]float64
		if row.kind != jArray || len(row.arr) != 3 {
			p.add(fmt.Sprintf("%s[%d]", path, i), "must be an array of 3 numbers, got %s", describe(row))
			ok = false
			continue
		}
		if !decodeNums(p, row, fmt.Sprintf("%s[%d]", path, i), r[:]) {
			ok = false
			continue
		}
		for j := range r {
			m.Set(i, j, r[j])
		}
	}
	if !ok {
		return nil
	}
	return &m
}

func decodeJoint(p *problems, n *jnode, path string) JointSpec {
	j := JointSpec{}
	o := decObj(p, n, path)
	if o == nil {
		return j
	}
	if !o.enum("type", &j.Type, true, jointTypes) {
		o.skipRest()
		return j
	}
	o.str("name", &j.Name, false)
	if j.Type == JointDifferential {
		o.str("carrier", &j.Carrier, true)
	}
	o.str("body_a", &j.A, true)
	o.str("body_b", &j.B, true)
	o.str("frame", &j.Frame, false)
	soft := false
	switch j.Type {
	case JointBall, JointFixed:
		o.vec3("pivot", &j.Pivot, true)
		if j.Type == JointBall {
			if s := o.obj("swing", false); s != nil {
				j.Swing = &SwingSpec{}
				s.vec3("axis", &j.Swing.Axis, true)
				s.num("angle", &j.Swing.Angle, true)
				s.done("")
			}
			if s := o.obj("twist", false); s != nil {
				j.Twist = &TwistSpec{}
				s.vec3("axis", &j.Twist.Axis, true)
				s.num("lower", &j.Twist.Lower, true)
				s.num("upper", &j.Twist.Upper, true)
				s.done("")
			}
		}
		soft = true
	case JointHinge, JointPrismatic:
		o.vec3("pivot", &j.Pivot, true)
		o.vec3("axis", &j.Axis, true)
		if j.Type == JointHinge {
			var ref float64
			if o.num("reference", &ref, false) {
				j.Reference = &ref
			}
		}
		if l := o.obj("limits", false); l != nil {
			j.Limits = &LimitsSpec{Lower: math.Inf(-1), Upper: math.Inf(1)}
			l.numOrNull("lower", &j.Limits.Lower)
			l.numOrNull("upper", &j.Limits.Upper)
			l.done("")
		}
		if m := o.obj("motor", false); m != nil {
			j.Motor = &MotorSpec{MaxForce: math.Inf(1)}
			m.num("speed", &j.Motor.Speed, true)
			m.numOrNull("max_force", &j.Motor.MaxForce)
			m.done("")
		}
		o.num("friction", &j.Friction, false)
		if s := o.obj("spring", false); s != nil {
			j.Spring = &SpringSpec{}
			s.num("stiffness", &j.Spring.Stiffness, false)
			s.num("damping", &j.Spring.Damping, false)
			s.num("rest", &j.Spring.Rest, false)
			s.done("")
		}
		o.num("armature", &j.Armature, false)
		if s := o.obj("servo", false); s != nil {
			j.Servo = &ServoSpec{MaxForce: math.Inf(1)}
			s.num("target", &j.Servo.Target, true)
			s.num("kp", &j.Servo.Kp, true)
			s.num("kd", &j.Servo.Kd, false)
			s.numOrNull("max_force", &j.Servo.MaxForce)
			s.done("")
		}
		soft = true
	case JointDistance, JointRope:
		o.vec3("pivot_a", &j.PivotA, true)
		o.vec3("pivot_b", &j.PivotB, true)
		o.num("length", &j.Length, true)
		soft = true
	case JointUniversal:
		o.vec3("pivot", &j.Pivot, true)
		o.vec3("axis_a", &j.AxisA, true)
		o.vec3("axis_b", &j.AxisB, true)
		soft = true
	case JointGear:
		o.vec3("axis_a", &j.AxisA, true)
		o.vec3("axis_b", &j.AxisB, true)
		o.num("ratio", &j.Ratio, true)
		o.str("housing", &j.Housing, false)
	case JointDifferential:
		o.vec3("axis_carrier", &j.AxisCarrier, true)
		o.vec3("axis_a", &j.AxisA, true)
		o.vec3("axis_b", &j.AxisB, true)
		o.str("housing", &j.Housing, false)
	case JointConverter:
		o.vec3("axis_a", &j.AxisA, true)
		o.vec3("axis_b", &j.AxisB, true)
		o.num("coefficient", &j.Coefficient, true)
		o.str("housing", &j.Housing, false)
	}
	if soft {
		if s := o.obj("soft", false); s != nil {
			j.Soft = &SoftSpec{}
			s.num("stiffness", &j.Soft.Stiffness, true)
			s.num("damping", &j.Soft.Damping, false)
			s.done("")
		}
	}
	o.boolean("collide", &j.Collide)
	o.done("a " + j.Type + " joint")
	return j
}

// decodeTendon reads one element of "tendons".
func decodeTendon(p *problems, n *jnode, path string) TendonSpec {
	t := TendonSpec{Lower: math.Inf(-1), Upper: math.Inf(1)}
	o := decObj(p, n, path)
	if o == nil {
		return t
	}
	o.str("name", &t.Name, false)
	for k, e := range o.array("joints") {
		var tm TendonTerm
		if eo := decObj(p, e, fmt.Sprintf("%s.joints[%d]", path, k)); eo != nil {
			eo.str("joint", &tm.Joint, true)
			eo.num("coef", &tm.Coef, true)
			eo.done("")
		}
		t.Terms = append(t.Terms, tm)
	}
	o.numOrNull("lower", &t.Lower)
	o.numOrNull("upper", &t.Upper)
	o.done("a tendon")
	return t
}

func decodeLoad(p *problems, n *jnode, path string) LoadSpec {
	l := LoadSpec{}
	o := decObj(p, n, path)
	if o == nil {
		return l
	}
	o.enum("type", &l.Type, true, []string{LoadForce, LoadTorque})
	o.str("body", &l.Body, true)
	o.str("reaction", &l.Reaction, false)
	o.vec3("direction", &l.Direction, true)
	o.str("frame", &l.Frame, false)
	if v := o.n.get("point"); v != nil && v.kind != jNull {
		l.Point = new(mgl64.Vec3)
		o.vec3("point", l.Point, true)
	} else {
		o.asked = append(o.asked, "point")
	}
	if po := o.obj("profile", true); po != nil {
		if po.enum("type", &l.Profile.Type, true, []string{ProfileConst, ProfileRamp}) {
			switch l.Profile.Type {
			case ProfileConst:
				po.num("value", &l.Profile.Value, true)
			case ProfileRamp:
				po.num("from", &l.Profile.From, false)
				po.num("to", &l.Profile.To, true)
				po.num("duration", &l.Profile.Duration, true)
			}
			po.done("a " + l.Profile.Type + " profile")
		} else {
			po.skipRest()
		}
	}
	o.done("")
	return l
}

// objDec reads one JSON object, remembering which keys were asked for so
// that done can report the others as unknown.
type objDec struct {
	p     *problems
	path  string
	n     *jnode
	asked []string
	skip  bool
}

// decObj returns a reader for the object n, or nil (with the error
// reported) if n is not an object.
func decObj(p *problems, n *jnode, path string) *objDec {
	if n.kind != jObject {
		p.add(pathOr(path), "must be an object, got %s", describe(n))
		return nil
	}
	return &objDec{p: p, path: path, n: n}
}

func pathOr(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

func (o *objDec) sub(key string) string {
	if o.path == "" {
		return key
	}
	return o.path + "." + key
}

// field returns the value of key, or nil if it is absent (an error if
// required). null counts as absent.
func (o *objDec) field(key string, required bool) *jnode {
	o.asked = append(o.asked, key)
	v := o.n.get(key)
	if v == nil || v.kind == jNull {
		if required {
			o.p.add(o.sub(key), "required")
		}
		return nil
	}
	return v
}

func (o *objDec) num(key string, dst *float64, required bool) bool {
	v := o.field(key, required)
	if v == nil {
		return false
	}
	x, ok := decodeNum(o.p, v, o.sub(key))
	if ok {
		*dst = x
	}
	return ok
}

// numOrNull reads a number, leaving dst (an infinity) for null or absent.
func (o *objDec) numOrNull(key string, dst *float64) {
	o.num(key, dst, false)
}

func (o *objDec) integer(key string, dst *int) {
	v := o.field(key, false)
	if v == nil {
		return
	}
	if v.kind != jNumber {
		o.p.add(o.sub(key), "must be an integer, got %s", describe(v))
		return
	}
	k, err := strconv.Atoi(v.num)
	if err != nil {
		o.p.addv(o.sub(key), v.num, "must be an integer, got %s", v.num)
		return
	}
	*dst = k
}

// bits reads a 32-bit set of flags: an integer in [0, 2³² − 1].
func (o *objDec) bits(key string, dst *uint32) {
	v := o.field(key, false)
	if v == nil {
		return
	}
	if v.kind != jNumber {
		o.p.add(o.sub(key), "must be an integer in [0, 4294967295], got %s", describe(v))
		return
	}
	k, err := strconv.ParseUint(v.num, 10, 32)
	if err != nil {
		o.p.addv(o.sub(key), v.num, "must be an integer in [0, 4294967295], got %s", v.num)
		return
	}
	*dst = uint32(k)
}

// boolean reads an optional true or false; it reports whether it did.
func (o *objDec) boolean(key string, dst *bool) bool {
	v := o.field(key, false)
	if v == nil {
		return false
	}
	if v.kind != jBool {
		o.p.add(o.sub(key), "must be true or false, got %s", describe(v))
		return false
	}
	*dst = v.b
	return true
}

func (o *objDec) str(key string, dst *string, required bool) bool {
	v := o.field(key, required)
	if v == nil {
		return false
	}
	if v.kind != jString {
		o.p.add(o.sub(key), "must be a string, got %s", describe(v))
		return false
	}
	*dst = v.str
	return true
}

// enum reads a string that must be one of choices.
func (o *objDec) enum(key string, dst *string, required bool, choices []string) bool {
	var s string
	if !o.str(key, &s, required) {
		return false
	}
	for _, c := range choices {
		if s == c {
			*dst = s
			return true
		}
	}
	o.p.addv(o.sub(key), s, "unknown value %q (want %s)", s, strings.Join(choices, ", "))
	return false
}

func (o *objDec) vec3(key string, dst *mgl64.Vec3, required bool) {
	v := o.field(key, required)
	if v == nil {
		return
	}
	var x [3]float64
	if v.kind != jArray || len(v.arr) != 3 {
		o.p.add(o.sub(key), "must be an array of 3 numbers, got %s", describe(v))
		return
	}
	if decodeNums(o.p, v, o.sub(key), x[:]) {
		*dst = x
	}
}

// quatNormTol is how far from 1 the norm of a quaternion in a file may be
// for the reader to normalize it (hand-written values such as
// [0.7071, 0.7071, 0, 0]); farther is an error. A quaternion within
// body.UnitQuatTol is kept bit for bit.
const quatNormTol = 1e-3

// quat reads an orientation [w, x, y, z].
func (o *objDec) quat(key string, dst *mgl64.Quat) {
	v := o.field(key, false)
	if v == nil {
		return
	}
	var x [4]float64
	if v.kind != jArray || len(v.arr) != 4 {
		o.p.add(o.sub(key), "must be a quaternion [w, x, y, z] (4 numbers), got %s", describe(v))
		return
	}
	if !decodeNums(o.p, v, o.sub(key), x[:]) {
		return
	}
	q := mgl64.Quat{W: x[0], V: mgl64.Vec3{x[1], x[2], x[3]}}
	n := math.Sqrt(q.W*q.W + q.V.Dot(q.V))
	if d := math.Abs(n - 1); d > body.UnitQuatTol && d <= quatNormTol {
		q = q.Scale(1 / n)
	}
	*dst = q
}

// array returns the elements of the array at key (nil if absent).
func (o *objDec) array(key string) []*jnode {
	v := o.field(key, false)
	if v == nil {
		return nil
	}
	if v.kind != jArray {
		o.p.add(o.sub(key), "must be an array, got %s", describe(v))
		return nil
	}
	return v.arr
}

// obj returns a reader for the object at key (nil if absent or not an
// object).
func (o *objDec) obj(key string, required bool) *objDec {
	v := o.field(key, required)
	if v == nil {
		return nil
	}
	return decObj(o.p, v, o.sub(key))
}

// skipRest marks the object's remaining keys as not to be reported (its
// type was bad, so which keys belong is unknown).
func (o *objDec) skipRest() { o.skip = true }

// done reports every key that was not asked for; what ("a box") says
// whose keys the valid list is.
func (o *objDec) done(what string) {
	if o.skip {
		return
	}
	for _, k := range o.n.keys {
		known := false
		for _, a := range o.asked {
			if a == k {
				known = true
				break
			}
		}
		if !known {
			of := ""
			if what != "" {
				of = " for " + what
			}
			o.p.add(o.sub(k), "unknown key%s (valid: %s)", of, strings.Join(o.asked, ", "))
		}
	}
}

func decodeNum(p *problems, v *jnode, path string) (float64, bool) {
	if v.kind != jNumber {
		p.add(path, "must be a number, got %s", describe(v))
		return 0, false
	}
	x, err := strconv.ParseFloat(v.num, 64)
	if err != nil || math.IsInf(x, 0) {
		p.addv(path, v.num, "must be a finite number, got %s (out of float64 range)", v.num)
		return 0, false
	}
	return x, true
}

// decodeNums reads the numbers of array n into dst (len(n.arr) ==
// len(dst)).
func decodeNums(p *problems, n *jnode, path string, dst []float64) bool {
	ok := true
	for i, e := range n.arr {
		x, good := decodeNum(p, e, fmt.Sprintf("%s[%d]", path, i))
		ok = ok && good
		dst[i] = x
	}
	return ok
}

// describe names a JSON value's type (and short value) for a message.
func describe(n *jnode) string {
	switch n.kind {
	case jNumber:
		return "the number " + n.num
	case jString:
		return "the string " + quoteName(n.str)
	case jBool:
		return strconv.FormatBool(n.b)
	case jArray:
		return fmt.Sprintf("an array of %d", len(n.arr))
	case jObject:
		return "an object"
	}
	return "null"
}
