package scenes_test

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// build builds a registered scene with overrides.
func build(t *testing.T, name string, set map[string]string) *stepper.World {
	t.Helper()
	s, err := scenes.Lookup(name)
	require.NoError(t, err)
	w, err := s.Build(set)
	require.NoError(t, err)
	return w
}

// geomPose is the world pose of geom g.
func geomPose(w *stepper.World, g stepper.Geom) contact.Pose {
	rot := g.Local.Rot
	if rot == (mgl64.Quat{}) {
		rot = mgl64.QuatIdent()
	}
	if g.Body == constraint.World {
		return contact.Pose{Pos: g.Local.Pos, Rot: rot}
	}
	b := w.Bodies[g.Body]
	return contact.Pose{Pos: b.Pos.Add(b.Rot.Rotate(g.Local.Pos)), Rot: b.Rot.Mul(rot)}
}

// minGap returns the smallest signed gap (m) between any two geoms of w
// within 1 cm of each other (contact.Collide with a 1 cm margin), the
// ground included, and how many pairs came that close; +Inf if none did.
// Pairs whose bounding spheres are more than 1 cm apart are skipped.
func minGap(w *stepper.World) (float64, int) {
	const margin = 0.01
	radius := func(g stepper.Geom) float64 { return g.Shape.Size.Len() / 2 }
	gap, close := math.Inf(1), 0
	var pts []contact.Point
	for i, a := range w.Geoms {
		pa := geomPose(w, a)
		for _, b := range w.Geoms[i+1:] {
			pb := geomPose(w, b)
			if a.Shape.Kind != contact.Plane && b.Shape.Kind != contact.Plane &&
				pa.Pos.Sub(pb.Pos).Len() > radius(a)+radius(b)+margin {
				continue
			}
			pts = contact.Collide(pts[:0], a.Shape, pa, b.Shape, pb, margin)
			if len(pts) > 0 {
				close++
			}
			for _, p := range pts {
				gap = math.Min(gap, p.Gap)
			}
		}
	}
	return gap, close
}

// No two bodies of the new scenes intersect at the start, nor any body the
// ground: every gap between geoms within 1 cm is ≥ 0. The dominoes stand
// on the ground (gap 0 to rounding: 1e-12 m); the piles' boxes start at
// least 0.5 m up, so their smallest gap is that of two boxes.
func TestUnstructuredScenesStartApart(t *testing.T) {
	for _, c := range []struct {
		scene string
		set   map[string]string
		bound float64 // the smallest gap allowed (m)
	}{
		{"randompile", nil, 0},
		{"randompile", map[string]string{"boxes": "1000", "seed": "7"}, 0},
		{"piles", nil, 0},
		{"dominoes", nil, -1e-12},
		{"dominoes", map[string]string{"count": "1000", "layout": "spiral"}, -1e-12},
	} {
		w := build(t, c.scene, c.set)
		gap, close := minGap(w)
		t.Logf("%s %v: %d bodies, %d pairs within 1 cm, smallest gap %.3g m", c.scene, c.set, len(w.Bodies), close, gap)
		assert.GreaterOrEqual(t, gap, c.bound, "%s %v", c.scene, c.set)
		if c.scene == "dominoes" {
			// Every domino touches the ground, and only the ground.
			assert.Equal(t, len(w.Bodies), close, "%s %v", c.scene, c.set)
			assert.InDelta(t, 0, gap, 1e-12)
		}
	}
}

// The default random pile is the pile of issue 25: 100 boxes of sides
// 0.05–0.3 m (uniform per side) and 500 kg/m³ between 0.5 and 3 m up (the
// centre), μ = 0.5, h = 1/60 s; the draws are reproducible (same seed,
// same pile) and another seed gives another pile.
func TestRandomPileDistribution(t *testing.T) {
	w := build(t, "randompile", nil)
	require.Len(t, w.Bodies, 100)
	assert.Equal(t, stepper.DefaultSettings(), w.Settings)
	require.Len(t, w.Geoms, 101)
	assert.Equal(t, contact.Plane, w.Geoms[0].Shape.Kind)
	for _, g := range w.Geoms {
		assert.Equal(t, 0.5, g.Material.Friction)
	}
	for i, b := range w.Bodies {
		s := w.Geoms[i+1].Shape.Size
		for k := 0; k < 3; k++ {
			assert.True(t, s[k] >= 0.05 && s[k] <= 0.3, "box %d side %v", i, s)
		}
		// Mass = 500 kg/m³ × volume, to rounding (1e-15 relative).
		assert.InEpsilon(t, 500*s[0]*s[1]*s[2], b.Mass, 1e-15)
		assert.True(t, b.Pos[2] >= 0.5 && b.Pos[2] <= 3, "box %d at %v", i, b.Pos)
		assert.InDelta(t, 1, b.Rot.Len(), 1e-15)
	}
	again := build(t, "randompile", nil)
	for i := range w.Bodies {
		assert.Equal(t, *w.Bodies[i], *again.Bodies[i])
	}
	other := build(t, "randompile", map[string]string{"seed": "1"})
	assert.NotEqual(t, w.Bodies[0].Pos, other.Bodies[0].Pos)
}

