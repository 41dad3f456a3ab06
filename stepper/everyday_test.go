package stepper_test

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dropBox drops a 1 kg box of side 0.2 m, its bottom 0.4 m above a ground
// plane, with downward speed v0, under the default settings, for 1.5 s
// (plus slab: a static 0.1 m slab whose top is the surface, no plane).
// It returns the deepest penetration, the highest rise of the centre above
// its resting height 0.1 m after first touch, the largest upward speed
// after first touch and the final height.
func dropBox(t *testing.T, h, v0, e float64, slab bool) (pen, rebound, up, final float64) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	if slab {
		sb, err := body.New(body.Params{Name: "slab", Static: true, Pos: mgl64.Vec3{0, 0, -0.05}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(sb)
		require.NoError(t, err)
		shape, err := contact.NewBoxSize(mgl64.Vec3{4, 4, 0.1})
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
	} else {
		ground(t, w, mgl64.QuatIdent(), 0.5)
	}
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.5}, mgl64.QuatIdent(), 0.5)
	if e > 0 {
		w.Geoms[len(w.Geoms)-1].Material.Restitution = e
	}
	b.Vel = mgl64.Vec3{0, 0, -v0}
	touched := false
	for i := 0; i < int(math.Round(1.5/h)); i++ {
		_, err := w.Step()
		require.NoError(t, err)
		pen = math.Max(pen, 0.1-b.Pos[2])
		if b.Pos[2] < 0.1+1e-3 || (e > 0 && b.Vel[2] > 0) {
			touched = true
		}
		if touched {
			rebound = math.Max(rebound, b.Pos[2]-0.1)
			up = math.Max(up, b.Vel[2])
		}
	}
	return pen, rebound, up, b.Pos[2]
}

// A dropped box does not bounce (restitution 0 by default): speculative
// contacts stop it at the surface, the bounds: penetration ≤ 10 mm,
// rebound ≤ 5 mm, at rest at z = 0.1 m ± 1 mm after 1.5 s.
func TestDroppedBoxDoesNotBounce(t *testing.T) {
	for _, h := range []float64{0.01, 1.0 / 60} {
		pen, reb, up, z := dropBox(t, h, 0, 0, false)
		t.Logf("h = %.4f s: penetration %.2e m, rebound %.2e m, upward speed %.2e m/s, final z %.6f m", h, pen, reb, up, z)
		assert.LessOrEqual(t, pen, 0.010)
		assert.LessOrEqual(t, reb, 0.005)
		assert.InDelta(t, 0.1, z, 1e-3)
	}
}

// A box at 50 m/s stops on the plane and on a 0.1 m slab instead of
// passing through (penetration ≤ 50 mm, no upward speed above 1 m/s after
// impact, at rest on the surface).
func TestFastBoxStopsAtSurface(t *testing.T) {
	for _, slab := range []bool{false, true} {
		for _, h := range []float64{0.01, 1.0 / 60} {
			pen, _, up, z := dropBox(t, h, 50, 0, slab)
			t.Logf("slab %v, h = %.4f s: penetration %.2e m, upward speed %.2e m/s, final z %.6f m", slab, h, pen, up, z)
			assert.LessOrEqual(t, pen, 0.050)
			assert.LessOrEqual(t, up, 1.0)
			assert.InDelta(t, 0.1, z, 1e-3)
		}
	}
}

// Restitution is Newton's law on the normal row: dropped from 0.4 m onto
// a plane with e = 0.5 at h = 1 ms, the box rises to e²·0.4 m, to within
// the steps' sampling of the apex, g h²/8 = 1.2e-6 m, and not above it
// (TestEverydayBallBounce).
func TestRestitutionBounce(t *testing.T) {
	_, reb, _, _ := dropBox(t, 0.001, 0, 0.5, false)
	want := 0.25 * 0.4
	t.Logf("rebound %.7f m, e² h₀ = %.7f m", reb, want)
	// Before the bounce fell the gap (bounceStep) it started from the
	// height of the step's start, up to v₋h = 2.8 mm up, and rose to
	// 0.1026 m.
	assert.GreaterOrEqual(t, reb, want-1e-9)
	assert.LessOrEqual(t, reb, want+9.81*0.001*0.001/8+1e-9)
}

// A torque-free box spinning about a non-principal axis keeps |L| and its
// kinetic energy (implicit midpoint gyroscopic step, body.AngularStep).
func TestSpinningBoxConservesEnergy(t *testing.T) {
	for _, c := range []struct{ omega, gain float64 }{{10, 1e-3}, {50, 1e-2}} {
		w, err := stepper.New(stepper.Settings{H: 0.01})
		require.NoError(t, err)
		b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.3, 0.2, 0.1), Rot: mgl64.QuatIdent(),
			AngVel: mgl64.Vec3{1, 1, 1}.Normalize().Mul(c.omega)})
		require.NoError(t, err)
		_, err = w.AddBody(b)
		require.NoError(t, err)
		e0, l0 := b.KineticEnergy(), b.AngularMomentum()
		emax, emin, ldev := e0, e0, 0.0
		for i := 0; i < 1000; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			e := b.KineticEnergy()
			emax, emin = math.Max(emax, e), math.Min(emin, e)
			ldev = math.Max(ldev, b.AngularMomentum().Sub(l0).Len()/l0.Len())
		}
		t.Logf("ω = %v rad/s: energy gain %.2e, loss %.2e, L deviation %.2e", c.omega, emax/e0-1, 1-emin/e0, ldev)
		assert.LessOrEqual(t, emax/e0-1, c.gain)
		assert.LessOrEqual(t, 1-emin/e0, 0.02)
		assert.LessOrEqual(t, ldev, 1e-9)
	}
}

