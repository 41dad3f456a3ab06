package stepper_test

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/stepper"
)

// AddBody finds a body already in the world by its index of the bodies it
// added (constant time per add) and stays exact when Bodies was edited by
// hand since: after body 0 is taken out (every index shifts down by one),
// adding the body now at index 1 is refused naming index 1, the body
// taken out is accepted again at the end, and a world of 3 balls steps
// as free fall.
func TestAddBodyAfterBodiesEdited(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	a, b, c := fzBall(t, "a", mgl64.Vec3{0, 0, 1}), fzBall(t, "b", mgl64.Vec3{1, 0, 1}), fzBall(t, "c", mgl64.Vec3{2, 0, 1})
	_, err = w.AddBody(a)
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	_, err = w.AddBody(c)
	require.NoError(t, err)
	w.Bodies = w.Bodies[1:] // a taken out by hand: b is body 0, c body 1
	_, err = w.AddBody(c)
	assertDuplicate(t, err, 2, 1, "c")
	i, err := w.AddBody(a)
	require.NoError(t, err)
	require.Equal(t, 2, i)
	_, err = w.AddBody(b)
	assertDuplicate(t, err, 3, 0, "b")
	h := w.Settings.H
	for range 10 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	for _, bd := range w.Bodies {
		require.InDelta(t, fzFreeFallZ(1, h, 10), bd.Pos[2], 1e-12, bd.Name)
	}
}
