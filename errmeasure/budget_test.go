package errmeasure

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gorigid/gorigid/lcp"
)

// schurInverseMass returns āᵢ = aᵢᵢ − a_{i,R} A_R⁻¹ a_{R,i} (R: the other
// rows), the Schur complement of A_R in A, which equals 1/{A⁻¹}ᵢᵢ of Eq. (11)
// by the block inversion formula: an independent route to the exact
// effective mass (n solves of size n−1 instead of one inverse).
func schurInverseMass(t testing.TB, A lcp.Matrix) []float64 {
	t.Helper()
	n, _ := A.Dims()
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		if n == 1 {
			out[i] = A.At(0, 0)
			continue
		}
		r := mat.NewDense(n-1, n-1, nil)
		c := mat.NewVecDense(n-1, nil)
		for a, ra := 0, 0; a < n; a++ {
			if a == i {
				continue
			}
			c.SetVec(ra, A.At(a, i))
			for b, rb := 0, 0; b < n; b++ {
				if b == i {
					continue
				}
				r.Set(ra, rb, A.At(a, b))
				rb++
			}
			ra++
		}
		var y mat.VecDense
		must(t, y.SolveVec(r, c))
		out[i] = A.At(i, i) - mat.Dot(c, &y)
	}
	return out
}

// randomBoxProblem returns a problem with A = J Jᵀ + c I (J n×k random normal), b
// = J v − e (a mix of approaching and separating rows), and boxes of every
// kind the stepper builds: bilateral, contact normal, friction box, fixed.
// k < n and c = 0 make A singular (PSD).
func randomBoxProblem(rng *rand.Rand, n, k int, c float64) *lcp.Problem {
	j := make([]float64, n*k)
	for i := range j {
		j[i] = rng.NormFloat64()
	}
	a := lcp.NewDense(n, n, nil)
	for r := 0; r < n; r++ {
		for s := 0; s < n; s++ {
			d := 0.0
			for q := 0; q < k; q++ {
				d += j[r*k+q] * j[s*k+q]
			}
			a.Set(r, s, d)
		}
		a.Set(r, r, a.At(r, r)+c)
	}
	inf := math.Inf(1)
	p := &lcp.Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	v := make([]float64, k)
	for q := range v {
		v[q] = rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		for q := 0; q < k; q++ {
			p.B[i] += j[i*k+q] * v[q]
		}
		switch r := rng.IntN(10); {
		case r < 2:
			p.Lo[i], p.Hi[i] = -inf, inf
		case r < 6:
			p.Lo[i], p.Hi[i] = 0, inf
		case r < 9:
			mu := 0.2 + rng.Float64()
			p.Lo[i], p.Hi[i] = -mu, mu
		default:
			p.Lo[i], p.Hi[i] = -0.5, -0.5+rng.Float64()
		}
	}
	return p
}

