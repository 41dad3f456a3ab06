package scenes

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// Validate checks that s describes something physical before anything is
// built: finite numbers in range, unique body names, dynamic bodies with
// positive mass and positive definite inertia, unit quaternions, joints
// and loads that name existing bodies, parents that nest no body in
// itself, and the options each joint type takes. It returns every problem
// (up to 20) joined, each a *PathError with the JSON path of the value.
func (s *SceneSpec) Validate() error {
	var p problems
	s.validate(&p)
	return p.err()
}

func (s *SceneSpec) validate(p *problems) {
	st := &s.Settings
	chkPos(p, "settings.h", st.H, "s")
	if st.H > 0 && !math.IsInf(st.H, 0) && (st.H < stepper.MinH || st.H > stepper.MaxH) {
		p.addv("settings.h", st.H, "must be in [%v, %v] s (stepper.MinH, stepper.MaxH), got %v", stepper.MinH, stepper.MaxH, st.H)
	}
	chkVec(p, "settings.gravity", st.Gravity)
	if st.Budget < 0 {
		p.addv("settings.budget", st.Budget, "must be ≥ 0, got %d", st.Budget)
	}
	if !(st.Tolerance >= 0 && st.Tolerance < 1) {
		p.add("settings.tolerance", "must be ≥ 0 and < 1 (0 = the solver's default), got %v", st.Tolerance)
	}
	if !st.Pick.Valid() {
		p.add("settings.pick", "unknown measure %d", int(st.Pick))
	}
	if st.Polish < 0 {
		p.addv("settings.polish", st.Polish, "must be ≥ 0 sweeps, got %d", st.Polish)
	}
	if st.Stabilization < stepper.Regularized || st.Stabilization > stepper.Post {
		p.add("settings.stabilization", "unknown mode %d", int(st.Stabilization))
	}
	if st.Impacts < stepper.SimultaneousImpacts || st.Impacts > stepper.PropagatedImpacts {
		p.add("settings.impacts", "unknown mode %d", int(st.Impacts))
	}
	if st.JointCorrection < stepper.JointCorrectionDefault || st.JointCorrection > stepper.JointProjection {
		p.add("settings.joint_correction", "unknown value %d (want stepper.JointCorrectionDefault, JointFeedback or JointProjection)", int(st.JointCorrection))
	}
	if st.Coherent < stepper.CoherentDefault || st.Coherent > stepper.CoherentOff {
		p.add("settings.coherent", "unknown value %d (want stepper.CoherentDefault, CoherentOn or CoherentOff)", int(st.Coherent))
	}
	chkNonNeg(p, "settings.baumgarte", st.Baumgarte, "1/s")
	chkNonNeg(p, "settings.contact_margin", st.ContactMargin, "m")
	chkNonNeg(p, "settings.project_above", st.ProjectAbove, "m or rad")
	chkNonNeg(p, "settings.bounce_speed", st.BounceSpeed, "m/s")
	chkNonNeg(p, "settings.max_correcting_speed", st.MaxCorrectingSpeed, "m/s")
	chkNonNeg(p, "settings.sleep.linear_speed", st.Sleep.LinearSpeed, "m/s")
	chkNonNeg(p, "settings.sleep.angular_speed", st.Sleep.AngularSpeed, "rad/s")
	chkNonNeg(p, "settings.sleep.time", st.Sleep.Time, "s")
	for _, f := range []struct{ path, v string }{{"settings.solver", st.Solver}, {"settings.post_solver", st.PostSolver}} {
		if f.v != "" && !slices.Contains(solverNames, f.v) {
			p.add(f.path, "unknown solver %q (want %s)", f.v, strings.Join(solverNames, ", "))
		}
	}
	for i := range s.WorldShapes {
		s.WorldShapes[i].validate(p, fmt.Sprintf("world_shapes[%d]", i), true)
	}
	names := map[string]int{}
	for i := range s.Bodies {
		b := &s.Bodies[i]
		path := fmt.Sprintf("bodies[%d]", i)
		switch {
		case b.Name == "":
			p.add(path+".name", "must not be empty (joints and loads refer to bodies by name)")
		case b.Name == WorldName:
			p.add(path+".name", "%q is reserved for the static world", WorldName)
		default:
			if k, dup := names[b.Name]; dup {
				p.add(path+".name", "%s is also the name of bodies[%d]; names must be unique", quoteName(b.Name), k)
			} else {
				names[b.Name] = i
			}
		}
		b.validate(p, path)
	}
	ref := func(path, name string, world bool) bool {
		if name == WorldName {
			if !world {
				p.add(path, "must be a body, not the world")
				return false
			}
			return true
		}
		if _, ok := names[name]; !ok {
			if name == "" {
				p.add(path, "required: a body name or %q", WorldName)
			} else {
				p.add(path, "no body named %s (bodies: %s)", quoteName(name), listNames(sortedNames(s)))
			}
			return false
		}
		return true
	}
	nested := false
	for i := range s.Bodies {
		if b := &s.Bodies[i]; b.Parent != "" {
			nested = ref(fmt.Sprintf("bodies[%d].parent", i), b.Parent, true) || nested
		}
	}
	if nested {
		s.validateNesting(p, names)
	}
	for i := range s.Joints {
		s.Joints[i].validate(p, fmt.Sprintf("joints[%d]", i), ref)
	}
	s.validateTendons(p)
	for i, e := range s.Exclude {
		path := fmt.Sprintf("exclude[%d]", i)
		okA := ref(path+".body_a", e.A, true)
		if ref(path+".body_b", e.B, true) && okA && e.A == e.B {
			p.add(path+".body_b", "same body as body_a (%s); a body's shapes never collide with each other", quoteName(e.A))
		}
	}
	for i := range s.Loads {
		l := &s.Loads[i]
		path := fmt.Sprintf("loads[%d]", i)
		if l.Type != LoadForce && l.Type != LoadTorque {
			p.add(path+".type", "unknown load type %q (want force or torque)", l.Type)
		}
		if ref(path+".body", l.Body, false) {
			switch lb := &s.Bodies[names[l.Body]]; {
			case lb.Static:
				p.add(path+".body", "%s is static: a load on it has no effect", quoteName(l.Body))
			case lb.Kinematic:
				p.add(path+".body", "%s is kinematic: a load on it has no effect", quoteName(l.Body))
			}
		}
		if l.Reaction != "" {
			ref(path+".reaction", l.Reaction, true)
			if l.Reaction == l.Body {
				p.add(path+".reaction", "must differ from body")
			}
		}
		if l.Frame != "" {
			ref(path+".frame", l.Frame, true)
		}
		chkAxis(p, path+".direction", l.Direction)
		if l.Point != nil {
			if l.Type == LoadTorque {
				p.add(path+".point", "a torque has no point of application; give point only for a force")
			}
			chkVec(p, path+".point", *l.Point)
		}
		pr := &l.Profile
		pp := path + ".profile"
		switch pr.Type {
		case ProfileConst:
			chkFinite(p, pp+".value", pr.Value)
		case ProfileRamp:
			chkFinite(p, pp+".from", pr.From)
			chkFinite(p, pp+".to", pr.To)
			chkNonNeg(p, pp+".duration", pr.Duration, "s")
		default:
			p.add(pp+".type", "unknown profile %q (want constant or ramp)", pr.Type)
		}
	}
}

