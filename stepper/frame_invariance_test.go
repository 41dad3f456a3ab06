package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frameScene is a contact scene built turned by rot (every pose, normal
// and force of the unturned scene turned by it, gravity too), and the
// horizontal force (scene frame, N) it pushes each followed body with
// before step i.
type frameScene struct {
	name  string
	build invScene
	push  func(i, k int) mgl64.Vec3
	f     float64 // the push in μ m g
	steps int
}

// frameRun steps sc built turned by rot (a DefaultSettings world with
// gravity rot·StandardGravity) and returns every followed body's state
// after each step, turned back by rot⁻¹ (invState).
func frameRun(t testing.TB, sc frameScene, rot mgl64.Quat) [][]invState {
	t.Helper()
	s := stepper.DefaultSettings()
	s.Gravity = rot.Rotate(stepper.StandardGravity)
	w, err := stepper.New(s)
	require.NoError(t, err)
	bodies := sc.build(t, w, rot)
	back := rot.Conjugate()
	out := make([][]invState, sc.steps)
	for i := range sc.steps {
		if sc.push != nil {
			for k, b := range bodies {
				b.Force = rot.Rotate(sc.push(i, k))
			}
		}
		_, err := w.Step()
		require.NoError(t, err)
		out[i] = make([]invState, len(bodies))
		for k, b := range bodies {
			out[i][k] = invState{back.Rotate(b.Pos), back.Rotate(b.Vel), back.Rotate(b.AngVel), back.Mul(b.Rot)}
		}
	}
	return out
}

// frameWall adds a fixed plane through rot·p whose normal is rot·n.
func frameWall(t testing.TB, w *stepper.World, rot mgl64.Quat, p, n mgl64.Vec3, mu float64) {
	t.Helper()
	_, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(),
		Local:    contact.Pose{Pos: rot.Rotate(p), Rot: rot.Mul(mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, n))},
		Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
}

// Frame-test scenes: μ 0.5, 1 kg boxes of 0.2 m unless said otherwise.
const (
	frMu = 0.5
	frS  = 0.2
)

// framePushedBox is one box resting on the floor (yawed 0 in the scene),
// pushed from step 10 on by a horizontal force f·μ m g at 45° to its faces.
func framePushedBox(f float64) frameScene {
	return frameScene{
		name: "box pushed",
		build: func(t testing.TB, w *stepper.World, rot mgl64.Quat) []*body.Body {
			ground(t, w, rot, frMu)
			return []*body.Body{addBox(t, w, 1, mgl64.Vec3{frS, frS, frS}, rot.Rotate(mgl64.Vec3{0, 0, frS / 2}), rot, frMu)}
		},
		push: func(i, _ int) mgl64.Vec3 {
			if i < 10 {
				return mgl64.Vec3{}
			}
			return evDir(45).Mul(f * frMu * evG)
		},
		f:     f,
		steps: 70,
	}
}

// frameLeaningPlank is a plank (1 kg, 0.05 × 0.3 × 1 m) leaning 20° from
// the vertical against a wall, its lower edge on the floor, at rest.
func frameLeaningPlank() frameScene {
	return frameScene{
		name: "leaning plank",
		build: func(t testing.TB, w *stepper.World, rot mgl64.Quat) []*body.Body {
			const th, tk, wd, l = 20 * math.Pi / 180, 0.05, 0.3, 1.0
			ground(t, w, rot, frMu)
			zc := tk/2*math.Sin(th) + l/2*math.Cos(th) // lowest corner on the floor
			xw := tk/2*math.Cos(th) + l/2*math.Sin(th) // farthest corner on the wall
			frameWall(t, w, rot, mgl64.Vec3{xw, 0, 0}, mgl64.Vec3{-1, 0, 0}, frMu)
			tilt := mgl64.QuatRotate(th, mgl64.Vec3{0, 1, 0})
			return []*body.Body{addBox(t, w, 1, mgl64.Vec3{tk, wd, l}, rot.Rotate(mgl64.Vec3{0, 0, zc}), rot.Mul(tilt), frMu)}
		},
		steps: 90,
	}
}

// framePile is a pyramid of six boxes (rows of 3, 2, 1, each box yawed a
// few degrees, 1 mm apart) dropped onto the floor, settling.
func framePile() frameScene {
	return frameScene{
		name: "pile of six",
		build: func(t testing.TB, w *stepper.World, rot mgl64.Quat) []*body.Body {
			ground(t, w, rot, frMu)
			var bs []*body.Body
			yaw := []float64{3, -5, 7, -2, 4, -6}
			k := 0
			for row := range 3 {
				for j := range 3 - row {
					x := (float64(j) - float64(2-row)/2) * (frS + 0.01)
					z := frS/2 + 0.001 + float64(row)*(frS+0.001)
					q := mgl64.QuatRotate(yaw[k]*math.Pi/180, mgl64.Vec3{0, 0, 1})
					bs = append(bs, addBox(t, w, 1, mgl64.Vec3{frS, frS, frS}, rot.Rotate(mgl64.Vec3{x, 0.01 * float64(k%2), z}), rot.Mul(q), frMu))
					k++
				}
			}
			return bs
		},
		steps: 90,
	}
}

