package lcp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var inf = math.Inf(1)

// rodProblem is Eq. (26) of Enzenhöfer et al. 2019 with the diagonal the
// paper meant (4/m = 1 kg⁻¹; the printed 0.1 is a typo).
func rodProblem() *Problem {
	a, _ := DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	return &Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
}

func solvers() []Solver {
	return []Solver{&BPP{}, &PGS{}, &Lemke{}, &Enum{}, &Newton{}, &Newton{Func: ChenChenKanzow}, &Newton{Func: MinMap}, &Prox{}}
}

func TestRodAllSolvers(t *testing.T) {
	// Exact solution of the 2×2 system with both contacts active:
	// x = A⁻¹(−b) = [0.329533…, 0.062867…] N·s.
	want := []float64{(0.2981 - 0.5*0.1019) / 0.75, (-0.1019 + 0.5*0.2981) / 0.75}
	assert.InDelta(t, 0.32953, want[0], 5e-6) // the paper's printed digits
	assert.InDelta(t, 0.06287, want[1], 5e-6)
	for _, s := range solvers() {
		t.Run(s.Name(), func(t *testing.T) {
			var r Result
			require.NoError(t, s.Solve(&r, rodProblem(), Settings{}))
			assert.Equal(t, Converged, r.Status)
			// 1e-9: PGS stops at a sweep change of 1e-10·max|b|; the others are exact to rounding.
			assert.InDeltaSlice(t, want, r.X, 1e-9)
			assert.InDeltaSlice(t, []float64{0, 0}, r.W, 1e-9)
		})
	}
}

func TestValidate(t *testing.T) {
	nan := math.NaN()
	good := func() *Problem { return rodProblem() }
	sq, _ := DenseFromRows([][]float64{{1, 0, 0}, {0, 1, 0}})
	cases := []struct {
		name string
		mod  func(p *Problem)
		want string
	}{
		{"non-square", func(p *Problem) { p.A = sq }, "A: not square: 2×3"},
		{"A size", func(p *Problem) { p.B = []float64{1, 2, 3}; p.Lo = []float64{0, 0, 0}; p.Hi = []float64{1, 1, 1} }, "A: is 2×2 but b has 3"},
		{"lo length", func(p *Problem) { p.Lo = []float64{0} }, "lo: has 1 entries"},
		{"hi length", func(p *Problem) { p.Hi = nil }, "hi: has 0 entries"},
		{"A NaN", func(p *Problem) { p.A.(*Dense).Set(1, 0, nan) }, "A[1][0]: must be finite, got NaN"},
		{"A Inf", func(p *Problem) { p.A.(*Dense).Set(0, 1, inf) }, "A[0][1]: must be finite, got +Inf"},
		{"b NaN", func(p *Problem) { p.B[1] = nan }, "b[1]: must be finite, got NaN"},
		{"lo NaN", func(p *Problem) { p.Lo[0] = nan }, "lo[0]: is NaN"},
		{"hi NaN", func(p *Problem) { p.Hi[1] = nan }, "hi[1]: is NaN"},
		{"lo > hi", func(p *Problem) { p.Lo[1] = 2; p.Hi[1] = 1 }, "row 1: lo = 2 > hi = 1"},
		{"lo +Inf", func(p *Problem) { p.Lo[0] = inf }, "lo[0]: is +Inf"},
		{"hi -Inf", func(p *Problem) { p.Hi[0] = -inf }, "hi[0]: is -Inf"},
		{"missing A", func(p *Problem) { p.A = nil }, "A: missing"},
	}
	require.NoError(t, good().Validate())
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := good()
			c.mod(p)
			err := p.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			// Every solver refuses it with the same error and does not panic.
			for _, s := range solvers() {
				var r Result
				assert.EqualError(t, s.Solve(&r, p, Settings{}), err.Error())
			}
		})
	}
}

// genKind selects the flavour of a random test problem.
type genKind int

const (
	genMixed      genKind = iota // contacts, friction boxes, bilateral rows
	genZeroWidth                 // some rows with lo = hi
	genRedundant                 // more rows than body DOFs, tiny compliance
	genSeparating                // every contact separating (b > 0)
	genBilateral                 // mostly bilateral rows plus contacts
)

