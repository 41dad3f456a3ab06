package errmeasure

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// randomSPD returns a random symmetric positive definite n×n matrix
// B Bᵀ/n + 0.1 I, a lead matrix with coupled rows as a pile of bodies gives.
func randomSPD(rng *rand.Rand, n int) *lcp.Dense {
	B := make([]float64, n*n)
	for i := range B {
		B[i] = rng.NormFloat64()
	}
	A := lcp.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for k := 0; k < n; k++ {
				s += B[i*n+k] * B[j*n+k]
			}
			s /= float64(n)
			if i == j {
				s += 0.1
			}
			A.Set(i, j, s)
			A.Set(j, i, s)
		}
	}
	return A
}

// randomSolved builds a random MLCP with a known solution: an SPD A, bounds
// of every kind gorigid uses, for each row a state (free, at lower, at upper)
// with x and w consistent with Eqs. (3)–(4), and b = w − A x. It returns the
// problem and the solution (x, w), with w exactly as constructed.
func randomSolved(rng *rand.Rand, n int) (*lcp.Problem, []float64, []float64) {
	A := randomSPD(rng, n)
	lo, hi := make([]float64, n), make([]float64, n)
	x, w := make([]float64, n), make([]float64, n)
	// velocity returns a w of the given sign, sometimes exactly 0 (a
	// degenerate solution where x is at the bound and w = 0).
	velocity := func(sign float64) float64 {
		if rng.IntN(5) == 0 {
			return 0
		}
		return sign * (0.05 + rng.ExpFloat64())
	}
	for i := 0; i < n; i++ {
		switch rng.IntN(5) {
		case 0: // contact normal: lo = 0, hi = +∞
			lo[i], hi[i] = 0, inf
			if rng.IntN(2) == 0 {
				x[i], w[i] = 0, velocity(1) // separating
			} else {
				x[i] = 0.1 + rng.ExpFloat64() // pressing
			}
		case 1: // box friction: ±μ x̂ₙ
			c := 0.1 + rng.Float64()
			lo[i], hi[i] = -c, c
			switch rng.IntN(3) {
			case 0:
				x[i], w[i] = -c, velocity(1)
			case 1:
				x[i], w[i] = c, velocity(-1)
			default: // sticking, kept well inside the box
				x[i] = -c + (0.1+0.8*rng.Float64())*2*c
			}
		case 2: // bilateral joint row
			lo[i], hi[i] = -inf, inf
			x[i] = rng.NormFloat64()
		case 3: // zero-width box: x = l = u, any w
			c := rng.NormFloat64()
			lo[i], hi[i] = c, c
			x[i], w[i] = c, rng.NormFloat64()
		default: // one-sided upper bound (a motor limit)
			c := rng.NormFloat64()
			lo[i], hi[i] = -inf, c
			if rng.IntN(2) == 0 {
				x[i], w[i] = c, velocity(-1)
			} else {
				x[i] = c - 0.1 - rng.ExpFloat64()
			}
		}
	}
	b := make([]float64, n)
	A.MulVecTo(b, x)
	for i := range b {
		b[i] = w[i] - b[i]
	}
	return &lcp.Problem{A: A, B: b, Lo: lo, Hi: hi}, x, w
}

// TestZeroIffSolution: on random problems all three measures are zero at the
// constructed solution (exactly with the constructed w, to rounding with
// w = A x + b recomputed) and positive once x is perturbed (paper §6: the
// energy error is zero if and only if x solves the MLCP).
func TestZeroIffSolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(2019, 1115))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(10)
		p, x, w := randomSolved(rng, n)
		if err := p.Validate(); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, a := range [][]float64{nil, mustExact(t, p.A)} {
			if tot := Compute(p, x, w, a); tot != (Totals{}) {
				t.Fatalf("trial %d: constructed solution has totals %+v, want 0", trial, tot)
			}
			// Scales: |x|, |w| are O(1); an energy is ½ a x² or w²/(2a).
			var sx, se float64
			aa := p.Diag(nil)
			for i := range x {
				sx = max(sx, math.Abs(x[i]), math.Abs(w[i]), math.Abs(p.B[i]))
				se = max(se, 0.5*aa[i]*x[i]*x[i], 0.5*w[i]*w[i]/aa[i], 0.5*p.B[i]*p.B[i]/aa[i])
			}
			sx, se = max(sx, 1), max(se, 1)
			wr := p.Residual(nil, x)
			tot := Compute(p, x, wr, a)
			// 1e-12 of the scale: A x + b = w holds to ~1e-15·scale, and a
			// measure of it is at most linear in that rounding.
			if tot.FB > 1e-12*sx || tot.Residual > 1e-12*sx || tot.Energy > 1e-12*se {
				t.Fatalf("trial %d: solution with w = A x + b has totals %+v (scales %g, %g J)", trial, tot, sx, se)
			}
			// Perturb some rows by 0.05–0.55 N·s: x' is not the (unique, A is
			// SPD) solution, so every measure must be clearly positive.
			xp := append([]float64(nil), x...)
			k := rng.IntN(n)
			for i := range xp {
				if i == k || rng.IntN(3) == 0 {
					xp[i] += math.Copysign(0.05+0.5*rng.Float64(), rng.NormFloat64())
				}
			}
			wp := p.Residual(nil, xp)
			tot = Compute(p, xp, wp, a)
			// 1e-6 of the scale: far above the 1e-12 of rounding, far below
			// the ~1e-3 that a 0.05 N·s perturbation makes.
			if !(tot.FB > 1e-6*sx && tot.Residual > 1e-6*sx && tot.Energy > 1e-6*se) {
				t.Fatalf("trial %d: perturbed x has totals %+v, want all positive", trial, tot)
			}
		}
	}
}

