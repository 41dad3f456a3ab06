package stepper

import (
	"context"
	"sync/atomic"

	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
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

	// chunks counts the chunks of buildRows and assemble started this
	// step: each check that let the step go on starts one (cancelCheckRows
	// joint rows, the contact rows, cancelCheckBodies bodies' blocks of A,
	// a pass over the rows).
	chunks atomic.Int64
	// hook, when set (tests), is called at each check of buildRows and
	// assemble before ctx is read, with the stage and the chunks started.
	hook func(stage cancelStage, chunk int64)
	// final is set once the step has changed the world before its solve
	// (propagateImpacts moved the bodies' velocities): no later check
	// stops it.
	final bool
	// stage is where the context was seen done (0: detection).
	stage atomic.Int32
	// The last step's rows (ws.build's rows, start, jdims and nj), kept
	// while buildRows fills the other buffer, swapped back on a
	// cancellation so that the queries of the last step (JointReaction,
	// LastStates, LastDrift) still read its rows.
	rows  []constraint.Row
	start []lcp.State
	jdims []int
	nj    int
	// stopAsm is Assembly.stop for the world's assembly: chunkCancelled
	// at stageAssembly (made once).
	stopAsm func() bool
}

// cancelStage is the part of a step a chunk check belongs to.
type cancelStage int

const (
	stageRows     cancelStage = iota + 1 // buildRows
	stageAssembly                        // assemble
)

// cancelCheckRows is how many joint rows buildRows fills between two
// checks of StepContext's context, and cancelCheckBodies how many bodies'
// blocks of A (J M⁻¹ Jᵀ, by row sparsity) assemble adds between two.
// A joint row takes about 0.1 µs to fill and a body's blocks a few pairs
// of 6-vectors each, so a chunk is tens of µs and the check (one
// ctx.Err, an atomic add) is lost in it.
const (
	cancelCheckRows   = 256
	cancelCheckBodies = 256
)

// StepContext is Step with a context that can stop the step before its
// solve without changing the world. ctx is checked before the step; in the
// narrow phase before every narrowCheckPairs candidate pairs (on every
// worker); between collision detection and the constraint rows; while the
// rows are built, before every cancelCheckRows joint rows, in the joint
// rows' drift prediction as often, and in the contact rows as often (at a
// manifold's first point) and before each chunk of them on the workPool;
// and in the assembly of A = J M⁻¹ Jᵀ + C, before the blocks of every
// cancelCheckBodies bodies and between its passes. Each check is one
// ctx.Err and an atomic add; a steady StepContext allocates nothing.
//
// Cancelled there, StepContext returns an error wrapping ctx's
// (context.Canceled or context.DeadlineExceeded; context.Cause) and the
// world is as it was at the step's start: no body has moved (the drift
// prediction puts back the poses it tries), the contact memory and the
// warm starts are untouched (they are written after the solve), the
// step's time and count do not advance, and the last step's contacts and
// rows are what World.Contacts, ContactWrenches, JointReaction,
// LastStates, LastDrift and RowLabels report (StepContext keeps a second
// buffer of points and of rows for this). The assembly's reuse of A's
// layout from the last step is marked invalid, so the next step builds
// A's pattern from the bodies' rows again (lcp.Sparse.ResetCliques): the
// same bits as a refill, the pattern unchanged for the solvers' orderings. The
// next Step or StepContext thus takes the same step, bit for bit, as a
// world that was never cancelled. What has already happened stays: the
// Controllers have run (they run again at the next step), a sleeping
// island that a detected pair touches has been woken, as the step would
// have woken it, and after a cancellation inside the assembly LastProblem
// returns nil (A was partly overwritten).
//
// Past the assembly the step runs to its end as Step does, its solve
// stopped by Settings.Context if that is set (Settings.Context: the step
// then completes with the best iterate so far). So does a step whose
// impacts were resolved before the solve (Settings.Impacts =
// PropagatedImpacts with a bounce): they have changed the bodies'
// velocities, and no check after them stops the step.
func (w *World) StepContext(ctx context.Context) (Stats, error) {
	if ctx.Err() != nil {
		return Stats{}, context.Cause(ctx)
	}
	c := &w.cancel
	c.ctx = ctx
	c.stopped.Store(false)
	c.pairs.Store(0)
	c.chunks.Store(0)
	c.final = false
	c.stage.Store(0)
	defer func() { c.ctx = nil }()
	return w.Step()
}

// chunkCancelled is the check before each chunk of buildRows and
// assemble: it reports whether StepContext's context is done (and the
// step may still stop), otherwise counts the chunk about to start. The
// contact rows' chunks call it from the workPool's goroutines: all but
// the test hook is atomic.
func (w *World) chunkCancelled(stage cancelStage) bool {
	c := &w.cancel
	if c.ctx == nil || c.final {
		return false
	}
	if c.stopped.Load() {
		return true
	}
	if c.hook != nil {
		c.hook(stage, c.chunks.Load())
	}
	if c.ctx.Err() != nil {
		c.stopped.Store(true)
		c.stage.CompareAndSwap(0, int32(stage))
		return true
	}
	c.chunks.Add(1)
	return false
}

// keepRows, inside StepContext, moves the last step's rows aside (into
// w.cancel) before buildRows fills the step's, into the buffers of the
// step before: both sets of buffers are kept, so a steady StepContext
// allocates nothing.
func (w *World) keepRows() {
	c, b := &w.cancel, &w.ws.build
	if c.ctx == nil {
		return
	}
	b.rows, c.rows = c.rows, b.rows
	b.start, c.start = c.start, b.start
	b.jdims, c.jdims = c.jdims, b.jdims
	c.nj = b.nj
}

// abandonStep undoes what a step cancelled after its detection did before
// its solve, so that the world is as at the step's start: the last step's
// points and rows are swapped back, and a cancelled assembly is marked to
// be rebuilt. Past detection a step has written only its own buffers: the
// contact memory and the joint rows' warm starts are written after the
// solve (storeImpulses, solve), the island sets in the solve (setStep
// names the step that built them), predictDrift restores the poses it
// moves, and Mass is recomputed by every step. The assembly's reuse of
// A's layout (Assembly.layOK, lcp.Sparse.Refill) would see an unfinished
// A and build it again anyway; it is marked invalid here, so that the
// next Assemble builds A's pattern from the bodies' rows
// (lcp.Sparse.ResetCliques): the bits a refill gives
// (TestAssembleRefillsSameBits), the same pattern, its version unchanged,
// so the solvers' symbolic factorizations kept for it stand. The last step's problem (LastProblem) is gone: A was
// partly overwritten.
func (w *World) abandonStep() {
	c, ws := &w.cancel, &w.ws
	cs := &ws.contacts
	c.spare, cs.points = cs.points, c.spare
	b := &ws.build
	b.rows, c.rows = c.rows, b.rows
	b.start, c.start = c.start, b.start
	b.jdims, c.jdims = c.jdims, b.jdims
	b.nj = c.nj
	if cancelStage(c.stage.Load()) == stageAssembly {
		eq := &ws.assembly.eq
		eq.layOK, eq.refilling, eq.kktOK = false, false, false
		ws.solve.prob = lcp.Problem{}
	}
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