// validateNesting reports every cycle of parents once, at the body of the
// cycle that comes first in the file: each body must be placed after its
// parent, so none may be nested in itself. names maps a body name to its
// index.
func (s *SceneSpec) validateNesting(p *problems, names map[string]int) {
	const (
		unseen = iota
		walking
		done
	)
	state := make([]int, len(s.Bodies))
	parent := func(i int) int {
		if k, ok := names[s.Bodies[i].Parent]; ok {
			return k
		}
		return -1 // the world, or a missing body (reported)
	}
	var walk []int
	for i := range s.Bodies {
		walk = walk[:0]
		k := i
		for k >= 0 && state[k] == unseen {
			state[k] = walking
			walk = append(walk, k)
			k = parent(k)
		}
		if k >= 0 && state[k] == walking { // k is on this walk: a cycle
			cycle := walk[slices.Index(walk, k):]
			first := slices.Min(cycle)
			at := slices.Index(cycle, first)
			cycle = append(slices.Clone(cycle[at:]), cycle[:at]...)
			chain := make([]string, 0, len(cycle)+1)
			for _, c := range append(cycle, first) {
				chain = append(chain, s.Bodies[c].Name)
			}
			p.add(fmt.Sprintf("bodies[%d].parent", first), "%s is nested in itself: %s; a chain of parents must end at a body that has none",
				quoteName(s.Bodies[first].Name), nameChain(chain))
		}
		for _, w := range walk {
			state[w] = done
		}
	}
}