func mustExact(t testing.TB, A lcp.Matrix) []float64 {
	t.Helper()
	a, err := ExactInverseMass(A)
	must(t, err)
	return a
}

// scaleMass changes the mass unit by s: A → A/s, x → s x, bounds → s·bounds;
// b and w are unchanged (velocities do not involve mass).
func scaleMass(p *lcp.Problem, x []float64, s float64) (*lcp.Problem, []float64) {
	n := p.N()
	A := lcp.NewDense(n, n, nil)
	q := &lcp.Problem{A: A, B: p.B, Lo: make([]float64, n), Hi: make([]float64, n)}
	xs := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, p.A.At(i, j)/s)
		}
		q.Lo[i], q.Hi[i], xs[i] = s*p.Lo[i], s*p.Hi[i], s*x[i]
	}
	return q, xs
}

// TestUnitConsistency: changing the mass unit by s scales every row's energy
// error by exactly s (J = kg·m²/s²), whereas the FB and residual errors do
// not scale uniformly: impulse errors scale by s and velocity errors by 1
// (§3.3).
func TestUnitConsistency(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	type candidate struct {
		name string
		p    *lcp.Problem
		x, w []float64
	}
	rod := rodProblem(t)
	cands := []candidate{
		{"rod, paper's w", rod, rodX, rodPaperW},
		{"rod, w = A x + b", rod, rodX, rod.Residual(nil, rodX)},
	}
	for k := 0; k < 20; k++ {
		p, x, _ := randomSolved(rng, 1+rng.IntN(10))
		for i := range x {
			x[i] += 0.3 * rng.NormFloat64()
		}
		cands = append(cands, candidate{"random perturbed", p, x, p.Residual(nil, x)})
	}
	tests := []struct {
		s      float64
		relTol float64
	}{
		// A power of two scales every operand exactly (no subnormals here),
		// so every rounding scales too: the result must be bit-exact.
		{8, 0},
		{1.0 / 16, 0},
		// s = 1000 g/kg: each operation rounds differently; a few ulps.
		{1000, 1e-12},
	}
	for _, tc := range tests {
		for _, c := range cands {
			q, xs := scaleMass(c.p, c.x, tc.s)
			r0, _ := Rows(nil, c.p, c.x, c.w, nil)
			r1, _ := Rows(nil, q, xs, c.w, nil)
			for i := range r0 {
				want := tc.s * r0[i].Energy
				if math.Abs(r1[i].Energy-want) > tc.relTol*want {
					t.Errorf("%s, s=%v, row %d: energy %.17g, want s·%.17g = %.17g", c.name, tc.s, i, r1[i].Energy, r0[i].Energy, want)
				}
			}
		}
	}

	// FB and residual: on the rod, row 1's error is a velocity (unchanged)
	// and row 2's an impulse (scaled by s), so no single factor maps the
	// totals. Exact for s = 8, as above.
	const s = 8
	q, xs := scaleMass(rod, rodX, s)
	r0, _ := Rows(nil, rod, rodX, rodPaperW, nil)
	r1, _ := Rows(nil, q, xs, rodPaperW, nil)
	if r1[0].FB != r0[0].FB || r1[0].Residual != r0[0].Residual {
		t.Errorf("row 1 (velocity error): FB %v→%v, residual %v→%v, want unchanged", r0[0].FB, r1[0].FB, r0[0].Residual, r1[0].Residual)
	}
	if r1[1].FB != s*r0[1].FB || r1[1].Residual != s*r0[1].Residual {
		t.Errorf("row 2 (impulse error): FB %v→%v, residual %v→%v, want ×%d", r0[1].FB, r1[1].FB, r0[1].Residual, r1[1].Residual, s)
	}
	if r1[0].Energy != s*r0[0].Energy || r1[1].Energy != s*r0[1].Energy {
		t.Errorf("energies %v, %v → %v, %v, want ×%d", r0[0].Energy, r0[1].Energy, r1[0].Energy, r1[1].Energy, s)
	}

	// The exact effective mass scales too (Eq. 11): ā → ā/s, so the energy
	// with it scales by s; 1e-14 for the two Cholesky factorizations.
	a0, a1 := mustExact(t, rod.A), mustExact(t, q.A)
	e0, e1 := Compute(rod, rodX, rodPaperW, a0).Energy, Compute(q, xs, rodPaperW, a1).Energy
	nearRel(t, "exact-mass energy ×8", s*e0, e1, 1e-14)
}

