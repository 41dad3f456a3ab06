package constraint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randVec(r *rand.Rand, s float64) mgl64.Vec3 {
	return mgl64.Vec3{s * r.NormFloat64(), s * r.NormFloat64(), s * r.NormFloat64()}
}

func randQuat(r *rand.Rand) mgl64.Quat {
	q := mgl64.Quat{W: r.NormFloat64(), V: randVec(r, 1)}
	return q.Scale(1 / q.Len())
}

// randWorld returns n dynamic bodies at random poses.
func randWorld(t testing.TB, r *rand.Rand, n int) []*body.Body {
	bs := make([]*body.Body, n)
	for i := range bs {
		b, err := body.New(body.Params{
			Name: fmt.Sprintf("b%d", i), Mass: 1 + r.Float64(),
			Inertia: body.BoxInertia(1, 0.3+r.Float64(), 0.3+r.Float64(), 0.3+r.Float64()),
			Pos:     randVec(r, 1), Rot: randQuat(r),
			Vel: randVec(r, 1), AngVel: randVec(r, 1),
		})
		require.NoError(t, err)
		bs[i] = b
	}
	return bs
}

// jointCase builds a joint on bodies (a, b) of a world, with every optional
// row enabled where the joint has them.
type jointCase struct {
	name  string
	build func(bs []*body.Body, a, b int, pivot, axis mgl64.Vec3) (Positional, error)
	coord func(c Positional, ctx *Context) float64 // θ or s; nil if none
}

var jointCases = []jointCase{
	{"ball", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		j, err := NewBall(bs, a, b, p)
		if err != nil {
			return nil, err
		}
		if err := j.SetTwistLimits(bs, n, -0.3, 0.25); err != nil {
			return nil, err
		}
		return j, j.SetSwingLimit(bs, n, 0.2)
	}, nil},
	{"fixed", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) { return NewFixed(bs, a, b, p) }, nil},
	{"distance", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		return NewDistance(bs, a, b, p, p.Add(n), 0.7)
	}, nil},
	{"rope", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		return NewRope(bs, a, b, p, p.Add(n), 0.7)
	}, nil},
	{"universal", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		u, _ := Perp(n.Normalize())
		return NewUniversal(bs, a, b, p, n, u)
	}, nil},
	{"hinge", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		h, err := NewHinge(bs, a, b, p, n)
		if err != nil {
			return nil, err
		}
		if err := h.SetSpringDamper(3, 0.5, 0.2); err != nil {
			return nil, err
		}
		if err := h.SetServo(0.1, 5, 1, 2); err != nil {
			return nil, err
		}
		if err := h.SetEffort(0.7); err != nil {
			return nil, err
		}
		if err := h.SetLimits(-0.4, 0.6); err != nil {
			return nil, err
		}
		if err := h.SetMotor(1.5, 20); err != nil {
			return nil, err
		}
		return h, h.SetFriction(2)
	}, func(c Positional, ctx *Context) float64 {
		th, err := c.(*Hinge).Angle(ctx)
		if err != nil {
			panic(err)
		}
		return th
	}},
	{"prismatic", func(bs []*body.Body, a, b int, p, n mgl64.Vec3) (Positional, error) {
		j, err := NewPrismatic(bs, a, b, p, n)
		if err != nil {
			return nil, err
		}
		if err := j.SetSpringDamper(30, 0, 0.05); err != nil {
			return nil, err
		}
		if err := j.SetArmature(0.4); err != nil {
			return nil, err
		}
		if err := j.SetLimits(-0.1, 0.2); err != nil {
			return nil, err
		}
		if err := j.SetMotor(-0.5, 100); err != nil {
			return nil, err
		}
		return j, j.SetFriction(3)
	}, func(c Positional, ctx *Context) float64 {
		s, err := c.(*Prismatic).Slide(ctx)
		if err != nil {
			panic(err)
		}
		return s
	}},
}

