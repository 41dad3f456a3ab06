package lcp

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewAndNames(t *testing.T) {
	names := Names()
	assert.Equal(t, []string{"auto", "bpp", "enum", "lemke", "newton-cck", "newton-fb", "newton-min", "pgs", "prox"}, names)
	for _, n := range names {
		s, err := New(n)
		require.NoError(t, err)
		assert.Equal(t, n, s.Name(), "New(%q).Name()", n)
	}
	_, err := New("simplex")
	assert.EqualError(t, err, `unknown solver "simplex" (want auto, bpp, enum, lemke, newton-cck, newton-fb, newton-min, pgs, prox)`)
	// A step may name every solver but auto and enum.
	assert.Equal(t, []string{"bpp", "lemke", "newton-cck", "newton-fb", "newton-min", "pgs", "prox"}, StepNames())
}

func TestClassify(t *testing.T) {
	cases := []struct {
		rows [][]float64
		want MatrixClass
	}{
		{[][]float64{{2, 1}, {1, 2}}, MatrixClass{Symmetric: true, PSD: true, Monotone: true}},
		{[][]float64{{1, 1}, {1, 1}}, MatrixClass{Symmetric: true, PSD: true, Monotone: true}}, // singular
		{[][]float64{{1, 2}, {2, 1}}, MatrixClass{Symmetric: true}},
		{[][]float64{{0, 1}, {-1, 0}}, MatrixClass{Monotone: true}}, // skew
		{[][]float64{{1, 3}, {0, 1}}, MatrixClass{}},                // P, symmetric part indefinite
	}
	for _, c := range cases {
		a, _ := DenseFromRows(c.rows)
		assert.Equal(t, c.want, Classify(a), "%v", c.rows)
	}
}

func TestBPPRefusesWhatItIsNotMadeFor(t *testing.T) {
	for _, c := range []struct {
		rows [][]float64
		want string
	}{
		{[][]float64{{-1, 2}, {2, -1}}, "A[0][0] = -1 < 0 on a bounded row"},
		{[][]float64{{0, 1}, {1, 1}}, "A[0][0] = 0 on a bounded row coupled to row 1"},
		{[][]float64{{0, 1}, {2, 1}}, "A[0][0] = 0 on a bounded row coupled to row 1"},
	} {
		p := std(c.rows, []float64{-1, -1})
		var r Result
		err := (&BPP{}).Solve(&r, p, Settings{})
		require.True(t, errors.Is(err, ErrUnsupported), "%v: %v", c.rows, err)
		assert.Equal(t, Failed, r.Status)
		assert.Contains(t, r.Reason, c.want)
		assert.Len(t, r.X, 2)
	}
	// A skew coupling of a zero-diagonal row keeps A monotone, but coupled
	// only to rows that can sit at a bound the row is refused: with w₀ = −1
	// < 0 at x = 0 the first block pivot would free row 0 alone, a face
	// A_FF = [0]. Siconos' lcp_CPS_4 (the KKT system of a QP, its
	// multiplier's row zero on the diagonal) stopped there at iteration 1
	// with a singular face before the entry check saw it.
	cps4 := std([][]float64{{11, 0, 10, -1}, {0, 11, 10, -1}, {10, 10, 21, -1}, {1, 1, 1, 0}}, []float64{50, 50, 10, -6})
	for _, c := range []struct {
		p    *Problem
		want string
	}{
		{std([][]float64{{0, 1}, {-1, 1}}, []float64{-1, 1}), "A[0][0] = 0 on a bounded row coupled skew-symmetrically only to rows that can sit at a bound (the first row 1)"},
		{cps4, "A[3][3] = 0 on a bounded row coupled skew-symmetrically only to rows that can sit at a bound (the first row 0)"},
	} {
		var r Result
		err := (&BPP{}).Solve(&r, c.p, Settings{})
		require.ErrorIs(t, err, ErrUnsupported)
		assert.Equal(t, Failed, r.Status)
		assert.Equal(t, 0, r.Iterations)
		assert.Contains(t, r.Reason, c.want)
	}
	// Coupled skew-symmetrically to a bilateral row, which every face
	// keeps free (a diode and its current), the row is taken and solved.
	// At x₀ = 0 row 1 gives x₁ = −1 and w₀ = x₁ − 1 = −2 < 0; freed, row 0
	// and row 1 give x₁ = 1, x₀ = 2: x = (2, 1), w = (0, 0).
	p := std([][]float64{{0, 1}, {-1, 1}}, []float64{-1, 1})
	p.Lo[1], p.Hi[1] = -inf, inf
	var r Result
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{}))
	assert.Equal(t, Converged, r.Status)
	assert.InDeltaSlice(t, []float64{2, 1}, r.X, 1e-14, "small integers: the face solves round at most an ulp or two")
}

func TestAutoNoSolution(t *testing.T) {
	// w₂ = −z₁ − 1 < 0 for every z ≥ 0: no solution.
	p := std([][]float64{{0, 1}, {-1, 0}}, []float64{-1, -1})
	var r Result
	s := &Auto{}
	n := 0
	err := s.Solve(&r, p, Settings{Observer: ObserverFunc(func(it Iterate) {
		n++
		assert.Equal(t, n, it.Iter, "iterates are numbered on across the attempts")
	})})
	require.ErrorIs(t, err, ErrNoSolution)
	assert.Equal(t, Failed, r.Status)
	assert.Contains(t, r.Reason, "auto: no solver converged (lemke ended failed")
	assert.Contains(t, r.Reason, "newton-fb ended failed")
	assert.Equal(t, n, r.Iterations)
}

func TestAutoLargeIsBPPOnly(t *testing.T) {
	// A 2001-row chain (tridiagonal SPD, sparse): Auto hands it to BPP alone.
	n := AutoDenseMax + 1
	var a Sparse
	a.Reset(n)
	p := &Problem{A: &a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := 0; i < n; i++ {
		a.Add(i, i, 2)
		if i > 0 {
			a.Add(i, i-1, -1)
		}
		p.B[i], p.Hi[i] = -1, inf
	}
	a.Finish()
	s := &Auto{}
	var r Result
	require.NoError(t, s.Solve(&r, p, Settings{}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, "bpp", s.Answered)
	assert.Contains(t, s.Why, "only BPP")
}