// randomProblem builds A = J Jᵀ + C with J random (n × k), so A is symmetric
// positive definite (k ≥ n, or C > 0), like the stepper's J M⁻¹ Jᵀ + C.
func randomProblem(rng *rand.Rand, n int, kind genKind) *Problem {
	k := n + 2
	c := 0.0
	if kind == genRedundant {
		k = max(1, n/2)
		c = 1e-4 // tiny compliance on redundant rows: 1/(k h²) for k = 1e8 N/m, h = 0.01 s against entries of J Jᵀ of order k
	}
	j := make([]float64, n*k)
	for i := range j {
		j[i] = rng.NormFloat64()
	}
	a := NewDense(n, n, nil)
	for r := 0; r < n; r++ {
		for s := 0; s < n; s++ {
			a.Set(r, s, dot(j[r*k:(r+1)*k], j[s*k:(s+1)*k]))
		}
		a.Add(r, r, c)
	}
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	v := make([]float64, k) // body velocities: b = J v, consistent even for redundant rows
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		p.B[i] = dot(j[i*k:(i+1)*k], v)
		switch r := rng.IntN(10); {
		case kind == genSeparating:
			p.Lo[i], p.Hi[i] = 0, inf
			p.B[i] = math.Abs(p.B[i]) + 0.1
		case kind == genBilateral && r < 6, kind == genMixed && r < 2:
			p.Lo[i], p.Hi[i] = -inf, inf
		case kind == genZeroWidth && r < 3:
			v := rng.NormFloat64()
			p.Lo[i], p.Hi[i] = v, v
		case r < 5:
			p.Lo[i], p.Hi[i] = 0, inf // contact normal
		case r < 8:
			mu := 0.2 + rng.Float64()
			p.Lo[i], p.Hi[i] = -mu, mu // box friction
		case r < 9:
			p.Lo[i], p.Hi[i] = -inf, rng.Float64() // one-sided upper
		default:
			p.Lo[i], p.Hi[i] = -rng.Float64(), inf
		}
	}
	return p
}

// objective is ½xᵀAx + bᵀx; for symmetric A the MLCP is the optimality
// condition of minimizing it over the box.
func objective(p *Problem, x []float64) float64 {
	n := p.N()
	ax := make([]float64, n)
	p.A.MulVecTo(ax, x)
	return 0.5*dot(x, ax) + dot(p.B, x)
}

func TestSolversAgreeWithEnum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := map[genKind]string{genMixed: "mixed", genZeroWidth: "zero-width", genRedundant: "redundant", genSeparating: "separating", genBilateral: "bilateral"}
	for kind := genMixed; kind <= genBilateral; kind++ {
		for trial := 0; trial < 40; trial++ {
			n := 1 + rng.IntN(10)
			p := randomProblem(rng, n, kind)
			var ref Result
			require.NoError(t, (&Enum{}).Solve(&ref, p, Settings{Tolerance: 1e-9}), "%s #%d", kinds[kind], trial)
			fref := objective(p, ref.X)
			scale := 1 + math.Abs(fref)
			for _, s := range []Solver{&BPP{}, &PGS{}, &Lemke{}} {
				name := fmt.Sprintf("%s/%s/#%d/n=%d", s.Name(), kinds[kind], trial, n)
				var r Result
				set := Settings{}
				if s.Name() == "pgs" {
					set.MaxIterations = 400000
					set.Tolerance = 1e-13
				}
				err := s.Solve(&r, p, set)
				require.NoError(t, err, name)
				if s.Name() != "pgs" || kind != genRedundant {
					require.Equal(t, Converged, r.Status, name)
				} // else: PGS contracts by about 1 − c/λ_max per sweep on redundant rows with compliance c; only the energy norm below is asserted.
				// Eq. (2) holds for the returned iterate.
				w := p.Residual(nil, r.X)
				for i := range w {
					assert.InDelta(t, w[i], r.W[i], 1e-9*(1+math.Abs(w[i])), name)
				}
				// The solution is unique for SPD A: compare it with the
				// reference by the energy norm of the difference,
				// ½(x−x*)ᵀA(x−x*) = f(x) − f(x*) + (terms ≥ 0 at the
				// bounds), which is what matters physically even when
				// redundant rows make single components ill-determined.
				d := make([]float64, n)
				for i := range d {
					d[i] = r.X[i] - ref.X[i]
				}
				ad := make([]float64, n)
				p.A.MulVecTo(ad, d)
				e := 0.5 * dot(d, ad)
				tol := 1e-9 * scale // rounding of the factorizations
				if s.Name() == "pgs" {
					tol = 1e-7 * scale // PGS stops on a sweep change, not at the exact point
					if kind == genRedundant {
						tol = 1e-5 * scale // and crawls on redundant rows (see above)
					}
				}
				assert.LessOrEqual(t, e, tol, name)
				assert.InDelta(t, fref, objective(p, r.X), tol, name)
				if kind != genRedundant && s.Name() != "pgs" {
					// Well-conditioned: the components themselves agree.
					assert.InDeltaSlice(t, ref.X, r.X, 1e-7, name)
				}
			}
		}
	}
}