// fdColumn returns the central-difference derivative of f with respect to
// body k's generalized displacement component dof (0–2: position along
// world x, y, z; 3–5: rotation q ← exp(δθ/2)·q about world x, y, z).
func fdColumn(bs []*body.Body, k, dof int, eps float64, f func(dst []float64), dst []float64) {
	b := bs[k]
	p0, q0 := b.Pos, b.Rot
	plus := make([]float64, len(dst))
	minus := make([]float64, len(dst))
	for s, out := range map[float64][]float64{+1: plus, -1: minus} {
		var d mgl64.Vec3
		d[dof%3] = s * eps
		if dof < 3 {
			b.Pos = p0.Add(d)
		} else {
			b.Rot = body.QuatExp(d).Mul(q0)
		}
		f(out)
		b.Pos, b.Rot = p0, q0
	}
	for i := range dst {
		dst[i] = (plus[i] - minus[i]) / (2 * eps)
	}
}

// jEntry returns row r's Jacobian entry for body k, component c (0 if the
// row does not touch k).
func jEntry(r *Row, k, c int) float64 {
	for i := 0; i < r.N; i++ {
		if r.Body[i] == k {
			return r.J[i][c]
		}
	}
	return 0
}

// TestJacobianFiniteDifference checks J = ∂φ/∂v for every row of every
// position-level joint, at random poses away from the creation pose (so φ ≠
// 0), for both bodies dynamic and for each side being the world. Motor and
// friction rows, which have no φ, are checked against the derivative of the
// joint coordinate (θ or s) instead.
//
// Tolerance 1e-6: the central difference with ε = 1e-6 has truncation error
// ~ε²·|φ”'| ≈ 1e-12 and rounding error ~1e-16·|φ|/ε ≈ 1e-10 for |φ| ~ 1;
// a wrong Jacobian term is O(1) (or O(|φ|) ≈ 0.1 for terms that vanish when
// φ = 0), far above it.
func TestJacobianFiniteDifference(t *testing.T) {
	const eps, tol = 1e-6, 1e-6
	r := rand.New(rand.NewPCG(7, 11))
	sides := [][2]int{{0, 1}, {1, 0}, {0, World}, {World, 2}}
	for _, jc := range jointCases {
		for _, sd := range sides {
			for trial := 0; trial < 5; trial++ {
				name := fmt.Sprintf("%s/%d-%d/%d", jc.name, sd[0], sd[1], trial)
				t.Run(name, func(t *testing.T) {
					bs := randWorld(t, r, 3)
					j, err := jc.build(bs, sd[0], sd[1], randVec(r, 1), randVec(r, 1))
					require.NoError(t, err)
					// Move every body away from the creation pose.
					for _, b := range bs {
						b.Displace(randVec(r, 0.1), randVec(r, 0.15))
					}
					ctx := &Context{Bodies: bs, H: 0.01}
					n := j.Dim()
					rows := make([]Row, n)
					require.NoError(t, j.Fill(rows, ctx))
					phi := make([]float64, n)
					require.NoError(t, j.Violation(ctx, phi))
					nonzero := false
					for i := range rows {
						require.NoError(t, rows[i].Validate(len(bs)), "row %d", i)
						assert.Equal(t, rows[i].Phi, phi[i])
						if rows[i].Kind.Positional() && math.Abs(phi[i]) > 1e-3 {
							nonzero = true
						}
					}
					assert.True(t, nonzero, "test pose should violate the joint: φ = %v", phi)
					col := make([]float64, n)
					coordCol := make([]float64, 1)
					for k := range bs {
						for dof := 0; dof < 6; dof++ {
							fdColumn(bs, k, dof, eps, func(dst []float64) {
								if err := j.Violation(ctx, dst); err != nil {
									panic(err)
								}
							}, col)
							if jc.coord != nil {
								fdColumn(bs, k, dof, eps, func(dst []float64) { dst[0] = jc.coord(j, ctx) }, coordCol)
							}
							for i := range rows {
								want := col[i]
								switch rows[i].Kind {
								case Motor, Friction:
									want = coordCol[0]
								}
								assert.InDelta(t, want, jEntry(&rows[i], k, dof), tol,
									"row %d (%v) body %d dof %d", i, rows[i].Kind, k, dof)
							}
						}
					}
				})
			}
		}
	}
}

