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

// A plank (2 m × 0.3 m × 0.05 m, 5 kg) leaning on a wall at 30° from the
// floor, μ = 0.5, slides down (below the ladder's 36.9°) and slaps flat on
// the floor at about 2 m/s and 2 rad/s. Its far end's corners are the
// ones closing on the floor in the last step, while the near end's top
// corners are the lower ones (0.05 m against 0.052 m): the floor plane's
// contact must take the far corners, as a static box floor's does. Then
// no step adds energy (on a box floor at most 7e-10 J; when the plane
// kept the four corners of the near end, the far end fell 2.6 cm into the
// floor in one step and the projection lifted it out, adding 0.465 J at
// h = 1/60 s), and the plank lies flat, its centre 0.025 m up.
func TestNewUserPlankSlapsFlat(t *testing.T) {
	const mu, L, d = 0.5, 2.0, 0.05
	for _, c := range []struct {
		name  string
		h     float64
		plane bool
	}{{"plane 1/60", 1.0 / 60, true}, {"plane 1/120", 1.0 / 120, true}, {"box floor 1/60", 1.0 / 60, false}} {
		t.Run(c.name, func(t *testing.T) {
			w := nuWorld(t, c.h)
			if c.plane {
				ground(t, w, mgl64.QuatIdent(), mu)
			} else {
				addStaticBox(t, w, mgl64.Vec3{10, 10, 1}, mgl64.Vec3{0, 0, -0.5}, mgl64.QuatIdent(), mu)
			}
			addStaticBox(t, w, mgl64.Vec3{0.2, 2, 3}, mgl64.Vec3{0.1, 0, 1.5}, mgl64.QuatIdent(), mu) // the wall's face is x = 0
			th := 30 * math.Pi / 180
			phi := math.Pi/2 - th
			rot := mgl64.QuatRotate(phi, mgl64.Vec3{0, 1, 0})
			// The lowest corner on the floor, the top one on the wall.
			pos := mgl64.Vec3{-(L/2)*math.Sin(phi) - (d/2)*math.Cos(phi), 0, (L/2)*math.Cos(phi) + (d/2)*math.Sin(phi)}
			b := addBox(t, w, 5, mgl64.Vec3{d, 0.3, L}, pos, rot, mu)
			added, _ := nuStep(t, w, int(2/c.h))
			t.Logf("largest energy added %.3g J; centre at %.6f m, speed %.2g m/s", added, b.Pos[2], b.Vel.Len())
			// 1e-5 J: the solver's tolerance on a 25 J fall (7e-10 J on
			// the box floor, up to 7e-7 J in the scene file's zero
			// Settings); a corner projected out of the floor adds m g
			// times its depth, 0.5 J a centimetre.
			assert.Less(t, added, 1e-5, "energy added in one step")
			assert.InDelta(t, d/2, b.Pos[2], 1e-3, "lying flat")
		})
	}
}

// A solid cylinder (r = 0.1 m, 0.2 m long, 1 kg) rolling at v₀ = 0.5 m/s
// on a static box (μ = 1) over its edge, parallel to the cylinder's axis:
// it pivots on the edge, rolling until the friction it needs, m g sin β/3,
// exceeds μ N (β = 39.5°), then slipping until N = m (g cos β − r β̇²)
// vanishes (β = 46.2°; 47.1° without slip), flies and lands rolling, the
// angular momentum about the contact point kept: (2 vₓ + ω r)/3 = 0.6384
// m/s (the edge phase integrated with a 1e-7 s step). The scene is
// symmetric about the plane y = 0, so the cylinder must stay in it: no
// sideways drift and no turn about x or z. When the cylinder's side met
// the edge at one GJK/EPA point, that point sat at one end of the line or
// the other from step to step: the cylinder turned at 0.5 rad/s about x,
// landed at 14 rad/s about x and rolled off sideways, 7 cm in 5 m, at
// 0.631 m/s.
func TestNewUserCylinderRollsOffEdge(t *testing.T) {
	// 0.5 %: the step's O(h) on the edge and at the landing (measured
	// 0.6398 and 0.6369 m/s at h = 1/60 and 1/120 s).
	rollOffEdge(t, func(w *stepper.World, pos mgl64.Vec3, rot mgl64.Quat) *body.Body {
		return addCylinder(t, w, 1, 0.1, 0.1, pos, rot, 1)
	}, 0.6384, 0.0032)
}

// The same with a capsule (r = 0.1 m, 0.2 m straight, 1 kg): its axial
// inertia is k m r² with k = 0.46 (0.6 of its mass in the cylinder, 0.4
// in the two half-balls), so it slips from 39.1° on, leaves at 45.9° and
// rolls on at (vₓ + k ω r)/(1 + k) = 0.6392 m/s. When the nearest box
// feature was the edge, boxCapsule's golden-section search along the
// flat distance gave one point at either end of the overlap: it turned,
// drifted 9 cm sideways in 3 s, and a step over the edge added 0.01 J.
func TestNewUserCapsuleRollsOffEdge(t *testing.T) {
	// 0.5 %, as the cylinder's (measured 0.6405 and 0.6386 m/s).
	rollOffEdge(t, func(w *stepper.World, pos mgl64.Vec3, rot mgl64.Quat) *body.Body {
		b, err := body.New(body.Params{Mass: 1, Inertia: body.CapsuleInertia(1, 0.1, 0.2), Pos: pos, Rot: rot})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		sh, err := contact.NewCapsuleLength(0.1, 0.2)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sh, Material: stepper.Material{Friction: 1}})
		require.NoError(t, err)
		return b
	}, 0.6392, 0.0032)
}

