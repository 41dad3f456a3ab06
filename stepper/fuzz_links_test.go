package stepper_test

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/stepper"
)

// fzBall returns a 1 kg ball body named name at pos (no geom).
func fzBall(t *testing.T, name string, pos mgl64.Vec3) *body.Body {
	t.Helper()
	b, err := body.New(body.Params{Name: name, Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: pos, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	return b
}

// fzFreeFallZ is the height after n semi-implicit Euler steps of h from
// rest at z0 under g = 9.81 m/s²: v_k = −g h k, z_n = z0 − g h² n(n+1)/2.
func fzFreeFallZ(z0, h float64, n int) float64 {
	return z0 - 9.81*h*h*float64(n*(n+1))/2
}

// assertDuplicate checks err is the duplicate-body error for body i, the
// same pointer as body j named name.
func assertDuplicate(t *testing.T, err error, i, j int, name string) {
	t.Helper()
	require.Error(t, err)
	var fe *num.FieldError
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "Bodies", fe.Field)
	assert.Equal(t, j, fe.Value)
	assert.Equal(t, name, fe.Name)
	assert.Contains(t, err.Error(), `body `+string(rune('0'+i))+` "`+name+`": Bodies: is body `+string(rune('0'+j))+` already`)
}

// The same *body.Body added twice (w.AddBody(b); w.AddBody(b)): both
// entries of Bodies were integrated, and the ball fell at twice the speed
// of free fall (z = 1 − 2·0.5 g h² n(n+1)/2 after n steps). AddBody now
// refuses the second add naming both indices, the body's name and the
// field, and the ball falls as the semi-implicit Euler step says to
// 1e-12 m (the sum's rounding); the same pointer appended to Bodies by
// hand, alone or under a joint, is refused by Step before anything
// moves.
func TestFuzzWorldBodyAddedTwice(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	b := fzBall(t, "ball", mgl64.Vec3{0, 0, 1})
	i, err := w.AddBody(b)
	require.NoError(t, err)
	require.Equal(t, 0, i)
	_, err = w.AddBody(b)
	assertDuplicate(t, err, 1, 0, "ball")
	require.Len(t, w.Bodies, 1)
	h := w.Settings.H
	for range 30 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.InDelta(t, fzFreeFallZ(1, h, 30), b.Pos[2], 1e-12)
	assert.InDelta(t, -9.81*h*30, b.Vel[2], 1e-12)

	w.Bodies = append(w.Bodies, fzBall(t, "other", mgl64.Vec3{1, 0, 1}), b)
	pos := b.Pos
	_, err = w.Step()
	assertDuplicate(t, err, 2, 0, "ball")
	assert.Equal(t, 30, w.Steps(), "nothing moved")
	assert.Equal(t, pos, b.Pos, "nothing moved")

	// A joint whose two sides are one index is refused where it is built;
	// the alias under a joint, a hinge between body 1 and body 2, which is
	// body 0's pointer, is refused at the step by the duplicate check.
	_, err = constraint.NewHinge(w.Bodies, 0, 0, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 1, 0})
	require.ErrorContains(t, err, "both sides are body 0; a joint needs two different bodies")
	w.Bodies = w.Bodies[:2]
	w.Bodies = append(w.Bodies, b)
	j, err := constraint.NewHinge(w.Bodies, 1, 2, mgl64.Vec3{0.5, 0, 1}, mgl64.Vec3{0, 1, 0})
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(j))
	_, err = w.Step()
	assertDuplicate(t, err, 2, 0, "ball")
	assert.Equal(t, pos, b.Pos, "nothing moved")
}

// A body taken out of Bodies and added again, to the same world or to
// another (the caller edits Bodies, World has no Remove): AddBody accepts
// it, and it falls on from where it was, as if never moved: after 20
// steps in world A, out and back in, 20 more in A, then out of A and
// 20 more in world B (same h), its height is free fall's after 60 steps
// to 1e-12 m; world A, left with its other ball, steps on.
func TestFuzzWorldBodyRemovedAndAddedAgain(t *testing.T) {
	newWorld := func() *stepper.World {
		w, err := stepper.New(stepper.DefaultSettings())
		require.NoError(t, err)
		return w
	}
	steps := func(w *stepper.World, n int) {
		for range n {
			_, err := w.Step()
			require.NoError(t, err)
		}
	}
	a := newWorld()
	other := fzBall(t, "other", mgl64.Vec3{1, 0, 1})
	b := fzBall(t, "ball", mgl64.Vec3{0, 0, 1})
	for _, x := range []*body.Body{other, b} {
		_, err := a.AddBody(x)
		require.NoError(t, err)
	}
	steps(a, 20)
	a.Bodies = a.Bodies[:1]
	_, err := a.AddBody(b)
	require.NoError(t, err, "removed, then added again")
	steps(a, 20)
	a.Bodies = a.Bodies[:1]
	bw := newWorld()
	_, err = bw.AddBody(b)
	require.NoError(t, err, "moved to another world")
	steps(bw, 20)
	steps(a, 5)
	h := a.Settings.H
	assert.InDelta(t, fzFreeFallZ(1, h, 60), b.Pos[2], 1e-12)
	assert.InDelta(t, fzFreeFallZ(1, h, 45), other.Pos[2], 1e-12)
}

// One shape value in many geoms: a box shape shared by two bodies' geoms
// is the usual case and must work; the same geom added twice to one body
// is legal too (a redundant compound: its contacts come twice, and the
// solver takes the duplicate rows). Both boxes, dropped from 1 mm above
// the floor, rest at their half height 0.1 m to ProjectAbove's 1 mm
// after 1 s, and the step neither fails nor adds energy beyond 1e-6 J.
func TestFuzzWorldShapeShared(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	fzStaticGround(t, w)
	sh, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	var boxes []*body.Body
	for k, x := range []float64{0, 1} {
		bx, err := body.New(body.Params{Name: "box", Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2),
			Pos: mgl64.Vec3{x, 0, 0.101}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(bx)
		require.NoError(t, err)
		g := stepper.Geom{Body: id, Shape: sh, Material: stepper.Material{Friction: 0.5}}
		for range 1 + k { // the second box's geom twice
			_, err = w.AddGeom(g)
			require.NoError(t, err)
		}
		boxes = append(boxes, bx)
	}
	maxAdded := 0.0
	for range 60 {
		st, err := w.Step()
		require.NoError(t, err)
		maxAdded = max(maxAdded, st.EnergyAdded)
	}
	for i, bx := range boxes {
		t.Logf("box %d: z %.9f, |v| %.3g", i, bx.Pos[2], bx.Vel.Len())
		assert.InDelta(t, 0.1, bx.Pos[2], 1e-3)
	}
	assert.Less(t, maxAdded, 1e-6)
}