// TestRowsComputeTotalOfAgree checks the three entry points against each
// other and the measures' ℓ1 sums (Eqs. 7, 10, 23), and that Rows reuses dst.
func TestRowsComputeTotalOfAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	p, x, _ := randomSolved(rng, 9)
	for i := range x {
		x[i] += rng.NormFloat64()
	}
	w := p.Residual(nil, x)
	dst := make([]RowErrors, 3, 20)
	rows, tot := Rows(dst, p, x, w, nil)
	if len(rows) != 9 || &rows[0] != &dst[:1][0] {
		t.Fatalf("Rows did not reuse dst (len %d)", len(rows))
	}
	var sum Totals
	for i, r := range rows {
		sum.FB += FBRow(x[i], w[i], p.Lo[i], p.Hi[i])
		sum.Residual += ResidualRow(x[i], w[i], p.Lo[i], p.Hi[i])
		sum.Energy += EnergyRow(x[i], w[i], p.Lo[i], p.Hi[i], p.A.At(i, i))
		if r.Energy < 0 || r.FB < 0 || r.Residual < 0 {
			t.Errorf("row %d negative: %+v", i, r)
		}
	}
	if sum != tot || Compute(p, x, w, nil) != tot || Compute(p, x, w, p.Diag(nil)) != tot {
		t.Errorf("totals disagree: sum %+v, Rows %+v, Compute %+v", sum, tot, Compute(p, x, w, nil))
	}
	for _, m := range []Measure{Energy, FB, Residual} {
		if got := TotalOf(m, p, x, w, nil); got != tot.Of(m) {
			t.Errorf("TotalOf(%v) = %v, want %v", m, got, tot.Of(m))
		}
	}
	if got := TotalOf(Last, p, x, w, nil); got != 0 {
		t.Errorf("TotalOf(Last) = %v, want 0", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("Compute with a short w did not panic")
		}
	}()
	Compute(p, x, w[:3], nil)
}

func TestExactInverseMass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Symmetric positive definite: Cholesky; 1/{A⁻¹}ᵢᵢ ≤ aᵢᵢ (appendix).
	for trial := 0; trial < 50; trial++ {
		n := 1 + rng.IntN(12)
		A := randomSPD(rng, n)
		a, err := ExactInverseMass(A)
		must(t, err)
		for i := range a {
			// 1e-12 relative: the bound is exact; the inverse has rounding.
			if a[i] > A.At(i, i)*(1+1e-12) || !(a[i] > 0) {
				t.Errorf("n=%d row %d: ā = %v, aᵢᵢ = %v; want 0 < ā ≤ aᵢᵢ", n, i, a[i], A.At(i, i))
			}
		}
	}
	// Diagonal A: the approximation of Eq. (12) is exact.
	D, _ := lcp.DenseFromRows([][]float64{{2, 0}, {0, 0.25}})
	a, err := ExactInverseMass(D)
	must(t, err)
	nearRel(t, "diagonal ā₁", 2, a[0], 1e-15) // √2 from Cholesky, squared
	nearRel(t, "diagonal ā₂", 0.25, a[1], 1e-15)
	// Non-symmetric but invertible with a positive inverse diagonal: LU.
	// For [[1, 1], [0, 2]], A⁻¹ = [[1, −0.5], [0, 0.5]].
	N, _ := lcp.DenseFromRows([][]float64{{1, 1}, {0, 2}})
	a, err = ExactInverseMass(N)
	must(t, err)
	near(t, "LU ā₁", 1, a[0], 1e-15) // one LU rounding
	near(t, "LU ā₂", 2, a[1], 1e-15)

	bad := []struct {
		name      string
		A         lcp.Matrix
		singular  bool
		wantInErr string
	}{
		{"not square", lcp.NewDense(2, 3, nil), false, "not square"},
		{"nil", nil, false, "missing"},
		{"singular", mustDense(t, [][]float64{{1, 1}, {1, 1}}), true, "invert"},
		{"zero", lcp.NewDense(3, 3, nil), true, "invert"},
		{"indefinite", mustDense(t, [][]float64{{1, 2}, {2, 1}}), false, "not positive definite"},
		{"NaN", mustDense(t, [][]float64{{1, math.NaN()}, {0, 1}}), false, "A[0][1]"},
	}
	for _, tc := range bad {
		a, err := ExactInverseMass(tc.A)
		if err == nil {
			t.Errorf("%s: no error, got %v", tc.name, a)
			continue
		}
		if tc.singular != errors.Is(err, lcp.ErrSingular) {
			t.Errorf("%s: errors.Is(err, ErrSingular) = %v: %v", tc.name, !tc.singular, err)
		}
		if !strings.Contains(err.Error(), tc.wantInErr) {
			t.Errorf("%s: error %q does not mention %q", tc.name, err, tc.wantInErr)
		}
	}
	if a, err := ExactInverseMass(lcp.NewDense(0, 0, nil)); err != nil || len(a) != 0 {
		t.Errorf("0×0: %v, %v", a, err)
	}
}

