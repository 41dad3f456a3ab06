package body

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func goodParams() Params {
	return Params{
		Name:    "link3",
		Mass:    2,
		Inertia: BoxInertia(2, 1, 2, 3),
		Rot:     mgl64.QuatIdent(),
	}
}

func TestValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name   string
		edit   func(p *Params)
		field  string // "" = valid
		substr string
	}{
		{"valid", func(p *Params) {}, "", ""},
		{"static zero mass and inertia", func(p *Params) { p.Static, p.Mass, p.Inertia = true, 0, mgl64.Mat3{} }, "", ""},
		{"negative mass", func(p *Params) { p.Mass = -1 }, "Mass", `body "link3": Mass: must be finite and > 0, got -1`},
		{"zero mass", func(p *Params) { p.Mass = 0 }, "Mass", "got 0"},
		{"NaN mass", func(p *Params) { p.Mass = nan }, "Mass", "got NaN"},
		{"Inf mass", func(p *Params) { p.Mass = inf }, "Mass", "got +Inf"},
		{"static negative mass", func(p *Params) { p.Static, p.Mass = true, -1 }, "Mass", "≥ 0"},
		{"asymmetric inertia", func(p *Params) { p.Inertia[3] = 0.1 }, "Inertia", "symmetric"},
		{"indefinite inertia", func(p *Params) { p.Inertia = mgl64.Diag3(mgl64.Vec3{1, 1, -1}) }, "Inertia", "positive definite"},
		{"singular inertia", func(p *Params) { p.Inertia = mgl64.Diag3(mgl64.Vec3{1, 1, 0}) }, "Inertia", "positive definite"},
		{"NaN inertia", func(p *Params) { p.Inertia[4] = nan }, "Inertia", "finite"},
		{"zero quaternion", func(p *Params) { p.Rot = mgl64.Quat{} }, "Rot", "|q| = 0"},
		{"non-unit quaternion", func(p *Params) { p.Rot = mgl64.Quat{W: 1.1} }, "Rot", "|q| = 1.1"},
		{"NaN quaternion", func(p *Params) { p.Rot.V[1] = nan }, "Rot", "finite"},
		{"NaN Pos", func(p *Params) { p.Pos[2] = nan }, "Pos", "finite"},
		{"Inf Vel", func(p *Params) { p.Vel[0] = inf }, "Vel", "finite"},
		{"NaN AngVel", func(p *Params) { p.AngVel[0] = nan }, "AngVel", "finite"},
		{"NaN Force", func(p *Params) { p.Force[0] = nan }, "Force", "finite"},
		{"Inf Torque", func(p *Params) { p.Torque[1] = -inf }, "Torque", "finite"},
		// Issue 18: the triangle inequality of the principal moments.
		{"inertia [1 1 10]", func(p *Params) { p.Inertia = mgl64.Diag3(mgl64.Vec3{1, 1, 10}) }, "Inertia", "triangle inequality"},
		{"rotated inertia [1 1 10]", func(p *Params) { p.Inertia = rotated(mgl64.Diag3(mgl64.Vec3{1, 1, 10})) }, "Inertia", "triangle inequality"},
		// A disc (I_z = I_x + I_y) and a thin rod sit on the boundary.
		{"disc inertia", func(p *Params) { p.Inertia = rotated(CylinderInertia(2, 1, 0)) }, "", ""},
		{"rod inertia", func(p *Params) { p.Inertia = rotated(RodInertiaZ(2, 3)) }, "", ""},
		// Moments rounded to 7 digits (a disc 1, 1, 2 → 0.3333333, 0.3333333,
		// 0.6666667: 3e-8 of the trace beyond the boundary) pass; 1e-5 fails.
		{"disc rounded", func(p *Params) { p.Inertia = mgl64.Diag3(mgl64.Vec3{0.3333333, 0.3333333, 0.6666667}) }, "", ""},
		{"disc beyond tolerance", func(p *Params) { p.Inertia = mgl64.Diag3(mgl64.Vec3{1, 1, 2 + 4e-5}) }, "Inertia", "triangle inequality"},
		// Issue 18: ω = 1e308 was accepted and gave NaN.
		{"huge AngVel", func(p *Params) { p.AngVel = mgl64.Vec3{1e308, 0, 0} }, "AngVel", "≤ 1e+10 rad/s"},
		{"AngVel at bound", func(p *Params) { p.AngVel = mgl64.Vec3{0, MaxAngVel, 0} }, "", ""},
		{"faster than light", func(p *Params) { p.Vel = mgl64.Vec3{0, 0, -3e8} }, "Vel", "speed of light"},
		{"energy overflows", func(p *Params) { p.Mass, p.Vel = 1e300, mgl64.Vec3{1e8, 0, 0} }, "Vel", "overflows"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := goodParams()
			tc.edit(&p)
			b, err := New(p)
			if tc.field == "" {
				require.NoError(t, err)
				require.NotNil(t, b)
				return
			}
			require.Error(t, err)
			assert.Nil(t, b)
			var fe *FieldError
			require.True(t, errors.As(err, &fe), "error %v is not a *FieldError", err)
			assert.Equal(t, tc.field, fe.Field)
			assert.Equal(t, "link3", fe.Name)
			assert.Contains(t, err.Error(), tc.substr)
		})
	}
}

