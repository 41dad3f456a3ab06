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

// A plank (2 m × 0.3 m × 0.05 m, 5 kg) leaning on a wall at angle θ from
// the floor, friction μ = 0.5 on the floor and the wall: the ladder
// problem's answer is that it holds when tan θ ≥ (1 − μ²)/(2μ) = 0.75
// (θ ≥ 36.9°) and slides down when below. At 60° it holds, at 25° it
// falls.
func TestNewUserLeaningPlank(t *testing.T) {
	const mu, L, d = 0.5, 2.0, 0.05
	for _, c := range []struct {
		deg   float64
		holds bool
	}{{60, true}, {25, false}} {
		w := nuWorld(t, 0)
		ground(t, w, mgl64.QuatIdent(), mu)
		addStaticBox(t, w, mgl64.Vec3{0.2, 2, 3}, mgl64.Vec3{-0.1, 0, 1.5}, mgl64.QuatIdent(), mu) // the wall's face is x = 0
		th := c.deg * math.Pi / 180
		u := mgl64.Vec3{-math.Cos(th), 0, math.Sin(th)} // bottom to top
		rot := mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, u)
		// The corners of the plank at the origin: shift it so that the
		// lowest one is on the floor and the one nearest the wall on it.
		var minx, minz = math.Inf(1), math.Inf(1)
		for _, sx := range []float64{-1, 1} {
			for _, sz := range []float64{-1, 1} {
				p := rot.Rotate(mgl64.Vec3{sx * d / 2, 0, sz * L / 2})
				minx, minz = math.Min(minx, p[0]), math.Min(minz, p[2])
			}
		}
		b := addBox(t, w, 5, mgl64.Vec3{d, 0.3, L}, mgl64.Vec3{-minx, 0, -minz}, rot, mu)
		z0 := b.Pos[2]
		added, _ := nuStep(t, w, 180)
		tilt := math.Asin(math.Min(1, b.Rotation().Col(2).Dot(mgl64.Vec3{0, 0, 1}))) * 180 / math.Pi
		t.Logf("θ = %.0f°: after 3 s the centre dropped %.2e m, plank at %.2f° from the floor, speed %.2e m/s, asleep %v, largest energy added %.2e J",
			c.deg, z0-b.Pos[2], tilt, b.Vel.Len(), w.Asleep(2), added)
		if c.holds {
			assert.Less(t, z0-b.Pos[2], 1e-3, "the plank slid")
			assert.InDelta(t, c.deg, tilt, 0.1)
		} else {
			// It slides to the floor: flat within a few degrees.
			assert.Less(t, tilt, 5.0)
		}
		assert.Less(t, added, 1e-3)
	}
}

// A cylinder (r = 0.1 m, 0.3 m tall) standing on a box (0.4 m cube) on the
// floor, dropped 1 cm: both come to rest, the cylinder's centre at
// 0.4 + 0.15 m, and sleep.
func TestNewUserCylinderOnBox(t *testing.T) {
	w := nuWorld(t, 0)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	box := addBox(t, w, 4, mgl64.Vec3{0.4, 0.4, 0.4}, mgl64.Vec3{0, 0, 0.2}, mgl64.QuatIdent(), 0.5)
	cb, err := body.New(body.Params{Mass: 1, Inertia: body.CylinderInertia(1, 0.1, 0.3), Pos: mgl64.Vec3{0.05, 0, 0.56}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	id, err := w.AddBody(cb)
	require.NoError(t, err)
	cyl, err := contact.NewCylinderLength(0.1, 0.3)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: cyl, Material: stepper.Material{Friction: 0.5}})
	require.NoError(t, err)
	added, _ := nuStep(t, w, 180)
	t.Logf("cylinder on box, 3 s: box z %.6f, cylinder z %.6f (want 0.55), tilt %.2e, largest energy added %.2e J, sleeping %d",
		box.Pos[2], cb.Pos[2], 1-cb.Rotation().At(2, 2), added, w.Sleeping())
	assert.InDelta(t, 0.2, box.Pos[2], 1e-3)
	assert.InDelta(t, 0.55, cb.Pos[2], 1e-3)
	assert.InDelta(t, 0.05, cb.Pos[0], 1e-3)
	assert.Less(t, 1-cb.Rotation().At(2, 2), 1e-6)
	assert.Less(t, added, 1e-3)
	assert.Equal(t, 2, w.Sleeping())
}

// nuStack builds n boxes of 0.2 m (1 kg, μ 0.5) stacked on the floor.
func nuStack(t testing.TB, w *stepper.World, n int) []*body.Body {
	t.Helper()
	ground(t, w, mgl64.QuatIdent(), 0.5)
	var bs []*body.Body
	for i := 0; i < n; i++ {
		bs = append(bs, addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1 + 0.2*float64(i)}, mgl64.QuatIdent(), 0.5))
	}
	return bs
}

