package scenes

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
)

// wheelsMJCF is two wheels on vertical hinges to the world, without
// gravity: wheel a (2 kg, r 0.2 m: I = ½ m r² = 0.04 kg·m²) and wheel b
// (1 kg, r 0.1 m: I = 0.005 kg·m²), 1 m apart; extra is inserted after the
// worldbody.
func wheelsMJCF(extra string) string {
	return `<mujoco><option gravity="0 0 0" timestep="0.01"/><worldbody>
<body name="a" pos="0 0 1"><joint name="ja" axis="0 0 1"/><geom type="cylinder" size="0.2 0.05" mass="2"/></body>
<body name="b" pos="1 0 1"><joint name="jb" axis="0 0 1"/><geom type="cylinder" size="0.1 0.05" mass="1"/></body>
</worldbody>` + extra + `</mujoco>`
}

// hingeOf returns the hinge named name in w.
func hingeOf(t *testing.T, w *stepper.World, name string) *constraint.Hinge {
	t.Helper()
	c, _, err := w.Joint(name)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := c.(*constraint.Hinge)
	if !ok {
		t.Fatalf("joint %q is a %T", name, c)
	}
	return h
}

// TestMJCFJointEquality: <equality><joint joint1="ja" joint2="jb"
// polycoef="0 2 0 0 0"> (θa = 2 θb) under a torque of 1 N·m on jb is one
// degree of freedom of inertia I_b + 2² I_a = 0.165 kg·m²: θ̇b grows by
// h·τ/0.165 each step (1e-9 relative: the row is linear in the
// velocities, and the hinges turn about principal axes, so no other term
// enters), and θa − 2θb stays below 1e-9 rad (a position-level row; a
// GearJoint couples only speeds).
func TestMJCFJointEquality(t *testing.T) {
	s, ws := parseMJCFString(t, wheelsMJCF(`<equality><joint joint1="ja" joint2="jb" polycoef="0 2 0 0 0"/></equality>`))
	if len(ws) != 0 || len(s.Tendons) != 1 {
		t.Fatalf("warnings %v, tendons %+v", ws, s.Tendons)
	}
	w := buildWorld(t, s)
	ja, jb := hingeOf(t, w, "ja"), hingeOf(t, w, "jb")
	if err := jb.SetEffort(1); err != nil {
		t.Fatal(err)
	}
	const alpha = 1 / (0.005 + 4*0.04)
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	for n := 1; n <= 50; n++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		wb, _ := jb.AngleRate(ctx)
		if want := float64(n) * 0.01 * alpha; math.Abs(wb-want) > 1e-9*want {
			t.Fatalf("step %d: θ̇b = %.12g rad/s, want %.12g", n, wb, want)
		}
		qa, _ := ja.Angle(ctx)
		qb, _ := jb.Angle(ctx)
		if d := math.Abs(qa - 2*qb); d > 1e-9 {
			t.Fatalf("step %d: θa − 2θb = %.3g rad", n, d)
		}
	}
}

// TestMJCFFixedTendonRange: a fixed tendon ja + jb with range [−10, 1]
// rad, torques 1 and 0.5 N·m. Free, the sum accelerates at 1/0.04 +
// 0.5/0.005 = 125 rad/s²; once it reaches 1 rad the limit row carries the
// torque λ = (τa/Ia + τb/Ib)/(1/Ia + 1/Ib) = 5/9 N·m on both, so wheel a
// accelerates at (1 − λ)/Ia = +100/9 rad/s² and b at −100/9 (1e-9
// relative, the rigid limit is exact). The sum never exceeds 1 rad by
// more than 1e-9 rad.
func TestMJCFFixedTendonRange(t *testing.T) {
	s, ws := parseMJCFString(t, wheelsMJCF(`<tendon><fixed name="sum" range="-10 1"><joint joint="ja" coef="1"/><joint joint="jb" coef="1"/></fixed></tendon>`))
	if len(ws) != 0 || len(s.Tendons) != 1 || s.Tendons[0].Lower != -10 || s.Tendons[0].Upper != 1 {
		t.Fatalf("warnings %v, tendons %+v", ws, s.Tendons)
	}
	w := buildWorld(t, s)
	ja, jb := hingeOf(t, w, "ja"), hingeOf(t, w, "jb")
	if err := ja.SetEffort(1); err != nil {
		t.Fatal(err)
	}
	if err := jb.SetEffort(0.5); err != nil {
		t.Fatal(err)
	}
	c, _, err := w.Joint("sum")
	if err != nil {
		t.Fatal(err)
	}
	tendon := c.(*constraint.Tendon)
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	var prevA, prevB float64
	held, was := 0, false
	for n := 1; n <= 60; n++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		l, _ := tendon.Length(ctx)
		if l > 1+1e-9 {
			t.Fatalf("step %d: tendon length %.12g rad > 1", n, l)
		}
		wa, _ := ja.AngleRate(ctx)
		wb, _ := jb.AngleRate(ctx)
		at := math.Abs(l-1) < 1e-9 && math.Abs(wa+wb) < 1e-9
		if at && was {
			// Held at the limit this step and the previous one.
			aa, ab := (wa-prevA)/0.01, (wb-prevB)/0.01
			if math.Abs(aa-100.0/9) > 1e-9*100/9 || math.Abs(ab+100.0/9) > 1e-9*100/9 {
				t.Fatalf("step %d at the limit: accelerations %.12g, %.12g rad/s², want ±100/9", n, aa, ab)
			}
			held++
		}
		prevA, prevB, was = wa, wb, at
	}
	if held < 40 {
		t.Errorf("held at the limit with the constrained accelerations for %d of 60 steps, want ≥ 40 (the free phase lasts √(2/125) s ≈ 13 steps)", held)
	}
}