func mustDense(t testing.TB, rows [][]float64) *lcp.Dense {
	t.Helper()
	d, err := lcp.DenseFromRows(rows)
	must(t, err)
	return d
}

func TestParseMeasure(t *testing.T) {
	for m := Energy; m <= EnergyExact; m++ {
		got, err := ParseMeasure(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v", m.String(), got, err)
		}
	}
	if got, err := ParseMeasure(" FB "); err != nil || got != FB {
		t.Errorf("ParseMeasure(\" FB \") = %v, %v", got, err)
	}
	_, err := ParseMeasure("l2")
	if err == nil || !strings.Contains(err.Error(), `"l2"`) || !strings.Contains(err.Error(), "energy, energy-exact, fb, residual or last") {
		t.Errorf("ParseMeasure(\"l2\") error = %v", err)
	}
	if s := Measure(9).String(); s != "Measure(9)" {
		t.Errorf("Measure(9).String() = %q", s)
	}
}

// TestRowErrorsSameBits checks Compute's one-sided row errors (rowErrors)
// against FBRow, ResidualRow and EnergyRow bit for bit, NaN for NaN, on
// every combination of impulses, velocities, bounds and masses among
// signed zeros, infinities, NaN, values at and beside the bounds, and
// magnitudes that take fbPhi's rescaling (2⁻⁴⁵⁰, 2⁴⁵⁰): the fast path
// must be an exact rewrite, since the Picker's choice and Stats.Errors
// (the papers' error curves) are sums of these.
func TestRowErrorsSameBits(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.3, -2.5, 1e-300, 0x1p-450, 0x1p450, -0x1p450, 1e300, inf, -inf, nan}
	bounds := [][2]float64{{0, inf}, {-inf, inf}, {-0.5, 0.5}, {-1, 1}, {0, 0}, {math.Copysign(0, -1), inf}, {-inf, 0}, {-0x1p450, 0x1p450}, {1, -1}, {nan, inf}}
	masses := []float64{1, 0.25, 0, -1, inf, nan, 1e-300, 1e300}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || (a != a && b != b) }
	checked, fast := 0, 0
	for _, bd := range bounds {
		lo, hi := bd[0], bd[1]
		xs := append([]float64{lo, hi, math.Nextafter(lo, inf), math.Nextafter(hi, -inf)}, vals...)
		for _, x := range xs {
			for _, w := range vals {
				for _, a := range masses {
					fb, res, e := rowErrors(x, w, lo, hi, a)
					wfb, wres, we := FBRow(x, w, lo, hi), ResidualRow(x, w, lo, hi), EnergyRow(x, w, lo, hi, a)
					if !same(fb, wfb) || !same(res, wres) || !same(e, we) {
						t.Fatalf("x %g w %g [%g, %g] a %g: rowErrors %g %g %g, the row functions %g %g %g",
							x, w, lo, hi, a, fb, res, e, wfb, wres, we)
					}
					checked++
					if lo <= x && x <= hi && !math.IsInf(x, 0) && w == w {
						fast++
					}
				}
			}
		}
	}
	if fast < checked/4 {
		t.Fatalf("only %d of %d cases took the one-sided path", fast, checked)
	}
}
