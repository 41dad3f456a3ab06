package scenes

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
)

// Scene files: a JSON document describing everything the Go API builds
// (see doc.go, "Scene files", for the format). A SceneSpec is that
// document in Go; LoadFile and Load read one, SceneSpec.World builds it,
// Marshal writes it, and the built-in scenes are themselves built from
// SceneSpecs (chainSpec, rodSpec, …), so a scene exported with Export
// and loaded back builds the identical World.

// FileVersion is the scene-file format version this package reads and
// writes (the top-level "version").
const FileVersion = 1

// WorldName is the body name that stands for the static world in joints
// and loads; no body may take it.
const WorldName = "world"

// SceneSpec is a scene file.
type SceneSpec struct {
	Name string // optional, for messages
	Doc  string // optional, one line
	// Settings of the stepper.
	Settings SettingsSpec
	// WorldShapes are geoms fixed in the world (the ground plane), added
	// before every body's shapes.
	WorldShapes []ShapeSpec
	// Bodies in World.Bodies order; each body's shapes follow in order.
	// A body may be nested in another (BodySpec.Parent), in any order.
	Bodies []BodySpec
	// Joints and couplings in World.Joints order, built after all bodies
	// from the bodies' initial poses (pivots and axes are in world
	// coordinates at that pose, as for the constraint constructors, or in
	// a body's frame at that pose: JointSpec.Frame).
	Joints []JointSpec
	// Loads are applied forces and torques with time profiles; a world
	// with loads gets one controller that applies them, in order, at the
	// start of every step.
	Loads []LoadSpec
	// Exclude lists body pairs whose shapes never collide
	// (stepper.World.ExcludeBodies, MuJoCo's <exclude>).
	Exclude []ExcludeSpec
	// Tendons couple the coordinates of named hinges and sliders
	// (TendonSpec); they follow Joints in World.Joints.
	Tendons []TendonSpec
}

// ExcludeSpec is a pair of bodies whose shapes do not collide: two body
// names, or one and WorldName for the world shapes.
type ExcludeSpec struct{ A, B string }

// SettingsSpec is stepper.Settings with solvers by name.
type SettingsSpec struct {
	H       float64    // time step (s), > 0
	Gravity mgl64.Vec3 // m/s²; JSON default (0, 0, −9.81)
	// Solver is bpp, pgs, lemke, newton-fb, newton-cck, newton-min or
	// prox; "" leaves Settings.Solver nil (block pivoting, or whatever
	// `sim run --solver` says).
	Solver string
	Budget int // iterations per step, 0 = the solver's default
	// Tolerance is the solver's (stepper.Settings.Tolerance), 0 ≤ t < 1;
	// 0 = the solver's default.
	Tolerance     float64
	Pick          errmeasure.Measure
	Polish        int // projected Gauss–Seidel sweeps after the pick, 0 = none
	Stabilization stepper.Stabilization
	Baumgarte     float64 // β (1/s), for Stabilization = Baumgarte
	PostSolver    string  // as Solver, for Stabilization = Post
	ContactMargin float64 // m; 0 = stepper.DefaultContactMargin
	ProjectAbove  float64 // m or rad; 0 = stepper.DefaultProjectAbove
	BounceSpeed   float64 // m/s; 0 = stepper.DefaultBounceSpeed
	// MaxCorrectingSpeed caps the regularized position feedback (m/s);
	// 0 = ProjectAbove/h (stepper.Settings.MaxCorrectingSpeed).
	MaxCorrectingSpeed float64
	// Impacts is how bouncing contacts resolve (stepper.Settings.Impacts):
	// simultaneous (the default) or propagated.
	Impacts stepper.Impacts
	// Sleep is stepper.Settings.Sleep: a file's "sleep" object turns it
	// on (its keys the thresholds, 0 or absent the defaults), no object
	// leaves it off, as in every built-in scene.
	Sleep stepper.Sleep
	// SingleProblem solves each step as one MLCP instead of one per island
	// (stepper.Settings.SingleProblem); false, the default, by island.
	SingleProblem bool
	// TurnFriction is stepper.Settings.TurnFriction (a file's
	// "turn_friction"); false, the default, as in every built-in scene.
	TurnFriction bool
	// CoulombBounds is stepper.Settings.CoulombBounds (a file's
	// "coulomb_bounds"); false, the default, as in every built-in scene.
	CoulombBounds bool
	// Coherent is stepper.Settings.Coherent: a file's "coherent" true is
	// stepper.CoherentOn (a solve without new contacts and without a budget
	// starts at the last step's impulses), false stepper.CoherentOff (at
	// 0), absent stepper.CoherentDefault.
	Coherent stepper.Coherence
	// JointCorrection is stepper.Settings.JointCorrection: a file's
	// "joint_correction" "feedback" or "projection", absent
	// stepper.JointCorrectionDefault (feedback).
	JointCorrection stepper.JointCorrection
}

