package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
)

// nearestAxis turns a frame by at most 45° to one with an axis along u:
// for an old t₁ at θ from u about the normal, the new t₁ is u for
// |θ| < 45°, n × u for θ in (45°, 135°), −u beyond 135° and u × n for
// θ in (−135°, −45°); it is a unit tangent, and t₁·t1 = cos of the
// remaining angle, at least cos 45°. Angles 1° off the boundaries keep
// the choice away from rounding.
func TestNearestAxis(t *testing.T) {
	n := mgl64.Vec3{1, 2, 2}.Normalize() // a tilted normal
	u := n.Cross(mgl64.Vec3{0, 0, 1}).Normalize()
	v := n.Cross(u) // u rotated by 90° about n
	at := func(deg float64) mgl64.Vec3 {
		a := deg * math.Pi / 180
		return u.Mul(math.Cos(a)).Add(v.Mul(math.Sin(a)))
	}
	for _, c := range []struct {
		deg  float64
		want mgl64.Vec3
	}{{0, u}, {44, u}, {-44, u}, {46, v}, {134, v}, {136, u.Mul(-1)}, {180, u.Mul(-1)}, {-136, u.Mul(-1)}, {-46, v.Mul(-1)}, {-134, v.Mul(-1)}} {
		t1 := at(c.deg)
		got := nearestAxis(u, n, t1)
		assert.InDelta(t, 0, got.Sub(c.want).Len(), 1e-15, "%v°", c.deg)
		assert.InDelta(t, 1, got.Len(), 1e-15)
		assert.InDelta(t, 0, got.Dot(n), 1e-15)
		// The remaining angle: θ folded into [−45°, 45°].
		rem := math.Mod(c.deg+45+360, 90) - 45
		assert.InDelta(t, math.Cos(rem*math.Pi/180), got.Dot(t1), 1e-15, "%v°", c.deg)
	}
}
