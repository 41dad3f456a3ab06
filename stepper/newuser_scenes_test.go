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

// The scenes a new user writes first, built with the exported API only and
// stepped at a game-sized step h = 1/60 s with DefaultSettings (sleeping on)
// unless a test says otherwise; each is compared with its analytic answer.

// nuWorld is a DefaultSettings world at step h (0: the default 1/60 s).
func nuWorld(t testing.TB, h float64) *stepper.World {
	t.Helper()
	s := stepper.DefaultSettings()
	if h > 0 {
		s.H = h
	}
	w, err := stepper.New(s)
	require.NoError(t, err)
	return w
}

// nuStep steps w n times, failing the test on an error, and returns the
// largest energy a step added (Stats.EnergyAdded) and the last Stats.
func nuStep(t testing.TB, w *stepper.World, n int) (maxAdded float64, last stepper.Stats) {
	t.Helper()
	for i := 0; i < n; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		maxAdded = math.Max(maxAdded, st.EnergyAdded)
		last = st
	}
	return maxAdded, last
}

// A 1 kg box of 0.2 m dropped from 0.3 m onto the floor: it comes to rest
// with its centre at half its height, does not bounce (restitution 0) and
// the mechanical energy never grows.
func TestNewUserDroppedBox(t *testing.T) {
	w := nuWorld(t, 0)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.4}, mgl64.QuatIdent(), 0.5)
	k, p := w.Energy()
	e0 := k + p
	touched := false
	var rise, maxGrow float64
	for i := 0; i < 180; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		k, p := w.Energy()
		maxGrow = math.Max(maxGrow, k+p-e0)
		e0 = math.Min(e0, k+p)
		if b.Pos[2] < 0.1+1e-3 {
			touched = true
		}
		if touched {
			rise = math.Max(rise, b.Pos[2]-0.1)
		}
	}
	t.Logf("rest z %.6f m (want 0.1), rise after touch %.2e m, largest energy growth %.2e J, asleep %v",
		b.Pos[2], rise, maxGrow, w.Asleep(0))
	// The rest height: the contact holds the box at the surface to within
	// the projection threshold ProjectAbove, 1 mm.
	assert.InDelta(t, 0.1, b.Pos[2], 1e-3)
	assert.Less(t, rise, 1e-3, "bounce")
	// 1 mJ: 0.03 % of the 2.9 J dropped; a bounce or Φ/h push-out adds more.
	assert.Less(t, maxGrow, 1e-3, "energy grew")
	assert.True(t, w.Asleep(0), "the resting box sleeps after 3 s")
}

// nuInclineBox puts a 1 kg box of 0.2 m at rest on a floor tilted by theta
// about y, friction mu on both surfaces, and returns it with the downhill
// unit vector.
func nuInclineBox(t testing.TB, w *stepper.World, theta, mu float64) (*body.Body, mgl64.Vec3) {
	t.Helper()
	rot := mgl64.QuatRotate(theta, mgl64.Vec3{0, 1, 0})
	ground(t, w, rot, mu)
	n := rot.Rotate(mgl64.Vec3{0, 0, 1})
	down := rot.Rotate(mgl64.Vec3{1, 0, 0})
	if down[2] > 0 {
		down = down.Mul(-1)
	}
	return addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, n.Mul(0.1), rot, mu), down
}