// A stack of five boxes falls asleep; kicked over (every box given the
// velocity of the stack turning at 2 rad/s about its bottom edge, enough to
// lift its centre of mass over that edge: ½ I ω² = 3.5 J > m g Δz = 0.49 J)
// it wakes and topples: no box stays above 0.5 m, the energy after the kick
// never grows, and everything comes to rest.
func TestNewUserKickedStack(t *testing.T) {
	w := nuWorld(t, 0)
	bs := nuStack(t, w, 5)
	_, _ = nuStep(t, w, 120)
	require.Equal(t, 5, w.Sleeping(), "the stack sleeps after 2 s")
	for i, b := range bs {
		require.InDelta(t, 0.1+0.2*float64(i), b.Pos[2], 1e-3)
	}
	omega := mgl64.Vec3{0, 2, 0}  // about +y: the top moves towards +x
	edge := mgl64.Vec3{0.1, 0, 0} // the bottom edge it turns about
	for _, b := range bs {
		b.AngVel = omega
		b.Vel = omega.Cross(b.Pos.Sub(edge))
	}
	kick, p := w.Energy()
	e0 := kick + p
	var grow float64
	for s := 0; s < 300; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		k, p := w.Energy()
		grow = math.Max(grow, k+p-e0)
	}
	k, _ := w.Energy()
	high := 0.0
	for _, b := range bs {
		high = math.Max(high, b.Pos[2])
	}
	t.Logf("kicked stack (kick %.3f J), 5 s: highest box at z %.3f m, top box at x %.3f, energy growth %.2e J, kinetic %.2e J, sleeping %d",
		kick, high, bs[4].Pos[0], grow, k, w.Sleeping())
	assert.Less(t, high, 0.5, "the stack stands")
	assert.Greater(t, bs[4].Pos[0], 0.5, "the top box fell towards +x")
	assert.Less(t, grow, 1e-3)
	assert.Less(t, k, 1e-3, "at rest after 5 s")
}

// World.Energy counts the velocity a caller gives a sleeping body (a kick,
// which the next Step honours by waking it): a sleeping 1 kg box set moving
// at 3 m/s has ½ m v² = 4.5 J of kinetic energy.
func TestNewUserEnergyOfKickedSleeper(t *testing.T) {
	w := nuWorld(t, 0)
	bs := nuStack(t, w, 1)
	_, _ = nuStep(t, w, 90)
	require.True(t, w.Asleep(0))
	k, _ := w.Energy()
	require.Zero(t, k)
	bs[0].Vel = mgl64.Vec3{3, 0, 0}
	bs[0].AngVel = mgl64.Vec3{0, 0, 1} // I_zz = m(0.2² + 0.2²)/12
	k, _ = w.Energy()
	want := 0.5*9 + 0.5*(0.08/12)
	assert.InDelta(t, want, k, 1e-12, "the kinetic energy of a kicked sleeping body")
	st, err := w.Step()
	require.NoError(t, err)
	// The step's energy balance starts from the same 4.5 J: after it,
	// kinetic + potential − EnergyAdded is what Energy said before.
	k1, p1 := w.Energy()
	assert.InDelta(t, want+0.1*9.81, k1+p1-st.EnergyAdded, 1e-9)
}

// Bodies added mid-run: a box dropped 0.5 m onto a sleeping box wakes it,
// and both come to rest stacked; then a third, added beside them, falls
// on the floor while the stack sleeps on.
func TestNewUserAddedMidRun(t *testing.T) {
	w := nuWorld(t, 0)
	bs := nuStack(t, w, 1)
	_, _ = nuStep(t, w, 90)
	require.True(t, w.Asleep(0))
	top := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0.02, 0, 0.8}, mgl64.QuatIdent(), 0.5)
	woke := false
	for s := 0; s < 180; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		woke = woke || !w.Asleep(0)
	}
	t.Logf("landing: the lower box woke %v, ends at z %.6f, the new one at z %.6f x %.4f, sleeping %d", woke, bs[0].Pos[2], top.Pos[2], top.Pos[0], w.Sleeping())
	assert.True(t, woke, "the landing box woke the sleeping one")
	assert.InDelta(t, 0.1, bs[0].Pos[2], 1e-3)
	assert.InDelta(t, 0.3, top.Pos[2], 1e-3)
	assert.InDelta(t, 0.02, top.Pos[0], 1e-3)
	assert.Equal(t, 2, w.Sleeping())
	third := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{2, 0, 0.5}, mgl64.QuatIdent(), 0.5)
	stayed := true
	for s := 0; s < 120; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		stayed = stayed && w.Asleep(0) && w.Asleep(1)
	}
	t.Logf("third box at z %.6f, the stack slept on: %v", third.Pos[2], stayed)
	assert.InDelta(t, 0.1, third.Pos[2], 1e-3)
	assert.True(t, stayed, "a body added far away woke the stack")
}