// BodySpec is one body.
type BodySpec struct {
	Name   string // unique, not WorldName; joints and loads refer to it
	Static bool
	// Kinematic bodies have infinite mass like static ones but move at
	// their Vel and AngVel (body.Body.Kinematic); a controller may change
	// those each step. Mass, density and inertia may be omitted.
	Kinematic bool
	// Path, for a kinematic body only: waypoints of its centre of mass at
	// strictly increasing times from 0 (s), followed piecewise linearly
	// (a controller sets Vel each step so the step ends on the path);
	// before the first and after the last waypoint the body rests there.
	// Pos must equal the first waypoint. Empty: it moves at Vel and
	// AngVel forever.
	Path []Waypoint
	// Mass (kg) or Density (kg/m³, of the shapes' total volume): exactly
	// one of them for a dynamic body; a static body may give neither.
	Mass, Density float64
	// Inertia is the body-frame inertia about the centre of mass
	// (kg·m²); nil derives it from the shapes (homogeneous solids whose
	// common centre of mass must be the body origin).
	Inertia *mgl64.Mat3
	// Parent nests the body in another one, named ("" or WorldName: not
	// nested): Pos, Rot and the Path's positions are then in the parent's
	// frame at its initial pose (world = parent Pos + parent Rot·Pos,
	// parent Rot·Rot), resolved through any depth of nesting; the
	// parent may come later in Bodies, but no body may be nested in
	// itself. Vel, AngVel, Force and Torque stay in the world frame.
	// Nesting only places the body: it adds no joint (a fixed joint
	// welds the two).
	Parent string
	Pos    mgl64.Vec3 // centre of mass (m); in the parent's frame if nested
	Rot    mgl64.Quat // orientation, must be a unit quaternion
	Vel    mgl64.Vec3 // m/s, world frame
	AngVel mgl64.Vec3 // rad/s, world frame
	Force  mgl64.Vec3 // applied force at the centre of mass (N), held
	Torque mgl64.Vec3 // applied torque (N·m), held
	Shapes []ShapeSpec
}

// Waypoint is one point of a kinematic body's path.
type Waypoint struct {
	Time float64    // s, ≥ 0
	Pos  mgl64.Vec3 // centre of mass (m), world frame
}

// pathAt returns the position on the path at time t: linear between
// waypoints, held before the first and after the last.
func pathAt(path []Waypoint, t float64) mgl64.Vec3 {
	if t <= path[0].Time {
		return path[0].Pos
	}
	for i := 1; i < len(path); i++ {
		if t < path[i].Time {
			a, b := path[i-1], path[i]
			s := (t - a.Time) / (b.Time - a.Time)
			return a.Pos.Add(b.Pos.Sub(a.Pos).Mul(s))
		}
	}
	return path[len(path)-1].Pos
}

// pathController drives kinematic bodies along their paths: at the start
// of a step at time t it sets Vel = (p(t + h) − Pos)/h, so the step's
// pose update x⁺ = x + h v lands on the path.
type pathController struct {
	ids   []int
	paths [][]Waypoint
}

// Control implements stepper.Controller.
func (c *pathController) Control(w *stepper.World) error {
	h, t := w.Settings.H, w.Time()
	for k, id := range c.ids {
		if id >= len(w.Bodies) {
			return errors.New("paths: the world has fewer bodies than when the paths were built")
		}
		b := w.Bodies[id]
		b.Vel = pathAt(c.paths[k], t+h).Sub(b.Pos).Mul(1 / h)
	}
	return nil
}

// ShapeSpec is a collision shape with its pose in the body frame (the
// world frame for world shapes) and its material.
type ShapeSpec struct {
	Type     contact.Kind
	Size     mgl64.Vec3 // box: full side lengths along local x, y, z (m)
	Radius   float64    // sphere, capsule, cylinder (m)
	Length   float64    // capsule straight part, cylinder: full length along local z (m)
	Pos      mgl64.Vec3
	Rot      mgl64.Quat // zero = identity, as stepper.Geom.Local
	Material stepper.Material
	// Category and Mask are the collision filter bits of stepper.Geom:
	// 0 = the defaults (category 1, every mask bit).
	Category, Mask uint32

	// Convex: the convex hull of Points (m, shape frame), or of the
	// vertices of the STL or OBJ file Mesh scaled by Scale (zero: {1, 1,
	// 1}); one of the two. The hull is moved so that its centroid is the
	// shape's origin, placed at Pos (convexHull). ReadSpec makes a
	// relative Mesh path relative to the scene file's directory; a spec
	// built in Go reads it relative to the working directory.
	Points []mgl64.Vec3
	Mesh   string
	Scale  mgl64.Vec3

	// TriMesh (static only): the triangles of the file Mesh (scaled by
	// Scale), or Vertices (m, shape frame) and Triangles (vertex indices,
	// counter-clockwise seen from the free side); one of the two.
	Vertices  []mgl64.Vec3
	Triangles [][3]int
	// Heightfield (static only): Heights[j][i] (row j along x, all rows of
	// one length nx ≥ 2, ny ≥ 2 rows), times Size[2], over Size[0] × Size[1]
	// (m) centred on the shape's origin (contact.NewHeightfield).
	Heights [][]float64
}

