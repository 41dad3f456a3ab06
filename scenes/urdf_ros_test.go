package scenes

import (
	"math"
	"strings"
	"testing"
)

// TestURDFROSGripper imports testdata/models/ros_gripper.urdf, a robot
// description as ROS's xacro writes it (see the file), as `sim run` does
// (SkipMissingMeshes): every element gorigid does not simulate is named in
// one warning each (the joint's <safety_controller> and <calibration>, the
// <transmission>, <gazebo>, <ros2_control>, the visual, the package:// mesh
// not found), and nothing is silently dropped. The base, welded to the
// "world" link, is static (it was a moving body held by a weld row); the
// moving mass is the three fingers' 0.055 kg. The two <mimic> joints
// become equality tendons: hanging limp for 1 s, the knuckles swing up
// (gravity's torque is about +y) to their 0.8 rad limits at step 48, the
// right knuckle at the left's angle and the finger at minus it to rounding
// (4e-16 rad measured, bound 1e-9); at the limits three limit rows and two
// mimic rows hold one degree of freedom, and the redundant solve leaves
// 1.25e-7 rad (bound 1e-6, under ProjectAbove's 1 mrad).
func TestURDFROSGripper(t *testing.T) {
	s, ws, err := LoadURDF(modelDir+"ros_gripper.urdf", ImportOptions{SkipMissingMeshes: true})
	if err != nil {
		t.Fatal(err)
	}
	got := warningText(ws)
	for _, want := range []string{
		`ros_gripper.urdf:23: <visual>: visual geometry ignored`,
		`ros_gripper.urdf:33: <safety_controller>: element <safety_controller> in a joint ignored`,
		`ros_gripper.urdf:34: <calibration>: element <calibration> in a joint ignored`,
		`ros_gripper.urdf:62: <transmission>: transmissions ignored: the joints are unactuated`,
		`ros_gripper.urdf:67: <gazebo>: <gazebo> ignored: its friction (mu1, mu2), contact stiffness and damping, and plugins (a mimic joint plugin: use <mimic>) are not imported`,
		`ros_gripper.urdf:69: <ros2_control>: element <ros2_control> ignored`,
		`ros_gripper.urdf:24: <mesh>: collision mesh file "package://grip_description/meshes/collision/base.stl" not found`,
	} {
		if strings.Count(got, want) != 1 {
			t.Errorf("want one warning %q, got:\n%s", want, got)
		}
	}
	if len(ws) != 9 {
		t.Errorf("%d warnings, want 9 (the 7 above, effort limits, the skipped-mesh summary):\n%s", len(ws), got)
	}
	moving := movingMass(s)
	if math.Abs(moving-0.055) > 1e-15 {
		t.Errorf("moving mass %v kg, want 0.055", moving)
	}
	if len(s.Tendons) != 2 {
		t.Fatalf("tendons %+v, want the two mimics", s.Tendons)
	}
	w := buildWorld(t, s)
	free, held, hit := 0.0, 0.0, 0
	for i := 1; i <= 100; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		l, r, f := jointQ(t, w, "left_knuckle_joint"), jointQ(t, w, "right_knuckle_joint"), jointQ(t, w, "left_finger_joint")
		e := math.Max(math.Abs(r-l), math.Abs(f+l))
		if hit == 0 && l > 0.8-1e-3 {
			hit = i
		}
		if hit == 0 {
			free = math.Max(free, e)
		} else {
			held = math.Max(held, e)
		}
	}
	t.Logf("mimic error %.3g rad swinging, %.3g rad at the limits from step %d", free, held, hit)
	if hit == 0 || free > 1e-9 || held > 1e-6 {
		t.Errorf("the knuckles reach their 0.8 rad limit at step %d (want within 1 s); the mimics hold to %.3g rad before (want 1e-9), %.3g after (want 1e-6)", hit, free, held)
	}
}