// TestConstraintForcesBalance checks that each row's impulse Jᵀx is an
// internal force system between two free bodies: zero net force for every
// row, and zero net torque about the origin for every row except the ball
// rows, whose forces act at the two (separated, when violated) anchors.
func TestConstraintForcesBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, jc := range jointCases {
		bs := randWorld(t, r, 2)
		j, err := jc.build(bs, 0, 1, randVec(r, 1), randVec(r, 1))
		require.NoError(t, err)
		for _, b := range bs {
			b.Displace(randVec(r, 0.1), randVec(r, 0.15))
		}
		rows := make([]Row, j.Dim())
		require.NoError(t, j.Fill(rows, &Context{Bodies: bs, H: 0.01}))
		for i := range rows {
			var f, tq mgl64.Vec3
			for k := 0; k < rows[i].N; k++ {
				b := bs[rows[i].Body[k]]
				fk := mgl64.Vec3{rows[i].J[k][0], rows[i].J[k][1], rows[i].J[k][2]}
				f = f.Add(fk)
				tq = tq.Add(mgl64.Vec3{rows[i].J[k][3], rows[i].J[k][4], rows[i].J[k][5]}).Add(b.Pos.Cross(fk))
			}
			assert.InDelta(t, 0, f.Len(), 1e-12, "%s row %d: net force", jc.name, i)
			// Translational rows with separated anchors (ball, fixed, hinge)
			// exert a couple (w_a − w_b) × F; all others balance torque too.
			if jc.name == "distance" || jc.name == "rope" || jc.name == "prismatic" || (jc.name == "universal" && i == 3) || (rows[i].Kind != Bilateral) || (jc.name == "fixed" && i >= 3) || (jc.name == "hinge" && i >= 3) {
				assert.InDelta(t, 0, tq.Len(), 1e-12, "%s row %d: net torque", jc.name, i)
			}
		}
	}
}

func TestFillAllocationFree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	bs := randWorld(t, r, 4)
	ctx := &Context{Bodies: bs, H: 0.01}
	var cs []Constraint
	for _, jc := range jointCases {
		j, err := jc.build(bs, 0, 1, randVec(r, 1), randVec(r, 1))
		require.NoError(t, err)
		cs = append(cs, j)
	}
	g, err := NewGear(bs, 0, 1, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, 1}, 2, 2)
	require.NoError(t, err)
	d, err := NewDifferential(bs, 0, 1, 2, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 0, 1}, 3)
	require.NoError(t, err)
	cs = append(cs, g, d)
	rows := make([]Row, 16)
	phi := make([]float64, 16)
	for _, c := range cs {
		allocs := testing.AllocsPerRun(50, func() {
			if err := c.Fill(rows, ctx); err != nil {
				panic(err)
			}
			if p, ok := c.(Positional); ok {
				if err := p.Violation(ctx, phi); err != nil {
					panic(err)
				}
			}
			_ = c.Bodies()
		})
		assert.Equal(t, 0.0, allocs, "%T", c)
	}
}

