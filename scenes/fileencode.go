package scenes

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// Marshal writes s as a scene file (two-space indented JSON, keys in the
// documented order, fields at their default left out except the ones
// that make a file readable on its own). Floats are written with strconv
// 'g', -1, so reading the file back gives the same float64 values bit for
// bit. s must pass Validate. Nested bodies and joint frames are written
// as given; s.WorldFrame() first writes the file in world coordinates.
func (s *SceneSpec) Marshal(w io.Writer) error {
	if err := s.Validate(); err != nil {
		return err
	}
	var b strings.Builder
	writeJSON(&b, s.node(), "")
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *SceneSpec) node() *jnode {
	n := jobj().set("version", jint(FileVersion))
	if s.Name != "" {
		n.set("name", jstr(s.Name))
	}
	if s.Doc != "" {
		n.set("doc", jstr(s.Doc))
	}
	st := &s.Settings
	sn := jobj().set("h", jnum(st.H)).set("gravity", jvec(st.Gravity))
	if st.Solver != "" {
		sn.set("solver", jstr(st.Solver))
	}
	sn.set("budget", jint(st.Budget))
	if !isPosZeroF(st.Tolerance) {
		sn.set("tolerance", jnum(st.Tolerance))
	}
	sn.set("pick", jstr(st.Pick.String()))
	if st.Polish != 0 {
		sn.set("polish", jint(st.Polish))
	}
	sn.set("stabilization", jstr(st.Stabilization.String()))
	if !isPosZeroF(st.Baumgarte) {
		sn.set("baumgarte", jnum(st.Baumgarte))
	}
	if st.PostSolver != "" {
		sn.set("post_solver", jstr(st.PostSolver))
	}
	if !isPosZeroF(st.ContactMargin) {
		sn.set("contact_margin", jnum(st.ContactMargin))
	}
	if !isPosZeroF(st.ProjectAbove) {
		sn.set("project_above", jnum(st.ProjectAbove))
	}
	if !isPosZeroF(st.BounceSpeed) {
		sn.set("bounce_speed", jnum(st.BounceSpeed))
	}
	if !isPosZeroF(st.MaxCorrectingSpeed) {
		sn.set("max_correcting_speed", jnum(st.MaxCorrectingSpeed))
	}
	if st.Impacts != stepper.SimultaneousImpacts {
		sn.set("impacts", jstr(st.Impacts.String()))
	}
	if sl := &st.Sleep; sl.On {
		so := jobj()
		for _, f := range [...]struct {
			key string
			v   float64
		}{{"linear_speed", sl.LinearSpeed}, {"angular_speed", sl.AngularSpeed}, {"time", sl.Time}} {
			if !isPosZeroF(f.v) {
				so.set(f.key, jnum(f.v))
			}
		}
		sn.set("sleep", so)
	}
	if st.SingleProblem {
		sn.set("single_problem", jbool(true))
	}
	if st.TurnFriction {
		sn.set("turn_friction", jbool(true))
	}
	if st.CoulombBounds {
		sn.set("coulomb_bounds", jbool(true))
	}
	if st.JointCorrection != stepper.JointCorrectionDefault {
		sn.set("joint_correction", jstr(st.JointCorrection.String()))
	}
	if st.Coherent != stepper.CoherentDefault {
		sn.set("coherent", jbool(st.Coherent == stepper.CoherentOn))
	}
	n.set("settings", sn)
	if len(s.WorldShapes) > 0 {
		a := jarr()
		for i := range s.WorldShapes {
			a.arr = append(a.arr, s.WorldShapes[i].node())
		}
		n.set("world_shapes", a)
	}
	bodies := jarr()
	for i := range s.Bodies {
		bodies.arr = append(bodies.arr, s.Bodies[i].node())
	}
	n.set("bodies", bodies)
	if len(s.Joints) > 0 {
		a := jarr()
		for i := range s.Joints {
			a.arr = append(a.arr, s.Joints[i].node())
		}
		n.set("joints", a)
	}
	if len(s.Loads) > 0 {
		a := jarr()
		for i := range s.Loads {
			a.arr = append(a.arr, s.Loads[i].node())
		}
		n.set("loads", a)
	}
	if len(s.Exclude) > 0 {
		a := jarr()
		for _, e := range s.Exclude {
			a.arr = append(a.arr, jobj().set("body_a", jstr(e.A)).set("body_b", jstr(e.B)))
		}
		n.set("exclude", a)
	}
	if len(s.Tendons) > 0 {
		a := jarr()
		for i := range s.Tendons {
			a.arr = append(a.arr, s.Tendons[i].node())
		}
		n.set("tendons", a)
	}
	return n
}