// TestURDFMimicProblems: a <mimic> without its joint attribute is an
// error naming the joint; a mimic of a joint the model does not have is
// warned as such (the joint then moves on its own); a non-zero offset,
// which the zero pose URDF builds the model at violates, is warned with
// the gap, and the first step closes it: θb − 2 θa = 0.3 rad to 1e-9.
func TestURDFMimicProblems(t *testing.T) {
	doc := func(mimic string) string {
		return `<robot name="m"><link name="world"/>
<link name="a"><inertial><origin xyz="0.1 0 0"/><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001"/></inertial></link>
<link name="b"><inertial><origin xyz="0.1 0 0"/><mass value="0.1"/><inertia ixx="0.001" iyy="0.001" izz="0.001"/></inertial></link>
<joint name="ja" type="continuous"><parent link="world"/><child link="a"/><axis xyz="0 1 0"/></joint>
<joint name="jb" type="continuous"><parent link="world"/><child link="b"/><origin xyz="0 0.2 0"/><axis xyz="0 1 0"/>` + mimic + `</joint>
</robot>`
	}
	_, _, err := ParseURDF(strings.NewReader(doc(`<mimic multiplier="2"/>`)), "m.urdf", ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), `m.urdf:5: <mimic>: joint: required (the name of the joint "jb" follows)`) {
		t.Errorf("mimic without joint: %v", err)
	}
	s, ws, err := ParseURDF(strings.NewReader(doc(`<mimic joint="jc"/>`)), "m.urdf", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !strings.Contains(ws[0].String(), `m.urdf:5: <mimic>: mimic of joint "jc" by "jb" not imported: the model has no joint "jc"`) || len(s.Tendons) != 0 {
		t.Errorf("mimic of a missing joint: warnings %v, tendons %+v", ws, s.Tendons)
	}
	s, ws, err = ParseURDF(strings.NewReader(doc(`<mimic joint="ja" multiplier="2" offset="0.3"/>`)), "m.urdf", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !strings.Contains(ws[0].String(), `m.urdf:5: <mimic>: joint "jb" starts 0.3 rad off its mimic of "ja"`) {
		t.Errorf("mimic with an offset: warnings %v", ws)
	}
	w := buildWorld(t, s)
	if _, err := w.Step(); err != nil {
		t.Fatal(err)
	}
	if a, b := jointQ(t, w, "ja"), jointQ(t, w, "jb"); math.Abs(b-2*a-0.3) > 1e-9 {
		t.Errorf("after step 1: θb − 2 θa = %.12g rad, want 0.3", b-2*a)
	}
}

// TestURDFXacroUnexpanded: a ROS .urdf.xacro file (or one saved as .urdf)
// is refused with one error naming its first xacro element or ${…}
// expression and saying to expand it, not read as a URDF whose macros'
// links are missing and whose expressions are bad numbers; a file xacro
// has expanded (the namespace still declared) imports.
func TestURDFXacroUnexpanded(t *testing.T) {
	const inertia = `<inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/>`
	for _, c := range []struct{ doc, want string }{
		{`<robot name="g" xmlns:xacro="http://www.ros.org/wiki/xacro">
<xacro:property name="m" value="0.5"/></robot>`, `g.urdf.xacro:2: <property>: the xacro:property element of an unexpanded xacro file: expand it first with ROS's xacro (xacro FILE.urdf.xacro > FILE.urdf)`},
		{`<robot name="g"><link name="a"/>
<xacro:include filename="$(find g)/g.xacro"/></robot>`, `g.urdf.xacro:2: <include>: the xacro:include element of an unexpanded xacro file`},
		{`<robot name="g" xmlns:xacro="http://www.ros.org/wiki/xacro">
<link name="a"><inertial><mass value="${m*2}"/>` + inertia + `</inertial></link></robot>`, `g.urdf.xacro:2: <mass>: value="${m*2}", an expression of an unexpanded xacro file`},
	} {
		_, _, err := ParseURDF(strings.NewReader(c.doc), "g.urdf.xacro", ImportOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if ModelKind("robot.urdf.xacro") != KindURDF {
		t.Errorf("a .xacro file is %q, want %q", ModelKind("robot.urdf.xacro"), KindURDF)
	}
	if _, _, err := ParseURDF(strings.NewReader(`<robot name="g" xmlns:xacro="http://www.ros.org/wiki/xacro">
<link name="a"><inertial><mass value="1"/>`+inertia+`</inertial></link></robot>`), "g.urdf", ImportOptions{}); err != nil {
		t.Errorf("an expanded file: %v", err)
	}
}

// warningText is the import's warnings, one a line (Warning.String).
func warningText(ws []Warning) string {
	all := make([]string, len(ws))
	for i, w := range ws {
		all[i] = w.String()
	}
	return strings.Join(all, "\n")
}

// movingMass is the mass of the spec's bodies that are not static (kg).
func movingMass(s *SceneSpec) float64 {
	m := 0.0
	for _, b := range s.Bodies {
		if !b.Static {
			m += b.Mass
		}
	}
	return m
}
