package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 70 kg ragdoll of addRagdoll (every limb and the head joined to the
// torso by a ball joint alone) standing 2 cm above the floor, pushed at
// 0.5 m/s, falls and comes to rest lying on the floor with DefaultSettings
// (h = 1/60 s): its limbs, free to turn about their ball joints, are held
// by their contacts (holdContacts), with sleeping on and with it off, so
// the rest is the contacts' and not the sleep's. Over 6 s (E₀ = 626 J):
//   - kinetic energy below 1e-6 J from 4 s on (a speed of 0.17 mm/s for
//     70 kg): measured at most 4.2e-27 J with sleeping off (4e-26 J
//     already at 2 s), 0 asleep;
//   - no step adds energy: Stats.EnergyAdded ≤ 1e-6 J, the rest bound,
//     so no gain can set it moving (measured 6.4e-9 J; with holdContacts
//     made to hold nothing, a step during the fall added 3.5e-3 J);
//   - every ball joint's gap within ProjectAbove = 1 mm after each step
//     (measured 0.59 mm, during the fall);
//   - no body creeps from 4 s to 6 s by more than 1 µm (measured 8.2e-16 m with sleeping off);
//   - lying: the torso's centre ends below 0.3 m (measured 0.163 m; its
//     radius is 0.15 m).
func TestRagdollComesToRestOnFloor(t *testing.T) {
	for _, sleep := range []bool{true, false} {
		s := stepper.DefaultSettings()
		s.Sleep.On = sleep
		w, err := stepper.New(s)
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		// The torso centre is 1.017 m above the leg bottoms.
		rd := addRagdoll(t, w, mgl64.Vec3{0, 0, 0.02 + 1.017}, mgl64.Vec3{0.5, 0, 0}, 0.5)
		k0, u0 := w.Energy()
		var added, gap, restK, creep float64
		var at4 []mgl64.Vec3
		const steps, rest = 360, 240 // 6 s; at rest from 4 s
		for i := 1; i <= steps; i++ {
			st, err := w.Step()
			require.NoError(t, err)
			added = math.Max(added, st.EnergyAdded)
			gap = math.Max(gap, rd.gap(t, w))
			if i < rest {
				continue
			}
			restK = math.Max(restK, st.Kinetic)
			for k, id := range rd.ids {
				if i == rest {
					at4 = append(at4, w.Bodies[id].Pos)
				}
				creep = math.Max(creep, w.Bodies[id].Pos.Sub(at4[k]).Len())
			}
		}
		torso := w.Bodies[rd.ids[0]].Pos
		t.Logf("sleeping %v: E₀ %.1f J, largest EnergyAdded %.3g J, largest joint gap %.3g m, largest kinetic from 4 s %.3g J, creep 4–6 s %.3g m, torso at %.3v, %d asleep",
			sleep, k0+u0, added, gap, restK, creep, torso, w.Sleeping())
		assert.Less(t, restK, 1e-6, "kinetic energy from 4 s on")
		assert.LessOrEqual(t, added, 1e-6, "energy added by a step")
		assert.LessOrEqual(t, gap, stepper.DefaultProjectAbove+1e-12, "ball-joint gap")
		assert.Less(t, creep, 1e-6, "creep from 4 s to 6 s")
		assert.Less(t, torso[2], 0.3, "torso lying on the floor")
		if sleep {
			assert.Equal(t, len(rd.ids), w.Sleeping(), "asleep at the end")
		}
	}
}
