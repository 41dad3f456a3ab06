package stepper_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// ragdoll is a 70 kg figure of six bodies on ball joints, as a modelling
// tool draws it: a vertical capsule torso (37 kg, r = 0.15 m, straight
// part 0.4 m), a sphere head (5 kg, r = 0.11 m), two horizontal capsule
// arms (4 kg, r = 0.05 m, straight 0.5 m) and two vertical capsule legs
// (10 kg, r = 0.07 m, straight 0.6 m), every limb and the head reaching
// 5 cm into the torso at its joint.
type ragdoll struct {
	ids    []int // torso, head, arm ×2, leg ×2
	joints []*constraint.Ball
	first  int // index of the first joint in World.Joints
}

// addRagdoll adds the ragdoll with its torso centre at c and every body
// moving at v, its shapes with friction mu.
func addRagdoll(t *testing.T, w *stepper.World, c, v mgl64.Vec3, mu float64) *ragdoll {
	t.Helper()
	rd := &ragdoll{first: len(w.Joints)}
	const overlap = 0.05
	add := func(name string, m float64, inertia mgl64.Mat3, pos mgl64.Vec3, rot mgl64.Quat, s contact.Shape) int {
		b, err := body.New(body.Params{Name: name, Mass: m, Inertia: inertia, Pos: pos, Rot: rot, Vel: v})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Material: stepper.Material{Friction: mu}})
		require.NoError(t, err)
		rd.ids = append(rd.ids, id)
		return id
	}
	capsule := func(r, half float64) contact.Shape {
		s, err := contact.NewCapsuleLength(r, 2*half)
		require.NoError(t, err)
		return s
	}
	ball := func(a, b int, pivot mgl64.Vec3) {
		j, err := constraint.NewBall(w.Bodies, a, b, pivot)
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
		rd.joints = append(rd.joints, j)
	}
	const rt, ht = 0.15, 0.2 // torso radius and half straight length
	torso := add("torso", 37, body.CapsuleInertia(37, rt, 2*ht), c, mgl64.QuatIdent(), capsule(rt, ht))
	// Head: its bottom 5 cm below the top of the torso.
	const rh = 0.11
	sphere, err := contact.NewSphere(rh)
	require.NoError(t, err)
	top := c.Add(mgl64.Vec3{0, 0, ht + rt})
	head := add("head", 5, body.SphereInertia(5, rh), top.Add(mgl64.Vec3{0, 0, rh - overlap}), mgl64.QuatIdent(), sphere)
	ball(torso, head, top)
	// Arms along ±y at shoulder height, inner tips 5 cm inside the torso's
	// surface; the pivot is on the surface.
	const ra, ha = 0.05, 0.25
	for _, s := range []float64{1, -1} {
		shoulder := c.Add(mgl64.Vec3{0, s * rt, ht - 0.05})
		rot := mgl64.QuatRotate(-s*math.Pi/2, mgl64.Vec3{1, 0, 0}) // local z onto ±y
		centre := mgl64.Vec3{c[0], c[1] + s*(rt-overlap+ra+ha), shoulder[2]}
		arm := add("arm", 4, body.CapsuleInertia(4, ra, 2*ha), centre, rot, capsule(ra, ha))
		ball(torso, arm, shoulder)
	}
	// Legs at y = ±0.08 under the torso, top tips 5 cm inside its bottom
	// cap; the pivot at the centre of the leg's top cap.
	const rl, hl, yl = 0.07, 0.3, 0.08
	for _, s := range []float64{1, -1} {
		surface := c[2] - ht - math.Sqrt(rt*rt-yl*yl) // torso bottom at y = ±yl
		tip := surface + overlap
		pivot := mgl64.Vec3{c[0], c[1] + s*yl, tip - rl}
		leg := add("leg", 10, body.CapsuleInertia(10, rl, 2*hl), pivot.Sub(mgl64.Vec3{0, 0, hl}), mgl64.QuatIdent(), capsule(rl, hl))
		ball(torso, leg, pivot)
	}
	return rd
}

