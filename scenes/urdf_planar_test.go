package scenes

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestURDFPlanar: a box link on a planar joint with axis x (the plane y–z)
// under gravity (3, 2, −9.81) m/s² (the x part pressing the chain against
// its held axis, which before the integrate stage respected held axes
// turned the spin off x by 0.08 rad/s in 1 s), imported with SplitJoints = 1e-6,
// keeps to the plane and turns only about x. Spinning at 1 rad/s about x
// it keeps that rate to 1e-9 over 1 s (100 steps; x is a principal axis
// through the centre of mass: no torque); started at 1 m/s along x and
// 0.5 rad/s about y, the first step removes both. Either way x moves by
// less than 1e-9 m and the box moves in the plane as a free body:
// v = g t in the plane to 1e-9 relative (every body of the chain falls
// alike in y and z, so only the rows holding x carry force).
func TestURDFPlanar(t *testing.T) {
	doc := `<robot name="p"><link name="world"/>
<link name="box"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.03" izz="0.04"/></inertial>
<collision><geometry><box size="0.2 0.3 0.4"/></geometry></collision></link>
<joint name="pl" type="planar"><parent link="world"/><child link="box"/><origin xyz="0.5 0 1"/><axis xyz="1 0 0"/></joint>
</robot>`
	s, ws, err := ParseURDF(strings.NewReader(doc), "p.urdf", ImportOptions{SplitJoints: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !strings.Contains(ws[0].Msg, "two sliders and a hinge") {
		t.Errorf("warnings %v", ws)
	}
	if len(s.Bodies) != 3 || len(s.Joints) != 3 || s.Joints[2].Type != JointHinge || s.Joints[2].A != "box" {
		t.Fatalf("bodies %d joints %+v", len(s.Bodies), s.Joints)
	}
	s.Settings.Gravity = mgl64.Vec3{3, 2, -9.81}
	const tEnd = 1.0
	for _, start := range []struct{ v, w mgl64.Vec3 }{{w: mgl64.Vec3{1, 0, 0}}, {v: mgl64.Vec3{1, 0, 0}, w: mgl64.Vec3{0, 0.5, 0}}} {
		w := buildWorld(t, s)
		box := w.Bodies[0]
		box.Vel, box.AngVel = start.v, start.w
		for n := 0; n < 100; n++ {
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if d := math.Abs(box.Pos[0] - 0.5); d > 1e-9 {
			t.Errorf("start %+v: x moved by %.3g m", start, d)
		}
		if box.AngVel.Sub(mgl64.Vec3{start.w[0], 0, 0}).Len() > 1e-9 {
			t.Errorf("start %+v: angular velocity %v, want (%v, 0, 0)", start, box.AngVel, start.w[0])
		}
		if math.Abs(box.Vel[1]-2*tEnd) > 1e-9*2 || math.Abs(box.Vel[2]+9.81*tEnd) > 1e-9*9.81 || math.Abs(box.Vel[0]) > 1e-9 {
			t.Errorf("start %+v: velocity %v, want (0, 2, −9.81) m/s", start, box.Vel)
		}
	}
	// Without SplitJoints the link is left free, as before.
	s, ws, err = ParseURDF(strings.NewReader(doc), "p.urdf", ImportOptions{})
	if err != nil || len(s.Joints) != 0 || len(ws) != 1 {
		t.Errorf("without SplitJoints: %v, %d joints, warnings %v", err, len(s.Joints), ws)
	}
}
