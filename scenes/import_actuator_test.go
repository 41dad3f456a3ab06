package scenes

import (
	"math"
	"strings"
	"testing"
)

// MJCF joint damping, stiffness with springref, armature and a position
// actuator with gear map onto gorigid's spring row, armature and servo:
// springref (degrees, the compiler's default) becomes the rest angle in
// radians on the hinge's angle, which is MuJoCo's qpos (0.5 at the
// keyframe pose), the actuator's kp and kv scale
// by gear² and its force range by |gear|, and its ctrl = 0 target is the
// MJCF coordinate 0. With no gravity, the disc (I = 0.02 kg·m² about the
// axis, plus armature 0.03) comes to rest where servo and spring balance:
// kp' (0 − q) + k (rest − q) = 0. No warning says these are ignored.
func TestMJCFJointDynamicsAndServo(t *testing.T) {
	const doc = `<mujoco><option timestep="0.001" gravity="0 0 0"/>
<worldbody><body name="disc" pos="0 0 1">
  <joint name="j" type="hinge" axis="0 0 1" damping="0.3" stiffness="2" springref="30" armature="0.03"/>
  <inertial pos="0 0 0" mass="1" diaginertia="0.02 0.02 0.02"/>
</body></worldbody>
<actuator><position joint="j" kp="4" kv="0.5" gear="2" forcerange="-10 10"/></actuator>
<keyframe><key name="k" qpos="0.5"/></keyframe></mujoco>`
	s, ws, err := ParseMJCF(strings.NewReader(doc), "m.xml", ImportOptions{Keyframe: "k"})
	if err != nil {
		t.Fatal(err)
	}
	j := s.Joints[0]
	rest := 30 * math.Pi / 180
	if j.Spring == nil || j.Spring.Damping != 0.3 || j.Spring.Stiffness != 2 || math.Abs(j.Spring.Rest-rest) > 1e-15 {
		t.Errorf("spring %+v, want damping 0.3, stiffness 2, rest %v", j.Spring, rest)
	}
	if j.Armature != 0.03 {
		t.Errorf("armature %v, want 0.03", j.Armature)
	}
	want := ServoSpec{Target: 0, Kp: 16, Kd: 2, MaxForce: 20}
	if j.Servo == nil || *j.Servo != want {
		t.Errorf("servo %+v, want %+v", j.Servo, want)
	}
	for _, w := range ws {
		if strings.Contains(w.Msg, "ignored") && (strings.Contains(w.Msg, "damping") || strings.Contains(w.Msg, "armature") || strings.Contains(w.Msg, "stiffness")) {
			t.Errorf("warning %q: these are imported", w.Msg)
		}
	}
	w := buildWorld(t, s)
	for i := 0; i < 10000; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	q, _, err := w.JointState(0)
	if err != nil {
		t.Fatal(err)
	}
	// Balance: 16 (0 − q) + 2 (rest − q) = 0. The slowest mode decays
	// as e^{−t c/(2(I + a))} = e^{−2.3/0.1·10} (c = 2.3): at rest to 1e-9.
	eq := 2 * rest / 18
	if math.Abs(q-eq) > 1e-9 {
		t.Errorf("rest angle %v, want %v", q, eq)
	}
	bad := strings.Replace(doc, `kp="4"`, `kp="-4"`, 1)
	if _, _, err := ParseMJCF(strings.NewReader(bad), "m.xml", ImportOptions{}); err == nil || !strings.Contains(err.Error(), "kp") {
		t.Errorf("kp < 0: error %v, want one naming kp", err)
	}
}

// TestMJCFFrictionlossSticks: joint frictionloss is rigid Coulomb friction
// in gorigid, and the import says so: a disc on a hinge (no gravity, I =
// 0.02 kg·m², damping 0.05) pulled by a position servo (kp = 100) from
// 0.2 rad towards 0 comes to rest where the friction holds the servo,
// |kp q| ≤ frictionloss: within 0.1/100 = 1e-3 rad of 0 but not at it
// (measured 2.2e-4 rad after 3 s), where MuJoCo 2.2.2's soft friction
// creeps on to the servo's target (3.4e-7 rad after 3 s, 0 after 10 s;
// mujoco_hang on this model); mujoco_menagerie's ANYmal C, its legs
// held by kp = 100 servos with frictionloss 0.1, rests up to 7.5e-4 rad
// from MuJoCo's pose after 10 s, and 7.5e-8 rad without the friction.
// Tolerance 1e-9 rad on the band: the servo and friction rows' solve.
func TestMJCFFrictionlossSticks(t *testing.T) {
	const doc = `<mujoco><option timestep="0.002" gravity="0 0 0"/>
<worldbody><body name="disc"><joint name="j" axis="0 0 1" damping="0.05" frictionloss="0.1"/>
  <inertial pos="0 0 0" mass="1" diaginertia="0.02 0.02 0.02"/></body></worldbody>
<actuator><position joint="j" kp="100"/></actuator>
<keyframe><key name="k" qpos="0.2"/></keyframe></mujoco>`
	s, ws, err := ParseMJCF(strings.NewReader(doc), "f.xml", ImportOptions{Keyframe: "k"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range ws {
		if strings.Contains(w.String(), "f.xml:2: <joint>: joint frictionloss 0.1 is rigid Coulomb friction in gorigid") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("want one frictionloss warning, got %v", ws)
	}
	w := buildWorld(t, s)
	for i := 0; i < 1500; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	q := jointQ(t, w, "j")
	jv := w.Bodies[0].AngVel
	t.Logf("rests at %.6g rad, spin %.3g rad/s", q, jv.Len())
	if !(math.Abs(q) <= 0.1/100+1e-9) || !(jv.Len() < 1e-9) {
		t.Errorf("after 3 s: q = %.9g rad, ω = %.3g rad/s: want at rest within frictionloss/kp = 1e-3 rad of the target", q, jv.Len())
	}
	if math.Abs(q) < 1e-5 {
		t.Errorf("q = %.3g rad: rigid friction should hold the disc where it stopped, not at the target", q)
	}
}
