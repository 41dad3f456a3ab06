package stepper_test

import (
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rayWorld is a ground plane and n boxes, spheres, capsules, cylinders and
// cube hulls at random poses above it, dropped nowhere (no step taken).
func rayWorld(t testing.TB, n int, seed int64) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	r := rand.New(rand.NewSource(seed))
	side := math.Ceil(math.Sqrt(float64(n)))
	hull, err := contact.NewConvex([]mgl64.Vec3{{-0.2, -0.2, -0.2}, {0.2, -0.2, -0.2}, {-0.2, 0.2, -0.2}, {0.2, 0.2, -0.2}, {0, 0, 0.25}}, 0)
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		pos := mgl64.Vec3{float64(i%int(side)) + 0.3*r.Float64(), float64(i/int(side)) + 0.3*r.Float64(), 0.3 + 2*r.Float64()}
		rot := mgl64.QuatRotate(r.Float64()*math.Pi, mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Normalize())
		b, err := body.New(body.Params{Mass: 1, Inertia: body.SphereInertia(1, 0.2), Pos: pos, Rot: rot})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		var s contact.Shape
		switch i % 5 {
		case 0:
			s, err = contact.NewBoxSize(mgl64.Vec3{0.4, 0.3, 0.2})
		case 1:
			s, err = contact.NewSphere(0.2)
		case 2:
			s, err = contact.NewCapsuleLength(0.1, 0.3)
		case 3:
			s, err = contact.NewCylinderLength(0.15, 0.3)
		case 4:
			s = hull
		}
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: s, Local: contact.Pose{Pos: mgl64.Vec3{0.05, 0, 0}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 0, 0})}})
		require.NoError(t, err)
	}
	return w
}

// World.Raycast equals a brute-force scan of contact.Raycast over every
// geom (bit for bit: the AABB test only skips geoms the ray cannot hit),
// RaycastAll lists the same first hit and every hit in order.
func TestWorldRaycastMatchesBruteForce(t *testing.T) {
	w := rayWorld(t, 60, 1)
	r := rand.New(rand.NewSource(2))
	var all []stepper.GeomHit
	hits := 0
	for i := 0; i < 3000; i++ {
		o := mgl64.Vec3{8 * r.Float64(), 8 * r.Float64(), 3 + r.Float64()}
		d := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), -1 - r.Float64()}
		maxDist := 2 + 4*r.Float64()
		got, ok, err := w.Raycast(o, d, maxDist, nil)
		require.NoError(t, err)
		best, bestG, found := contact.RayHit{}, -1, false
		n := 0
		for g := range w.Geoms {
			gm := &w.Geoms[g]
			p := gm.Local
			if gm.Body != constraint.World {
				b := w.Bodies[gm.Body]
				p = contact.Pose{Pos: b.Pos, Rot: b.Rot}.Mul(gm.Local)
			} else {
				p.Rot = mgl64.QuatIdent()
			}
			h, hok := contact.Raycast(gm.Shape, p, o, d, maxDist)
			if hok {
				n++
				if !found || h.Dist < best.Dist {
					best, bestG, found = h, g, true
				}
			}
		}
		require.Equal(t, found, ok, "ray %d", i)
		all, err = w.RaycastAll(all, o, d, maxDist, nil)
		require.NoError(t, err)
		require.Len(t, all, n, "ray %d: RaycastAll", i)
		if !found {
			continue
		}
		hits++
		require.Equal(t, bestG, got.Geom, "ray %d", i)
		require.Equal(t, best, got.RayHit, "ray %d", i)
		require.Equal(t, w.Geoms[bestG].Body, got.Body)
		require.Equal(t, got, all[0], "ray %d: RaycastAll's first", i)
		for k := 1; k < len(all); k++ {
			require.True(t, all[k-1].Dist < all[k].Dist || (all[k-1].Dist == all[k].Dist && all[k-1].Geom < all[k].Geom), "ray %d: RaycastAll order", i)
		}
	}
	require.Greater(t, hits, 1000, "a third of the rays at least must hit (1 164 do): else the comparison is weak")
}

