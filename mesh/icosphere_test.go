package mesh

import (
	"math"
	"strings"
	"testing"
)

// Icosphere's counts are 10·4^level + 2 vertices and 20·4^level
// triangles, every vertex on the sphere (to rounding, 1e-15 r), the mesh
// closed; bad arguments are errors naming them.
func TestIcosphere(t *testing.T) {
	for level, nv := range []int{12, 42, 162, 642} {
		m, err := Icosphere(level, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Vertices) != nv || len(m.Triangles) != 20<<(2*level) {
			t.Errorf("level %d: %d vertices, %d triangles", level, len(m.Vertices), len(m.Triangles))
		}
		for i, v := range m.Vertices {
			if math.Abs(v.Len()-0.5) > 1e-15 {
				t.Fatalf("level %d: vertex %d at radius %v", level, i, v.Len())
			}
		}
		if err := m.Closed(); err != nil {
			t.Errorf("level %d: %v", level, err)
		}
	}
	for _, c := range []struct {
		level int
		r     float64
		want  string
	}{{-1, 1, "level"}, {MaxIcosphereLevel + 1, 1, "level"}, {1, 0, "r:"}, {1, math.Inf(1), "r:"}, {1, math.NaN(), "r:"}} {
		if _, err := Icosphere(c.level, c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Icosphere(%d, %v): %v, want an error naming %s", c.level, c.r, err, c.want)
		}
	}
}
