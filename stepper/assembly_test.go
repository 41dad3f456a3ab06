package stepper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// assemblyBodies returns five bodies: three dynamic ones with different
// masses, inertias, poses and velocities, a static one and a kinematic
// one moving at its set velocity.
func assemblyBodies(t *testing.T) []*body.Body {
	t.Helper()
	mk := func(p body.Params) *body.Body {
		b, err := body.New(p)
		require.NoError(t, err)
		return b
	}
	turn := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	return []*body.Body{
		mk(body.Params{Mass: 2, Inertia: body.BoxInertia(2, 0.4, 0.2, 0.1), Pos: mgl64.Vec3{0, 0, 1}, Rot: turn,
			Vel: mgl64.Vec3{0.1, -0.2, 0.3}, AngVel: mgl64.Vec3{1, 0.5, -2}, Force: mgl64.Vec3{3, 0, 1}, Torque: mgl64.Vec3{0, 0.2, 0}}),
		mk(body.Params{Mass: 0.5, Inertia: body.BoxInertia(0.5, 0.1, 0.1, 0.3), Pos: mgl64.Vec3{1, 0, 1}, Rot: mgl64.QuatIdent(),
			AngVel: mgl64.Vec3{0, 3, 0}}),
		mk(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 1, 1, 1), Pos: mgl64.Vec3{0, 0, -1}, Rot: mgl64.QuatIdent(), Static: true}),
		mk(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 1, 1, 1), Pos: mgl64.Vec3{2, 0, 0}, Rot: mgl64.QuatIdent(),
			Vel: mgl64.Vec3{0.5, 0, 0}, AngVel: mgl64.Vec3{0, 0, 0.4}, Kinematic: true}),
		mk(body.Params{Mass: 40, Inertia: body.BoxInertia(40, 1, 0.5, 2), Pos: mgl64.Vec3{0, 2, 0}, Rot: turn.Mul(turn),
			Vel: mgl64.Vec3{0, 0, -1}}),
	}
}

// TestAssembleEqualsDense: Assemble's A, b and JMinv equal the dense
// products of Eq. 1, A = J M⁻¹ Jᵀ + C and b = J M⁻¹ p + position term +
// j_v J v − Speed, with J and M⁻¹ written out as 6-per-body matrices (M⁻¹
// zero for the static and kinematic bodies) for rows of every kind on 1 to
// 3 bodies with random Jacobians, compliant and rigid.
func TestAssembleEqualsDense(t *testing.T) {
	bodies := assemblyBodies(t)
	set := stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity}
	rng := rand.New(rand.NewPCG(15, 1))
	kinds := []constraint.Kind{constraint.Bilateral, constraint.LimitLower, constraint.Motor, constraint.Friction,
		constraint.ContactNormal, constraint.ContactFriction, constraint.RollingFriction, constraint.Gear}
	const n = 24
	rows := make([]constraint.Row, n)
	for i := range rows {
		r := &rows[i]
		r.Reset(kinds[i%len(kinds)])
		for _, bi := range rng.Perm(len(bodies))[:1+i%3] {
			var lin, ang mgl64.Vec3
			for k := 0; k < 3; k++ {
				lin[k], ang[k] = rng.NormFloat64(), rng.NormFloat64()
			}
			r.AddBody(bi, lin, ang)
		}
		r.Phi = 0.01 * rng.NormFloat64()
		r.Lo, r.Hi = -1, 1
		if i%4 == 1 {
			r.Stiffness = 1e4
			if i%8 == 1 {
				r.Damping = 0.05 // SPOOK
			}
		}
		if r.Kind == constraint.Motor {
			r.Speed = 0.7
		}
	}
	var m stepper.Mass
	m.Update(bodies, set.H, set.Gravity)
	var asm stepper.Assembly
	require.NoError(t, asm.Assemble(&set, &m, rows))

	nb := len(bodies)
	J := mat.NewDense(n, 6*nb, nil)
	for i := range rows {
		for k := 0; k < rows[i].N; k++ {
			for c := 0; c < 6; c++ {
				J.Set(i, 6*rows[i].Body[k]+c, rows[i].J[k][c])
			}
		}
	}
	Minv := mat.NewDense(6*nb, 6*nb, nil)
	free, vel := mat.NewVecDense(6*nb, nil), mat.NewVecDense(6*nb, nil)
	for bi, b := range bodies {
		for c := 0; c < 3; c++ {
			vel.SetVec(6*bi+c, b.Vel[c])
			vel.SetVec(6*bi+3+c, b.AngVel[c])
		}
		switch {
		case b.Static:
			continue
		case b.Kinematic:
			for c := 0; c < 6; c++ {
				free.SetVec(6*bi+c, vel.AtVec(6*bi+c))
			}
			continue
		}
		fv := b.FreeVelocity(set.H, set.Gravity)
		for c := 0; c < 6; c++ {
			free.SetVec(6*bi+c, fv[c])
		}
		iw := b.InertiaWorld()
		var inv mat.Dense
		require.NoError(t, inv.Inverse(mat.NewDense(3, 3, []float64{
			iw.At(0, 0), iw.At(0, 1), iw.At(0, 2), iw.At(1, 0), iw.At(1, 1), iw.At(1, 2), iw.At(2, 0), iw.At(2, 1), iw.At(2, 2)})))
		for r := 0; r < 3; r++ {
			Minv.Set(6*bi+r, 6*bi+r, 1/b.Mass)
			for c := 0; c < 3; c++ {
				Minv.Set(6*bi+3+r, 6*bi+3+c, inv.At(r, c))
			}
		}
	}
	var MJt, A mat.Dense
	MJt.Mul(Minv, J.T())
	A.Mul(J, &MJt)
	var jFree, jv mat.VecDense
	jFree.MulVec(J, free)
	jv.MulVec(J, vel)
	scale := mat.Norm(&A, math.Inf(1))
	for i := range rows {
		c, _, jf := rows[i].Compliance(set.H)
		want := jFree.AtVec(i) + set.PositionTerm(&rows[i]) + jf*jv.AtVec(i) - rows[i].Speed
		// 1e-12: the same sums in another order (a 3-term dot product of
		// O(1) entries per body against gonum's dense products).
		require.InDelta(t, want, asm.B[i], 1e-12*math.Max(1, math.Abs(want)), "b[%d]", i)
		require.Equal(t, rows[i].Lo, asm.Lo[i])
		require.Equal(t, rows[i].Hi, asm.Hi[i])
		for j := range rows {
			w := A.At(i, j)
			if i == j {
				w += c
			}
			require.InDelta(t, w, asm.A.At(i, j), 1e-12*scale, "A[%d][%d]", i, j)
			require.Equal(t, asm.A.At(j, i), asm.A.At(i, j), "A is exactly symmetric")
		}
		// JMinv is M⁻¹ Jᵀ per body slot: v⁺ = M⁻¹p + M⁻¹ Jᵀ x.
		for k := 0; k < rows[i].N; k++ {
			for cc := 0; cc < 6; cc++ {
				require.InDelta(t, MJt.At(6*rows[i].Body[k]+cc, i), asm.JMinv[i][k][cc], 1e-12, "JMinv[%d][%d][%d]", i, k, cc)
			}
		}
	}

	// MassMatrix: the same A without C, b and bounds untouched.
	var pm stepper.Assembly
	require.NoError(t, pm.MassMatrix(&m, rows))
	for i := range rows {
		for j := range rows {
			require.InDelta(t, A.At(i, j), pm.A.At(i, j), 1e-12*scale, "J M⁻¹ Jᵀ [%d][%d]", i, j)
		}
	}
	require.Empty(t, pm.B)
}

