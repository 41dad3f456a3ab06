package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxEigen3 against the Jacobi rotations of body.PrincipalAxes on a
// symmetric matrix, and on I⁻¹K̃ of a capsule link (its eigenvalues k/I_t
// twice and 0) turned off its axes.
func TestMaxEigen3(t *testing.T) {
	a := mgl64.Mat3{4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 1}
	ev, _ := body.PrincipalAxes(a)
	want := math.Max(ev[0], math.Max(ev[1], ev[2]))
	// 1e-12: the cubic's roots lose a few digits to cancellation.
	assert.InDelta(t, want, maxEigen3(a), 1e-12*want)
	in := body.CapsuleInertia(0.05, 0.02, 0.1)
	rot := body.QuatExp(mgl64.Vec3{0.3, -0.7, 0.2}).Mat4().Mat3()
	iw := rot.Mul3(in).Mul3(rot.Transpose())
	axis := rot.Mul3x1(mgl64.Vec3{0, 0, 1})
	k := mgl64.Ident3().Sub(axis.OuterProd3(axis)).Mul(2.5e-4)
	assert.InDelta(t, 2.5e-4/in.At(0, 0), maxEigen3(iw.Inv().Mul3(k)), 1e-9)
	assert.Equal(t, 3.0, maxEigen3(mgl64.Ident3().Mul(3)), "a triple root")
}

// The anchor rows of a ball, a hinge and a fixed joint are recognized and
// their arms recovered for both bodies; orientation rows are not anchors.
func TestAnchorTriple(t *testing.T) {
	a, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3(), Pos: mgl64.Vec3{0, 0, 1}, Rot: body.QuatExp(mgl64.Vec3{0.1, 0.2, 0.3})})
	require.NoError(t, err)
	b, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3(), Pos: mgl64.Vec3{0.5, 0.2, 0.3}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	bodies := []*body.Body{a, b}
	pivot := mgl64.Vec3{0.3, -0.1, 0.6}
	ball, err := constraint.NewBall(bodies, 0, 1, pivot)
	require.NoError(t, err)
	hinge, err := constraint.NewHinge(bodies, 0, 1, pivot, mgl64.Vec3{0, 1, 0})
	require.NoError(t, err)
	fixed, err := constraint.NewFixed(bodies, 0, 1, pivot)
	require.NoError(t, err)
	ctx := constraint.Context{Bodies: bodies, H: 0.01}
	for _, c := range []constraint.Constraint{ball, hinge, fixed} {
		rows := make([]constraint.Row, c.Dim())
		require.NoError(t, c.Fill(rows, &ctx))
		require.True(t, anchorTriple(rows[:3]))
		// 1e-15 m: the arm is the row's entries, rounded once.
		assert.InDelta(t, 0, anchorArm(rows[:3], 0).Sub(pivot.Sub(a.Pos)).Len(), 1e-15)
		assert.InDelta(t, 0, anchorArm(rows[:3], 1).Sub(pivot.Sub(b.Pos)).Len(), 1e-15)
		for i := 1; i+3 <= len(rows); i++ {
			assert.False(t, anchorTriple(rows[i:i+3]), "rows %d–%d", i, i+2)
		}
		// The turns the joint leaves free: all for the ball, the axis
		// for the hinge (its projector n nᵀ), none for the fixed joint.
		p, free := lockedProjector(rows)
		switch c {
		case ball:
			assert.True(t, free)
			assert.Equal(t, mgl64.Ident3(), p)
		case hinge:
			assert.True(t, free)
			n := mgl64.Vec3{0, 1, 0}
			// 1e-12: the hinge's rows are a's turned axes, orthonormalized.
			d := p.Sub(n.OuterProd3(n))
			for _, e := range d {
				assert.InDelta(t, 0, e, 1e-12, "%v", p)
			}
		default:
			assert.False(t, free)
		}
	}
}