// gap returns the largest ball-joint gap |φ| (m) of the ragdoll.
func (rd *ragdoll) gap(t *testing.T, w *stepper.World) float64 {
	ctx := constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	g := 0.0
	for _, j := range rd.joints {
		var phi [3]float64
		require.NoError(t, j.Violation(&ctx, phi[:]))
		g = math.Max(g, math.Sqrt(phi[0]*phi[0]+phi[1]*phi[1]+phi[2]*phi[2]))
	}
	return g
}

// stairs adds a ground plane and five static box steps descending along
// +x (0.3 m tread, 0.18 m rise), the top one a 1.3 m landing whose edge is
// at x = 0.3 m and top at z = 0.9 m.
func stairs(t *testing.T, w *stepper.World, mu float64) {
	t.Helper()
	ground(t, w, mgl64.QuatIdent(), mu)
	const tread, rise = 0.3, 0.18
	for i := 0; i < 5; i++ {
		x0, x1 := float64(i)*tread, float64(i+1)*tread
		if i == 0 {
			x0 = -1
		}
		top := float64(5-i) * rise
		b, err := body.New(body.Params{Name: "step", Static: true, Pos: mgl64.Vec3{(x0 + x1) / 2, 0, top / 2}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		s, err := contact.NewBoxSize(mgl64.Vec3{x1 - x0, 2, top})
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Material: stepper.Material{Friction: mu}})
		require.NoError(t, err)
	}
}

// throw is what throwRagdoll measured over the run.
type throw struct {
	e0     float64 // the start's mechanical energy (J)
	ratio  float64 // largest mechanical energy (kinetic + potential) over the start's
	maxGap float64 // largest ball-joint gap (m)
	added  float64 // largest Stats.EnergyAdded of a step over the start's mechanical energy
	err    error   // the first error of a step
	torso  *body.Body
}

// throwRagdoll runs the ragdoll, standing on the landing 0.2 m from its
// edge and thrown at 2 m/s along +x, down the stairs for 3 s at step h
// under the default settings (friction 0.5 everywhere).
func throwRagdoll(t *testing.T, h float64) (*stepper.World, throw) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	stairs(t, w, 0.5)
	// Leg bottoms 2 cm above the landing (z = 0.9 m): the torso centre is
	// 1.017 m above them.
	rd := addRagdoll(t, w, mgl64.Vec3{0.1, 0, 0.92 + 1.017}, mgl64.Vec3{2, 0, 0}, 0.5)
	k0, u0 := w.Energy()
	e0 := k0 + u0 // 1 375 J, 140 J of it kinetic
	out := throw{e0: e0, torso: w.Bodies[rd.ids[0]]}
	for i := 0; i < int(math.Round(3/h)); i++ {
		st, err := w.Step()
		if err != nil && out.err == nil {
			out.err = err
		}
		out.ratio = math.Max(out.ratio, (st.Kinetic+st.Potential)/e0)
		out.added = math.Max(out.added, st.EnergyAdded/e0)
		out.maxGap = math.Max(out.maxGap, rd.gap(t, w))
	}
	return w, out
}

// The ragdoll, thrown down five stairs: with joined bodies not
// colliding (the default), the limbs' 5 cm overlaps with the torso never
// become contacts. Before collision filtering the first step failed with
// the solver's "semidefinite free block" and, integrated anyway, took the
// mechanical energy to 4.9·10⁸ (h = 1/60 s) and 9.3·10⁷ (h = 5 ms) times
// its start, the joints 2 km and 437 m apart. Now over 3 s, at both steps:
// the mechanical energy never rises above its start by more than 1 % (it
// stays at or below it: measured ratio 1.000), no step adds more than 1 %
// of it (measured ≤ 0.03 %), and the ball joints stay within 1 cm
// (measured 1.36 mm: the projection leaves each component within
// ProjectAbove = 1 mm, √3 mm for the gap's length).
func TestRagdollDownStairs(t *testing.T) {
	for _, h := range []float64{1.0 / 60, 0.005} {
		_, r := throwRagdoll(t, h)
		end := r.torso.Pos
		t.Logf("h = %.4f s: E₀ = %.0f J, max E/E₀ − 1 = %+.2e, max joint gap %.3g m, max EnergyAdded/E₀ %.3g, torso ends at %.3v",
			h, r.e0, r.ratio-1, r.maxGap, r.added, end)
		require.NoError(t, r.err)
		require.LessOrEqual(t, r.ratio, 1.01)
		require.LessOrEqual(t, r.maxGap, 0.01)
		require.LessOrEqual(t, r.added, 0.01)
		// It went down: the torso ends past the last step's edge (x = 1.5 m),
		// lying on the floor.
		require.Greater(t, end[0], 1.5)
		require.Less(t, end[2], 0.3)
	}
}

