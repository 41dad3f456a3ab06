package stepper_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boxStack adds n boxes of 0.2 m sides and 1 kg, stacked on the ground at
// (x, y), each 1 mm above the one below and turned a little about z, so
// that the stack settles, with friction μ = 0.5.
func boxStack(t *testing.T, w *stepper.World, x, y float64, n int) []*body.Body {
	t.Helper()
	var bs []*body.Body
	for i := range n {
		rot := mgl64.QuatRotate(0.05*float64(i), mgl64.Vec3{0, 0, 1})
		bs = append(bs, addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{x, y, 0.101 + 0.201*float64(i)}, rot, 0.5))
	}
	return bs
}

// islandScene is several islands at once: three stacks of four boxes on
// the ground at x = 0, 1, 2 m, and a chain of five 0.1 m links hung on ball
// joints from the world at x = 4 m, swinging, at h = 1/60 s.
func islandScene(t *testing.T) *stepper.World {
	t.Helper()
	w, err := stepper.New(awakeSettings())
	require.NoError(t, err)
	ground(t, w, mgl64.QuatIdent(), 0.5)
	for k := range 3 {
		boxStack(t, w, float64(k), 0, 4)
	}
	prev := constraint.World
	for i := range 5 {
		// Links along +y from the pivot at (4, 0, 1): the chain starts
		// horizontal and swings down.
		c := mgl64.Vec3{4, 0.05 + 0.1*float64(i), 1}
		b, err := body.New(body.Params{Mass: 0.5, Inertia: body.BoxInertia(0.5, 0.02, 0.1, 0.02), Pos: c, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		j, err := constraint.NewBall(w.Bodies, prev, id, c.Sub(mgl64.Vec3{0, 0.05, 0}))
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(j))
		prev = id
	}
	return w
}

// stateBits appends the bits of every body's pose and velocities.
func stateBits(dst []uint64, w *stepper.World) []uint64 {
	for _, b := range w.Bodies {
		for _, v := range [...]float64{b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2],
			b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2]} {
			dst = append(dst, math.Float64bits(v))
		}
	}
	return dst
}

// The islands are solved on goroutines, but each island's solve reads
// only the world's problem and writes only its own state: the trajectory
// is the same bits under GOMAXPROCS 1, 2 and 4 (at every step, not only
// at the end), and the scene is four islands (three stacks and the chain),
// each solved within its budget.
func TestIslandsSameBitsAnyGOMAXPROCS(t *testing.T) {
	run := func(procs int) []uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w := islandScene(t)
		var bits []uint64
		for s := range 120 {
			st, err := w.Step()
			require.NoError(t, err)
			if s > 0 {
				require.Len(t, st.Islands, 4, "step %d: three stacks and the chain", st.Step)
			}
			for _, is := range st.Islands {
				assert.False(t, is.BudgetHit, "step %d island %d", st.Step, is.Body)
			}
			bits = stateBits(bits, w)
		}
		return bits
	}
	one := run(1)
	for _, procs := range []int{2, 4} {
		assert.Equal(t, one, run(procs), "GOMAXPROCS %d", procs)
	}
}

// The random pile through its landings (150 steps: boxes landing one by
// one, islands appearing and merging, up to about 90 at once) takes the
// same bits under GOMAXPROCS 1, 2 and 4.
func TestPileSameBitsAnyGOMAXPROCS(t *testing.T) {
	if raceEnabled {
		t.Skip("150 steps of the 100-box pile, three times, take minutes under the race detector; TestIslandsSameBitsAnyGOMAXPROCS runs the islands in parallel there")
	}
	run := func(procs int) []uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w := pileWorld(t, false)
		most := 0
		for range 150 {
			st, err := w.Step()
			require.NoError(t, err)
			most = max(most, len(st.Islands))
		}
		require.Greater(t, most, 50, "many islands at once")
		return stateBits(nil, w)
	}
	one := run(1)
	for _, procs := range []int{2, 4} {
		assert.Equal(t, one, run(procs), "GOMAXPROCS %d", procs)
	}
}

