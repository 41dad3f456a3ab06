package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// sleepingPile returns a settled pile of 100 boxes (0.1 m, 1 kg, μ = 0.5):
// 5 × 5 columns of 4, 2 mm apart, on a ground plane, stepped at
// h = 1/60 s until every box sleeps (sleep on) or for as many steps
// (sleep off).
func sleepingPile(tb testing.TB, sleep bool) *World {
	s := DefaultSettings()
	s.Sleep.On = sleep
	w, err := New(s)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: Material{Friction: 0.5}}); err != nil {
		tb.Fatal(err)
	}
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		tb.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			for l := 0; l < 4; l++ {
				b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1),
					Pos: mgl64.Vec3{0.102 * float64(i), 0.102 * float64(j), 0.05 + 0.1*float64(l)}, Rot: mgl64.QuatIdent()})
				if err != nil {
					tb.Fatal(err)
				}
				id, err := w.AddBody(b)
				if err != nil {
					tb.Fatal(err)
				}
				if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
	for s := 0; s < 120; s++ {
		if _, err := w.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	if want := 0; sleep {
		want = 100
		if w.Sleeping() != want {
			tb.Fatalf("%d of 100 boxes asleep after 2 s", w.Sleeping())
		}
	}
	return w
}

// BenchmarkSleepingPile steps the settled 100-box pile: asleep, a step
// costs the per-body passes (free velocities, the broad phase's boxes,
// the finiteness and energy sums) and nothing per contact; awake, the
// 100 boxes' 400 contact points are detected, assembled and solved.
func BenchmarkSleepingPile(b *testing.B) {
	for _, c := range []struct {
		name  string
		sleep bool
	}{{"asleep", true}, {"awake", false}} {
		b.Run(c.name, func(b *testing.B) {
			w := sleepingPile(b, c.sleep)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