// A sleeping box pushed by a force for one step (F h = 2 N·s on 1 kg)
// wakes, slides v²/(2μg) = 0.408 m with μ = 0.5 (0.391 m with the first
// step's friction and semi-implicit Euler's step) and stops.
func TestNewUserPushWakes(t *testing.T) {
	w := nuWorld(t, 0)
	bs := nuStack(t, w, 1)
	_, _ = nuStep(t, w, 90)
	require.True(t, w.Asleep(0))
	h := w.Settings.H
	bs[0].ApplyForce(mgl64.Vec3{2 / h, 0, 0})
	_, _ = nuStep(t, w, 1)
	bs[0].ClearForces()
	_, _ = nuStep(t, w, 120)
	const mug = 0.5 * 9.81
	// The push and the friction share the first step: the box leaves it
	// at v₁ = 2 − μ g h; semi-implicit Euler then moves each step at its
	// end speed, v₁²/(2μg) + v₁h/2 in all (v²/(2μg) = 0.408 m without the
	// step).
	v1 := 2 - mug*h
	want := v1*v1/(2*mug) + v1*h/2
	t.Logf("pushed box slid %.4f m (discrete analytic %.4f, continuous %.4f), speed %.2e, asleep %v",
		bs[0].Pos[0], want, 4/(2*mug), bs[0].Vel.Len(), w.Asleep(0))
	// 0.5 %: the last step stops the box within the step, up to μ g h²
	// = 1.4 mm early.
	assert.InDelta(t, want, bs[0].Pos[0], 0.005*want)
	assert.InDelta(t, 0.1, bs[0].Pos[2], 1e-3)
}

var _ = constraint.World

// A heavy box on a light one (mass ratios 10, 100, 1000) and stacks of 10
// and 20 boxes hold at h = 1/60: every box at its stacked height (1 mm) and
// on its column (1 mm), asleep after 4 s.
func TestNewUserMassRatioAndTallStacks(t *testing.T) {
	for _, ratio := range []float64{10, 100, 1000} {
		w := nuWorld(t, 0)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		lo := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		hi := addBox(t, w, ratio, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.3}, mgl64.QuatIdent(), 0.5)
		_, _ = nuStep(t, w, 120)
		t.Logf("mass ratio %v: z %.6f and %.6f, %d asleep", ratio, lo.Pos[2], hi.Pos[2], w.Sleeping())
		assert.InDelta(t, 0.1, lo.Pos[2], 1e-3)
		assert.InDelta(t, 0.3, hi.Pos[2], 1e-3)
		assert.Equal(t, 2, w.Sleeping())
	}
	for _, n := range []int{10, 20} {
		w := nuWorld(t, 0)
		bs := nuStack(t, w, n)
		_, _ = nuStep(t, w, 240)
		var dz, dxy float64
		for i, b := range bs {
			dz = math.Max(dz, math.Abs(b.Pos[2]-(0.1+0.2*float64(i))))
			dxy = math.Max(dxy, math.Hypot(b.Pos[0], b.Pos[1]))
		}
		t.Logf("stack of %d: largest height error %.2e m, off the column %.2e m, %d asleep", n, dz, dxy, w.Sleeping())
		assert.Less(t, dz, 1e-3)
		assert.Less(t, dxy, 1e-3)
		assert.Equal(t, n, w.Sleeping())
	}
}

// A box spawned into the floor (1, 5 and 10 cm deep) or into another box
// (5 and 15 cm of overlap) is moved out by the position projection, which
// adds no velocity: it rests on the surface, no faster than 0.1 m/s on the
// way (measured 0.06 and 0.03 m/s; the Φ/h feedback alone would leave a
// 10 cm overlap at 6 m/s), never rising above its resting height.
func TestNewUserSpawnOverlapping(t *testing.T) {
	for _, z := range []float64{0.09, 0.05, 0} {
		w := nuWorld(t, 0)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, z}, mgl64.QuatIdent(), 0.5)
		var vmax, zmax float64
		for s := 0; s < 60; s++ {
			_, err := w.Step()
			require.NoError(t, err)
			vmax, zmax = math.Max(vmax, b.Vel.Len()), math.Max(zmax, b.Pos[2])
		}
		t.Logf("spawned at z %.2f: rests at %.6f, highest %.6f, fastest %.3f m/s", z, b.Pos[2], zmax, vmax)
		assert.InDelta(t, 0.1, b.Pos[2], 1e-3)
		assert.Less(t, zmax, 0.1+1e-3)
		assert.Less(t, vmax, 0.1)
	}
	for _, d := range []float64{0.15, 0.05} {
		w := nuWorld(t, 0)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		a := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{d, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		var vmax float64
		for s := 0; s < 120; s++ {
			_, err := w.Step()
			require.NoError(t, err)
			vmax = math.Max(vmax, math.Max(a.Vel.Len(), b.Vel.Len()))
		}
		gap := b.Pos[0] - a.Pos[0]
		t.Logf("overlap %.2f m: centres %.6f m apart, fastest %.3f m/s", 0.2-d, gap, vmax)
		assert.InDelta(t, 0.2, gap, 1e-3, "side by side")
		assert.InDelta(t, 0.1, a.Pos[2], 1e-3)
		assert.InDelta(t, 0.1, b.Pos[2], 1e-3)
		assert.Less(t, vmax, 0.1)
	}
}
