package scenes

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modelDir = "../testdata/models/"

// runPoses steps w n times and returns every body's position and
// orientation after each step.
func runPoses(t *testing.T, w *stepper.World, n int) [][]float64 {
	t.Helper()
	out := make([][]float64, 0, n)
	for i := 0; i < n; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		var row []float64
		for _, b := range w.Bodies {
			row = append(row, b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
		}
		out = append(out, row)
	}
	return out
}

func maxDiff(a, b [][]float64) float64 {
	d := 0.0
	for i := range a {
		for k := range a[i] {
			d = math.Max(d, math.Abs(a[i][k]-b[i][k]))
		}
	}
	return d
}

func buildWorld(t *testing.T, s *SceneSpec) *stepper.World {
	t.Helper()
	w, err := s.World()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestDoublePendulumImports runs the same double pendulum written by hand
// as URDF, MJCF and a scene file for 400 steps (4 s, through several
// swings and elbow-limit hits): the three trajectories must agree to
// 1e-12 m (the imports compose the same numbers as the file, so only
// rounding in frame composition could differ, and identity rotations
// make that exact).
func TestDoublePendulumImports(t *testing.T) {
	u, uw, err := LoadURDF(modelDir+"double_pendulum.urdf", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, mw, err := LoadMJCF(modelDir+"double_pendulum.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(modelDir + "double_pendulum.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j, err := ReadSpec(f, "double_pendulum.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(mw) != 0 {
		t.Errorf("MJCF warnings: %v", mw)
	}
	// URDF's effort/velocity limits have no effect and are reported once.
	if len(uw) != 1 || !strings.Contains(uw[0].Msg, "effort") || uw[0].Line != 33 {
		t.Errorf("URDF warnings: %v, want one about effort at line 33", uw)
	}
	const steps = 400
	tu := runPoses(t, buildWorld(t, u), steps)
	tm := runPoses(t, buildWorld(t, m), steps)
	tj := runPoses(t, buildWorld(t, j), steps)
	// URDF and MJCF give the same SceneSpec numbers, hence the same bits.
	if d := maxDiff(tu, tm); d != 0 {
		t.Errorf("URDF vs MJCF: max difference %g, want identical trajectories", d)
	}
	if d := maxDiff(tu, tj); d > 1e-12 {
		t.Errorf("URDF vs scene file: max difference %g > 1e-12", d)
	}
	if d := maxDiff(tm, tj); d > 1e-12 {
		t.Errorf("MJCF vs scene file: max difference %g > 1e-12", d)
	}
	// The pendulum moved: the tip body fell by more than 1 m somewhere.
	minZ := math.Inf(1)
	for _, r := range tj {
		minZ = math.Min(minZ, r[9])
	}
	if !(minZ < 1) {
		t.Errorf("link2 lowest z = %v, want < 1 m (it should swing down from z = 2)", minZ)
	}
}

// parseMJCFString parses an MJCF document given as text.
func parseMJCFString(t *testing.T, doc string) (*SceneSpec, []Warning) {
	t.Helper()
	s, w, err := ParseMJCF(strings.NewReader(doc), "test.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, w
}

func bodyByName(t *testing.T, s *SceneSpec, name string) *BodySpec {
	t.Helper()
	for i := range s.Bodies {
		if s.Bodies[i].Name == name {
			return &s.Bodies[i]
		}
	}
	t.Fatalf("no body %q", name)
	return nil
}

func matDiff(a, b mgl64.Mat3) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestMJCFOrientationForms places one body five times, its orientation
// given as quat, axisangle, euler (intrinsic xyz and extrinsic XYZ),
// xyaxes and — for a rotation that is the smallest one taking z to a
// direction — zaxis. The expected values are worked out here from the
// rotation matrix, independently of the importer; every form must give
// the same rotation matrix to 1e-12 (a few roundings of unit-size
// numbers).
func TestMJCFOrientationForms(t *testing.T) {
	q := mgl64.Quat{W: 0.8, V: mgl64.Vec3{0.2, -0.4, 0.4}}.Normalize()
	R := q.Mat4().Mat3()
	deg := 180 / math.Pi
	// Intrinsic x-y-z: R = Rx(a) Ry(b) Rz(c).
	b := math.Asin(R.At(0, 2))
	a := math.Atan2(-R.At(1, 2), R.At(2, 2))
	c := math.Atan2(-R.At(0, 1), R.At(0, 0))
	// Extrinsic X-Y-Z: R = Rz(c2) Ry(b2) Rx(a2).
	b2 := -math.Asin(R.At(2, 0))
	a2 := math.Atan2(R.At(2, 1), R.At(2, 2))
	c2 := math.Atan2(R.At(1, 0), R.At(0, 0))
	angle := 2 * math.Acos(q.W)
	ax := q.V.Normalize()
	// The smallest rotation taking z to d.
	d := mgl64.Vec3{0.3, -0.5, 0.8}.Normalize()
	zax := mgl64.Vec3{0, 0, 1}.Cross(d).Normalize()
	zang := math.Acos(d[2])
	f := func(x float64) string { return strings.TrimSpace(fmtG(x)) }
	doc := `<mujoco><compiler angle="degree"/><worldbody>
<body name="quat" quat="` + f(q.W) + " " + f(q.V[0]) + " " + f(q.V[1]) + " " + f(q.V[2]) + `"><geom size="0.1"/></body>
<body name="axisangle" axisangle="` + f(ax[0]) + " " + f(ax[1]) + " " + f(ax[2]) + " " + f(angle*deg) + `"><geom size="0.1"/></body>
<body name="euler" euler="` + f(a*deg) + " " + f(b*deg) + " " + f(c*deg) + `"><geom size="0.1"/></body>
<body name="xyaxes" xyaxes="` + f(2*R.At(0, 0)) + " " + f(2*R.At(1, 0)) + " " + f(2*R.At(2, 0)) + " " +
		f(R.At(0, 1)+0.5*R.At(0, 0)) + " " + f(R.At(1, 1)+0.5*R.At(1, 0)) + " " + f(R.At(2, 1)+0.5*R.At(2, 0)) + `"><geom size="0.1"/></body>
<body name="zaxis" zaxis="` + f(3*d[0]) + " " + f(3*d[1]) + " " + f(3*d[2]) + `"><geom size="0.1"/></body>
<body name="zref" axisangle="` + f(zax[0]) + " " + f(zax[1]) + " " + f(zax[2]) + " " + f(zang*deg) + `"><geom size="0.1"/></body>
</worldbody></mujoco>`
	s, _ := parseMJCFString(t, doc)
	for _, name := range []string{"quat", "axisangle", "euler", "xyaxes"} {
		got := bodyByName(t, s, name).Rot.Mat4().Mat3()
		if e := matDiff(got, R); e > 1e-12 {
			t.Errorf("%s: rotation differs from the quaternion's by %g > 1e-12", name, e)
		}
	}
	zr := bodyByName(t, s, "zaxis").Rot
	if e := matDiff(zr.Mat4().Mat3(), bodyByName(t, s, "zref").Rot.Mat4().Mat3()); e > 1e-12 {
		t.Errorf("zaxis: rotation differs from the smallest rotation z → d by %g", e)
	}
	if e := zr.Rotate(mgl64.Vec3{0, 0, 1}).Sub(d).Len(); e > 1e-12 {
		t.Errorf("zaxis: R z differs from d by %g", e)
	}
	// Extrinsic XYZ in radians.
	doc2 := `<mujoco><compiler angle="radian" eulerseq="XYZ"/><worldbody>
<body name="b" euler="` + f(a2) + " " + f(b2) + " " + f(c2) + `"><geom size="0.1"/></body></worldbody></mujoco>`
	s2, _ := parseMJCFString(t, doc2)
	if e := matDiff(bodyByName(t, s2, "b").Rot.Mat4().Mat3(), R); e > 1e-12 {
		t.Errorf("euler XYZ (extrinsic, radian): rotation differs by %g", e)
	}
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', 17, 64) }

// TestMJCFFromtoCapsule: a capsule from (0, 0, 0) to (1, 1, 0) of radius
// 0.1 has a straight part √2 m long along (1, 1, 0)/√2, its centre at
// the midpoint (the body's centre of mass, so the shape sits at the body
// origin), and MuJoCo's mass 1000 (π r² L + 4/3 π r³) kg.
func TestMJCFFromtoCapsule(t *testing.T) {
	s, _ := parseMJCFString(t, `<mujoco><worldbody><body name="c" pos="1 2 3"><freejoint/>
<geom type="capsule" fromto="0 0 0 1 1 0" size="0.1"/></body></worldbody></mujoco>`)
	b := bodyByName(t, s, "c")
	sh := b.Shapes[0]
	if math.Abs(sh.Length-math.Sqrt2) > 1e-15 || sh.Radius != 0.1 {
		t.Errorf("length %v radius %v, want √2 and 0.1", sh.Length, sh.Radius)
	}
	if e := b.Pos.Sub(mgl64.Vec3{1.5, 2.5, 3}).Len(); e > 1e-15 {
		t.Errorf("body position %v, want the midpoint (1.5, 2.5, 3)", b.Pos)
	}
	if sh.Pos.Len() > 1e-15 {
		t.Errorf("shape position %v, want 0 (the centre of mass)", sh.Pos)
	}
	dir := sh.rot().Rotate(mgl64.Vec3{0, 0, 1})
	if e := dir.Sub(mgl64.Vec3{1, 1, 0}.Normalize()).Len(); e > 1e-15 {
		t.Errorf("axis %v, want (1, 1, 0)/√2", dir)
	}
	r, L := 0.1, math.Sqrt2
	want := 1000 * (math.Pi*r*r*L + 4*math.Pi*r*r*r/3)
	if math.Abs(b.Mass-want) > 1e-12*want {
		t.Errorf("mass %v, want %v", b.Mass, want)
	}
	// The inertia about the axis is the capsule's axial moment: the same
	// in any orientation of the capsule.
	Iax := dir.Dot(b.Inertia.Mul3x1(dir))
	_, Ic := sh.volume(want)
	if math.Abs(Iax-Ic.At(2, 2)) > 1e-12*Iax {
		t.Errorf("axial inertia %v, want %v", Iax, Ic.At(2, 2))
	}
}

// TestMJCFDefaultClasses: attributes come from the element, else its
// class (explicit, else the nearest childclass), else the class's
// ancestors, else main; a body's childclass reaches its descendants.
func TestMJCFDefaultClasses(t *testing.T) {
	s, _ := parseMJCFString(t, `<mujoco><compiler angle="radian"/>
<default>
  <geom friction="0.7" type="capsule" size="0.05 0.2"/>
  <joint range="-1 1"/>
  <default class="limb">
    <geom size="0.04 0.3"/>
    <default class="leg"><geom friction="0.9"/><joint range="-0.5 0.25"/></default>
  </default>
  <default class="ball"><geom type="sphere" size="0.2"/></default>
</default>
<worldbody>
  <body name="torso" pos="0 0 2"><freejoint/><geom name="t"/>
    <body name="thigh" childclass="leg" pos="0 0 -0.5"><joint name="hip" axis="0 1 0"/><geom/>
      <body name="shin" pos="0 0 -0.6"><joint name="knee" axis="0 1 0" range="-2 0"/><geom class="ball"/></body>
    </body>
    <body name="arm" pos="0.3 0 0"><joint name="shoulder" class="limb" axis="0 1 0"/><geom class="limb" friction="0.3"/></body>
  </body>
</worldbody></mujoco>`)
	cases := []struct {
		body           string
		typ            string
		radius, length float64
		friction       float64
	}{
		{"torso", "capsule", 0.05, 0.4, 0.7}, // main
		{"thigh", "capsule", 0.04, 0.6, 0.9}, // leg ← limb ← main
		{"shin", "sphere", 0.2, 0, 0.7},      // explicit class beats childclass
		{"arm", "capsule", 0.04, 0.6, 0.3},   // own attribute beats class
	}
	for _, c := range cases {
		sh := bodyByName(t, s, c.body).Shapes[0]
		if sh.Type.String() != c.typ || sh.Radius != c.radius || math.Abs(sh.Length-c.length) > 1e-15 || sh.Material.Friction != c.friction {
			t.Errorf("%s: %v r %v L %v μ %v, want %s r %v L %v μ %v", c.body, sh.Type, sh.Radius, sh.Length, sh.Material.Friction, c.typ, c.radius, c.length, c.friction)
		}
	}
	limits := map[string][2]float64{"hip": {-0.5, 0.25}, "knee": {-2, 0}, "shoulder": {-1, 1}}
	for _, j := range s.Joints {
		want := limits[j.Name]
		if j.Limits == nil || j.Limits.Lower != want[0] || j.Limits.Upper != want[1] {
			t.Errorf("joint %s: limits %+v, want %v", j.Name, j.Limits, want)
		}
	}
}

// TestImportErrorsNameLine: a malformed model's error names the file, the
// line and the element.
func TestImportErrorsNameLine(t *testing.T) {
	cases := []struct {
		urdf bool
		doc  string
		want string
	}{
		{false, "<mujoco>\n<worldbody>\n<body>\n<geom type=\"box\" size=\"0.1 x 0.1\"/>\n</body></worldbody></mujoco>", `m.xml:4: <geom>: size: "x" is not a finite number`},
		{false, "<mujoco>\n<worldbody>\n<body>\n<geom type=\"capsule\" size=\"0.1\"/>\n</body></worldbody></mujoco>", `m.xml:4: <geom>: size: the half-length (size[1]) must be > 0 m for a capsule, got 0`},
		{false, "<mujoco>\n<worldbody>\n\n<body>\n<joint type=\"screw\"/><geom size=\"1\"/>\n</body></worldbody></mujoco>", `m.xml:5: <joint>: type: "screw" is not a joint type`},
		{false, "<mujoco>\n<worldbody>\n<body>\n</worldbody></mujoco>", `m.xml:4: XML:`},
		{false, "<mujoco>\n<worldbody>\n<body class=\"nope\"><geom class=\"nope\" size=\"1\"/></body></worldbody></mujoco>", `m.xml:3: <geom>: class "nope" is not defined`},
		{true, "<robot name=\"r\">\n  <link name=\"a\"/>\n  <joint name=\"j\" type=\"revolute\">\n    <parent link=\"a\"/><child link=\"b\"/>\n  </joint>\n</robot>", `m.urdf:3: <joint>: child link "b" does not exist`},
		{true, "<robot>\n<link name=\"a\">\n<inertial>\n<mass value=\"-1\"/>\n</inertial></link></robot>", `m.urdf:4: <mass>: value: want a mass ≥ 0 kg`},
		{true, "<robot>\n<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\"/></inertial>\n<collision><geometry><box size=\"1 1\"/></geometry></collision></link></robot>", `m.urdf:3: <box>: size: want 3 numbers, got 2`},
	}
	for _, c := range cases {
		var err error
		if c.urdf {
			_, _, err = ParseURDF(strings.NewReader(c.doc), "m.urdf", ImportOptions{})
		} else {
			_, _, err = ParseMJCF(strings.NewReader(c.doc), "m.xml", ImportOptions{})
		}
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("error %v, want it to start with %q", err, c.want)
		}
	}
}

// TestURDFArm checks the URDF mapping on arm.urdf against poses worked
// out by hand: frames compose along the tree (rpy about fixed x, y, z),
// the inertia given in a frame turned 90° about z becomes diag(0.05,
// 0.03, 0.06) in the link frame, the massless tool link welded to the
// forearm is merged into it, and the unsupported parts are reported once.
func TestURDFArm(t *testing.T) {
	s, ws, err := LoadURDF(modelDir+"arm.urdf", ImportOptions{FixedBase: true, Ground: true, SkipMissingMeshes: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bodies) != 3 || !s.Bodies[0].Static {
		t.Fatalf("bodies %d (want base static, upper, fore)", len(s.Bodies))
	}
	up, fore := bodyByName(t, s, "upper"), bodyByName(t, s, "fore")
	if e := up.Pos.Sub(mgl64.Vec3{0, 0, 0.3}).Len(); e > 1e-15 {
		t.Errorf("upper com %v, want (0, 0, 0.3)", up.Pos)
	}
	if e := matDiff(*up.Inertia, mgl64.Diag3(mgl64.Vec3{0.05, 0.03, 0.06})); e > 1e-15 {
		t.Errorf("upper inertia %v, want diag(0.05, 0.03, 0.06)", *up.Inertia)
	}
	// Forearm frame: origin (0, 0, 0.55), rotated 0.5 about z then −90°
	// about y, so its x axis points up: the com 0.2 along it.
	if e := fore.Pos.Sub(mgl64.Vec3{0, 0, 0.75}).Len(); e > 1e-15 {
		t.Errorf("forearm com %v, want (0, 0, 0.75)", fore.Pos)
	}
	wantX := mgl64.Vec3{0, 0, 1}
	if e := fore.Rot.Rotate(mgl64.Vec3{1, 0, 0}).Sub(wantX).Len(); e > 1e-15 {
		t.Errorf("forearm x axis %v, want up", fore.Rot.Rotate(mgl64.Vec3{1, 0, 0}))
	}
	wantY := mgl64.Vec3{-math.Sin(0.5), math.Cos(0.5), 0}
	if e := fore.Rot.Rotate(mgl64.Vec3{0, 1, 0}).Sub(wantY).Len(); e > 1e-15 {
		t.Errorf("forearm y axis %v, want %v", fore.Rot.Rotate(mgl64.Vec3{0, 1, 0}), wantY)
	}
	// Cylinder and the merged tool sphere at the tip, 0.4 − 0.2 from the com.
	if len(fore.Shapes) != 2 || fore.Shapes[1].Type.String() != "sphere" {
		t.Fatalf("forearm shapes %+v, want cylinder and the tool's sphere", fore.Shapes)
	}
	tip := fore.point(fore.Shapes[1].Pos)
	if e := tip.Sub(mgl64.Vec3{0, 0, 0.95}).Len(); e > 1e-12 {
		t.Errorf("tool sphere at %v, want (0, 0, 0.95)", tip)
	}
	if len(s.Joints) != 2 || s.Joints[0].Friction != 0.2 || s.Joints[0].B != "base" || s.Joints[1].A != "fore" {
		t.Errorf("joints %+v", s.Joints)
	}
	if sp := s.Joints[0].Spring; sp == nil || *sp != (SpringSpec{Damping: 0.1}) {
		t.Errorf("shoulder damping %+v, want the URDF's 0.1 N·m·s/rad", sp)
	}
	if e := s.Joints[1].Axis.Sub(wantY).Len(); e > 1e-15 {
		t.Errorf("elbow axis %v, want %v", s.Joints[1].Axis, wantY)
	}
	kinds := map[string]int{}
	for _, w := range ws {
		for _, k := range []string{"visual", "mesh geom", "damping", "effort"} {
			if strings.Contains(w.Msg, k) {
				kinds[k]++
			}
		}
	}
	if kinds["damping"] != 0 {
		t.Errorf("joint damping is imported, not warned: %v", ws)
	}
	for _, k := range []string{"visual", "mesh geom", "effort"} {
		if kinds[k] != 1 {
			t.Errorf("%d warnings about %s, want 1: %v", kinds[k], k, ws)
		}
	}
	// It builds and runs: the forearm's com is straight above the elbow
	// and the upper arm turns about the vertical, so the arm is in
	// equilibrium and must stay put (a misplaced pivot would let it fall).
	w := buildWorld(t, s)
	for i := 0; i < 50; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if e := w.Bodies[2].Pos.Sub(mgl64.Vec3{0, 0, 0.75}).Len(); e > 1e-9 {
		t.Errorf("forearm com moved by %g m in 0.5 s, want < 1e-9 (equilibrium)", e)
	}
}

// TestMJCFKeyframe: the "crouch" key of humanoid.xml sets the root at
// z = 1.3 and bends each knee by 0.7 rad (qpos is in radians whatever the
// compiler's angle unit): the shin turns by 0.7 rad about y relative to
// the thigh; the knee's angle is qpos (its reference 0.7 rad), so its
// limits stay [0°, 120°] = [0, 2π/3].
func TestMJCFKeyframe(t *testing.T) {
	s0, _, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{Keyframe: "crouch"})
	if err != nil {
		t.Fatal(err)
	}
	torso0, torso := bodyByName(t, s0, "torso"), bodyByName(t, s, "torso")
	if e := torso.Pos.Sub(torso0.Pos).Sub(mgl64.Vec3{0, 0, 1.3 - 1.45}).Len(); e > 1e-12 {
		t.Errorf("torso moved by %v, want (0, 0, −0.15)", torso.Pos.Sub(torso0.Pos))
	}
	thigh, shin := bodyByName(t, s, "thigh_r"), bodyByName(t, s, "shin_r")
	rel := thigh.Rot.Conjugate().Mul(shin.Rot)
	want := axisQuat(mgl64.Vec3{0, 1, 0}, 0.7)
	if e := matDiff(rel.Mat4().Mat3(), want.Mat4().Mat3()); e > 1e-12 {
		t.Errorf("knee: shin relative to thigh %v, want 0.7 rad about y", rel)
	}
	for _, j := range s.Joints {
		if j.Name == "knee_r" {
			if j.Limits.Lower != 0 || math.Abs(j.Limits.Upper-2*math.Pi/3) > 1e-15 || j.Reference == nil || *j.Reference != 0.7 {
				t.Errorf("knee limits %+v, reference %v: want [0, 2π/3] and 0.7", *j.Limits, j.Reference)
			}
		}
	}
	if _, _, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{Keyframe: "nope"}); err == nil || !strings.Contains(err.Error(), `keyframe "nope" not found`) {
		t.Errorf("missing keyframe: %v", err)
	}
}

// TestMJCFMeshGeom: a mesh geom of the cube [0, 2]³ scaled by 0.1 gives
// its body the mass and inertia of the equal box geom (side 0.2, 1000
// kg/m³: 8 kg, m s²/6 about each axis) with the centre of mass at the
// cube's centre (0.1, 0.1, 0.1) from the body frame, and becomes a convex
// shape of that body: the hull of the file's vertices, its centroid at the
// centre of mass (the mesh keeps its pose). Dropped on the plane, the mesh
// body and the box body come to rest alike, their centres 0.1 m above it.
func TestMJCFMeshGeom(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"mesh_box.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mb, bb := bodyByName(t, s, "meshbody"), bodyByName(t, s, "boxbody")
	if math.Abs(mb.Mass-8) > 1e-12 || math.Abs(bb.Mass-8) > 1e-12 {
		t.Errorf("masses %v and %v, want 8 kg", mb.Mass, bb.Mass)
	}
	if e := matDiff(*mb.Inertia, *bb.Inertia); e > 1e-12 {
		t.Errorf("mesh inertia %v differs from the box's %v by %g", *mb.Inertia, *bb.Inertia, e)
	}
	if e := mb.Pos.Sub(mgl64.Vec3{0.1, 0.1, 1.1}).Len(); e > 1e-12 {
		t.Errorf("mesh body com %v, want (0.1, 0.1, 1.1)", mb.Pos)
	}
	for _, w := range ws {
		if len(w.Meshes) > 0 {
			t.Errorf("warning %v lists meshes: the mesh geom should be a convex shape", w)
		}
	}
	if len(mb.Shapes) != 1 {
		t.Fatalf("mesh body shapes %+v, want one convex shape", mb.Shapes)
	}
	g := mb.Shapes[0]
	if g.Type != contact.Convex || !strings.HasSuffix(g.Mesh, "cube.obj") || g.Scale != (mgl64.Vec3{0.1, 0.1, 0.1}) || g.Material.Friction != 0.6 {
		t.Errorf("mesh shape %+v", g)
	}
	if e := g.Pos.Len(); e > 1e-12 {
		t.Errorf("mesh shape's centroid at %v from the com, want 0", g.Pos)
	}
	w, err := s.World()
	if err != nil {
		t.Fatal(err)
	}
	for range 300 { // 1.5 s at MuJoCo's default 2 ms
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	// 1e-3 m: the contacts' regularized position error at rest is far
	// below it; a mesh that did not collide would be metres below.
	for _, name := range []string{"meshbody", "boxbody"} {
		b, _, err := w.Body(name)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(b.Pos[2]-0.1) > 1e-3 || b.Vel.Len() > 1e-3 {
			t.Errorf("%s at z = %v m moving at %v m/s, want at rest 0.1 m above the plane", name, b.Pos[2], b.Vel.Len())
		}
	}
}

// TestMJCFFilteringAndActuators: contype/conaffinity become category and
// mask (a geom with contype 0 keeps its mass but gets no shape), exclude
// pairs name the gorigid bodies (a welded body's is its parent's), a
// velocity actuator becomes a velocity motor at target 0 with the
// forcerange as its limit, and a motor actuator is warned about once.
func TestMJCFFilteringAndActuators(t *testing.T) {
	s, ws := parseMJCFString(t, `<mujoco><worldbody>
<body name="a" pos="0 0 1"><freejoint/>
  <geom name="hit" size="0.1" contype="2" conaffinity="2"/>
  <geom name="ghost" size="0.1" pos="0 0 0.5" contype="0" conaffinity="0"/>
  <body name="welded" pos="0.5 0 0"><geom size="0.05"/></body>
  <body name="b" pos="0 0 -0.5"><joint name="j" axis="1 0 0"/><geom size="0.1"/></body>
  <body name="c" pos="0 0 -1"><joint name="k" axis="1 0 0"/><geom size="0.1"/></body>
</body></worldbody>
<contact><exclude body1="welded" body2="b"/></contact>
<actuator><velocity joint="j" kv="5" forcerange="-3 2"/><motor joint="k"/><motor joint="j"/></actuator>
</mujoco>`)
	a := bodyByName(t, s, "a")
	if len(a.Shapes) != 2 || a.Shapes[0].Category != 2 || a.Shapes[0].Mask != 2 || a.Shapes[1].Category != 0 {
		t.Errorf("body a shapes %+v, want the contype-2 sphere and the welded default one", a.Shapes)
	}
	// Mass: three spheres of radius 0.1, 0.1 (the ghost) and 0.05.
	want := 1000 * 4 * math.Pi / 3 * (2*0.001 + 0.000125)
	if math.Abs(a.Mass-want) > 1e-12*want {
		t.Errorf("mass %v, want %v (the ghost geom's mass counts)", a.Mass, want)
	}
	if len(s.Exclude) != 1 || s.Exclude[0] != (ExcludeSpec{A: "a", B: "b"}) {
		t.Errorf("exclude %+v, want a–b", s.Exclude)
	}
	if m := s.Joints[0].Motor; m == nil || m.Speed != 0 || m.MaxForce != 3 {
		t.Errorf("joint j motor %+v, want speed 0, max force 3", m)
	}
	if s.Joints[1].Motor != nil {
		t.Errorf("joint k got a motor from a motor actuator")
	}
	n := 0
	for _, w := range ws {
		if strings.Contains(w.Msg, "motor actuators") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d motor warnings, want 1: %v", n, ws)
	}
}

// TestURDFFloatingAndPlanar: a floating joint adds no joint, a planar one
// is warned about (the link is left free), a link named world is the
// world, and Ground adds the plane.
func TestURDFFloatingAndPlanar(t *testing.T) {
	inertial := `<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>`
	doc := `<robot name="r"><link name="world"/>
<link name="a">` + inertial + `</link><link name="b">` + inertial + `</link>
<joint name="fa" type="floating"><parent link="world"/><child link="a"/><origin xyz="0 0 1"/></joint>
<joint name="pb" type="planar"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/></joint>
</robot>`
	s, ws, err := ParseURDF(strings.NewReader(doc), "r.urdf", ImportOptions{Ground: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Joints) != 0 || len(s.Bodies) != 2 || len(s.WorldShapes) != 1 {
		t.Errorf("joints %d bodies %d world shapes %d, want 0, 2, 1", len(s.Joints), len(s.Bodies), len(s.WorldShapes))
	}
	if b := bodyByName(t, s, "b"); b.Pos != (mgl64.Vec3{1, 0, 1}) {
		t.Errorf("b at %v, want (1, 0, 1)", b.Pos)
	}
	if len(ws) != 1 || !strings.Contains(ws[0].String(), `r.urdf:4: <joint>: planar joint "pb": the child link is left free`) {
		t.Errorf("warnings %v", ws)
	}
}

// TestMJCFSplitJoints: with ImportOptions.SplitJoints a body with three
// hinges about x, y and z through one point becomes a chain of three
// bodies, the two added ones of ε = 1e-6 times the body's mass at the
// pivot; without the option the body is an error. Released from the same
// pose, it swings as the same body on a ball joint: over 1 s the
// positions differ by 4.9e-4 m at h = 0.01 s and 8.9e-5 m at h = 0.005 s.
// The difference is the time stepper's discretization of a chain of
// hinges against one ball joint, not the added mass (it stays at 4.7e-4 m
// for ε from 1e-4 to 1e-8), so the test asks that it shrink at least 3
// times when h halves and stay below 2e-4 m at h = 0.005 s.
func TestMJCFSplitJoints(t *testing.T) {
	body := func(h, joints string) string {
		return `<mujoco><option timestep="` + h + `"/><worldbody><body name="p" pos="0 0 2">` + joints +
			`<inertial pos="0.4 0.2 -0.1" mass="2" diaginertia="0.02 0.03 0.04"/></body></worldbody></mujoco>`
	}
	const hinges = `<joint name="jx" axis="1 0 0"/><joint name="jy" axis="0 1 0"/><joint name="jz" axis="0 0 1"/>`
	if _, _, err := ParseMJCF(strings.NewReader(body("0.01", hinges)), "h.xml", ImportOptions{}); err == nil || !strings.Contains(err.Error(), "has 3 joints") {
		t.Errorf("without SplitJoints: %v", err)
	}
	const eps = 1e-6
	diff := func(h string, steps int) float64 {
		s, ws, err := ParseMJCF(strings.NewReader(body(h, hinges)), "h.xml", ImportOptions{SplitJoints: eps})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Bodies) != 3 || len(s.Joints) != 3 || len(ws) != 1 {
			t.Fatalf("bodies %d joints %d warnings %v, want 3, 3, 1", len(s.Bodies), len(s.Joints), ws)
		}
		if s.Joints[0].B != WorldName || s.Joints[1].B != s.Joints[0].A || s.Joints[2].B != s.Joints[1].A || s.Joints[2].A != "p" {
			t.Errorf("chain %+v", s.Joints)
		}
		added := s.Bodies[0]
		if added.Mass != 2*eps || added.Pos != (mgl64.Vec3{0, 0, 2}) {
			t.Errorf("added body mass %v at %v, want %v at the pivot", added.Mass, added.Pos, 2*eps)
		}
		ball, _, err := ParseMJCF(strings.NewReader(body(h, `<joint type="ball"/>`)), "b.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ts := runPoses(t, buildWorld(t, s), steps)
		tb := runPoses(t, buildWorld(t, ball), steps)
		d := 0.0
		for i := range ts {
			p := ts[i][14:17] // the third body, p
			for k := 0; k < 3; k++ {
				d = math.Max(d, math.Abs(p[k]-tb[i][k]))
			}
		}
		return d
	}
	d1, d2 := diff("0.01", 100), diff("0.005", 200)
	t.Logf("split hinges vs ball joint over 1 s: %.3g m at h = 0.01 s, %.3g m at h = 0.005 s", d1, d2)
	if !(d2 < d1/3) || !(d2 < 2e-4) {
		t.Errorf("split hinges vs ball joint: %.3g m at h = 0.01 s, %.3g m at h = 0.005 s; want a 3-fold decrease and < 2e-4 m", d1, d2)
	}
}

// MJCF's geom friction is up to three numbers (sliding, torsional,
// rolling), as MuJoCo's own models write it (humanoid100.xml: "1 .01
// .01"): the sliding one is imported, the others are named in one
// warning; four numbers or a negative one are an error naming the line.
func TestMJCFFrictionTriple(t *testing.T) {
	s, ws := parseMJCFString(t, `<mujoco><worldbody>
  <body name="a" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1" friction="0.8 .01 .01"/></body>
  <body name="b" pos="1 0 1"><freejoint/><geom type="sphere" size="0.1" friction="0.6 .01 .01"/></body>
</worldbody></mujoco>`)
	assert.Equal(t, 0.8, bodyByName(t, s, "a").Shapes[0].Material.Friction)
	assert.Equal(t, 0.6, bodyByName(t, s, "b").Shapes[0].Material.Friction)
	n := 0
	for _, w := range ws {
		if strings.Contains(w.Msg, "torsional and rolling") {
			n++
		}
	}
	assert.Equal(t, 1, n, "one warning for the torsional and rolling coefficients: %v", ws)
	for _, bad := range []string{`friction="1 2 3 4"`, `friction="0.5 -0.1"`, `friction=""`} {
		_, _, err := ParseMJCF(strings.NewReader(`<mujoco><worldbody><body pos="0 0 1"><freejoint/>
<geom type="sphere" size="0.1" `+bad+`/></body></worldbody></mujoco>`), "f.xml", ImportOptions{})
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "f.xml:2", bad)
		assert.Contains(t, err.Error(), "friction", bad)
	}
}