// A range sensor's reading: straight down onto a 0.2 m box resting on the
// ground at the origin hits its top at 1 − 0.1 m; skipping the box's body
// (the filter) reads the ground; equal hits go to the lower geom index;
// bad rays are errors naming the field.
func TestWorldRaycastSensor(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
	addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5) // coincident twin
	o, down := mgl64.Vec3{0.05, 0, 1}, mgl64.Vec3{0, 0, -1}
	h, ok, err := w.Raycast(o, down, 10, nil)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 1, h.Geom, "the lower index of two equal hits")
	assert.InDelta(t, 0.8, h.Dist, 1e-15)
	assert.Equal(t, mgl64.Vec3{0, 0, 1}, h.Normal)
	h, ok, err = w.Raycast(o, down, 10, func(g int) bool { return w.Geoms[g].Body == constraint.World })
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 0, h.Geom)
	assert.Equal(t, 1.0, h.Dist)
	_, ok, err = w.Raycast(o, down, 0.79, nil)
	require.NoError(t, err)
	assert.False(t, ok, "beyond maxDist")
	all, err := w.RaycastAll(nil, o, down, 10, nil)
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, []int{1, 2, 0}, []int{all[0].Geom, all[1].Geom, all[2].Geom})

	// Geoms appended to World.Geoms directly: a zero Local.Rot is no
	// rotation (as AddGeom makes it), a Body out of range is never hit.
	sp, err := contact.NewSphere(0.1)
	require.NoError(t, err)
	w.Bodies[0].Rot = mgl64.QuatRotate(0.5, mgl64.Vec3{1, 0, 0})
	w.Geoms = append(w.Geoms, stepper.Geom{Body: 0, Shape: sp, Local: contact.Pose{Pos: mgl64.Vec3{0, 0, 0.5}}}, stepper.Geom{Body: 99, Shape: sp})
	c := w.Bodies[0].Pos.Add(w.Bodies[0].Rot.Rotate(mgl64.Vec3{0, 0, 0.5})) // the sphere's centre
	h, ok, err = w.Raycast(mgl64.Vec3{0, 5, c[2] + 0.06}, mgl64.Vec3{0, -1, 0}, 10, func(g int) bool { return g >= 3 })
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 3, h.Geom)
	assert.InDelta(t, 5-c[1]-0.08, h.Dist, 1e-12, "a 0.06 m offset from the centre leaves a 0.08 m half chord")

	for _, c := range []struct {
		field  string
		o, d   mgl64.Vec3
		maxDst float64
	}{
		{"origin", mgl64.Vec3{math.NaN(), 0, 0}, down, 1},
		{"dir", o, mgl64.Vec3{}, 1},
		{"dir", o, mgl64.Vec3{0, math.Inf(1), 0}, 1},
		{"maxDist", o, down, -1},
		{"maxDist", o, down, math.NaN()},
	} {
		_, _, err := w.Raycast(c.o, c.d, c.maxDst, nil)
		var fe *num.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", c.field, err)
		assert.Equal(t, c.field, fe.Field)
		_, err = w.RaycastAll(nil, c.o, c.d, c.maxDst, nil)
		assert.Error(t, err)
	}
}

// 1 000 boxes of a random pile's footprint: a downward ray from a random
// point above them.
func BenchmarkWorldRaycast1000(b *testing.B) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(b, err)
	ground(b, w, mgl64.QuatIdent(), 0.5)
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 1000; i++ {
		pos := mgl64.Vec3{float64(i%32) * 0.5, float64(i/32) * 0.5, 0.1 + 3*r.Float64()}
		addBox(b, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, pos, mgl64.QuatRotate(r.Float64(), mgl64.Vec3{0, 0, 1}), 0.5)
	}
	origins := make([]mgl64.Vec3, 256)
	for i := range origins {
		origins[i] = mgl64.Vec3{16 * r.Float64(), 16 * r.Float64(), 5}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := w.Raycast(origins[i%len(origins)], mgl64.Vec3{0.1, 0, -1}, 100, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWorldRaycastAllocatesNothing(t *testing.T) {
	w := rayWorld(t, 100, 4)
	dst := make([]stepper.GeomHit, 0, 128)
	o, d := mgl64.Vec3{3, 3, 4}, mgl64.Vec3{0.1, 0.2, -1}
	filter := stepper.RayFilter(func(g int) bool { return g != 3 })
	allocs := testing.AllocsPerRun(50, func() {
		_, _, _ = w.Raycast(o, d, 100, filter)
		dst, _ = w.RaycastAll(dst, o, d, 100, filter)
	})
	assert.Zero(t, allocs)
}