func jvec(v mgl64.Vec3) *jnode { return jnums(v[0], v[1], v[2]) }

func jquat(q mgl64.Quat) *jnode { return jnums(q.W, q.V[0], q.V[1], q.V[2]) }

// jinf writes ±Inf as null (docs/formats.md: infinite bounds are null in JSON).
func jinf(v float64) *jnode {
	if math.IsInf(v, 0) {
		return jnull()
	}
	return jnum(v)
}

func isPosZeroF(x float64) bool { return math.Float64bits(x) == 0 }

// setVec sets key unless v is +0 in every component (the default).
func setVec(n *jnode, key string, v mgl64.Vec3) {
	if !isPosZero(v) {
		n.set(key, jvec(v))
	}
}

func (b *BodySpec) node() *jnode {
	n := jobj().set("name", jstr(b.Name))
	if b.Static {
		n.set("static", jbool(true))
	}
	if b.Kinematic {
		n.set("kinematic", jbool(true))
	}
	if b.Density != 0 {
		n.set("density", jnum(b.Density))
	} else if !((b.Static || b.Kinematic) && isPosZeroF(b.Mass)) {
		n.set("mass", jnum(b.Mass))
	}
	if b.Inertia != nil {
		n.set("inertia", jinertia(*b.Inertia))
	}
	if b.Parent != "" {
		n.set("parent", jstr(b.Parent))
	}
	n.set("position", jvec(b.Pos))
	n.set("orientation", jquat(b.Rot))
	setVec(n, "velocity", b.Vel)
	setVec(n, "angular_velocity", b.AngVel)
	setVec(n, "force", b.Force)
	setVec(n, "torque", b.Torque)
	if len(b.Shapes) > 0 {
		a := jarr()
		for i := range b.Shapes {
			a.arr = append(a.arr, b.Shapes[i].node())
		}
		n.set("shapes", a)
	}
	if len(b.Path) > 0 {
		a := jarr()
		for _, pt := range b.Path {
			a.arr = append(a.arr, jobj().set("time", jnum(pt.Time)).set("position", jvec(pt.Pos)))
		}
		n.set("path", a)
	}
	return n
}

// jinertia writes a matrix whose off-diagonal entries are all +0 as its
// diagonal, else as its rows.
func jinertia(m mgl64.Mat3) *jnode {
	diag := true
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if i != j && !isPosZeroF(m.At(i, j)) {
				diag = false
			}
		}
	}
	if diag {
		return jnums(m.At(0, 0), m.At(1, 1), m.At(2, 2))
	}
	return jarr(jnums(m.At(0, 0), m.At(0, 1), m.At(0, 2)),
		jnums(m.At(1, 0), m.At(1, 1), m.At(1, 2)),
		jnums(m.At(2, 0), m.At(2, 1), m.At(2, 2)))
}

func (s *ShapeSpec) node() *jnode {
	n := jobj().set("type", jstr(s.Type.String()))
	switch s.Type {
	case contact.Box:
		n.set("size", jvec(s.Size))
	case contact.Sphere:
		n.set("radius", jnum(s.Radius))
	case contact.Capsule, contact.Cylinder:
		n.set("radius", jnum(s.Radius)).set("length", jnum(s.Length))
	case contact.Convex:
		if len(s.Points) > 0 {
			pts := jarr()
			for _, q := range s.Points {
				pts.arr = append(pts.arr, jvec(q))
			}
			n.set("points", pts)
		}
		if s.Mesh != "" {
			n.set("mesh", jstr(s.Mesh))
			setVec(n, "scale", s.Scale)
		}
	case contact.TriMesh, contact.Heightfield:
		s.staticMeshNode(n)
	}
	setVec(n, "position", s.Pos)
	if r := s.rot(); r != mgl64.QuatIdent() {
		n.set("orientation", jquat(r))
	}
	m := s.Material
	mn := jobj()
	for _, f := range []struct {
		key string
		v   float64
	}{{"friction", m.Friction}, {"rolling", m.Rolling}, {"stiffness", m.Stiffness}, {"damping", m.Damping}, {"restitution", m.Restitution}} {
		if !isPosZeroF(f.v) {
			mn.set(f.key, jnum(f.v))
		}
	}
	if len(mn.keys) > 0 {
		n.set("material", mn)
	}
	if s.Category != 0 {
		n.set("category", jint(int(s.Category)))
	}
	if s.Mask != 0 {
		n.set("mask", jint(int(s.Mask)))
	}
	return n
}