// twoCapsules joins two capsules (1 kg, r = 0.05 m, straight part 0.5 m,
// along x) by a ball joint in the middle of the 5 cm by which their ends
// overlap, in zero gravity at step h.
func twoCapsules(t *testing.T, h float64) (*stepper.World, [2]*body.Body) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: h})
	require.NoError(t, err)
	const r, half = 0.05, 0.25
	rot := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}) // local z onto x
	var bs [2]*body.Body
	for i, x := range []float64{0, 2*(r+half) - 0.05} {
		b, err := body.New(body.Params{Name: []string{"upper", "lower"}[i], Mass: 1, Inertia: body.CapsuleInertia(1, r, 2*half),
			Pos: mgl64.Vec3{x, 0, 0}, Rot: rot})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		s, err := contact.NewCapsuleLength(r, 2*half)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
		bs[i] = b
	}
	j, err := constraint.NewBall(w.Bodies, 0, 1, mgl64.Vec3{r + half - 0.025, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(j))
	return w, bs
}

// Two capsules overlapping by 5 cm at the ball joint between them, in zero
// gravity, stay still: the joined pair does not collide. Before filtering
// the first step failed with "semidefinite free block: the equations are
// inconsistent" and left them spinning at 2.5 rad/s (6.25 J).
func TestJoinedOverlapStaysStill(t *testing.T) {
	for _, h := range []float64{1.0 / 60, 0.005} {
		w, bs := twoCapsules(t, h)
		require.False(t, w.JointCollision(0))
		for i := 0; i < 100; i++ {
			st, err := w.Step()
			require.NoError(t, err)
			require.Zero(t, st.Contacts)
			for _, b := range bs {
				// 1e-6 m/s: nothing moves them; rounding alone stays near 1e-16.
				require.Less(t, b.Vel.Len(), 1e-6)
				require.Less(t, b.AngVel.Len(), 1e-6)
			}
		}
	}
}

// With the joint's collision turned back on, the overlap's contact and
// the joint cannot both hold: Step returns one error that names the
// bodies, the overlap and the joint (ErrConflict) and leaves the world at
// the step's start, adding no energy.
func TestJoinedOverlapWithCollisionIsAClearError(t *testing.T) {
	w, bs := twoCapsules(t, 0.005)
	require.NoError(t, w.SetJointCollision(0, true))
	require.True(t, w.JointCollision(0))
	p0 := bs[1].Pos
	_, err := w.Step()
	require.ErrorIs(t, err, stepper.ErrConflict)
	for _, want := range []string{`bodies 0 ("upper") and 1 ("lower")`, "overlap of 0.05 m", "constraint 0 (*constraint.Ball)", "SetJointCollision(0, false)"} {
		require.Contains(t, err.Error(), want)
	}
	// A named joint (as a scene file names its joints) is named too.
	w2, _ := twoCapsules(t, 0.005)
	require.NoError(t, w2.SetJointCollision(0, true))
	require.NoError(t, w2.NameJoint(0, "elbow"))
	_, err2 := w2.Step()
	require.ErrorIs(t, err2, stepper.ErrConflict)
	require.ErrorContains(t, err2, `constraint 0 "elbow" (*constraint.Ball)`)
	require.ErrorContains(t, err2, `a scene file's "collide": false`)
	k, _ := w.Energy()
	require.Zero(t, k)
	require.Equal(t, p0, bs[1].Pos)
	require.Zero(t, w.Steps())

	require.ErrorContains(t, w.SetJointCollision(1, true), "joint: index 1 out of range [0, 1)")
	require.ErrorContains(t, w.SetJointCollision(-1, true), "joint: index -1")
	require.False(t, w.JointCollision(7))
}

