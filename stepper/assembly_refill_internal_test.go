package stepper

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/stretchr/testify/require"
)

// Assemble refills A (lcp.Sparse.Refill) when the rows touch the same
// bodies as at the last assembly: over four "steps" with new Jacobians,
// compliances and body velocities the refilled A equals a fresh
// Assembly's bit for bit, entry by entry; a refill does not allocate. A
// body turned kinematic, a row dropped and a MassMatrix in between each
// record A's calls again (no refill), still equal to a fresh assembly,
// whose first fill equals A recorded call by call (recordedA).
func TestAssembleRefillsSameBits(t *testing.T) {
	turn := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	var bodies []*body.Body
	for i, p := range []body.Params{
		{Mass: 2, Inertia: body.BoxInertia(2, 0.4, 0.2, 0.1), Pos: mgl64.Vec3{0, 0, 1}, Rot: turn},
		{Mass: 0.5, Inertia: body.BoxInertia(0.5, 0.1, 0.1, 0.3), Pos: mgl64.Vec3{1, 0, 1}, Rot: mgl64.QuatIdent()},
		{Mass: 1, Inertia: body.BoxInertia(1, 1, 1, 1), Pos: mgl64.Vec3{0, 0, -1}, Rot: mgl64.QuatIdent(), Static: true},
		{Mass: 40, Inertia: body.BoxInertia(40, 1, 0.5, 2), Pos: mgl64.Vec3{0, 2, 0}, Rot: turn.Mul(turn)},
	} {
		b, err := body.New(p)
		require.NoError(t, err, "body %d", i)
		bodies = append(bodies, b)
	}
	set := Settings{H: 0.01, Gravity: StandardGravity}
	rng := rand.New(rand.NewPCG(26, 5))
	pairs := [][]int{{0}, {0, 1}, {1, 2}, {3, 2}, {0, 3}, {1, 0}, {3}}
	rows := make([]constraint.Row, 2*len(pairs))
	fill := func() {
		for i := range rows {
			r := &rows[i]
			r.Reset(constraint.ContactNormal)
			for _, bi := range pairs[i%len(pairs)] {
				var lin, ang mgl64.Vec3
				for k := 0; k < 3; k++ {
					lin[k], ang[k] = rng.NormFloat64(), rng.NormFloat64()
				}
				r.AddBody(bi, lin, ang)
			}
			r.Lo, r.Hi = 0, math.Inf(1)
			if i%3 == 1 {
				r.Stiffness = 1e3 * (1 + rng.Float64())
			}
		}
		for _, b := range bodies {
			b.Vel = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
	}
	var asm Assembly
	var m Mass
	same := func(step int, refilled bool) {
		t.Helper()
		var fresh Assembly
		var fm Mass
		fm.Update(bodies, set.H, set.Gravity)
		require.NoError(t, fresh.Assemble(&set, &fm, rows))
		require.Equal(t, refilled, asm.refilling && !asm.filled, "step %d: refilled", step)
		require.True(t, fresh.filled, "step %d: a new Assembly builds A's pattern from its cliques", step)
		requireSameA(t, &fresh, recordedA(t, &set, &fm, rows), fmt.Sprintf("step %d: first fill against recorded calls", step))
		// The count Grow sizes A's records by is the number of calls made.
		require.Equal(t, fresh.rec, fresh.records(&fm), "step %d: records", step)
		require.Equal(t, fresh.A.NNZ(), asm.A.NNZ(), "step %d", step)
		for i := range rows {
			for j := range rows {
				require.Equal(t, math.Float64bits(fresh.A.At(i, j)), math.Float64bits(asm.A.At(i, j)), "step %d: A[%d][%d]", step, i, j)
			}
		}
	}
	fill()
	m.Update(bodies, set.H, set.Gravity)
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(0, false)
	for step := 1; step <= 3; step++ {
		fill()
		m.Update(bodies, set.H, set.Gravity)
		require.NoError(t, asm.Assemble(&set, &m, rows))
		same(step, true)
	}
	allocs := testing.AllocsPerRun(5, func() {
		require.NoError(t, asm.Assemble(&set, &m, rows))
	})
	require.Zero(t, allocs, "a refilled assembly")

	// A body turned kinematic: its pairs leave A.
	bodies[3].Kinematic = true
	fill()
	m.Update(bodies, set.H, set.Gravity)
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(4, false)
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(5, true)
	bodies[3].Kinematic = false

	// A row dropped.
	rows = rows[:len(rows)-1]
	fill()
	m.Update(bodies, set.H, set.Gravity)
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(6, false)

	// MassMatrix records A without C: the next Assemble records again.
	require.NoError(t, asm.MassMatrix(&m, rows))
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(7, false)
	fill()
	m.Update(bodies, set.H, set.Gravity)
	require.NoError(t, asm.Assemble(&set, &m, rows))
	same(8, true)
}