// A box on a 30° incline: with μ = 0.3 < tan 30° = 0.577 it slides with
// the Coulomb acceleration g(sin θ − μ cos θ) = 2.357 m/s²; with μ = 0.7 it
// sticks.
func TestNewUserIncline(t *testing.T) {
	const theta, g = math.Pi / 6, 9.81
	for _, mu := range []float64{0.3, 0.7} {
		w := nuWorld(t, 0)
		b, down := nuInclineBox(t, w, theta, mu)
		p0 := b.Pos
		_, _ = nuStep(t, w, 60)
		v := b.Vel.Dot(down)
		d := b.Pos.Sub(p0).Dot(down)
		if mu < math.Tan(theta) {
			a := g * (math.Sin(theta) - mu*math.Cos(theta))
			t.Logf("μ = %.1f: downhill speed after 1 s %.5f m/s, analytic %.5f; distance %.5f m, analytic ½at² %.5f",
				mu, v, a, d, 0.5*a)
			// Semi-implicit Euler is exact in v for a constant force;
			// 0.5 %: the box's first step, whose contact is new, may
			// start its slide a step late (a h / (a·1 s) = 1.7 %
			// would show a step's delay).
			assert.InDelta(t, a, v, 0.005*a)
			// Semi-implicit Euler moves each step at its end speed:
			// d = ½at²(1 + h/t), 1.7 % beyond ½at² at t = 1 s.
			assert.InDelta(t, 0.5*a*(1+1.0/60), d, 1e-3*0.5*a)
		} else {
			t.Logf("μ = %.1f: moved %.2e m downhill, speed %.2e m/s, asleep %v", mu, d, v, w.Asleep(0))
			// Sticking: less than 1 mm of creep in 1 s.
			assert.Less(t, math.Abs(d), 1e-3)
			assert.Less(t, math.Abs(v), 1e-3)
		}
	}
}

// A solid cylinder (a wheel, r = 0.3 m) set spinning at ω₀ = 10 rad/s on
// the floor with no forward speed: friction speeds it up and slows its
// spin until it rolls, v = ωr, at v = ω₀r/3 = 1 m/s (angular momentum
// about the contact line is conserved: I ω₀ = I ω + m r v, I = m r²/2).
func TestNewUserSpinningWheel(t *testing.T) {
	const r, m, omega0 = 0.3, 2.0, 10.0
	w := nuWorld(t, 0)
	ground(t, w, mgl64.QuatIdent(), 0.8)
	rot := mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{1, 0, 0}) // body z → world y
	b, err := body.New(body.Params{Mass: m, Inertia: body.CylinderInertia(m, r, 0.1),
		Pos: mgl64.Vec3{0, 0, r}, Rot: rot, AngVel: mgl64.Vec3{0, omega0, 0}})
	require.NoError(t, err)
	id, err := w.AddBody(b)
	require.NoError(t, err)
	cyl, err := contact.NewCylinderLength(r, 0.1)
	require.NoError(t, err)
	_, err = w.AddGeom(stepper.Geom{Body: id, Shape: cyl, Material: stepper.Material{Friction: 0.8}})
	require.NoError(t, err)
	added, _ := nuStep(t, w, 120)
	v, om := b.Vel[0], b.AngVel[1]
	t.Logf("after 2 s: v = %.5f m/s, ω r = %.5f m/s (analytic %.5f), z %.6f, largest energy added %.2e J",
		v, om*r, omega0*r/3, b.Pos[2], added)
	// Rolling without slip: 1 mm/s.
	assert.InDelta(t, v, om*r, 1e-3)
	// Slipping ends after ω₀ r/(3 μ g) = 0.13 s; 0.5 %: the sliding
	// friction's work depends on the step in which slip ends.
	assert.InDelta(t, omega0*r/3, v, 0.005*omega0*r/3)
	assert.InDelta(t, r, b.Pos[2], 1e-3)
	assert.Less(t, added, 1e-3)
	assert.Less(t, math.Abs(b.Vel[1]), 1e-3, "the wheel stays in its plane")
}

