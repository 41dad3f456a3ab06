package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// World's fields are exported, and removing a body means editing them
// (TestNewUserRemoveBody): an edit that leaves a nil body, joint or
// controller, or a
// geom naming a body that is gone, is an error from Step naming the field
// and the value, not a panic, and the world steps again once it is put
// right.
func TestNewUserBadEditsAreErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(w *stepper.World)
		want string
	}{
		{"geom of a removed body", func(w *stepper.World) { w.Bodies = w.Bodies[:1] }, "geom 2: Body: names body 1, the world has 1 bodies"},
		{"nil body", func(w *stepper.World) { w.Bodies[1] = nil }, "body 1: is nil"},
		{"nil joint", func(w *stepper.World) { w.Joints = append(w.Joints, nil) }, "constraint 0: is nil"},
		{"nil controller", func(w *stepper.World) { w.Controllers = append(w.Controllers, nil) }, "controller 0: is nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := nuWorld(t, 0)
			bs := nuStack(t, w, 2)
			_, _ = nuStep(t, w, 2)
			bodies, joints, ctls := append([]*body.Body(nil), w.Bodies...), w.Joints, w.Controllers
			c.edit(w)
			var err error
			require.NotPanics(t, func() { _, err = w.Step() })
			require.Error(t, err)
			t.Logf("%s: %v", c.name, err)
			assert.Contains(t, err.Error(), c.want)
			w.Bodies, w.Joints, w.Controllers = bodies, joints, ctls
			_, _ = nuStep(t, w, 60)
			assert.InDelta(t, 0.3, bs[1].Pos[2], 1e-3, "steps again once put right")
		})
	}
}
