package bpmd_test

import (
	"testing"

	"github.com/gorigid/gorigid/bpmd"
	"github.com/gorigid/gorigid/scenes"
	"github.com/stretchr/testify/require"
)

// A world with a kinematic body cannot be recorded (the layout has no
// kinematic bodies): the step fails with one line naming the body.
func TestRecorderRefusesKinematic(t *testing.T) {
	w, err := scenes.Push(scenes.DefaultPushParams())
	require.NoError(t, err)
	bpmd.NewRecorder(w)
	_, err = w.Step()
	require.ErrorContains(t, err, `bpmd: body 1 ("pusher") is kinematic`)
}
