package constraint

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func BenchmarkHingeFill(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	bs := randWorld(b, r, 2)
	h, err := NewHinge(bs, 0, 1, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	if err != nil {
		b.Fatal(err)
	}
	if err := h.SetLimits(-1, 1); err != nil {
		b.Fatal(err)
	}
	ctx := &Context{Bodies: bs, H: 0.01}
	rows := make([]Row, h.Dim())
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Fill(rows, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
