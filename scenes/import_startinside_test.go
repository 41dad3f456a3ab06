package scenes

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
)

// TestStartDepthMatchesContactGap: startDepth's closed forms (the lowest
// point of a sphere, a tilted capsule, a turned box and a tilted cylinder
// below a plane) and its hulls' lowest vertices (a scaled mesh file, a
// point set) against the stepper's own narrow phase: each shape placed
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
		// A mesh on a moving body collides as its hull; the file's cube
		// [0, 2]³ scaled by (0.1, 0.05, 0.2), its corner the lowest.
		{"mesh hull", ShapeSpec{Type: contact.Convex, Mesh: "../testdata/models/cube.obj", Scale: mgl64.Vec3{0.1, 0.05, 0.2}, Pos: mgl64.Vec3{0.03, 0, 0}, Rot: tilt}, turn},
		// An irregular point hull (an MJCF ellipsoid's kind of shape):
		// its centroid, not its points' origin, is the shape's origin.
		{"point hull", ShapeSpec{Type: contact.Convex, Points: []mgl64.Vec3{{0, 0, 0}, {0.3, 0, 0}, {0, 0.2, 0}, {0, 0, 0.25}, {0.1, 0.1, -0.05}}}, turn},
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
	for _, c := range []struct {
		key, contype string
		warn         bool
	}{{"deep", "1", true}, {"shallow", "1", false}, {"deep", "0", false}} {
		s, ws, err := ParseMJCF(strings.NewReader(model(c.contype)), "go1.xml", ImportOptions{Keyframe: c.key})
		if err != nil {
			t.Fatal(err)
		}
		got := startInsideWarnings(ws)
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
		st := firstDefaultStep(t, s)
		lift := s.Bodies[0].Mass * 9.81 * (0.023 - 0.0052)
		if !(st.EnergyAdded >= lift && st.EnergyAdded <= 1.02*lift) {
			t.Errorf("key %s: step 1 added %.6g J, want the lift to the floor m g d = %.6g J (+ ≤ 2 %%)", c.key, st.EnergyAdded, lift)
		}
	}
}

// TestURDFStartInsideFloor: a URDF model on the ground plane
// (ImportOptions.Ground) whose foot starts 10 mm inside the floor is
// warned once, naming the foot and the depth, for each collision element
// a foot can be (box, cylinder, sphere, mesh: the 0.1 scaled cube.obj,
// collided as its hull); at 0.5 mm it is not: that is under
// stepper.DefaultProjectAbove (1 mm), a penetration the stepper leaves at
// the end of a step without projecting it (warnStartInside). The 10 mm
// start's first step (DefaultSettings) lifts the 1 kg foot onto the
// floor, m g d = 0.0981 J the model did not have, and leaves it rising at
// the contact's correcting speed ProjectAbove/h = 0.06 m/s, ½ m v² =
// 0.0018 J more: 0.0999 J (tolerance 1e-9 relative: the step's solves
// round; the hull's, at 1e-12, the most).
func TestURDFStartInsideFloor(t *testing.T) {
	cube, err := filepath.Abs("../testdata/models/cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	// Each foot reaches 0.04 m below the origin of its <collision>.
	feet := map[string]string{
		"box":      `<box size="0.1 0.1 0.08"/>`,
		"cylinder": `<cylinder radius="0.05" length="0.08"/>`,
		"sphere":   `<sphere radius="0.04"/>`,
		"mesh":     `<mesh filename="` + cube + `" scale="0.2 0.2 0.04"/>`,
	}
	model := func(geom string, depth float64) string {
		z := 0.04 - depth
		if strings.HasPrefix(geom, "<mesh") {
			z = -depth // the cube [0, 2]³ scaled: its corner at the origin
		}
		return fmt.Sprintf(`<robot name="r">
<link name="foot"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
<collision><origin xyz="0 0 %g"/><geometry>%s</geometry></collision></link>
</robot>`, z, geom)
	}
	for kind, geom := range feet {
		for _, depth := range []float64{0.010, 0.0005} {
			s, ws, err := ParseURDF(strings.NewReader(model(geom, depth)), "r.urdf", ImportOptions{Ground: true})
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			got := startInsideWarnings(ws)
			if depth < stepper.DefaultProjectAbove {
				if len(got) != 0 {
					t.Errorf("%s %g m deep: warned %q", kind, depth, got)
				}
				continue
			}
			shape := kind
			if kind == "mesh" {
				shape = "convex"
			}
			want := `r.urdf:1: <robot>: body "foot"'s ` + shape + ` (shape 0) starts 10 mm inside a world plane (1 shape(s) more than 1 mm deep)`
			if len(got) != 1 || !strings.HasPrefix(got[0], want) {
				t.Fatalf("%s: warnings %q, want one starting %q", kind, got, want)
			}
			st := firstDefaultStep(t, s)
			v := stepper.DefaultProjectAbove / stepper.DefaultSettings().H
			gain := 1*9.81*depth + 0.5*1*v*v
			if math.Abs(st.EnergyAdded-gain) > 1e-9*gain {
				t.Errorf("%s: step 1 added %.6g J, want the lift to the floor m g d plus ½ m (ProjectAbove/h)² = %.6g J", kind, st.EnergyAdded, gain)
			}
		}
	}
}

// startInsideWarnings returns the start-inside-a-plane warnings of ws.
func startInsideWarnings(ws []Warning) []string {
	var got []string
	for _, w := range ws {
		if strings.Contains(w.Msg, "inside a world plane") {
			got = append(got, w.String())
		}
	}
	return got
}

// firstDefaultStep builds s, steps it once with DefaultSettings and
// returns the step's statistics.
func firstDefaultStep(t *testing.T, s *SceneSpec) stepper.Stats {
	t.Helper()
	w := buildWorld(t, s)
	w.Settings = stepper.DefaultSettings()
	st, err := w.Step()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestMJCFMeshStartInsideFloor: an MJCF mesh geom on a moving body
// (cube.obj scaled by 0.1, collided as its hull, the cube [0, 0.2]³ in the
// body's frame) whose body starts 12 mm below the floor is warned with
// the hull's depth, as a URDF mesh is; raised to 0.5 mm below, it is not.
func TestMJCFMeshStartInsideFloor(t *testing.T) {
	cube, err := filepath.Abs(modelDir + "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		z    string
		warn bool
	}{{"-0.012", true}, {"-0.0005", false}} {
		doc := `<mujoco><asset><mesh name="cube" file="` + cube + `" scale="0.1 0.1 0.1"/></asset><worldbody>
<geom type="plane" size="1 1 0.1"/>
<body name="m" pos="0 0 ` + c.z + `"><freejoint/><geom type="mesh" mesh="cube"/></body></worldbody></mujoco>`
		_, ws, err := ParseMJCF(strings.NewReader(doc), "m.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := startInsideWarnings(ws)
		want := `m.xml:1: <mujoco>: body "m"'s convex (shape 0) starts 12 mm inside a world plane (1 shape(s) more than 1 mm deep)`
		if c.warn && (len(got) != 1 || !strings.HasPrefix(got[0], want)) {
			t.Errorf("z %s: warnings %q, want one starting %q", c.z, got, want)
		}
		if !c.warn && len(got) != 0 {
			t.Errorf("z %s: warned %q", c.z, got)
		}
	}
}