// TestMassUpdate: free velocities of Eq. 1's p = M v + h f_a: a dynamic
// body without spin falls freely, v + h (f/m + g); a static one has none;
// a kinematic one keeps its set velocity (infinite mass) and both have a
// zero inverse inertia.
func TestMassUpdate(t *testing.T) {
	bodies := assemblyBodies(t)
	h, g := 0.01, stepper.StandardGravity
	var m stepper.Mass
	m.Update(bodies, h, g)
	b1 := bodies[1] // spins about a principal axis: ω stays
	require.Equal(t, [6]float64{h * 0, h * 0, h * -9.81, 0, 3, 0}, m.Free[1])
	require.Equal(t, [6]float64{}, m.Free[2])
	require.Equal(t, [6]float64{0.5, 0, 0, 0, 0, 0.4}, m.Free[3])
	require.Equal(t, mgl64.Mat3{}, m.InvInertia[2])
	require.Equal(t, mgl64.Mat3{}, m.InvInertia[3])
	// A dynamic body's inverse inertia times its inertia is the identity
	// (to rounding, 1e-12 for entries of O(1)).
	p := m.InvInertia[1].Mul3(b1.InertiaWorld())
	require.True(t, p.ApproxEqualThreshold(mgl64.Ident3(), 1e-12), "%v", p)
	// UpdateInertia follows a turn and keeps the free velocities.
	b1.Rot = mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	m.UpdateInertia()
	p = m.InvInertia[1].Mul3(b1.InertiaWorld())
	require.True(t, p.ApproxEqualThreshold(mgl64.Ident3(), 1e-12), "%v", p)
	require.InDelta(t, 1/(0.5*(0.1*0.1+0.1*0.1)/12), m.InvInertia[1].At(1, 1), 1e-9, "I_yy after the turn is the body's I_zz")
	require.Equal(t, [6]float64{0, 0, h * -9.81, 0, 3, 0}, m.Free[1])
}

