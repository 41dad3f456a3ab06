package mesh

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// MaxIcosphereLevel is the finest subdivision Icosphere builds:
// 20·4⁸ = 1 310 720 triangles.
const MaxIcosphereLevel = 8

// Icosphere returns the regular icosahedron inscribed in the sphere of
// radius r (m), its triangles subdivided level times and the new vertices
// projected onto the sphere: 12, 42, 162, 642, 2 562 … vertices
// (10·4^level + 2), triangles counter-clockwise seen from outside. It is a
// sphere as a convex hull or a closed mesh: its volume and inertia tend to
// the sphere's from below as level grows. The vertex order is a function
// of level alone. An error names a level outside [0, MaxIcosphereLevel] or
// an r that is not finite and > 0.
func Icosphere(level int, r float64) (*Mesh, error) {
	if level < 0 || level > MaxIcosphereLevel {
		return nil, fmt.Errorf("icosphere: level: must be 0 to %d, got %d", MaxIcosphereLevel, level)
	}
	if !(r > 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("icosphere: r: must be finite and > 0, got %v", r)
	}
	t := (1 + math.Sqrt(5)) / 2
	v := []mgl64.Vec3{{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}}
	f := [][3]int{{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}}
	for i := range v {
		v[i] = v[i].Normalize()
	}
	for l := 0; l < level; l++ {
		// The midpoint of each edge, made once and shared by its two
		// triangles (the map is only looked up, never iterated).
		mid := make(map[[2]int]int, 3*len(f)/2)
		get := func(a, b int) int {
			k := [2]int{min(a, b), max(a, b)}
			if i, ok := mid[k]; ok {
				return i
			}
			v = append(v, v[a].Add(v[b]).Normalize())
			mid[k] = len(v) - 1
			return len(v) - 1
		}
		nf := make([][3]int, 0, 4*len(f))
		for _, tr := range f {
			a, b, c := get(tr[0], tr[1]), get(tr[1], tr[2]), get(tr[2], tr[0])
			nf = append(nf, [3]int{tr[0], a, c}, [3]int{tr[1], b, a}, [3]int{tr[2], c, b}, [3]int{a, b, c})
		}
		f = nf
	}
	for i := range v {
		v[i] = v[i].Mul(r)
	}
	return &Mesh{Vertices: v, Triangles: f}, nil
}
