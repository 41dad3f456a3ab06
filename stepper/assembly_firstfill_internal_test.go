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

// recordedA assembles A = J M⁻¹ Jᵀ + C of rows the way Assemble did
// before its first fill built A's pattern from the bodies' rows
// (firstFill): every call recorded by lcp.Sparse.Add, in Assemble's order
// (each dynamic body's row pairs, then each row's compliance), and
// compressed by Finish. It is the reference the first fill must equal.
func recordedA(t testing.TB, s *Settings, m *Mass, rows []constraint.Row) *Assembly {
	t.Helper()
	a, err := recordedAssembly(s, m, rows)
	require.NoError(t, err)
	return a
}

// requireSameA requires got.A and want.A to hold the same pattern and
// the same bits (sameA).
func requireSameA(t testing.TB, got, want *Assembly, msg string) {
	t.Helper()
	require.NoError(t, sameA(got, want, msg))
}

// recordedAssembly is recordedA's assembly.
func recordedAssembly(s *Settings, m *Mass, rows []constraint.Row) (*Assembly, error) {
	var a Assembly
	if err := checkRows(rows, len(m.Bodies)); err != nil {
		return nil, err
	}
	a.massMatrix(m, rows, false)
	for i := range rows {
		c, _, _ := rows[i].Compliance(s.H)
		a.A.Add(i, i, c)
	}
	a.A.Finish()
	return &a, nil
}

// sameA reports an error unless got.A and want.A hold the same number of
// entries and every entry that a row pair sharing a body can hold (the
// pattern of J M⁻¹ Jᵀ + C) is the same bits in both.
func sameA(got, want *Assembly, msg string) error {
	if g, w := got.A.NNZ(), want.A.NNZ(); g != w {
		return fmt.Errorf("%s: %d entries, want %d", msg, g, w)
	}
	n, _ := want.A.Dims()
	for i := range n {
		if g, w := got.A.At(i, i), want.A.At(i, i); math.Float64bits(g) != math.Float64bits(w) {
			return fmt.Errorf("%s: A[%d][%d] = %v, want %v", msg, i, i, g, w)
		}
	}
	for _, list := range want.byBody {
		for _, p := range list {
			for _, q := range list {
				if g, w := got.A.At(p.row, q.row), want.A.At(p.row, q.row); math.Float64bits(g) != math.Float64bits(w) {
					return fmt.Errorf("%s: A[%d][%d] = %v, want %v", msg, p.row, q.row, g, w)
				}
			}
		}
	}
	return nil
}

// massRecorded is J M⁻¹ Jᵀ of rows recorded call by call (massMatrix's
// Add calls and Finish), MassMatrix's reference.
func massRecorded(m *Mass, rows []constraint.Row) *Assembly {
	var a Assembly
	a.massMatrix(m, rows, false)
	a.A.Finish()
	return &a
}

// MassMatrix builds A = J M⁻¹ Jᵀ from the bodies' rows on its first call
// and refills it while the layout stays, equal bit for bit to the same
// calls recorded and compressed (massRecorded); after the projection's
// regularized fallback (massMatrix's recorded calls, a shift added to
// the diagonal, Finish) the next MassMatrix is the reference again, and
// an Assemble in between builds its own pattern (with the diagonal's
// records), not a refill of MassMatrix's.
func TestMassMatrixFirstFillSameBits(t *testing.T) {
	set, bodies, rows, fill := refillFixture(t)
	var asm Assembly
	var m Mass
	for step := range 4 {
		fill()
		m.Update(bodies, set.H, set.Gravity)
		require.NoError(t, asm.MassMatrix(&m, rows))
		// Built at first and after the fallback's and Assemble's
		// patterns, refilled at step 1.
		require.Equal(t, step != 1, asm.filled, "step %d: built or refilled", step)
		requireSameA(t, &asm, massRecorded(&m, rows), fmt.Sprintf("step %d", step))
		switch step {
		case 1: // the projection's fallback
			asm.massMatrix(&m, rows, false)
			for i := range rows {
				asm.A.Add(i, i, 1e-8)
			}
			asm.A.Finish()
		case 2:
			require.NoError(t, asm.Assemble(set, &m, rows))
			require.True(t, asm.filled, "Assemble after MassMatrix: its own pattern")
			requireSameA(t, &asm, recordedA(t, set, &m, rows), "Assemble after MassMatrix")
		}
	}
}

// refillFixture returns three bodies (one static), 18 rows on them (one
// naming a body twice, one on the static body alone) and fill, which
// gives the rows new random Jacobians and compliances.
func refillFixture(t *testing.T) (*Settings, []*body.Body, []constraint.Row, func()) {
	var bodies []*body.Body
	for i, p := range []body.Params{
		{Mass: 2, Inertia: body.BoxInertia(2, 0.4, 0.2, 0.1), Pos: mgl64.Vec3{0, 0, 1}, Rot: mgl64.QuatRotate(0.7, mgl64.Vec3{0, 0, 1})},
		{Mass: 0.5, Inertia: body.BoxInertia(0.5, 0.1, 0.1, 0.3), Pos: mgl64.Vec3{1, 0, 1}, Rot: mgl64.QuatIdent()},
		{Mass: 1, Inertia: body.BoxInertia(1, 1, 1, 1), Pos: mgl64.Vec3{0, 0, -1}, Rot: mgl64.QuatIdent(), Static: true},
	} {
		b, err := body.New(p)
		require.NoError(t, err, "body %d", i)
		bodies = append(bodies, b)
	}
	rng := rand.New(rand.NewPCG(25, 11))
	pairs := [][]int{{0}, {0, 1}, {1, 2}, {0, 0}, {2}, {1, 0}}
	rows := make([]constraint.Row, 3*len(pairs))
	fill := func() {
		for i := range rows {
			r := &rows[i]
			r.Reset(constraint.ContactNormal)
			for _, bi := range pairs[i%len(pairs)] {
				r.AddBody(bi, mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()},
					mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
			}
			r.Lo, r.Hi = 0, math.Inf(1)
			if i%3 == 1 {
				r.Stiffness = 1e3 * (1 + rng.Float64())
			}
		}
	}
	return &Settings{H: 0.01, Gravity: StandardGravity}, bodies, rows, fill
}
