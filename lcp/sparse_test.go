package lcp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mbRow is one constraint row of a synthetic multibody system: Jacobian
// blocks on up to two bodies (body −1 is the static ground) and bounds.
type mbRow struct {
	body   [2]int
	jac    [2][6]float64
	lo, hi float64
}

// mbProblem assembles A = J M⁻¹ Jᵀ + C and b = J v + noise for rows on bodies
// with random inverse masses, as the stepper does, into a *Sparse (one Add
// per unordered row pair per shared body, so rows sharing two bodies get
// duplicate Adds) and the same matrix as a *Dense.
func mbProblem(rng *rand.Rand, nbodies int, rows []mbRow, compliance float64) (sp, dn *Problem) {
	n := len(rows)
	minv := make([][6]float64, nbodies)
	v := make([][6]float64, nbodies)
	for b := range minv {
		for k := 0; k < 6; k++ {
			minv[b][k] = 0.5 + rng.Float64()
			v[b][k] = rng.NormFloat64()
		}
	}
	type use struct{ row, side int }
	byBody := make([][]use, nbodies)
	for r, row := range rows {
		for side, b := range row.body {
			if b >= 0 {
				byBody[b] = append(byBody[b], use{r, side})
			}
		}
	}
	var a Sparse
	a.Reset(n)
	d := NewDense(n, n, nil)
	for b, us := range byBody {
		for x, u := range us {
			for _, w := range us[x:] {
				s := 0.0
				for k := 0; k < 6; k++ {
					s += rows[u.row].jac[u.side][k] * minv[b][k] * rows[w.row].jac[w.side][k]
				}
				a.Add(u.row, w.row, s)
				d.Add(u.row, w.row, s)
				if u.row != w.row {
					d.Add(w.row, u.row, s)
				}
			}
		}
	}
	bv := make([]float64, n)
	for r, row := range rows {
		c := compliance * (0.5 + rng.Float64())
		a.Add(r, r, c)
		d.Add(r, r, c)
		for side, b := range row.body {
			if b >= 0 {
				for k := 0; k < 6; k++ {
					bv[r] += row.jac[side][k] * v[b][k]
				}
			}
		}
		bv[r] += 0.1 * rng.NormFloat64()
	}
	a.Finish()
	lo, hi := make([]float64, n), make([]float64, n)
	for r, row := range rows {
		lo[r], hi[r] = row.lo, row.hi
	}
	sp = &Problem{A: &a, B: bv, Lo: lo, Hi: hi}
	dn = &Problem{A: d, B: append([]float64(nil), bv...), Lo: append([]float64(nil), lo...), Hi: append([]float64(nil), hi...)}
	return sp, dn
}

func randJac(rng *rand.Rand) (j [6]float64) {
	for k := range j {
		j[k] = rng.NormFloat64()
	}
	return j
}

