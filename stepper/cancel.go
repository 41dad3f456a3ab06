package stepper

import (
	"context"
	"sync/atomic"
)

// narrowCheckPairs is how often StepContext's context is checked in the
// narrow phase: before each block of this many candidate pairs of a
// narrow-phase pass (a chunk on the workPool is one pass). A resting
// box–box pair takes about 1 µs (BenchmarkNarrowPhase), so a block is a
// few hundred µs of one worker's time.
const narrowCheckPairs = 256

// stepCancel is StepContext's state during one step.
type stepCancel struct {
	ctx     context.Context // nil outside StepContext
	stopped atomic.Bool     // ctx was seen done: every later check says so
	// pairs counts the candidate pairs the narrow phase has started this
	// step, a block of up to narrowCheckPairs at each check that let it
	// go on (what a cancellation leaves to finish is the blocks in
	// flight).
	pairs atomic.Int64
	// spare holds the points of a detection in progress, so that the
	// last step's points (World.Contacts, ContactWrenches, RowLabels)
	// stay as they were if it is cancelled.
	spare []point
}

// StepContext is Step with a context that can stop the step before it
// changes anything: ctx is checked before the step, in the narrow phase
// before every narrowCheckPairs candidate pairs (on every worker), and
// between collision detection and the constraint rows. Cancelled there,
// StepContext returns an error wrapping ctx's (context.Canceled or
// context.DeadlineExceeded; context.Cause) and the world is as it was at
// the step's start: detection changes no body, no contact memory and no
// warm start (they are written after the solve), and the step's time
// and count do not advance, so the next Step or StepContext takes the
// same step, bit for bit, as a world that was never cancelled. What has
// already happened stays: the Controllers have run (they run again at
// the next step), and a sleeping island that a detected pair touches has
// been woken, as the step would have woken it.
//
// Once past detection the step runs to its end as Step does, its solve
// stopped by Settings.Context if that is set (Settings.Context: the step
// then completes with the best iterate so far). Building the rows and
// assembling them are linear in the rows and are not interrupted.
func (w *World) StepContext(ctx context.Context) (Stats, error) {
	if ctx.Err() != nil {
		return Stats{}, context.Cause(ctx)
	}
	c := &w.cancel
	c.ctx = ctx
	c.stopped.Store(false)
	c.pairs.Store(0)
	defer func() { c.ctx = nil }()
	return w.Step()
}

// narrowCancelled reports whether the narrow phase should stop before
// pair i of its n pairs: only inside StepContext, once its context is
// done. Otherwise it counts the block of pairs about to run.
func (w *World) narrowCancelled(i, n int) bool {
	c := &w.cancel
	if c.ctx == nil {
		return false
	}
	if c.stopped.Load() || c.ctx.Err() != nil {
		c.stopped.Store(true)
		return true
	}
	c.pairs.Add(int64(min(narrowCheckPairs, n-i)))
	return false
}

// stepCancelled is the check between detection and the rows: the error
// StepContext returns when detectCancellable found its context done, or
// nil.
func (w *World) stepCancelled() error {
	c := &w.cancel
	if c.ctx == nil || !c.stopped.Load() {
		return nil
	}
	return context.Cause(c.ctx)
}

// detectCancellable is detectContacts inside StepContext: the points are
// collected into a spare buffer, swapped with the last step's points once
// the detection has completed uncancelled.
func (w *World) detectCancellable(m *Mass) *contactStage {
	cs, c := &w.ws.contacts, &w.cancel
	pts := w.collect(c.spare[:0], m)
	if c.stopped.Load() || c.ctx.Err() != nil {
		c.stopped.Store(true)
		c.spare = pts
		return cs
	}
	c.spare, cs.points = cs.points, pts
	return cs
}