// rollOffEdge rolls the round body add makes (radius 0.1 m, axis along its
// local z, μ = 1) at 0.5 m/s off the edge of a static box (top at 0.5 m,
// edge at x = 0) at h = 1/60 and 1/120 s for 3 s, and asserts that it
// stays in the plane y = 0, lands rolling at want ± tol m/s and adds no
// energy in any step.
func rollOffEdge(t *testing.T, add func(w *stepper.World, pos mgl64.Vec3, rot mgl64.Quat) *body.Body, want, tol float64) {
	t.Helper()
	const r, v0, mu = 0.1, 0.5, 1.0
	for _, h := range []float64{1.0 / 60, 1.0 / 120} {
		w := nuWorld(t, h)
		w.Settings.Sleep = stepper.Sleep{}
		ground(t, w, mgl64.QuatIdent(), mu)
		addStaticBox(t, w, mgl64.Vec3{1, 1, 0.5}, mgl64.Vec3{-0.5, 0, 0.25}, mgl64.QuatIdent(), mu)
		c := add(w, mgl64.Vec3{-0.4, 0, 0.5 + r}, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}))
		c.Vel = mgl64.Vec3{v0, 0, 0}
		c.AngVel = mgl64.Vec3{0, v0 / r, 0}
		var side, turn, added float64
		for i := 0; i < int(3/h); i++ {
			st, err := w.Step()
			require.NoError(t, err)
			side = math.Max(side, math.Abs(c.Pos[1]))
			turn = math.Max(turn, math.Hypot(c.AngVel[0], c.AngVel[2]))
			added = math.Max(added, st.EnergyAdded)
		}
		t.Logf("h = %.4f: rolls at %.4f m/s (ω r = %.4f), at most %.2g m sideways, %.2g rad/s about x and z, %.2g J added in a step", h, c.Vel[0], c.AngVel[1]*r, side, turn, added)
		// 1e-9: the scene's symmetry is exact up to rounding.
		assert.Less(t, side, 1e-9, "sideways drift")
		assert.Less(t, turn, 1e-9, "turn about x or z")
		assert.InDelta(t, want, c.Vel[0], tol, "rolling speed after the landing")
		assert.InDelta(t, c.Vel[0], c.AngVel[1]*r, 1e-9, "rolling without slip")
		// 1e-6 J: rounding and the solver's tolerance on a 0.8 J roll.
		assert.Less(t, added, 1e-6, "energy added in a step")
	}
}

// A body placed a little above one that something holds (a box on a box
// resting on the floor, a box above a seesaw's hinged plank): both fall
// freely under the free velocities, so their gap does not close under
// them, but the lower one is held and the upper one falls g h² (2.7 mm
// at h = 1/60 s) in the step. The contact must be in that step, each
// body's own approach counted: the upper box stops on the lower one,
// without falling into it (when the relative free velocity decided, the
// upper box fell 2.2 mm into the lower one, the position projection
// lifted it out and the step added 0.0049 J, and the seesaw's 0.0146 J,
// 55 % of what had been released).
func TestNewUserGapAboveHeldBody(t *testing.T) {
	const gap, mu = 5e-4, 0.5
	for _, seesaw := range []bool{false, true} {
		w := nuWorld(t, 0)
		w.Settings.Sleep = stepper.Sleep{}
		ground(t, w, mgl64.QuatIdent(), mu)
		top := 0.2 // the held body's top face
		if seesaw {
			addBox(t, w, 2, mgl64.Vec3{2, 0.3, 0.05}, mgl64.Vec3{0, 0, 0.3}, mgl64.QuatIdent(), mu)
			hinge, err := constraint.NewHinge(w.Bodies, 0, constraint.World, mgl64.Vec3{0, 0, 0.3}, mgl64.Vec3{0, 1, 0})
			require.NoError(t, err)
			require.NoError(t, w.AddConstraint(hinge))
			top = 0.325
		} else {
			addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), mu)
		}
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{-0.8, 0, top + 0.1 + gap}, mgl64.QuatIdent(), mu)
		if !seesaw {
			b.Pos[0] = 0
		}
		st, err := w.Step()
		require.NoError(t, err)
		t.Logf("seesaw %v: step 1 added %.3g J, %d projections, box bottom %.3g m above the top face", seesaw, st.EnergyAdded, st.Projections, b.Pos[2]-0.1-top)
		// 1e-9 J: stopping at the surface adds nothing but rounding; a
		// projection lifting 1 kg out of a 2.2 mm overlap adds 0.02 J.
		assert.Less(t, st.EnergyAdded, 1e-9, "energy added in step 1")
		assert.Zero(t, st.Projections, "the box fell into the one below")
		added, _ := nuStep(t, w, 120)
		assert.Less(t, added, 1e-6, "energy added in a later step")
	}
}