// nameChain writes names as "a" → "b" → …, at most 8 of them.
func nameChain(names []string) string {
	const most = 8
	q := make([]string, 0, most+1)
	for i, n := range names {
		if i == most-1 && len(names) > most {
			q = append(q, fmt.Sprintf("… (%d more)", len(names)-most), quoteName(names[len(names)-1]))
			break
		}
		q = append(q, quoteName(n))
	}
	return strings.Join(q, " → ")
}

func listNames(names []string) string {
	const most = 8
	if len(names) == 0 {
		return "none"
	}
	q := make([]string, 0, most+1)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("… %d more", len(names)-most))
			break
		}
		q = append(q, quoteName(n))
	}
	return strings.Join(q, ", ")
}

func (b *BodySpec) validate(p *problems, path string) {
	switch {
	case b.Mass != 0 && b.Density != 0:
		p.add(path, "give mass or density, not both")
	case b.Static && b.Kinematic:
		p.add(path+".kinematic", "a body cannot be both static and kinematic")
	case b.Density != 0:
		chkPos(p, path+".density", b.Density, "kg/m³")
	case b.Static || b.Kinematic:
		chkNonNeg(p, path+".mass", b.Mass, "kg")
	default:
		if !(b.Mass > 0) || math.IsInf(b.Mass, 0) {
			p.addv(path+".mass", b.Mass, "must be finite and > 0 kg for a dynamic body, got %v (give mass or density, or static: true)", b.Mass)
		}
	}
	if b.Inertia != nil {
		m := *b.Inertia
		bad := false
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				if x := m.At(i, j); !num.Finite(x) {
					p.addv(fmt.Sprintf("%s.inertia[%d][%d]", path, i, j), x, "must be finite, got %v", x)
					bad = true
				}
			}
		}
		if !bad {
			// body.Validate checks symmetry and positive definiteness.
			tb := body.Body{Name: b.Name, Mass: 1, Inertia: m, Rot: mgl64.QuatIdent(), Static: b.Static || b.Kinematic}
			if err := tb.Validate(); err != nil {
				p.add(path+".inertia", "%s", strings.TrimPrefix(err.Error(), fmt.Sprintf("body %q: Inertia: ", b.Name)))
			}
		}
	}
	chkVec(p, path+".position", b.Pos)
	chkQuat(p, path+".orientation", b.Rot, false)
	chkVec(p, path+".velocity", b.Vel)
	chkVec(p, path+".angular_velocity", b.AngVel)
	if n := body.Norm(b.Vel); n > body.MaxSpeed {
		p.addv(path+".velocity", n, "|v| must be ≤ %g m/s (the speed of light), got %v", body.MaxSpeed, n)
	}
	if n := body.Norm(b.AngVel); n > body.MaxAngVel {
		p.addv(path+".angular_velocity", n, "|ω| must be ≤ %g rad/s, got %v", body.MaxAngVel, n)
	}
	chkVec(p, path+".force", b.Force)
	chkVec(p, path+".torque", b.Torque)
	for k := range b.Shapes {
		b.Shapes[k].validate(p, fmt.Sprintf("%s.shapes[%d]", path, k), b.Static)
	}
	if len(b.Path) > 0 && !b.Kinematic {
		p.add(path+".path", "only a kinematic body follows a path (add kinematic: true)")
	}
	for k, pt := range b.Path {
		pp := fmt.Sprintf("%s.path[%d]", path, k)
		switch {
		case !num.Finite(pt.Time) || pt.Time < 0:
			p.addv(pp+".time", pt.Time, "must be finite and ≥ 0 s, got %v", pt.Time)
		case k > 0 && !(pt.Time > b.Path[k-1].Time):
			p.addv(pp+".time", pt.Time, "must be later than path[%d].time = %v s, got %v", k-1, b.Path[k-1].Time, pt.Time)
		}
		chkVec(p, pp+".position", pt.Pos)
	}
	if len(b.Path) > 0 && b.Path[0].Pos != b.Pos {
		p.add(path+".path[0].position", "must equal the body's position %s, got %s", fmtVec(b.Pos), fmtVec(b.Path[0].Pos))
	}
	if b.Inertia == nil && !b.Static && !b.Kinematic && len(p.list) == 0 {
		if _, _, err := b.massProperties(); err != nil {
			p.add(path, "%v", err)
		}
	}
}

