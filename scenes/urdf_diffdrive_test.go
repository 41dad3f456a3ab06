package scenes

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// The differential-drive fixture testdata/models/diffdrive_burger.urdf
// (a TurtleBot3-Burger-like robot, see the file): wheel radius r, track
// (distance between the wheel centres) and wheel width b (m).
const (
	burgerR     = 0.033
	burgerTrack = 0.16
	burgerWidth = 0.018
)

// burgerFile returns the fixture's text; ros puts back the original's
// wheel rpy −1.57 (−π/2 in the fixture).
func burgerFile(t *testing.T, ros bool) string {
	t.Helper()
	data, err := os.ReadFile(modelDir + "diffdrive_burger.urdf")
	if err != nil {
		t.Fatal(err)
	}
	if !ros {
		return string(data)
	}
	return strings.ReplaceAll(string(data), `rpy="-1.5707963267948966 0 0"`, `rpy="-1.57 0 0"`)
}

// burgerWorld imports the fixture with a ground plane, gives its ball
// caster no friction (a ball caster rolls freely; URDF has no per-shape
// friction and gorigid ignores <gazebo> mu), puts velocity motors at
// speed 0 on the two wheel hinges and returns the world and its total
// mass (kg).
func burgerWorld(t *testing.T, data string, opts ImportOptions) (*stepper.World, float64) {
	t.Helper()
	s, ws, err := ParseURDF(strings.NewReader(data), "diffdrive_burger.urdf", opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := warningText(ws); strings.Contains(got, "has no mass") != opts.FixedBase && !opts.FixedBase {
		t.Errorf("a massless base_footprint over a massive base_link by a fixed joint is part of base_link's body, not static: %s", got)
	}
	casters := 0
	for i := range s.Bodies {
		for k := range s.Bodies[i].Shapes {
			if sh := &s.Bodies[i].Shapes[k]; sh.Type == contact.Sphere {
				sh.Material.Friction = 0
				casters++
			}
		}
	}
	if casters != 1 {
		t.Fatalf("%d caster spheres, want 1", casters)
	}
	for i := range s.Joints {
		if s.Joints[i].Type == JointHinge {
			s.Joints[i].Motor = &MotorSpec{Speed: 0, MaxForce: 10}
		}
	}
	return buildWorld(t, s), movingMass(s)
}

// setWheels sets the wheel motors' speeds (rad/s).
func setWheels(t *testing.T, w *stepper.World, left, right float64) {
	t.Helper()
	for _, c := range []struct {
		name  string
		speed float64
	}{{"wheel_left_joint", left}, {"wheel_right_joint", right}} {
		j, _, err := w.Joint(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := j.(*constraint.Hinge).SetMotor(c.speed, 10); err != nil {
			t.Fatal(err)
		}
	}
}

// contactLoad is the sum of the last step's contact normal forces (N): the
// normal rows' impulses over h.
func contactLoad(w *stepper.World) float64 {
	x, _ := w.LastSolution()
	f := 0.0
	for _, c := range w.Contacts(nil) {
		f += x[c.Row] / w.Settings.H
	}
	return f
}

// TestURDFDiffDrive imports a TurtleBot3-Burger-like robot with Ground:
// its massless base_footprint root hangs base_link on a fixed joint, so
// it is a frame of base_link's body, which is free (Gazebo's URDF→SDF
// conversion lumps it the same way); before, it was made static and the
// robot could not move. Its four bodies (base, two wheels, the laser
// welded on) weigh M = 0.96 kg.
//
//   - Resting with the wheel motors at 0 for 1 s (it starts touching the
//     floor exactly, the wheel axles at z = r): no step adds more than
//     1e-12 J (rounding of the 0.55 J potential energy), the energy ends
//     within 1e-12 J of its start, and the contacts carry M g to 1e-6
//     relative (the solver's default tolerance on a resting stack).
//   - Equal wheel speeds ω = 5 rad/s: after 0.3 s the base moves at
//     ω r = 0.165 m/s along +x to 1e-6 relative (rigid rolling contact,
//     the motor rows rigid: no slip, so the solver's tolerance), its yaw
//     unchanged to 1e-9 rad/s (the robot is mirror-symmetric in y).
//   - Opposite speeds ±ω: it turns in place at the yaw rate 2 ω r / track
//     = 2.0625 rad/s to 13 %: a cylinder wheel touches the floor at both
//     edges (gorigid's plane–cylinder line contact), which turning in place
//     carries on circles of radius track/2 ∓ b/2 at the one rim speed ω r,
//     so one edge at least slips and the rate lies between 2ωr/(track+b)
//     (−10 %) and 2ωr/(track−b) (+12.7 %); measured +12.72 %: the inner
//     edges, which carry three quarters of each wheel's load, grip. The
//     0.04 % beyond 2ωr/(track−b) comes with the wheels' 0.6 mrad tilt in
//     their hinges under the turning load (their edge points 10 µm apart
//     in height, the inner contact 10 µm nearer the axle midpoint: 0.014 %
//     of it; the rest not analysed). The axle midpoint stays within 1 cm
//     of where it began (measured 4.7 mm).
func TestURDFDiffDrive(t *testing.T) {
	w, M := burgerWorld(t, burgerFile(t, false), ImportOptions{Ground: true})
	if math.Abs(M-0.96) > 1e-15 {
		t.Errorf("moving mass %v kg, want 0.96 (base 0.8, wheels 2 × 0.03, laser 0.1)", M)
	}
	_, base, err := w.Body("base_link")
	if err != nil {
		t.Fatal(err)
	}
	_, wl, _ := w.Body("wheel_left_link")
	_, wr, _ := w.Body("wheel_right_link")
	g := -w.Settings.Gravity.Z()
	energy := func() float64 { k, u := w.Energy(); return k + u }
	e0 := energy()
	worst := 0.0
	for i := 0; i < 100; i++ {
		st, err := w.Step()
		if err != nil {
			t.Fatal(err)
		}
		worst = math.Max(worst, st.EnergyAdded)
	}
	de := energy() - e0
	load := contactLoad(w)
	t.Logf("resting: largest step energy %.3g J, change %.3g J, contact load %.9g N (M g = %.9g N)", worst, de, load, M*g)
	if worst > 1e-12 || math.Abs(de) > 1e-12 {
		t.Errorf("resting on its wheels, a step added %.3g J and the energy changed by %.3g J (want ≤ 1e-12 J)", worst, de)
	}
	if math.Abs(load-M*g) > 1e-6*M*g {
		t.Errorf("contact load %.9g N, want M g = %.9g N to 1e-6", load, M*g)
	}

	const omega = 5.0
	setWheels(t, w, omega, omega)
	for i := 0; i < 30; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	v, yaw := w.Bodies[base].Vel, w.Bodies[base].AngVel.Z()
	t.Logf("straight: v %.9g m/s (ω r = %.9g), lateral %.3g m/s, yaw rate %.3g rad/s", v.X(), omega*burgerR, v.Y(), yaw)
	if math.Abs(v.X()-omega*burgerR) > 1e-6*omega*burgerR || math.Abs(v.Y()) > 1e-9 || math.Abs(yaw) > 1e-9 {
		t.Errorf("equal wheel speeds: v = %v m/s, yaw rate %v rad/s; want (%v, 0, ·) and 0", v, yaw, omega*burgerR)
	}

	setWheels(t, w, omega, -omega)
	mid := func() (x, y float64) {
		a, b := w.Bodies[wl].Pos, w.Bodies[wr].Pos
		return (a.X() + b.X()) / 2, (a.Y() + b.Y()) / 2
	}
	x0, y0 := mid()
	for i := 0; i < 50; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	yaw = w.Bodies[base].AngVel.Z()
	want := -2 * omega * burgerR / burgerTrack // left forward, right back: clockwise
	x1, y1 := mid()
	moved := math.Hypot(x1-x0, y1-y0)
	lo, hi := -2*omega*burgerR/(burgerTrack-burgerWidth), -2*omega*burgerR/(burgerTrack+burgerWidth)
	t.Logf("turning: yaw rate %.6g rad/s, 2ωr/track = %.6g (%+.3g %%), edge-rolling range [%.6g, %.6g]; axle midpoint moved %.3g m", yaw, want, 100*(yaw/want-1), lo, hi, moved)
	if math.Abs(yaw-want) > 0.13*math.Abs(want) || moved > 0.01 {
		t.Errorf("opposite wheel speeds: yaw rate %v rad/s, want %v to 13 %%; the axle midpoint moved %.3g m (want < 1 cm)", yaw, want, moved)
	}
}

// TestURDFWheelInsideStaticFloor: ROBOTIS's file turns its wheel frames by
// rpy −1.57 rather than −π/2, so its 18 mm wide wheels lean by 0.8 mrad
// and one edge reaches 7 µm into the floor. With FixedBase the base is
// static, so the wheels are held by hinges to a static body while a static
// floor pushes them up: the step's rigid rows are inconsistent (the hinge
// fixes the wheel's height, the contact asks it up by −φ/h). Step 1
// stopped with "semidefinite free block: the equations are inconsistent"
// (lcp.ErrSingular); now a conflict of at most ProjectAbove (1 mm) per
// step is the step's answer: Status Failed (the MLCP has no solution),
// Stats.Conflict naming the rows, and the wheels stay within 0.1 mm of
// their axle. The answer meets the floor partway (the hinges stretch,
// lifting each wheel 2.9 µm in 1 s): the energy it adds is at most the
// wheels' weight lifted by the overlap, 2 m_w g d = 4.2e-6 J for
// d = (b/2) sin(π/2 − 1.57) = 7.2 µm (measured 1.7e-6 J = 2 m_w g · 2.9 µm).
func TestURDFWheelInsideStaticFloor(t *testing.T) {
	w, _ := burgerWorld(t, burgerFile(t, true), ImportOptions{Ground: true, FixedBase: true})
	_, wl, _ := w.Body("wheel_left_link")
	start := w.Bodies[wl].Pos
	conflicts, added := 0, 0.0
	for i := 1; i <= 100; i++ {
		st, err := w.Step()
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		added += math.Max(st.EnergyAdded, 0)
		if st.Conflict.Rows > 0 {
			conflicts++
			if st.Status == lcp.Converged {
				t.Errorf("step %d: Status Converged with a conflict (%v)", i, st.Conflict)
			}
			if st.Conflict.Length > stepper.DefaultProjectAbove {
				t.Errorf("step %d: conflict %v above ProjectAbove", i, st.Conflict)
			}
		}
		if i == 1 {
			t.Logf("step 1: %v: %v", st.Status, st.Conflict)
			if st.Conflict.Rows == 0 {
				t.Errorf("step 1: no conflict reported (status %v)", st.Status)
			}
		}
	}
	moved := w.Bodies[wl].Pos.Sub(start).Len()
	t.Logf("%d steps with a conflict; energy added %.3g J; the left wheel moved %.3g m", conflicts, added, moved)
	d := burgerWidth / 2 * math.Sin(math.Pi/2-1.57)
	lift := 2 * 0.03 * -w.Settings.Gravity.Z() * d
	if moved > 1e-4 || added > lift {
		t.Errorf("the wheel moved %.3g m off its axle (want < 0.1 mm), energy added %.3g J (want ≤ 2 m_w g d = %.3g J)", moved, added, lift)
	}
}

// TestURDFMasslessRoot: which massless roots are static. A root that hangs
// mass on fixed joints, directly or through a massless link, is a frame of
// that body, which is free (its shapes go there: the body has 2); with
// FixedBase it is static, unwarned; a root whose mass all hangs on a
// moving joint, also through a massless fixed link, stays static and is
// warned.
func TestURDFMasslessRoot(t *testing.T) {
	const inertial = `<inertial><mass value="2"/><inertia ixx="0.1" iyy="0.1" izz="0.1"/></inertial>`
	const box = `<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision>`
	const direct = `<link name="foot">` + box + `</link>
		<joint name="j0" type="fixed"><parent link="foot"/><child link="base"/><origin xyz="0 0 0.2"/></joint>
		<link name="base">` + inertial + box + `</link>`
	for _, c := range []struct {
		name, body string
		fixedBase  bool
		static     bool // the root and the base are static
		warned     bool
	}{
		{"fixed child with mass", direct, false, false, false},
		{"through a massless link", `<link name="foot">` + box + `</link>
			<joint name="j0" type="fixed"><parent link="foot"/><child link="mid"/><origin xyz="0 0 0.1"/></joint>
			<link name="mid"/>
			<joint name="j1" type="fixed"><parent link="mid"/><child link="base"/><origin xyz="0 0 0.1"/></joint>
			<link name="base">` + inertial + box + `</link>`, false, false, false},
		{"FixedBase", direct, true, true, false},
		{"arm on a massless mount", `<link name="foot">` + box + `</link>
			<joint name="j0" type="revolute"><parent link="foot"/><child link="base"/><origin xyz="0 0 0.2"/><limit lower="-1" upper="1"/></joint>
			<link name="base">` + inertial + box + `</link>`, false, true, true},
		{"moving joint below a massless fixed link", `<link name="foot">` + box + `</link>
			<joint name="j0" type="fixed"><parent link="foot"/><child link="mid"/><origin xyz="0 0 0.1"/></joint>
			<link name="mid"/>
			<joint name="j1" type="continuous"><parent link="mid"/><child link="base"/><origin xyz="0 0 0.1"/></joint>
			<link name="base">` + inertial + box + `</link>`, false, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, ws, err := ParseURDF(strings.NewReader(`<robot name="r">`+c.body+`</robot>`), "r.urdf", ImportOptions{FixedBase: c.fixedBase})
			if err != nil {
				t.Fatal(err)
			}
			if warned := strings.Contains(warningText(ws), `root link "foot" has no mass: it is made static`); warned != c.warned {
				t.Errorf("warned %v, want %v: %s", warned, c.warned, warningText(ws))
			}
			static := movingMass(s) == 0
			if c.static && c.warned {
				static = s.Bodies[0].Name == "foot" && s.Bodies[0].Static // the arm moves on its joint
			}
			if static != c.static {
				t.Errorf("bodies %+v: static %v, want %v", s.Bodies, static, c.static)
			}
			if !c.static {
				if len(s.Bodies) != 1 || s.Bodies[0].Name != "base" || len(s.Bodies[0].Shapes) != 2 || len(s.Joints) != 0 {
					t.Fatalf("want one free body base carrying foot's box and its own, no joint; got %+v, joints %+v", s.Bodies, s.Joints)
				}
				// foot's box, at the root frame, lies 0.2 m below base's.
				sh := s.Bodies[0].Shapes
				if d := sh[1].Pos.Sub(sh[0].Pos); math.Abs(d.Z()-0.2) > 1e-15 && math.Abs(d.Z()+0.2) > 1e-15 {
					t.Errorf("shapes at %v and %v, want 0.2 m apart in z", sh[0].Pos, sh[1].Pos)
				}
			}
			buildWorld(t, s)
		})
	}
}

// TestURDFConflictAboveProjectAbove: the static-base wheel conflict of
// TestURDFWheelInsideStaticFloor (4.6e-5 m on step 1) is Step's error when
// ProjectAbove is below it (1e-5 m), and the error names the rows.
func TestURDFConflictAboveProjectAbove(t *testing.T) {
	w, _ := burgerWorld(t, burgerFile(t, true), ImportOptions{Ground: true, FixedBase: true})
	w.Settings.ProjectAbove = 1e-5
	_, err := w.Step()
	if err == nil || !errors.Is(err, lcp.ErrSingular) || !strings.Contains(err.Error(), "rows conflict (2 joint, 4 contact)") || !strings.Contains(err.Error(), "more than ProjectAbove (1e-05)") {
		t.Errorf("err %v, want lcp.ErrSingular naming the 6 conflicting rows and ProjectAbove", err)
	}
}

// A run whose steps tolerate a conflict says so: trajectory.Run counts
// them (Report.Conflicts, the first step and its rows) and ConflictNote
// is the warning sim run prints, so a run of Failed steps does not end
// silently. The static-base burger's wheels conflict with the floor on
// every step (TestURDFWheelInsideStaticFloor).
func TestURDFConflictReported(t *testing.T) {
	w, _ := burgerWorld(t, burgerFile(t, true), ImportOptions{Ground: true, FixedBase: true})
	rep, err := trajectory.Run(context.Background(), w, trajectory.Options{Steps: 20})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Conflicts != 20 || rep.FirstConflictStep != 1 {
		t.Fatalf("Conflicts %d from step %d, want 20 from step 1", rep.Conflicts, rep.FirstConflictStep)
	}
	note := rep.ConflictNote()
	t.Log(note)
	if !strings.Contains(note, "at 20 steps") || !strings.Contains(note, rep.FirstConflict) || rep.FirstConflict == "" {
		t.Errorf("ConflictNote %q does not name the count and the first conflict %q", note, rep.FirstConflict)
	}
}