// TestEnergyExactPickerMass: under EnergyExact the Picker ranks with
// 1/{A⁻¹}ᵢᵢ (Eq. 11): 3/4 kg⁻¹ on the rod (m̄_eff = 4/3 kg, Eq. 27), and the
// Schur complement on random SPD problems; its energy totals are Compute's
// with that mass; on singular PSD problems it uses 1/{A⁺}ᵢᵢ, checked against
// the closed form of A⁺ for A = J Jᵀ.
func TestEnergyExactPickerMass(t *testing.T) {
	pk := NewPicker(EnergyExact)
	rod := rodProblem(t)
	pk.Reset(rod, EnergyExact)
	if !pk.ExactMass() {
		t.Fatal("rod: exact mass not used")
	}
	near(t, "rod ā₁", 0.75, pk.a[0], 1e-15) // rounding of one 2×2 Cholesky inverse
	near(t, "rod ā₂", 0.75, pk.a[1], 1e-15)

	rng := rand.New(rand.NewPCG(17, 1))
	for trial := 0; trial < 40; trial++ {
		n := 2 + rng.IntN(20)
		p := randomBoxProblem(rng, n, n+2, 0)
		want := schurInverseMass(t, p.A)
		pk.Reset(p, EnergyExact)
		if !pk.ExactMass() {
			t.Fatalf("trial %d: exact mass not used on an SPD problem", trial)
		}
		for i := range want {
			// Two factorizations of a random J Jᵀ (condition ≲ 10⁴):
			// relative rounding well below 1e-9.
			nearRel(t, "ā", want[i], pk.a[i], 1e-9)
			if pk.a[i] > p.A.At(i, i)*(1+1e-12) {
				t.Errorf("trial %d row %d: ā = %v > aᵢᵢ = %v (the appendix's āᵢ ≤ aᵢᵢ)", trial, i, pk.a[i], p.A.At(i, i))
			}
		}
		var r lcp.Result
		sol, err := Solve(&r, p, &lcp.BPP{}, lcp.Settings{MaxIterations: 2}, pk)
		must(t, err)
		nearRel(t, "energy total", Compute(p, r.X, r.W, want).Energy, sol.Totals.Energy, 1e-8) // the same sum with ā to 1e-9
	}
	// A singular A = J Jᵀ (rank 2 of 5): Eq. (11) through the
	// pseudoinverse, A⁺ = J (JᵀJ)⁻² Jᵀ for J of full column rank.
	for trial := 0; trial < 20; trial++ {
		n, k := 3+rng.IntN(8), 1+rng.IntN(2)
		jm := mat.NewDense(n, k, nil)
		for i := 0; i < n; i++ {
			for q := 0; q < k; q++ {
				jm.Set(i, q, rng.NormFloat64())
			}
		}
		var a mat.Dense
		a.Mul(jm, jm.T())
		A := lcp.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				A.Set(i, j, a.At(i, j)) // exactly symmetric: the product's rounding may differ across the diagonal
				A.Set(j, i, a.At(i, j))
			}
		}
		var jtj, inv, inv2, tmp, pinv mat.Dense
		jtj.Mul(jm.T(), jm)
		must(t, inv.Inverse(&jtj))
		inv2.Mul(&inv, &inv)
		tmp.Mul(jm, &inv2)
		pinv.Mul(&tmp, jm.T())
		p := &lcp.Problem{A: A, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
		pk.Reset(p, EnergyExact)
		if !pk.ExactMass() {
			t.Fatalf("singular trial %d: pseudoinverse mass not used", trial)
		}
		for i := 0; i < n; i++ {
			// Eigendecomposition against a closed form with a k×k inverse:
			// rounding relative to the condition of JᵀJ (≲ 10³ here).
			nearRel(t, "ā (pseudoinverse)", 1/pinv.At(i, i), pk.a[i], 1e-8)
		}
	}
	// An indefinite A has no effective masses: PseudoInverseMass says so.
	ind, err := lcp.DenseFromRows([][]float64{{1, 2}, {2, 1}})
	must(t, err)
	if _, err := PseudoInverseMass(ind); err == nil {
		t.Error("indefinite A: no error")
	}
}

// energyDistance is ½(x − x*)ᵀA(x − x*).
func energyDistance(p *lcp.Problem, x, xs []float64) float64 {
	d := make([]float64, len(x))
	for i := range d {
		d[i] = x[i] - xs[i]
	}
	ad := make([]float64, len(d))
	p.A.MulVecTo(ad, d)
	s := 0.0
	for i := range d {
		s += d[i] * ad[i]
	}
	return s / 2
}

// boundCase checks CertifiedBound on x against the known solution xs and
// returns the bound and the distance.
func boundCase(t *testing.T, name string, p *lcp.Problem, x, xs []float64) (bound, dist float64) {
	t.Helper()
	w := p.Residual(nil, x)
	bound = CertifiedBound(p, x, w)
	dist = energyDistance(p, x, xs)
	if math.IsInf(bound, 1) {
		return bound, dist
	}
	// Rounding: β and the distance are sums of products of size
	// Σ|wᵢxᵢ| and x*ᵀAx*; 1e-9 of them is far above double rounding.
	scale := 1.0
	for i := range x {
		scale += math.Abs(w[i]*x[i]) + math.Abs(xs[i]*p.A.RowDot(i, xs))
	}
	if !(dist <= bound+1e-9*scale) || bound < 0 {
		t.Errorf("%s: certified bound %.6g < distance ½(x−x*)ᵀA(x−x*) = %.6g", name, bound, dist)
	}
	return bound, dist
}

