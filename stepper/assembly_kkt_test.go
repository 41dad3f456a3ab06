package stepper_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// Assembly.KKT describes A: J M⁻¹ Jᵀ + C from its blocks (M inverted
// here) equals Assemble's A to rounding (relative 1e-12 of the row's
// diagonal: A uses m⁻¹ and R I⁻¹ Rᵀ, KKT m and R I Rᵀ), for rows on
// dynamic, static and kinematic bodies, compliant and rigid; only the three
// dynamic bodies with rows have columns, in body order. A row on three
// dynamic bodies, and MassMatrix, leave Problem without a KKT; a second
// Assemble of the same rows does not allocate.
func TestAssemblyKKTDescribesA(t *testing.T) {
	bodies := assemblyBodies(t) // dynamic 0, 1, 4; static 2; kinematic 3
	set := stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity}
	rng := rand.New(rand.NewPCG(25, 1))
	pairs := [][]int{{0}, {0, 1}, {1, 2}, {4, 3}, {2, 4}, {0, 4}, {3}, {1, 0}}
	rows := make([]constraint.Row, 3*len(pairs))
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
			r.Stiffness = 1e4
		}
	}
	var m stepper.Mass
	m.Update(bodies, set.H, set.Gravity)
	var asm stepper.Assembly
	require.NoError(t, asm.Assemble(&set, &m, rows))
	p := asm.Problem()
	require.NotNil(t, p.KKT)
	assert.True(t, p.KKTAssembled, "A is assembled from the KKT's rows and masses (checked below)")
	k := p.KKT
	require.NoError(t, k.Validate(len(rows)))
	require.Len(t, k.Mass, 3, "the dynamic bodies with rows")
	assert.Equal(t, bodies[0].Mass, k.Mass[0][0])
	assert.Equal(t, bodies[1].Mass, k.Mass[1][0])
	assert.Equal(t, bodies[4].Mass, k.Mass[2][0])
	minv := make([]*mat.Dense, len(k.Mass))
	for b := range k.Mass {
		minv[b] = mat.NewDense(6, 6, nil)
		require.NoError(t, minv[b].Inverse(mat.NewDense(6, 6, append([]float64(nil), k.Mass[b][:]...))))
	}
	n := len(rows)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for si, bi := range k.Body[i] {
				for sj, bj := range k.Body[j] {
					if bi < 0 || bi != bj {
						continue
					}
					for r := 0; r < 6; r++ {
						for c := 0; c < 6; c++ {
							s += k.J[i][si][r] * minv[bi].At(r, c) * k.J[j][sj][c]
						}
					}
				}
			}
			if i == j {
				s += k.C[i]
			}
			require.InDelta(t, asm.A.At(i, j), s, 1e-12*asm.A.At(i, i), "A[%d][%d]", i, j)
		}
	}
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = asm.Assemble(&set, &m, rows) }))

	three := append(rows[:0:0], rows...)
	three[0].Reset(constraint.Gear)
	three[0].AddBody(0, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0})
	three[0].AddBody(1, mgl64.Vec3{}, mgl64.Vec3{0, 1, 0})
	three[0].AddBody(4, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	require.NoError(t, asm.Assemble(&set, &m, three))
	assert.Nil(t, asm.Problem().KKT, "a row on three dynamic bodies")
	require.NoError(t, asm.Assemble(&set, &m, rows))
	require.NotNil(t, asm.Problem().KKT)
	require.NoError(t, asm.MassMatrix(&m, rows))
	assert.Nil(t, asm.Problem().KKT, "MassMatrix: A has no compliance")
	assert.False(t, asm.Problem().KKTAssembled, "MassMatrix: nothing vouched for")
}
