package stepper_test

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sleepSteps is ⌈Sleep.Time/h⌉ at the defaults and h = 1/60 s: 0.5 s.
const sleepSteps = 30

// stepUntilAsleep steps w until body i sleeps, at most n steps, and
// returns the steps taken and the last step with body i at or above the
// default linear or angular sleep speed (0 if none).
func stepUntilAsleep(t *testing.T, w *stepper.World, i, n int) (steps, lastMoving int) {
	t.Helper()
	for s := 1; s <= n; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		b := w.Bodies[i]
		if w.Asleep(i) {
			return s, lastMoving
		}
		if b.Vel.Len() >= stepper.DefaultSleepLinearSpeed || b.AngVel.Len() >= stepper.DefaultSleepAngularSpeed {
			lastMoving = s
		}
	}
	t.Fatalf("body %d still awake after %d steps: v %v, ω %v", i, n, w.Bodies[i].Vel, w.Bodies[i].AngVel)
	return 0, 0
}

// droppedBox: under DefaultSettings (h = 1/60 s, sleeping on), a 1 kg
// 0.2 m cube dropped from 0.4 m above the floor (μ = 0.5).
func droppedBox(t *testing.T) (*stepper.World, *body.Body) {
	t.Helper()
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.5}, mgl64.QuatIdent(), 0.5)
	return w, b
}

// A dropped box lands (free fall of 0.4 m: 0.29 s, 18 steps), stops in
// the step it lands (no restitution) and falls asleep exactly
// ⌈0.5 s/h⌉ = 30 steps after its last step above the sleep speeds; from
// then on its pose stays the same bits for 10 s, its steps have no rows
// and no contacts, and Stats.Sleeping counts it.
func TestSleepDroppedBox(t *testing.T) {
	w, b := droppedBox(t)
	steps, last := stepUntilAsleep(t, w, 0, 300)
	t.Logf("asleep after step %d, last moving at step %d; z = %.6f m", steps, last, b.Pos[2])
	assert.Equal(t, sleepSteps, steps-last, "asleep ⌈Time/h⌉ steps after the last step at speed")
	assert.InDelta(t, 18, last, 2, "the fall takes √(2·0.4/g) = 0.29 s = 17.2 steps")
	assert.InDelta(t, 0.1, b.Pos[2], stepper.DefaultProjectAbove, "resting on its face, within the projection threshold")
	assert.Equal(t, mgl64.Vec3{}, b.Vel)
	assert.Equal(t, mgl64.Vec3{}, b.AngVel)
	pos, rot := b.Pos, b.Rot
	for s := 0; s < 600; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 1, st.Sleeping)
		require.Equal(t, 0, st.Rows, "no rows for a sleeping island")
		require.Equal(t, 0, st.Contacts)
		require.Equal(t, pos, b.Pos, "step %d", s)
		require.Equal(t, rot, b.Rot, "step %d", s)
		require.Equal(t, mgl64.Vec3{}, b.Vel, "gravity does not accumulate")
	}
}

// Without sleeping the same box creeps: the comparison that makes the
// bits of TestSleepDroppedBox a property of sleeping, not of the rest
// contact. It measures how far the awake box's pose moves in the same
// 10 s (reported; the contact rows hold it to rounding, not to bits).
func TestSleepOffBoxAwake(t *testing.T) {
	w, b := droppedBox(t)
	w.Settings.Sleep.On = false
	for s := 0; s < 60; s++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	pos := b.Pos
	var speed float64
	for s := 0; s < 600; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 0, st.Sleeping)
		require.Equal(t, 4, st.Contacts, "the awake box keeps its four floor contacts")
		speed = math.Max(speed, b.Vel.Len())
	}
	t.Logf("awake box: moved %.3g m in 10 s, largest speed %.3g m/s", b.Pos.Sub(pos).Len(), speed)
	assert.False(t, w.Asleep(0))
	assert.Less(t, speed, stepper.DefaultSleepLinearSpeed, "at rest by the sleep threshold: it would sleep")
}

// Until an island falls asleep the hooks change nothing: the dropped box
// with sleeping on and off has the same bits for its first 40 steps (it
// sleeps at 48), and two runs with sleeping on are bit for bit the same
// throughout.
func TestSleepBitsBeforeSleeping(t *testing.T) {
	on, bon := droppedBox(t)
	off, boff := droppedBox(t)
	off.Settings.Sleep.On = false
	again, bagain := droppedBox(t)
	for s := 0; s < 120; s++ {
		_, err := on.Step()
		require.NoError(t, err)
		_, err = again.Step()
		require.NoError(t, err)
		require.Equal(t, bon.Pos, bagain.Pos, "step %d: deterministic", s)
		require.Equal(t, bon.Rot, bagain.Rot, "step %d: deterministic", s)
		if s < 40 {
			_, err = off.Step()
			require.NoError(t, err)
			require.Equal(t, boff.Pos, bon.Pos, "step %d", s)
			require.Equal(t, boff.Vel, bon.Vel, "step %d", s)
		}
	}
}

