package contact

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// convex is a posed shape as GJK and EPA see it: a support mapping.
//
// Spheres and capsules are a core (a point, a segment) swept by a ball of
// radius skin; GJK measures the distance between the cores and subtracts
// the skins, which is exact and converges in a step or two, where the
// support of the round surface would need many. Boxes and cylinders have
// no skin, nor do hulls (Convex). A new convex shape (a cone) plugs in by
// a case in coreSupport and its size in extent; nothing else changes.
type convex struct {
	s    Shape
	f    *frame
	skin float64 // radius swept around the core, m (sphere, capsule)
}

func newConvex(s Shape, f *frame) convex {
	c := convex{s: s, f: f}
	if s.Kind == Sphere || s.Kind == Capsule {
		c.skin = s.Radius
	}
	return c
}

// extent is a length scale of the shape (m): its largest half dimension.
func (c *convex) extent() float64 {
	s := c.s
	switch s.Kind {
	case Box:
		h := s.half()
		return math.Max(h[0], math.Max(h[1], h[2]))
	case Sphere:
		return s.Radius
	case Capsule, Cylinder:
		return math.Max(s.Radius, s.halfLength())
	case Convex:
		return s.Hull.extent
	case triangleKind:
		return s.tri.extent
	}
	return 0
}

// sgn is +1 for x ≥ 0, else −1: a support point on a face of zero
// direction component is then a fixed vertex (deterministic).
func sgn(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// coreSupport returns the world point of the core farthest along the
// world direction d (any length; d = 0 gives a fixed point).
func (c *convex) coreSupport(d mgl64.Vec3) mgl64.Vec3 {
	f := c.f
	l := mgl64.Vec3{d.Dot(f.ax[0]), d.Dot(f.ax[1]), d.Dot(f.ax[2])}
	var p mgl64.Vec3
	switch c.s.Kind {
	case Box:
		h := c.s.half()
		p = mgl64.Vec3{sgn(l[0]) * h[0], sgn(l[1]) * h[1], sgn(l[2]) * h[2]}
	case Capsule:
		p[2] = sgn(l[2]) * c.s.halfLength()
	case Cylinder:
		p[2] = sgn(l[2]) * c.s.halfLength()
		if rho := math.Hypot(l[0], l[1]); rho > 0 {
			p[0], p[1] = c.s.Radius*l[0]/rho, c.s.Radius*l[1]/rho
		} else {
			p[0] = c.s.Radius
		}
	case Convex:
		p = c.s.Hull.mesh.Vertices[c.s.Hull.support(l)]
	case triangleKind:
		p = c.s.tri.support(l)
	}
	return f.toWorld(p)
}

// support is the support point of the whole shape (core plus skin).
func (c *convex) support(d mgl64.Vec3) mgl64.Vec3 {
	p := c.coreSupport(d)
	if c.skin > 0 {
		if l := d.Len(); l > 0 {
			p = p.Add(d.Mul(c.skin / l))
		}
	}
	return p
}

// Supported reports whether Collide has a routine for shapes of kinds a
// and b (in either order): every pair of the eight kinds except two
// static-only kinds (plane, triangle mesh, heightfield: StaticOnly). A kind outside Plane..Convex is
// never supported.
func Supported(a, b Kind) bool {
	ok := func(k Kind) bool { return k >= Plane && k <= Heightfield }
	return ok(a) && ok(b) && !(StaticOnly(a) && StaticOnly(b))
}

// StaticOnly reports whether shapes of kind k may only belong to the world
// or a static body (Plane, TriMesh, Heightfield): they have no mass
// properties and no routine against one another.
func StaticOnly(k Kind) bool { return k == Plane || k == TriMesh || k == Heightfield }