func (s *ShapeSpec) validate(p *problems, path string, static bool) {
	switch s.Type {
	case contact.Plane:
		if !static {
			p.add(path+".type", "a plane must be a world shape or belong to a static body")
		}
	case contact.Box:
		for i := 0; i < 3; i++ {
			chkPos(p, fmt.Sprintf("%s.size[%d]", path, i), s.Size[i], "m")
		}
	case contact.Sphere:
		chkPos(p, path+".radius", s.Radius, "m")
	case contact.Capsule:
		chkPos(p, path+".radius", s.Radius, "m")
		chkNonNeg(p, path+".length", s.Length, "m")
	case contact.Cylinder:
		chkPos(p, path+".radius", s.Radius, "m")
		chkPos(p, path+".length", s.Length, "m")
	case contact.Convex:
		s.validateConvex(p, path)
	case contact.TriMesh, contact.Heightfield:
		s.validateStaticMesh(p, path, static)
	default:
		p.add(path+".type", "unknown shape kind %d", int(s.Type))
	}
	chkVec(p, path+".position", s.Pos)
	chkQuat(p, path+".orientation", s.Rot, true)
	m := s.Material
	mp := path + ".material"
	chkNonNeg(p, mp+".friction", m.Friction, "")
	chkNonNeg(p, mp+".rolling", m.Rolling, "m")
	if !(m.Stiffness >= 0) {
		p.addv(mp+".stiffness", m.Stiffness, "must be ≥ 0 N/m (0 = rigid), got %v", m.Stiffness)
	}
	chkNonNeg(p, mp+".damping", m.Damping, "s")
	if !(m.Restitution >= 0 && m.Restitution <= 1) {
		p.addv(mp+".restitution", m.Restitution, "must be in [0, 1], got %v", m.Restitution)
	}
}