// A world of two identical stacks far apart is two islands, each solved on
// its own: the first stack takes the trajectory it takes alone in a world
// (one island, the world's single problem), for 3 s of settling with
// friction, new contacts' pre-solves included (world-wide and block
// diagonal too), with the same iterations per step as the stack alone.
// Not bit for bit: while its island has at most denseIslandRows rows it is
// solved on its dense block, the stack alone on the world's sparse one, and
// the two factorizations round differently. The stacks' 1 mm gaps close
// in their first steps, every level at once (speculative contacts count
// each body's own approach), and in step 6 that rounding ends the lone
// stack's warm-started solve after 1 iteration and the island's after 2,
// both within the solver's tolerance: at most that one step's iterations
// differ, and the boxes stay within 1e-9 m and 1e-7 m/s of the lone
// stack's (4.5e-11 m and 2.7e-9 m/s measured; before, the upper boxes
// fell into the lower ones through the gaps, were projected out, and
// stayed within 9.1e-16 m and 7.1e-14 m/s).
func TestTwoStacksSolveAsOne(t *testing.T) {
	build := func(stacks int) (*stepper.World, []*body.Body) {
		w, err := stepper.New(awakeSettings())
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		var first []*body.Body
		for k := range stacks {
			bs := boxStack(t, w, 3*float64(k), 0, 5)
			if k == 0 {
				first = bs
			}
		}
		return w, first
	}
	alone, a := build(1)
	two, b := build(2)
	presolved, itersDiffer := 0, 0
	dPos, dVel := 0.0, 0.0
	for s := range 180 {
		sa, err := alone.Step()
		require.NoError(t, err)
		sb, err := two.Step()
		require.NoError(t, err)
		require.Nil(t, sa.Islands, "one stack is one island: the single problem")
		if sa.PreSolveIterations > 0 {
			presolved++
		}
		if sb.Rows > 0 {
			require.Len(t, sb.Islands, 2, "step %d", s+1)
			if sa.Iterations != sb.Islands[0].Iterations {
				itersDiffer++
			}
		}
		for i := range a {
			dPos = math.Max(dPos, a[i].Pos.Sub(b[i].Pos).Len())
			dVel = math.Max(dVel, a[i].Vel.Sub(b[i].Vel).Len())
		}
	}
	t.Logf("largest difference: %.2g m, %.2g m/s; steps with other iterations: %d", dPos, dVel, itersDiffer)
	assert.LessOrEqual(t, itersDiffer, 1, "steps whose iterations differ from the stack alone")
	assert.LessOrEqual(t, dPos, 1e-9, "positions, m (4.5e-11 measured)")
	assert.LessOrEqual(t, dVel, 1e-7, "velocities, m/s (2.7e-9 measured)")
	assert.Positive(t, presolved, "steps with new frictional contacts")
	// The stacks stood: the top box within 1 cm of its start height.
	assert.InDelta(t, 0.101+0.201*4, b[4].Pos[2], 0.01)
}

// Solving by island solves the same MLCP (A is block diagonal by island):
// the island scene with SingleProblem set and without, both converging at
// every step, ends within 1e-7 m of each other after 2 s, body by body
// (measured: 1e-15 m for the boxes at rest, 1.3e-8 m for the swinging
// chain, whose motion amplifies the difference of two answers each exact
// to the solver's tolerance: each step starts at the last step's impulses
// (Settings.Coherent) and keeps a residual below it; 1.2e-10 m with
// Coherent off, the rounding of two different factorizations).
func TestIslandsMatchSingleProblem(t *testing.T) {
	split := islandScene(t)
	single := islandScene(t)
	single.Settings.SingleProblem = true
	for range 120 {
		sa, err := split.Step()
		require.NoError(t, err)
		sb, err := single.Step()
		require.NoError(t, err)
		require.Equal(t, lcp.Converged, sa.Status)
		require.Equal(t, lcp.Converged, sb.Status)
		require.Nil(t, sb.Islands)
	}
	most := 0.0
	for i, b := range split.Bodies {
		most = max(most, b.Pos.Sub(single.Bodies[i].Pos).Len())
		assert.InDelta(t, 0, b.Pos.Sub(single.Bodies[i].Pos).Len(), 1e-7, "body %d", i)
	}
	t.Logf("by island against one problem: %.2g m apart at most", most)
}

// Steady steps of a multi-island world allocate nothing, with the
// islands on several goroutines.
func TestIslandsSteadyStepAllocatesNothing(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	w := islandScene(t)
	for range 30 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	assert.Zero(t, testing.AllocsPerRun(10, func() { _, _ = w.Step() }))
}

// BenchmarkRandomPile steps the 100-box random pile (pileWorld) as one
// problem and by island: "settled" is a step of the pile at rest after
// 600 steps (10 s), "first600" the 600 steps from the drop through the
// landings to rest (ms/step = ns/op / 600).
func BenchmarkRandomPile(b *testing.B) {
	for _, single := range []bool{true, false} {
		name := "islands"
		if single {
			name = "single"
		}
		b.Run("settled/"+name, func(b *testing.B) {
			w := pileWorld(b, single)
			for range 600 {
				_, err := w.Step()
				require.NoError(b, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				_, _ = w.Step()
			}
		})
		b.Run("first600/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				w := pileWorld(b, single)
				b.StartTimer()
				for range 600 {
					_, _ = w.Step()
				}
			}
		})
	}
}