// sinkBox places a 1 kg box of side 0.2 m with its bottom 2 cm below a
// ground plane, at rest, and steps it for 1 s at h under the given
// MaxCorrectingSpeed. It returns the largest kinetic energy (J) and the
// highest centre (m) after the first step, and the centre at the end.
func sinkBox(t *testing.T, h, vmax float64) (kmax, zmax, zend float64) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity, MaxCorrectingSpeed: vmax})
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.08}, mgl64.QuatIdent(), 0.5)
	for i := 0; i < int(math.Round(1/h)); i++ {
		_, err := w.Step()
		require.NoError(t, err)
		k, _ := w.Energy()
		kmax, zmax = math.Max(kmax, k), math.Max(zmax, b.Pos[2])
	}
	return kmax, zmax, b.Pos[2]
}

// A box 2 cm inside the floor at rest separates without becoming a
// projectile. The penetration's feedback φ/h is capped at
// v_max = ProjectAbove/h (Settings.MaxCorrectingSpeed's default) and the
// position projection removes the rest of the overlap after the step
// without velocity, so the box leaves the surface at no more than v_max:
// kinetic energy ≤ ½ m v_max² (m = 1 kg; 0.02 J at h = 5 ms, 1.4 mJ at
// h = 1/60 s) and a rise ≤ v_max²/(2g) above the surface (2 mm and
// 0.2 mm), then it rests at z = 0.1 m. Uncapped (+Inf, the feedback of
// Eq. 1 as it was) it leaves at 0.02 m/h: 4 m/s at h = 5 ms.
func TestOverlapSeparatesWithoutEnergy(t *testing.T) {
	for _, h := range []float64{1.0 / 60, 0.005} {
		vmax := stepper.DefaultProjectAbove / h
		k, z, zend := sinkBox(t, h, 0)
		ku, zu, _ := sinkBox(t, h, math.Inf(1))
		t.Logf("h = %.4f s: capped at %.3g m/s: max kinetic %.3g J (leaves at %.3g m/s), top %.5f m; uncapped: %.3g J (%.3g m/s), top %.3f m",
			h, vmax, k, math.Sqrt(2*k), z, ku, math.Sqrt(2*ku), zu)
		// 1e-9: rounding of the energy sum.
		require.LessOrEqual(t, k, 0.5*vmax*vmax*(1+1e-9))
		// 0.1 mm beyond the ballistic rise: the projection leaves up to
		// ProjectionTolerance and semi-implicit Euler overshoots by g h².
		require.LessOrEqual(t, z, 0.1+vmax*vmax/(2*9.81)+1e-4)
		require.InDelta(t, 0.1, zend, 1e-3)
		require.Greater(t, ku, 10*k) // the cap is what made the difference
	}
}

// balls puts two 1 kg spheres (r = 0.1 m) 1 m apart on the x axis in zero
// gravity, approaching at 1 m/s each, with the given filter bits, and
// runs them 1 s at h = 10 ms; then applies exclude (if any) first. It
// reports whether they met (contact rows at some step).
func balls(t *testing.T, ca, ma, cb, mb uint32, exclude func(w *stepper.World) error) (met bool, xa float64) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 0.01})
	require.NoError(t, err)
	var a *body.Body
	for i, c := range []struct {
		x, v      float64
		cat, mask uint32
	}{{-0.5, 1, ca, ma}, {0.5, -1, cb, mb}} {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: mgl64.Vec3{c.x, 0, 0},
			Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{c.v, 0, 0}})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		s, err := contact.NewSphere(0.1)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Category: c.cat, Mask: c.mask})
		require.NoError(t, err)
		if i == 0 {
			a = b
		}
	}
	if exclude != nil {
		require.NoError(t, exclude(w))
	}
	for i := 0; i < 100; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		met = met || st.Contacts > 0
	}
	return met, a.Pos[0]
}