func TestBPPIteratesSatisfyEq2AndWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p := randomProblem(rng, 60, genMixed)
	var r Result
	seen := 0
	obs := ObserverFunc(func(it Iterate) {
		seen++
		assert.True(t, it.SatisfiesEq2)
		w := p.Residual(nil, it.X)
		for i := range w {
			assert.InDelta(t, w[i], it.W[i], 1e-9)
		}
	})
	require.NoError(t, (&BPP{}).Solve(&r, p, Settings{Observer: obs}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, r.Iterations, seen)
	// Warm start from the solution's index sets: one iteration.
	var r2 Result
	require.NoError(t, (&BPP{}).Solve(&r2, p, Settings{Start: r.States}))
	assert.Equal(t, 1, r2.Iterations)
	assert.InDeltaSlice(t, r.X, r2.X, 1e-9)
	// A budget of 1 from a cold start: the budget runs out, no error.
	var r3 Result
	require.NoError(t, (&BPP{}).Solve(&r3, p, Settings{MaxIterations: 1}))
	assert.Equal(t, BudgetExhausted, r3.Status)
	assert.Equal(t, 1, r3.Iterations)
}

func TestCholUpdates(t *testing.T) {
	// Appending and deleting indices gives the same solves as a fresh
	// factorization.
	rng := rand.New(rand.NewPCG(5, 6))
	n := 12
	p := randomProblem(rng, n, genMixed)
	var c chol
	c.reset(n)
	order := []int{}
	for i := 0; i < n; i++ {
		a := make([]float64, len(order))
		for k, j := range order {
			a[k] = p.A.At(i, j)
		}
		require.True(t, c.appendIndex(a, p.A.At(i, i)))
		order = append(order, i)
	}
	for _, del := range []int{3, 0, 7} {
		c.deleteIndex(del)
		order = append(order[:del], order[del+1:]...)
		m := len(order)
		rhs := make([]float64, m)
		for k := range rhs {
			rhs[k] = rng.NormFloat64()
		}
		x := append([]float64(nil), rhs...)
		c.solve(x)
		for r, i := range order {
			s := 0.0
			for k, j := range order {
				s += p.A.At(i, j) * x[k]
			}
			assert.InDelta(t, rhs[r], s, 1e-10)
		}
	}
}

// murty is Murty's (1978) example: M lower triangular with 1 on the diagonal
// and 2 below it, q_i = −(2ⁿ + 2ⁿ⁻¹ + … + 2ⁿ⁻ⁱ); Lemke's method with the
// covering vector e takes 2ⁿ pivots on it.
func murty(n int) *Problem {
	a := NewDense(n, n, nil)
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
		for j := 0; j < i; j++ {
			a.Set(i, j, 2)
		}
		s := 0.0
		for k := 0; k <= i; k++ {
			s += math.Ldexp(1, n-k)
		}
		p.B[i] = -s
		p.Hi[i] = inf
	}
	return p
}