func TestHingeRows(t *testing.T) {
	bs := []*body.Body{mustBody(t, "arm", mgl64.Vec3{1, 0, 0})}
	h, err := NewHinge(bs, 0, World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 2})
	require.NoError(t, err)
	assert.Equal(t, 5, h.Dim())
	assert.Equal(t, []int{0}, h.Bodies())
	require.NoError(t, h.SetLimits(-0.1, 0.2))
	assert.Equal(t, 7, h.Dim(), "both limits enabled")
	require.NoError(t, h.SetLimits(math.Inf(-1), 0.2))
	assert.Equal(t, 6, h.Dim(), "upper only")
	require.NoError(t, h.SetLimits(-0.1, 0.2))
	require.NoError(t, h.SetMotor(3, 4))
	require.NoError(t, h.SetFriction(0.5))
	assert.Equal(t, 9, h.Dim())

	// Turn the arm 0.3 rad about z around the pivot (the origin).
	q := mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1})
	bs[0].Rot = q
	bs[0].Pos = q.Rotate(mgl64.Vec3{1, 0, 0})
	ctx := &Context{Bodies: bs, H: 0.01}
	th, err := h.Angle(ctx)
	require.NoError(t, err)
	assert.InDelta(t, 0.3, th, 1e-15)
	rows := make([]Row, h.Dim())
	require.NoError(t, h.Fill(rows, ctx))
	kinds := make([]Kind, len(rows))
	for i := range rows {
		kinds[i] = rows[i].Kind
	}
	assert.Equal(t, []Kind{Bilateral, Bilateral, Bilateral, Bilateral, Bilateral, LimitLower, LimitUpper, Motor, Friction}, kinds)
	for i := 0; i < 5; i++ {
		assert.InDelta(t, 0, rows[i].Phi, 1e-15, "row %d satisfied", i)
	}
	inf := math.Inf(1)
	// Lower limit: φ = θ − θ_lo = 0.4 (admissible), J = +z; upper: φ = 0.2 − 0.3 = −0.1 (violated), J = −z.
	assert.InDelta(t, 0.4, rows[5].Phi, 1e-15)
	assert.InDelta(t, -0.1, rows[6].Phi, 1e-15)
	assert.InDelta(t, 1, rows[5].J[0][5], 1e-15)
	assert.InDelta(t, -1, rows[6].J[0][5], 1e-15)
	assert.Equal(t, [2]float64{0, inf}, [2]float64{rows[5].Lo, rows[5].Hi})
	assert.Equal(t, [2]float64{0, inf}, [2]float64{rows[6].Lo, rows[6].Hi})
	assert.Equal(t, 3.0, rows[7].Speed)
	assert.InDelta(t, -0.04, rows[7].Lo, 1e-17) // 4 N·m · 0.01 s
	assert.InDelta(t, 0.04, rows[7].Hi, 1e-17)
	assert.InDelta(t, -0.005, rows[8].Lo, 1e-17) // 0.5 N·m · 0.01 s
	assert.Equal(t, 0.0, rows[8].Speed)
	for i := range rows {
		assert.Equal(t, 1, rows[i].N, "World is never listed")
	}

	// Angles near ±π stay in (−π, π].
	q = mgl64.QuatRotate(math.Pi, mgl64.Vec3{0, 0, 1})
	bs[0].Rot, bs[0].Pos = q, q.Rotate(mgl64.Vec3{1, 0, 0})
	th, _ = h.Angle(ctx)
	assert.InDelta(t, math.Pi, th, 1e-12)
	q = mgl64.QuatRotate(-3, mgl64.Vec3{0, 0, 1})
	bs[0].Rot = q
	th, _ = h.Angle(ctx)
	assert.InDelta(t, -3, th, 1e-12)

	h.ClearLimits()
	h.ClearMotor()
	require.NoError(t, h.SetFriction(0))
	assert.Equal(t, 5, h.Dim())
}

func TestPrismaticSlide(t *testing.T) {
	bs := []*body.Body{mustBody(t, "slider", mgl64.Vec3{0, 0, 1}), mustBody(t, "base", mgl64.Vec3{})}
	j, err := NewPrismatic(bs, 0, 1, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{1, 0, 0})
	require.NoError(t, err)
	require.NoError(t, j.SetLimits(-0.5, 0.25))
	bs[0].Pos = mgl64.Vec3{0.3, 0, 1}
	ctx := &Context{Bodies: bs, H: 0.002}
	s, err := j.Slide(ctx)
	require.NoError(t, err)
	assert.InDelta(t, 0.3, s, 1e-15)
	rows := make([]Row, j.Dim())
	require.NoError(t, j.Fill(rows, ctx))
	assert.InDelta(t, 0.8, rows[5].Phi, 1e-15)   // s − lo
	assert.InDelta(t, -0.05, rows[6].Phi, 1e-15) // hi − s, violated
	assert.Equal(t, []int{0, 1}, j.Bodies())
}

func TestDistanceRow(t *testing.T) {
	bs := []*body.Body{mustBody(t, "bob", mgl64.Vec3{0, 0, -2})}
	d, err := NewDistance(bs, 0, World, mgl64.Vec3{0, 0, -2}, mgl64.Vec3{}, 1.5)
	require.NoError(t, err)
	rows := make([]Row, 1)
	require.NoError(t, d.Fill(rows, &Context{Bodies: bs, H: 0.01}))
	assert.InDelta(t, 0.5, rows[0].Phi, 1e-15) // 2 − 1.5
	assert.Equal(t, [6]float64{0, 0, -1, 0, 0, 0}, rows[0].J[0])
}

func TestGearAndDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	bs := randWorld(t, r, 4)
	ctx := &Context{Bodies: bs, H: 0.01}
	na, nb, nc := randVec(r, 1), randVec(r, 1), randVec(r, 1)
	g, err := NewGear(bs, 0, 1, na, nb, 2.5, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 3}, g.Bodies())
	d, err := NewDifferential(bs, 2, 0, 1, nc, na, nb, 3)
	require.NoError(t, err)
	assert.Equal(t, []int{2, 0, 1, 3}, d.Bodies())
	// Axes are fixed in their bodies: move the bodies, then compare J v with
	// the defining formulas at the new axes.
	for _, b := range bs {
		b.Displace(mgl64.Vec3{}, randVec(r, 0.5))
	}
	rows := make([]Row, 2)
	require.NoError(t, g.Fill(rows[:1], ctx))
	require.NoError(t, d.Fill(rows[1:], ctx))
	for i := range rows {
		require.NoError(t, rows[i].Validate(len(bs)))
		assert.Equal(t, 0.0, rows[i].Phi)
		assert.False(t, rows[i].Kind.Positional())
	}
	assert.Equal(t, Gear, rows[0].Kind)
	assert.Equal(t, Differential, rows[1].Kind)
	// World axes now: the J blocks of a and b hold them (up to the factors).
	wa := mgl64.Vec3{rows[0].J[0][3], rows[0].J[0][4], rows[0].J[0][5]}
	wb := mgl64.Vec3{rows[0].J[1][3], rows[0].J[1][4], rows[0].J[1][5]}.Mul(-1 / 2.5)
	wc := mgl64.Vec3{rows[1].J[0][3], rows[1].J[0][4], rows[1].J[0][5]}
	for _, w := range []mgl64.Vec3{wa, wb, wc} {
		assert.InDelta(t, 1, w.Len(), 1e-14)
	}
	oh := bs[3].AngVel
	wantG := bs[0].AngVel.Sub(oh).Dot(wa) - 2.5*bs[1].AngVel.Sub(oh).Dot(wb)
	assert.InDelta(t, wantG, rows[0].Velocity(bs), 1e-13)
	wantD := bs[2].AngVel.Sub(oh).Dot(wc) - 0.5*(bs[0].AngVel.Sub(oh).Dot(wa)+bs[1].AngVel.Sub(oh).Dot(wb))
	assert.InDelta(t, wantD, rows[1].Velocity(bs), 1e-13)
	// Rows hold no linear terms.
	for i := range rows {
		for k := 0; k < rows[i].N; k++ {
			assert.Equal(t, [3]float64{}, [3]float64(rows[i].J[k][:3]))
		}
	}

	// A concrete case: ω_a = 2, ω_b = 1 about z, ratio 2, housing at rest: J v = 2 − 2·1 = 0;
	// housing spinning at 1: (2 − 1) − 2(1 − 1) = 1.
	z := mgl64.Vec3{0, 0, 1}
	cs := []*body.Body{mustBody(t, "a", mgl64.Vec3{}), mustBody(t, "b", mgl64.Vec3{1, 0, 0}), mustBody(t, "h", mgl64.Vec3{})}
	g2, err := NewGear(cs, 0, 1, z, z, 2, 2)
	require.NoError(t, err)
	cs[0].AngVel, cs[1].AngVel = mgl64.Vec3{0, 0, 2}, mgl64.Vec3{0, 0, 1}
	row := make([]Row, 1)
	require.NoError(t, g2.Fill(row, &Context{Bodies: cs, H: 0.01}))
	assert.InDelta(t, 0, row[0].Velocity(cs), 1e-15)
	cs[2].AngVel = z
	assert.InDelta(t, 1, row[0].Velocity(cs), 1e-15)
	g3, err := NewGear(cs, 0, 1, z, z, 2, World)
	require.NoError(t, err)
	require.NoError(t, g3.Fill(row, &Context{Bodies: cs, H: 0.01}))
	assert.Equal(t, 2, row[0].N)
}