// TestCertifiedBoundHolds: on the symmetric PSD problems of testdata/mlcp's
// collection (known x) and on random SPD and singular PSD problems (x* from
// BPP, converged), for every BPP iterate, every iterate polished by 1 and 5
// sweeps, and random points of the box, CertifiedBound ≥ ½(x−x*)ᵀA(x−x*)
// whenever it is finite. It logs how often it is finite and its median
// tightness (bound / distance).
func TestCertifiedBoundHolds(t *testing.T) {
	var finite, total int
	var ratios []float64
	check := func(name string, p *lcp.Problem, xs []float64, rng *rand.Rand) {
		n := p.N()
		var xsIts [][]float64
		var r lcp.Result
		set := lcp.Settings{MaxIterations: 30, Observer: lcp.ObserverFunc(func(it lcp.Iterate) {
			xsIts = append(xsIts, append([]float64(nil), it.X...))
		})}
		_ = (&lcp.BPP{}).Solve(&r, p, set) // a breakdown still leaves its iterates
		for k := 0; k < 5; k++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = min(max(2*rng.NormFloat64(), p.Lo[i]), p.Hi[i])
			}
			xsIts = append(xsIts, x)
		}
		w := make([]float64, n)
		for _, x0 := range xsIts {
			for _, sweeps := range []int{0, 1, 5} {
				x := append([]float64(nil), x0...)
				if _, err := lcp.Polish(x, w, p, sweeps); err != nil {
					t.Fatal(err)
				}
				b, d := boundCase(t, name, p, x, xs)
				total++
				if !math.IsInf(b, 1) {
					finite++
					if d > 1e-12 {
						ratios = append(ratios, b/d)
					}
				}
			}
		}
	}
	files, err := filepath.Glob("../testdata/mlcp/*.json")
	must(t, err)
	sort.Strings(files)
	rng := rand.New(rand.NewPCG(17, 2))
	nfiles := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		var meta struct {
			Class string    `json:"class"`
			X     []float64 `json:"x"`
		}
		must(t, json.Unmarshal(data, &meta))
		if !strings.HasPrefix(meta.Class, "symmetric positive") || meta.X == nil {
			continue
		}
		p, err := lcp.ReadProblem(bytes.NewReader(data))
		must(t, err)
		nfiles++
		check(filepath.Base(f), p, meta.X, rng)
	}
	if nfiles < 5 {
		t.Fatalf("only %d symmetric PSD collection problems with a known x", nfiles)
	}
	solved := 0
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(25)
		var p *lcp.Problem
		if trial%2 == 0 {
			p = randomBoxProblem(rng, n, n+2, 0)
		} else {
			p = randomBoxProblem(rng, n, max(1, n/2), 0)
		}
		var r lcp.Result
		if err := (&lcp.BPP{}).Solve(&r, p, lcp.Settings{}); err != nil || r.Status != lcp.Converged {
			continue // a singular free block: no reference x*
		}
		solved++
		check("random", p, r.X, rng)
	}
	if solved < 150 {
		t.Fatalf("BPP solved only %d of 200 random problems", solved)
	}
	sort.Float64s(ratios)
	med := math.NaN()
	if len(ratios) > 0 {
		med = ratios[len(ratios)/2]
	}
	t.Logf("certified bound finite on %d of %d iterates (%.0f %%); median bound/distance %.3g over %d with distance > 0", finite, total, 100*float64(finite)/float64(total), med, len(ratios))
	// Rows without a bound on one side (bilateral rows, contact normals)
	// make β infinite unless their wᵢ has the right sign or is exactly 0,
	// so most iterates of these problems have no finite bound; a few
	// hundred finite ones are needed for the test to mean something.
	if finite < 200 || len(ratios) < 100 {
		t.Errorf("bound finite on only %d of %d iterates (%d with distance > 0): the test exercises too little", finite, total, len(ratios))
	}
}