// pileHeight is the mean height (m) of the bodies' centres.
func pileHeight(w *stepper.World) float64 {
	z := 0.0
	for _, b := range w.Bodies {
		z += b.Pos[2]
	}
	return z / float64(len(w.Bodies))
}

// finiteState reports whether every body's pose and velocity is finite.
func finiteState(w *stepper.World) bool {
	for _, b := range w.Bodies {
		for _, v := range []mgl64.Vec3{b.Pos, b.Vel, b.AngVel, b.Rot.V} {
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return false
				}
			}
		}
	}
	return true
}

// A 40-box pile dropped for 2 s (120 steps) has landed: the mean height of
// the centres falls from the drop heights (1.75 m on average) to below
// 0.3 m, the largest box being 0.3 m and no box landing on more than a
// few others; every state stays finite and no step hits the budget.
func TestRandomPileFalls(t *testing.T) {
	w := build(t, "randompile", map[string]string{"boxes": "40"})
	z0 := pileHeight(w)
	for k := 0; k < 120; k++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.False(t, st.BudgetHit, "step %d", k+1)
	}
	require.True(t, finiteState(w))
	z1 := pileHeight(w)
	t.Logf("mean height %.3f m → %.3f m", z0, z1)
	assert.Greater(t, z0, 1.0)
	assert.Less(t, z1, 0.3)
}

