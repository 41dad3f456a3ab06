package scenes

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// TestStartDepthMatchesContactGap: startDepth's closed forms (the lowest
// point of a sphere, a tilted capsule, a turned box and a tilted cylinder
// below a plane) against the stepper's own narrow phase: each shape placed
// 4 mm deep by startDepth, the first step's contacts report the deepest
// gap −4 mm. Tolerance 1e-9 m: both are closed forms in float64 on a
// 0.5 m scene (the cylinder's rim point and the box's corner computed
// along different paths).
func TestStartDepthMatchesContactGap(t *testing.T) {
	tilt := mgl64.QuatRotate(0.5, mgl64.Vec3{1, 0, 0})
	turn := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	cases := []struct {
		name string
		sh   ShapeSpec
		rot  mgl64.Quat
	}{
		{"sphere", ShapeSpec{Type: contact.Sphere, Radius: 0.1}, mgl64.QuatIdent()},
		{"capsule", ShapeSpec{Type: contact.Capsule, Radius: 0.05, Length: 0.3}, tilt},
		{"box", ShapeSpec{Type: contact.Box, Size: mgl64.Vec3{0.2, 0.3, 0.4}}, turn},
		{"cylinder", ShapeSpec{Type: contact.Cylinder, Radius: 0.1, Length: 0.2}, turn},
		{"offset sphere", ShapeSpec{Type: contact.Sphere, Radius: 0.05, Pos: mgl64.Vec3{0, 0.1, -0.2}}, tilt},
	}
	up := mgl64.Vec3{0, 0, 1}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const want = 0.004
			// The shape's reach below its body's origin, then the body
			// raised so that it reaches 4 mm below the plane z = 0.
			reach := startDepth(&c.sh, mgl64.Vec3{}, c.rot, mgl64.Vec3{}, up)
			pos := mgl64.Vec3{0, 0, reach - want}
			if got := startDepth(&c.sh, pos, c.rot, mgl64.Vec3{}, up); math.Abs(got-want) > 1e-12 {
				t.Fatalf("startDepth %v m after the raise, want %v", got, want)
			}
			s := &SceneSpec{
				Settings:    SettingsSpec{H: 1e-3},
				WorldShapes: []ShapeSpec{{Type: contact.Plane}},
				Bodies:      []BodySpec{{Name: "b", Mass: 1, Inertia: &mgl64.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}, Pos: pos, Rot: c.rot, Shapes: []ShapeSpec{c.sh}}},
			}
			w, err := s.World()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
			deepest := 0.0
			for _, ci := range w.Contacts(nil) {
				deepest = math.Max(deepest, -ci.Gap)
			}
			if math.Abs(deepest-want) > 1e-9 {
				t.Errorf("the step's deepest contact is %.12g m deep, startDepth says %v", deepest, want)
			}
		})
	}
}

// TestImportStartInsideFloor: a keyframe that puts a foot (a 23 mm sphere,
// the Go1's) 17.8 mm into the floor, as mujoco_menagerie's Go1 "home" key
// does (trunk at 0.27 m, feet centres at 5.2 mm), is warned once with the
// depth; a key 0.5 mm deep (under stepper.DefaultProjectAbove, a resting
// contact's depth) and a foot that does not collide with the floor
// (contype and conaffinity 0) are not. The warned start's first step adds
// energy the model did not have: the contact and the projection lift the
// foot onto the floor, m g d = 8.90 mJ for its 51 g, plus the speed the
// push leaves (1.0 % of it at DefaultSettings; 2 % allowed).
func TestImportStartInsideFloor(t *testing.T) {
	model := func(contype string) string {
		return `<mujoco><worldbody><geom name="floor" type="plane" size="0 0 0.05"/>
<body name="foot" pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.023" contype="` + contype + `" conaffinity="` + contype + `"/></body></worldbody>
<keyframe><key name="deep" qpos="0 0 0.0052 1 0 0 0"/><key name="shallow" qpos="0 0 0.0225 1 0 0 0"/></keyframe></mujoco>`
	}
	inside := func(ws []Warning) []string {
		var got []string
		for _, w := range ws {
			if strings.Contains(w.Msg, "inside a world plane") {
				got = append(got, w.String())
			}
		}
		return got
	}
	for _, c := range []struct {
		key, contype string
		warn         bool
	}{{"deep", "1", true}, {"shallow", "1", false}, {"deep", "0", false}} {
		s, ws, err := ParseMJCF(strings.NewReader(model(c.contype)), "go1.xml", ImportOptions{Keyframe: c.key})
		if err != nil {
			t.Fatal(err)
		}
		got := inside(ws)
		if !c.warn {
			if len(got) != 0 {
				t.Errorf("key %s, contype %s: warned %q", c.key, c.contype, got)
			}
			continue
		}
		want := `go1.xml:3: <key>: body "foot"'s sphere (shape 0) starts 17.8 mm inside a world plane (1 shape(s) more than 1 mm deep)`
		if len(got) != 1 || !strings.HasPrefix(got[0], want) {
			t.Fatalf("key %s: warnings %q, want one starting %q", c.key, got, want)
		}
		w, err := s.World()
		if err != nil {
			t.Fatal(err)
		}
		w.Settings = stepper.DefaultSettings()
		st, err := w.Step()
		if err != nil {
			t.Fatal(err)
		}
		lift := w.Bodies[0].Mass * 9.81 * (0.023 - 0.0052)
		if !(st.EnergyAdded >= lift && st.EnergyAdded <= 1.02*lift) {
			t.Errorf("key %s: step 1 added %.6g J, want the lift to the floor m g d = %.6g J (+ ≤ 2 %%)", c.key, st.EnergyAdded, lift)
		}
	}
}