// TestPositionTerm: Φ/h of Eq. 1 under each stabilization mode, h = 10 ms,
// with ProjectAbove = 5 mm: Regularized caps it at 5 mm/h = 0.5 m/s
// (Settings.MaxCorrectingSpeed's default).
func TestPositionTerm(t *testing.T) {
	row := func(k constraint.Kind, phi, stiff float64) *constraint.Row {
		r := &constraint.Row{Kind: k, Phi: phi, Stiffness: stiff}
		return r
	}
	cases := []struct {
		name string
		r    *constraint.Row
		want [4]float64 // Regularized, None, Baumgarte (β = 5/s), Post
	}{
		{"bilateral violation", row(constraint.Bilateral, 0.002, 0), [4]float64{0.2, 0, 0.01, 0}},
		{"penetration", row(constraint.ContactNormal, -0.002, 0), [4]float64{-0.2, 0, -0.01, 0}},
		{"gap is always φ/h", row(constraint.ContactNormal, 0.002, 0), [4]float64{0.2, 0.2, 0.2, 0.2}},
		{"limit gap", row(constraint.LimitUpper, 0.002, 0), [4]float64{0.2, 0.2, 0.2, 0.2}},
		{"spring keeps its term", row(constraint.ContactNormal, -0.002, 1e5), [4]float64{-0.2, -0.2, -0.2, -0.2}},
		{"infinite stiffness is rigid", row(constraint.Bilateral, 0.002, math.Inf(1)), [4]float64{0.2, 0, 0.01, 0}},
		{"velocity row", row(constraint.Motor, 0, 0), [4]float64{0, 0, 0, 0}},
		{"deep penetration is capped", row(constraint.ContactNormal, -0.008, 0), [4]float64{-0.5, 0, -0.04, 0}},
		{"large joint error is capped", row(constraint.Bilateral, 0.008, 0), [4]float64{0.5, 0, 0.04, 0}},
		{"large gap is not", row(constraint.ContactNormal, 0.008, 0), [4]float64{0.8, 0.8, 0.8, 0.8}},
		{"deep spring is not", row(constraint.ContactNormal, -0.008, 1e5), [4]float64{-0.8, -0.8, -0.8, -0.8}},
	}
	for _, c := range cases {
		for i, mode := range []stepper.Stabilization{stepper.Regularized, stepper.None, stepper.Baumgarte, stepper.Post} {
			s := stepper.Settings{H: 0.01, Stabilization: mode, Baumgarte: 5, ProjectAbove: 0.005}
			// 1e-15: one division or product of exact decimals.
			require.InDelta(t, c.want[i], s.PositionTerm(c.r), 1e-15, "%s, %v", c.name, mode)
		}
	}
	deep := row(constraint.ContactNormal, -0.008, 0)
	for _, c := range []struct{ vmax, want float64 }{{0.3, -0.3}, {math.Inf(1), -0.8}} {
		s := stepper.Settings{H: 0.01, MaxCorrectingSpeed: c.vmax}
		require.InDelta(t, c.want, s.PositionTerm(deep), 1e-15, "MaxCorrectingSpeed %v", c.vmax)
	}
}

// badConstraint fills one row that names body 7 of a world with fewer.
type badConstraint struct{}

func (badConstraint) Dim() int      { return 1 }
func (badConstraint) Bodies() []int { return []int{0} }
func (badConstraint) Fill(rows []constraint.Row, _ *constraint.Context) error {
	rows[0].Reset(constraint.Bilateral)
	rows[0].AddBody(7, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{})
	return nil
}

// TestAssembleBadRows: a row naming a body that is not there is an error
// naming the row and the body, from Assemble, MassMatrix and Step (a
// constraint of the user's whose Fill gets its indices wrong), not a panic.
func TestAssembleBadRows(t *testing.T) {
	bodies := assemblyBodies(t)
	var m stepper.Mass
	m.Update(bodies, 0.01, stepper.StandardGravity)
	rows := make([]constraint.Row, 2)
	rows[0].Reset(constraint.Bilateral)
	rows[0].AddBody(1, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{})
	rows[1].Reset(constraint.ContactNormal)
	rows[1].AddBody(9, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{})
	var a stepper.Assembly
	require.EqualError(t, a.Assemble(&stepper.Settings{H: 0.01}, &m, rows),
		"row 1: ContactNormal row: Body[0] = 9, want the index of one of the 5 bodies")
	require.ErrorContains(t, a.MassMatrix(&m, rows), "row 1: ContactNormal row: Body[0] = 9")
	rows[1].N = constraint.MaxBodies + 1
	require.ErrorContains(t, a.Assemble(&stepper.Settings{H: 0.01}, &m, rows), "row 1: ContactNormal row: N = 5, want 0 to 4 bodies")

	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	_, err = w.AddBody(bodies[0])
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(badConstraint{}))
	_, err = w.Step()
	require.EqualError(t, err, "constraint 0: its row 0: Bilateral row: Body[0] = 7, want the index of one of the 1 bodies")
}