// testdata/newuser/contacts/hull-off-edge.json built with the Go API: a
// 12-gon prism hull (vertex radius R = 0.1 m, faces a = R cos 15° =
// 0.096593 m from the axis, 0.2 m long, 500 kg/m³) lying on a face on a
// static box (μ = 1), rolling off its edge at 1 m/s and 10 rad/s, in the
// file's zero Settings (no sleeping, no turn friction). A polygonal roller
// on the floor rocks from edge to edge, each edge's landing an inelastic
// impact that keeps the angular momentum about the new edge, ω⁺/ω⁻ = (I +
// m R² cos 30°)/(I + m R²) = 0.909 with I = m R² (1 + 2 cos² 15°)/6 =
// 0.4777 m R²: it loses 17 % of its energy at each edge, and once it
// cannot lift its centre over the next edge (R − a = 3.4 mm, below ω =
// 2.1 rad/s) it rocks and rests on a face, its centre a up. The scene is
// symmetric about the plane y = 0. When the plane's contact kept 4 of the
// vertices within the look-ahead spread by area, the prism (landing at
// 3 m/s, 8 vertices closing within the step) kept an uneven 4 and left
// the others to the projection: it landed tilted and from step 73 every
// step projected it out of the floor while it kept falling at 0.777 m/s,
// step 74 adding 0.217 J (0.164 J at 1/120 s). It now keeps every vertex
// that closes (up to 8; contact.CollideApproach). On a static box floor
// (the hull's face clipped on the box's, Collide's points as before) it
// rests the same way, before and after.
func TestNewUserHullRollsOffEdge(t *testing.T) {
	const R, L, rho, mu = 0.1, 0.2, 500.0, 1.0
	var pts []mgl64.Vec3
	for k := 0; k < 12; k++ {
		th := (15 + 30*float64(k)) * math.Pi / 180
		pts = append(pts, mgl64.Vec3{R * math.Cos(th), -L / 2, R * math.Sin(th)}, mgl64.Vec3{R * math.Cos(th), L / 2, R * math.Sin(th)})
	}
	s, m, inertia := hullBody(t, pts, rho)
	a := R * math.Cos(15*math.Pi/180)
	for _, c := range []struct {
		h     float64
		plane bool
	}{{1.0 / 60, true}, {1.0 / 120, true}, {1.0 / 60, false}} {
		h := c.h
		w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		if c.plane {
			ground(t, w, mgl64.QuatIdent(), mu)
		} else {
			addStaticBox(t, w, mgl64.Vec3{10, 10, 1}, mgl64.Vec3{0, 0, -0.5}, mgl64.QuatIdent(), mu)
		}
		addStaticBox(t, w, mgl64.Vec3{1, 1, 0.5}, mgl64.Vec3{-0.5, 0, 0.25}, mgl64.QuatIdent(), mu)
		b := addShapeBody(t, w, s, m, inertia, mgl64.Vec3{-0.4, 0, 0.5 + a}, mgl64.QuatIdent(), mu)
		b.Vel = mgl64.Vec3{1, 0, 0}
		b.AngVel = mgl64.Vec3{0, 10, 0}
		var added, side float64
		projections, worst := 0, 0
		for i := 0; i < int(4/h); i++ {
			st, err := w.Step()
			require.NoError(t, err)
			if st.EnergyAdded > added {
				added, worst = st.EnergyAdded, i+1
			}
			projections += st.Projections
			side = math.Max(side, math.Abs(b.Pos[1]))
		}
		k, _ := w.Energy()
		t.Logf("h = %.4f, plane %v: largest step gain %.3g J (step %d), %d projections, at x %.4f z %.6f m (a = %.6f), KE %.3g J, %.2g m sideways",
			h, c.plane, added, worst, projections, b.Pos[0], b.Pos[2], a, k, side)
		// 1e-5 J: the solver's tolerance on a 1.6 J fall; a vertex
		// projected out of the floor adds m g (3.1 kg · 9.81) times its
		// depth, 0.3 J a centimetre.
		assert.Less(t, added, 1e-5, "energy added in a step")
		assert.Zero(t, projections, "the hull fell into the floor")
		assert.InDelta(t, a, b.Pos[2], 1e-3, "resting on a face")
		// 1e-6 J, as TestNewUserContactSceneFiles' rest.
		assert.Less(t, k, 1e-6, "kinetic energy at rest")
		// 1e-7 m: the scene is symmetric about y = 0 up to rounding,
		// which the hull's triangulation breaks at 1e-9 m (measured 4e-9
		// m; 2.1 m before, sliding sideways stuck in the floor).
		assert.Less(t, side, 1e-7, "sideways drift")
	}
}
