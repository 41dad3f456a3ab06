package stepper_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/scenes"

	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nuRemove removes body i and its geoms from w the way the exported fields
// allow: the later bodies move down one index, and their geoms follow.
func nuRemove(w *stepper.World, i int) {
	w.Bodies = append(w.Bodies[:i], w.Bodies[i+1:]...)
	gs := w.Geoms[:0]
	for _, g := range w.Geoms {
		switch {
		case g.Body == i:
			continue
		case g.Body > i:
			g.Body--
		}
		gs = append(gs, g)
	}
	w.Geoms = gs
}

// Bodies removed mid-run: a stack of three boxes, asleep or still
// settling, loses its top, middle or bottom box (World has no Remove: the
// caller edits Bodies and Geoms, nuRemove); the boxes above the gap fall
// onto the box below or the floor, and the stack, two boxes now, rests at
// 0.1 and 0.3 m (1 mm, ProjectAbove) and sleeps again.
func TestNewUserRemoveBody(t *testing.T) {
	for _, c := range []struct {
		name       string
		settle, rm int
	}{{"asleep top", 120, 2}, {"asleep middle", 120, 1}, {"awake middle", 10, 1}, {"asleep bottom", 120, 0}} {
		t.Run(c.name, func(t *testing.T) {
			w := nuWorld(t, 0)
			nuStack(t, w, 3)
			_, _ = nuStep(t, w, c.settle)
			asleep := w.Sleeping()
			nuRemove(w, c.rm)
			_, st := nuStep(t, w, 120)
			require.Len(t, w.Bodies, 2)
			t.Logf("%d asleep before, removed box %d: after 2 s at z %.6f and %.6f, %d asleep",
				asleep, c.rm, w.Bodies[0].Pos[2], w.Bodies[1].Pos[2], st.Sleeping)
			for i, b := range w.Bodies {
				assert.InDelta(t, 0.1+0.2*float64(i), b.Pos[2], 1e-3)
			}
			assert.Equal(t, 2, w.Sleeping())
		})
	}
}

// Bodies removed from and added to settled piles mid-run: four piles of
// 20 random boxes (scenes.Piles, DefaultSettings, the islands solved on
// goroutines) settle for 3 s; then every third box goes and a new box is
// dropped on each pile. For 4 s more no step fails or leaves an error
// above 1 mm (Stats.MaxViolation: the projection's ProjectAbove), no body
// moves faster than its fall allows, and all are at rest at the end. Run
// under GOMAXPROCS 1 and 4, the final states are the same bits.
func TestNewUserPilesRemoveAndAdd(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	run := func() []mgl64.Vec3 {
		p := scenes.DefaultPilesParams()
		p.Piles, p.Boxes = 4, 20
		p.Settings = stepper.DefaultSettings()
		w, err := scenes.Piles(p)
		require.NoError(t, err)
		_, _ = nuStep(t, w, 180)
		asleep := w.Sleeping()
		var tops []mgl64.Vec3
		for i := len(w.Bodies) - 1; i >= 0; i-- {
			if w.Bodies[i].Static {
				continue
			}
			if i%3 == 0 {
				nuRemove(w, i)
			}
		}
		for i := 1; i < len(w.Bodies); i += len(w.Bodies) / 4 { // one in each pile
			tops = append(tops, w.Bodies[i].Pos)
		}
		for _, top := range tops {
			addBox(t, w, 1, mgl64.Vec3{0.15, 0.15, 0.15}, top.Add(mgl64.Vec3{0, 0, 1}), mgl64.QuatIdent(), 0.5)
		}
		var viol, vmax float64
		for s := 0; s < 240; s++ {
			st, err := w.Step()
			require.NoError(t, err)
			viol = math.Max(viol, st.MaxViolation)
			for _, b := range w.Bodies {
				vmax = math.Max(vmax, b.Vel.Len())
			}
		}
		k, _ := w.Energy()
		t.Logf("%d asleep after 3 s; removed every third box, dropped %d: %d bodies, largest error %.2e m, fastest %.2f m/s, kinetic at the end %.2e J, %d asleep",
			asleep, len(tops), len(w.Bodies), viol, vmax, k, w.Sleeping())
		assert.LessOrEqual(t, viol, 1e-3)
		// Nothing falls more than 4 m: √(2 g 4) = 8.9 m/s.
		assert.Less(t, vmax, 8.9)
		assert.Less(t, k, 1e-3, "at rest")
		var out []mgl64.Vec3
		for _, b := range w.Bodies {
			out = append(out, b.Pos, b.Vel)
		}
		return out
	}
	one := run()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	assert.Equal(t, one, run(), "the same bits under GOMAXPROCS 1 and 4")
}