// Joint types of JointSpec.Type.
const (
	JointBall         = "ball"
	JointFixed        = "fixed"
	JointHinge        = "hinge"
	JointPrismatic    = "prismatic"
	JointDistance     = "distance"
	JointGear         = "gear"
	JointDifferential = "differential"
	JointConverter    = "converter"
	JointRope         = "rope"
	JointUniversal    = "universal"
)

var jointTypes = []string{JointBall, JointFixed, JointHinge, JointPrismatic, JointDistance, JointGear, JointDifferential, JointConverter, JointRope, JointUniversal}

// JointSpec is one joint or coupling; the fields used depend on Type (the
// constraint constructor of the same name says what each means).
type JointSpec struct {
	Type string
	Name string // optional, for messages and World.Joint (World.NameJoint)
	// A and B name the two bodies (WorldName for the world). For a
	// differential they are the two outputs.
	A, B    string
	Carrier string // differential
	Housing string // gear, differential, converter: "" = none
	// Frame names the body in whose frame, at its initial pose, every
	// point and axis below is given: a point p is Pos + Rot·p of that
	// body, an axis a is Rot·a. "" or WorldName: world coordinates.
	// Any body may be named, not only A and B.
	Frame string
	// Pivot (ball, fixed, hinge, prismatic) and Axis (hinge, prismatic)
	// are world coordinates (or Frame's) at the bodies' initial poses.
	Pivot, Axis    mgl64.Vec3
	PivotA, PivotB mgl64.Vec3 // distance: the anchors (world or Frame, m)
	Length         float64    // distance (m)
	// AxisA, AxisB, AxisCarrier: the couplings' axes (world or Frame,
	// initial pose).
	AxisA, AxisB, AxisCarrier mgl64.Vec3
	Ratio                     float64 // gear
	Coefficient               float64 // converter: K (N·m·s/rad)
	// Reference (hinge) is the hinge's angle at the bodies' initial poses
	// (rad) and makes the angle continuous, counting turns
	// (constraint.Hinge.SetReference): Limits, Spring.Rest and
	// Servo.Target are then in that coordinate, limits may lie anywhere
	// (past ±π, or a range of several turns), and the spring's and servo's
	// error no longer wraps at ±π. nil: the angle is in (−π, π], 0 at the
	// initial poses, and limits lie in [−π, π].
	Reference *float64
	// Hinge and prismatic options.
	Limits   *LimitsSpec
	Motor    *MotorSpec
	Friction float64 // N·m or N; 0 = none
	// Swing and Twist are a ball joint's cone and twist limits
	// (constraint.Ball.SetSwingLimit, SetTwistLimits); nil = none. Their
	// axes are world coordinates (or Frame's) at the initial poses.
	Swing *SwingSpec
	Twist *TwistSpec
	// Spring is the joint's implicit spring-damper on its coordinate
	// (constraint.Hinge.SetSpringDamper); nil = none.
	Spring *SpringSpec
	// Armature (kg·m² or kg) is inertia added on the coordinate
	// (constraint.Hinge.SetArmature); 0 = none.
	Armature float64
	// Servo is a position servo on the coordinate (SetServo); nil = none.
	Servo *ServoSpec
	// Soft makes the bilateral rows of ball, fixed, hinge, prismatic and
	// distance joints compliant.
	Soft *SoftSpec
	// Collide lets the joined bodies collide (stepper.World.SetJointCollision);
	// false, the default, keeps them from colliding.
	Collide bool
}

// LimitsSpec are a hinge's or prismatic joint's limits (rad or m); −Inf
// and +Inf (null in JSON) leave that side free.
type LimitsSpec struct{ Lower, Upper float64 }

// MotorSpec is a velocity motor: target speed (rad/s or m/s) and the
// largest torque or force (N·m or N; +Inf, null in JSON, for none).
type MotorSpec struct{ Speed, MaxForce float64 }

// SwingSpec is a ball joint's swing cone: the angle (rad, in (0, π))
// between Axis as fixed in each body stays ≤ Angle.
type SwingSpec struct {
	Axis  mgl64.Vec3
	Angle float64
}

// TwistSpec is a ball joint's twist range [Lower, Upper] (rad) about Axis.
type TwistSpec struct {
	Axis         mgl64.Vec3
	Lower, Upper float64
}

// SpringSpec is a hinge's or slider's passive spring and damper:
// generalized force −Stiffness (q − Rest) − Damping q̇ (N·m/rad, N·m·s/rad
// and rad for a hinge; N/m, N·s/m and m for a slider).
type SpringSpec struct{ Stiffness, Damping, Rest float64 }

// ServoSpec is a position servo, MuJoCo's position actuator: generalized
// force Kp (Target − q) − Kd q̇, bounded by MaxForce (N·m or N; +Inf, null
// in JSON, for none).
type ServoSpec struct{ Target, Kp, Kd, MaxForce float64 }

// SoftSpec is a joint's compliance: stiffness (N/m or N·m/rad, 0 = rigid)
// and SPOOK damping time (s).
type SoftSpec struct{ Stiffness, Damping float64 }

// Load and profile types.
const (
	LoadForce      = "force"
	LoadTorque     = "torque"
	ProfileConst   = "constant"
	ProfileRamp    = "ramp"
	defaultFrame   = WorldName
	maxNameInError = 40
)