// rotated returns R m Rᵀ for a fixed rotation R that mixes all three axes.
func rotated(m mgl64.Mat3) mgl64.Mat3 {
	r := QuatMat3(mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize()))
	return r.Mul3(m).Mul3(r.Transpose())
}

func TestValidateReportsEveryField(t *testing.T) {
	p := goodParams()
	p.Mass, p.Rot = -1, mgl64.Quat{}
	_, err := New(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Mass")
	assert.Contains(t, err.Error(), "Rot")
}

// randQuat returns a uniformly distributed unit quaternion.
func randQuat(r *rand.Rand) mgl64.Quat {
	q := mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}
	return q.Scale(1 / quatLen(q))
}

func TestInertiaWorld(t *testing.T) {
	b, err := New(Params{Name: "b", Mass: 12, Inertia: BoxInertia(12, 1, 2, 3), Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1})})
	require.NoError(t, err)
	// diag(13, 10, 5) turned 90° about z swaps x and y.
	want := mgl64.Diag3(mgl64.Vec3{10, 13, 5})
	got := b.InertiaWorld()
	for i := range want {
		assert.InDelta(t, want[i], got[i], 1e-12, "entry %d", i) // rounding of cos(π/2)
	}
	inv := b.InvInertiaWorld()
	assert.InDelta(t, 0.1, inv.At(0, 0), 1e-15)
	assert.InDelta(t, 1.0/13, inv.At(1, 1), 1e-15)

	r := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 20; k++ {
		b.Rot = randQuat(r)
		prod := b.InertiaWorld().Mul3(b.InvInertiaWorld())
		id := mgl64.Ident3()
		for i := range prod {
			assert.InDelta(t, id[i], prod[i], 1e-13) // condition number 2.6 times rounding
		}
		iw := b.InertiaWorld()
		assert.InDelta(t, iw.At(0, 1), iw.At(1, 0), 1e-13)
	}
}

func TestStatic(t *testing.T) {
	b, err := New(Params{Name: "ground", Static: true, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{1, 0, 0}})
	require.NoError(t, err)
	assert.Equal(t, 0.0, b.InvMass())
	assert.Equal(t, mgl64.Mat3{}, b.InvInertiaWorld())
	assert.Equal(t, 0.0, b.KineticEnergy())
	assert.Equal(t, mgl64.Vec3{}, b.LinearMomentum())
	assert.Equal(t, mgl64.Vec3{}, b.AngularMomentum())
	assert.Equal(t, mgl64.Vec3{1, 0, 0}, b.PointVelocity(mgl64.Vec3{5, 5, 5}))
}

func TestInv3Singular(t *testing.T) {
	m := Inv3(mgl64.Diag3(mgl64.Vec3{1, 1, 0}))
	for _, x := range m {
		assert.True(t, math.IsNaN(x))
	}
	m = Inv3(mgl64.Mat3FromRows(mgl64.Vec3{2, 1, 0}, mgl64.Vec3{1, 3, 1}, mgl64.Vec3{0, 1, 4}))
	p := m.Mul3(mgl64.Mat3FromRows(mgl64.Vec3{2, 1, 0}, mgl64.Vec3{1, 3, 1}, mgl64.Vec3{0, 1, 4}))
	id := mgl64.Ident3()
	for i := range p {
		assert.InDelta(t, id[i], p[i], 1e-15)
	}
}

