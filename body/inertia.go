package body

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The inertia helpers return the body-frame inertia about the centre of mass
// of a homogeneous solid (kg·m²) for mass m (kg). Lengths are full lengths
// in m, as for contact.Shape and a scene file's "size" and "length", and
// elongated solids (cylinder, capsule, rod) lie along body z. They do not
// check their arguments: Body.Validate rejects a result that is not finite
// and positive definite.

// BoxInertia returns the inertia of a box of full side lengths sx, sy, sz (m)
// along body x, y, z: diag(m(sy²+sz²)/12, m(sx²+sz²)/12, m(sx²+sy²)/12).
func BoxInertia(m, sx, sy, sz float64) mgl64.Mat3 {
	return mgl64.Diag3(mgl64.Vec3{
		m * (sy*sy + sz*sz) / 12,
		m * (sx*sx + sz*sz) / 12,
		m * (sx*sx + sy*sy) / 12,
	})
}

// SphereInertia returns the inertia of a solid sphere of radius r (m): (2/5) m r² I.
func SphereInertia(m, r float64) mgl64.Mat3 {
	i := 0.4 * m * r * r
	return mgl64.Diag3(mgl64.Vec3{i, i, i})
}

// CylinderInertia returns the inertia of a solid cylinder of radius r and
// full length l along body z (m): diag(m(3r²+l²)/12, m(3r²+l²)/12, m r²/2).
func CylinderInertia(m, r, l float64) mgl64.Mat3 {
	t := m * (3*r*r + l*l) / 12
	return mgl64.Diag3(mgl64.Vec3{t, t, m * r * r / 2})
}

// CapsuleInertia returns the inertia of a solid capsule of radius r and full
// straight length l along body z (m), end caps excluded: a cylinder of
// radius r and length l closed by two hemispheres of radius r. The mass is
// split by volume, m_c = m·l/(l + 4r/3) to the cylinder, m_s = m − m_c to
// the two caps. Each hemisphere (mass m_s/2) has its centre of mass 3r/8
// from its flat face and inertia (83/320)(m_s/2) r² about a transverse axis
// through it; the parallel axis term with distance l/2 + 3r/8 gives
//
//	I_zz = m_c r²/2 + (2/5) m_s r²
//	I_xx = I_yy = m_c (r²/4 + l²/12) + m_s (2r²/5 + l²/4 + 3lr/8)
//
// For l = 0 this is SphereInertia(m, r).
func CapsuleInertia(m, r, l float64) mgl64.Mat3 {
	vc := l         // cylinder volume / (π r²)
	vs := 4 * r / 3 // sphere volume / (π r²)
	mc := m * vc / (vc + vs)
	ms := m - mc
	izz := mc*r*r/2 + 0.4*ms*r*r
	ixx := mc*(r*r/4+l*l/12) + ms*(0.4*r*r+l*l/4+3*l*r/8)
	return mgl64.Diag3(mgl64.Vec3{ixx, ixx, izz})
}

// RodAxialRatio is the ratio I_zz / I_xx of RodInertiaZ. A thin rod has no
// inertia about its own axis, but M must stay invertible; 1e-6 is small
// enough not to matter for motion about the other axes (paper:
// Enzenhöfer et al. 2019 §5.1, "I_y is small") and large enough to keep
// M⁻¹ finite. Rows that touch the rod's spin should use a real radius
// (CylinderInertia) instead.
const RodAxialRatio = 1e-6

// RodInertiaZ returns the inertia of a thin rod of full length l along body
// z (m): diag(ml²/12, ml²/12, RodAxialRatio·ml²/12). It replaces RodInertia,
// whose rod lay along body x; the name says the axis so that old callers do
// not compile.
func RodInertiaZ(m, l float64) mgl64.Mat3 {
	t := m * l * l / 12
	return mgl64.Diag3(mgl64.Vec3{t, t, RodAxialRatio * t})
}

// PrincipalAxes returns the principal moments of the symmetric inertia in
// (kg·m²) and a rotation whose columns are the matching unit principal axes
// (body frame), by cyclic Jacobi rotations. A diagonal in is returned as it
// is, with the identity. Moments are in no particular order.
func PrincipalAxes(in mgl64.Mat3) (mgl64.Vec3, mgl64.Mat3) {
	a := in
	v := mgl64.Ident3()
	for sweep := 0; sweep < 50; sweep++ {
		off := a.At(0, 1)*a.At(0, 1) + a.At(0, 2)*a.At(0, 2) + a.At(1, 2)*a.At(1, 2)
		diag := a.At(0, 0)*a.At(0, 0) + a.At(1, 1)*a.At(1, 1) + a.At(2, 2)*a.At(2, 2)
		if off == 0 || off <= 1e-32*diag {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			apq := a.At(p, q)
			if apq == 0 {
				continue
			}
			// The rotation in the (p, q) plane that zeroes a_pq.
			theta := (a.At(q, q) - a.At(p, p)) / (2 * apq)
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			g := mgl64.Ident3()
			g.Set(p, p, c)
			g.Set(q, q, c)
			g.Set(p, q, s)
			g.Set(q, p, -s)
			a = g.Transpose().Mul3(a).Mul3(g)
			v = v.Mul3(g)
		}
	}
	return mgl64.Vec3{a.At(0, 0), a.At(1, 1), a.At(2, 2)}, v
}
