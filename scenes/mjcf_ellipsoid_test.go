package scenes

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The inscribed hull of ellipsoidPoints reaches at least 1 − ellipsoidGap
// of the way to the ellipsoid along every ray from its centre: on the
// unit sphere (a scaling maps rays to rays and keeps that ratio) the
// nearest face plane is at 0.98225 from the centre.
func TestEllipsoidPointsGap(t *testing.T) {
	h, err := mesh.NewHull(ellipsoidPoints(mgl64.Vec3{1, 1, 1}), 1e-9)
	require.NoError(t, err)
	assert.Len(t, h.Vertices, 162)
	near := math.Inf(1)
	for _, d := range h.Offsets {
		near = math.Min(near, d)
	}
	t.Logf("nearest face plane at %.5f", near)
	assert.GreaterOrEqual(t, near, 1-ellipsoidGap)
	assert.Less(t, near, 1-ellipsoidGap+1e-3, "the stated gap is the measured one")
}

// An MJCF ellipsoid geom (as MuJoCo's humanoid100.xml uses) imports as a
// convex hull of points on the ellipsoid with the ellipsoid's exact mass
// (ρ·4/3·π·abc) and inertia (m/5·(b²+c²), …), and rests on a plane on
// its shortest semi-axis: the centre settles at c within the hull's gap.
func TestMJCFEllipsoid(t *testing.T) {
	const a, b, c = 0.15, 0.1, 0.07
	s, ws := parseMJCFString(t, `<mujoco><worldbody><geom type="plane" size="5 5 0.1"/>
  <body name="e" pos="0 0 0.3"><freejoint/><geom type="ellipsoid" size="0.15 0.1 0.07"/></body>
</worldbody></mujoco>`)
	found := false
	for _, w := range ws {
		found = found || strings.Contains(w.Msg, "ellipsoid geoms collide as the convex hull of 162 points")
	}
	assert.True(t, found, "the approximation is warned about: %v", ws)
	e := bodyByName(t, s, "e")
	require.Len(t, e.Shapes, 1)
	assert.Equal(t, contact.Convex, e.Shapes[0].Type)
	m := 1000 * 4 * math.Pi / 3 * a * b * c
	assert.InEpsilon(t, m, e.Mass, 1e-12)
	require.NotNil(t, e.Inertia)
	want := mgl64.Vec3{b*b + c*c, a*a + c*c, a*a + b*b}.Mul(m / 5)
	for i := 0; i < 3; i++ {
		assert.InEpsilon(t, want[i], e.Inertia.At(i, i), 1e-12, "I[%d][%d]", i, i)
	}
	w := buildWorld(t, s)
	for k := 0; k < 300; k++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	body := w.Bodies[0]
	t.Logf("rest height %.5f m (c = %v), speed %.2g m/s", body.Pos[2], c, body.Vel.Len())
	assert.InDelta(t, c*(1-ellipsoidGap/2), body.Pos[2], c*ellipsoidGap/2+2e-3, "rests on its shortest semi-axis (the contact margin allows 2 mm)")
	assert.Less(t, body.Vel.Len(), 1e-3)
}
