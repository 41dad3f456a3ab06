package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/require"
)

// lazyWalls returns two 30-brick walls (DefaultBrickWallParams, 12 rows),
// set by set, the second filling A at every Assemble (stepper.SetEagerA).
func lazyWalls(t *testing.T, set func(*stepper.Settings)) (lazy, eager *stepper.World) {
	t.Helper()
	var ws [2]*stepper.World
	for k := range ws {
		p := scenes.DefaultBrickWallParams()
		p.Rows = 12
		if set != nil {
			set(&p.Settings)
		}
		w, err := scenes.BrickWall(p)
		require.NoError(t, err)
		ws[k] = w
	}
	stepper.SetEagerA(ws[1])
	return ws[0], ws[1]
}

// stepSame steps lazy and eager n times and requires the same state
// (stepper.StateHash) after each step.
// It returns the steps whose solve hit the budget.
func stepSame(t *testing.T, lazy, eager *stepper.World, n int, msg string) (hits int) {
	t.Helper()
	for k := range n {
		for _, w := range []*stepper.World{lazy, eager} {
			st, err := w.Step()
			require.NoError(t, err)
			if w == lazy && st.BudgetHit {
				hits++
			}
		}
		require.Equal(t, stepper.StateHash(eager), stepper.StateHash(lazy), "%s: step %d", msg, k+1)
	}
	return hits
}

// requireSameEntries checks a and b entry by entry, bit for bit (At,
// which fills a deferred A).
func requireSameEntries(t *testing.T, a, b lcp.Matrix, msg string) {
	t.Helper()
	n, _ := a.Dims()
	m, _ := b.Dims()
	require.Equal(t, m, n, msg)
	for i := range n {
		for j := range n {
			if x, y := a.At(i, j), b.At(i, j); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("%s: A[%d][%d] = %v, want %v", msg, i, j, x, y)
			}
		}
	}
}

// lazyPyramids returns two 55-brick pyramids (DefaultPyramidParams, base
// 10), the second filling A at every Assemble (stepper.SetEagerA).
func lazyPyramids(t *testing.T) (lazy, eager *stepper.World) {
	t.Helper()
	var ws [2]*stepper.World
	for k := range ws {
		p := scenes.DefaultPyramidParams()
		p.Base = 10
		w, err := scenes.Pyramid(p)
		require.NoError(t, err)
		ws[k] = w
	}
	stepper.SetEagerA(ws[1])
	return ws[0], ws[1]
}

// The 55-brick pyramid's steady steps, solved in body space (lcp.KKT),
// never read A's values off its diagonal: after 30 steps of settling, 30
// steps each put them off (LazyACounts' deferred 30) and none fills them
// (filled 0), every step's state (StateHash: bodies, x, w, index sets,
// warm starts, contact memory) bit for bit that of a pyramid whose A is
// filled at every Assemble. After such a step a user's A (LastProblem)
// is that pyramid's bit for bit, its diagonal read without a fill, the
// rest filled once on the first read off it; the next step puts A off
// again.
func TestLazyAPyramidSteadySkipsFill(t *testing.T) {
	lazy, eager := lazyPyramids(t)
	stepSame(t, lazy, eager, 30, "settling")
	stepper.ResetLazyACounts(lazy)
	stepSame(t, lazy, eager, 30, "steady")
	d, f := stepper.LazyACounts(lazy)
	require.Equal(t, 30, d, "steady Assembles that put A off")
	require.Equal(t, 0, f, "fills on steady steps")
	d, _ = stepper.LazyACounts(eager)
	require.Zero(t, d, "the eager pyramid puts nothing off")
	require.True(t, stepper.APending(lazy))

	pl, pe := lazy.LastProblem(), eager.LastProblem()
	n := pl.N()
	require.Greater(t, n, 1000, "the pyramid's rows")
	for i := range n {
		require.Equal(t, math.Float64bits(pe.A.At(i, i)), math.Float64bits(pl.A.At(i, i)), "A[%d][%d]", i, i)
	}
	require.True(t, stepper.APending(lazy), "the diagonal needs no fill")
	requireSameEntries(t, pl.A, pe.A, "after a steady step")
	_, f = stepper.LazyACounts(lazy)
	require.Equal(t, 1, f, "one fill")
	require.False(t, stepper.APending(lazy))

	stepSame(t, lazy, eager, 1, "after the user's read")
	require.True(t, stepper.APending(lazy))
}