// A second box dropped onto the sleeping one wakes it when their contact
// can close within the step (the speculative contact, before they touch):
// the woken box's floor contacts keep their warm start (not Fresh), the
// stack settles 0.2 m boxes at z = 0.1 and 0.3 m, and the two fall asleep
// together, one island.
func TestSleepWokenByFallingBox(t *testing.T) {
	w, low := droppedBox(t)
	stepUntilAsleep(t, w, 0, 300)
	top := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0.01, 0, 0.6}, mgl64.QuatIdent(), 0.5)
	lowZ := low.Pos[2]
	woke := 0
	var cs []stepper.ContactInfo
	for s := 1; s <= 60 && woke == 0; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		if !w.Asleep(0) {
			woke = s
			cs = w.Contacts(cs)
			floor, warm := 0, 0
			for _, c := range cs {
				if c.A == constraint.World && c.B == 0 || c.B == constraint.World && c.A == 0 {
					floor++
					if !c.Fresh {
						warm++
					}
				}
			}
			assert.Equal(t, 4, floor, "the woken box's floor contacts")
			assert.Equal(t, 4, warm, "kept warm starts")
			assert.Equal(t, 0, st.Sleeping)
		} else {
			require.Equal(t, lowZ, low.Pos[2], "asleep until touched")
		}
	}
	require.NotZero(t, woke, "the falling box wakes the sleeping one")
	t.Logf("woken at step %d, top at z = %.6f", woke, top.Pos[2])
	assert.InDelta(t, 0.3, top.Pos[2], stepper.DefaultProjectAbove, "woken in the step the top box lands on it")
	steps, _ := stepUntilAsleep(t, w, 1, 300)
	assert.True(t, w.Asleep(0), "one island: both sleep")
	assert.Equal(t, 2, w.Sleeping())
	t.Logf("stack asleep %d steps after waking: z = %.5f, %.5f", steps, low.Pos[2], top.Pos[2])
	assert.InDelta(t, 0.1, low.Pos[2], stepper.DefaultProjectAbove)
	assert.InDelta(t, 0.3, top.Pos[2], 2*stepper.DefaultProjectAbove, "two contacts' errors")
}

// A horizontal force of 20 N on the sleeping 1 kg box (μ = 0.5, friction
// μ m g = 4.905 N) wakes it in the step it is applied, and the step
// accelerates it by (F − μ m g)/m, and it stays awake while pushed.
func TestSleepWokenByForce(t *testing.T) {
	w, b := droppedBox(t)
	stepUntilAsleep(t, w, 0, 300)
	const f, mu, g = 20.0, 0.5, 9.81
	h := w.Settings.H
	b.ApplyForce(mgl64.Vec3{f, 0, 0})
	st, err := w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0))
	assert.Equal(t, 0, st.Sleeping)
	t.Logf("after one step: v = %v", b.Vel)
	// The kept cache entries give the friction rows their bound μ x̂ₙ,
	// x̂ₙ = m g h over the four points, in the waking step itself.
	assert.InDelta(t, (f-mu*g)*h, b.Vel[0], 1e-9, "Coulomb friction μ m g against the push")
	for s := 0; s < 120; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		require.False(t, w.Asleep(0), "under an applied load: never asleep")
	}
}

// A user's velocity on a sleeping box wakes it: thrown up at 2 m/s it
// leaves the floor, z rising by (2 − g h) h in the step, exactly as an
// awake free body's semi-implicit Euler step.
func TestSleepWokenBySettingVel(t *testing.T) {
	w, b := droppedBox(t)
	stepUntilAsleep(t, w, 0, 300)
	h := w.Settings.H
	z0 := b.Pos[2]
	b.Vel = mgl64.Vec3{0, 0, 2}
	_, err := w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0))
	assert.InDelta(t, 2-9.81*h, b.Vel[2], 1e-12)
	assert.InDelta(t, (2-9.81*h)*h, b.Pos[2]-z0, 1e-12)
}