// uses lists, per joint type, the optional fields it accepts.
func (j *JointSpec) validate(p *problems, path string, ref func(path, name string, world bool) bool) {
	if !slices.Contains(jointTypes, j.Type) {
		p.add(path+".type", "unknown joint type %q (want %s)", j.Type, strings.Join(jointTypes, ", "))
		return
	}
	okA := ref(path+".body_a", j.A, j.Type != JointDifferential)
	okB := ref(path+".body_b", j.B, j.Type != JointDifferential)
	if okA && okB && j.A == j.B {
		if j.A == WorldName {
			p.add(path+".body_b", "both sides are the world; at least one must be a body")
		} else {
			p.add(path+".body_b", "same body as body_a (%s); a joint needs two different bodies", quoteName(j.A))
		}
	}
	if j.Type == JointDifferential {
		if ref(path+".carrier", j.Carrier, false) && (j.Carrier == j.A || j.Carrier == j.B) {
			p.add(path+".carrier", "must differ from body_a and body_b")
		}
	}
	if j.Frame != "" {
		ref(path+".frame", j.Frame, true)
	}
	if j.Housing != "" && j.Housing != WorldName {
		if ref(path+".housing", j.Housing, true) && (j.Housing == j.A || j.Housing == j.B || j.Housing == j.Carrier) {
			p.add(path+".housing", "must differ from the coupled bodies")
		}
	}
	switch j.Type {
	case JointBall, JointFixed:
		chkVec(p, path+".pivot", j.Pivot)
		if s := j.Swing; s != nil {
			chkAxis(p, path+".swing.axis", s.Axis)
			if !(s.Angle > 0 && s.Angle < math.Pi) {
				p.addv(path+".swing.angle", s.Angle, "must be in (0, π) rad, got %v", s.Angle)
			}
		}
		if s := j.Twist; s != nil {
			chkAxis(p, path+".twist.axis", s.Axis)
			if !(s.Lower >= -math.Pi && s.Lower < s.Upper && s.Upper <= math.Pi) {
				p.add(path+".twist", "need −π ≤ lower < upper ≤ π rad, got [%v, %v]", s.Lower, s.Upper)
			}
		}
	case JointHinge, JointPrismatic:
		chkVec(p, path+".pivot", j.Pivot)
		chkAxis(p, path+".axis", j.Axis)
		if j.Reference != nil {
			if j.Type != JointHinge {
				p.add(path+".reference", "only a hinge has a reference angle")
			} else {
				chkFinite(p, path+".reference", *j.Reference)
			}
		}
		if l := j.Limits; l != nil {
			lp := path + ".limits"
			switch {
			case math.IsNaN(l.Lower) || math.IsInf(l.Lower, 1):
				p.addv(lp+".lower", l.Lower, "must be a number or null (no lower limit), got %v", l.Lower)
			case math.IsNaN(l.Upper) || math.IsInf(l.Upper, -1):
				p.addv(lp+".upper", l.Upper, "must be a number or null (no upper limit), got %v", l.Upper)
			case l.Lower > l.Upper:
				p.add(lp, "need lower ≤ upper, got [%v, %v]", l.Lower, l.Upper)
			case j.Type == JointHinge && j.Reference == nil && (!math.IsInf(l.Lower, -1) && l.Lower < -math.Pi || !math.IsInf(l.Upper, 1) && l.Upper > math.Pi):
				p.add(lp, "a hinge's limits must lie in [−π, π] rad without a reference angle (give \"reference\" for a continuous angle), got [%v, %v]", l.Lower, l.Upper)
			}
		}
		if m := j.Motor; m != nil {
			chkFinite(p, path+".motor.speed", m.Speed)
			if !(m.MaxForce >= 0) {
				p.addv(path+".motor.max_force", m.MaxForce, "must be ≥ 0 (null = unbounded), got %v", m.MaxForce)
			}
		}
		chkNonNeg(p, path+".friction", j.Friction, "")
		if s := j.Spring; s != nil {
			chkNonNeg(p, path+".spring.stiffness", s.Stiffness, "")
			chkNonNeg(p, path+".spring.damping", s.Damping, "")
			chkFinite(p, path+".spring.rest", s.Rest)
		}
		chkNonNeg(p, path+".armature", j.Armature, "")
		if s := j.Servo; s != nil {
			chkFinite(p, path+".servo.target", s.Target)
			chkPos(p, path+".servo.kp", s.Kp, "")
			chkNonNeg(p, path+".servo.kd", s.Kd, "")
			if !(s.MaxForce > 0) {
				p.addv(path+".servo.max_force", s.MaxForce, "must be > 0 (null = unbounded), got %v", s.MaxForce)
			}
		}
	case JointDistance, JointRope:
		chkVec(p, path+".pivot_a", j.PivotA)
		chkVec(p, path+".pivot_b", j.PivotB)
		chkPos(p, path+".length", j.Length, "m")
	case JointUniversal:
		chkVec(p, path+".pivot", j.Pivot)
		chkAxis(p, path+".axis_a", j.AxisA)
		chkAxis(p, path+".axis_b", j.AxisB)
	case JointGear:
		chkAxis(p, path+".axis_a", j.AxisA)
		chkAxis(p, path+".axis_b", j.AxisB)
		if !(j.Ratio != 0) || math.IsInf(j.Ratio, 0) || math.IsNaN(j.Ratio) {
			p.addv(path+".ratio", j.Ratio, "must be finite and non-zero, got %v", j.Ratio)
		}
	case JointDifferential:
		chkAxis(p, path+".axis_carrier", j.AxisCarrier)
		chkAxis(p, path+".axis_a", j.AxisA)
		chkAxis(p, path+".axis_b", j.AxisB)
	case JointConverter:
		chkAxis(p, path+".axis_a", j.AxisA)
		chkAxis(p, path+".axis_b", j.AxisB)
		chkPos(p, path+".coefficient", j.Coefficient, "N·m·s/rad")
	}
	if s := j.Soft; s != nil {
		if !(s.Stiffness >= 0) {
			p.addv(path+".soft.stiffness", s.Stiffness, "must be ≥ 0 (0 = rigid), got %v", s.Stiffness)
		}
		chkNonNeg(p, path+".soft.damping", s.Damping, "s")
	}
}

