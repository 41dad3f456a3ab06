package scenes_test

import (
	"math"
	"testing"

	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A centred push: the pusher creeps up to the object and pushes it (its
// centre one radius ahead of the pusher's front face when the pusher
// stops), then the object slides on and stops after about v²/(2 μ_s g),
// short of the fingers, without turning.
func TestPushCentredCoastsToRest(t *testing.T) {
	p := scenes.DefaultPushParams()
	// 5 mm creep at 0.025 m/s (20 steps of 0.01 s), then 50 mm at
	// 0.25 m/s (20 steps): the pusher stops at the end of step 40.
	p.PushSpeed, p.PushDistance = 0.25, 0.055
	w, err := scenes.Push(p)
	require.NoError(t, err)
	obj, pusher := w.Bodies[0], w.Bodies[1]
	require.True(t, pusher.Kinematic)
	front := pusher.Pos[1] + 0.02 // the pusher is 4 cm deep
	for w.Steps() < 40 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	// 1e-6 m: the rigid contact's position term and the contact margin.
	assert.InDelta(t, front+p.PushDistance+p.Radius, obj.Pos[1], 1e-6, "object ahead of the stopped pusher")
	y0 := obj.Pos[1]
	for w.Time() < 1 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	// Semi-implicit Euler with the sliding friction impulse μ_s m g h per
	// step: v_k = v₀ − k a h with a = μ_s g, x += h v_k while v_k > 0.
	a, h := p.MuSurface*9.81, p.Settings.H
	want := 0.0
	for v := p.PushSpeed - a*h; v > 0; v -= a * h {
		want += h * v
	}
	// a h² (one step's velocity decrement over one step): the last step
	// stops at v = 0, not at v − a h, and the first one starts from the
	// contact's release.
	assert.InDelta(t, want, obj.Pos[1]-y0, a*h*h)
	throat := p.FingerY - math.Sqrt(math.Pow(p.Radius+0.01, 2)-math.Pow(p.FingerGap/2, 2)) // centre touching both fingers
	assert.Less(t, obj.Pos[1], throat, "short of the fingers")
	assert.InDelta(t, 0, obj.Vel.Len(), 1e-9, "at rest")
	assert.InDelta(t, 0, obj.Pos[0], 1e-12, "symmetric: no sideways motion")
	angle := 2 * math.Atan2(obj.Rot.V[2], obj.Rot.W)
	assert.InDelta(t, 0, angle, 1e-9, "symmetric: no turn")
}

// Bad parameters name the field.
func TestPushBadParams(t *testing.T) {
	sc, err := scenes.Lookup("push")
	require.NoError(t, err)
	_, err = sc.Build(map[string]string{"mu_s": "-1"})
	require.ErrorContains(t, err, "mu_s")
	_, err = sc.Build(map[string]string{"tripod": "0.2"})
	require.ErrorContains(t, err, "Tripod")
}
