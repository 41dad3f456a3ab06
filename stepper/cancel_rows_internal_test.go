package stepper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
)

// cancelChain is cancelPile(t, 0) (the ground and a resting stack of three
// boxes, whose contacts carry memory and warm starts from step to step)
// with a chain of n links of 0.1 m, 0.1 kg each, joined by ball joints,
// its first link held by a ball joint to the world at the origin, laid out
// horizontally 2 m above the ground so that it swings down: 3n joint rows,
// the rows and A's blocks dominating the step, the same bodies in the same
// rows every step (Assemble refills A from the second step on).
func cancelChain(t *testing.T, n int) *World {
	t.Helper()
	w := cancelPile(t, 0)
	const link = 0.1
	first := len(w.Bodies)
	for i := range n {
		b, err := body.New(body.Params{Mass: 0.1, Inertia: body.BoxInertia(0.1, link, 0.02, 0.02),
			Pos: mgl64.Vec3{(float64(i) + 0.5) * link, 2, 2}, Rot: mgl64.QuatIdent()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddBody(b); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		a := constraint.World
		if i > 0 {
			a = first + i - 1
		}
		j, err := constraint.NewBall(w.Bodies, a, first+i, mgl64.Vec3{float64(i) * link, 2, 2})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddConstraint(j); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// stateHash is SHA-256 over what a step leaves for the next: every body's
// pose and velocities, the last solution x and w, the rows' final index
// sets (LastStates), the joint rows' warm starts and impulses, and the
// contact memory (its entries in no order), as float bits.
func stateHash(w *World) [32]byte {
	h := sha256.New()
	var buf [8]byte
	f := func(v float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		h.Write(buf[:])
	}
	for _, b := range w.Bodies {
		for _, v := range [][]float64{b.Pos[:], b.Rot.V[:], {b.Rot.W}, b.Vel[:], b.AngVel[:]} {
			for _, x := range v {
				f(x)
			}
		}
	}
	x, wv := w.LastSolution()
	for _, v := range [][]float64{x, wv, w.ws.memory.jointX} {
		for _, e := range v {
			f(e)
		}
	}
	for _, s := range w.LastStates() {
		f(float64(s))
	}
	for _, s := range w.ws.memory.jointStart {
		f(float64(s))
	}
	// The contact memory, in no order: the XOR of each entry's hash.
	var mem [32]byte
	w.ws.memory.cache.each(func(k contactKey, c cached) {
		e := sha256.Sum256(fmt.Appendf(nil, "%#v %#v", k, c))
		for i := range mem {
			mem[i] ^= e[i]
		}
	})
	h.Write(mem[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// StepContext cancelled inside buildRows (at its 30th chunk: in the joint
// rows; at its 150th: in their drift prediction, the bodies moved to their
// predicted poses) and inside the assembly (at its 10th
// chunk: in A's blocks, while Assemble refills A in the kept pattern) of a
// 10 000-link chain returns context.Canceled with no chunk started after
// the cancellation (the checks run on one goroutine: the chunks started
// are exactly those before it), leaves the last step's queries as they
// were (its contacts, rows: JointReaction, index sets: LastStates), and
// the next two steps are bit for bit those of a world that was never
// cancelled (stateHash: bodies, solution, warm starts, contact memory),
// A's entries and pattern included (its product with a vector of ones,
// the same bits; the refill resumes on the step after the retry). The
// cancellation is forced by a hook at a chosen chunk, not timed.
func TestStepContextCancelsRowsAndAssembly(t *testing.T) {
	const links = 10000
	for _, tc := range []struct {
		name  string
		stage cancelStage
		at    int // the stage's check (0, 1, …) at which the context turns done
	}{
		{"joint rows", stageRows, 30},
		{"drift", stageRows, 150},
		{"assembly", stageAssembly, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := cancelChain(t, links), cancelChain(t, links)
			stepBoth(t, 2, a, b)
			if stateHash(a) != stateHash(b) {
				t.Fatal("two worlds built alike differ before any cancellation")
			}
			contacts := a.Contacts(nil)
			states := slices.Clone(a.LastStates())
			reaction, err := a.JointReaction(nil, links/2)
			if err != nil || len(contacts) == 0 || len(states) == 0 {
				t.Fatalf("the last step left no contacts (%d), states (%d) or reaction (%v)", len(contacts), len(states), err)
			}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			checks, at := 0, int64(-1)
			refilling, displaced := false, false
			last := len(a.Bodies) - 1
			a.cancel.hook = func(s cancelStage, chunk int64) {
				if s != tc.stage {
					return
				}
				if checks == tc.at {
					cancel()
					at, refilling = chunk, a.ws.assembly.eq.refilling
					// predictDrift has moved the bodies to their predicted poses.
					dr := &a.ws.drift
					displaced = len(dr.savedPos) > last && a.Bodies[last].Pos != dr.savedPos[last]
				}
				checks++
			}
			_, err = a.StepContext(ctx)
			a.cancel.hook = nil
			if err != context.Canceled {
				t.Fatalf("StepContext: got %v, want context.Canceled", err)
			}
			if cancelStage(a.cancel.stage.Load()) != tc.stage || at < 0 {
				t.Fatalf("cancelled at stage %d (chunk %d), want stage %d", a.cancel.stage.Load(), at, tc.stage)
			}
			if tc.name == "drift" && !displaced {
				t.Fatalf("cancelled at chunk %d with the bodies at their poses: not inside predictDrift", at)
			}
			if got := a.cancel.chunks.Load(); got != at {
				t.Errorf("%d chunks started, %d of them after the cancellation at chunk %d", got, got-at, at)
			}
			t.Logf("cancelled at chunk %d of buildRows and assemble (%d joint rows; assembly refilling A: %v)", at, 3*links, tc.stage == stageAssembly && refilling)
			if tc.stage == stageAssembly && !refilling {
				t.Errorf("the assembly was not refilling A when cancelled: the case under test is a half-refilled A")
			}
			if a.Steps() != b.Steps() || a.Time() != b.Time() {
				t.Errorf("the cancelled step advanced the world: steps %d, time %v", a.Steps(), a.Time())
			}
			if got := a.Contacts(nil); !slices.Equal(got, contacts) {
				t.Errorf("the last step's contacts changed: %d, want %d", len(got), len(contacts))
			}
			if got := a.LastStates(); !slices.Equal(got, states) {
				t.Errorf("the last step's index sets changed (%d rows, want %d)", len(got), len(states))
			}
			if got, err := a.JointReaction(nil, links/2); err != nil || !slices.Equal(got, reaction) {
				t.Errorf("joint %d's reaction: %v (%v), want %v", links/2, got, err, reaction)
			}
			if stateHash(a) != stateHash(b) {
				t.Errorf("the cancelled step changed the state it leaves for the next")
			}

			for k := range 2 {
				sa, sb := stepPair(t, a, b)
				if sa.Rows != sb.Rows || sa.Iterations != sb.Iterations || sa.Contacts != sb.Contacts {
					t.Errorf("step %d: rows %d, iterations %d, contacts %d; never cancelled %d, %d, %d",
						k, sa.Rows, sa.Iterations, sa.Contacts, sb.Rows, sb.Iterations, sb.Contacts)
				}
				if stateHash(a) != stateHash(b) {
					t.Fatalf("step %d after the cancellation: the state differs from the never-cancelled world's", k)
				}
				ea, eb := &a.ws.assembly.eq, &b.ws.assembly.eq
				if ea.A.NNZ() != eb.A.NNZ() || !slices.Equal(ea.B, eb.B) || ea.kktOK != eb.kktOK {
					t.Errorf("step %d: A has %d entries (KKT %v), want %d (%v), or b differs", k, ea.A.NNZ(), ea.kktOK, eb.A.NNZ(), eb.kktOK)
				}
				ones := make([]float64, len(ea.B))
				for i := range ones {
					ones[i] = 1
				}
				pa, pb := make([]float64, len(ones)), make([]float64, len(ones))
				ea.A.MulVecTo(pa, ones)
				eb.A.MulVecTo(pb, ones)
				if !slices.Equal(pa, pb) {
					t.Errorf("step %d: A's entries differ from the never-cancelled world's", k)
				}
				if k == 1 && ea.refilling != eb.refilling {
					t.Errorf("step %d: refilling A %v, never cancelled %v", k, ea.refilling, eb.refilling)
				}
			}
		})
	}
}

// A real cancellation, from another goroutine, of a step of the
// 10 000-link chain once buildRows and assemble have started a chosen
// number of chunks (100: in the joint rows' drift prediction; 240: in the
// assembly): the time from cancel() to StepContext's return and the
// chunks started after cancel() are logged, with the stages' times of a
// whole step for scale (Stats.Timings). Asserted: the step was cancelled
// (or finished first, on a machine too loaded to reach the chunk in time:
// then nothing is measured) and the world's next step is the
// never-cancelled world's.
func TestStepContextCancelLatencyRows(t *testing.T) {
	const links = 10000
	a, b := cancelChain(t, links), cancelChain(t, links)
	var st Stats
	for range 2 {
		if _, err := a.Step(); err != nil {
			t.Fatal(err)
		}
		var err error
		if st, err = b.Step(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("a whole step: rows %v, assembly %v, solve %v, total %v", st.Timings.Rows, st.Timings.Assembly, st.Timings.Solve, st.Timings.Total)
	for _, at := range []int64{100, 240} {
		ctx, cancel := context.WithCancel(context.Background())
		var when time.Time
		var atChunks int64
		var returned atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			for a.cancel.chunks.Load() < at {
				if returned.Load() {
					return
				}
				runtime.Gosched()
			}
			atChunks = a.cancel.chunks.Load()
			when = time.Now()
			cancel()
		}()
		_, err := a.StepContext(ctx)
		ret := time.Now()
		returned.Store(true)
		<-done
		cancel()
		if err == nil {
			t.Logf("chunk %d: the step ended before the cancellation reached it; nothing to measure", at)
			if _, err := b.Step(); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Logf("chunk %d: cancelled at chunk %d (stage %d), %d chunks started after cancel(); returned %v after it",
			at, atChunks, a.cancel.stage.Load(), a.cancel.chunks.Load()-atChunks, ret.Sub(when))
	}
	if _, err := a.StepContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Step(); err != nil {
		t.Fatal(err)
	}
	if stateHash(a) != stateHash(b) {
		t.Errorf("after the cancellations the state differs from the never-cancelled world's")
	}
}

// BenchmarkChainStepContext is a step of a 1 000-link chain by Step and
// by StepContext (the chunk checks and the second rows buffer): the
// checks' cost is the difference.
func BenchmarkChainStepContext(b *testing.B) {
	for _, name := range []string{"Step", "StepContext"} {
		b.Run(name, func(b *testing.B) {
			w := cancelChain(&testing.T{}, 1000)
			ctx := context.Background()
			step := func() error { _, err := w.Step(); return err }
			if name == "StepContext" {
				step = func() error { _, err := w.StepContext(ctx); return err }
			}
			for range 3 {
				if err := step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// stepPair takes one step of a, the world that was cancelled, by
// StepContext without a deadline, and one of b, the world that never was,
// by Step, and returns their Stats.
func stepPair(t *testing.T, a, b *World) (sa, sb Stats) {
	t.Helper()
	sa, err := a.StepContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sb, err = b.Step(); err != nil {
		t.Fatal(err)
	}
	return sa, sb
}

// stepBoth takes n steps (Step) on each of the worlds.
func stepBoth(t *testing.T, n int, worlds ...*World) {
	t.Helper()
	for range n {
		for _, w := range worlds {
			if _, err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// restingBoxes is cancelPile(t, 0) with n × n boxes of 0.1 m resting on
// the ground 0.2 m apart, slightly turned about the vertical (each box
// its own angle, so the contact points differ box to box): four contact
// points each with friction, 12 rows per box, whose contact memory and
// warm starts carry from step to step.
func restingBoxes(t *testing.T, n int) *World {
	t.Helper()
	w := cancelPile(t, 0)
	const side = 0.1
	for i := range n {
		for j := range n {
			rot := mgl64.QuatRotate(0.01*float64(i*n+j), mgl64.Vec3{0, 0, 1})
			addBox(t, w, side, mgl64.Vec3{2 + 0.2*float64(i), 0.2 * float64(j), side / 2}, rot)
		}
	}
	return w
}

// StepContext cancelled in the contact rows of 2 500 resting boxes (10 000
// contact points, 30 000 rows), on one worker (the points in one pass,
// checked every cancelCheckRows rows) and on two (chunks of
// rowChunkPoints points on the workPool, checked at each chunk's start):
// no chunk starts after the cancellation but those already past their
// check on the other workers (at most GOMAXPROCS − 1), the last step's
// contacts stay, and the next two steps' state hashes (bodies, solution,
// warm starts, contact memory) are those of a world never cancelled.
func TestStepContextCancelsContactRows(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("procs", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			a, b := restingBoxes(t, 50), restingBoxes(t, 50)
			stepBoth(t, 2, a, b)
			contacts := a.Contacts(nil)
			if len(contacts) < 4*2500 {
				t.Fatalf("%d contact points, want 4 per box", len(contacts))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			const at = 40 // the chunk before which the context turns done
			var once sync.Once
			var atChunk atomic.Int64
			atChunk.Store(-1)
			a.cancel.hook = func(s cancelStage, chunk int64) {
				if s == stageRows && chunk >= at {
					once.Do(func() { atChunk.Store(chunk); cancel() })
				}
			}
			_, err := a.StepContext(ctx)
			a.cancel.hook = nil
			if err != context.Canceled || cancelStage(a.cancel.stage.Load()) != stageRows {
				t.Fatalf("StepContext: %v at stage %d, want context.Canceled in the rows", err, a.cancel.stage.Load())
			}
			started := a.cancel.chunks.Load()
			t.Logf("%d contact points; cancelled before chunk %d, %d chunks started in all", len(contacts), atChunk.Load(), started)
			if extra := started - atChunk.Load(); extra < 0 || extra > int64(procs-1) {
				t.Errorf("%d chunks started after the cancellation, want at most %d", extra, procs-1)
			}
			if got := a.Contacts(nil); !slices.Equal(got, contacts) {
				t.Errorf("the last step's contacts changed")
			}
			if stateHash(a) != stateHash(b) {
				t.Errorf("the cancelled step changed the state it leaves for the next")
			}
			for k := range 2 {
				if _, err := a.StepContext(context.Background()); err != nil {
					t.Fatal(err)
				}
				if _, err := b.Step(); err != nil {
					t.Fatal(err)
				}
				if stateHash(a) != stateHash(b) {
					t.Fatalf("step %d after the cancellation: the state differs from the never-cancelled world's", k)
				}
			}
		})
	}
}