// chainRows is a chain of links hinged to each other and the first to the
// ground: five rows per hinge, A block tridiagonal. A fraction of the rows
// are joint limits or motors (boxed or one-sided) so that BPP pivots.
func chainRows(rng *rand.Rand, links int) []mbRow {
	var rows []mbRow
	for k := 0; k < links; k++ {
		for r := 0; r < 5; r++ {
			row := mbRow{body: [2]int{k - 1, k}, jac: [2][6]float64{randJac(rng), randJac(rng)}, lo: -inf, hi: inf}
			switch u := rng.IntN(10); {
			case u < 2:
				row.lo, row.hi = -0.3, 0.3 // motor with a torque limit
			case u < 3:
				row.lo, row.hi = 0, inf // joint limit
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// wallRows is a staggered brick wall of levels × perLevel bricks standing on
// the ground, with contacts (one normal and two box-friction rows each)
// between bricks side by side, each brick and the bricks below it, and the
// bottom bricks and the ground, cycling through the touching pairs until
// there are `contacts` contacts.
func wallRows(rng *rand.Rand, levels, perLevel, contacts int) ([]mbRow, int) {
	id := func(l, k int) int { return l*perLevel + k }
	var pairs [][2]int
	for l := 0; l < levels; l++ {
		for k := 0; k < perLevel; k++ {
			if l == 0 {
				pairs = append(pairs, [2]int{-1, id(l, k)})
			} else {
				pairs = append(pairs, [2]int{id(l-1, k), id(l, k)})
				if k+1 < perLevel {
					pairs = append(pairs, [2]int{id(l-1, k+1), id(l, k)})
				}
			}
			if k+1 < perLevel {
				pairs = append(pairs, [2]int{id(l, k), id(l, k+1)})
			}
		}
	}
	var rows []mbRow
	for c := 0; c < contacts; c++ {
		pr := pairs[c%len(pairs)]
		mu := 0.3 + 0.5*rng.Float64()
		for r := 0; r < 3; r++ {
			row := mbRow{body: pr, jac: [2][6]float64{randJac(rng), randJac(rng)}, lo: 0, hi: inf}
			if r > 0 {
				row.lo, row.hi = -mu, mu
			}
			rows = append(rows, row)
		}
	}
	return rows, levels * perLevel
}

// randomRows couples random pairs of nearby bodies with 1–6 rows of random
// kinds (as randomProblem's mixes).
func randomRows(rng *rand.Rand, nbodies, ncons int, kind genKind) []mbRow {
	var rows []mbRow
	for c := 0; c < ncons; c++ {
		b0 := rng.IntN(nbodies+1) - 1
		b1 := min(nbodies-1, max(0, b0+1+rng.IntN(3)))
		if b0 == b1 {
			b0 = -1
		}
		for r := 1 + rng.IntN(6); r > 0; r-- {
			row := mbRow{body: [2]int{b0, b1}, jac: [2][6]float64{randJac(rng), randJac(rng)}}
			switch u := rng.IntN(10); {
			case kind == genBilateral && u < 6, kind == genMixed && u < 2:
				row.lo, row.hi = -inf, inf
			case kind == genZeroWidth && u < 3:
				v := rng.NormFloat64()
				row.lo, row.hi = v, v
			case u < 5:
				row.lo, row.hi = 0, inf
			case u < 8:
				mu := 0.2 + rng.Float64()
				row.lo, row.hi = -mu, mu
			case u < 9:
				row.lo, row.hi = -inf, rng.Float64()
			default:
				row.lo, row.hi = -rng.Float64(), inf
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func sparseFromDense(d *Dense) *Sparse {
	n, _ := d.Dims()
	var s Sparse
	s.Reset(n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := d.At(i, j); v != 0 {
				s.Add(i, j, v)
			}
		}
	}
	s.Finish()
	return &s
}

func relMaxDiff(a, b []float64) float64 {
	d, s := 0.0, 1.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		s = math.Max(s, math.Abs(a[i]))
	}
	return d / s
}

func TestSparseMatchesDense(t *testing.T) {
	// At, MulVecTo and RowDot of a Sparse built with duplicates, in random
	// Add order, equal those of the dense matrix of the same sums.
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 7, 40, 300} {
		var s Sparse
		s.Reset(n)
		d := NewDense(n, n, nil)
		for t := 0; t < 3*n; t++ {
			i, j := rng.IntN(n), rng.IntN(n)
			// Dyadic values: every summation order gives the same bits.
			v := float64(rng.IntN(64)-32) / 8
			s.Add(i, j, v)
			d.Add(i, j, v)
			if i != j {
				d.Add(j, i, v)
			}
		}
		s.Finish()
		nnz := 0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				require.Equal(t, d.At(i, j), s.At(i, j), "n=%d A[%d][%d]", n, i, j)
				require.Equal(t, math.Float64bits(s.At(i, j)), math.Float64bits(s.At(j, i)), "exact symmetry")
			}
			cols, _ := s.row(i)
			nnz += len(cols)
			for k := 1; k < len(cols); k++ {
				require.Less(t, cols[k-1], cols[k], "sorted, no duplicates")
			}
		}
		assert.Equal(t, nnz, s.NNZ())
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		ws, wd := make([]float64, n), make([]float64, n)
		s.MulVecTo(ws, x)
		d.MulVecTo(wd, x)
		for i := 0; i < n; i++ {
			assert.InDelta(t, wd[i], ws[i], 1e-12*(1+math.Abs(wd[i])))
			assert.InDelta(t, d.RowDot(i, x), s.RowDot(i, x), 1e-12*(1+math.Abs(wd[i])))
		}
		assert.True(t, isSymmetric(&s, 0))
	}
}

func TestSparseBuilder(t *testing.T) {
	var s Sparse
	s.Reset(3)
	s.Add(0, 0, 2)
	s.Add(2, 0, -1)
	s.Add(0, 2, 0.5) // the same unordered pair: summed
	s.Add(1, 1, 0)   // an explicit zero stays in the pattern
	s.Finish()
	assert.Equal(t, 2.0, s.At(0, 0))
	assert.Equal(t, -0.5, s.At(0, 2))
	assert.Equal(t, -0.5, s.At(2, 0))
	assert.Equal(t, 0.0, s.At(1, 2))
	assert.Equal(t, 4, s.NNZ()) // (0,0), (0,2), (1,1), (2,0)
	v1 := s.version

	// The same pattern with other values keeps the version (BPP keeps its
	// ordering); Reset, Add and Finish do not allocate once grown.
	build := func(c float64) {
		s.Reset(3)
		s.Add(0, 0, 2*c)
		s.Add(2, 0, -c)
		s.Add(0, 2, 0.5)
		s.Add(1, 1, c)
		s.Finish()
	}
	build(3)
	assert.Equal(t, v1, s.version)
	assert.Equal(t, -2.5, s.At(2, 0))
	assert.Zero(t, testing.AllocsPerRun(10, func() { build(1) }))
	// A new pattern changes it.
	s.Reset(3)
	s.Add(1, 2, 1)
	s.Finish()
	assert.NotEqual(t, v1, s.version)
	// Add after Finish reopens the matrix.
	s.Add(0, 1, 1)
	assert.PanicsWithValue(t, "lcp: Sparse.At before Finish: call Finish after the last Reset or Add", func() { s.At(0, 1) })
	s.Finish()
	assert.Equal(t, 1.0, s.At(1, 0))
	assert.Equal(t, 1.0, s.At(2, 1))
}

func TestSparseProgrammingErrors(t *testing.T) {
	// Out-of-range indices and reads before Finish are bugs in the
	// assembling code: they panic with a message that says what to fix.
	var s Sparse
	s.Reset(2)
	assert.PanicsWithValue(t, "lcp: Sparse.Add(2, 0): index out of range for a 2×2 matrix", func() { s.Add(2, 0, 1) })
	assert.PanicsWithValue(t, "lcp: Sparse.Add(0, -1): index out of range for a 2×2 matrix", func() { s.Add(0, -1, 1) })
	assert.Panics(t, func() { s.At(0, 0) })
	assert.Panics(t, func() { s.MulVecTo(make([]float64, 2), make([]float64, 2)) })
	assert.Panics(t, func() { s.RowDot(0, make([]float64, 2)) })
	assert.Panics(t, func() { s.NNZ() })
	assert.Panics(t, func() { s.Reset(-1) })
	// A solver reports an unfinished matrix as an error, not a panic.
	s.Add(0, 0, 1)
	s.Add(1, 1, 1)
	p := &Problem{A: &s, B: []float64{1, 1}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
	for _, sv := range solvers() {
		var r Result
		assert.ErrorContains(t, sv.Solve(&r, p, Settings{}), "A: sparse matrix is not finished", sv.Name())
	}
	s.Finish()
	assert.Panics(t, func() { s.At(0, 2) })
	// Non-finite entries: the same error as for the dense matrix.
	s.Add(0, 1, math.NaN())
	s.Finish()
	d := NewDense(2, 2, nil)
	d.Set(0, 0, 1)
	d.Set(1, 1, 1)
	d.Set(0, 1, math.NaN())
	d.Set(1, 0, math.NaN())
	pd := &Problem{A: d, B: p.B, Lo: p.Lo, Hi: p.Hi}
	require.Error(t, p.Validate())
	assert.Equal(t, pd.Validate().Error(), p.Validate().Error())
}

// Finish's finiteness flag, which lets Problem.Validate skip its scan,
// must catch a sum that overflows from finite records, an Inf record that
// a later record turns into NaN, both on the kept-pattern path (the same
// (i, j) calls again) and through Submatrix; finite values pass.
func TestSparseValidateFiniteFlag(t *testing.T) {
	inf := math.Inf(1)
	build := func(s *Sparse, v01a, v01b float64) {
		s.Reset(3)
		s.Add(0, 0, 1)
		s.Add(1, 1, 1)
		s.Add(2, 2, 1)
		s.Add(0, 1, v01a)
		s.Add(0, 1, v01b)
		s.Finish()
	}
	var s, sub Sparse
	p := &Problem{A: &s, B: []float64{1, 1, 1}, Lo: []float64{0, 0, 0}, Hi: []float64{inf, inf, inf}}
	build(&s, 0.25, 0.25)
	require.NoError(t, p.Validate())
	for _, c := range []struct {
		a, b float64
		want string
	}{
		{1e308, 1e308, "A[0][1]: must be finite, got +Inf"}, // finite records, overflowing sum
		{inf, -inf, "A[0][1]: must be finite, got NaN"},
		{0.5, 0.5, ""}, // finite again on the kept pattern
		{inf, 1, "A[0][1]: must be finite, got +Inf"},
	} {
		build(&s, c.a, c.b) // same (i, j) calls: the kept-pattern path
		err := p.Validate()
		if c.want == "" {
			require.NoError(t, err)
		} else {
			require.EqualError(t, err, c.want)
		}
		sub.Submatrix(&s, []int32{0, 1}, nil)
		ps := &Problem{A: &sub, B: p.B[:2], Lo: p.Lo[:2], Hi: p.Hi[:2]}
		if c.want == "" {
			require.NoError(t, ps.Validate())
		} else {
			require.EqualError(t, ps.Validate(), c.want)
		}
		assert.Equal(t, 1.0, sub.At(1, 1), "the submatrix's diagonal")
	}
}

// sparseCases are the seeded problems the Dense–Sparse conformance test runs.
func sparseCases() []struct {
	name   string
	sp, dn *Problem
} {
	type tc = struct {
		name   string
		sp, dn *Problem
	}
	var out []tc
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 4; trial++ {
		sp, dn := mbProblem(rng, 40, chainRows(rng, 40), 1e-6)
		out = append(out, tc{fmt.Sprintf("chain/#%d", trial), sp, dn})
	}
	for trial := 0; trial < 3; trial++ {
		// 180 rows on 20 bricks (120 DOF): redundant, so compliance
		// (CFM) of 1 % of the diagonal keeps A_FF well conditioned; with
		// 0.01 % BPP cycles on these walls, for Dense and Sparse alike.
		rows, nb := wallRows(rng, 5, 4, 60)
		sp, dn := mbProblem(rng, nb, rows, 0.1)
		out = append(out, tc{fmt.Sprintf("wall/#%d", trial), sp, dn})
	}
	kinds := map[genKind]string{genMixed: "mixed", genZeroWidth: "zero-width", genBilateral: "bilateral", genSeparating: "separating"}
	for kind := genMixed; kind <= genBilateral; kind++ {
		name, ok := kinds[kind]
		if !ok {
			continue
		}
		for trial := 0; trial < 5; trial++ {
			nb := 3 + rng.IntN(30)
			rows := randomRows(rng, nb, 1+rng.IntN(2*nb), kind)
			if kind == genSeparating {
				for r := range rows {
					rows[r].lo, rows[r].hi = 0, inf
				}
			}
			sp, dn := mbProblem(rng, nb, rows, 0.1)
			if kind == genSeparating {
				for i := range sp.B {
					sp.B[i] = math.Abs(sp.B[i]) + 0.1
					dn.B[i] = sp.B[i]
				}
			}
			out = append(out, tc{fmt.Sprintf("%s/#%d/n=%d", name, trial, len(rows)), sp, dn})
		}
	}
	// Dense random problems stored sparsely (one supervariable).
	for trial := 0; trial < 3; trial++ {
		dn := randomProblem(rng, 30, genMixed)
		sp := *dn
		sp.A = sparseFromDense(dn.A.(*Dense))
		out = append(out, tc{fmt.Sprintf("dense-pattern/#%d", trial), &sp, dn})
	}
	return out
}

func TestBPPSparseConformance(t *testing.T) {
	// The same problem with A as *Dense and as *Sparse: BPP takes the same
	// iterations and pivots and returns the same x (to rounding: the two
	// factorizations sum in different orders).
	for _, c := range sparseCases() {
		t.Run(c.name, func(t *testing.T) {
			var rd, rs Result
			var itd, its int
			errD := (&BPP{}).Solve(&rd, c.dn, Settings{Observer: ObserverFunc(func(Iterate) { itd++ })})
			errS := (&BPP{}).Solve(&rs, c.sp, Settings{Observer: ObserverFunc(func(it Iterate) {
				its++
				assert.True(t, it.SatisfiesEq2)
			})})
			require.NoError(t, errD)
			require.NoError(t, errS)
			require.Equal(t, Converged, rd.Status)
			assert.Equal(t, rd.Status, rs.Status)
			assert.Equal(t, rd.Iterations, rs.Iterations)
			assert.Equal(t, rd.Pivots, rs.Pivots)
			assert.Equal(t, itd, its)
			assert.Equal(t, rd.States, rs.States)
			assert.LessOrEqual(t, relMaxDiff(rd.X, rs.X), 1e-9, "x")
			// Eq. (2) holds for the sparse iterate.
			w := c.dn.Residual(nil, rs.X)
			assert.LessOrEqual(t, relMaxDiff(w, rs.W), 1e-9, "w")
			// Warm start from the final states: one iteration for both.
			var wd, ws Result
			require.NoError(t, (&BPP{}).Solve(&wd, c.dn, Settings{Start: rd.States}))
			require.NoError(t, (&BPP{}).Solve(&ws, c.sp, Settings{Start: rd.States}))
			assert.Equal(t, wd.Iterations, ws.Iterations)
			assert.LessOrEqual(t, relMaxDiff(wd.X, ws.X), 1e-9)
			// The budget binds in the same way.
			require.NoError(t, (&BPP{}).Solve(&ws, c.sp, Settings{MaxIterations: 1}))
			require.NoError(t, (&BPP{}).Solve(&wd, c.dn, Settings{MaxIterations: 1}))
			assert.Equal(t, wd.Status, ws.Status)
			assert.LessOrEqual(t, relMaxDiff(wd.X, ws.X), 1e-9)
		})
	}
}

func TestOtherSolversOnSparse(t *testing.T) {
	// PGS, Lemke and Enum read A through the Matrix interface only.
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := 0; trial < 10; trial++ {
		nb := 2 + rng.IntN(4)
		rows := randomRows(rng, nb, 1+rng.IntN(3), genMixed)
		if len(rows) > 12 {
			rows = rows[:12]
		}
		sp, dn := mbProblem(rng, nb, rows, 1e-2)
		for _, s := range []Solver{&PGS{}, &Lemke{}, &Enum{}} {
			name := fmt.Sprintf("%s/#%d/n=%d", s.Name(), trial, len(rows))
			var rd, rs Result
			set := Settings{MaxIterations: 100000, Tolerance: 1e-13}
			errD := s.Solve(&rd, dn, set)
			errS := s.Solve(&rs, sp, set)
			assert.Equal(t, errD, errS, name)
			assert.Equal(t, rd.Status, rs.Status, name)
			assert.LessOrEqual(t, relMaxDiff(rd.X, rs.X), 1e-8, name)
		}
	}
}

func TestBPPSparseIndefiniteAndSingular(t *testing.T) {
	// An indefinite (but non-singular) symmetric free block: the sparse
	// LDLᵀ refuses it and the dense LU solves it, as for a dense A.
	build := func(rows [][]float64) (*Problem, *Problem) {
		d, _ := DenseFromRows(rows)
		n := len(rows)
		p := &Problem{A: d, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
		for i := range p.B {
			p.B[i] = float64(i%3) - 1.2
			p.Lo[i], p.Hi[i] = -inf, inf
		}
		q := *p
		q.A = sparseFromDense(d)
		return p, &q
	}
	pd, ps := build([][]float64{{1, 2, 0}, {2, 1, 0}, {0, 0, 3}})
	var rd, rs Result
	require.NoError(t, (&BPP{}).Solve(&rd, pd, Settings{}))
	require.NoError(t, (&BPP{}).Solve(&rs, ps, Settings{}))
	assert.Equal(t, Converged, rs.Status)
	assert.InDeltaSlice(t, rd.X, rs.X, 1e-12)
	// Above MaxDenseFallback rows the solve ends with ErrSingular and the
	// fixed iterate.
	err := (&BPP{MaxDenseFallback: 2}).Solve(&rs, ps, Settings{})
	assert.True(t, errors.Is(err, ErrSingular), "%v", err)
	assert.ErrorContains(t, err, "free block of 3 rows is not positive definite (the sparse LDLᵀ failed at row 1)")
	assert.Equal(t, Failed, rs.Status)
	assert.Equal(t, ps.Residual(nil, rs.X), rs.W)
	// Singular and inconsistent: ErrSingular from the LU, as for Dense.
	_, ps = build([][]float64{{1, 1}, {1, 1}})
	ps.B[0], ps.B[1] = 1, -1
	err = (&BPP{}).Solve(&rs, ps, Settings{})
	assert.True(t, errors.Is(err, ErrSingular), "%v", err)
	assert.Equal(t, Failed, rs.Status)
}

// bandedSparse returns a random symmetric positive definite n×n matrix of
// half-bandwidth bw (diagonally dominant), with its rows numbered by perm
// (nil: natural order).
func bandedSparse(rng *rand.Rand, n, bw int, perm []int) *Sparse {
	id := func(i int) int {
		if perm == nil {
			return i
		}
		return perm[i]
	}
	var s Sparse
	s.Reset(n)
	diag := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := i + 1; j <= min(n-1, i+bw); j++ {
			v := rng.NormFloat64()
			s.Add(id(i), id(j), v)
			diag[i] += math.Abs(v)
			diag[j] += math.Abs(v)
		}
	}
	for i := 0; i < n; i++ {
		s.Add(id(i), id(i), diag[i]*(1+rng.Float64())+1e-3)
	}
	s.Finish()
	return &s
}

func TestSparseLDLBanded(t *testing.T) {
	// A 5000×5000 banded SPD system solves to 1e-10 relative residual, with
	// O(n) fill, in natural order and with its rows shuffled (the minimum
	// degree ordering must find the band again).
	const n, bw = 5000, 4
	rng := rand.New(rand.NewPCG(41, 42))
	for _, shuffle := range []bool{false, true} {
		var perm []int
		if shuffle {
			perm = rng.Perm(n)
		}
		a := bandedSparse(rng, n, bw, perm)
		state := make([]State, n) // all Free
		var f sparseLDL
		require.True(t, f.factor(a, state))
		assert.LessOrEqual(t, f.nnzL(), 3*bw*n, "fill, shuffled=%v", shuffle)
		rhs := make([]float64, n)
		for i := range rhs {
			rhs[i] = rng.NormFloat64()
		}
		xf := make([]float64, n)
		for k, i := range f.free {
			xf[k] = rhs[i]
		}
		f.solve(xf)
		x := make([]float64, n)
		for k, i := range f.free {
			x[i] = xf[k]
		}
		ax := make([]float64, n)
		a.MulVecTo(ax, x)
		num, den := 0.0, 0.0
		for i := range ax {
			num += (ax[i] - rhs[i]) * (ax[i] - rhs[i])
			den += rhs[i] * rhs[i]
		}
		assert.LessOrEqual(t, math.Sqrt(num/den), 1e-10, "shuffled=%v", shuffle)
		// A subset of the rows: the block A_FF in the restricted order.
		for i := range state {
			if rng.IntN(4) == 0 {
				state[i] = AtLower
			}
		}
		require.True(t, f.factor(a, state))
		m := len(f.free)
		xf = xf[:m]
		for k, i := range f.free {
			xf[k] = rhs[i]
		}
		f.solve(xf)
		for k, i := range f.free {
			s := 0.0
			for l, j := range f.free {
				if v := a.At(int(i), int(j)); v != 0 {
					s += v * xf[l]
				}
			}
			if k%97 == 0 { // spot checks: the full check is O(m²)
				assert.InDelta(t, rhs[i], s, 1e-10*(1+math.Abs(rhs[i])))
			}
		}
	}
}

func TestSparseLDLSubsetLoop(t *testing.T) {
	// Random free subsets of a wall-like matrix: every block solve is exact
	// (against a dense reference), including repeated sets (the symbolic
	// analysis is reused) and the empty set.
	rng := rand.New(rand.NewPCG(43, 44))
	rows, nb := wallRows(rng, 4, 3, 30)
	sp, dn := mbProblem(rng, nb, rows, 1e-3)
	a := sp.A.(*Sparse)
	n := sp.N()
	var f sparseLDL
	state := make([]State, n)
	for trial := 0; trial < 12; trial++ {
		if trial%3 != 2 { // every third trial repeats the previous set
			for i := range state {
				state[i] = Free
				if rng.IntN(3) == 0 {
					state[i] = AtUpper
				}
				if trial == 9 {
					state[i] = AtLower
				}
			}
		}
		require.True(t, f.factor(a, state))
		m := len(f.free)
		rhs := make([]float64, m)
		for k := range rhs {
			rhs[k] = rng.NormFloat64()
		}
		x := append([]float64(nil), rhs...)
		f.solve(x)
		for k, i := range f.free {
			s := 0.0
			for l, j := range f.free {
				s += dn.A.At(int(i), int(j)) * x[l]
			}
			assert.InDelta(t, rhs[k], s, 1e-9*(1+math.Abs(rhs[k])), "trial %d", trial)
		}
	}
}

func TestBPPSparseNoAllocs(t *testing.T) {
	// A second solve of a problem with the same pattern (rebuilt with new
	// values, as the stepper does every step) allocates nothing.
	rng := rand.New(rand.NewPCG(51, 52))
	rows, nb := wallRows(rng, 5, 4, 60)
	p, _ := mbProblem(rng, nb, rows, 0.1)
	a := p.A.(*Sparse)
	s := &BPP{}
	var r Result
	require.NoError(t, s.Solve(&r, p, Settings{}))
	require.Equal(t, Converged, r.Status)
	require.Greater(t, r.Iterations, 1)
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = s.Solve(&r, p, Settings{}) }))
	// Rebuild the same pattern with scaled values.
	rebuild := func(c float64) {
		n := a.n
		ti, tj, tv := append([]int32(nil), a.ti...), append([]int32(nil), a.tj...), append([]float64(nil), a.tv...)
		a.Reset(n)
		for k := range ti {
			a.Add(int(ti[k]), int(tj[k]), c*tv[k])
		}
		a.Finish()
	}
	ver := a.version
	rebuild(1.5)
	assert.Equal(t, ver, a.version)
	require.NoError(t, s.Solve(&r, p, Settings{}))
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = s.Solve(&r, p, Settings{}) }))
	assert.Zero(t, testing.AllocsPerRun(5, func() { _ = s.Solve(&r, p, Settings{Start: r.States}) }))
}