func mustBody(t testing.TB, name string, pos mgl64.Vec3) *body.Body {
	b, err := body.New(body.Params{Name: name, Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: pos, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	return b
}

func TestBadInput(t *testing.T) {
	bs := []*body.Body{mustBody(t, "a", mgl64.Vec3{}), mustBody(t, "b", mgl64.Vec3{1, 0, 0}), nil}
	nan := math.NaN()
	z := mgl64.Vec3{0, 0, 1}
	badBody := &body.Body{Name: "bad", Mass: -1, Inertia: mgl64.Ident3(), Rot: mgl64.QuatIdent()}
	withBad := []*body.Body{bs[0], badBody}
	tests := []struct {
		name   string
		err    func() error
		substr string
	}{
		{"missing body", func() error { _, err := NewBall(bs, 0, 5, mgl64.Vec3{}); return err }, "body B: body index 5 out of range [0, 3)"},
		{"negative index", func() error { _, err := NewHinge(bs, -2, 0, mgl64.Vec3{}, z); return err }, "body index -2 out of range"},
		{"nil body", func() error { _, err := NewFixed(bs, 2, 0, mgl64.Vec3{}); return err }, "body 2 is nil"},
		{"invalid body", func() error { _, err := NewBall(withBad, 0, 1, mgl64.Vec3{}); return err }, `body "bad": Mass`},
		{"same body", func() error { _, err := NewHinge(bs, 1, 1, mgl64.Vec3{}, z); return err }, "both sides are body 1"},
		{"both world", func() error { _, err := NewBall(bs, World, World, mgl64.Vec3{}); return err }, "both sides are the world"},
		{"zero axis", func() error { _, err := NewHinge(bs, 0, 1, mgl64.Vec3{}, mgl64.Vec3{}); return err }, "axis: must have non-zero length"},
		{"NaN axis", func() error { _, err := NewPrismatic(bs, 0, 1, mgl64.Vec3{}, mgl64.Vec3{nan, 0, 1}); return err }, "axis: must be finite"},
		{"NaN pivot", func() error { _, err := NewBall(bs, 0, 1, mgl64.Vec3{0, nan, 0}); return err }, "pivot: must be finite"},
		{"zero length", func() error { _, err := NewDistance(bs, 0, 1, mgl64.Vec3{}, z, 0); return err }, "length: must be finite and > 0"},
		{"NaN length", func() error { _, err := NewDistance(bs, 0, 1, mgl64.Vec3{}, z, nan); return err }, "length"},
		{"limits lo > hi", func() error { h, _ := NewHinge(bs, 0, 1, mgl64.Vec3{}, z); return h.SetLimits(0.5, 0.1) }, "lower ≤ upper"},
		{"limits NaN", func() error { h, _ := NewHinge(bs, 0, 1, mgl64.Vec3{}, z); return h.SetLimits(nan, 0.1) }, "NaN"},
		{"limits beyond π", func() error { h, _ := NewHinge(bs, 0, 1, mgl64.Vec3{}, z); return h.SetLimits(-4, 0) }, "must lie in"},
		{"negative motor torque", func() error { h, _ := NewHinge(bs, 0, 1, mgl64.Vec3{}, z); return h.SetMotor(1, -2) }, "motor max torque (N·m): must be ≥ 0, got -2"},
		{"NaN motor speed", func() error { h, _ := NewHinge(bs, 0, 1, mgl64.Vec3{}, z); return h.SetMotor(nan, 2) }, "motor speed"},
		{"negative friction", func() error { p, _ := NewPrismatic(bs, 0, 1, mgl64.Vec3{}, z); return p.SetFriction(-1) }, "friction force (N): must be ≥ 0"},
		{"negative stiffness", func() error { h, _ := NewBall(bs, 0, 1, mgl64.Vec3{}); return h.SetSoft(-1, 0) }, "stiffness"},
		{"NaN damping", func() error { h, _ := NewBall(bs, 0, 1, mgl64.Vec3{}); return h.SetSoft(1, nan) }, "damping"},
		{"gear ratio 0", func() error { _, err := NewGear(bs, 0, 1, z, z, 0, World); return err }, "ratio"},
		{"gear same body", func() error { _, err := NewGear(bs, 0, 1, z, z, 1, 1); return err }, "body B and housing are both body 1"},
		{"gear zero axis", func() error { _, err := NewGear(bs, 0, 1, mgl64.Vec3{}, z, 1, World); return err }, "axis A: must have non-zero length"},
		{"differential world carrier", func() error {
			_, err := NewDifferential(bs, World, 0, 1, z, z, z, World)
			return err
		}, "carrier: must be a body"},
		{"differential missing", func() error {
			_, err := NewDifferential(bs, 0, 1, 7, z, z, z, World)
			return err
		}, "body B: body index 7 out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.substr)
		})
	}

	// Fill errors: short rows, bad h, a body gone from the context.
	b, err := NewBall(bs, 0, 1, mgl64.Vec3{})
	require.NoError(t, err)
	rows := make([]Row, 3)
	assert.ErrorContains(t, b.Fill(rows[:2], &Context{Bodies: bs, H: 0.01}), "need 3 rows, got 2")
	assert.ErrorContains(t, b.Fill(rows, &Context{Bodies: bs, H: 0}), "Context.H")
	assert.ErrorContains(t, b.Fill(rows, &Context{Bodies: bs[:1], H: 0.01}), "body 1 missing")
	assert.ErrorContains(t, b.Fill(rows, nil), "nil context")
	assert.ErrorContains(t, b.Violation(&Context{Bodies: bs}, make([]float64, 2)), "need 3")
}

// AngleRate and SlideRate are the time derivatives of Angle and Slide:
// at random poses and velocities, for two bodies and for each side being
// the world, they match the central difference of the coordinate as the
// bodies move along their velocities (x ± ε v, q ← exp(±ε ω/2) q).
func TestJointCoordinateRates(t *testing.T) {
	const eps, tol = 1e-6, 1e-6
	r := rand.New(rand.NewPCG(27, 1))
	for trial := 0; trial < 20; trial++ {
		bs := randWorld(t, r, 2)
		pivot, axis := randVec(r, 1), randVec(r, 1)
		for _, ab := range [][2]int{{0, 1}, {0, World}, {World, 1}} {
			h, err := NewHinge(bs, ab[0], ab[1], pivot, axis)
			require.NoError(t, err)
			p, err := NewPrismatic(bs, ab[0], ab[1], pivot, axis)
			require.NoError(t, err)
			// Move away from the creation pose (θ = s = 0) first.
			for _, b := range bs {
				b.Pos = b.Pos.Add(randVec(r, 0.2))
				b.Rot = body.QuatExp(randVec(r, 0.3)).Mul(b.Rot)
			}
			ctx := &Context{Bodies: bs, H: 0.01}
			coord := func(dt float64) (th, s float64) {
				saved := make([]body.Body, len(bs))
				for i, b := range bs {
					saved[i] = *b
					b.Pos = b.Pos.Add(b.Vel.Mul(dt))
					b.Rot = body.QuatExp(b.AngVel.Mul(dt)).Mul(b.Rot)
				}
				th, err := h.Angle(ctx)
				require.NoError(t, err)
				s, err = p.Slide(ctx)
				require.NoError(t, err)
				for i, b := range bs {
					*b = saved[i]
				}
				return th, s
			}
			th1, s1 := coord(eps)
			th0, s0 := coord(-eps)
			dth, err := h.AngleRate(ctx)
			require.NoError(t, err)
			ds, err := p.SlideRate(ctx)
			require.NoError(t, err)
			assert.InDelta(t, (th1-th0)/(2*eps), dth, tol, "hinge %v trial %d", ab, trial)
			assert.InDelta(t, (s1-s0)/(2*eps), ds, tol, "prismatic %v trial %d", ab, trial)
		}
	}
	_, err := (&Hinge{pair: pair{ids: [2]int{0, World}}}).AngleRate(&Context{})
	assert.ErrorContains(t, err, "missing from the context")
}