func TestForcesEnergyMomentum(t *testing.T) {
	// A 2 kg body with I = diag(1, 2, 3) (not a real solid, just numbers),
	// turned 90° about z, at (1, 0, 0), v = (0, 3, 0), ω = (1, 0, 2).
	b, err := New(Params{Name: "b", Mass: 2, Inertia: mgl64.Diag3(mgl64.Vec3{1, 2, 3}),
		Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}),
		Vel: mgl64.Vec3{0, 3, 0}, AngVel: mgl64.Vec3{1, 0, 2}})
	require.NoError(t, err)
	// I_w = diag(2, 1, 3): T = ½·2·9 + ½(2·1 + 3·4) = 9 + 7 = 16 J.
	assert.InDelta(t, 16, b.KineticEnergy(), 1e-12)
	assert.Equal(t, mgl64.Vec3{0, 6, 0}, b.LinearMomentum())
	// x × m v = (1,0,0) × (0,6,0) = (0,0,6); I_w ω = (2, 0, 6).
	l := b.AngularMomentum()
	assert.InDelta(t, 2, l[0], 1e-12)
	assert.InDelta(t, 0, l[1], 1e-12)
	assert.InDelta(t, 12, l[2], 1e-12)
	// v + ω × (p − x) at p = (1, 1, 0): (0,3,0) + (1,0,2)×(0,1,0) = (0,3,0) + (−2,0,1).
	assert.Equal(t, mgl64.Vec3{-2, 3, 1}, b.PointVelocity(mgl64.Vec3{1, 1, 0}))

	b.ApplyForceAt(mgl64.Vec3{0, 0, 10}, mgl64.Vec3{1, 2, 0}) // lever (0,2,0): τ = (20,0,0)
	b.ApplyForce(mgl64.Vec3{1, 0, 0})
	b.ApplyTorque(mgl64.Vec3{0, 0, -1})
	assert.Equal(t, mgl64.Vec3{1, 0, 10}, b.Force)
	assert.Equal(t, mgl64.Vec3{20, 0, -1}, b.Torque)
	b.ClearForces()
	assert.Equal(t, mgl64.Vec3{}, b.Force)
	assert.Equal(t, mgl64.Vec3{}, b.Torque)
}

func TestFrames(t *testing.T) {
	b := &Body{Pos: mgl64.Vec3{1, 2, 3}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1})}
	w := b.LocalToWorld(mgl64.Vec3{1, 0, 0})
	assertVec(t, mgl64.Vec3{1, 3, 3}, w, 1e-15, "%v", w)
	u := b.LocalToWorldVec(mgl64.Vec3{1, 0, 0})
	assertVec(t, mgl64.Vec3{0, 1, 0}, u, 1e-15, "%v", u)
	r := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 20; k++ {
		b.Rot = randQuat(r)
		p := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		assertVec(t, p, b.WorldToLocal(b.LocalToWorld(p)), 1e-14)
		assertVec(t, p, b.WorldToLocalVec(b.LocalToWorldVec(p)), 1e-14)
		// Rotation agrees with mgl64's quaternion rotation.
		assertVec(t, b.Rot.Rotate(p), b.Rotation().Mul3x1(p), 1e-14)
	}
}

func TestDisplaceAndQuatExp(t *testing.T) {
	b := &Body{Rot: mgl64.QuatIdent()}
	b.Displace(mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, math.Pi / 2})
	assert.Equal(t, mgl64.Vec3{0, 0, 1}, b.Pos)
	u := b.LocalToWorldVec(mgl64.Vec3{1, 0, 0})
	assertVec(t, mgl64.Vec3{0, 1, 0}, u, 1e-15, "%v", u)
	// Small-angle branch continues the exact one: compare across the switch.
	th := mgl64.Vec3{3e-9, -4e-9, 0}
	q := QuatExp(th)
	assert.InDelta(t, 1.0, quatLen(q), 1e-16)
	assert.InDelta(t, 1.5e-9, q.V[0], 1e-24)
	q2 := QuatExp(mgl64.Vec3{0, 2, 0})
	assert.InDelta(t, math.Cos(1), q2.W, 1e-15)
	assert.InDelta(t, math.Sin(1), q2.V[1], 1e-15)
	// World-frame composition: exp(θ/2) is applied on the left.
	b.Displace(mgl64.Vec3{}, mgl64.Vec3{math.Pi / 2, 0, 0})
	u = b.LocalToWorldVec(mgl64.Vec3{1, 0, 0}) // (0,1,0) then 90° about x → (0,0,1)
	assertVec(t, mgl64.Vec3{0, 0, 1}, u, 1e-15, "%v", u)
}