func TestWriteProblemSparse(t *testing.T) {
	// The interchange format has dense rows: a *Sparse A writes the same
	// bytes as the equal *Dense.
	rng := rand.New(rand.NewPCG(61, 62))
	sp, dn := mbProblem(rng, 3, randomRows(rng, 3, 3, genMixed), 0.25)
	var bs, bd bytes.Buffer
	require.NoError(t, WriteProblem(&bs, sp))
	require.NoError(t, WriteProblem(&bd, dn))
	// mbProblem adds the same values in the same order to both.
	assert.Equal(t, bd.String(), bs.String())
	p2, err := ReadProblem(&bs)
	require.NoError(t, err)
	for i := 0; i < sp.N(); i++ {
		for j := 0; j < sp.N(); j++ {
			assert.Equal(t, sp.A.At(i, j), p2.A.At(i, j))
		}
	}
}

// Benchmarks: BPP from a cold start on chain-like (banded, block
// tridiagonal) and wall-like (block-sparse) problems, dense against sparse.
func BenchmarkBPPSparse(b *testing.B) {
	type bc struct {
		name   string
		sp, dn *Problem
	}
	var cases []bc
	for _, links := range []int{100, 1000} {
		rng := rand.New(rand.NewPCG(uint64(links), 71))
		sp, dn := mbProblem(rng, links, chainRows(rng, links), 1e-6)
		if links > 100 {
			dn = nil // a dense 5000² A is 200 MB
		}
		cases = append(cases, bc{fmt.Sprintf("chain/n=%d", sp.N()), sp, dn})
	}
	{
		rng := rand.New(rand.NewPCG(30, 72))
		rows, nb := wallRows(rng, 6, 5, 184)    // 30 bricks, 184 contacts, 552 rows
		sp, dn := mbProblem(rng, nb, rows, 0.1) // CFM ~1 % of the diagonal
		cases = append(cases, bc{fmt.Sprintf("wall/n=%d", sp.N()), sp, dn})
	}
	for _, c := range cases {
		for _, kind := range []string{"dense", "sparse"} {
			p := c.sp
			if kind == "dense" {
				p = c.dn
			}
			if p == nil {
				continue
			}
			s := &BPP{}
			var r Result
			if err := s.Solve(&r, p, Settings{}); err != nil || r.Status != Converged {
				b.Fatalf("%s/%s: %v %v", c.name, kind, r.Status, err)
			}
			iters := r.Iterations
			b.Run(c.name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = s.Solve(&r, p, Settings{})
				}
				b.ReportMetric(float64(iters), "iters")
				if kind == "sparse" {
					a := p.A.(*Sparse)
					b.ReportMetric(float64(a.NNZ())/float64(p.N()*p.N()), "density")
					b.ReportMetric(float64(s.sfac.nnzL()), "nnzL")
				}
			})
		}
	}
}
