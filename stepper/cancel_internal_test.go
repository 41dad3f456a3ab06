package stepper

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
)

// cancelPile builds n² boxes of 0.1 m on an n × n grid 0.8 mm
// apart, so that each box's bounding box (grown by the contact margin)
// overlaps its eight neighbours' (about 4n² candidate pairs for the
// narrow phase) while the boxes do not touch, falling together from 0.5 m
// above the ground (no gap closes: no contact rows); and a
// stack of three boxes resting on the ground beside them, whose contacts
// carry impulses and warm starts from step to step.
func cancelPile(t *testing.T, n int) *World {
	t.Helper()
	w, err := New(Settings{H: 0.01, Gravity: StandardGravity})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(Geom{Body: constraint.World, Shape: contact.Shape{Kind: contact.Plane}}); err != nil {
		t.Fatal(err)
	}
	const side = 0.1
	pitch := side + 0.0008
	add := func(pos mgl64.Vec3, rot mgl64.Quat) { addBox(t, w, side, pos, rot) }
	for i := range n {
		for j := range n {
			add(mgl64.Vec3{float64(i) * pitch, float64(j) * pitch, 0.5}, mgl64.QuatIdent())
		}
	}
	for k := range 3 {
		add(mgl64.Vec3{-1, 0, side/2 + float64(k)*side}, mgl64.QuatIdent())
	}
	return w
}

// addBox adds a box of the given side, 1 kg, friction 0.5, at pos and
// rot to w.
func addBox(t *testing.T, w *World, side float64, pos mgl64.Vec3, rot mgl64.Quat) {
	t.Helper()
	b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, side, side, side), Pos: pos, Rot: rot})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddBody(b)
	if err != nil {
		t.Fatal(err)
	}
	shape := contact.Shape{Kind: contact.Box, Size: mgl64.Vec3{side, side, side}}
	if _, err := w.AddGeom(Geom{Body: id, Shape: shape, Material: Material{Friction: 0.5}}); err != nil {
		t.Fatal(err)
	}
}

// countingCtx is a context whose Err turns context.Canceled at its
// after-th call, and records the narrow phase's started pairs then.
type countingCtx struct {
	context.Context
	w         *World
	calls     atomic.Int64
	after     int64
	pairsThen atomic.Int64
}

func (c *countingCtx) Err() error {
	if c.calls.Add(1) >= c.after {
		c.pairsThen.CompareAndSwap(0, c.w.cancel.pairs.Load())
		return context.Canceled
	}
	return nil
}

// StepContext cancelled in the middle of collision detection returns the
// context's error with the world as it was: its next StepContext gives
// the same bits as a world that was never cancelled, and the last step's
// contacts stay queryable. The narrow phase checks the context before
// every block of narrowCheckPairs candidate pairs on each worker, so no
// block starts after the context is seen done (asserted: the pairs
// started after it ≤ one block per worker); the time from cancel to
// return is logged, measured with a real cancellation from another
// goroutine.
func TestStepContextCancelsDetection(t *testing.T) {
	a, b := cancelPile(t, 100), cancelPile(t, 100)
	// Two steps on both, so the stack's contacts have memory.
	stepBoth(t, 2, a, b)
	before := a.Contacts(nil)
	if len(before) == 0 {
		t.Fatal("the stack has no contacts")
	}

	// A deterministic cancellation: the context turns done at its 20th
	// check, in the narrow phase.
	ctx := &countingCtx{Context: context.Background(), w: a, after: 20}
	_, err := a.StepContext(ctx)
	if err != context.Canceled {
		t.Fatalf("StepContext: got %v, want context.Canceled", err)
	}
	started := a.cancel.pairs.Load()
	total := int64(len(a.ws.contacts.pairs))
	t.Logf("candidate pairs %d; started before the cancellation %d, in all %d (check every %d pairs, %d workers)",
		total, ctx.pairsThen.Load(), started, narrowCheckPairs, runtime.GOMAXPROCS(0))
	if started >= total {
		t.Fatalf("the narrow phase ran all %d pairs: not cancelled mid-detection", total)
	}
	if after := started - ctx.pairsThen.Load(); after > int64(narrowCheckPairs*runtime.GOMAXPROCS(0)) {
		t.Errorf("%d pairs started after the cancellation, more than a block of %d per worker", after, narrowCheckPairs)
	}
	if a.Steps() != b.Steps() || a.Time() != b.Time() {
		t.Errorf("the cancelled step advanced the world: steps %d time %v, want %d %v", a.Steps(), a.Time(), b.Steps(), b.Time())
	}
	if got := a.Contacts(nil); len(got) != len(before) || got[0] != before[0] {
		t.Errorf("the last step's contacts changed: %d, want %d", len(got), len(before))
	}

	// The next steps are those of the world that was never cancelled.
	for k := range 2 {
		sa, sb := stepPair(t, a, b)
		if sa.Contacts != sb.Contacts || sa.Iterations != sb.Iterations {
			t.Errorf("step %d: contacts %d, iterations %d; never cancelled %d, %d", k, sa.Contacts, sa.Iterations, sb.Contacts, sb.Iterations)
		}
		for i := range a.Bodies {
			x, y := a.Bodies[i], b.Bodies[i]
			if x.Pos != y.Pos || x.Rot != y.Rot || x.Vel != y.Vel || x.AngVel != y.AngVel {
				t.Fatalf("step %d: body %d differs from the never-cancelled world's: %v %v, want %v %v", k, i, x.Pos, x.Vel, y.Pos, y.Vel)
			}
		}
	}

	// A real cancellation from another goroutine once the narrow phase
	// has started 2 000 pairs: the time from cancel to return, logged.
	c, cancel := context.WithCancel(context.Background())
	var at time.Time
	var atPairs int64
	var returned atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for a.cancel.pairs.Load() < 2000 {
			if returned.Load() {
				return
			}
			runtime.Gosched()
		}
		atPairs = a.cancel.pairs.Load()
		at = time.Now()
		cancel()
	}()
	_, err = a.StepContext(c)
	ret := time.Now()
	returned.Store(true)
	<-done
	cancel()
	if err == nil {
		t.Logf("the step ended before the cancellation reached it (a loaded machine); nothing to measure")
		return
	}
	t.Logf("real cancellation: %d pairs started at cancel, %d in all of %d; returned %v after cancel",
		atPairs, a.cancel.pairs.Load(), len(a.ws.contacts.pairs), ret.Sub(at))
	if more := a.cancel.pairs.Load() - atPairs; more > int64(narrowCheckPairs*runtime.GOMAXPROCS(0)) {
		t.Errorf("%d pairs started after cancel, more than a block of %d per worker", more, narrowCheckPairs)
	}
}

// A steady StepContext allocates nothing, as Step does (the spare points
// and rows buffers are kept across steps): on a pile, and on a 300-link
// chain whose rows and assembly run the chunk checks.
func TestStepContextAllocatesNothing(t *testing.T) {
	for name, w := range map[string]*World{"pile": cancelPile(t, 12), "chain": cancelChain(t, 300)} {
		ctx := context.Background()
		for range 5 {
			if _, err := w.StepContext(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if n := testing.AllocsPerRun(5, func() { _, _ = w.StepContext(ctx) }); n != 0 {
			t.Errorf("%s: StepContext allocates %v times per step", name, n)
		}
	}
}
