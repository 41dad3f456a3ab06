package scenes_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// contactRun is one of testdata/newuser/contacts' scene files stepped for
// a shortened run: the world after it, the largest energy a step added and
// the largest contact violation a step left.
type contactRun struct {
	w             *stepper.World
	added, violat float64
}

func (r *contactRun) body(t *testing.T, name string) *body.Body {
	t.Helper()
	for _, b := range r.w.Bodies {
		if b.Name == name {
			return b
		}
	}
	t.Fatalf("no body %q", name)
	return nil
}

// kinetic is the world's kinetic energy (J).
func (r *contactRun) kinetic() float64 {
	k, _ := r.w.Energy()
	return k
}

// runContactFile loads testdata/newuser/contacts/NAME.json, sets its step
// to h (0: the file's 1/60 s) and steps it for t seconds.
func runContactFile(t *testing.T, name string, h, secs float64) *contactRun {
	t.Helper()
	w, err := scenes.LoadFile(filepath.Join("..", "testdata", "newuser", "contacts", name+".json"))
	require.NoError(t, err)
	if h > 0 {
		w.Settings.H = h
	}
	r := &contactRun{w: w}
	n := int(math.Round(secs / w.Settings.H))
	for i := 0; i < n; i++ {
		st, err := w.Step()
		require.NoError(t, err)
		r.added = math.Max(r.added, st.EnergyAdded)
		r.violat = math.Max(r.violat, st.MaxViolation)
	}
	return r
}

// tiltDeg is the angle (degrees) between a body's local z and world z.
func tiltDeg(b *body.Body) float64 {
	c := b.Rotation().Col(2)[2]
	return math.Acos(math.Max(-1, math.Min(1, c))) * 180 / math.Pi
}

