package scenes

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/constraint"
)

// TestImportStartOutsideRange: a joint whose start pose lies outside its
// range (mujoco_menagerie's Go1 knees at qpos 0, range [−2.82, −0.888])
// is warned once per joint, naming the joint, its start coordinate and
// the range; a keyframe inside the range is not.
func TestImportStartOutsideRange(t *testing.T) {
	const mjcf = `<mujoco><compiler angle="radian"/><worldbody>
<body name="a"><joint name="knee" range="-2.82 -0.888"/><geom size="0.1"/>
<body name="b" pos="1 0 0"><joint name="slider" type="slide" range="0.1 0.2"/><geom size="0.1"/></body></body></worldbody>
<keyframe><key name="in" qpos="-1.5 0.15"/></keyframe></mujoco>`
	_, ws, err := ParseMJCF(strings.NewReader(mjcf), "go1.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range ws {
		if strings.Contains(w.Msg, "outside its range") {
			got = append(got, w.String())
		}
	}
	want := []string{
		`go1.xml:2: <joint>: joint "knee" starts at 0 rad, outside its range [-2.82, -0.888] rad`,
		`go1.xml:3: <joint>: joint "slider" starts at 0 m, outside its range [0.1, 0.2] m`,
	}
	if len(got) != len(want) {
		t.Fatalf("warnings %q, want two starting %q", got, want)
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("warning %q, want it to start %q", got[i], want[i])
		}
	}
	_, ws, err = ParseMJCF(strings.NewReader(mjcf), "go1.xml", ImportOptions{Keyframe: "in"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if strings.Contains(w.Msg, "outside its range") {
			t.Errorf("keyframe inside the ranges: warning %q", w)
		}
	}

	const urdf = `<robot name="r"><link name="world"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j" type="revolute"><parent link="world"/><child link="b"/><axis xyz="0 0 1"/><limit lower="0.5" upper="1" effort="1" velocity="1"/></joint></robot>`
	_, ws, err = ParseURDF(strings.NewReader(urdf), "r.urdf", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range ws {
		found = found || strings.HasPrefix(w.String(), `r.urdf:2: <limit>: joint "j" starts at 0 rad, outside its range [0.5, 1] rad`)
	}
	if !found {
		t.Errorf("URDF zero pose outside [0.5, 1]: warnings %v", ws)
	}
}

// TestSceneFileHingeReference: a scene file's hinge "reference" builds a
// continuous-angle hinge whose limits may lie past ±π, survives Marshal
// and ReadSpec, and is refused on a prismatic joint and without it for
// such limits.
func TestSceneFileHingeReference(t *testing.T) {
	const doc = `{"version": 1, "settings": {"h": 0.01}, "bodies": [{"name": "a", "mass": 1, "position": [1, 0, 0], "shapes": [{"type": "sphere", "radius": 0.1}]}],
"joints": [{"type": "TYPE", "name": "j", "body_a": "a", "body_b": "world", "pivot": [0, 0, 0], "axis": [0, 0, 1]REF, "limits": {"lower": -0.4, "upper": 5.4}}]}`
	read := func(typ, ref string) (*SceneSpec, error) {
		return ReadSpec(strings.NewReader(strings.NewReplacer("TYPE", typ, "REF", ref).Replace(doc)), "f.json")
	}
	s, err := read("hinge", `, "reference": 2.5`)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.Marshal(&buf); err != nil {
		t.Fatal(err)
	}
	s2, err := ReadSpec(&buf, "again.json")
	if err != nil {
		t.Fatal(err)
	}
	if r := s2.Joints[0].Reference; r == nil || *r != 2.5 {
		t.Errorf("reference after Marshal and ReadSpec: %v, want 2.5", r)
	}
	w, err := s2.World()
	if err != nil {
		t.Fatal(err)
	}
	hg := w.Joints[0].(*constraint.Hinge)
	if th, err := hg.Angle(&constraint.Context{Bodies: w.Bodies, H: 0.01}); err != nil || th != 2.5 {
		t.Errorf("angle at the initial pose %v (%v), want the reference 2.5", th, err)
	}
	if _, err := read("hinge", ""); err == nil || !strings.Contains(err.Error(), "joints[0].limits") || !strings.Contains(err.Error(), "reference") {
		t.Errorf("limits past π without a reference: error %v, want one naming joints[0].limits and reference", err)
	}
	if _, err := read("prismatic", `, "reference": 2.5`); err == nil || !strings.Contains(err.Error(), "joints[0].reference") {
		t.Errorf("reference on a prismatic joint: error %v, want one naming joints[0].reference", err)
	}
}

// TestMJCFIncludeFanOut: files that each include the next ten times
// expand exponentially within the include depth of 8 (here 10⁶ copies
// of the last file over six levels, minutes of work and a tree of
// millions of elements before the bound); the import stops after
// maxIncludes expansions with an error naming the <include>.
func TestMJCFIncludeFanOut(t *testing.T) {
	dir := t.TempDir()
	const levels = 6
	for k := 0; k < levels; k++ {
		body := `<worldbody><geom size="0.1"/></worldbody>`
		if k < levels-1 {
			body = strings.Repeat(fmt.Sprintf(`<include file="f%d.xml"/>`, k+1), 10)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.xml", k)), []byte("<mujoco>"+body+"</mujoco>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := LoadMJCF(filepath.Join(dir, "f0.xml"), ImportOptions{})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 <include> elements expanded") || !strings.Contains(err.Error(), "<include>") {
		t.Errorf("error %v, want one naming the <include> past 1000 expansions", err)
	}
}