// LoadSpec is an applied force (at the centre of mass, or at Point) or
// torque on Body, Direction·value(t), with −Direction·value(t) on the
// optional Reaction body (at its centre of mass). Direction is fixed in
// Frame (WorldName or "" for the world, else a body whose rotation turns
// it every step).
type LoadSpec struct {
	Type      string // LoadForce or LoadTorque
	Body      string
	Reaction  string // "" = none
	Direction mgl64.Vec3
	Frame     string
	// Point (m, in Body's frame, moving with it) is where a force acts: it
	// adds the torque (R Point) × f about the centre of mass
	// (body.Body.ApplyForceAt). nil = the centre of mass; forces only.
	Point   *mgl64.Vec3
	Profile ProfileSpec
}

// ProfileSpec is a load's magnitude over time t (s, the step's start):
// constant: Value; ramp: From + (To − From)·min(t/Duration, 1) (a step
// to To when Duration = 0).
type ProfileSpec struct {
	Type               string
	Value              float64
	From, To, Duration float64
}

// At returns the profile's value at time t.
func (p ProfileSpec) At(t float64) float64 {
	if p.Type == ProfileConst {
		return p.Value
	}
	u := 1.0
	if p.Duration > 0 {
		u = math.Min(t/p.Duration, 1)
	}
	v := (p.To - p.From) * u
	if p.From != 0 {
		v = p.From + v
	}
	return v
}

// PathError is one problem in a scene file: a *num.FieldError whose Field
// is the JSON path of the value (`bodies[3].shapes[0].size[1]`), whose
// Value is the offending value where there is one (nil for a missing key
// or a structural problem) and whose Reason says what is wrong; What is
// empty, so it reads "bodies[3].mass: must be finite and > 0 kg …".
type PathError = num.FieldError

// pathErr is a constructor's error err (which Validate should have
// caught) at path: its message after the path, and the offending value
// when err is a *num.FieldError.
func pathErr(path string, err error) *PathError {
	pe := &PathError{Field: path, Reason: err.Error()}
	var fe *num.FieldError
	if errors.As(err, &fe) {
		pe.Value = fe.Value
	}
	return pe
}

// maxErrors is the most problems one Load reports.
const maxErrors = 20

// problems collects PathErrors.
type problems struct{ list []error }

// add records a problem at path with no single offending value.
func (p *problems) add(path, format string, args ...any) { p.addv(path, nil, format, args...) }

// addv records a problem at path whose offending value is value.
func (p *problems) addv(path string, value any, format string, args ...any) {
	if len(p.list) < maxErrors {
		p.list = append(p.list, &PathError{Field: path, Value: value, Reason: fmt.Sprintf(format, args...)})
	}
}

func (p *problems) err() error { return errors.Join(p.list...) }

// full reports whether maxErrors problems are collected.
func (p *problems) full() bool { return len(p.list) >= maxErrors }

// LoadFile reads the scene file at path and builds its World; errors start
// with the path.
func LoadFile(path string) (*stepper.World, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, path)
}

// Load reads a scene file from r and builds its World. name (a file name)
// prefixes the errors. Every problem found is reported, each with its
// JSON path, joined (errors.Join of *PathError), up to 20.
func Load(r io.Reader, name string) (*stepper.World, error) {
	s, err := ReadSpec(r, name)
	if err != nil {
		return nil, err
	}
	w, err := s.World()
	if err != nil {
		return nil, prefixErr(name, err)
	}
	return w, nil
}

// ReadSpec reads and checks a scene file from r without building it.
func ReadSpec(r io.Reader, name string) (*SceneSpec, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSceneFile+1))
	if err != nil {
		return nil, prefixErr(name, err)
	}
	if len(data) > maxSceneFile {
		return nil, prefixErr(name, fmt.Errorf("larger than %d bytes", maxSceneFile))
	}
	n, err := parseJSON(data)
	if err != nil {
		return nil, prefixErr(name, err)
	}
	var p problems
	s := decodeScene(n, &p)
	if err := p.err(); err != nil {
		return nil, prefixErr(name, err)
	}
	s.resolveMeshes(name)
	if err := s.Validate(); err != nil {
		return nil, prefixErr(name, err)
	}
	return s, nil
}

// prefixErr puts name in front of each line of err's message.
func prefixErr(name string, err error) error {
	if name == "" {
		return err
	}
	return &fileError{name: name, err: err}
}

type fileError struct {
	name string
	err  error
}

func (e *fileError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	for i := range lines {
		lines[i] = e.name + ": " + lines[i]
	}
	return strings.Join(lines, "\n")
}

func (e *fileError) Unwrap() error { return e.err }

// solverNames are the solvers a scene file may name: lcp.StepNames.
var solverNames = lcp.StepNames()

// newSolver returns the solver of a validated name; nil for "" (the
// stepper's default).
func newSolver(name string) lcp.Solver {
	s, err := lcp.New(name)
	if err != nil {
		return nil
	}
	return s
}