// frameRound is a cylinder standing on its cap, a cylinder and a capsule
// lying on their sides (r 0.05 m, 0.3 m, 1 kg) and a ball (r 0.05 m,
// 1 kg; one point: any frame fixed in it turns with it), apart on the
// floor, at rest and then pushed from step 10 on by f·μ m g at 30° to the
// lying bodies' axes.
func frameRound(f float64) frameScene {
	return frameScene{
		name: "cylinders, capsule and ball",
		build: func(t testing.TB, w *stepper.World, rot mgl64.Quat) []*body.Body {
			const m, r, l = 1.0, 0.05, 0.3
			ground(t, w, rot, frMu)
			cyl, err := contact.NewCylinderLength(r, l)
			require.NoError(t, err)
			capsule, err := contact.NewCapsuleLength(r, l)
			require.NoError(t, err)
			ball, err := contact.NewSphere(r)
			require.NoError(t, err)
			lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}) // local z along x
			return []*body.Body{
				addShapeBody(t, w, cyl, m, body.CylinderInertia(m, r, l), rot.Rotate(mgl64.Vec3{0, 0, l / 2}), rot, frMu),
				addShapeBody(t, w, cyl, m, body.CylinderInertia(m, r, l), rot.Rotate(mgl64.Vec3{0, 1, r}), rot.Mul(lying), frMu),
				addShapeBody(t, w, capsule, m, body.CapsuleInertia(m, r, l), rot.Rotate(mgl64.Vec3{0, -1, r}), rot.Mul(lying), frMu),
				addShapeBody(t, w, ball, m, body.SphereInertia(m, r), rot.Rotate(mgl64.Vec3{1, 0, r}), rot.Mul(lying), frMu),
			}
		},
		push: func(i, _ int) mgl64.Vec3 {
			if i < 10 {
				return mgl64.Vec3{}
			}
			return evDir(30).Mul(f * frMu * evG)
		},
		steps: 70,
	}
}

// frameTurns are the turns of the scene compared with the unturned one:
// headings of 30°, 45° and 90° about the vertical, and 40° about the
// tilted axis (1, 2, 3) (gravity turned with the scene).
var frameTurns = []struct {
	name string
	rot  mgl64.Quat
}{
	{"30° about z", mgl64.QuatRotate(30*math.Pi/180, mgl64.Vec3{0, 0, 1})},
	{"45° about z", mgl64.QuatRotate(45*math.Pi/180, mgl64.Vec3{0, 0, 1})},
	{"90° about z", mgl64.QuatRotate(90*math.Pi/180, mgl64.Vec3{0, 0, 1})},
	{"40° about (1,2,3)", mgl64.QuatRotate(40*math.Pi/180, mgl64.Vec3{1, 2, 3}.Normalize())},
}

// Contact friction does not depend on the world's axes: a contact scene
// built turned as a whole (every pose, wall, force and gravity) moves as
// the unturned scene turned. Scenes: a box at rest pushed at 45° to its
// faces by 0.6 and 1.3 μ m g (held, then sliding at Coulomb's
// (f − 1) μ g: 1.4715 m/s after 60 pushed steps), a plank leaning on a
// wall, a pile of six boxes settling, and cylinders, a capsule and a ball
// at rest pushed by 0.3 and 1.3 μ m g; each run unturned and at the turns of
// frameTurns, compared after every step.
//
// Measured: at most 3e-9 m, 1.7e-6 m/s or rad/s and 1.6e-8 rad apart, the
// velocities within 2.1e-9 except the standing cylinder pushed below μ m g
// (its four cap points are more rows than its freedoms: the solve ends in
// BPP's regularized mode at a residual of 1e-6·s_w, s_w = max|b| ≈ g h =
// 0.16 m/s, and it chatters by ±3e-7 m/s, ±2e-6 rad/s about rest in every
// run, which the turned runs do not share to the bit).
// Before (a new point's t₁ = Perp(n), built from the world axis least
// aligned with n), the pile's runs parted by up to 1.8e-4 m, 0.066 m/s and
// 1.1e-3 rad (at 45°; 4e-14 m at 90°, where Perp's frame turns with the
// scene but swapped): its boxes, yawed a few degrees, met friction squares
// along the world's axes rather than their edges. Tolerances 1e-7 m,
// 1e-5 m/s or rad/s, 1e-6 rad: the regularized solve's residual (1.6e-7
// m/s on a row, 3.3e-6 rad/s at the cylinder's 0.05 m radius) with a
// margin of 3, and what it moves in 70 steps of 1/60 s; the defect above
// is 600 to 6600 times larger.
func TestContactFrameInvariance(t *testing.T) {
	const tolPos, tolVel, tolRot = 1e-7, 1e-5, 1e-6
	for _, sc := range []frameScene{
		framePushedBox(0.6), framePushedBox(1.3), frameLeaningPlank(), framePile(), frameRound(0.3), frameRound(1.3),
	} {
		ref := frameRun(t, sc, mgl64.QuatIdent())
		if sc.name == "box pushed" {
			// Coulomb: held below μ m g, else sliding along the push at
			// a = (f − 1) μ g from the first pushed step (10) on.
			v := ref[len(ref)-1][0].vel
			want := math.Max(0, sc.f-1) * frMu * evG * float64(sc.steps-10) / 60
			t.Logf("box pushed by %.1f μ m g: %.9f m/s after 60 pushed steps (Coulomb %.9f)", sc.f, v.Len(), want)
			assert.InDelta(t, want, v.Dot(evDir(45)), 1e-9, "pushed box's speed along the push")
			assert.Less(t, v.Sub(evDir(45).Mul(v.Dot(evDir(45)))).Len(), 1e-9, "pushed box's speed across the push")
		}
		for _, tr := range frameTurns {
			got := frameRun(t, sc, tr.rot)
			dp, dv, dr := invDiff(ref, got)
			t.Logf("%s turned %s: %.1e m, %.1e m/s or rad/s, %.1e rad from the unturned run", sc.name, tr.name, dp, dv, dr)
			assert.Less(t, dp, tolPos, "%s turned %s: position", sc.name, tr.name)
			assert.Less(t, dv, tolVel, "%s turned %s: velocity", sc.name, tr.name)
			assert.Less(t, dr, tolRot, "%s turned %s: orientation", sc.name, tr.name)
		}
	}
}
