package stepper

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// BenchmarkIslandSolves times the solve stage of a step of 80 boxes
// resting apart on the ground (80 single-box islands of 12 rows, the
// commonest island of the awake random pile): the islands of the last
// step solved again from the same warm start, prepare (the dense block,
// bounds, energy model and pickers) and solve (SolveGuarded, safeguard,
// scatter) as islandPool runs them ("stage"), and prepare alone
// ("prepare"). Its instruction count under cachegrind is independent of
// the machine's load.
func BenchmarkIslandSolves(b *testing.B) {
	s := DefaultSettings()
	s.Sleep.On = false
	w, err := New(s)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: Material{Friction: 0.5}}); err != nil {
		b.Fatal(err)
	}
	for i := range 80 {
		size := mgl64.Vec3{0.1 + 0.002*float64(i), 0.2, 0.1 + 0.001*float64(i)}
		bd, err := body.New(body.Params{Mass: 2, Inertia: body.BoxInertia(2, size[0], size[1], size[2]),
			Pos: mgl64.Vec3{float64(i%10) * 0.5, float64(i/10) * 0.5, size[2] / 2}, Rot: mgl64.QuatRotate(0.1*float64(i), mgl64.Vec3{0, 0, 1})})
		if err != nil {
			b.Fatal(err)
		}
		id, err := w.AddBody(bd)
		if err != nil {
			b.Fatal(err)
		}
		shape, err := contact.NewBoxSize(size)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
			b.Fatal(err)
		}
	}
	for range 60 {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
	is := &w.ws.islands
	if len(is.active) != 80 {
		b.Fatalf("%d islands, want 80", len(is.active))
	}
	b.Run("stage", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			is.pool.solve(w, is.active)
		}
	})
	b.Run("prepare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, sl := range is.active {
				sl.prepare(w)
			}
		}
	})
}