// assertVec checks |got − want|∞ ≤ tol (absolute; mgl64's ApproxEqual is relative).
func assertVec(t *testing.T, want, got mgl64.Vec3, tol float64, msg ...any) {
	t.Helper()
	for i := 0; i < 3; i++ {
		if math.Abs(want[i]-got[i]) > tol {
			t.Errorf("got %v, want %v (tol %g) %v", got, want, tol, msg)
			return
		}
	}
}

func diagOf(m mgl64.Mat3) mgl64.Vec3 { return mgl64.Vec3{m.At(0, 0), m.At(1, 1), m.At(2, 2)} }

func TestInertiaClosedForms(t *testing.T) {
	tests := []struct {
		name string
		got  mgl64.Mat3
		want mgl64.Vec3
	}{
		{"box 12kg 1x2x3", BoxInertia(12, 1, 2, 3), mgl64.Vec3{13, 10, 5}},
		{"cube", BoxInertia(6, 1, 1, 1), mgl64.Vec3{1, 1, 1}},
		{"sphere 5kg r2", SphereInertia(5, 2), mgl64.Vec3{8, 8, 8}},
		{"cylinder 6kg r1 l2", CylinderInertia(6, 1, 2), mgl64.Vec3{3.5, 3.5, 3}},
		{"capsule l=0 is a sphere", CapsuleInertia(5, 2, 0), mgl64.Vec3{8, 8, 8}},
		// paper rod (Enzenhöfer et al. 2019 §5.1): m = 4 kg, l = 1.5 m → ml²/12 = 0.75.
		{"rod 4kg 1.5m", RodInertiaZ(4, 1.5), mgl64.Vec3{0.75, 0.75, 0.75 * RodAxialRatio}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := diagOf(tc.got)
			for i := 0; i < 3; i++ {
				assert.InDelta(t, tc.want[i], d[i], 1e-12*math.Max(1, tc.want[i]))
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					if i != j {
						assert.Equal(t, 0.0, tc.got.At(i, j))
					}
				}
			}
			b := &Body{Name: tc.name, Mass: 1, Inertia: tc.got, Rot: mgl64.QuatIdent()}
			assert.NoError(t, b.Validate())
		})
	}
}

// TestCapsuleInertiaBySlices integrates the capsule's inertia slice by slice
// along z (each slice a disk of radius ρ(z)) with composite Simpson, an
// independent check of the hemisphere parallel-axis terms.
func TestCapsuleInertiaBySlices(t *testing.T) {
	for _, c := range []struct{ m, r, l float64 }{{3, 0.5, 2}, {1, 1, 0.25}, {7, 0.1, 3}} {
		rho2 := func(z float64) float64 {
			a := math.Abs(z) - c.l/2
			if a <= 0 {
				return c.r * c.r
			}
			return math.Max(0, c.r*c.r-a*a)
		}
		var vol, ixx, izz float64
		// Integrate each piece separately so the integrand is smooth (a
		// polynomial of degree ≤ 4) on each.
		pieces := [][2]float64{{-c.l/2 - c.r, -c.l / 2}, {-c.l / 2, c.l / 2}, {c.l / 2, c.l/2 + c.r}}
		const n = 2000
		for _, p := range pieces {
			hs := (p[1] - p[0]) / n
			for i := 0; i <= n; i++ {
				z := p[0] + float64(i)*hs
				w := 2.0
				if i == 0 || i == n {
					w = 1
				} else if i%2 == 1 {
					w = 4
				}
				w *= hs / 3
				r2 := rho2(z)
				vol += w * math.Pi * r2
				izz += w * math.Pi * r2 * r2 / 2
				ixx += w * math.Pi * (r2*r2/4 + z*z*r2)
			}
		}
		rhoM := c.m / vol
		got := diagOf(CapsuleInertia(c.m, c.r, c.l))
		// Simpson's error for a quartic with 2000 panels is ~1e-13 relative.
		assert.InDelta(t, rhoM*ixx, got[0], 1e-10*got[0], "Ixx %+v", c)
		assert.InDelta(t, rhoM*ixx, got[1], 1e-10*got[1], "Iyy %+v", c)
		assert.InDelta(t, rhoM*izz, got[2], 1e-10*got[2], "Izz %+v", c)
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := New(Params{Name: "link3", Mass: -1, Inertia: mgl64.Ident3(), Rot: mgl64.QuatIdent()})
	require.Error(t, err)
	assert.Equal(t, `body "link3": Mass: must be finite and > 0, got -1`, err.Error())
	var fe *FieldError
	require.True(t, errors.As(err, &fe))
	assert.Equal(t, FieldError{What: "body", Name: "link3", Field: "Mass", Value: -1.0, Reason: "must be finite and > 0, got -1"}, *fe)
	_, err = New(Params{Name: "x", Mass: 1, Inertia: mgl64.Ident3()})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "QuatIdent"), err.Error())
}

