package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A ramp as a user props one up: a free plank (1.2 m × 0.2 m × 0.04 m,
// 2 kg) at 25° with its lower end's bottom edge on the floor and its
// underside on the top rim of a free standing post (a cylinder, r 0.1 m,
// 0.4 m tall, 5 kg), DefaultSettings at h = 1/60 s, μ = 0.5 (tan 25° =
// 0.47). The plank touches the rim at one point and the floor along its
// edge; the post stands on its base. Placed 0.1 mm above the rim, the
// plank settles by 5.7e-5 m in its first steps; after 0.5 s nothing moves
// by more than 1e-6 m in 2.5 s (measured 1e-12 m: a rest to the
// solver's tolerance), and no step adds more than 1e-6 J (measured
// 5.6e-9 J; the bound is rounding of the 10 J of potential energy, far
// below the 0.2–0.6 J a contact that sinks and is pushed out gives).
func TestPlankProppedOnPost(t *testing.T) {
	const L, wd, d, r, hp = 1.2, 0.2, 0.04, 0.1, 0.4
	w := nuWorld(t, 0)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	cyl, err := contact.NewCylinderLength(r, hp)
	require.NoError(t, err)
	post := addShapeBody(t, w, cyl, 5, body.CylinderInertia(5, r, hp), mgl64.Vec3{0, 0, hp / 2}, mgl64.QuatIdent(), 0.5)
	th := 25 * math.Pi / 180
	rot := mgl64.QuatRotate(-th, mgl64.Vec3{0, 1, 0}) // local x up the slope
	up, nrm := rot.Rotate(mgl64.Vec3{1, 0, 0}), rot.Rotate(mgl64.Vec3{0, 0, 1})
	rim := mgl64.Vec3{-r, 0, hp + 1e-4}    // the rim point nearest the plank's underside
	low := rim.Sub(up.Mul(rim[2] / up[2])) // the lower bottom edge, on the floor
	c := low.Add(up.Mul(L / 2)).Add(nrm.Mul(d / 2))
	plank := addBox(t, w, 2, mgl64.Vec3{L, wd, d}, c, rot, 0.5)
	settle, _ := nuStep(t, w, 30)
	p0, q0 := plank.Pos, post.Pos
	maxAdd, _ := nuStep(t, w, 150)
	maxAdd = math.Max(maxAdd, settle)
	moved := math.Max(plank.Pos.Sub(p0).Len(), post.Pos.Sub(q0).Len())
	t.Logf("from 0.5 to 3 s: plank moved %.2e m, post %.2e m, largest step gain %.2e J", plank.Pos.Sub(p0).Len(), post.Pos.Sub(q0).Len(), maxAdd)
	assert.Less(t, moved, 1e-6)
	assert.Less(t, maxAdd, 1e-6)
}
