package constraint

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Viscous form of Compliance is ERPCFM's row: with s = h k + c_d the
// row J v⁺ + c x + pf φ = 0 gives λ = x/h = −k (φ + h J v⁺) − c_d J v⁺; k = 0
// is a pure damper λ = −c_d J v⁺, and it stays bounded (c > 0) as h → 0.
func TestComplianceViscous(t *testing.T) {
	const h = 0.004
	for _, tc := range []struct{ k, cd, phi, jv float64 }{{0, 2, 0.1, 0.5}, {300, 7, -0.02, 1.5}, {1e6, 1e-3, 0.3, -2}} {
		r := Row{Stiffness: tc.k, Viscous: tc.cd}
		c, pf, jf := r.Compliance(h)
		assert.Equal(t, 0.0, jf)
		x := -(tc.jv + pf*tc.phi) / c
		want := -tc.k*(tc.phi+h*tc.jv) - tc.cd*tc.jv
		assert.InDelta(t, want, x/h, 1e-12*math.Max(1, math.Abs(want)))
		erp, cfm := ERPCFM(h, tc.k, tc.cd)
		assert.InDelta(t, cfm/h, c, 1e-12*c)
		assert.InDelta(t, erp/h, pf, 1e-12*math.Max(1, pf))
	}
	r := Row{N: 1, Kind: Spring, Lo: math.Inf(-1), Hi: math.Inf(1), Viscous: 1, Damping: 0.1}
	assert.ErrorContains(t, r.Validate(1), "Viscous")
	r.Damping, r.Viscous = 0, math.NaN()
	assert.ErrorContains(t, r.Validate(1), "Viscous")
	assert.Equal(t, "Spring", Spring.String())
	assert.False(t, Spring.Positional(), "a spring's deflection is not an error to project")
}

// A hinge with a spring-damper, armature and servo has 7 rows: the Spring
// rows follow the 5 and carry φ = θ − rest (wrapped to (−π, π]) and
// θ − target, the damper c + a/h, the armature's target speed
// a θ̇/(h s), and the servo's impulse bounds ±F h.
func TestHingeSpringRows(t *testing.T) {
	bs := []*body.Body{mustBody(t, "arm", mgl64.Vec3{1, 0, 0})}
	j, err := NewHinge(bs, 0, World, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, err)
	const k, c, rest, a, h = 20.0, 0.5, 3.0, 0.25, 0.01
	require.NoError(t, j.SetSpringDamper(k, c, rest))
	require.NoError(t, j.SetArmature(a))
	require.NoError(t, j.SetServo(-0.2, 40, 2, 5))
	assert.Equal(t, 7, j.Dim())
	q := mgl64.QuatRotate(-3, mgl64.Vec3{0, 0, 1}) // θ = −3: θ − rest = −6 wraps to 2π − 6
	bs[0].Rot, bs[0].Pos = q, q.Rotate(mgl64.Vec3{1, 0, 0})
	bs[0].AngVel = mgl64.Vec3{0, 0, 1.5}
	ctx := &Context{Bodies: bs, H: h}
	rows := make([]Row, 7, 8)
	require.NoError(t, j.Fill(rows, ctx))
	sp, sv := rows[5], rows[6]
	assert.Equal(t, Spring, sp.Kind)
	assert.InDelta(t, 2*math.Pi-6, sp.Phi, 1e-12)
	assert.Equal(t, k, sp.Stiffness)
	assert.InDelta(t, c+a/h, sp.Viscous, 1e-12)
	assert.InDelta(t, a*1.5/(h*(h*k+c+a/h)), sp.Speed, 1e-12)
	assert.Equal(t, math.Inf(1), sp.Hi)
	require.NoError(t, sp.Validate(1))
	assert.InDelta(t, -3+0.2, sv.Phi, 1e-12)
	assert.Equal(t, [2]float64{-5 * h, 5 * h}, [2]float64{sv.Lo, sv.Hi})
	assert.Equal(t, [4]float64{40, 2, 0, 0}, [4]float64{sv.Stiffness, sv.Viscous, sv.Speed, sv.Damping})
	require.NoError(t, j.SetServoTarget(0.1))
	require.NoError(t, j.Fill(rows, ctx))
	assert.InDelta(t, -3.1, rows[6].Phi, 1e-12)
	require.NoError(t, j.SetEffort(-2))
	require.Equal(t, 8, j.Dim())
	rows = rows[:8]
	require.NoError(t, j.Fill(rows, ctx))
	assert.Equal(t, Motor, rows[7].Kind)
	assert.Equal(t, [2]float64{-2 * h, -2 * h}, [2]float64{rows[7].Lo, rows[7].Hi}, "impulse fixed at f h")
	assert.Error(t, j.SetEffort(math.Inf(1)))
	j.ClearEffort()
	j.ClearServo()
	assert.Error(t, j.SetServoTarget(0))
	require.NoError(t, j.SetSpringDamper(0, 0, 0))
	require.NoError(t, j.SetArmature(0))
	assert.Equal(t, 5, j.Dim())
}

// AxisWrench is Jᵀ f of the coordinate row: on a slider between two
// bodies the forces are equal and opposite and the torques about the
// origin cancel (no net wrench), and f·(J v) is the power of the wrenches.
func TestAxisWrenchBalance(t *testing.T) {
	bs := []*body.Body{mustBody(t, "a", mgl64.Vec3{1, 0.5, 0}), mustBody(t, "b", mgl64.Vec3{-1, 0, 0.3})}
	bs[0].Vel, bs[0].AngVel = mgl64.Vec3{0.3, -0.1, 0.2}, mgl64.Vec3{0.5, 0.1, -0.4}
	bs[1].Vel, bs[1].AngVel = mgl64.Vec3{-0.2, 0.4, 0}, mgl64.Vec3{0, 0.7, 0.2}
	p, err := NewPrismatic(bs, 0, 1, mgl64.Vec3{0.2, 0.1, 0}, mgl64.Vec3{1, 1, 0})
	require.NoError(t, err)
	hg, err := NewHinge(bs, 0, 1, mgl64.Vec3{0.2, 0.1, 0}, mgl64.Vec3{0, 1, 1})
	require.NoError(t, err)
	ctx := &Context{Bodies: bs, H: 1}
	for _, jt := range []Axial{p, hg} {
		const f = 3.0
		wr, err := jt.AxisWrench(ctx, f)
		require.NoError(t, err)
		assert.InDelta(t, 0, wr[0].Force.Add(wr[1].Force).Len(), 1e-14)
		m := wr[0].Torque.Add(bs[0].Pos.Cross(wr[0].Force)).Add(wr[1].Torque).Add(bs[1].Pos.Cross(wr[1].Force))
		assert.InDelta(t, 0, m.Len(), 1e-14, "no net moment")
		power := 0.0
		for i, w := range wr {
			power += w.Force.Dot(bs[i].Vel) + w.Torque.Dot(bs[i].AngVel)
		}
		var rate float64
		switch jj := jt.(type) {
		case *Prismatic:
			rate, err = jj.SlideRate(ctx)
		case *Hinge:
			rate, err = jj.AngleRate(ctx)
		}
		require.NoError(t, err)
		assert.InDelta(t, f*rate, power, 1e-14)
	}
}