// Moving a sleeping body's pose wakes it too (it falls from where it was
// put), World.Wake wakes it without a change (it stays at rest and falls
// asleep again after ⌈Time/h⌉ steps), and so does new gravity.
func TestSleepWokenByPoseAndWake(t *testing.T) {
	w, b := droppedBox(t)
	stepUntilAsleep(t, w, 0, 300)
	b.Pos[2] += 0.1
	_, err := w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0))
	assert.Less(t, b.Vel[2], 0.0, "falling again")
	stepUntilAsleep(t, w, 0, 300)
	w.Wake(0)
	assert.False(t, w.Asleep(0))
	w.Wake(-1) // out of range: nothing
	w.Wake(7)
	steps, last := stepUntilAsleep(t, w, 0, 300)
	assert.Equal(t, 0, last)
	assert.Equal(t, sleepSteps, steps)
	// New gravity, up at 1 m/s²: the box wakes and lifts off at g h.
	w.Settings.Gravity = mgl64.Vec3{0, 0, 1}
	_, err = w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0))
	assert.InDelta(t, w.Settings.H, b.Vel[2], 1e-12)
}

// A pendulum released 30° out passes its turning points below the sleep
// speeds for at most a step or two, far less than ⌈Time/h⌉ = 30: it never
// sleeps in 10 s.
func TestSleepPendulumStaysAwake(t *testing.T) {
	w, bob := pendulum(t, 1.0/60, math.Pi/6, "hinge")
	run, longest := 0, 0
	for s := 0; s < 600; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 0, st.Sleeping, "step %d", s)
		if bob.Vel.Len() < stepper.DefaultSleepLinearSpeed && bob.AngVel.Len() < stepper.DefaultSleepAngularSpeed {
			run++
		} else {
			run = 0
		}
		longest = max(longest, run)
	}
	t.Logf("longest run below the sleep speeds: %d steps", longest)
	assert.Less(t, longest, sleepSteps)
}

// A pendulum hanging at rest sleeps, and its hinge's rows are not built
// while it does; one whose hinge has a motor (holding it at 0 rad/s) never
// sleeps; a motor turned on on the sleeping one wakes it and turns it.
func TestSleepJointMotor(t *testing.T) {
	w, bob := pendulum(t, 1.0/60, 0, "hinge")
	hinge := w.Joints[0].(*constraint.Hinge)
	steps, _ := stepUntilAsleep(t, w, 0, 300)
	assert.Equal(t, sleepSteps, steps)
	st, err := w.Step()
	require.NoError(t, err)
	assert.Equal(t, 0, st.Rows, "a sleeping island's joint has no rows")
	require.NoError(t, hinge.SetMotor(1, 100))
	_, err = w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0), "a motor wakes its joint's island")
	assert.InDelta(t, 1, math.Abs(bob.AngVel[1]), 1e-6, "turned at the motor's speed")

	held, _ := pendulum(t, 1.0/60, 0, "hinge")
	require.NoError(t, held.Joints[0].(*constraint.Hinge).SetMotor(0, 100))
	for s := 0; s < 120; s++ {
		st, err := held.Step()
		require.NoError(t, err)
		require.Equal(t, 0, st.Sleeping, "an island with a motor never sleeps")
	}
}

// Sleep settings are validated: a negative or non-finite value is an
// error naming the field.
func TestSleepSettingsValidate(t *testing.T) {
	for _, s := range []stepper.Sleep{{Time: -1}, {LinearSpeed: math.NaN()}, {AngularSpeed: math.Inf(1)}} {
		set := stepper.DefaultSettings()
		set.Sleep = s
		err := set.Validate()
		var fe *num.FieldError
		require.True(t, errors.As(err, &fe), "%+v: %v", s, err)
		assert.Contains(t, fe.Field, "Sleep.")
	}
	set := stepper.Settings{H: 0.01}
	assert.NoError(t, set.Validate(), "the zero Sleep is valid: off")
}

// A position projection elsewhere in the world leaves a sleeping body's
// bits alone (its contacts are not among the projection's rows, its pose
// is not displaced) and so does not wake it: a box put 2 cm into the
// floor beside the sleeping one (turned 0.7 rad about z) is projected out
// (2 cm > ProjectAbove), the sleeping one keeps its pose.
func TestSleepProjectionElsewhere(t *testing.T) {
	w, err := stepper.New(stepper.DefaultSettings())
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatRotate(0.7, mgl64.Vec3{0, 0, 1}), 0.5)
	stepUntilAsleep(t, w, 0, 300)
	pos, rot := b.Pos, b.Rot
	sunk := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{1, 0, 0.08}, mgl64.QuatIdent(), 0.5)
	st, err := w.Step()
	require.NoError(t, err)
	assert.Positive(t, st.Projections, "the sunk box is projected out")
	assert.InDelta(t, 0.1, sunk.Pos[2], stepper.DefaultProjectAbove)
	assert.True(t, w.Asleep(0))
	assert.Equal(t, pos, b.Pos)
	assert.Equal(t, rot, b.Rot)
}