// TestTendonSpecFile: a tendon survives the scene file round trip, and
// bad tendons are errors naming the field.
func TestTendonSpecFile(t *testing.T) {
	s, _ := parseMJCFString(t, wheelsMJCF(`<tendon><fixed name="sum" range="-10 1"><joint joint="ja" coef="1"/><joint joint="jb" coef="-0.5"/></fixed></tendon>`))
	var buf strings.Builder
	if err := s.Marshal(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSpec(strings.NewReader(buf.String()), "t.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(back.Tendons) != 1 || back.Tendons[0].Name != "sum" || back.Tendons[0].Terms[1] != (TendonTerm{"jb", -0.5}) || back.Tendons[0].Lower != -10 || back.Tendons[0].Upper != 1 {
		t.Errorf("round trip: %+v", back.Tendons)
	}
	for _, c := range []struct{ tendon, want string }{
		{`{"joints": [{"joint": "nope", "coef": 1}], "upper": 1}`, `tendons[0].joints[0].joint: no joint named "nope"`},
		{`{"joints": [{"joint": "ja", "coef": 0}], "upper": 1}`, `tendons[0].joints[0].coef: must be finite and non-zero, got 0`},
		{`{"joints": [{"joint": "ja", "coef": 1}]}`, `tendons[0]: lower and upper are both free`},
		{`{"joints": [{"joint": "ja", "coef": 1}, {"joint": "ja", "coef": 2}], "upper": 1}`, `tendons[0].joints[1].joint: "ja" is already term 0 of this tendon`},
		{`{"joints": [{"joint": "ja", "coef": 1}], "lower": 2, "upper": 1}`, `tendons[0]: need lower ≤ upper, got [2, 1]`},
	} {
		doc := strings.Replace(buf.String(), `"tendons": [`, `"tendons": [`+c.tendon+`, `, 1)
		doc = strings.Replace(doc, `, {
      "name": "sum"`, `, {"name": "sum"`, 1)
		_, err := ReadSpec(strings.NewReader(doc), "t.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.tendon, err, c.want)
		}
	}
}

// TestMJCFBallRange: a pendulum (1 kg at 1 m) on a ball joint with range
// 20° under gravity tilted 30° from −z comes to rest against its swing
// cone: 20° from the vertical to 0.01° (the limit is a rigid unilateral
// row; its projection holds it within 1e-6 rad), never beyond 20.01°,
// where without the range it swings between 0° and 60°.
func TestMJCFBallRange(t *testing.T) {
	doc := func(rng string) string {
		return `<mujoco><option gravity="4.905 0 -8.49571" timestep="0.005"/><worldbody>
<body name="p" pos="0 0 2"><joint name="ball" type="ball"` + rng + `/><geom type="sphere" pos="0 0 -1" size="0.05" mass="1"/></body>
</worldbody></mujoco>`
	}
	swing := func(rng string) (last, most float64) {
		s, ws, err := ParseMJCF(strings.NewReader(doc(rng)), "b.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rng != "" && (len(ws) != 1 || !strings.Contains(ws[0].Msg, "swing cone")) {
			t.Errorf("warnings %v", ws)
		}
		w := buildWorld(t, s)
		for n := 0; n < 1200; n++ {
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
			d := w.Bodies[0].Pos.Sub(mgl64Vec(0, 0, 2))
			last = math.Acos(-d[2]/d.Len()) * 180 / math.Pi
			most = math.Max(most, last)
		}
		return last, most
	}
	if last, most := swing(` range="0 20"`); math.Abs(last-20) > 0.01 || most > 20.01 {
		t.Errorf("with range 20°: rests at %.4f°, largest %.4f°", last, most)
	}
	if _, most := swing(""); most < 55 {
		t.Errorf("without range: swings to %.4f°, want near 60° (released at 0°, rest at 30°)", most)
	}
}

// TestURDFMimic: a pendulum (1 kg at 1 m, I_c 1e-4 kg·m²) and a wheel
// (I = 0.01 kg·m²) on parallel hinges, the wheel's joint mimicking the
// pendulum's with multiplier 3, swing as one pendulum of inertia
// 1 + 1e-4 + 9·0.01 kg·m²: small-angle period 2π √(1.0901/9.81) =
// 2.0945 s within 0.1 % (h = 0.01 s: the stepper's period error is
// ~(Ωh)²/24 ≈ 4e-5, the amplitude 0.017 rad adds θ²/16 ≈ 2e-5), and
// the wheel's angle stays 3 times the pendulum's to 1e-9 rad.
func TestURDFMimic(t *testing.T) {
	doc := `<robot name="m"><link name="world"/>
<link name="pend"><inertial><origin xyz="0 0 -1"/><mass value="1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4"/></inertial></link>
<link name="wheel"><inertial><mass value="2"/><inertia ixx="0.01" iyy="0.01" izz="0.01"/></inertial></link>
<joint name="j1" type="continuous"><parent link="world"/><child link="pend"/><origin xyz="0 0 2"/><axis xyz="0 1 0"/></joint>
<joint name="j2" type="continuous"><parent link="world"/><child link="wheel"/><origin xyz="3 0 2"/><axis xyz="0 1 0"/><mimic joint="j1" multiplier="3"/></joint>
</robot>`
	s, ws, err := ParseURDF(strings.NewReader(doc), "m.urdf", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 0 || len(s.Tendons) != 1 {
		t.Fatalf("warnings %v tendons %+v", ws, s.Tendons)
	}
	w := buildWorld(t, s)
	const w0 = 0.05
	w.Bodies[0].AngVel = mgl64Vec(0, w0, 0)
	w.Bodies[0].Vel = mgl64Vec(-w0, 0, 0)
	w.Bodies[1].AngVel = mgl64Vec(0, 3*w0, 0)
	j1, j2 := hingeOf(t, w, "j1"), hingeOf(t, w, "j2")
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	var cross []float64
	prev := 0.0
	for n := 1; n <= 700; n++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		q1, _ := j1.Angle(ctx)
		q2, _ := j2.Angle(ctx)
		if d := math.Abs(q2 - 3*q1); d > 1e-9 {
			t.Fatalf("step %d: θ2 − 3θ1 = %.3g rad", n, d)
		}
		if n > 1 && (prev < 0) != (q1 < 0) {
			cross = append(cross, 0.01*(float64(n-1)+prev/(prev-q1)))
		}
		prev = q1
	}
	if len(cross) < 5 {
		t.Fatalf("%d zero crossings in 7 s", len(cross))
	}
	period := 2 * (cross[len(cross)-1] - cross[0]) / float64(len(cross)-1)
	want := 2 * math.Pi * math.Sqrt(1.0901/9.81)
	t.Logf("period %.6f s, want %.6f s (%+.2g)", period, want, period/want-1)
	if math.Abs(period/want-1) > 1e-3 {
		t.Errorf("period %.6f s, want %.6f s", period, want)
	}
}

func mgl64Vec(x, y, z float64) mgl64.Vec3 { return mgl64.Vec3{x, y, z} }

// TestMJCFTendonKeyframe: with a keyframe (ja = 0.5, jb = 0.2 rad) the
// hinges' angles are still qpos (their references are the key's), so a
// fixed tendon ja + jb in [−1, 1] keeps its range and a joint equality
// ja = 0.1 + 2 jb becomes θa − 2θb = 0.1, as in the file.
func TestMJCFTendonKeyframe(t *testing.T) {
	doc := wheelsMJCF(`<tendon><fixed name="sum" range="-1 1"><joint joint="ja" coef="1"/><joint joint="jb" coef="1"/></fixed></tendon>
<equality><joint name="eq" joint1="ja" joint2="jb" polycoef="0.1 2 0 0 0"/></equality>
<keyframe><key name="k" qpos="0.5 0.2"/></keyframe>`)
	s, _, err := ParseMJCF(strings.NewReader(doc), "k.xml", ImportOptions{Keyframe: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tendons) != 2 {
		t.Fatalf("tendons %+v", s.Tendons)
	}
	if tn := s.Tendons[0]; tn.Lower != -1 || tn.Upper != 1 {
		t.Errorf("tendon range [%v, %v], want [−1, 1]", tn.Lower, tn.Upper)
	}
	if eq := s.Tendons[1]; eq.Name != "eq" || eq.Lower != 0.1 || eq.Lower != eq.Upper || eq.Terms[1] != (TendonTerm{"jb", -2}) {
		t.Errorf("equality %+v, want ja − 2 jb = 0.1", eq)
	}
}