// Collision filtering: category and mask bits both ways (zero values:
// category 1, every mask bit), excluded geom pairs and body pairs. Spheres
// that may not collide pass through each other (sphere a ends at
// x = +0.5 m); the others stop each other (no restitution: a stays near
// x = −0.1 m, where they meet).
func TestCollisionFilter(t *testing.T) {
	cases := []struct {
		name           string
		ca, ma, cb, mb uint32
		exclude        func(w *stepper.World) error
		meet           bool
	}{
		{"zero values collide", 0, 0, 0, 0, nil, true},
		{"same non-default group", 2, 2, 2, 2, nil, true},
		{"a's mask leaves out b's category", 0, 2, 0, 0, nil, false},
		{"b's mask leaves out a's category", 0, 0, 0, 2, nil, false},
		{"a default, b in group 2 only", 0, 0, 2, 2, nil, false},
		{"a in 1 and 2, b in group 2 only", 3, 0, 2, 2, nil, true},
		{"excluded geom pair", 0, 0, 0, 0, func(w *stepper.World) error { return w.ExcludePair(1, 0) }, false},
		{"excluded body pair", 0, 0, 0, 0, func(w *stepper.World) error { return w.ExcludeBodies(0, 1) }, false},
		{"exclusion of another pair", 0, 0, 0, 0, func(w *stepper.World) error { return w.ExcludeBodies(0, constraint.World) }, true},
	}
	for _, c := range cases {
		met, xa := balls(t, c.ca, c.ma, c.cb, c.mb, c.exclude)
		require.Equal(t, c.meet, met, c.name)
		if c.meet {
			// 5 mm: the contact stops them within a step's travel (10 mm).
			require.InDelta(t, -0.1, xa, 0.005, c.name)
		} else {
			require.InDelta(t, 0.5, xa, 1e-9, c.name) // free flight: 1 m/s for 1 s
		}
	}
}

// Bad exclusions are errors naming the argument and the value.
func TestExcludeErrors(t *testing.T) {
	w, _ := twoCapsules(t, 0.01)
	for _, c := range []struct {
		err  error
		want string
	}{
		{w.ExcludePair(0, 2), "ExcludePair: b: geom 2 out of range [0, 2)"},
		{w.ExcludePair(-1, 0), "ExcludePair: a: geom -1 out of range [0, 2)"},
		{w.ExcludePair(1, 1), "ExcludePair: b: geom 1 is a itself"},
		{w.ExcludeBodies(0, 5), "ExcludeBodies: b: body 5 out of range [0, 2)"},
		{w.ExcludeBodies(-2, 0), "ExcludeBodies: a: body -2 out of range"},
		{w.ExcludeBodies(constraint.World, constraint.World), "ExcludeBodies: b: body -1 is a itself"},
	} {
		require.ErrorContains(t, c.err, c.want)
	}
	require.False(t, w.Excluded(0, 1))
	require.NoError(t, w.ExcludePair(0, 1))
	require.NoError(t, w.ExcludePair(0, 1)) // twice is fine
	require.True(t, w.Excluded(1, 0))
	require.False(t, w.Excluded(0, 9))
}

// Bodies joined by several constraints collide only when every one has
// its collision turned on: here a distance joint with collision on does
// not undo the ball joint's default.
func TestSeveralJointsOneKeepsApart(t *testing.T) {
	w, _ := twoCapsules(t, 0.005)
	d, err := constraint.NewDistance(w.Bodies, 0, 1, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0.55, 0, 0}, 0.55)
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(d))
	require.NoError(t, w.SetJointCollision(1, true))
	st, err := w.Step()
	require.NoError(t, err)
	require.Zero(t, st.Contacts)
	require.NoError(t, w.SetJointCollision(0, true))
	_, err = w.Step()
	require.ErrorIs(t, err, stepper.ErrConflict)
	require.ErrorContains(t, err, "constraint 0 (*constraint.Ball)")
}

// A bad cap is an error naming the field and the value; +Inf turns the cap
// off.
func TestMaxCorrectingSpeedValidated(t *testing.T) {
	for _, v := range []float64{-1, math.NaN()} {
		_, err := stepper.New(stepper.Settings{H: 0.01, MaxCorrectingSpeed: v})
		require.ErrorContains(t, err, "settings: MaxCorrectingSpeed: must be ≥ 0 m/s")
		require.ErrorContains(t, err, "got "+fmt.Sprint(v))
	}
	_, err := stepper.New(stepper.Settings{H: 0.01, MaxCorrectingSpeed: math.Inf(1)})
	require.NoError(t, err)
	s := stepper.Settings{H: 0.005}
	require.Equal(t, 0.2, s.CorrectingSpeed()) // 1 mm / 5 ms
}