// The contact scenes of testdata/newuser/contacts (its README), as a new
// user writes them: only "h" = 1/60 s in the settings (the zero
// stepper.Settings with standard gravity: no sleeping, no turn_friction),
// each run shortened and checked against its analytic answer, at 1/60 s
// and, for the resting and sliding ones, 1/120 s. Tolerances: 1 mm for a
// rest position; 1e-6 J of kinetic energy at rest (1e-6 of a body's m g
// times its size, nothing a viewer sees move); 1e-5 J for the energy a
// step adds (a corner pushed out of the floor by the projection adds 0.5 J
// a centimetre for the 5 kg plank); the others are stated where they are.
func TestNewUserContactSceneFiles(t *testing.T) {
	for _, h := range []float64{0, 1.0 / 120} {
		// Resting: every body within 1 mm of where it was put, still.
		for _, c := range []struct {
			name string
			secs float64
		}{{"plank-wall-60", 2}, {"planks-leaning-20", 2}, {"cylinder-on-box", 1}, {"stack10-minimal", 3}, {"ramp-box-25", 2}} {
			w0, err := scenes.LoadFile(filepath.Join("..", "testdata", "newuser", "contacts", c.name+".json"))
			require.NoError(t, err)
			r := runContactFile(t, c.name, h, c.secs)
			for i, b := range r.w.Bodies {
				// The files put bodies up to 1 mm above their support.
				assert.Less(t, b.Pos.Sub(w0.Bodies[i].Pos).Len(), 1.1e-3, "%s h %v: %s moved", c.name, h, b.Name)
			}
			assert.Less(t, r.kinetic(), 1e-6, "%s h %v: kinetic energy at rest", c.name, h)
			assert.Less(t, r.added, 1e-5, "%s h %v: energy added", c.name, h)
		}
		hh := 1.0 / 60
		if h > 0 {
			hh = h
		}
		// A box at 2 m/s on μ = 0.3 stops after v₀²/(2μg) − v₀h/2 (the
		// first step's friction acts before the step moves it), 0.66292 m
		// at 1/60 s and 0.67125 at 1/120 s, on the plane, a static box and
		// across a two-triangle mesh's diagonal alike (measured 6e-5 m
		// more: the step ends between the stop and the last step's move).
		stop := 4/(2*0.3*stepper.StandardGravity.Len()) - 2*hh/2
		r := runContactFile(t, "slide-stop", h, 1.5)
		for _, n := range []string{"onplane", "onbox"} {
			assert.InDelta(t, stop, r.body(t, n).Pos[0], 1e-4, "%s h %v", n, h)
		}
		r = runContactFile(t, "trimesh-ramp", h, 1.5)
		assert.InDelta(t, stop, r.body(t, "crate").Pos[0]+1, 1e-4, "trimesh crate h %v", h)
		// A solid sphere rolls down the 20° mesh and heightfield at (5/7)
		// g sin 20° = 2.396584 m/s² (exact: the step keeps the rolling
		// constraint and constant acceleration exactly).
		for _, n := range []string{"trimesh-ramp", "heightfield-ramp"} {
			r := runContactFile(t, n, h, 1)
			v := r.body(t, "ball").Vel.Len()
			assert.InDelta(t, 5.0/7*stepper.StandardGravity.Len()*math.Sin(20*math.Pi/180), v, 1e-9, "%s h %v: speed after 1 s", n, h)
		}
		// A box on a 35° static box ramp (μ = 0.6 < tan 35°) slides at
		// g (sin θ − μ cos θ) = 0.805256 m/s²; 1e-6 m/s after 0.5 s
		// (measured 1.6e-7 and 8e-8 m/s slow at 1/60 and 1/120 s).
		r = runContactFile(t, "ramp-box-35", h, 0.5)
		th := 35 * math.Pi / 180
		assert.InDelta(t, 0.5*stepper.StandardGravity.Len()*(math.Sin(th)-0.6*math.Cos(th)), r.body(t, "block").Vel.Len(), 1e-6, "ramp 35 h %v", h)
		// Sliding down to lie flat: the plank at 30° (below the ladder's
		// 36.9°) and two planks leaning at 35° from the vertical on μ = 0.3
		// (tan 35° > 2μ): each ends flat, its centre half its 0.05 m
		// thickness up (or on the other plank), still, and no step adds
		// energy (0.465 J and 0.038 J when the plane kept a plank's near
		// end's corners).
		for _, n := range []string{"plank-wall-30", "planks-leaning-35"} {
			r := runContactFile(t, n, h, 2)
			for _, b := range r.w.Bodies {
				if b.Name == "wall" {
					continue
				}
				assert.InDelta(t, 90, tiltDeg(b), 0.1, "%s h %v: %s flat", n, h, b.Name)
				assert.True(t, math.Abs(b.Pos[2]-0.025) < 1e-3 || math.Abs(b.Pos[2]-0.075) < 1e-3, "%s h %v: %s at %.4f m", n, h, b.Name, b.Pos[2])
			}
			assert.Less(t, r.kinetic(), 1e-6, "%s h %v", n, h)
			assert.Less(t, r.added, 1e-5, "%s h %v: energy added", n, h)
		}
	}

	// The 1/60 s scenes only (the rest as a user runs them).
	// A sphere and a box rolled and slid by a tilted gravity into the
	// corner of two walls and the floor rest in it, at (0.1, 0.1, 0.1).
	for _, c := range []struct{ file, body string }{{"sphere-corner", "ball"}, {"box-corner", "crate"}} {
		r := runContactFile(t, c.file, 0, 4)
		assert.Less(t, r.body(t, c.body).Pos.Sub(mgl64.Vec3{0.1, 0.1, 0.1}).Len(), 1e-3, c.file)
		assert.Less(t, r.kinetic(), 1e-6, c.file)
	}
	// 24 spheres, capsules, cylinders, boxes and hulls dropped into a bin
	// of static boxes stay in it, and no step adds more than 1e-3 J, 6e-6
	// of the 160 J they release in 4 s (measured 7.1e-8 J; the round ones
	// roll on: README).
	r0 := runContactFile(t, "bin-pile", 0, 4)
	for _, b := range r0.w.Bodies {
		assert.True(t, math.Abs(b.Pos[0]) < 0.7 && math.Abs(b.Pos[1]) < 0.7 && b.Pos[2] > -0.1 && b.Pos[2] < 0.6, "%s at %v: out of the bin", b.Name, b.Pos)
	}
	k0, u0 := r0.w.Energy()
	t.Logf("bin-pile after 4 s: largest step gain %.3g J, kinetic %.3g J, potential %.4g J", r0.added, k0, u0)
	assert.Less(t, r0.added, 1e-3, "bin-pile: energy added")
	// A 0.1 × 0.1 × 0.6 m box put on its edge 0.02 rad inside its critical
	// angle atan(1/6) = 0.1651 rad falls back upright; 0.02 rad beyond, it
	// falls over and lies on its side.
	r := runContactFile(t, "tall-box-tip-back", 0, 2)
	assert.InDelta(t, 0.3, r.body(t, "tall").Pos[2], 1e-3)
	assert.Less(t, tiltDeg(r.body(t, "tall")), 0.1)
	assert.Less(t, r.kinetic(), 1e-6)
	r = runContactFile(t, "tall-box-tip-over", 0, 2)
	assert.InDelta(t, 0.05, r.body(t, "tall").Pos[2], 1e-3)
	assert.InDelta(t, 90, tiltDeg(r.body(t, "tall")), 0.1)
	assert.Less(t, r.kinetic(), 1e-6)
	// A cylinder rolling at 0.5 m/s off a box's edge (μ = 1) stays in its
	// plane of symmetry and rolls on at 0.6384 m/s (stepper's
	// TestNewUserCylinderRollsOffEdge).
	r = runContactFile(t, "cylinder-off-edge", 0, 3)
	c := r.body(t, "roller")
	assert.Less(t, math.Abs(c.Pos[1]), 1e-9)
	assert.InDelta(t, 0.6384, c.Vel[0], 0.0032)
	// The same with a capsule: 0.6392 m/s (TestNewUserCapsuleRollsOffEdge).
	r = runContactFile(t, "capsule-off-edge", 0, 3)
	c = r.body(t, "roller")
	assert.Less(t, math.Abs(c.Pos[1]), 1e-9)
	assert.InDelta(t, 0.6392, c.Vel[0], 0.0032)
	assert.Less(t, r.added, 1e-5)
	// A 12-gon prism hull (R = 0.1 m) rolling off the edge at 1 m/s and
	// 10 rad/s lands, rocks from edge to edge losing 17 % of its energy at
	// each, and rests on a face, its centre R cos 15° = 0.096593 m up
	// (TestNewUserHullRollsOffEdge). It stuck in the floor from step 73,
	// step 74 adding 0.217 J, while the plane kept 4 of its vertices spread
	// by area and left out the ones that closed in the step.
	r = runContactFile(t, "hull-off-edge", 0, 4)
	c = r.body(t, "roller")
	assert.InDelta(t, 0.1*math.Cos(15*math.Pi/180), c.Pos[2], 1e-3, "hull on a face")
	assert.Less(t, math.Abs(c.Pos[1]), 1e-7, "hull sideways")
	assert.Less(t, r.kinetic(), 1e-6, "hull at rest")
	assert.Less(t, r.added, 1e-5, "hull: energy added")
	// A coin (r = 0.05 m) rolling upright at 1 m/s, above the speed √(g r/3)
	// = 0.4 m/s that keeps a rolling disk up, goes straight on at 1 m/s.
	r = runContactFile(t, "coin-roll", 0, 2)
	assert.InDelta(t, 1, r.body(t, "coin").Vel[0], 1e-9)
	assert.Less(t, math.Abs(r.body(t, "coin").Rotation().Col(1)[2]), 1e-9, "the coin's axis (its body y) stays level")
	// Ten dominoes, the first tipped: all fall, the last flat on the
	// floor, and they rest.
	r = runContactFile(t, "dominoes10", 0, 3)
	for _, b := range r.w.Bodies {
		assert.Greater(t, tiltDeg(b), 60.0, "%s fell", b.Name)
	}
	assert.InDelta(t, 0.01, r.body(t, "d10").Pos[2], 1e-3)
	assert.Less(t, r.kinetic(), 1e-6)
	// A seesaw (2 kg, 2 m plank hinged at its centre 0.3 m up) with 1 kg
	// at −0.8 m and 1 kg at +0.4 m: it starts to turn at g (0.8 − 0.4) /
	// I = 2.5954 rad/s² (I = 1.51192 kg·m² about the hinge, the boxes'
	// centres 0.1255 m above it) and comes to rest on its left end,
	// tilted by the θ with 0.3 = sin θ + 0.025 cos θ (16.0°).
	w, err := scenes.LoadFile(filepath.Join("..", "testdata", "newuser", "contacts", "seesaw.json"))
	require.NoError(t, err)
	var om [4]float64
	for i := 1; i <= 3; i++ {
		_, err := w.Step()
		require.NoError(t, err)
		om[i] = w.Bodies[0].AngVel[1]
	}
	// Step 3, after the first step's 0.5 mm fall onto the plank; 0.2 %: the
	// boxes' lever changing as it turns (measured −2.5992 rad/s²).
	assert.InDelta(t, -2.5954, (om[3]-om[2])/w.Settings.H, 0.005, "seesaw's angular acceleration")
	r = runContactFile(t, "seesaw", 0, 4)
	theta := math.Asin(0.3/math.Hypot(1, 0.025)) - math.Atan2(0.025, 1)
	assert.InDelta(t, theta*180/math.Pi, tiltDeg(r.body(t, "plank"))-0, 0.05)
	assert.Less(t, r.kinetic(), 1e-6)
	assert.Less(t, r.added, 1e-5)
}