// stepperSettings returns the stepper.Settings of s (Validate first).
func (s *SettingsSpec) stepperSettings() stepper.Settings {
	return stepper.Settings{
		H: s.H, Gravity: s.Gravity, Solver: newSolver(s.Solver), Budget: s.Budget, Tolerance: s.Tolerance,
		Pick: s.Pick, Polish: s.Polish, Stabilization: s.Stabilization, Baumgarte: s.Baumgarte,
		PostSolver: newSolver(s.PostSolver), ContactMargin: s.ContactMargin,
		ProjectAbove: s.ProjectAbove, BounceSpeed: s.BounceSpeed,
		MaxCorrectingSpeed: s.MaxCorrectingSpeed, Impacts: s.Impacts, Sleep: s.Sleep,
		SingleProblem: s.SingleProblem, Coherent: s.Coherent, JointCorrection: s.JointCorrection,
		TurnFriction: s.TurnFriction, CoulombBounds: s.CoulombBounds,
	}
}

// World validates s and builds its World: settings, world shapes, bodies
// with their shapes, joints, then one controller for the loads. Errors
// name the path as in a file (`joints[2].axis`).
func (s *SceneSpec) World() (*stepper.World, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s.worldFrame().build()
}

// WorldFrame validates s and returns it with every pose and path in world
// coordinates: each nested body placed by its parents' initial poses
// (Parent cleared), each joint's points and axes carried out of its Frame
// (Frame cleared). The result builds the same World as s, and Marshal
// writes it as a file in world coordinates. A spec that nests no body and
// gives no joint a Frame is returned itself; otherwise the result is a
// copy, which shares the shapes, inertias and joint options with s.
func (s *SceneSpec) WorldFrame() (*SceneSpec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s.worldFrame(), nil
}

// notWorld reports whether name names a body rather than the world.
func notWorld(name string) bool { return name != "" && name != WorldName }

// worldFrame is WorldFrame of a valid s.
func (s *SceneSpec) worldFrame() *SceneSpec {
	local := slices.ContainsFunc(s.Bodies, func(b BodySpec) bool { return notWorld(b.Parent) }) ||
		slices.ContainsFunc(s.Joints, func(j JointSpec) bool { return notWorld(j.Frame) })
	if !local {
		return s
	}
	out := *s
	out.Bodies = slices.Clone(s.Bodies)
	out.Joints = slices.Clone(s.Joints)
	index := make(map[string]int, len(s.Bodies))
	for i := len(s.Bodies) - 1; i >= 0; i-- {
		index[s.Bodies[i].Name] = i // the first of duplicates, as Validate's
	}
	// Place each body after its parent: walk up to the first placed
	// ancestor, then place the chain from the top down (Validate
	// rejected cycles).
	placed := make([]bool, len(out.Bodies))
	var chain []int
	for i := range out.Bodies {
		chain = chain[:0]
		for k := i; !placed[k]; {
			chain = append(chain, k)
			placed[k] = true
			p := out.Bodies[k].Parent
			if !notWorld(p) {
				break
			}
			k = index[p]
		}
		for c := len(chain) - 1; c >= 0; c-- {
			b := &out.Bodies[chain[c]]
			if notWorld(b.Parent) {
				b.nestIn(&out.Bodies[index[b.Parent]])
			}
			b.Parent = ""
		}
	}
	for i := range out.Joints {
		j := &out.Joints[i]
		if notWorld(j.Frame) {
			j.fromFrame(&out.Bodies[index[j.Frame]])
		}
		j.Frame = ""
	}
	return &out
}

// nestIn turns b's pose and path from the frame of parent (placed in the
// world) into world coordinates.
func (b *BodySpec) nestIn(parent *BodySpec) {
	b.Pos = parent.point(b.Pos)
	b.Rot = parent.Rot.Mul(b.Rot)
	if len(b.Path) > 0 {
		path := slices.Clone(b.Path)
		for k := range path {
			path[k].Pos = parent.point(path[k].Pos)
		}
		b.Path = path
	}
}

// point returns the world coordinates of p, given in b's frame at its
// initial pose.
func (b *BodySpec) point(p mgl64.Vec3) mgl64.Vec3 { return b.Pos.Add(b.Rot.Rotate(p)) }

// fromFrame turns j's points and axes from the frame of f (placed in the
// world) into world coordinates.
func (j *JointSpec) fromFrame(f *BodySpec) {
	pt := func(p *mgl64.Vec3) { *p = f.point(*p) }
	ax := func(a *mgl64.Vec3) { *a = f.Rot.Rotate(*a) }
	switch j.Type {
	case JointBall, JointFixed:
		pt(&j.Pivot)
		if j.Swing != nil {
			ax(&j.Swing.Axis)
		}
		if j.Twist != nil {
			ax(&j.Twist.Axis)
		}
	case JointHinge, JointPrismatic:
		pt(&j.Pivot)
		ax(&j.Axis)
	case JointDistance, JointRope:
		pt(&j.PivotA)
		pt(&j.PivotB)
	case JointUniversal:
		pt(&j.Pivot)
		ax(&j.AxisA)
		ax(&j.AxisB)
	case JointGear, JointConverter:
		ax(&j.AxisA)
		ax(&j.AxisB)
	case JointDifferential:
		ax(&j.AxisCarrier)
		ax(&j.AxisA)
		ax(&j.AxisB)
	}
}