// TestPolishAfterSolve: one BPP pivot on the rod, then Polish. The rod's
// answer x* = (0.6574, 0.2268)… has both contacts active, so 40 sweeps of
// PGS (rate ¼ per sweep on this 2×2) reach it, the status becomes
// Converged with a reason, and the totals and the bound are recomputed.
func TestPolishAfterSolve(t *testing.T) {
	p := rodProblem(t)
	pk := NewPicker(Energy)
	var r lcp.Result
	sol, err := Solve(&r, p, &lcp.BPP{}, lcp.Settings{MaxIterations: 1}, pk)
	must(t, err)
	if r.Status == lcp.Converged {
		t.Fatalf("one pivot solved the rod: the test needs an unconverged start")
	}
	one := sol
	r1 := lcp.Result{X: append([]float64(nil), r.X...), W: append([]float64(nil), r.W...), Status: r.Status}
	must(t, Polish(&r1, p, 1, pk, &one))
	must(t, Polish(&r, p, 40, pk, &sol))
	if r.Status != lcp.Converged || r.Reason == "" {
		t.Errorf("after 40 sweeps: status %v (%q), want converged with a reason", r.Status, r.Reason)
	}
	if sol.Sweeps < 1 || sol.Sweeps > 40 {
		t.Errorf("Sweeps = %d", sol.Sweeps)
	}
	// x* from the 2×2 system A x = −b with both rows free.
	xs := []float64{(0.2981*1 + 0.5*-0.1019) / 0.75, (-0.1019 + 0.5*0.2981) / 0.75}
	for i := range xs {
		near(t, "x", xs[i], r.X[i], 1e-9) // PGS's stop at 1e-10 of max|b| in velocity, over aᵢᵢ = 1
	}
	near(t, "energy total", Compute(p, r.X, r.W, nil).Energy, sol.Totals.Energy, 0)
	// The rod's rows have no upper bound, so the bound is finite only when
	// both wᵢ ≥ 0; Polish reports whatever CertifiedBound says.
	if want := CertifiedBound(p, r1.X, r1.W); one.Bound != want {
		t.Errorf("bound after 1 sweep %v, CertifiedBound says %v", one.Bound, want)
	}
	if want := CertifiedBound(p, r.X, r.W); sol.Bound != want {
		t.Errorf("bound after 40 sweeps %v, CertifiedBound says %v", sol.Bound, want)
	}
	if err := Polish(&r, p, -1, pk, &sol); err == nil {
		t.Error("negative sweeps: no error")
	}
}

// TestPolishSkipsOutsideBox: a pick outside its box is returned as it is,
// with no sweeps (errmeasure.Polish's rule), and InBox says why.
func TestPolishSkipsOutsideBox(t *testing.T) {
	p := rodProblem(t)
	pk := NewPicker(Last)
	pk.Reset(p, Last)
	x := []float64{-0.1, 0.2} // x₁ < l₁ = 0
	r := lcp.Result{X: append([]float64(nil), x...), W: p.Residual(nil, x), Status: lcp.BudgetExhausted}
	s := Solved{Bound: math.Inf(1)}
	must(t, Polish(&r, p, 5, pk, &s))
	if s.Sweeps != 0 || r.X[0] != x[0] || r.X[1] != x[1] || r.Status != lcp.BudgetExhausted {
		t.Errorf("polished an x outside its box: sweeps %d, x %v, status %v", s.Sweeps, r.X, r.Status)
	}
	if InBox(p, x) {
		t.Error("InBox(x₁ = −0.1 ≥ 0) is true")
	}
	if !InBox(p, []float64{0, 0.2}) || !InBox(p, []float64{-1e-12, 0.2}) { // τ = 10⁻¹⁰·0.2981/1
		t.Error("InBox false on the bound or within its tolerance")
	}
}