func TestLemkeMurty(t *testing.T) {
	const n = 8
	p := murty(n)
	var r, ref Result
	require.NoError(t, (&Lemke{}).Solve(&r, p, Settings{}))
	require.NoError(t, (&Enum{}).Solve(&ref, p, Settings{}))
	assert.Equal(t, Converged, r.Status)
	assert.Equal(t, 1<<n, r.Iterations) // exponentially many pivots
	assert.InDeltaSlice(t, ref.X, r.X, 1e-9)
	assert.InDeltaSlice(t, []float64{256, 0, 0, 0, 0, 0, 0, 0}, r.X, 1e-9)
	// A non-symmetric A goes through BPP's LU path.
	var rb Result
	require.NoError(t, (&BPP{}).Solve(&rb, p, Settings{}))
	assert.InDeltaSlice(t, ref.X, rb.X, 1e-9)
}

func TestLemkeIteratesDoNotClaimEq2(t *testing.T) {
	var r Result
	n := 0
	obs := ObserverFunc(func(it Iterate) { n++; assert.False(t, it.SatisfiesEq2) })
	require.NoError(t, (&Lemke{}).Solve(&r, rodProblem(), Settings{Observer: obs}))
	assert.Equal(t, r.Iterations, n)
	assert.Positive(t, n)
}

func TestSingularAndInfeasible(t *testing.T) {
	// Two identical bilateral rows without compliance: A is singular and
	// the equations are inconsistent (w₁ = x₁ + x₂ + 1, w₂ = x₁ + x₂ − 1
	// cannot both be 0). BPP must report ErrSingular, not panic.
	a, _ := DenseFromRows([][]float64{{1, 1}, {1, 1}})
	p := &Problem{A: a, B: []float64{1, -1}, Lo: []float64{-inf, -inf}, Hi: []float64{inf, inf}}
	var r Result
	err := (&BPP{}).Solve(&r, p, Settings{})
	assert.True(t, errors.Is(err, ErrSingular), "%v", err)
	assert.Equal(t, Failed, r.Status)
	err = (&Enum{}).Solve(&r, p, Settings{})
	assert.True(t, errors.Is(err, ErrNoSolution), "%v", err)
	// PGS cannot relax a zero diagonal.
	z := NewDense(1, 1, nil)
	err = (&PGS{}).Solve(&r, &Problem{A: z, B: []float64{1}, Lo: []float64{0}, Hi: []float64{inf}}, Settings{})
	assert.True(t, errors.Is(err, ErrSingular), "%v", err)
	// Too large for Enum.
	big := randomProblem(rand.New(rand.NewPCG(1, 1)), 13, genMixed)
	assert.True(t, errors.Is((&Enum{}).Solve(&r, big, Settings{}), ErrTooLarge))
}

func TestJSONRoundTrip(t *testing.T) {
	in := `{"A": [[1, -0.5], [-0.5, 1]], "b": [-0.2981, 0.1019], "lo": [0, null], "hi": [null, "inf"]}`
	p, err := ReadProblem(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []float64{0, math.Inf(-1)}, p.Lo)
	assert.Equal(t, []float64{inf, inf}, p.Hi)
	var buf bytes.Buffer
	require.NoError(t, WriteProblem(&buf, p))
	assert.Equal(t, `{"A":[[1,-0.5],[-0.5,1]],"b":[-0.2981,0.1019],"lo":[0,null],"hi":[null,null]}`+"\n", buf.String())
	p2, err := ReadProblem(&buf)
	require.NoError(t, err)
	assert.Equal(t, p, p2)

	s, err := ReadSolution(strings.NewReader(`{"x": [0, -0.1019], "w": [-0.2981, 0], "iterations": 1, "status": "budget_exhausted", "picked": 1}`))
	require.NoError(t, err)
	assert.Equal(t, []float64{0, -0.1019}, s.X)
	assert.Equal(t, 1, s.Iterations)
	assert.Equal(t, float64(1), s.Extra["picked"])
	buf.Reset()
	require.NoError(t, WriteSolution(&buf, s))
	assert.Equal(t, `{"iterations":1,"picked":1,"status":"budget_exhausted","w":[-0.2981,0],"x":[0,-0.1019]}`+"\n", buf.String())
}

func TestJSONErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "empty input"},
		{`{"A": [[1]], "b": [1], "lo": [0]}`, "hi: missing"},
		{`{"A": [[1]], "b": [1], "lo": [0], "hi": [1], "b": [2]}`, `b: key given twice`},
		{`{"a": [[1]], "b": [1], "lo": [0], "hi": [1]}`, `A: missing`},
		{`{"A": [[1]], "b": [1], "lo": [0], "hi": [1, "x"]}`, `hi[1]: bound "x"`},
		{`[1]`, `want a JSON object`},
		{`{"A": [[1, "y"]], "b": [1], "lo": [0], "hi": [1]}`, `A[0][1]: want a number, got "y"`},
		{`{"A": [[1]], "b": ["nan"], "lo": [0], "hi": [1]}`, `b[0]: must be finite, got NaN`},
		{`{"A": [[1, 2], [3]], "b": [1, 1], "lo": [0, 0], "hi": [1, 1]}`, "A[1]: has 1 entries, row 0 has 2"},
		{`{"A": [[1]], "b": [1], "lo": ["x"], "hi": [1]}`, `bound "x"`},
		{`{"A": [[1]], "b": ["1"], "lo": [0], "hi": [1]}`, `b[0]: want a number, got "1"`},
		{`{"A": [[1]], "b": [1], "lo": [2], "hi": [1]}`, "row 0: lo = 2 > hi = 1"},
		{`{"A": [[1]], "b": [1], "lo": ["inf"], "hi": [null]}`, "lo[0]: is +Inf"},
		{`{"A": [[1]], "b": [1], "lo": [0], "hi": [1]} {}`, "trailing data"},
		{`{"A": [[1]], "b": [1], "lo": [0], "hi": [1]`, "malformed JSON"},
	}
	for _, c := range cases {
		_, err := ReadProblem(strings.NewReader(c.in))
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.want, c.in)
		assert.NotContains(t, err.Error(), "\n")
	}
	_, err := ReadSolution(strings.NewReader(`{"w": [1]}`))
	assert.EqualError(t, err, "x: missing")
	_, err = ReadSolution(strings.NewReader(`{"x": [1, 2], "w": [1]}`))
	assert.EqualError(t, err, "w: has 1 entries, x has 2")
	_, err = ReadSolution(strings.NewReader(`{"x": [1], "x": [2]}`))
	assert.ErrorContains(t, err, "x: key given twice")
	_, err = ReadSolution(strings.NewReader(`{"x": [1, "inf"]}`))
	assert.EqualError(t, err, "x[1]: must be finite, got +Inf")
}

func TestJSONIgnoresUnknownKeys(t *testing.T) {
	in := `{"name": "rod", "A": [[1, -0.5], [-0.5, 1]], "b": [-0.2981, 0.1019], "lo": [0, 0], "hi": [null, null], "source": {"paper": "x"}, "x": [0.3, 0.06]}`
	p, ignored, err := ReadProblemKeys(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, []string{"name", "source", "x"}, ignored)
	assert.Equal(t, rodProblem(), p)
}

// A labelled problem writes its row labels after hi, and the reader knows
// the key: it reads the problem back without reporting "rows" as ignored.
func TestWriteLabelledProblem(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteLabelledProblem(&buf, rodProblem(), []map[string]any{{"kind": "ContactNormal"}, {"kind": "ContactNormal"}}))
	assert.Equal(t, `{"A":[[1,-0.5],[-0.5,1]],"b":[-0.2981,0.1019],"lo":[0,0],"hi":[null,null],"rows":[{"kind":"ContactNormal"},{"kind":"ContactNormal"}]}`+"\n", buf.String())
	p, ignored, err := ReadProblemKeys(&buf)
	require.NoError(t, err)
	assert.Empty(t, ignored)
	assert.Equal(t, rodProblem(), p)
	buf.Reset()
	require.NoError(t, WriteLabelledProblem(&buf, rodProblem(), nil))
	assert.NotContains(t, buf.String(), "rows", "nil labels: WriteProblem's output")
}