// build assumes Validate passed; constructor errors (which Validate
// should have caught) still get their path.
func (s *SceneSpec) build() (*stepper.World, error) {
	w, err := stepper.New(s.Settings.stepperSettings())
	if err != nil {
		return nil, pathErr("settings", err)
	}
	for i := range s.WorldShapes {
		if err := addShape(w, constraint.World, &s.WorldShapes[i]); err != nil {
			return nil, pathErr(fmt.Sprintf("world_shapes[%d]", i), err)
		}
	}
	ids := map[string]int{WorldName: constraint.World}
	for i := range s.Bodies {
		bs := &s.Bodies[i]
		path := fmt.Sprintf("bodies[%d]", i)
		mass, inertia, err := bs.massProperties()
		if err != nil {
			return nil, pathErr(path, err)
		}
		b, err := body.New(body.Params{Name: bs.Name, Mass: mass, Inertia: inertia, Pos: bs.Pos, Rot: bs.Rot,
			Vel: bs.Vel, AngVel: bs.AngVel, Force: bs.Force, Torque: bs.Torque, Static: bs.Static, Kinematic: bs.Kinematic})
		if err != nil {
			return nil, pathErr(path, err)
		}
		id, err := w.AddBody(b)
		if err != nil {
			return nil, pathErr(path, err)
		}
		ids[bs.Name] = id
	}
	for i := range s.Bodies {
		for k := range s.Bodies[i].Shapes {
			if err := addShape(w, i, &s.Bodies[i].Shapes[k]); err != nil {
				return nil, pathErr(fmt.Sprintf("bodies[%d].shapes[%d]", i, k), err)
			}
		}
	}
	for i := range s.Joints {
		c, err := s.Joints[i].constraint(w.Bodies, ids)
		if err == nil {
			err = w.AddConstraint(c)
		}
		if err == nil && s.Joints[i].Name != "" {
			err = w.NameJoint(len(w.Joints)-1, s.Joints[i].Name)
		}
		if err == nil && s.Joints[i].Collide {
			err = w.SetJointCollision(len(w.Joints)-1, true)
		}
		if err != nil {
			return nil, pathErr(fmt.Sprintf("joints[%d]", i), err)
		}
	}
	if err := s.buildTendons(w); err != nil {
		return nil, err
	}
	for i, e := range s.Exclude {
		if err := w.ExcludeBodies(ids[e.A], ids[e.B]); err != nil {
			return nil, pathErr(fmt.Sprintf("exclude[%d]", i), err)
		}
	}
	if len(s.Loads) > 0 {
		if err := w.AddController(newLoadController(s.Loads, ids, s.Bodies)); err != nil {
			return nil, pathErr("loads", err)
		}
	}
	pc := &pathController{}
	for i := range s.Bodies {
		if len(s.Bodies[i].Path) > 0 {
			pc.ids = append(pc.ids, i)
			pc.paths = append(pc.paths, s.Bodies[i].Path)
		}
	}
	if len(pc.ids) > 0 {
		if err := w.AddController(pc); err != nil {
			return nil, pathErr("bodies", err)
		}
	}
	return w, nil
}

// geomShape returns the contact.Shape of s.
func (s *ShapeSpec) shape() contact.Shape {
	switch s.Type {
	case contact.Box:
		return contact.Shape{Kind: contact.Box, Size: s.Size}
	case contact.Sphere:
		return contact.Shape{Kind: contact.Sphere, Radius: s.Radius}
	case contact.Capsule, contact.Cylinder:
		return contact.Shape{Kind: s.Type, Radius: s.Radius, Length: s.Length}
	case contact.Convex:
		return s.convexShape()
	case contact.TriMesh, contact.Heightfield:
		sh, _, _ := s.staticMeshShape()
		return sh
	}
	return contact.Shape{Kind: s.Type}
}

func (s *ShapeSpec) rot() mgl64.Quat {
	if s.Rot == (mgl64.Quat{}) {
		return mgl64.QuatIdent()
	}
	return s.Rot
}

func addShape(w *stepper.World, id int, s *ShapeSpec) error {
	_, err := w.AddGeom(stepper.Geom{Body: id, Shape: s.shape(), Local: contact.Pose{Pos: s.Pos, Rot: s.rot()},
		Material: s.Material, Category: s.Category, Mask: s.Mask})
	return err
}

// volume returns the shape's volume (m³) and its inertia about its own
// centre in its own frame for mass m.
func (s *ShapeSpec) volume(m float64) (float64, mgl64.Mat3) {
	switch s.Type {
	case contact.Box:
		return s.Size[0] * s.Size[1] * s.Size[2], body.BoxInertia(m, s.Size[0], s.Size[1], s.Size[2])
	case contact.Sphere:
		return 4 * math.Pi * s.Radius * s.Radius * s.Radius / 3, body.SphereInertia(m, s.Radius)
	case contact.Capsule:
		r := s.Radius
		return math.Pi*r*r*s.Length + 4*math.Pi*r*r*r/3, body.CapsuleInertia(m, r, s.Length)
	case contact.Cylinder:
		return math.Pi * s.Radius * s.Radius * s.Length, body.CylinderInertia(m, s.Radius, s.Length)
	case contact.Convex:
		return s.convexVolume(m)
	}
	return 0, mgl64.Mat3{}
}

