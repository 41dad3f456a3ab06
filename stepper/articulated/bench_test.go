package articulated

import (
	"fmt"
	"testing"
)

// One step of the chain of Fig. 4 with contacts at P and Q (frictionless,
// as in Sec. 3.4), per method, at nb = 8, 64 and 128.
func BenchmarkStep(b *testing.B) {
	for _, nb := range []int{8, 64, 128} {
		for _, me := range allMethods {
			b.Run(fmt.Sprintf("nb=%d/%s", nb, me.name), func(b *testing.B) {
				m := Model{Links: Chain(nb, 1, 1), Floating: true, Gravity: Vec2{0, -9.81}, Lines: []Line{Ground()},
					Contacts: []Contact{{Link: 0, Line: 0}, {Link: nb - 1, Point: Vec2{1, 0}, Line: 0}}}
				q := make([]float64, nb+2)
				q[1] = 1
				sys := newSys(b, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, q, make([]float64, nb+2))
				b.ReportAllocs()
				for b.Loop() {
					if sys.Time > 0.5 { // keep the state in the falling phase
						copy(sys.Q, q)
						clear(sys.U)
						sys.Time = 0
					}
					if _, err := sys.Step(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
