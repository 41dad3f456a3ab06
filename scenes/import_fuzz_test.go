package scenes

import (
	"bytes"
	"os"
	"testing"
)

// fuzzImport checks that a parsed model never panics, and that a model
// that imports without error builds a World (the importer validates the
// spec it returns).
func fuzzImport(t *testing.T, spec *SceneSpec, err error) {
	if err != nil {
		return
	}
	if len(spec.Bodies) > 200 {
		return // building is tested elsewhere; keep each input fast
	}
	if _, err := spec.World(); err != nil {
		t.Fatalf("imported spec does not build: %v", err)
	}
}

func addSeeds(f *testing.F, files ...string) {
	for _, p := range files {
		data, err := os.ReadFile(modelDir + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzLoadURDF(f *testing.F) {
	addSeeds(f, "double_pendulum.urdf", "arm.urdf", "ros_gripper.urdf")
	// An unexpanded xacro file, mimic problems and a foot inside the
	// ground (warnStartInside on URDF).
	f.Add([]byte(`<robot name="g" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:property name="m" value="1"/>
<link name="a"><inertial><mass value="${m}"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link></robot>`))
	f.Add([]byte(`<robot><link name="world"/><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial>
<collision><origin xyz="0 0 0.01"/><geometry><box size="0.1 0.1 0.04"/></geometry></collision></link>
<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
<joint name="f" type="fixed"><parent link="world"/><child link="a"/></joint>
<joint name="q" type="revolute"><parent link="a"/><child link="b"/><limit lower="-1" upper="1"/><mimic joint="nope" offset="0.2"/></joint></robot>`))
	f.Add([]byte(`<robot><link name="a"/></robot>`))
	f.Add([]byte(`<robot><link name="world"/><link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1"/></inertial></link>
<joint name="p" type="planar"><parent link="world"/><child link="a"/><axis xyz="0 0 1"/></joint>
<joint name="q" type="continuous"><parent link="a"/><child link="b"/><mimic joint="p" multiplier="2" offset="0.1"/></joint></robot>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseURDF(bytes.NewReader(data), "fuzz.urdf", ImportOptions{Ground: true})
		fuzzImport(t, s, err)
		// Planar joints as sliders and a hinge.
		s, _, err = ParseURDF(bytes.NewReader(data), "fuzz.urdf", ImportOptions{SplitJoints: 0.01})
		fuzzImport(t, s, err)
	})
}

// FuzzLoadMJCF parses and builds mutated MJCF models. An exec costs up to
// ~3 ms on the humanoid-sized seeds (two parses and a World; measured
// under the fuzzer's coverage instrumentation on 2 loaded cores), so the
// fuzzer's minimization of each new interesting input of ~3.4 kB, which
// tries on the order of n candidates per pass, takes its whole default
// budget (-fuzzminimizetime 60s): the progress line then shows 0 execs/s
// for up to a minute, though no input is slow (the slowest of 159
// interesting inputs found in 150 s ran in 2.8 ms). Run it with
// `go test ./scenes -run XXX -fuzz FuzzLoadMJCF -fuzzminimizetime 3s` to
// keep it exploring.
func FuzzLoadMJCF(f *testing.F) {
	addSeeds(f, "double_pendulum.xml", "humanoid.xml", "mesh_box.xml", "humanoid_multi.xml", "gripper4bar.xml")
	f.Add([]byte(`<mujoco><worldbody><body name="a"><joint name="x"/><geom size="1"/><body name="b" pos="0 0 1"><joint name="y" type="slide"/><geom size="1"/></body></body>
<body name="c"><joint name="z" type="ball" range="0 30"/><geom size="1"/></body></worldbody>
<tendon><fixed range="-1 1"><joint joint="x" coef="1"/><joint joint="y" coef="-2"/></fixed></tendon>
<equality><joint joint1="y" joint2="x" polycoef="0.1 3 0 0 0"/></equality></mujoco>`))
	f.Add([]byte(`<mujoco><worldbody><body><freejoint/><geom size="1"/></body></worldbody></mujoco>`))
	// An ellipsoid (a convex hull) starting inside the floor, joint
	// frictionloss and an actuator on a tendon.
	f.Add([]byte(`<mujoco><worldbody><geom type="plane" size="1 1 1"/><body name="e" pos="0 0 0.05" euler="10 20 30"><freejoint/><geom type="ellipsoid" size="0.1 0.2 0.08"/>
<body pos="0 0 0.3"><joint name="x" frictionloss="0.1"/><geom size="0.05"/></body></body></worldbody>
<tendon><fixed name="t"><joint joint="x" coef="0.5"/></fixed></tendon><actuator><general tendon="t" name="g"/><position joint="x" kp="10"/></actuator></mujoco>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, err := ParseMJCF(bytes.NewReader(data), "fuzz.xml", ImportOptions{})
		fuzzImport(t, s, err)
		// Split joints and the humanoid's keyframe name.
		s, _, err = ParseMJCF(bytes.NewReader(data), "fuzz.xml", ImportOptions{SplitJoints: 0.01, Keyframe: "crouch"})
		fuzzImport(t, s, err)
	})
}