// massProperties returns the body's mass and inertia: as given, or the
// mass from Density × volume and the inertia of homogeneous shapes about
// the body origin (parallel axis theorem), which must be their common
// centre of mass.
func (b *BodySpec) massProperties() (float64, mgl64.Mat3, error) {
	if (b.Static || b.Kinematic) && b.Mass == 0 && b.Density == 0 {
		if b.Inertia != nil {
			return 0, *b.Inertia, nil
		}
		return 0, mgl64.Mat3{}, nil
	}
	vol := 0.0
	for i := range b.Shapes {
		v, _ := b.Shapes[i].volume(1)
		vol += v
	}
	mass := b.Mass
	if b.Density != 0 {
		mass = b.Density * vol
	}
	if b.Inertia != nil {
		return mass, *b.Inertia, nil
	}
	if !(vol > 0) {
		return 0, mgl64.Mat3{}, errors.New("inertia: give it, or shapes with a volume to derive it from")
	}
	var inertia mgl64.Mat3
	var com mgl64.Vec3
	scale := 0.0
	for i := range b.Shapes {
		s := &b.Shapes[i]
		v, _ := s.volume(1)
		if v == 0 {
			continue
		}
		m := mass * v / vol
		_, is := s.volume(m)
		com = com.Add(s.Pos.Mul(m / mass))
		scale = math.Max(scale, s.Pos.Len()+math.Cbrt(v))
		if s.Pos == (mgl64.Vec3{}) && s.rot() == mgl64.QuatIdent() {
			if len(b.Shapes) == 1 {
				return mass, is, nil
			}
			inertia = inertia.Add(is)
			continue
		}
		r := body.QuatMat3(s.rot())
		d := s.Pos
		shift := mgl64.Ident3().Mul(d.Dot(d)).Sub(d.OuterProd3(d)).Mul(m)
		inertia = inertia.Add(r.Mul3(is).Mul3(r.Transpose())).Add(shift)
	}
	if com.Len() > 1e-9*scale {
		return 0, mgl64.Mat3{}, fmt.Errorf("inertia: the shapes' centre of mass is at %v in the body frame, but the body's position is its centre of mass: place the shapes around the origin or give inertia", fmtVec(com))
	}
	return mass, inertia, nil
}

// constraint builds the joint from the bodies at their initial poses.
func (j *JointSpec) constraint(bodies []*body.Body, ids map[string]int) (constraint.Constraint, error) {
	a, b := ids[j.A], ids[j.B]
	housing := constraint.World
	if j.Housing != "" {
		housing = ids[j.Housing]
	}
	switch j.Type {
	case JointBall:
		c, err := constraint.NewBall(bodies, a, b, j.Pivot)
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		if err == nil && j.Swing != nil {
			err = c.SetSwingLimit(bodies, j.Swing.Axis, j.Swing.Angle)
		}
		if err == nil && j.Twist != nil {
			err = c.SetTwistLimits(bodies, j.Twist.Axis, j.Twist.Lower, j.Twist.Upper)
		}
		return c, err
	case JointFixed:
		c, err := constraint.NewFixed(bodies, a, b, j.Pivot)
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointHinge:
		c, err := constraint.NewHinge(bodies, a, b, j.Pivot, j.Axis)
		if err == nil && j.Reference != nil {
			err = c.SetReference(*j.Reference)
		}
		if err == nil {
			err = j.axisOptions(c)
		}
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointPrismatic:
		c, err := constraint.NewPrismatic(bodies, a, b, j.Pivot, j.Axis)
		if err == nil {
			err = j.axisOptions(c)
		}
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointDistance:
		c, err := constraint.NewDistance(bodies, a, b, j.PivotA, j.PivotB, j.Length)
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointRope:
		c, err := constraint.NewRope(bodies, a, b, j.PivotA, j.PivotB, j.Length)
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointUniversal:
		c, err := constraint.NewUniversal(bodies, a, b, j.Pivot, j.AxisA, j.AxisB)
		if err == nil && j.Soft != nil {
			err = c.SetSoft(j.Soft.Stiffness, j.Soft.Damping)
		}
		return c, err
	case JointGear:
		return constraint.NewGear(bodies, a, b, j.AxisA, j.AxisB, j.Ratio, housing)
	case JointDifferential:
		return constraint.NewDifferential(bodies, ids[j.Carrier], a, b, j.AxisCarrier, j.AxisA, j.AxisB, housing)
	case JointConverter:
		return constraint.NewConverter(bodies, a, b, j.AxisA, j.AxisB, j.Coefficient, housing)
	}
	return nil, fmt.Errorf("type: unknown joint type %q", j.Type)
}

// axisJoint is the option API shared by Hinge and Prismatic.
type axisJoint interface {
	SetLimits(lo, hi float64) error
	SetMotor(speed, maxForce float64) error
	SetFriction(f float64) error
	SetSpringDamper(k, c, rest float64) error
	SetArmature(a float64) error
	SetServo(target, kp, kd, maxForce float64) error
}