// A kinematic pusher moving at 0.5 m/s towards a sleeping box wakes it
// when their contact can close within the step, and pushes it along.
func TestSleepWokenByKinematic(t *testing.T) {
	w, b := droppedBox(t)
	stepUntilAsleep(t, w, 0, 300)
	pusher := addKinematicBox(t, w, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{-0.5, 0, 0.11}, mgl64.Vec3{0.5, 0, 0}, 0.5)
	gap := b.Pos[0] - 0.1 - (pusher.Pos[0] + 0.1) // 0.3 m
	woke := 0
	for s := 1; s <= 60 && woke == 0; s++ {
		_, err := w.Step()
		require.NoError(t, err)
		if !w.Asleep(0) {
			woke = s
		}
	}
	t.Logf("woken at step %d (gap %.3f m closes at step %.1f)", woke, gap, gap/(0.5*w.Settings.H))
	assert.InDelta(t, gap/(0.5*w.Settings.H), woke, 1, "woken in the step the pusher arrives")
	for s := 0; s < 30; s++ {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.InDelta(t, 0.5, b.Vel[0], 1e-3, "pushed along at the pusher's speed")
}

// Islands sleep and wake on their own: of two boxes resting 1 m apart,
// the pushed one wakes and the other stays asleep, its pose to the bit.
// A joint added from a sleeping box to an awake one wakes the sleeping
// box's island. Turning Settings.Sleep off wakes every body at the next
// step, and so does replacing a body (an index that holds another body
// than before).
func TestSleepIslandsSeparate(t *testing.T) {
	world := func() (*stepper.World, *body.Body, *body.Body) {
		w, err := stepper.New(stepper.DefaultSettings())
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		a := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{1, 0, 0.1}, mgl64.QuatIdent(), 0.5)
		stepUntilAsleep(t, w, 0, 300)
		require.True(t, w.Asleep(1), "both settle together")
		require.Equal(t, 2, w.Sleeping())
		return w, a, b
	}
	w, a, b := world()
	pos := b.Pos
	a.ApplyForce(mgl64.Vec3{20, 0, 0})
	for s := 0; s < 10; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Equal(t, 1, st.Sleeping)
	}
	assert.False(t, w.Asleep(0))
	assert.True(t, w.Asleep(1), "the other island sleeps on")
	assert.Equal(t, pos, b.Pos)
	assert.Greater(t, a.Pos[0], 0.05, "the pushed box moved")

	w, _, _ = world()
	w.Settings.Sleep.On = false
	st, err := w.Step()
	require.NoError(t, err)
	assert.Equal(t, 0, st.Sleeping, "sleeping off: every body awake")
	assert.False(t, w.Asleep(0) || w.Asleep(1))

	w, _, _ = world()
	addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0.5, 0.1}, mgl64.QuatIdent(), 0.5)
	d, err := constraint.NewDistance(w.Bodies, 0, 2, mgl64.Vec3{0, 0, 0.1}, mgl64.Vec3{0, 0.5, 0.1}, 0.5)
	require.NoError(t, err)
	require.NoError(t, w.AddConstraint(d))
	_, err = w.Step()
	require.NoError(t, err)
	assert.False(t, w.Asleep(0), "a joint to an awake body wakes the island")
	assert.True(t, w.Asleep(1))

	w, _, b = world()
	c := *b
	w.Bodies[1] = &c // the same state in another body
	st, err = w.Step()
	require.NoError(t, err)
	assert.Equal(t, 0, st.Sleeping, "a replaced body wakes every body")
}

// Sleep.Time is counted in whole steps, at least one: with a Time far
// below h only a body below the speeds at the end of a step sleeps (the
// falling box does not), and with a Time of 10⁹ s none ever does.
func TestSleepTimeInSteps(t *testing.T) {
	w, b := droppedBox(t)
	w.Settings.Sleep.Time = 1e-12
	steps, last := stepUntilAsleep(t, w, 0, 300)
	assert.Equal(t, 1, steps-last, "asleep at the first step at rest")
	assert.InDelta(t, 0.1, b.Pos[2], stepper.DefaultProjectAbove, "on the floor, not in the air")

	w, _ = droppedBox(t)
	w.Settings.Sleep.Time = 1e9
	for s := 0; s < 300; s++ {
		st, err := w.Step()
		require.NoError(t, err)
		require.Zero(t, st.Sleeping)
	}
}
