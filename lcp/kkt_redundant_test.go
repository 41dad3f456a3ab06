package lcp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// restingBoxKKT returns the KKT of a 0.4 × 0.2 × 0.1 m box of 2 kg resting
// on the ground (a static body: one dynamic body per row) at the given
// corners of its bottom face, each with the rows of dirs (unit directions
// in world axes): J = [d, r × d] for the corner's offset r from the
// centre.
func restingBoxKKT(corners [][2]float64, dirs [][3]float64) *KKT {
	m, ix, iy, iz := 2.0, 2.0*(0.04+0.01)/12, 2.0*(0.16+0.01)/12, 2.0*(0.16+0.04)/12
	var mass [36]float64
	for r, v := range []float64{m, m, m, ix, iy, iz} {
		mass[7*r] = v
	}
	k := &KKT{Mass: [][36]float64{mass}}
	for _, c := range corners {
		r := [3]float64{c[0], c[1], -0.05}
		for _, d := range dirs {
			w := [3]float64{r[1]*d[2] - r[2]*d[1], r[2]*d[0] - r[0]*d[2], r[0]*d[1] - r[1]*d[0]}
			k.Body = append(k.Body, [2]int32{0, -1})
			k.J = append(k.J, [2][6]float64{{d[0], d[1], d[2], w[0], w[1], w[2]}})
			k.C = append(k.C, 0)
		}
	}
	return k
}

// RedundantRigid on the faces a resting box makes: the normal rows of four
// coplanar corners have rank 3 (a force along the normal and the two
// tilting torques), of three corners rank 3 as well, so four are dependent
// and three are not; with box friction (three rows a corner) two corners
// give 6 rows of rank 5 (no rotation about the line through them is
// resisted), one corner 3 of rank 3. A compliant row, a row pinned at
// l = u and a row starting at its bound are outside the test, so each of
// those leaves the three others of the four normals independent.
func TestRedundantRigid(t *testing.T) {
	corners := [][2]float64{{0.2, 0.1}, {-0.2, 0.1}, {-0.2, -0.1}, {0.2, -0.1}}
	normal := [][3]float64{{0, 0, 1}}
	friction := [][3]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}}
	problem := func(k *KKT) (*Problem, []State) {
		n := k.N()
		p := &Problem{KKT: k, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
		st := make([]State, n)
		for i := range st {
			p.Hi[i], st[i] = math.Inf(1), Free
		}
		return p, st
	}
	for _, c := range []struct {
		name      string
		k         *KKT
		redundant bool
	}{
		{"four normals", restingBoxKKT(corners, normal), true},
		{"three normals", restingBoxKKT(corners[:3], normal), false},
		{"two corners with friction", restingBoxKKT(corners[:2], friction), true},
		{"one corner with friction", restingBoxKKT(corners[:1], friction), false},
	} {
		p, st := problem(c.k)
		require.NoError(t, c.k.Validate(c.k.N()), c.name)
		assert.Equal(t, c.redundant, p.RedundantRigid(st), c.name)
	}
	p, st := problem(restingBoxKKT(corners, normal))
	p.KKT.C[2] = 1e-6
	assert.False(t, p.RedundantRigid(st), "a compliant row")
	p, st = problem(restingBoxKKT(corners, normal))
	p.Hi[1] = 0
	assert.False(t, p.RedundantRigid(st), "a pinned row")
	p, st = problem(restingBoxKKT(corners, normal))
	st[3] = AtLower
	assert.False(t, p.RedundantRigid(st), "a row at its bound")
	p, st = problem(restingBoxKKT(corners, normal))
	p.KKT = nil
	assert.False(t, p.RedundantRigid(st), "no KKT")
}

// Settings.Semidefinite on a face that is singular and inconsistent (four
// rigid normals under a box whose corners ask for velocities no rigid
// motion gives): without it the unregularized face is factored, fails to
// refine, and BPP enters regularized mode on the same face from x_F = 0;
// with it BPP starts there. The answer is the same bits and the same
// iterations, and the failed face is gone.
func TestSemidefiniteHintSkipsTheFailedFace(t *testing.T) {
	k := restingBoxKKT([][2]float64{{0.2, 0.1}, {-0.2, 0.1}, {-0.2, -0.1}, {0.2, -0.1}}, [][3]float64{{0, 0, 1}})
	n := k.N()
	a := kktSparse(k, denseA(k, inverses(t, k)))
	// A falling box (−1 m/s) whose corners' position corrections differ
	// by a twist of the bottom face, outside the rigid motions' range.
	b := []float64{-1, -1.01, -1, -1.01}
	lo, hi := make([]float64, n), make([]float64, n)
	start := make([]State, n)
	for i := range hi {
		hi[i], start[i] = math.Inf(1), Free
	}
	p := &Problem{A: a, B: b, Lo: lo, Hi: hi, KKT: k}
	require.True(t, p.RedundantRigid(start))
	solve := func(hint bool) (*BPP, Result) {
		s := &BPP{kktPath: kktForce}
		var r Result
		require.NoError(t, s.Solve(&r, p, Settings{Start: start, Semidefinite: hint}))
		return s, r
	}
	s1, r1 := solve(false)
	s2, r2 := solve(true)
	assert.True(t, s1.reg)
	assert.True(t, s2.reg)
	assert.Equal(t, 1, s1.kkt.fallbacks, "without the hint: the unregularized face fails")
	assert.Zero(t, s2.kkt.fallbacks, "with it: no failed face")
	assert.Equal(t, r1.Status, r2.Status)
	assert.Equal(t, r1.Iterations, r2.Iterations)
	assert.Equal(t, r1.X, r2.X, "the same face from the same point: the same bits")
}