func Example() {
	b, err := New(Params{
		Name:    "brick",
		Mass:    2,                             // kg
		Inertia: BoxInertia(2, 0.2, 0.1, 0.05), // kg·m²
		Pos:     mgl64.Vec3{0, 0, 0.025},       // m
		Rot:     mgl64.QuatIdent(),
		Vel:     mgl64.Vec3{1, 0, 0}, // m/s
		AngVel:  mgl64.Vec3{0, 0, 2}, // rad/s
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("T = %.6f J\n", b.KineticEnergy())
	fmt.Printf("tip velocity = %.3f m/s\n", b.PointVelocity(b.LocalToWorld(mgl64.Vec3{0.1, 0, 0})))

	_, err = New(Params{Name: "bad", Mass: 1, Inertia: SphereInertia(1, 0.1)}) // Rot left zero
	fmt.Println(err)
	// Output:
	// T = 1.016667 J
	// tip velocity = [1.000 0.200 0.000] m/s
	// body "bad": Rot: must be a unit quaternion (||q|-1| ≤ 1e-09), got |q| = 0 (w=0 x=0 y=0 z=0); use mgl64.QuatIdent() for no rotation
}

// FuzzNew checks that New never panics and that an accepted dynamic body has
// finite M⁻¹ blocks.
func FuzzNew(f *testing.F) {
	f.Add(2.0, 1.0, 2.0, 3.0, 0.1, 1.0, 0.0, 0.0, 0.0, false)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, true)
	f.Add(-1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, false)
	f.Add(1e-320, 1e-310, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, false)
	f.Fuzz(func(t *testing.T, m, ixx, iyy, izz, ixy, qw, qx, qy, qz float64, static bool) {
		in := mgl64.Mat3FromRows(mgl64.Vec3{ixx, ixy, 0}, mgl64.Vec3{ixy, iyy, 0}, mgl64.Vec3{0, 0, izz})
		b, err := New(Params{Name: "f", Mass: m, Inertia: in, Rot: mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}, Static: static})
		if err != nil {
			return
		}
		for _, x := range b.InvInertiaWorld() {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("accepted body has non-finite inverse inertia: %+v", b)
			}
		}
		if x := b.InvMass(); math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("accepted body has non-finite inverse mass: %+v", b)
		}
	})
}

// PrincipalAxes diagonalizes a rotated inertia: Vᵀ I V is diagonal to
// rounding, V is a rotation, and the moments are those before the turn.
func TestPrincipalAxes(t *testing.T) {
	d := mgl64.Vec3{0.3, 1.1, 2.0}
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	r := q.Mat4().Mat3()
	in := r.Mul3(mgl64.Diag3(d)).Mul3(r.Transpose())
	m, v := PrincipalAxes(in)
	got := v.Transpose().Mul3(in).Mul3(v)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if i != j {
				assert.InDelta(t, 0, got.At(i, j), 1e-14) // rounding of O(1) entries
			}
		}
		assert.InDelta(t, got.At(i, i), m[i], 1e-14)
	}
	assert.InDelta(t, 1, v.Det(), 1e-14)
	sorted := []float64{m[0], m[1], m[2]}
	slices.Sort(sorted)
	assert.InDeltaSlice(t, []float64{d[0], d[1], d[2]}, sorted, 1e-14)
	m, v = PrincipalAxes(mgl64.Diag3(d))
	assert.Equal(t, d, m)
	assert.Equal(t, mgl64.Ident3(), v)
}

