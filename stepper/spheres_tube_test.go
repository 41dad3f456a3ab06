package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spheresInTube builds TestNewUserSpheresInTube's scene (ten 0.1 kg balls,
// r = 0.05 m, in a square tube of four static boxes 4 mm wider than a
// ball, μ = 0.5, h = 1/60 s) with sleeping on or off.
func spheresInTube(t *testing.T, sleep bool) (*stepper.World, []*body.Body) {
	t.Helper()
	const r, n, gap, wall = 0.05, 10, 0.004, 0.02
	w := nuWorld(t, 0)
	w.Settings.Sleep.On = sleep
	ground(t, w, mgl64.QuatIdent(), 0.5)
	in := 2*r + gap
	for k := 0; k < 4; k++ {
		d := mgl64.Vec3{math.Cos(float64(k) * math.Pi / 2), math.Sin(float64(k) * math.Pi / 2), 0}
		s := mgl64.Vec3{wall, in + 2*wall, 1.5}
		if k%2 == 1 {
			s = mgl64.Vec3{in + 2*wall, wall, 1.5}
		}
		addStaticBox(t, w, s, d.Mul((in+wall)/2).Add(mgl64.Vec3{0, 0, 0.75}), mgl64.QuatIdent(), 0.5)
	}
	sphere, err := contact.NewSphere(r)
	require.NoError(t, err)
	var bs []*body.Body
	for i := 0; i < n; i++ {
		p := mgl64.Vec3{0.001 * float64(i%3-1), 0.001 * float64((i/3)%3-1), r + 2.05*r*float64(i) + 0.01}
		bs = append(bs, addShapeBody(t, w, sphere, 0.1, body.SphereInertia(0.1, r), p, mgl64.QuatIdent(), 0.5))
	}
	return w, bs
}

// TestNewUserSpheresInTube's stack with sleeping off, at h = 1/60 and
// 1/120 s: after 1 s ball 1 is not at rest but rolls, as the model's point
// contacts allow, and no energy appears.
//
// Balls 0 and 2 sit in opposite corners of the tube ((∓2, ±2) mm), so
// the centres 2r from both of theirs form a ring of radius
// ρ = √(4r² − d²/4) (d = |c₂ − c₀|; 1.13 mm at 1/60 s) about the axis
// c₀c₂, tilted 0.028 rad from the vertical, and ball 1 sits on it above
// its lowest point (61 µm at 1/60 s). Rolling without slip on both
// neighbours it turns about the line through its two contact points,
// parallel to c₀c₂ and ρ/2 from its centre, so ω = 2v/ρ and
// K = ½ m v² (1 + (8/5) r²/ρ²). Sticking contacts do no work and point
// contacts have no torsional friction, so nothing holds it: gravity
// swings it along the ring like a pendulum of about 40 s, and at the
// bottom |ω| = (2/ρ)√(2 g Δz / (1 + 1.6 r²/ρ²)), its kinetic energy
// m g Δz = 6.0e-5 J taken from its potential energy (ω_z is its largest
// part: the ring is nearly level). Ball 4 does the same on its own ring
// (ρ = 0.61 mm, 1.5 µm up: 0.1705 rad/s analytic, 0.1734 measured); balls
// 2, 3, 5, 6 and 8 are wedged in corners by the walls, and ball 7 sits at
// its ring's bottom.
// Sleeping (DefaultSettings) stops both in their first 0.5 s under 2°/s.
//
// Measured: ball 1 on its ring to 7e-11 m; |ω₁| up to 1.0944 rad/s at
// 1/60 s (analytic 1.0920) and 0.8228 at 1/120 s (0.8208, whose stack
// settles on a ring of 0.76 mm, 34 µm above its bottom); the lowest centre
// 0.39 and 0.08 µm below the ring's lowest point; K + U never rises in a
// step (every step dissipates, 3.9e-6 J in 15 s at 1/60 s).
func TestNewUserSpheresInTubeAwake(t *testing.T) {
	const r, m, g = 0.05, 0.1, 9.81
	for _, h := range []float64{1.0 / 60, 1.0 / 120} {
		w, bs := spheresInTube(t, false)
		w.Settings.H = h
		nuStep(t, w, int(math.Round(1/h)))
		c0, c2, c1 := bs[0].Pos, bs[2].Pos, bs[1].Pos
		d := c2.Sub(c0).Len()
		ax := c2.Sub(c0).Normalize()
		mid := c0.Add(c2).Mul(0.5)
		rho := math.Sqrt(4*r*r - d*d/4)
		down := mgl64.Vec3{0, 0, -1}
		low := mid.Add(down.Sub(ax.Mul(down.Dot(ax))).Normalize().Mul(rho))
		drop := c1[2] - low[2]
		wantW := 2 / rho * math.Sqrt(2*g*drop/(1+1.6*r*r/(rho*rho)))
		k0, u0 := w.Energy()
		var rise, wMax, zMin = 0.0, 0.0, c1[2]
		prev := k0 + u0
		for i := 0; i < int(math.Round(15/h)); i++ {
			_, err := w.Step()
			require.NoError(t, err)
			k, u := w.Energy()
			rise = math.Max(rise, k+u-prev)
			prev = k + u
			wMax = math.Max(wMax, bs[1].AngVel.Len())
			zMin = math.Min(zMin, bs[1].Pos[2])
		}
		t.Logf("h %.5f s: ring ρ %.4e m tilted %.4f rad, ball 1 %.1e m off it, %.4e m above its lowest point (m g Δz %.4e J); |ω₁| up to %.4f rad/s (analytic %.4f), lowest %.1e m above the ring's; largest step rise of K+U %.1e J, K+U %+.3e J in 15 s",
			h, rho, math.Acos(ax[2]), math.Abs(c1.Sub(mid).Len()-rho), drop, m*g*drop, wMax, wantW, zMin-low[2], rise, prev-k0-u0)
		// 1e-6 m: the contacts' rest within the solve's tolerance.
		assert.InDelta(t, rho, c1.Sub(mid).Len(), 1e-6, "ball 1 on its ring")
		// 1 %: balls 0 and 2 are not fixed (their contacts give by up
		// to 0.4 µm, which moves the ring), and the step dissipates.
		assert.InEpsilon(t, wantW, wMax, 0.01)
		assert.InDelta(t, low[2], zMin, 1e-6, "ball 1 reaches the ring's lowest point")
		// 1e-12 J: rounding of K + U ≈ 4.9 J summed over ten bodies.
		assert.Less(t, rise, 1e-12, "no step adds energy")
	}
}