// BenchmarkFourPiles steps four random piles of 25 boxes, 5 m apart, from
// the drop through the landings (240 steps, 4 s, per op): the islands are
// spread over the workers, so run it with -cpu 1,2 for the ratio of the
// wall-clock times.
func BenchmarkFourPiles(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		w, err := stepper.New(awakeSettings())
		require.NoError(b, err)
		ground(b, w, mgl64.QuatIdent(), 0.5)
		for k := range 4 {
			randomPile(b, w, 5*float64(k%2), 5*float64(k/2), uint64(7+k), 25)
		}
		b.StartTimer()
		for range 240 {
			_, _ = w.Step()
		}
	}
}

// With Settings.Observer set the islands solve in turn, in island order,
// and the Observer sees each island's iterates with World.LastProblem the
// island's sub-problem: the problems it sees are, in order, the islands'
// of Stats.Islands, each with the island's rows. After the step
// LastProblem is the world's again.
func TestIslandsObserver(t *testing.T) {
	w := islandScene(t)
	var seen []int // rows of the problem at each solve's first iterate
	w.Settings.Observer = lcp.ObserverFunc(func(it lcp.Iterate) {
		p := w.LastProblem()
		require.Len(t, it.X, p.N(), "the iterate is the problem's")
		if it.Iter == 1 {
			seen = append(seen, p.N())
		}
	})
	for range 30 {
		seen = seen[:0]
		st, err := w.Step()
		require.NoError(t, err)
		want := make([]int, 0, len(st.Islands))
		for _, is := range st.Islands {
			want = append(want, is.Rows)
		}
		if st.Islands == nil {
			want = []int{st.Rows}
		}
		require.Equal(t, want, seen, "step %d", st.Step)
		require.Equal(t, st.Rows, w.LastProblem().N())
	}
}

// A solver other than BPP (PGS here) serves every island in turn, in
// island order: the step is solved by island, with the same bits under
// GOMAXPROCS 1 and 4, and each island's iterations are within the budget.
func TestIslandsSharedSolver(t *testing.T) {
	run := func(procs int) []uint64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w := islandScene(t)
		w.Settings.Solver = &lcp.PGS{}
		w.Settings.Budget = 50
		var bits []uint64
		for range 60 {
			st, err := w.Step()
			require.NoError(t, err)
			require.NotEmpty(t, st.Islands)
			for _, is := range st.Islands {
				require.LessOrEqual(t, is.Iterations, 50)
			}
			bits = stateBits(bits, w)
		}
		return bits
	}
	assert.Equal(t, run(1), run(4))
}

// Rows that name no dynamic body (a soft hinge between the world and a
// kinematic body that pulls away from it at 0.1 m/s) are one more problem
// by island, reported last with Body −1. Their block of A is their
// compliance C alone, diagonal, so x = −bᵢ/Aᵢᵢ exactly: by island their
// own positive definite problem gives it to 1e-12 relative; as one
// problem with the stacks, whose redundant contacts make A semidefinite,
// the proximal regularization of lcp.BPP stops at its tolerance and gives
// it to 1.0e-6 relative (asserted 1e-5). The spring stretches: x ≠ 0.
func TestIslandsLooseRows(t *testing.T) {
	build := func(single bool) *stepper.World {
		w, err := stepper.New(awakeSettings())
		require.NoError(t, err)
		w.Settings.SingleProblem = single
		ground(t, w, mgl64.QuatIdent(), 0.5)
		boxStack(t, w, 0, 0, 3)
		boxStack(t, w, 2, 0, 3)
		k, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.2, 0.2, 0.2), Pos: mgl64.Vec3{5, 0, 1}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		k.Kinematic = true
		k.Vel = mgl64.Vec3{0.1, 0, 0}
		id, err := w.AddBody(k)
		require.NoError(t, err)
		j, err := constraint.NewHinge(w.Bodies, constraint.World, id, mgl64.Vec3{5, 0, 1}, mgl64.Vec3{0, 0, 1})
		require.NoError(t, err)
		require.NoError(t, j.SetSoft(1e4, 0))
		require.NoError(t, w.AddConstraint(j))
		return w
	}
	split, single := build(false), build(true)
	for range 60 {
		st, err := split.Step()
		require.NoError(t, err)
		_, err = single.Step()
		require.NoError(t, err)
		require.Len(t, st.Islands, 3, "two stacks and the loose rows")
		loose := st.Islands[2]
		require.Equal(t, stepper.IslandStats{Body: -1, Bodies: 0, Rows: 5, Iterations: loose.Iterations, Status: lcp.Converged, Picked: loose.Picked, Bound: loose.Bound}, loose)
		xs, _ := split.LastSolution()
		x1, _ := single.LastSolution()
		p := split.LastProblem()
		for i := range 5 { // the joint's rows come first
			exact := -p.B[i] / p.A.At(i, i)
			assert.InDelta(t, exact, xs[i], 1e-12*math.Abs(exact), "row %d by island", i)
			assert.InDelta(t, exact, x1[i], 1e-5*math.Abs(exact), "row %d as one problem", i)
		}
	}
	xs, _ := split.LastSolution()
	assert.NotZero(t, xs[0]+xs[1]+xs[2], "the stretched spring pulls")
}