// AngularStepJacobian's J_f is the response of the midpoint step to a
// small body-frame angular impulse p: the step under the extra torque p/h
// moves ω⁺ by J_f⁻¹ p to O(|p|²), for a 500 rad/s wheel (h λ ≈ 8) and a
// tumbling box.
func TestAngularStepJacobianIsTheImpulseResponse(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mgl64.Mat3
		w    mgl64.Vec3
	}{
		{"wheel", CylinderInertia(10, 0.2, 0.05), mgl64.Vec3{2, 0, 500}},
		{"box", BoxInertia(1, 0.3, 0.2, 0.1), mgl64.Vec3{10, 20, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rot := mgl64.QuatRotate(0.4, mgl64.Vec3{1, 1, 0}.Normalize())
			b, err := New(Params{Mass: 1, Inertia: c.in, Rot: rot, AngVel: rot.Rotate(c.w)})
			require.NoError(t, err)
			const h = 1.0 / 60
			wf, jf := b.AngularStepJacobian(h, mgl64.Vec3{})
			assert.Equal(t, b.AngularStep(h, mgl64.Vec3{}), wf)
			for _, p := range []mgl64.Vec3{{1e-4, 0, 0}, {0, 1e-4, 0}, {0, 0, 1e-4}} {
				pw := rot.Rotate(p) // world impulse
				got := b.AngularStep(h, pw.Mul(1/h)).Sub(wf)
				want := rot.Rotate(Inv3(jf).Mul3x1(p))
				// 1e-4 of the response: the O(|p|²) remainder, (h/4) Δω × I Δω
				// in the midpoint equation, is below 4e-5 of it here.
				assert.InDelta(t, 0, got.Sub(want).Len(), 1e-4*want.Len(), "p = %v: got %v, want %v", p, got, want)
			}
		})
	}
}

// SpinDisplace turns a wheel spinning on a turning carrier as the carrier
// and its spin compose: the axle follows the carrier's turn, the spin stays
// on the axle, and the kinetic energy is kept; Displace's single turn
// about ω leaves the axle on a cone around ω instead.
func TestSpinDisplaceKeepsTheSpinOnItsAxle(t *testing.T) {
	rot := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}) // axle (local z) → world x
	const h, s, yaw = 1.0 / 60, 500.0, 2.0
	omega := mgl64.Vec3{s, 0, yaw}
	b, err := New(Params{Mass: 10, Inertia: CylinderInertia(10, 0.2, 0.05), Rot: rot, AngVel: omega})
	require.NoError(t, err)
	e0 := b.KineticEnergy()
	require.True(t, b.SpinDisplace(mgl64.Vec3{}, omega.Mul(h), mgl64.Vec3{1, 0, 0}))
	axle := b.LocalToWorldVec(mgl64.Vec3{0, 0, 1})
	want := mgl64.Vec3{math.Cos(h * yaw), math.Sin(h * yaw), 0}
	assert.InDelta(t, 0, axle.Sub(want).Len(), 1e-14) // rounding
	assert.InDelta(t, 0, b.AngVel.Sub(want.Mul(s).Add(mgl64.Vec3{0, 0, yaw})).Len(), 1e-12)
	assert.InDelta(t, e0, b.KineticEnergy(), 1e-12*e0)
	// The zero spin direction takes the principal axis nearest to dθ: the same.
	c, err := New(Params{Mass: 10, Inertia: CylinderInertia(10, 0.2, 0.05), Rot: rot, AngVel: omega})
	require.NoError(t, err)
	require.True(t, c.SpinDisplace(mgl64.Vec3{}, omega.Mul(h), mgl64.Vec3{}))
	assert.InDelta(t, 0, c.LocalToWorldVec(mgl64.Vec3{0, 0, 1}).Sub(want).Len(), 1e-14)
	// Displace: the axle leaves the plane of the carrier's turn.
	d, err := New(Params{Mass: 10, Inertia: CylinderInertia(10, 0.2, 0.05), Rot: rot, AngVel: omega})
	require.NoError(t, err)
	d.Displace(mgl64.Vec3{}, omega.Mul(h))
	assert.Greater(t, d.LocalToWorldVec(mgl64.Vec3{0, 0, 1}).Sub(want).Len(), 0.02)
	// A tumble (the spin does not dominate) and a spin direction far from
	// every principal axis are left to Displace.
	f, err := New(Params{Mass: 10, Inertia: CylinderInertia(10, 0.2, 0.05), Rot: rot, AngVel: omega})
	require.NoError(t, err)
	assert.False(t, f.SpinDisplace(mgl64.Vec3{}, mgl64.Vec3{1, 1, 1}, mgl64.Vec3{}))
	assert.False(t, f.SpinDisplace(mgl64.Vec3{}, omega.Mul(h), mgl64.Vec3{1, 1, 1}))
	assert.Equal(t, rot, f.Rot) // untouched
}