// A torque-free box (0.3 × 0.2 × 0.1 m) spun about its intermediate axis
// (y) with a small disturbance tumbles (the Dzhanibekov effect) and about
// its major axis (z) spins steadily; in both its angular momentum about the
// centre and its rotational energy stay constant (gravity moves the centre
// only).
func TestNewUserFreeRotor(t *testing.T) {
	for _, c := range []struct {
		axis  string
		k     int // the spin axis, body and world
		omega mgl64.Vec3
	}{{"intermediate", 1, mgl64.Vec3{0.01, 10, 0.01}}, {"major", 2, mgl64.Vec3{0.01, 0.01, 10}}} {
		w := nuWorld(t, 0)
		b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.3, 0.2, 0.1), Pos: mgl64.Vec3{0, 0, 10},
			Rot: mgl64.QuatIdent(), AngVel: c.omega})
		require.NoError(t, err)
		_, err = w.AddBody(b)
		require.NoError(t, err)
		rotE := func() float64 { return 0.5 * b.AngVel.Dot(b.InertiaWorld().Mul3x1(b.AngVel)) }
		l0, e0 := b.AngularMomentum(), rotE()
		var dl, de, flip float64
		for i := 0; i < 300; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			dl = math.Max(dl, b.AngularMomentum().Sub(l0).Len()/l0.Len())
			de = math.Max(de, (rotE()-e0)/e0)
			flip = math.Max(flip, 1-b.Rotation().At(c.k, c.k)) // 1 − cos of the spin axis's tilt
		}
		t.Logf("%s axis: |ΔL|/|L| ≤ %.2e, rotational energy gain ≤ %.2e, 1 − cos(spin axis tilt) up to %.3f", c.axis, dl, de, flip)
		// The implicit midpoint rule conserves L and the energy of a free
		// body up to its Newton solve's tolerance: 1e-9.
		assert.Less(t, dl, 1e-9)
		assert.Less(t, de, 1e-9)
		if c.axis == "intermediate" {
			assert.Greater(t, flip, 1.0, "the intermediate axis turns over")
		} else {
			// The disturbance 0.01/10 rad/s tilts the axis by about 1e-3 rad.
			assert.Less(t, flip, 1e-4)
		}
	}
}

// A small-angle pendulum, a bob of 0.05 m radius on a ball joint 1 m below
// the pivot, swings with the period 2π√(I/(m g L)), I = mL² + ⅖mr², at h =
// 1/60 s and 1/240 s.
func TestNewUserPendulumPeriod(t *testing.T) {
	const m, r, l, g, th0 = 1.0, 0.05, 1.0, 9.81, 0.05
	want := 2 * math.Pi * math.Sqrt((m*l*l+0.4*m*r*r)/(m*g*l))
	for _, c := range []struct{ h, tol float64 }{{1.0 / 60, 0.01}, {1.0 / 240, 0.002}} {
		w := nuWorld(t, c.h)
		pivot := mgl64.Vec3{0, 0, 2}
		pos := pivot.Add(mgl64.Vec3{math.Sin(th0), 0, -math.Cos(th0)}.Mul(l))
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: pos, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		j, err := constraint.NewBall(w.Bodies, constraint.World, id, pivot)
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
		var cross []float64
		prev := b.Pos[0]
		amp := 0.0
		for w.Time() < 10 {
			_, err := w.Step()
			require.NoError(t, err)
			x := b.Pos[0]
			if prev > 0 && x <= 0 {
				cross = append(cross, w.Time()-c.h+prev/(prev-x)*c.h)
			}
			if w.Time() > 9 {
				amp = math.Max(amp, x)
			}
			prev = x
		}
		require.GreaterOrEqual(t, len(cross), 3)
		period := (cross[len(cross)-1] - cross[0]) / float64(len(cross)-1)
		t.Logf("h = %.4f s: period %.5f s, analytic %.5f s (%+.3f %%); amplitude after 9 s %.4f of %.4f m; asleep %v",
			c.h, period, want, 100*(period/want-1), amp, l*math.Sin(th0), w.Asleep(0))
		assert.InDelta(t, want, period, c.tol*want)
		assert.False(t, w.Asleep(0), "a swinging pendulum does not sleep")
		// Energy: the amplitude neither grows nor dies (< 5 % in 10 s).
		assert.InDelta(t, l*math.Sin(th0), amp, 0.05*l*math.Sin(th0))
	}
}
