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
