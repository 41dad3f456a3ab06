package scenes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		// The hinge axis is −y: q > 0 raises the link; q is measured from
		// the keyframe pose, so the sag is −q.
		q, _, err := w.JointState(0)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(-q-delta) > 1e-7 {
			t.Errorf("%s: the arm sags %.9g rad from the keyframe pose, want %.9g", name, -q, delta)
		}
	}
}

// TestMJCFKeyframeCtrlClamped: the keyframe's ctrl is clamped to the
// actuator's ctrlrange, as MuJoCo clamps ctrl: 5 in [−3, 3] holds the
// arm at q = 3, 2.7 rad above the keyframe pose, less the sag
// kp δ = m g L cos(3 − δ).
func TestMJCFKeyframeCtrlClamped(t *testing.T) {
	doc := strings.Replace(robotServoDoc, "ACT", `<general class="arm" joint="j" gainprm="4500" biasprm="0 -4500 -450"/>`, 1)
	doc = strings.Replace(doc, `ctrl="0.3"`, `ctrl="5"`, 1)
	s, _, err := ParseMJCF(strings.NewReader(doc), "arm.xml", ImportOptions{Keyframe: "home"})
	if err != nil {
		t.Fatal(err)
	}
	j := s.Joints[0]
	if j.Servo == nil || math.Abs(j.Servo.Target-2.7) > 1e-15 || j.Servo.Kp != 4500 || j.Servo.Kd != 450 {
		t.Fatalf("servo %+v, want target 2.7 (ctrl clamped to 3, less q0 = 0.3), kp 4500, kd 450", j.Servo)
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
// SkipMissingMeshes; visual meshes are never read.
func TestURDFMissingMeshes(t *testing.T) {
	const doc = `<robot name="r"><link name="base"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial>
<visual><geometry><mesh filename="package://ur_description/meshes/base.dae"/></geometry></visual>
COLL</link></robot>`
	coll := `<collision><geometry><mesh filename="package://ur_description/meshes/base.stl"/></geometry></collision>`
	if _, _, err := ParseURDF(strings.NewReader(strings.Replace(doc, "COLL", "", 1)), "r.urdf", ImportOptions{}); err != nil {
		t.Errorf("visual mesh only: %v", err)
	}
	full := strings.Replace(doc, "COLL", coll, 1)
	_, _, err := ParseURDF(strings.NewReader(full), "r.urdf", ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "package://ur_description/meshes/base.stl") || !strings.Contains(err.Error(), "SkipMissingMeshes") {
		t.Errorf("error %v, want one naming the mesh and SkipMissingMeshes", err)
	}
	if _, _, err := ParseURDF(strings.NewReader(full), "r.urdf", ImportOptions{SkipMissingMeshes: true}); err != nil {
		t.Errorf("with SkipMissingMeshes: %v", err)
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
		`<mujoco><include file="bad.xml"/></mujoco>`:  filepath.Join(dir, "bad.xml") + ":3: <geom>: size",
		`<mujoco><include file="none.xml"/></mujoco>`: `none.xml`,
		`<mujoco><include file="loop.xml"/></mujoco>`: `cycle`,
		`<mujoco><include/></mujoco>`:                 `file: missing`,
	} {
		write("loop.xml", `<mujoco><include file="loop.xml"/></mujoco>`)
		_, _, err := LoadMJCF(write("main.xml", doc), ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", doc, err, want)
		}
	}
}
