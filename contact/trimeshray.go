package contact

import (
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// TriangleHit is the first crossing of a ray with a TriMesh or Heightfield, in
// the shape's local frame.
type TriangleHit struct {
	T        float64    // ray parameter: the point is from + T·dir
	Triangle int        // triangle index (a Heightfield's 2c or 2c+1 of cell c = j·(nx−1)+i)
	Normal   mgl64.Vec3 // the triangle's unit normal (local), facing the ray's start
}

// rayTri is the Möller–Trumbore intersection (Möller and Trumbore, "Fast,
// minimum storage ray/triangle intersection", 1997) of the ray from + t·dir
// with t, both faces: the parameter in [0, tMax], or false.
func rayTri(t *meshTri, from, dir mgl64.Vec3, tMax float64) (float64, bool) {
	e1, e2 := t.v[1].Sub(t.v[0]), t.v[2].Sub(t.v[0])
	p := dir.Cross(e2)
	det := e1.Dot(p)
	if det == 0 || math.IsNaN(det) {
		return 0, false // parallel to the plane
	}
	inv := 1 / det
	s := from.Sub(t.v[0])
	u := s.Dot(p) * inv
	if u < 0 || u > 1 {
		return 0, false
	}
	q := s.Cross(e1)
	v := dir.Dot(q) * inv
	if v < 0 || u+v > 1 {
		return 0, false
	}
	h := e2.Dot(q) * inv
	if h < 0 || h > tMax {
		return 0, false
	}
	return h, true
}

// raySlab reports whether the ray from + t·dir, t ∈ [0, tMax], meets the
// box [lo, hi] (slab test; inv = 1/dir componentwise).
func raySlab(lo, hi, from, inv mgl64.Vec3, tMax float64) bool {
	t0, t1 := 0.0, tMax
	for i := 0; i < 3; i++ {
		a, b := (lo[i]-from[i])*inv[i], (hi[i]-from[i])*inv[i]
		if a > b {
			a, b = b, a
		}
		if math.IsNaN(a) || math.IsNaN(b) { // dir[i] = 0 with from on a slab face
			if from[i] < lo[i] || from[i] > hi[i] {
				return false
			}
			continue
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, b)
		if t0 > t1 {
			return false
		}
	}
	return true
}

func (h *TriangleHit) set(t *meshTri, id int, th float64, dir mgl64.Vec3) {
	h.T, h.Triangle, h.Normal = th, id, t.n
	if t.n.Dot(dir) > 0 {
		h.Normal = t.n.Mul(-1)
	}
}

// Raycast returns the first triangle that the ray from + t·dir, 0 ≤ t ≤
// tMax, crosses (either face), in the mesh's local frame, walking the
// AABB tree nearest box first; ties in t go to the lower triangle index.
// dir need not be unit (T is then in units of |dir|). It does not
// allocate.
func (m *MeshTree) Raycast(from, dir mgl64.Vec3, tMax float64) (TriangleHit, bool) {
	inv := mgl64.Vec3{1 / dir[0], 1 / dir[1], 1 / dir[2]}
	var best TriangleHit
	found := false
	var stack [64]int32
	sp := 1
	for sp > 0 {
		sp--
		ni := stack[sp]
		nd := &m.nodes[ni]
		if !raySlab(nd.lo, nd.hi, from, inv, tMax) {
			continue
		}
		if nd.count > 0 {
			for _, ti := range m.order[nd.start : nd.start+nd.count] {
				t := &m.tris[ti]
				if th, ok := rayTri(t, from, dir, tMax); ok && (!found || th < best.T || th == best.T && int(ti) < best.Triangle) {
					best.set(t, int(ti), th, dir)
					found = true
				}
			}
			continue
		}
		if sp+2 > len(stack) {
			continue
		}
		stack[sp], stack[sp+1] = nd.right, ni+1
		sp += 2
	}
	return best, found
}

// Raycast returns the first triangle of the grid that the ray from + t·dir,
// 0 ≤ t ≤ tMax, crosses (either face), in the field's local frame: it
// tests the cells under the ray segment's box (ties to the lower
// triangle index). It does not allocate.
func (h *HeightGrid) Raycast(from, dir mgl64.Vec3, tMax float64) (TriangleHit, bool) {
	to := from.Add(dir.Mul(tMax))
	if !num2Finite(from, to) {
		return TriangleHit{}, false
	}
	box := AABB{Min: mgl64.Vec3{math.Min(from[0], to[0]), math.Min(from[1], to[1]), math.Min(from[2], to[2])},
		Max: mgl64.Vec3{math.Max(from[0], to[0]), math.Max(from[1], to[1]), math.Max(from[2], to[2])}}
	var best TriangleHit
	found := false
	if box.Max[0] < h.lo[0] || box.Min[0] > h.hi[0] || box.Max[1] < h.lo[1] || box.Min[1] > h.hi[1] {
		return best, false
	}
	// Cells a little past the box (1e-9 of a cell) so that a ray along a
	// grid line tests the cells on both sides of it.
	cell := func(x, x0, d float64, n int, pad float64) int {
		return int(math.Max(0, math.Min(float64(n-2), math.Floor((x-x0)/d+pad))))
	}
	for j := cell(box.Min[1], h.y0, h.dy, h.ny, -1e-9); j <= cell(box.Max[1], h.y0, h.dy, h.ny, 1e-9); j++ {
		for i := cell(box.Min[0], h.x0, h.dx, h.nx, -1e-9); i <= cell(box.Max[0], h.x0, h.dx, h.nx, 1e-9); i++ {
			c := j*(h.nx-1) + i
			if h.cellMin[c] > box.Max[2] || h.cellMax[c] < box.Min[2] {
				continue
			}
			for s := 0; s < 2; s++ {
				t, _ := h.plainTri(i, j, s)
				if th, ok := rayTri(&t, from, dir, tMax); ok && (!found || th < best.T || th == best.T && 2*c+s < best.Triangle) {
					best.set(&t, 2*c+s, th, dir)
					found = true
				}
			}
		}
	}
	return best, found
}

func num2Finite(a, b mgl64.Vec3) bool {
	for i := 0; i < 3; i++ {
		if !num.Finite(a[i]) || !num.Finite(b[i]) {
			return false
		}
	}
	return true
}