func TestWriteJSONNonFinite(t *testing.T) {
	// encoding/json refuses ±Inf and NaN; WriteJSON spells them.
	s := &Solution{X: []float64{1, 2}, W: []float64{math.Inf(1), math.NaN()}, Status: "failed",
		Extra: map[string]any{"errors": map[string]float64{"energy": math.Inf(1), "fb": 0.5}}}
	var buf bytes.Buffer
	require.NoError(t, WriteSolution(&buf, s))
	assert.Equal(t, `{"errors":{"energy":"inf","fb":0.5},"iterations":0,"status":"failed","w":["inf","nan"],"x":[1,2]}`+"\n", buf.String())
	type row struct {
		A     float64 `json:"a"`
		B     float64 `json:"b,omitempty"`
		Skip  int     `json:"-"`
		Plain float64
	}
	buf.Reset()
	require.NoError(t, WriteJSON(&buf, []row{{A: math.Inf(-1), Plain: 2}}))
	assert.Equal(t, `[{"Plain":2,"a":"-inf"}]`+"\n", buf.String())
	// Finite values are written by encoding/json itself, fields in order.
	buf.Reset()
	require.NoError(t, WriteJSON(&buf, row{A: 1, B: 2}))
	assert.Equal(t, `{"a":1,"b":2,"Plain":0}`+"\n", buf.String())
	// The strings read back as numbers where numbers are read.
	w, err := decodeNumbers("w", []byte(`["inf", "-inf", "nan", 1]`))
	require.NoError(t, err)
	assert.True(t, math.IsInf(w[0], 1) && math.IsInf(w[1], -1) && math.IsNaN(w[2]) && w[3] == 1)
}

func FuzzReadProblem(f *testing.F) {
	f.Add(`{"A": [[1, -0.5], [-0.5, 1]], "b": [-0.2981, 0.1019], "lo": [0, 0], "hi": [null, null]}`)
	f.Add(`{"A": [[2]], "b": [-1], "lo": ["-inf"], "hi": ["+inf"]}`)
	f.Add(`{"A": [[1,0],[0,1]], "b": [1, -1], "lo": [-1, 1], "hi": [1, 1]}`)
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadProblem(strings.NewReader(in))
		if err != nil {
			return
		}
		if p.N() > 8 {
			return
		}
		for _, s := range solvers() {
			var r Result
			_ = s.Solve(&r, p, Settings{MaxIterations: 500})
		}
		_, _ = ReadSolution(strings.NewReader(in))
	})
}

// FuzzSolvers feeds arbitrary (valid) small problems to every solver: none
// may panic, and a Converged result must satisfy Eq. (2).
func FuzzSolvers(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(0))
	f.Add(uint64(7), uint8(9), uint8(2))
	f.Add(uint64(3), uint8(8), uint8(16+2))
	f.Add(uint64(5), uint8(6), uint8(16+8+1))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, kind uint8) {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		m := 1 + int(n)%10
		p := randomProblem(rng, m, genKind(kind%5))
		// Also arbitrary (possibly indefinite, non-symmetric) matrices.
		if kind&8 != 0 {
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					p.A.(*Dense).Set(i, j, math.Round(rng.NormFloat64()*4)/4)
				}
			}
		}
		if kind&16 != 0 {
			// The upper triangle as a symmetric *Sparse (indefinite with
			// kind&8: BPP's dense LU fallback).
			p.A = sparseFromDense(p.A.(*Dense))
		}
		for _, s := range solvers() {
			var r Result
			err := s.Solve(&r, p, Settings{MaxIterations: 300})
			if err == nil && r.Status == Converged {
				w := p.Residual(nil, r.X)
				for i := range w {
					if math.Abs(w[i]-r.W[i]) > 1e-6*(1+math.Abs(w[i])) {
						t.Fatalf("%s: w[%d] = %v, A x + b = %v", s.Name(), i, r.W[i], w[i])
					}
				}
			}
		}
	})
}