func unitSuffix(unit string) string {
	if unit == "" {
		return ""
	}
	return " " + unit
}

func chkFinite(p *problems, path string, v float64) {
	if !num.Finite(v) {
		p.addv(path, v, "must be finite, got %v", v)
	}
}

func chkPos(p *problems, path string, v float64, unit string) {
	if !(v > 0) || math.IsInf(v, 0) {
		p.addv(path, v, "must be > 0%s, got %v", unitSuffix(unit), v)
	}
}

func chkNonNeg(p *problems, path string, v float64, unit string) {
	if !(v >= 0) || math.IsInf(v, 0) {
		p.addv(path, v, "must be finite and ≥ 0%s, got %v", unitSuffix(unit), v)
	}
}

func chkVec(p *problems, path string, v mgl64.Vec3) {
	for i, x := range v {
		chkFinite(p, fmt.Sprintf("%s[%d]", path, i), x)
	}
}

func chkAxis(p *problems, path string, v mgl64.Vec3) {
	n := len(p.list)
	chkVec(p, path, v)
	if len(p.list) == n && !(v.Len() > 1e-12) {
		p.addv(path, v, "must have non-zero length, got %s", fmtVec(v))
	}
}

// chkQuat checks a unit quaternion; zeroOK allows the zero quaternion
// (identity) of a shape's pose.
func chkQuat(p *problems, path string, q mgl64.Quat, zeroOK bool) {
	if zeroOK && q == (mgl64.Quat{}) {
		return
	}
	n := math.Sqrt(q.W*q.W + q.V.Dot(q.V))
	if !num.Finite(n) || math.Abs(n-1) > body.UnitQuatTol {
		p.addv(path, q, "must be a unit quaternion [w, x, y, z], got %s with norm %v", fmtQuat(q), n)
	}
}

func fmtQuat(q mgl64.Quat) string {
	return fmt.Sprintf("[%v, %v, %v, %v]", q.W, q.V[0], q.V[1], q.V[2])
}