// The piles stay apart: over 2 s (120 steps) of two 30-box piles no
// contact joins bodies of different piles, and no box leaves its pile's
// square by more than a quarter of the default 4 m gap (the smallest
// margin that keeps the piles' islands apart with room to spare).
func TestPilesStayApart(t *testing.T) {
	const boxes = 30
	w := build(t, "piles", map[string]string{"piles": "2", "boxes": fmt.Sprint(boxes)})
	require.Len(t, w.Bodies, 2*boxes)
	start := make([]mgl64.Vec3, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	var cs []stepper.ContactInfo
	z0 := pileHeight(w)
	for k := 0; k < 120; k++ {
		_, err := w.Step()
		require.NoError(t, err)
		cs = w.Contacts(cs)
		for _, c := range cs {
			if c.A != constraint.World && c.B != constraint.World {
				require.Equal(t, c.A/boxes, c.B/boxes, "step %d: contact between bodies %d and %d of different piles", k+1, c.A, c.B)
			}
		}
	}
	require.True(t, finiteState(w))
	moved := 0.0
	for i, b := range w.Bodies {
		d := b.Pos.Sub(start[i])
		moved = math.Max(moved, math.Hypot(d[0], d[1]))
	}
	t.Logf("largest horizontal travel %.3f m; mean height %.3f → %.3f m", moved, z0, pileHeight(w))
	assert.Less(t, moved, 1.0)
	assert.Less(t, pileHeight(w), z0)
}

// Dominoes along the spiral topple one another around its turn: 15
// dominoes (1.7 m of path at radius 1–1.1 m, the path turning 0.12 rad
// per domino, 1.7 rad in all) are all down, tilted by more than 60°,
// after 4 s; states stay finite.
func TestDominoSpiralTopples(t *testing.T) {
	w := build(t, "dominoes", map[string]string{"count": "15", "layout": "spiral"})
	z0 := pileHeight(w)
	for k := 0; k < 240; k++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	require.True(t, finiteState(w))
	for i, b := range w.Bodies {
		tilt := math.Acos(math.Min(1, b.Rot.Rotate(mgl64.Vec3{0, 0, 1})[2]))
		assert.Greater(t, tilt, 60*math.Pi/180, "domino %d: tilt %.0f°", i+1, tilt*180/math.Pi)
	}
	assert.Less(t, pileHeight(w), z0)
}

// The spiral keeps its pitch: neighbours' centres 0.12 m apart (1e-12 m:
// the bisection ends at adjacent floats of θ, times a radius of a few m),
// and 1 000 dominoes, 120 m of path in turns 0.3 m apart from a 1 m
// radius, fit in a disc of radius √(1 + 120·0.3/π) ≈ 3.5 m.
func TestDominoSpiralLayout(t *testing.T) {
	w := build(t, "dominoes", map[string]string{"count": "1000", "layout": "spiral"})
	rmax := 0.0
	for i, b := range w.Bodies {
		rmax = math.Max(rmax, math.Hypot(b.Pos[0], b.Pos[1]))
		if i > 0 {
			assert.InDelta(t, 0.12, b.Pos.Sub(w.Bodies[i-1].Pos).Len(), 1e-12, "domino %d", i+1)
		}
	}
	t.Logf("outer radius %.3f m", rmax)
	assert.Less(t, rmax, 3.6)
	assert.Greater(t, rmax, 3.0)
	// The first domino turns about its front bottom edge: that edge's
	// velocity is zero (1e-15: rounding of the rotated lever arm).
	d := w.Bodies[0]
	edge := d.Pos.Add(d.Rot.Rotate(mgl64.Vec3{0.01, 0, -0.1}))
	v := d.Vel.Add(d.AngVel.Cross(edge.Sub(d.Pos)))
	assert.InDelta(t, 0, v.Len(), 1e-15)
}

// Bad parameters get an error naming the parameter and the value; sizes
// are capped so that a short job cannot ask for unbounded memory.
func TestUnstructuredSceneErrors(t *testing.T) {
	for _, c := range []struct {
		scene string
		set   map[string]string
		want  string
	}{
		{"randompile", map[string]string{"boxes": "0"}, "randompile: --set boxes=0: boxes must be ≥ 1"},
		{"randompile", map[string]string{"boxes": "20001"}, "randompile: --set boxes=20001: boxes must be ≤ 20000, its maximum"},
		{"randompile", map[string]string{"seed": "-1"}, "randompile: --set seed=-1: seed must be ≥ 0"},
		{"randompile", map[string]string{"density": "0"}, "density must be > 0"},
		{"piles", map[string]string{"piles": "65"}, "piles: --set piles=65: piles must be ≤ 64, its maximum"},
		{"piles", map[string]string{"boxes": "5001"}, "piles: Boxes: must be in [1, 5000] for 4 piles (at most 20000 boxes in all), got 5001"},
		{"piles", map[string]string{"gap": "2000"}, "piles: --set gap=2000: gap must be ≤ 1000, its maximum"},
		{"dominoes", map[string]string{"count": "20001"}, "dominoes: --set count=20001: count must be ≤ 20000, its maximum"},
		{"dominoes", map[string]string{"layout": "zigzag"}, "dominoes: --set layout=zigzag: want one of line, spiral"},
		{"dominoes", map[string]string{"pitch": "0.01"}, "dominoes: --set pitch=0.01: pitch must be ≥ 0.03"},
		{"dominoes", map[string]string{"spin": "1e3"}, "dominoes: --set spin=1e3: spin must be ≤ 100, its maximum"},
	} {
		s, err := scenes.Lookup(c.scene)
		require.NoError(t, err)
		_, err = s.Build(c.set)
		assert.ErrorContains(t, err, c.want, "%s %v", c.scene, c.set)
	}
	_, err := scenes.RandomPile(scenes.RandomPileParams{Boxes: 10, Density: 500, Friction: -1, Settings: stepper.DefaultSettings()})
	assert.EqualError(t, err, "randompile: Friction: must be finite and ≥ 0, got -1")
	_, err = scenes.Dominoes(scenes.DominoesParams{Count: 10, Layout: "line", Pitch: 0.12, Density: 700, Settings: stepper.Settings{}})
	assert.ErrorContains(t, err, "H")
}

// The new scenes export as scene files that load into the same world,
// bit for bit (randomly rotated boxes and spiral dominoes included).
func TestUnstructuredScenesExport(t *testing.T) {
	for _, c := range []struct {
		scene string
		set   map[string]string
	}{
		{"randompile", map[string]string{"boxes": "20"}},
		{"piles", map[string]string{"piles": "3", "boxes": "5"}},
		{"dominoes", map[string]string{"count": "12", "layout": "spiral"}},
	} {
		var b bytes.Buffer
		require.NoError(t, scenes.Export(c.scene, c.set, &b))
		loaded, err := scenes.Load(&b, "x.json")
		require.NoError(t, err)
		built := build(t, c.scene, c.set)
		assert.Equal(t, built.Settings, loaded.Settings, c.scene)
		assert.Equal(t, built.Bodies, loaded.Bodies, c.scene)
		assert.Equal(t, built.Geoms, loaded.Geoms, c.scene)
	}
}