// The 30-brick wall's steady steps never read A's values off its
// diagonal: BPP solves every face in body space (lcp.KKT), and the Solve
// that tests the unshifted face after lcp's inherited regularized ones
// (one steady step in nine) finds that face singular by its structure
// (lcp.Problem.RedundantRigid: bricks on four coplanar contact points)
// and enters regularized mode without factoring the dual A, which would
// fill it. After 60 steps of settling, 90 steady steps each put A off
// (deferred 90) and none fills it (filled 0; 10 did when that Solve
// factored the dual), as it is and under a budget of 2 block pivots;
// every step's state is that of a wall whose A is filled at every
// Assemble (StateHash).
func TestLazyAWallSteadySkipsFill(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*stepper.Settings)
		hit  bool
	}{
		{"default", nil, false},
		{"budget", func(s *stepper.Settings) { s.Budget = 2 }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			lazy, eager := lazyWalls(t, c.set)
			hits := stepSame(t, lazy, eager, 60, c.name+" settling")
			stepper.ResetLazyACounts(lazy)
			hits += stepSame(t, lazy, eager, 90, c.name+" steady")
			require.Equal(t, c.hit, hits > 0, "steps that hit the budget: %d", hits)
			d, f := stepper.LazyACounts(lazy)
			require.Equal(t, 90, d, "steady Assembles that put A off")
			require.Zero(t, f, "fills on steady steps")
		})
	}
}

// A box dropped onto the resting 55-brick pyramid: the steps of its
// landing read A (fills > 0), and every step's state is that of the
// pyramid that fills A at every Assemble (StateHash), over the 40 steps
// after the drop, the box at rest on the top brick at the end.
func TestLazyAPyramidDropFills(t *testing.T) {
	lazy, eager := lazyPyramids(t)
	stepSame(t, lazy, eager, 30, "settling")
	shape, err := contact.NewBoxSize(mgl64.Vec3{0.2, 0.2, 0.2})
	require.NoError(t, err)
	for _, w := range []*stepper.World{lazy, eager} {
		top := w.Bodies[len(w.Bodies)-1].Pos
		b, err := body.New(body.Params{Mass: 2, Inertia: body.BoxInertia(2, 0.2, 0.2, 0.2),
			Pos: top.Add(mgl64.Vec3{0.05, 0, 0.5}), Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize())})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: stepper.Material{Friction: 0.5}})
		require.NoError(t, err)
	}
	stepper.ResetLazyACounts(lazy)
	z0 := lazy.Bodies[len(lazy.Bodies)-1].Pos.Z()
	for k := range 40 {
		for _, w := range []*stepper.World{lazy, eager} {
			_, err := w.Step()
			require.NoError(t, err)
		}
		require.Equal(t, stepper.StateHash(eager), stepper.StateHash(lazy), "step %d after the drop", k+1)
	}
	z := lazy.Bodies[len(lazy.Bodies)-1].Pos.Z()
	require.Less(t, z, z0-0.3, "the box fell onto the pyramid")
	_, f := stepper.LazyACounts(lazy)
	require.Positive(t, f, "fills after the drop")
}

// Step 1 of a scene built at rest reads no value of A off its diagonal:
// the pre-solve's seed sweeps run in body space, its block pivoting and
// the main solve's factor in body space, the new contacts' starts read
// A's diagonal alone. On the 55-brick pyramid and the 30-brick wall the
// first fill of the new layout is put off (deferred 1) and never filled
// (filled 0), and the step's state (StateHash) is that of the same scene
// filling A at once.
func TestLazyAStep1SkipsFill(t *testing.T) {
	lazyP, eagerP := lazyPyramids(t)
	lazyW, eagerW := lazyWalls(t, nil)
	for _, c := range []struct {
		name        string
		lazy, eager *stepper.World
	}{{"pyramid", lazyP, eagerP}, {"wall", lazyW, eagerW}} {
		stepSame(t, c.lazy, c.eager, 1, c.name)
		d, f := stepper.LazyACounts(c.lazy)
		require.Equal(t, 1, d, "%s: the first fill put off", c.name)
		require.Zero(t, f, "%s: fills on step 1", c.name)
		require.True(t, stepper.APending(c.lazy), c.name)
	}
}
