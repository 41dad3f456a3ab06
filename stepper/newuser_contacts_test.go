package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
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