// wheelWorld: a 100 kg frame yawing freely at 2 rad/s about world z on a
// hinge to the world, carrying a 10 kg, r = 0.2 m wheel on a hinge about
// the frame's x axis, 0.5 m from the yaw axis, spinning at 500 rad/s (a
// vehicle's wheel in a turn); no gravity.
func wheelWorld(t *testing.T, mode stepper.Stabilization) (*stepper.World, *constraint.Hinge) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Stabilization: mode})
	require.NoError(t, err)
	fr, err := body.New(body.Params{Name: "frame", Mass: 100, Inertia: body.BoxInertia(100, 1.2, 1.2, 0.2), Rot: mgl64.QuatIdent(),
		AngVel: mgl64.Vec3{0, 0, 2}})
	require.NoError(t, err)
	fi, err := w.AddBody(fr)
	require.NoError(t, err)
	pos := mgl64.Vec3{0.5, 0, 0}
	wh, err := body.New(body.Params{Name: "wheel", Mass: 10, Inertia: body.CylinderInertia(10, 0.2, 0.05), Pos: pos,
		Rot:    mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}), // local z (the axle) → world x
		AngVel: mgl64.Vec3{500, 0, 2}, Vel: mgl64.Vec3{0, 1, 0}})
	require.NoError(t, err)
	wi, err := w.AddBody(wh)
	require.NoError(t, err)
	yaw, err := constraint.NewHinge(w.Bodies, constraint.World, fi, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(yaw))
	axle, err := constraint.NewHinge(w.Bodies, fi, wi, pos, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(axle))
	return w, axle
}

// The wheel keeps its spin and its hinge: over 10 s at h = 1/60 the axle's
// alignment error stays ≤ 0.01 rad (≤ 1e-6 with post-stabilization) and
// the energy within 5 %.
func TestSpinningWheelOnTurningFrame(t *testing.T) {
	for _, c := range []struct {
		mode stepper.Stabilization
		viol float64
	}{{stepper.Regularized, 0.01}, {stepper.Post, 1e-6}} {
		w, axle := wheelWorld(t, c.mode)
		e0, _ := w.Energy()
		emin, emax, maxv := e0, e0, 0.0
		viol := make([]float64, axle.Dim())
		for i := 0; i < 600; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			ctx := constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
			require.NoError(t, axle.Violation(&ctx, viol))
			for _, v := range viol[3:5] { // the two axis-alignment rows
				maxv = math.Max(maxv, math.Abs(v))
			}
			e, _ := w.Energy()
			emin, emax = math.Min(emin, e), math.Max(emax, e)
		}
		t.Logf("%v: axle misalignment %.2e rad, energy %.4f…%.4f of start", c.mode, maxv, emin/e0, emax/e0)
		assert.LessOrEqual(t, maxv, c.viol)
		assert.GreaterOrEqual(t, emin/e0, 0.95)
		assert.LessOrEqual(t, emax/e0, 1.05)
	}
}

// The 10-link chain6 at a game-sized step (h = 0.05 s, thin links with an
// inertia ratio of 67:1) stays together and never gains energy: the
// position projection above Settings.ProjectAbove takes over where the
// Φ/h feedback would inject it.
func TestChainAtLargeStepStaysBounded(t *testing.T) {
	p := scenes.DefaultChainParams()
	p.Links = 10
	p.Settings.H = 0.05
	w, err := scenes.Chain(p)
	require.NoError(t, err)
	k, u := w.Energy()
	e0 := k + u
	mgl := float64(p.Links) * p.Mass * 9.81 * float64(p.Links) * p.Length // the chain's m g L
	gain, sep := 0.0, 0.0
	for i := 0; i < 200; i++ { // 10 s
		st, err := w.Step()
		require.NoError(t, err)
		k, u := w.Energy()
		gain = math.Max(gain, k+u-e0)
		sep = math.Max(sep, st.MaxViolation)
	}
	t.Logf("largest energy above the start %.2e J (%.2e of m g L), largest joint separation %.2e m", gain, gain/mgl, sep)
	assert.LessOrEqual(t, gain, 0.01*mgl)
	assert.LessOrEqual(t, sep, 0.05)
}

// A state that stops being finite is an error that names the body.
func TestNonFiniteStateIsAnError(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: stepper.MaxH})
	require.NoError(t, err)
	b, err := body.New(body.Params{Name: "rocket", Mass: 1e-3, Inertia: body.SphereInertia(1e-3, 0.1), Rot: mgl64.QuatIdent(),
		Force: mgl64.Vec3{1e306, 0, 0}}) // finite, but h² F/m overflows
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	_, err = w.Step()
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `"rocket"`), err.Error())
}

// Stats.EnergyAdded: a free fall adds nothing beyond rounding; the
// applied force's work is not counted as added.
func TestEnergyAddedOfFreeFall(t *testing.T) {
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	b, err := body.New(body.Params{Mass: 2, Inertia: body.SphereInertia(2, 0.1), Rot: mgl64.QuatIdent(),
		Force: mgl64.Vec3{3, 0, 0}})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		// Semi-implicit Euler under a constant force: ΔK = f·h v⁺ − ½ h²
		// |f|²/m exactly, so the step "adds" −½ h² |f_total|²/m (a loss).
		ft := mgl64.Vec3{3, 0, -2 * 9.81}
		assert.InDelta(t, -0.5*0.01*0.01*ft.Dot(ft)/2, st.EnergyAdded, 1e-9)
	}
}