func (j *JointSpec) axisOptions(c axisJoint) error {
	if j.Limits != nil {
		if err := c.SetLimits(j.Limits.Lower, j.Limits.Upper); err != nil {
			return err
		}
	}
	if j.Motor != nil {
		if err := c.SetMotor(j.Motor.Speed, j.Motor.MaxForce); err != nil {
			return err
		}
	}
	if j.Friction != 0 {
		if err := c.SetFriction(j.Friction); err != nil {
			return err
		}
	}
	if s := j.Spring; s != nil {
		if err := c.SetSpringDamper(s.Stiffness, s.Damping, s.Rest); err != nil {
			return err
		}
	}
	if j.Armature != 0 {
		if err := c.SetArmature(j.Armature); err != nil {
			return err
		}
	}
	if s := j.Servo; s != nil {
		return c.SetServo(s.Target, s.Kp, s.Kd, s.MaxForce)
	}
	return nil
}

// loadController applies the loads at the start of every step. Each
// loaded body's force (torque) is set to its BodySpec force (torque) plus
// the loads' values: the first contribution is assigned, the next ones
// added, so one load reproduces exactly what a hand-written controller
// that assigns Body.Torque does.
type loadController struct {
	loads []resolvedLoad
	base  []baseFT // per touched body, its held force and torque
	acc   []accFT  // per touched body, this step's sum
}

type resolvedLoad struct {
	torque      bool
	body, react int // acc slots; react −1 = none
	frame       int // body index, or constraint.World
	id          int // the loaded body's index
	point       *mgl64.Vec3
	dir         mgl64.Vec3
	profile     ProfileSpec
}

type baseFT struct {
	id            int
	force, torque mgl64.Vec3
}

type accFT struct {
	f, t       mgl64.Vec3
	fset, tset bool
}

func newLoadController(loads []LoadSpec, ids map[string]int, bodies []BodySpec) *loadController {
	c := &loadController{}
	slot := func(id int) int {
		for i, b := range c.base {
			if b.id == id {
				return i
			}
		}
		c.base = append(c.base, baseFT{id: id, force: bodies[id].Force, torque: bodies[id].Torque})
		return len(c.base) - 1
	}
	for _, l := range loads {
		r := resolvedLoad{torque: l.Type == LoadTorque, dir: l.Direction, profile: l.Profile,
			frame: constraint.World, react: -1, id: ids[l.Body], point: l.Point}
		r.body = slot(ids[l.Body])
		if l.Reaction != "" && l.Reaction != WorldName {
			r.react = slot(ids[l.Reaction])
		}
		if l.Frame != "" && l.Frame != WorldName {
			r.frame = ids[l.Frame]
		}
		c.loads = append(c.loads, r)
	}
	c.acc = make([]accFT, len(c.base))
	return c
}

// Control implements stepper.Controller.
func (c *loadController) Control(w *stepper.World) error {
	for _, b := range c.base {
		if b.id >= len(w.Bodies) {
			return errors.New("loads: the world has fewer bodies than when the loads were built")
		}
	}
	clear(c.acc)
	t := w.Time()
	for _, l := range c.loads {
		d := l.dir
		if l.frame != constraint.World {
			d = w.Bodies[l.frame].Rot.Rotate(d)
		}
		v := d.Mul(l.profile.At(t))
		c.acc[l.body].add(l.torque, v)
		if l.point != nil {
			b := w.Bodies[l.id]
			c.acc[l.body].add(true, b.Rot.Rotate(*l.point).Cross(v))
		}
		if l.react >= 0 {
			c.acc[l.react].add(l.torque, v.Mul(-1))
		}
	}
	for i, a := range c.acc {
		b := w.Bodies[c.base[i].id]
		if a.fset {
			b.Force = withBase(c.base[i].force, a.f)
		}
		if a.tset {
			b.Torque = withBase(c.base[i].torque, a.t)
		}
	}
	return nil
}

func (a *accFT) add(torque bool, v mgl64.Vec3) {
	switch {
	case torque && a.tset:
		a.t = a.t.Add(v)
	case torque:
		a.t, a.tset = v, true
	case a.fset:
		a.f = a.f.Add(v)
	default:
		a.f, a.fset = v, true
	}
}

// withBase returns base + v, or v itself when base is +0 (so a single
// load reproduces an assignment bit for bit, signed zeros included).
func withBase(base, v mgl64.Vec3) mgl64.Vec3 {
	if isPosZero(base) {
		return v
	}
	return base.Add(v)
}

// isPosZero reports whether every component of v is +0 (bit pattern 0).
func isPosZero(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.Float64bits(x) != 0 {
			return false
		}
	}
	return true
}

func fmtVec(v mgl64.Vec3) string {
	return fmt.Sprintf("[%v, %v, %v]", v[0], v[1], v[2])
}

// quoteName shortens a user-given name for an error message.
func quoteName(s string) string {
	if len(s) > maxNameInError {
		s = s[:maxNameInError] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// sortedNames returns the body names for "valid: …" lists.
func sortedNames(s *SceneSpec) []string {
	names := make([]string, 0, len(s.Bodies)+1)
	for _, b := range s.Bodies {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	return names
}
