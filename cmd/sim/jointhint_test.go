package main

import (
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The 10-link chain (testdata/newuser/chain10.json) at h = 1/240 s, as
// shipped (DefaultSettings, the joints' errors fed back as φ/h): a step
// added 1.27 % of the system's energy as the chain folded onto itself
// (step 465, two projections) until the speculative contacts counted each
// link's own approach; the folding links are caught now and no step adds
// 1 % (largest 0.85 %), so sim stays quiet. The note naming the setting is
// checked on jointFeedbackHint itself below.
func TestRunChain10Quiet(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "newuser", "chain10.json")
	_, stderr, code := runSim(t, "run", src, "--dt", "0.004166666666666667", "--steps", "1200", "--quiet")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning:", "no step adds 1 % of the energy")
}

// jointFeedbackHint names the setting for a world whose rigid joints get
// φ/h feedback, and nothing for one with projection, another
// stabilization or no joints.
func TestJointFeedbackHint(t *testing.T) {
	build := func(joint bool) *stepper.World {
		w, err := stepper.New(stepper.DefaultSettings())
		require.NoError(t, err)
		b, err := body.New(body.Params{Mass: 1, Inertia: mgl64.Ident3(), Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		_, err = w.AddBody(b)
		require.NoError(t, err)
		if joint {
			j, err := constraint.NewBall(w.Bodies, 0, constraint.World, mgl64.Vec3{0, 0, 1})
			require.NoError(t, err)
			require.NoError(t, w.AddConstraint(j))
		}
		return w
	}
	w := build(true)
	assert.Contains(t, jointFeedbackHint(w), `"joint_correction": "projection" leaves them to the position projection`)
	w.Settings.JointCorrection = stepper.JointProjection
	assert.Empty(t, jointFeedbackHint(w), "projection")
	w = build(true)
	w.Settings.Stabilization = stepper.Baumgarte
	assert.Empty(t, jointFeedbackHint(w), "Baumgarte")
	assert.Empty(t, jointFeedbackHint(build(false)), "no joints")
}