func (j *JointSpec) node() *jnode {
	n := jobj().set("type", jstr(j.Type))
	if j.Name != "" {
		n.set("name", jstr(j.Name))
	}
	if j.Type == JointDifferential {
		n.set("carrier", jstr(j.Carrier))
	}
	n.set("body_a", jstr(j.A)).set("body_b", jstr(j.B))
	if j.Frame != "" {
		n.set("frame", jstr(j.Frame))
	}
	soft := false
	switch j.Type {
	case JointBall, JointFixed:
		n.set("pivot", jvec(j.Pivot))
		if s := j.Swing; s != nil && j.Type == JointBall {
			n.set("swing", jobj().set("axis", jvec(s.Axis)).set("angle", jnum(s.Angle)))
		}
		if s := j.Twist; s != nil && j.Type == JointBall {
			n.set("twist", jobj().set("axis", jvec(s.Axis)).set("lower", jnum(s.Lower)).set("upper", jnum(s.Upper)))
		}
		soft = true
	case JointHinge, JointPrismatic:
		n.set("pivot", jvec(j.Pivot)).set("axis", jvec(j.Axis))
		if r := j.Reference; r != nil && j.Type == JointHinge {
			n.set("reference", jnum(*r))
		}
		if l := j.Limits; l != nil {
			n.set("limits", jobj().set("lower", jinf(l.Lower)).set("upper", jinf(l.Upper)))
		}
		if m := j.Motor; m != nil {
			n.set("motor", jobj().set("speed", jnum(m.Speed)).set("max_force", jinf(m.MaxForce)))
		}
		if !isPosZeroF(j.Friction) {
			n.set("friction", jnum(j.Friction))
		}
		if s := j.Spring; s != nil {
			n.set("spring", jobj().set("stiffness", jnum(s.Stiffness)).set("damping", jnum(s.Damping)).set("rest", jnum(s.Rest)))
		}
		if !isPosZeroF(j.Armature) {
			n.set("armature", jnum(j.Armature))
		}
		if s := j.Servo; s != nil {
			n.set("servo", jobj().set("target", jnum(s.Target)).set("kp", jnum(s.Kp)).set("kd", jnum(s.Kd)).set("max_force", jinf(s.MaxForce)))
		}
		soft = true
	case JointDistance, JointRope:
		n.set("pivot_a", jvec(j.PivotA)).set("pivot_b", jvec(j.PivotB)).set("length", jnum(j.Length))
		soft = true
	case JointUniversal:
		n.set("pivot", jvec(j.Pivot)).set("axis_a", jvec(j.AxisA)).set("axis_b", jvec(j.AxisB))
		soft = true
	case JointGear:
		n.set("axis_a", jvec(j.AxisA)).set("axis_b", jvec(j.AxisB)).set("ratio", jnum(j.Ratio))
	case JointDifferential:
		n.set("axis_carrier", jvec(j.AxisCarrier)).set("axis_a", jvec(j.AxisA)).set("axis_b", jvec(j.AxisB))
	case JointConverter:
		n.set("axis_a", jvec(j.AxisA)).set("axis_b", jvec(j.AxisB)).set("coefficient", jnum(j.Coefficient))
	}
	if j.Housing != "" && (j.Type == JointGear || j.Type == JointDifferential || j.Type == JointConverter) {
		n.set("housing", jstr(j.Housing))
	}
	if soft && j.Soft != nil {
		sn := jobj().set("stiffness", jnum(j.Soft.Stiffness))
		if !isPosZeroF(j.Soft.Damping) {
			sn.set("damping", jnum(j.Soft.Damping))
		}
		n.set("soft", sn)
	}
	if j.Collide {
		n.set("collide", jbool(true))
	}
	return n
}

func (l *LoadSpec) node() *jnode {
	n := jobj().set("type", jstr(l.Type)).set("body", jstr(l.Body))
	if l.Reaction != "" {
		n.set("reaction", jstr(l.Reaction))
	}
	n.set("direction", jvec(l.Direction))
	if l.Frame != "" {
		n.set("frame", jstr(l.Frame))
	}
	if l.Point != nil {
		n.set("point", jvec(*l.Point))
	}
	pn := jobj().set("type", jstr(l.Profile.Type))
	switch l.Profile.Type {
	case ProfileConst:
		pn.set("value", jnum(l.Profile.Value))
	case ProfileRamp:
		pn.set("from", jnum(l.Profile.From)).set("to", jnum(l.Profile.To)).set("duration", jnum(l.Profile.Duration))
	}
	n.set("profile", pn)
	return n
}

// String returns the scene file text of s (Marshal's output), or an error
// message if s is invalid.
func (s *SceneSpec) String() string {
	var b strings.Builder
	if err := s.Marshal(&b); err != nil {
		return fmt.Sprintf("invalid scene: %v", err)
	}
	return b.String()
}
