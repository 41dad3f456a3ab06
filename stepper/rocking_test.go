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

// A block rocking on two ridges (Housner's rocking block, "The behavior of
// inverted pendulum structures during earthquakes", 1963): its bottom face,
// 2b = 6 cm wide, lies across the top edges of two fixed boxes turned 45°,
// and it pivots on one bottom edge, then on the other. Each ridge meets the
// tilted block at an edge–edge contact, so the edge that comes down is a
// second edge–edge point of the same pair. Body 337 of the 1 000-box pile
// rocked so for 70–260 steps: box–box detection gave that pair one point,
// the edge coming down was not a speculative contact, it fell ~0.5 mm into
// the other box within the step, and the position projection lifted it out,
// adding m g Δz (0.013–0.017 J a swing there, about what each impact took);
// here the block's steps added up to 7 mJ and it crossed 6 times.
//
// With the edge coming down caught as a speculative contact, the block
// lands on it without falling in: no step adds energy, no projection runs,
// and the block crosses to its other edge at least once and comes to rest
// flat on both.
func TestRockingBlockOnRidges(t *testing.T) {
	const m, b, hh, mu = 2.0, 0.03, 0.15, 0.8 // kg, half width, half height (m)
	w := nuWorld(t, 0)
	w.Settings.Sleep = stepper.Sleep{}
	ridge, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	turn := mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0}) // top edge along y
	top := 0.1 * math.Sqrt2
	for _, x := range []float64{-0.15, 0.15} {
		_, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: ridge,
			Local: contact.Pose{Pos: mgl64.Vec3{x, 0, 0}, Rot: turn}, Material: stepper.Material{Friction: mu}})
		require.NoError(t, err)
	}
	// Tilted by θ₀ about x on its y = +b bottom edge, which lies on both
	// ridges; θ₀ < α, so it falls back towards the other edge.
	const theta0 = 0.05
	rot := mgl64.QuatRotate(-theta0, mgl64.Vec3{1, 0, 0})
	pivot := mgl64.Vec3{0, b, top}
	blk := addBox(t, w, m, mgl64.Vec3{0.5, 2 * b, 2 * hh}, pivot.Add(rot.Rotate(mgl64.Vec3{0, -b, hh})), rot, mu)
	require.Greater(t, rot.Rotate(mgl64.Vec3{0, -2 * b, 0}).Z(), 0.0, "the other edge starts lifted")

	crossings, maxAdded, projections := 0, 0.0, 0
	tilt := func() float64 { return blk.Rot.Rotate(mgl64.Vec3{0, 1, 0}).Z() } // > 0: on the y = −b edge
	for k := 0; k < 120; k++ {
		t0 := tilt()
		st, err := w.Step()
		require.NoError(t, err)
		maxAdded = math.Max(maxAdded, st.EnergyAdded)
		projections += st.Projections
		if t0*tilt() < 0 && math.Abs(tilt()) > 1e-4 {
			crossings++
		}
	}
	t.Logf("crossed to the other edge %d times; tilt %.2g, |ω| %.2g rad/s after 2 s", crossings, tilt(), blk.AngVel.Len())
	assert.GreaterOrEqual(t, crossings, 1, "the block rocks onto its other edge")
	// 1e-6 rad: flat on both edges, as far as the contacts' ~µm resting
	// depth tilts it over its 6 cm width.
	assert.Less(t, math.Abs(tilt()), 1e-6, "at rest flat")
	assert.Less(t, blk.AngVel.Len(), 1e-6, "at rest")
	// 1e-6 J: a swing here carries ~3 mJ; lifting 2 kg out of 0.1 mm of
	// overlap adds 2 mJ.
	assert.Less(t, maxAdded, 1e-6, "energy a step added")
	assert.Zero(t, projections, "position projections")
}

// The same rocking block as a user builds it: nothing static but the
// floor. Two free 0.2 m boxes rest on the floor with a 0.1 m gap, and the
// block lies across both, tilted by θ₀ about x on its y = +b bottom edge,
// so it rocks on their top faces (a face–edge pair on each box, both
// supports free to move). DefaultSettings at h = 1/60 s, sleeping on. It
// comes to rest flat on both boxes without a step adding energy and
// without moving the boxes it rocks on.
func TestRockingBlockOnFreeBoxes(t *testing.T) {
	const m, b, hh, mu = 2.0, 0.03, 0.15, 0.8 // kg, half width, half height (m)
	w := nuWorld(t, 0)
	_, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: stepper.Material{Friction: mu}})
	require.NoError(t, err)
	var supports []*body.Body
	for _, x := range []float64{-0.15, 0.15} {
		supports = append(supports, addBox(t, w, 4, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{x, 0, 0.1}, mgl64.QuatIdent(), mu))
	}
	const theta0 = 0.05
	rot := mgl64.QuatRotate(-theta0, mgl64.Vec3{1, 0, 0})
	pivot := mgl64.Vec3{0, b, 0.2}
	blk := addBox(t, w, m, mgl64.Vec3{0.5, 2 * b, 2 * hh}, pivot.Add(rot.Rotate(mgl64.Vec3{0, -b, hh})), rot, mu)
	tilt := func() float64 { return blk.Rot.Rotate(mgl64.Vec3{0, 1, 0}).Z() }
	crossings, maxAdded := 0, 0.0
	for k := 0; k < 180; k++ {
		t0 := tilt()
		st, err := w.Step()
		require.NoError(t, err)
		maxAdded = math.Max(maxAdded, st.EnergyAdded)
		if t0*tilt() < 0 && math.Abs(tilt()) > 1e-4 {
			crossings++
		}
	}
	t.Logf("crossed %d times; tilt %.2g, |ω| %.2g rad/s, largest step gain %.2g J after 3 s", crossings, tilt(), blk.AngVel.Len(), maxAdded)
	assert.GreaterOrEqual(t, crossings, 1, "the block rocks onto its other edge")
	// 1e-6 rad: flat on both boxes, as far as the contacts' ~µm resting
	// depth tilts it over its 6 cm width; 1e-6 rad/s: at rest.
	assert.Less(t, math.Abs(tilt()), 1e-6, "at rest flat")
	assert.Less(t, blk.AngVel.Len(), 1e-6, "at rest")
	// 1e-6 J, as above: a swing carries ~3 mJ.
	assert.Less(t, maxAdded, 1e-6, "energy a step added")
	for i, s := range supports {
		// 1e-4 m: the block's impacts may nudge a support through its
		// friction, never push it away.
		assert.Less(t, math.Hypot(s.Pos.X()-[]float64{-0.15, 0.15}[i], s.Pos.Y()), 1e-4, "support %d stays", i)
	}
}
