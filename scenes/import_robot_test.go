package scenes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
)

// robotServoDoc is a horizontal arm on one hinge held by a servo from a
// keyframe's ctrl, as mujoco_menagerie's arms are (franka_emika_panda's
// <general biastype="affine">, universal_robots_ur5e's <position>): the
// keyframe sets qpos and ctrl to the home pose and the actuator's PD
// law holds it there. ACT is replaced by the actuator element.
const robotServoDoc = `<mujoco><compiler angle="radian" autolimits="true"/>
<default><default class="arm"><general dyntype="none" biastype="affine" ctrlrange="-3 3"/></default></default>
<worldbody><body name="link" pos="0 0 1">
  <joint name="j" type="hinge" axis="0 -1 0"/>
  <inertial pos="0.5 0 0" mass="1" diaginertia="0.001 0.001 0.001"/>
</body></worldbody>
<actuator>ACT</actuator>
<keyframe><key name="home" qpos="0.3" ctrl="0.3"/></keyframe></mujoco>`

// TestMJCFKeyframeCtrlServo: a position servo (kp 4500, kv 450, as the
// Panda's first joint) started from a keyframe whose ctrl is its qpos
// holds the arm there: the link (1 kg at 0.5 m, at 0.3 rad above the
// horizontal) sags until kp δ = m g L cos(0.3 − δ), δ = 1.0418e-3 rad.
// The slow mode of the overdamped servo decays as e^{−t kp/kv} = e^{−10 t}
// (I = 0.251 kg·m²), so at 2 s δ is reached to 2e-9·δ; the tolerance,
// 1e-7 rad, is the servo's implicit row at h = 2 ms. Before the keyframe's
// ctrl was read, the target was ctrl = 0 and the arm swung down 0.3 rad;
// before <general> affine actuators were servos, the arm fell freely.
func TestMJCFKeyframeCtrlServo(t *testing.T) {
	acts := map[string]string{
		"general":  `<general class="arm" joint="j" gainprm="4500" biasprm="0 -4500 -450"/>`,
		"position": `<position joint="j" kp="4500" kv="450"/>`,
		"gear":     `<position joint="j" kp="1125" kv="112.5" gear="2"/>`,
	}
	// kp δ = m g L cos(0.3 − δ), solved by fixed-point iteration.
	delta := 0.0
	for i := 0; i < 50; i++ {
		delta = 1 * 9.81 * 0.5 * math.Cos(0.3-delta) / 4500
	}
	for name, act := range acts {
		doc := strings.Replace(robotServoDoc, "ACT", act, 1)
		if name == "gear" {
			// ctrl is the actuator length g q: 0.6 holds q = 0.3.
			doc = strings.Replace(doc, `ctrl="0.3"`, `ctrl="0.6"`, 1)
		}
		s, _, err := ParseMJCF(strings.NewReader(doc), "arm.xml", ImportOptions{Keyframe: "home"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := buildWorld(t, s)
		for i := 0; i < 1000; i++ {
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		// The hinge axis is −y: q > 0 raises the link; q is MuJoCo's qpos,
		// 0.3 at the keyframe pose, so the sag is 0.3 − q.
		q, _, err := w.JointState(0)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(0.3-q-delta) > 1e-7 {
			t.Errorf("%s: the arm sags %.9g rad from the keyframe pose, want %.9g", name, 0.3-q, delta)
		}
	}
}

// TestMJCFKeyframeCtrlClamped: the keyframe's ctrl is clamped to the
// actuator's ctrlrange, as MuJoCo clamps ctrl: 5 in [−3, 3] holds the
// arm at q = 3 (the hinge's angle is qpos), less the sag
// kp δ = m g L cos(3 − δ).
func TestMJCFKeyframeCtrlClamped(t *testing.T) {
	doc := strings.Replace(robotServoDoc, "ACT", `<general class="arm" joint="j" gainprm="4500" biasprm="0 -4500 -450"/>`, 1)
	doc = strings.Replace(doc, `ctrl="0.3"`, `ctrl="5"`, 1)
	s, _, err := ParseMJCF(strings.NewReader(doc), "arm.xml", ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	j := s.Joints[0]
	if j.Servo == nil || j.Servo.Target != 3 || j.Servo.Kp != 4500 || j.Servo.Kd != 450 {
		t.Fatalf("servo %+v, want target 3 (ctrl clamped to 3), kp 4500, kd 450", j.Servo)
	}
}

// TestMJCFActuationDisabled: <option><flag actuation="disable"/> leaves
// every actuator out, as MuJoCo then applies no actuator force, and
// gravity="disable" zeroes gravity.
func TestMJCFActuationDisabled(t *testing.T) {
	doc := strings.Replace(robotServoDoc, "ACT", `<position joint="j" kp="4500" kv="450"/>`, 1)
	doc = strings.Replace(doc, `<worldbody>`, `<option><flag actuation="disable" gravity="disable"/></option><worldbody>`, 1)
	s, ws, err := ParseMJCF(strings.NewReader(doc), "arm.xml", ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Joints[0].Servo != nil {
		t.Errorf("servo %+v with actuation disabled, want none", s.Joints[0].Servo)
	}
	if s.Settings.Gravity != ([3]float64{}) {
		t.Errorf("gravity %v with gravity disabled, want 0", s.Settings.Gravity)
	}
	for _, w := range ws {
		if strings.Contains(w.Msg, "flag") {
			t.Errorf("warning %q: actuation and gravity flags are imported", w.Msg)
		}
	}
}

// TestMJCFGeneralNotServo: a <general> actuator that is not a PD servo
// (its bias does not cancel its gain at the target) is reported, not
// imported as one.
func TestMJCFGeneralNotServo(t *testing.T) {
	doc := strings.Replace(robotServoDoc, "ACT", `<general class="arm" joint="j" gainprm="4500" biasprm="0 -100 -450"/>`, 1)
	s, ws, err := ParseMJCF(strings.NewReader(doc), "arm.xml", ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Joints[0].Servo != nil {
		t.Errorf("servo %+v, want none", s.Joints[0].Servo)
	}
	found := false
	for _, w := range ws {
		found = found || strings.Contains(w.Msg, "general")
	}
	if !found {
		t.Errorf("warnings %v: none reports the <general> actuator", ws)
	}
}

// meshDoc is a body with an <inertial>, a visual mesh geom (contype and
// conaffinity 0, as mujoco_menagerie's "visual" class) and, in COLL, a
// collision geom, with mesh files that are not there.
const meshDoc = `<mujoco><compiler meshdir="assets"/>
<asset><mesh name="vis" file="link1.obj"/><mesh name="col" file="link1.stl"/></asset>
<worldbody><body name="b" pos="0 0 1"><freejoint/>
  INERTIAL
  <geom type="mesh" mesh="vis" contype="0" conaffinity="0"/>
  COLL
</body></worldbody></mujoco>`

// TestMJCFMissingMeshes: a mesh file that is not found stops the import
// with an error naming the file when the geom matters (it collides, or
// its body takes its mass from its geoms), unless
// ImportOptions.SkipMissingMeshes; a missing visual mesh of a body with an
// <inertial> changes nothing and gives one warning for all such files.
func TestMJCFMissingMeshes(t *testing.T) {
	const inertial = `<inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/>`
	cases := []struct {
		name, inertial, coll string
		wantErr              string // "" = imports without SkipMissingMeshes
	}{
		{"visual only", inertial, "", ""},
		{"collision mesh", inertial, `<geom type="mesh" mesh="col"/>`, `"link1.stl"`},
		{"mass from a mesh", "", `<geom type="box" size="0.1 0.1 0.1"/>`, `"link1.obj"`},
	}
	for _, c := range cases {
		doc := strings.Replace(strings.Replace(meshDoc, "INERTIAL", c.inertial, 1), "COLL", c.coll, 1)
		s, ws, err := ParseMJCF(strings.NewReader(doc), "robot.xml", ImportOptions{})
		if c.wantErr == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if len(s.Bodies) != 1 || s.Bodies[0].Mass != 2 {
				t.Errorf("%s: bodies %+v, want one of 2 kg", c.name, s.Bodies)
			}
			n := 0
			for _, w := range ws {
				if strings.Contains(w.Msg, "link1.obj") {
					n++
					if !strings.Contains(w.Msg, "no effect") {
						t.Errorf("%s: warning %q does not say the visual mesh has no effect", c.name, w.Msg)
					}
				}
			}
			if n != 1 {
				t.Errorf("%s: %d warnings name link1.obj, want 1: %v", c.name, n, ws)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "SkipMissingMeshes") || !strings.Contains(err.Error(), "robot.xml:") {
			t.Errorf("%s: error %v, want one at robot.xml:LINE naming %s and SkipMissingMeshes", c.name, err, c.wantErr)
		}
		s, ws, err = ParseMJCF(strings.NewReader(doc), "robot.xml", ImportOptions{SkipMissingMeshes: true})
		if err != nil {
			t.Fatalf("%s with SkipMissingMeshes: %v", c.name, err)
		}
		found := false
		for _, w := range ws {
			found = found || strings.Contains(w.Msg, c.wantErr)
		}
		if !found {
			t.Errorf("%s with SkipMissingMeshes: no warning names %s: %v", c.name, c.wantErr, ws)
		}
		if c.inertial == "" {
			// Only the box gives mass: 1000 kg/m³ × 0.2³ m³.
			if len(s.Bodies) != 1 || math.Abs(s.Bodies[0].Mass-8) > 1e-12 {
				t.Errorf("%s: mass %v, want the box's 8 kg", c.name, s.Bodies[0].Mass)
			}
		}
	}
}

// TestURDFMissingMeshes: a URDF collision mesh that is not found is an
// error naming the file (and the package:// reference), unless
// SkipMissingMeshes, which warns; visual meshes are never read.
func TestURDFMissingMeshes(t *testing.T) {
	const doc = `<robot name="r"><link name="base"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
<visual><geometry><mesh filename="package://ur_description/meshes/base.dae"/></geometry></visual>
COLL</link></robot>`
	// A ROS path is long: the message keeps it whole.
	coll := `<collision><geometry><mesh filename="package://example-robot-data/robots/panda_description/meshes/collision/link0.stl"/></geometry></collision>`
	if _, _, err := ParseURDF(strings.NewReader(strings.Replace(doc, "COLL", "", 1)), "r.urdf", ImportOptions{}); err != nil {
		t.Errorf("visual mesh only: %v", err)
	}
	full := strings.Replace(doc, "COLL", coll, 1)
	_, _, err := ParseURDF(strings.NewReader(full), "r.urdf", ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "package://example-robot-data/robots/panda_description/meshes/collision/link0.stl") || !strings.Contains(err.Error(), "SkipMissingMeshes") {
		t.Errorf("error %v, want one naming the mesh and SkipMissingMeshes", err)
	}
	_, ws, err := ParseURDF(strings.NewReader(full), "r.urdf", ImportOptions{SkipMissingMeshes: true})
	if err != nil {
		t.Errorf("with SkipMissingMeshes: %v", err)
	}
	// The unnamed <collision> is named by its element, file, link and
	// line in the warning that sums up the skipped meshes.
	const want = `1 mesh geom(s) skipped, the first an unnamed collision of mesh file "package://example-robot-data/robots/panda_description/meshes/collision/link0.stl" on body "base", line 3 (file not found): they do not collide`
	found := false
	for _, w := range ws {
		found = found || w.Msg == want && w.Line == 3 && len(w.Meshes) == 1
	}
	if !found {
		t.Errorf("warnings %v, want one at line 3: %s", ws, want)
	}
}

// TestMJCFInclude: <include file> splices the named file's <mujoco>
// children in place, as mujoco_menagerie's scene.xml includes the robot
// (its defaults, assets, worldbody, actuators and keyframes) and adds a
// floor in a second <worldbody>; errors in the included file name that
// file and line, and a missing or cyclic include is an error naming it.
func TestMJCFInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("robot.xml", `<mujoco model="robot">
<default><default class="r"><joint damping="2"/></default></default>
<worldbody><body name="b" pos="0 0 1" childclass="r"><joint name="j" axis="0 1 0"/>
  <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05"/></body></worldbody>
<keyframe><key name="home" qpos="0.2"/></keyframe>
</mujoco>`)
	scene := write("scene.xml", `<mujoco model="scene">
  <include file="robot.xml"/>
  <worldbody><geom name="floor" type="plane" size="0 0 0.05"/></worldbody>
</mujoco>`)
	s, _, err := LoadMJCF(scene, ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Bodies) != 1 || len(s.Joints) != 1 || len(s.WorldShapes) != 1 {
		t.Fatalf("bodies %d, joints %d, world shapes %d: want 1, 1 and the floor", len(s.Bodies), len(s.Joints), len(s.WorldShapes))
	}
	if sp := s.Joints[0].Spring; sp == nil || sp.Damping != 2 {
		t.Errorf("spring %+v: want the included class's damping 2", sp)
	}
	// The keyframe turns the capsule 0.2 rad about y: its centre, 0.25 m
	// along it from the pivot, drops by 0.25 sin 0.2.
	if z := s.Bodies[0].Pos[2]; math.Abs(z-(1-0.25*math.Sin(0.2))) > 1e-12 {
		t.Errorf("centre z %v, want %v", z, 1-0.25*math.Sin(0.2))
	}
	write("bad.xml", "<mujoco>\n<worldbody>\n<geom size=\"-1\"/>\n</worldbody></mujoco>")
	for doc, want := range map[string]string{
		`<mujoco><include file="bad.xml"/></mujoco>`:   filepath.Join(dir, "bad.xml") + ":3: <geom>: size",
		`<mujoco><include file="none.xml"/></mujoco>`:  `none.xml`,
		`<mujoco><include file="loop.xml"/></mujoco>`:  `cycle`,
		`<mujoco><include/></mujoco>`:                  `file: missing`,
		`<mujoco><include file="/dev/null"/></mujoco>`: `not a regular file`,
	} {
		write("loop.xml", `<mujoco><include file="loop.xml"/></mujoco>`)
		_, _, err := LoadMJCF(write("main.xml", doc), ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}

// jointQ returns the coordinate of w's joint named name (World.JointState).
func jointQ(t *testing.T, w *stepper.World, name string) float64 {
	t.Helper()
	_, i, err := w.Joint(name)
	if err != nil {
		t.Fatal(err)
	}
	q, _, err := w.JointState(i)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// arm7Joints are arm7.xml's arm joints in file order.
var arm7Joints = []string{"j1", "j2", "j3", "j4", "j5", "j6", "j7"}

// TestMJCFArm7Hanging compares testdata/models/arm7.xml (a 7-joint arm
// with mujoco_menagerie's Panda features, see the file) with MuJoCo 2.2.2
// (Debian's libmujoco-dev: mj_resetDataKeyframe to "home", mj_step 500
// times at h = 2 ms, qpos minus the key's qpos; testdata/models/
// mujoco_hang.c prints them: `mujoco_hang arm7.xml home 500 0` hanging,
// and `... 1` held, on a copy with <option integrator="implicit"/>).
//
// Its mass is the file's, 16.89 kg (mj_getTotalmass), less the 0.7 kg
// of the base welded to the world (a static body), and the flange and
// hand welded to link 7 give the body MuJoCo's three bodies' inertia
// about their common centre: link 7's and the hand's world inertias as
// MuJoCo computes them (d->ximat, m->body_inertia; printed to 12 digits)
// moved there, to 1e-10 kg·m² (the printing).
//
// Hanging from home with no torque (<flag actuation="disable">; MuJoCo's
// default Euler integrator) for 1 s, every joint is within 4e-4 rad of
// MuJoCo's (measured: 2.9e-4 rad, j7). Both integrators are first order,
// so their difference is O(h): at h = 0.1 ms it is 2.4e-5 rad, and
// gorigid's is 2.2e-4 rad at 2 ms and MuJoCo's 1.1e-4 rad from where
// both go as h → 0. The fingers' joint equality is rigid in gorigid and
// soft in MuJoCo (solref 0.02 s): their mean opening agrees to 1e-5 m
// (1.1e-6 measured), and gorigid keeps them equal to 1e-7 m (the
// equality row's position feedback leaves 1.2e-8 m).
//
// Held by its <general> PD servos at the key's ctrl, the arm sags
// under gravity to within 1e-6 rad of MuJoCo with integrator="implicit"
// (measured: 7e-8 rad), the integrator the Panda's file asks for, since
// MuJoCo's Euler treats the servos' kv explicitly (at kv = 350 and
// h = 2 ms it rings: j3 sags 0.0105 rad instead of 8.1e-5).
func TestMJCFArm7Hanging(t *testing.T) {
	data, err := os.ReadFile(modelDir + "arm7.xml")
	if err != nil {
		t.Fatal(err)
	}
	run := func(doc string) (q []float64, fingers [2]float64, s *SceneSpec) {
		t.Helper()
		s, _, err := ParseMJCF(strings.NewReader(doc), "arm7.xml", ImportOptions{Keyframe: "home"})
		if err != nil {
			t.Fatal(err)
		}
		w := buildWorld(t, s)
		names := append(append([]string{}, arm7Joints...), "f1", "f2")
		home := make([]float64, len(names)) // the hinges' angles are qpos: subtract the key's
		for i, name := range names {
			home[i] = jointQ(t, w, name)
		}
		for i := 0; i < 500; i++ {
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		for i, name := range names {
			v := jointQ(t, w, name) - home[i]
			if i < 7 {
				q = append(q, v)
			} else {
				fingers[i-7] = v
			}
		}
		return q, fingers, s
	}
	disabled := strings.Replace(string(data), `<compiler angle="radian" autolimits="true"/>`,
		`<compiler angle="radian" autolimits="true"/><option><flag actuation="disable"/></option>`, 1)
	q, f, s := run(disabled)
	total := movingMass(s)
	if math.Abs(total-(16.89-0.7)) > 1e-12 {
		t.Errorf("moving mass %v kg, want 16.89 less the static base's 0.7", total)
	}
	l7 := bodyByName(t, s, "l7")
	R := l7.Rot.Mat4().Mat3()
	I := R.Mul3(*l7.Inertia).Mul3(R.Transpose())
	wantI := [6]float64{0.013881901052959833, 0.015181861730338413, 0.00804197964306814, -0.00165735089009261, -0.0034103282864807014, -0.0006991061781279504}
	gotI := [6]float64{I.At(0, 0), I.At(1, 1), I.At(2, 2), I.At(0, 1), I.At(0, 2), I.At(1, 2)}
	for k := range wantI {
		if math.Abs(gotI[k]-wantI[k]) > 1e-10 {
			t.Errorf("link 7 + hand world inertia %v, want MuJoCo's %v", gotI, wantI)
			break
		}
	}
	mjHang := []float64{1.099346393e-03, 1.538788921e+00, -2.072869583e-02, -1.333174582e-01, -1.168769616e-02, 8.501824578e-01, -4.082977236e-02}
	for i, name := range arm7Joints {
		if math.Abs(q[i]-mjHang[i]) > 4e-4 {
			t.Errorf("hanging: %s moved %.9g rad in 1 s, MuJoCo %.9g", name, q[i], mjHang[i])
		}
	}
	if mean := (f[0] + f[1]) / 2; math.Abs(mean-(3.609547031e-04+2.029003064e-04)/2) > 1e-5 || math.Abs(f[0]-f[1]) > 1e-7 {
		t.Errorf("hanging: fingers %v m, want equal and their mean %v", f, (3.609547031e-04+2.029003064e-04)/2)
	}
	q, _, _ = run(string(data))
	mjHeld := []float64{-2.259009366e-09, 8.110817060e-03, -8.134988742e-05, -5.738166657e-03, -2.623933796e-04, -6.910379444e-04, -6.366980257e-06}
	for i, name := range arm7Joints {
		if math.Abs(q[i]-mjHeld[i]) > 1e-6 {
			t.Errorf("held: %s moved %.9g rad in 1 s, MuJoCo (implicit) %.9g", name, q[i], mjHeld[i])
		}
	}
}

// TestMJCFJointRef: a hinge's ref is the joint coordinate of the pose the
// model is written in (MuJoCo's qpos0), as agility_cassie's knees
// (ref −45°, range −164° to −37°) use it: ranges, springref and servo
// targets are coordinates on that scale. gorigid's hinge angle is qpos
// itself (JointSpec.Reference = the built pose's qpos: ref, or the
// keyframe's), so the limits and the spring's rest are the file's
// numbers; a keyframe turns the body by qpos − ref. Before, ref was
// ignored and the knee was built 45° outside its range.
func TestMJCFJointRef(t *testing.T) {
	const doc = `<mujoco><option gravity="0 0 0"/><worldbody><body name="b" pos="0 0 1">
  <joint name="knee" type="hinge" axis="0 0 1" ref="-45" range="-164 -37" stiffness="10" springref="-40"/>
  <geom type="box" size="0.5 0.1 0.1" pos="0.5 0 0"/>
</body></worldbody>
<keyframe><key name="bent" qpos="-1.5"/></keyframe></mujoco>`
	deg := math.Pi / 180
	for _, c := range []struct {
		key     string
		q, turn float64 // the built pose's coordinate and its turn from the written pose (rad)
	}{{"", -45 * deg, 0}, {"bent", -1.5, -1.5 + 45*deg}} {
		s, ws, err := ParseMJCF(strings.NewReader(doc), "ref.xml", ImportOptions{Keyframe: c.key})
		if err != nil {
			t.Fatal(err)
		}
		j := s.Joints[0]
		// 1e-15 rad: the degrees' conversion rounds.
		if j.Reference == nil || math.Abs(*j.Reference-c.q) > 1e-15 {
			t.Errorf("key %q: reference %v, want the built pose's qpos %v", c.key, j.Reference, c.q)
		}
		if j.Limits == nil || math.Abs(j.Limits.Lower-(-164*deg)) > 1e-15 || math.Abs(j.Limits.Upper-(-37*deg)) > 1e-15 {
			t.Errorf("key %q: limits %+v, want [%v, %v]", c.key, j.Limits, -164*deg, -37*deg)
		}
		if j.Spring == nil || math.Abs(j.Spring.Rest-(-40*deg)) > 1e-15 {
			t.Errorf("key %q: spring %+v, want rest %v", c.key, j.Spring, -40*deg)
		}
		// The box's centre, 0.5 m along its x axis, turned by turn about z.
		want := [3]float64{0.5 * math.Cos(c.turn), 0.5 * math.Sin(c.turn), 1}
		if p := s.Bodies[0].Pos; math.Abs(p[0]-want[0]) > 1e-12 || math.Abs(p[1]-want[1]) > 1e-12 {
			t.Errorf("key %q: centre %v, want %v", c.key, p, want)
		}
		for _, w := range ws {
			if strings.Contains(w.Msg, "ref") {
				t.Errorf("key %q: warning %q: ref is imported", c.key, w.Msg)
			}
		}
	}
}

// TestMJCFConnectWeld: an equality <connect body1 anchor> (agility_cassie
// closes its leg loops with four) becomes a ball joint at the anchor
// (body1's frame), and <weld> a fixed joint. A box of 1 kg, sides
// 0.2 × 0.2 × 0.4 m (I_c = 0.01667 kg·m² about y) on a free joint, hung
// from the world by a connect 0.5 m above its centre and tilted 0.1 rad,
// swings with the compound pendulum's period at amplitude θ₀,
// 2π √((I_c + m d²)/(m g d)) (1 + θ₀²/16) = 1.465024 s · 1.000625 =
// 1.465940 s: the time between its first and third crossings of the
// vertical (interpolated within the 1 ms step) is 1.465939 s; the test
// allows 1e-4 s (the next term of the series, 11θ₀⁴/3072, is 5e-7 s).
// Welded instead, it does not move (1e-9 m in 1 s).
func TestMJCFConnectWeld(t *testing.T) {
	const doc = `<mujoco><option timestep="0.001"/><worldbody>
<body name="box" pos="EQPOS" euler="0 TILT 0"><freejoint/><geom type="box" size="0.1 0.1 0.2" mass="1"/></body>
</worldbody><equality>EQ</equality></mujoco>`
	const tilt = 0.1
	// The box's centre, so that its anchor 0.5 m up its z axis is (0, 0, 1).
	pos := fmt.Sprintf("%v 0 %v", -0.5*math.Sin(tilt), 1-0.5*math.Cos(tilt))
	doc1 := strings.NewReplacer("EQPOS", pos, "TILT", fmt.Sprint(tilt*180/math.Pi), "EQ", `<connect name="c" body1="box" anchor="0 0 0.5"/>`).Replace(doc)
	s, _, err := ParseMJCF(strings.NewReader(doc1), "connect.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Joints) != 1 || s.Joints[0].Type != JointBall || s.Joints[0].B != WorldName || s.Joints[0].Pivot.Sub([3]float64{0, 0, 1}).Len() > 1e-12 {
		t.Fatalf("joints %+v, want a ball joint of box to the world at (0, 0, 1)", s.Joints)
	}
	w := buildWorld(t, s)
	b, _, err := w.Body("box")
	if err != nil {
		t.Fatal(err)
	}
	var cross []float64
	prev := b.Pos[0]
	for i := 1; i <= 4000 && len(cross) < 3; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		if x := b.Pos[0]; (x > 0) != (prev > 0) {
			// Linear interpolation of the crossing time.
			cross = append(cross, 0.001*(float64(i-1)+prev/(prev-x)))
		}
		prev = b.Pos[0]
	}
	ic := 1.0 / 12 * (0.2*0.2 + 0.4*0.4)
	period := 2 * math.Pi * math.Sqrt((ic+0.25)/(9.81*0.5)) * (1 + tilt*tilt/16)
	if len(cross) < 3 || math.Abs(cross[2]-cross[0]-period) > 1e-4 {
		t.Errorf("crossings %v: period %v, want %v", cross, cross[len(cross)-1]-cross[0], period)
	}
	doc2 := strings.NewReplacer("EQPOS", pos, "TILT", fmt.Sprint(tilt*180/math.Pi), "EQ", `<weld body1="box"/>`).Replace(doc)
	s, _, err = ParseMJCF(strings.NewReader(doc2), "weld.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Joints) != 1 || s.Joints[0].Type != JointFixed {
		t.Fatalf("joints %+v, want a fixed joint", s.Joints)
	}
	w = buildWorld(t, s)
	b, _, _ = w.Body("box")
	p0 := b.Pos
	for i := 0; i < 1000; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if d := b.Pos.Sub(p0).Len(); d > 1e-9 {
		t.Errorf("welded box moved %v m", d)
	}
	bad := strings.NewReplacer("EQPOS", pos, "TILT", "0", "EQ", `<connect body1="nobody" anchor="0 0 0"/>`).Replace(doc)
	if _, _, err := ParseMJCF(strings.NewReader(bad), "bad.xml", ImportOptions{}); err == nil || !strings.Contains(err.Error(), `"nobody"`) {
		t.Errorf("unknown body: error %v, want one naming it", err)
	}
}

// quadLegs are quadruped.xml's legs; each has NAME_abd, NAME_hip and
// NAME_knee joints.
var quadLegs = []string{"FR", "FL", "RR", "RL"}

// TestMJCFQuadruped drops testdata/models/quadruped/scene.xml (it
// includes quadruped.xml, a 12-joint quadruped with the menagerie
// quadrupeds' features, and adds the floor) from its home key, its feet
// 4.3 mm above the floor, and compares it with MuJoCo 2.2.2
// (mj_resetDataKeyframe, 1000 steps of 2 ms: testdata/models/
// mujoco_hang.c, `mujoco_hang quadruped/scene.xml home 1000 1`).
//
// Its mass is the file's, 6 + 4 (0.6 + 1 + 0.2) = 13.2 kg.
//
// Held by its position servos at the key's ctrl it lands and stands: at
// 2 s it is at rest (kinetic energy below 1e-6 J) with the trunk's
// centre 0.29199 m up, MuJoCo's 0.28888 m, within 4 mm (MuJoCo's soft
// contacts let the feet sink 1.2–1.4 mm, and its feet creep outward
// under its regularized friction, the abduction joints turning
// 0.017–0.023 rad in 2 s where gorigid's friction sticks, 3e-4 rad), and
// the knees bent by the servos' sag 0.0548 and 0.0620 rad (front, rear),
// MuJoCo's 0.0540 and 0.0649, within 4e-3 rad.
//
// With actuation disabled it falls and comes to rest in 3 s on its
// knees and feet (trunk centre 0.106 m up), the knees on their lower
// limit (−2.7 rad, 1.1 rad below home) to 1e-3 rad, and no step adds
// more than 1e-3 J. MuJoCo's feet creep apart until the trunk lies on
// the floor.
func TestMJCFQuadruped(t *testing.T) {
	scene := modelDir + "quadruped/scene.xml"
	s, _, err := LoadMJCF(scene, ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, b := range s.Bodies {
		total += b.Mass
	}
	if len(s.Bodies) != 13 || len(s.Joints) != 12 || math.Abs(total-13.2) > 1e-12 {
		t.Fatalf("%d bodies, %d joints, %v kg: want 13, 12 and 13.2 kg", len(s.Bodies), len(s.Joints), total)
	}
	w := buildWorld(t, s)
	homeKnee := map[string]float64{} // the knees' angles are qpos: measure from the key's
	for _, leg := range quadLegs {
		homeKnee[leg] = jointQ(t, w, leg+"_knee")
	}
	for i := 0; i < 1000; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if ke, _ := w.Energy(); ke > 1e-6 {
		t.Errorf("standing: kinetic energy %v J at 2 s, want at rest", ke)
	}
	trunk, _, err := w.Body("trunk")
	if err != nil {
		t.Fatal(err)
	}
	if z := trunk.Pos[2]; math.Abs(z-0.288877595) > 4e-3 {
		t.Errorf("standing: trunk at %v m, MuJoCo 0.288880", z)
	}
	mjKnee := map[string]float64{"FR": -5.404103899e-02, "FL": -5.404103899e-02, "RR": -6.488945733e-02, "RL": -6.488945733e-02}
	for _, leg := range quadLegs {
		if q := jointQ(t, w, leg+"_knee") - homeKnee[leg]; math.Abs(q-mjKnee[leg]) > 4e-3 {
			t.Errorf("standing: %s knee %v rad from home, MuJoCo %v", leg, q, mjKnee[leg])
		}
	}

	data, err := os.ReadFile(modelDir + "quadruped/quadruped.xml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	limp := strings.Replace(string(data), `<compiler angle="radian" autolimits="true"/>`,
		`<compiler angle="radian" autolimits="true"/><option><flag actuation="disable"/></option>`, 1)
	sceneData, err := os.ReadFile(scene)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{"quadruped.xml": limp, "scene.xml": string(sceneData)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, _, err = LoadMJCF(filepath.Join(dir, "scene.xml"), ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	w = buildWorld(t, s)
	maxAdded := 0.0
	for i := 0; i < 1500; i++ {
		st, err := w.Step()
		if err != nil {
			t.Fatal(err)
		}
		maxAdded = math.Max(maxAdded, st.EnergyAdded)
	}
	if maxAdded > 1e-3 {
		t.Errorf("limp: a step added %v J", maxAdded)
	}
	if ke, _ := w.Energy(); ke > 1e-6 {
		t.Errorf("limp: kinetic energy %v J at 3 s, want at rest", ke)
	}
	for _, leg := range quadLegs {
		if q := jointQ(t, w, leg+"_knee") - homeKnee[leg]; math.Abs(q-(-1.1)) > 1e-3 {
			t.Errorf("limp: %s knee %v rad from home, want its lower limit −1.1", leg, q)
		}
	}
	trunk, _, _ = w.Body("trunk")
	if z := trunk.Pos[2]; z < 0.05 {
		t.Errorf("limp: trunk centre at %v m, below its half height 0.05 m above the floor", z)
	}
}

// TestRangesPastPi: a hinge range reaching past ±π from the built pose,
// or of a full turn or more (the UR5's URDF and universal_robots_ur5e's
// MJCF give ±2π), imports as given: the hinge's angle is continuous
// (JointSpec.Reference), so the stops hold where the file puts them.
// Before, the narrower ranges were clamped to ±π and the wider ones
// dropped, warned. A motor set from Go on the built world turns the
// link (unit inertia, no gravity) through ±π onto each stop in turn:
// the angle ends on the stop to 1e-6 rad (a rigid limit row against a
// 20 N·m motor; one step's travel at 3 rad/s is 0.03 rad).
func TestRangesPastPi(t *testing.T) {
	const urdf = `<robot name="r"><link name="world"/>
<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="world"/><child link="b"/><axis xyz="0 0 1"/><limit lower="LO" upper="HI" effort="1" velocity="1"/></joint></robot>`
	const mjcf = `<mujoco><compiler angle="radian"/><option gravity="0 0 0"/><worldbody><body><joint name="j" range="LO HI" ref="REF"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></worldbody></mujoco>`
	for _, c := range []struct {
		lo, hi float64
		ref    float64 // MJCF: the built pose's qpos
	}{
		{-2 * math.Pi, 2 * math.Pi, 0},
		{-3.2, 3.1, 0},
		{-3.5, 2, 0},
		{-0.4, 5.4, 2.5}, // a Panda's joint 7 from its home pose: 2.5 ± 2.9
		{-1, 8, 0},       // more than a turn
	} {
		for _, f := range []string{"urdf", "mjcf"} {
			if f == "urdf" && c.ref != 0 {
				continue // URDF builds at the zero pose
			}
			r := strings.NewReplacer("LO", fmt.Sprint(c.lo), "HI", fmt.Sprint(c.hi), "REF", fmt.Sprint(c.ref))
			var s *SceneSpec
			var ws []Warning
			var err error
			if f == "urdf" {
				s, ws, err = ParseURDF(strings.NewReader(r.Replace(urdf)), "r.urdf", ImportOptions{})
			} else {
				s, ws, err = ParseMJCF(strings.NewReader(r.Replace(mjcf)), "r.xml", ImportOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Settings.Gravity = mgl64.Vec3{} // URDF has no gravity setting; MJCF's is off
			name := fmt.Sprintf("%s range [%v, %v] from %v", f, c.lo, c.hi, c.ref)
			js := s.Joints[0]
			if js.Limits == nil || *js.Limits != (LimitsSpec{Lower: c.lo, Upper: c.hi}) || js.Reference == nil || *js.Reference != c.ref {
				t.Errorf("%s: limits %+v, reference %v: want the range as given and reference %v", name, js.Limits, js.Reference, c.ref)
			}
			for _, w := range ws {
				if strings.Contains(w.Msg, "clamped") || strings.Contains(w.Msg, "turn") {
					t.Errorf("%s: warning %q", name, w.Msg)
				}
			}
			w := buildWorld(t, s)
			jc, _, err := w.Joint("j")
			if err != nil {
				t.Fatal(err)
			}
			hg := jc.(*constraint.Hinge)
			for _, stop := range []struct{ speed, at float64 }{{3, c.hi}, {-3, c.lo}} {
				if err := hg.SetMotor(stop.speed, 20); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < int(2*(c.hi-c.lo)/3/s.Settings.H)+200; i++ {
					if _, err := w.Step(); err != nil {
						t.Fatal(err)
					}
				}
				if q, _, err := w.JointState(0); err != nil || math.Abs(q-stop.at) > 1e-6 {
					t.Errorf("%s: motor at %v rad/s ends at %v rad (%v), want its stop %v", name, stop.speed, q, err, stop.at)
				}
			}
		}
	}
}

// TestMJCFContypeEitherWay: MuJoCo lets two geoms collide when either
// one's contype meets the other's conaffinity; gorigid's filter needs
// both ways (category and mask). agility_cassie's floor has contype 0
// (its file's default) and conaffinity 15, its left leg contype 2,
// conaffinity 4, its right leg 4 and 2 and its pelvis 1 and 0: under a
// category = contype, mask = conaffinity mapping nothing met the floor
// and Cassie fell through it. The import now gives each combination a
// category bit and a mask of the combinations MuJoCo lets it meet, so
// every pair of shapes passes gorigid's filter exactly when MuJoCo's
// passes, and a box of the left leg's combination lands on the floor.
func TestMJCFContypeEitherWay(t *testing.T) {
	const doc = `<mujoco><worldbody>
<geom name="floor" type="plane" size="0 0 1" contype="0" conaffinity="15"/>
<body name="left" pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" contype="2" conaffinity="4"/></body>
<body name="right" pos="1 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" contype="4" conaffinity="2"/></body>
<body name="left2" pos="2 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" contype="2" conaffinity="4"/></body>
<body name="pelvis" pos="3 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1" contype="1" conaffinity="0"/></body>
<body name="plain" pos="4 0 0.5"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
</worldbody></mujoco>`
	s, _, err := ParseMJCF(strings.NewReader(doc), "cassie.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw := map[string][2]uint32{WorldName: {0, 15}, "left": {2, 4}, "right": {4, 2}, "left2": {2, 4}, "pelvis": {1, 0}, "plain": {1, 1}}
	shapes := map[string]ShapeSpec{}
	if len(s.WorldShapes) != 1 {
		t.Fatalf("world shapes %+v, want the floor", s.WorldShapes)
	}
	shapes[WorldName] = s.WorldShapes[0]
	for _, b := range s.Bodies {
		if len(b.Shapes) != 1 {
			t.Fatalf("body %s shapes %+v, want one", b.Name, b.Shapes)
		}
		shapes[b.Name] = b.Shapes[0]
	}
	cat := func(s ShapeSpec) uint32 {
		if s.Category == 0 {
			return 1
		}
		return s.Category
	}
	mask := func(s ShapeSpec) uint32 {
		if s.Mask == 0 {
			return ^uint32(0)
		}
		return s.Mask
	}
	for a, ra := range raw {
		for b, rb := range raw {
			if a == b {
				continue
			}
			mj := ra[0]&rb[1] != 0 || rb[0]&ra[1] != 0
			gr := cat(shapes[a])&mask(shapes[b]) != 0 && cat(shapes[b])&mask(shapes[a]) != 0
			if mj != gr {
				t.Errorf("%s–%s: gorigid collides %v, MuJoCo %v", a, b, gr, mj)
			}
		}
	}
	w := buildWorld(t, s)
	for i := 0; i < 500; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	for name := range raw {
		if name == WorldName {
			continue
		}
		b, _, err := w.Body(name)
		if err != nil {
			t.Fatal(err)
		}
		// Resting on the floor: the centre at the half side, 0.1 m, within
		// the contact's allowed penetration.
		if math.Abs(b.Pos[2]-0.1) > 2e-3 {
			t.Errorf("%s: centre at %v m after 1 s, want resting at 0.1 m", name, b.Pos[2])
		}
	}
}

// TestMJCFGravcompWarned: a body's gravcomp (MuJoCo's gravity
// compensation, newer than 2.2.2, which some public arm and gripper
// models set on their links) has no gorigid counterpart: it is reported, not silently dropped;
// gravcomp="0" changes nothing and is not.
func TestMJCFGravcompWarned(t *testing.T) {
	for g, want := range map[string]bool{"1": true, "0.5": true, "0": false} {
		doc := `<mujoco><worldbody><body gravcomp="` + g + `"><freejoint/><geom size="0.1"/></body></worldbody></mujoco>`
		_, ws, err := ParseMJCF(strings.NewReader(doc), "g.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, w := range ws {
			got = got || strings.Contains(w.Msg, "gravcomp")
		}
		if got != want {
			t.Errorf("gravcomp %s: warned %v, want %v (%v)", g, got, want, ws)
		}
	}
}

// TestMJCFMeshClassScale: a mesh asset takes its scale from its class's
// <mesh> default, as mujoco_menagerie's robotiq_2f85 and hands declare
// millimetre meshes (<default class="2f85"><mesh scale="0.001 0.001
// 0.001"/>, then <mesh class="2f85" file=...>). cube.obj, the cube
// [0, 2]³, scaled by 0.1 through a class is the box of side 0.2 m:
// 1000 kg/m³ × 0.008 m³ = 8 kg. Read unscaled it weighed 8000 kg.
func TestMJCFMeshClassScale(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(modelDir + "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cube.obj"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	const doc = `<mujoco>
<default><default class="dm"><mesh scale="0.1 0.1 0.1"/></default></default>
<asset><mesh class="dm" file="cube.obj"/></asset>
<worldbody><body name="b" pos="0 0 1"><freejoint/><geom type="mesh" mesh="cube"/></body></worldbody></mujoco>`
	p := filepath.Join(dir, "m.xml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadMJCF(p, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Bodies[0].Mass; math.Abs(m-8) > 1e-9 {
		t.Errorf("mass %v kg, want 8 (the cube scaled by its class's 0.1)", m)
	}
}

// TestMJCFCompilerAssetdirInertiaGroups: compiler assetdir is where mesh
// files are found when meshdir is not given, and inertiagrouprange
// limits the geoms that give mass: with "0 2", a group-3 collision box
// (1000 kg/m³ × 0.008 m³ = 8 kg) adds nothing to a body whose group-0
// sphere of radius 0.1 m weighs 4.18879 kg.
func TestMJCFCompilerAssetdirInertiaGroups(t *testing.T) {
	const doc = `<mujoco><compiler COMP/><worldbody><body pos="0 0 1"><freejoint/>
<geom type="sphere" size="0.1"/><geom type="box" size="0.1 0.1 0.1" group="3"/></body></worldbody></mujoco>`
	sphere := 1000 * 4 * math.Pi / 3 * 0.001
	for comp, want := range map[string]float64{`inertiagrouprange="0 2"`: sphere, `inertiagrouprange="0 5"`: sphere + 8, `angle="radian"`: sphere + 8} {
		s, _, err := ParseMJCF(strings.NewReader(strings.Replace(doc, "COMP", comp, 1)), "g.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if m := s.Bodies[0].Mass; math.Abs(m-want) > 1e-9 {
			t.Errorf("%s: mass %v, want %v", comp, m, want)
		}
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "assets"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(modelDir + "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "assets", "cube.obj"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "m.xml")
	const model = `<mujoco><compiler assetdir="assets"/><asset><mesh file="cube.obj" scale="0.1 0.1 0.1"/></asset>
<worldbody><body pos="0 0 1"><freejoint/><geom type="mesh" mesh="cube"/></body></worldbody></mujoco>`
	if err := os.WriteFile(p, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadMJCF(p, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := s.Bodies[0].Mass; math.Abs(m-8) > 1e-9 {
		t.Errorf("assetdir: mass %v, want the cube's 8 kg", m)
	}
}

// TestSkippedMeshWarning: the warning that sums up the skipped mesh geoms
// names the first one usefully when it has no name (its mesh file, body
// and line) and reads as well on the command line as in Go (no Go field
// names); a named geom is named.
func TestSkippedMeshWarning(t *testing.T) {
	const doc = `<mujoco><compiler meshdir="assets"/>
<asset><mesh name="col" file="link1.stl"/><mesh name="col2" file="link2.stl"/></asset>
<worldbody><body name="a" pos="0 0 1"><freejoint/>
  <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.1 0.1"/>
  <geom type="mesh" mesh="col"/>
  <geom type="mesh" mesh="col2"/>
</body></worldbody></mujoco>`
	const unnamed = `2 mesh geom(s) skipped, the first an unnamed geom of mesh file "link1.stl" on body "a", line 5 (file not found): they do not collide`
	_, ws, err := ParseMJCF(strings.NewReader(doc), "robot.xml", ImportOptions{SkipMissingMeshes: true})
	if err != nil {
		t.Fatal(err)
	}
	var got *Warning
	for i := range ws {
		if len(ws[i].Meshes) > 0 {
			got = &ws[i]
		}
	}
	if got == nil {
		t.Fatalf("no warning lists the skipped meshes: %v", ws)
	}
	if got.Msg != unnamed || got.Line != 5 || len(got.Meshes) != 2 {
		t.Errorf("warning %v with %d meshes,\nwant line 5: %s with 2", got, len(got.Meshes), unnamed)
	}
	// A named first geom is named.
	named := strings.Replace(doc, `<geom type="mesh" mesh="col"/>`, `<geom name="palm" type="mesh" mesh="col"/>`, 1)
	_, ws, err = ParseMJCF(strings.NewReader(named), "robot.xml", ImportOptions{SkipMissingMeshes: true})
	if err != nil {
		t.Fatal(err)
	}
	const want = `2 mesh geom(s) skipped, the first geom "palm" of mesh file "link1.stl" on body "a" (file not found): they do not collide`
	found := false
	for _, w := range ws {
		found = found || w.Msg == want
	}
	if !found {
		t.Errorf("warnings %v, want one: %s", ws, want)
	}
}
