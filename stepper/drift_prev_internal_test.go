package stepper

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
)

// failOnce is an lcp.Solver that fails its call number at, with no
// answer, and otherwise solves with block pivoting.
type failOnce struct {
	bpp   lcp.BPP
	calls int
	at    int
}

func (f *failOnce) Name() string { return "fail-once" }

func (f *failOnce) Solve(dst *lcp.Result, p *lcp.Problem, s lcp.Settings) error {
	f.calls++
	if f.calls == f.at {
		dst.X, dst.W = dst.X[:0], dst.W[:0] // no answer
		return errors.New("failOnce: the solver breaks down")
	}
	return f.bpp.Solve(dst, p, s)
}

// driftChain returns a world under JointProjection with a two-link chain
// of 0.4 m rods on ball joints, hung from (0, 0, 2) and swinging in 3-D
// (both links turning about tilted axes, so that ω̂'s direction turns
// from step to step and extrapolate's turnOn acts), solved by solver.
func driftChain(t *testing.T, solver lcp.Solver) *World {
	t.Helper()
	s := DefaultSettings()
	s.JointCorrection = JointProjection
	s.Sleep.On = false
	s.Solver = solver
	w, err := New(s)
	require.NoError(t, err)
	for k := range 2 {
		z := 2 - 0.2 - 0.4*float64(k)
		b, err := body.New(body.Params{Name: "link", Mass: 1, Inertia: body.BoxInertia(1, 0.05, 0.05, 0.4),
			Pos: mgl64.Vec3{0, 0, z}, Rot: mgl64.QuatIdent(), AngVel: mgl64.Vec3{2, 1 + float64(k), 0.5}})
		require.NoError(t, err)
		_, err = w.AddBody(b)
		require.NoError(t, err)
		a := constraint.World
		if k > 0 {
			a = k - 1
		}
		j, err := constraint.NewBall(w.Bodies, a, k, mgl64.Vec3{0, 0, 2 - 0.4*float64(k)})
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
	}
	return w
}

// driftState is every body's pose and velocities.
func driftState(w *World) [][4]any {
	var out [][4]any
	for _, b := range w.Bodies {
		out = append(out, [4]any{b.Pos, b.Rot, b.Vel, b.AngVel})
	}
	return out
}

// extrapolate's memory of the last step (ws.drift.prev) was written
// whenever the prediction ran and read whenever the body count matched:
// a step that failed after the prediction (in the solver) overwrote it
// with the ω̂ of a step that never happened, a body replaced by another
// at the same index got the turn of the one before, and an ω set by the
// user between steps was turned on by the angle between the old and the
// new ω as if the motion had turned so, and a step without the prediction
// (Post, or no awake joint) left the memory of an older step in place.
// The memory is now kept by steps that count and ran the prediction, per
// body, and used only for the same body with the ω that step left. Each
// case below failed before.
func TestDriftPrevStale(t *testing.T) {
	// A failed step leaves no trace: the chain stepped 30 times with a
	// solver failure at step 10 (the world stays at that step's start) has
	// the bits of the chain stepped 30 times without one.
	a := driftChain(t, &failOnce{})
	b := driftChain(t, &failOnce{at: 10})
	for range 30 {
		_, err := a.Step()
		require.NoError(t, err)
	}
	failed := 0
	for b.Steps() < 30 {
		n := b.Steps()
		if _, err := b.Step(); err != nil {
			failed++
			require.ErrorContains(t, err, "failOnce")
			require.Equal(t, n, b.Steps(), "the failed step did not count")
		}
	}
	require.Equal(t, 1, failed)
	assert.Equal(t, driftState(a), driftState(b), "a failed step changed the next steps")

	// The turn is in use on a plain step: ext's ω is not ω̂.
	ws := &a.ws.drift
	start := a.Bodies[1].AngVel
	_, err := a.Step()
	require.NoError(t, err)
	require.NotEqual(t, start, ws.ext[1][1], "no turn extrapolated: the cases below test nothing")

	// An ω set between steps is not turned on.
	a.Bodies[1].AngVel = mgl64.Vec3{0, 0, 3}
	_, err = a.Step()
	require.NoError(t, err)
	assert.Equal(t, mgl64.Vec3{0, 0, 3}, ws.ext[1][1], "edited ω")
	assert.NotEqual(t, a.Bodies[0].AngVel, ws.ext[0][1], "the other link keeps its turn")

	// A body replaced by another at the same index is not turned on by
	// the turn of the one before; one moved to another index neither.
	_, err = a.Step()
	require.NoError(t, err)
	nb := *a.Bodies[1]
	a.Bodies[1] = &nb
	w0 := nb.AngVel
	_, err = a.Step()
	require.NoError(t, err)
	assert.Equal(t, w0, ws.ext[1][1], "replaced body")
	_, err = a.Step()
	require.NoError(t, err)
	a.Bodies[0], a.Bodies[1] = a.Bodies[1], a.Bodies[0]
	w0, w1 := a.Bodies[0].AngVel, a.Bodies[1].AngVel
	a.Joints = nil // the joints name indices; the bodies fall free
	b2, err := constraint.NewBall(a.Bodies, constraint.World, 0, a.Bodies[0].Pos)
	require.NoError(t, err)
	require.NoError(t, a.AddConstraint(b2))
	_, err = a.Step()
	require.NoError(t, err)
	assert.Equal(t, [2]mgl64.Vec3{w0, w1}, [2]mgl64.Vec3{ws.ext[0][1], ws.ext[1][1]}, "swapped bodies")

	// After a step without the prediction (Post stabilization, which
	// leaves the rows first-order), none is used.
	_, err = a.Step()
	require.NoError(t, err)
	a.Settings.Stabilization = Post
	_, err = a.Step()
	require.NoError(t, err)
	a.Settings.Stabilization = Regularized
	w0 = a.Bodies[0].AngVel
	_, err = a.Step()
	require.NoError(t, err)
	assert.Equal(t, w0, ws.ext[0][1], "after a step without the prediction")
}