func benchProblem(n int) *Problem {
	return randomProblem(rand.New(rand.NewPCG(uint64(n), 99)), n, genMixed)
}

func BenchmarkBPP(b *testing.B) {
	for _, n := range []int{30, 120, 480} {
		p := benchProblem(n)
		var r Result
		s := &BPP{}
		require.NoError(b, s.Solve(&r, p, Settings{}))
		cold := r.Iterations
		start := append([]State(nil), r.States...)
		b.Run(fmt.Sprintf("cold/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Solve(&r, p, Settings{})
			}
			b.ReportMetric(float64(cold), "iters")
		})
		// Warm: start from the solution's index sets with b perturbed by
		// 1 %, as between time steps.
		q := *p
		q.B = append([]float64(nil), p.B...)
		rng := rand.New(rand.NewPCG(7, 7))
		for i := range q.B {
			q.B[i] *= 1 + 0.01*rng.NormFloat64()
		}
		require.NoError(b, s.Solve(&r, &q, Settings{Start: start}))
		warm := r.Iterations
		b.Run(fmt.Sprintf("warm/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Solve(&r, &q, Settings{Start: start})
			}
			b.ReportMetric(float64(warm), "iters")
		})
	}
}

func BenchmarkPGS(b *testing.B) {
	for _, n := range []int{30, 120, 480} {
		p := benchProblem(n)
		var r Result
		s := &PGS{}
		b.Run(fmt.Sprintf("100sweeps/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Solve(&r, p, Settings{MaxIterations: 100, Tolerance: 1e-300})
			}
		})
	}
}

// A positive semidefinite A (rank 6 from 12 rows, as a box on four
// contact points with box friction) with a consistent b: BPP switches to
// its proximal regularization and returns a solution of the true MLCP,
// for Dense and Sparse alike.
func TestBPPSemidefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 20; trial++ {
		const n, r = 12, 6
		j := make([][]float64, n)
		for i := range j {
			j[i] = make([]float64, r)
			for k := range j[i] {
				j[i][k] = rng.NormFloat64()
			}
		}
		rows := make([][]float64, n)
		b := make([]float64, n)
		lo := make([]float64, n)
		hi := make([]float64, n)
		v := make([]float64, r)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		for i := range rows {
			rows[i] = make([]float64, n)
			for k := range rows[i] {
				for c := 0; c < r; c++ {
					rows[i][k] += j[i][c] * j[k][c]
				}
			}
			for c := 0; c < r; c++ {
				b[i] += j[i][c] * v[c] // b = J v: in the range of A
			}
			if i < 4 {
				lo[i], hi[i] = 0, inf // normal rows
			} else {
				lo[i], hi[i] = -0.5, 0.5 // box friction
			}
		}
		d, err := DenseFromRows(rows)
		require.NoError(t, err)
		for _, a := range []Matrix{d, sparseFromDense(d)} {
			p := &Problem{A: a, B: b, Lo: lo, Hi: hi}
			var res Result
			// Tolerance 1e-10 asks for the same accuracy as on a definite
			// problem (by default a semidefinite one is solved to 1e-6).
			require.NoError(t, (&BPP{}).Solve(&res, p, Settings{Tolerance: 1e-10}), "trial %d", trial)
			require.Equal(t, Converged, res.Status)
			w := p.Residual(nil, res.X)
			// 1e-8: the tolerance is 1e-10 of max|b| ≈ 10.
			for i := range w {
				x := res.X[i]
				require.GreaterOrEqual(t, x, lo[i]-1e-8)
				require.LessOrEqual(t, x, hi[i]+1e-8)
				switch {
				case x > lo[i]+1e-8 && x < hi[i]-1e-8:
					require.InDelta(t, 0, w[i], 1e-8, "trial %d row %d free", trial, i)
				case x <= lo[i]+1e-8:
					require.GreaterOrEqual(t, w[i], -1e-8, "trial %d row %d at lower", trial, i)
				default:
					require.LessOrEqual(t, w[i], 1e-8, "trial %d row %d at upper", trial, i)
				}
			}
		}
	}
}