// A done Settings.Context cancels every island's solve: the step completes
// with each island's best iterate so far, Stats.Status and every island's
// status lcp.Canceled, and Step's error wraps context.Canceled; a Stopper
// Observer stops the islands it watches (each solves in turn), and Step's
// error wraps lcp.ErrStopped.
func TestIslandsCancelAndStop(t *testing.T) {
	w := islandScene(t)
	for range 10 {
		_, err := w.Step()
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w.Settings.Context = ctx
	st, err := w.Step()
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 11, w.Steps(), "the step completed")
	assert.Equal(t, lcp.Canceled, st.Status)
	require.Len(t, st.Islands, 4)
	for _, is := range st.Islands {
		assert.Equal(t, lcp.Canceled, is.Status, "island %d", is.Body)
	}
	w.Settings.Context = nil
	errEnough := errors.New("enough")
	w.Settings.Observer = lcp.NewStopper(func(lcp.Iterate) error { return errEnough })
	w.Settings.Solver = &lcp.PGS{} // far from converged after one sweep
	st, err = w.Step()
	require.ErrorIs(t, err, lcp.ErrStopped)
	require.ErrorIs(t, err, errEnough)
	assert.Equal(t, lcp.Stopped, st.Status)
	assert.Equal(t, 1, st.Iterations, "every island stopped after its first sweep")
	for _, b := range w.Bodies {
		require.NoError(t, b.Validate())
	}
}

// With a budget of one block pivot, most islands stop unconverged and the
// safeguard moves those that would add energy towards their rows' last
// impulses (anchor) in the workers: the same bits under GOMAXPROCS 1 and
// 4, and no step adds more energy than the largest step of the scene
// solved as one problem under the same budget (0.143 J both, measured;
// the safeguard moved 11 steps' answers by island, 47 as one problem).
// The scene is frictionless here: no step then runs the new-contact
// pre-solve, whose x starts the main solve (lcp.Settings.Reference) and
// lets the stacks' islands converge within their one block pivot on the
// steps where their contacts appear, so that with friction the safeguard
// finds nothing to move by island (0 steps of 120, 48 as one problem).
func TestIslandsSafeguard(t *testing.T) {
	run := func(procs int, single bool) (bits []uint64, guarded int, gain float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		w := islandScene(t)
		for i := range w.Geoms {
			w.Geoms[i].Material.Friction = 0
		}
		w.Settings.Budget = 1
		w.Settings.SingleProblem = single
		for range 120 {
			st, err := w.Step()
			require.NoError(t, err)
			if st.Safeguard.Gain > 0 {
				guarded++
			}
			gain = math.Max(gain, st.EnergyAdded)
		}
		return stateBits(nil, w), guarded, gain
	}
	one, guarded, gain := run(1, false)
	four, _, _ := run(4, false)
	_, singleGuarded, singleGain := run(1, true)
	t.Logf("safeguard moved %d steps by island, %d as one problem; largest step gain %.4g J and %.4g J", guarded, singleGuarded, gain, singleGain)
	assert.Equal(t, one, four)
	assert.Positive(t, guarded, "steps the safeguard moved")
	assert.LessOrEqual(t, gain, singleGain*(1+1e-9))
}

// awakeSettings are DefaultSettings with sleeping off: the island tests
// compare islands that are solved, and DefaultSettings would put the
// settled stacks to sleep (no rows, no islands) half a second in.
func awakeSettings() stepper.Settings {
	s := stepper.DefaultSettings()
	s.Sleep.On = false
	return s
}
