package mesh

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/internal/num"
)

// integrals accumulates, over the closed oriented triangles of a solid,
// the volume integrals of 1, x, y, z, x², y², z², xy, yz, zx (Eberly,
// "Polyhedral Mass Properties (Revisited)", Geometric Tools 2002, which
// reduces Mirtich's "Fast and Accurate Computation of Polyhedral Mass
// Properties", Journal of Graphics Tools 1(2), 1996, through the
// divergence theorem to sums over triangles). Coordinates are taken
// relative to origin, a point near the solid, so that the sums do not
// cancel digits when the solid lies far from the coordinate origin, and
// scaled by 2^−exp (exactly) into [−1, 1], so that the fifth powers of
// the inertia cannot overflow or underflow before the result does.
type integrals struct {
	origin mgl64.Vec3
	exp    int
	s      [10]float64
}

// newIntegrals prepares the sums for a solid with vertices v.
func newIntegrals(v []mgl64.Vec3) integrals {
	o := centroid(v)
	var big float64
	for _, p := range v {
		d := p.Sub(o)
		big = max(big, math.Abs(d[0]), math.Abs(d[1]), math.Abs(d[2]))
	}
	_, exp := math.Frexp(big)
	return integrals{origin: o, exp: exp}
}

func (in *integrals) local(p mgl64.Vec3) mgl64.Vec3 {
	d := p.Sub(in.origin)
	return mgl64.Vec3{math.Ldexp(d[0], -in.exp), math.Ldexp(d[1], -in.exp), math.Ldexp(d[2], -in.exp)}
}

// subexpressions are Eberly's f1, f2, f3, g0, g1, g2 of one coordinate.
func subexpressions(w0, w1, w2 float64) (f1, f2, f3, g0, g1, g2 float64) {
	t0 := w0 + w1
	f1 = t0 + w2
	t1 := w0 * w0
	t2 := t1 + w1*t0
	f2 = t2 + w2*f1
	f3 = w0*t1 + w1*t2 + w2*f2
	g0 = f2 + w0*(f1+w0)
	g1 = f2 + w1*(f1+w1)
	g2 = f2 + w2*(f1+w2)
	return
}

// add accumulates triangle (a, b, c), counter-clockwise seen from outside.
func (in *integrals) add(a, b, c mgl64.Vec3) {
	a, b, c = in.local(a), in.local(b), in.local(c)
	e1, e2 := b.Sub(a), c.Sub(a)
	d := e1.Cross(e2)
	f1x, f2x, f3x, g0x, g1x, g2x := subexpressions(a[0], b[0], c[0])
	_, f2y, f3y, g0y, g1y, g2y := subexpressions(a[1], b[1], c[1])
	_, f2z, f3z, g0z, g1z, g2z := subexpressions(a[2], b[2], c[2])
	in.s[0] += d[0] * f1x
	in.s[1] += d[0] * f2x
	in.s[2] += d[1] * f2y
	in.s[3] += d[2] * f2z
	in.s[4] += d[0] * f3x
	in.s[5] += d[1] * f3y
	in.s[6] += d[2] * f3z
	in.s[7] += d[0] * (a[1]*g0x + b[1]*g1x + c[1]*g2x)
	in.s[8] += d[1] * (a[2]*g0y + b[2]*g1y + c[2]*g2y)
	in.s[9] += d[2] * (a[0]*g0z + b[0]*g1z + c[0]*g2z)
}

// result returns the volume, the centre of volume and the inertia tensor
// about it at unit density.
func (in *integrals) result() (vol float64, com mgl64.Vec3, inertia mgl64.Mat3) {
	s := in.s
	vol = s[0] / 6
	c := mgl64.Vec3{s[1] / 24 / vol, s[2] / 24 / vol, s[3] / 24 / vol}
	xx, yy, zz := s[4]/60, s[5]/60, s[6]/60 // ∫x², ∫y², ∫z²
	xy, yz, zx := s[7]/120, s[8]/120, s[9]/120
	ixx := yy + zz - vol*(c[1]*c[1]+c[2]*c[2])
	iyy := zz + xx - vol*(c[2]*c[2]+c[0]*c[0])
	izz := xx + yy - vol*(c[0]*c[0]+c[1]*c[1])
	ixy := -(xy - vol*c[0]*c[1])
	iyz := -(yz - vol*c[1]*c[2])
	izx := -(zx - vol*c[2]*c[0])
	inertia = mgl64.Mat3{ixx, ixy, izx, ixy, iyy, iyz, izx, iyz, izz}
	for i := range inertia {
		inertia[i] = math.Ldexp(inertia[i], 5*in.exp)
	}
	c = mgl64.Vec3{math.Ldexp(c[0], in.exp), math.Ldexp(c[1], in.exp), math.Ldexp(c[2], in.exp)}
	return math.Ldexp(vol, 3*in.exp), c.Add(in.origin), inertia
}

// scaled multiplies the unit-density result by density, after checking it.
func scaled(what string, density float64, vol float64, com mgl64.Vec3, inertia mgl64.Mat3) (float64, mgl64.Vec3, mgl64.Mat3, error) {
	if !(vol > 0) {
		return 0, mgl64.Vec3{}, mgl64.Mat3{}, fmt.Errorf("%s: volume %.6g is not positive: the triangles face inward or enclose nothing", what, vol)
	}
	inertia = inertia.Mul(density)
	if m := density * vol; !num.Finite(m) || !num.FiniteSlice(inertia[:]) || m == 0 {
		return 0, mgl64.Vec3{}, mgl64.Mat3{}, fmt.Errorf("%s: mass %.6g or inertia beyond float64 range at density %g", what, m, density)
	}
	return density * vol, com, inertia, nil
}

func checkDensity(what string, density float64) error {
	if !num.Finite(density) || density <= 0 {
		return &num.FieldError{What: what, Field: "density", Value: density, Reason: fmt.Sprintf("must be finite and > 0, got %v", density)}
	}
	return nil
}

// MassProperties returns the mass (kg), the centre of mass (m, in the
// hull's coordinates) and the inertia tensor about the centre of mass
// (kg·m², the same axes) of the solid hull at uniform density (kg/m³),
// exact up to rounding: the faces are fanned into triangles and
// integrated by Eberly's form of Mirtich's 1996 method. The inertia is
// the form body.Body.Inertia takes once the hull is placed with its
// centre of mass at the body origin.
func (h *Hull) MassProperties(density float64) (mass float64, com mgl64.Vec3, inertia mgl64.Mat3, err error) {
	if err := checkDensity("hull", density); err != nil {
		return 0, com, inertia, err
	}
	in := newIntegrals(h.Vertices)
	for _, f := range h.Faces {
		for i := 1; i+1 < len(f); i++ {
			in.add(h.Vertices[f[0]], h.Vertices[f[i]], h.Vertices[f[i+1]])
		}
	}
	vol, c, I := in.result()
	return scaled("hull", density, vol, c, I)
}

// Volume returns the hull's volume, m³.
func (h *Hull) Volume() float64 {
	m, _, _, err := h.MassProperties(1)
	if err != nil {
		return 0
	}
	return m
}

func centroid(v []mgl64.Vec3) mgl64.Vec3 {
	var c mgl64.Vec3
	for _, p := range v {
		c = c.Add(p)
	}
	if len(v) > 0 {
		c = c.Mul(1 / float64(len(v)))
	}
	return c
}
