package constraint_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shaft returns a free body at x with inertia j (kg·m²) about every axis,
// spinning at w (rad/s, world).
func shaft(t *testing.T, x mgl64.Vec3, j float64, w mgl64.Vec3) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3().Mul(j), Pos: x, Rot: mgl64.QuatIdent(), AngVel: w})
	require.NoError(t, err)
	return b
}

// The row: J = [0, n_a], [0, −n_b], [0, n_b − n_a] on the housing, φ = 0,
// no bounds, and the compliance 1/(K h) of the viscous law.
func TestConverterRow(t *testing.T) {
	bs := []*body.Body{
		shaft(t, mgl64.Vec3{}, 1, mgl64.Vec3{}),
		shaft(t, mgl64.Vec3{1, 0, 0}, 1, mgl64.Vec3{}),
		shaft(t, mgl64.Vec3{0, 1, 0}, 1, mgl64.Vec3{}),
	}
	c, err := constraint.NewConverter(bs, 0, 1, mgl64.Vec3{2, 0, 0}, mgl64.Vec3{0, 0, 1}, 3, 2)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, c.Bodies())
	rows := make([]constraint.Row, 1)
	h := 0.01
	require.NoError(t, c.Fill(rows, &constraint.Context{Bodies: bs, H: h}))
	r := rows[0]
	assert.Equal(t, constraint.Friction, r.Kind)
	assert.Equal(t, 3, r.N)
	assert.Equal(t, [6]float64{0, 0, 0, 1, 0, 0}, r.J[0])
	assert.Equal(t, [6]float64{0, 0, 0, 0, 0, -1}, r.J[1])
	assert.Equal(t, [6]float64{0, 0, 0, -1, 0, 1}, r.J[2])
	assert.Equal(t, 0.0, r.Phi)
	assert.True(t, math.IsInf(r.Lo, -1) && math.IsInf(r.Hi, 1))
	cc, pf, jf := r.Compliance(h)
	assert.InDelta(t, 1/(3*h), cc, 1e-9, "c = 1/(K h)")
	assert.Equal(t, 0.0, pf*r.Phi, "no position term")
	assert.Equal(t, 0.0, jf)
	require.NoError(t, r.Validate(len(bs)))

	bs[0].AngVel = mgl64.Vec3{5, 0, 0}
	bs[1].AngVel = mgl64.Vec3{0, 0, 2}
	bs[2].AngVel = mgl64.Vec3{1, 0, 1}
	s, err := c.Slip(&constraint.Context{Bodies: bs, H: h})
	require.NoError(t, err)
	assert.InDelta(t, (5-1)-(2-1), s, 1e-12, "slip relative to the housing")
}

// Two shafts coupled through K: the slip decays as implicit Euler of
// ṡ = −K (1/J_a + 1/J_b) s, s_{n+1} = s_n / (1 + h K (1/J_a + 1/J_b)), and
// the total angular momentum stays.
func TestConverterViscousDecay(t *testing.T) {
	const (
		ja, jb, k, h = 0.5, 0.2, 2.0, 1.0 / 60
		s0           = 10.0
	)
	w, err := stepper.New(stepper.Settings{H: h})
	require.NoError(t, err)
	a, err := w.AddBody(shaft(t, mgl64.Vec3{}, ja, mgl64.Vec3{s0, 0, 0}))
	require.NoError(t, err)
	b, err := w.AddBody(shaft(t, mgl64.Vec3{1, 0, 0}, jb, mgl64.Vec3{}))
	require.NoError(t, err)
	c, err := constraint.NewConverter(w.Bodies, a, b, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 0, 0}, k, constraint.World)
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(c))
	want := s0
	for n := 0; n < 120; n++ {
		_, err := w.Step()
		require.NoError(t, err)
		want /= 1 + h*k*(1/ja+1/jb)
		s, err := c.Slip(&constraint.Context{Bodies: w.Bodies, H: h})
		require.NoError(t, err)
		// 1e-9 relative: one exact 1-row solve per step, rounding only.
		require.InDelta(t, want, s, 1e-9*s0, "step %d", n+1)
	}
	l := ja*w.Bodies[a].AngVel[0] + jb*w.Bodies[b].AngVel[0]
	assert.InDelta(t, ja*s0, l, 1e-9, "angular momentum J_a ω_a + J_b ω_b")
}

// With a constant torque T on A and B held by the world, the steady slip
// is T/K (the coupling passes τ = K s).
func TestConverterSteadyTorque(t *testing.T) {
	const (
		ja, k, tq, h = 0.5, 4.0, 10.0, 1.0 / 60
	)
	w, err := stepper.New(stepper.Settings{H: h})
	require.NoError(t, err)
	a, err := w.AddBody(shaft(t, mgl64.Vec3{}, ja, mgl64.Vec3{}))
	require.NoError(t, err)
	w.Bodies[a].Torque = mgl64.Vec3{0, tq, 0}
	c, err := constraint.NewConverter(w.Bodies, a, constraint.World, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{0, 1, 0}, k, constraint.World)
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(c))
	for n := 0; n < 600; n++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	// Time constant J/K = 0.125 s; after 10 s the transient is e^-80.
	assert.InDelta(t, tq/k, w.Bodies[a].AngVel[1], 1e-9)
}

func TestConverterErrors(t *testing.T) {
	bs := []*body.Body{shaft(t, mgl64.Vec3{}, 1, mgl64.Vec3{}), shaft(t, mgl64.Vec3{1, 0, 0}, 1, mgl64.Vec3{})}
	x := mgl64.Vec3{1, 0, 0}
	for _, c := range []struct {
		name    string
		a, b, h int
		axis    mgl64.Vec3
		k       float64
		want    string
	}{
		{"both world", constraint.World, constraint.World, constraint.World, x, 1, "both sides are the world"},
		{"same body", 0, 0, constraint.World, x, 1, "both body 0"},
		{"housing is a side", 0, 1, 1, x, 1, "both body 1"},
		{"out of range", 0, 5, constraint.World, x, 1, "out of range"},
		{"zero K", 0, 1, constraint.World, x, 0, "coefficient K"},
		{"negative K", 0, 1, constraint.World, x, -1, "coefficient K"},
		{"infinite K", 0, 1, constraint.World, x, math.Inf(1), "coefficient K"},
		{"NaN K", 0, 1, constraint.World, x, math.NaN(), "coefficient K"},
		{"zero axis", 0, 1, constraint.World, mgl64.Vec3{}, 1, "axis A"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := constraint.NewConverter(bs, c.a, c.b, c.axis, x, c.k, c.h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
