package lcp

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/mlcp's collection from its generators")

// collectionDir holds the test collection (see its README.md).
const collectionDir = "../testdata/mlcp"

// entry is one problem of the collection with what is known of it.
type entry struct {
	Name     string
	Class    string // the rows of the solver × class table (docs/cli.md)
	Source   string // provenance
	P        *Problem
	Solvable bool
	// X is the known solution (nil for an unsolvable problem); UniqueX says
	// whether every solution has this x (else only w is unique, or
	// neither: the test then checks the residual alone).
	X       []float64
	UniqueX bool
	UniqueW bool
}

// Problem classes, the rows of the solver × class table.
const (
	classSPD        = "symmetric positive definite"
	classPSD        = "symmetric positive semidefinite (degenerate, redundant)"
	classMonotone   = "non-symmetric monotone (PSD symmetric part)"
	classP          = "P-matrix, not monotone"
	classIndefinite = "neither P nor monotone, solvable"
	classCircuit    = "circuit MLCP (equations, zero-diagonal rows)"
	classNoSolution = "no solution"
)

func std(rows [][]float64, q []float64) *Problem {
	a, err := DenseFromRows(rows)
	if err != nil {
		panic(err)
	}
	n := len(q)
	p := &Problem{A: a, B: q, Lo: make([]float64, n), Hi: make([]float64, n)}
	for i := range p.Hi {
		p.Hi[i] = inf
	}
	return p
}

func fromInts(mm [][]int64, q []int64) ([][]float64, []float64) {
	rows := make([][]float64, len(mm))
	b := make([]float64, len(q))
	for i := range mm {
		rows[i] = make([]float64, len(mm[i]))
		for j, v := range mm[i] {
			rows[i][j] = float64(v)
		}
		b[i] = float64(q[i])
	}
	return rows, b
}

// degenerateEntry builds degenerateLCP's problem with its constructed
// solution z* (recomputed from the seed).
func degenerateEntry(name string, n, k int, skew bool, seed uint64) entry {
	mm, q := degenerateLCP(n, k, skew, seed)
	rows, b := fromInts(mm, q)
	ze, _, ok := exactLemke(mm, q, 10*n*n)
	if !ok {
		panic(name + ": the exact Lemke found no solution")
	}
	x := make([]float64, n)
	for i := range x {
		x[i], _ = ze[i].Float64()
	}
	class, src := classPSD, "M = BᵀB"
	if skew {
		class, src = classMonotone, "M = BᵀB + S, S skew-symmetric"
	}
	return entry{Name: name, Class: class, P: std(rows, b), Solvable: true, X: x, UniqueW: !skew,
		Source: fmt.Sprintf("constructed degenerate LCP in the style of the degenerate examples of Cottle, Pang & Stone (1992): %s with B %d×%d small integers, q = w* − M z* for a complementary z*, w* zero together on about a third of the rows (seed %d); x from an exact-rational Lemke", src, k, n, seed)}
}

// halfWave is an ideal-diode half-wave rectifier in modified nodal analysis
// (MNA): source E at node 1, diode from node 1 to node 2, resistor R from
// node 2 to ground. x = (v₁, v₂, j, λ): node voltages, the source current
// and the diode current; rows: KCL at nodes 1 and 2, the source equation
// v₁ = E, and the diode 0 ≤ λ ⊥ v₂ − v₁ ≥ 0.
func halfWave(e, r float64) (*Problem, []float64) {
	rows := [][]float64{
		{0, 0, -1, 1},
		{0, 1 / r, 0, -1},
		{1, 0, 0, 0},
		{-1, 1, 0, 0},
	}
	a, _ := DenseFromRows(rows)
	p := &Problem{A: a, B: []float64{0, 0, -e, 0}, Lo: []float64{-inf, -inf, -inf, 0}, Hi: []float64{inf, inf, inf, inf}}
	if e > 0 { // conducting: v₂ = v₁ = E, λ = j = E/R
		return p, []float64{e, e, e / r, e / r}
	}
	return p, []float64{e, 0, 0, 0} // blocking: λ = 0, v₂ = 0, w = −E
}

// bridge is a full-wave diode bridge: source E with internal resistance rs
// between nodes 1 and 2, diodes D1: 1→3, D2: 2→3, D3: 4→1, D4: 4→2, load rl
// from node 3 to node 4 = ground. x = (v₁, v₂, v₃, j, λ₁..λ₄).
func bridge(e, rs, rl float64) (*Problem, []float64) {
	rows := [][]float64{
		{0, 0, 0, -1, 1, 0, -1, 0},      // KCL 1: λ₁ − λ₃ − j = 0
		{0, 0, 0, 1, 0, 1, 0, -1},       // KCL 2: λ₂ − λ₄ + j = 0
		{0, 0, 1 / rl, 0, -1, -1, 0, 0}, // KCL 3: v₃/R_L − λ₁ − λ₂ = 0
		{1, -1, 0, rs, 0, 0, 0, 0},      // source: v₁ − v₂ + R_s j − E = 0
		{-1, 0, 1, 0, 0, 0, 0, 0},       // D1: v₃ − v₁ ≥ 0 ⊥ λ₁
		{0, -1, 1, 0, 0, 0, 0, 0},       // D2: v₃ − v₂ ⊥ λ₂
		{1, 0, 0, 0, 0, 0, 0, 0},        // D3: v₁ ⊥ λ₃
		{0, 1, 0, 0, 0, 0, 0, 0},        // D4: v₂ ⊥ λ₄
	}
	a, _ := DenseFromRows(rows)
	p := &Problem{A: a, B: []float64{0, 0, 0, -e, 0, 0, 0, 0},
		Lo: []float64{-inf, -inf, -inf, -inf, 0, 0, 0, 0}, Hi: []float64{inf, inf, inf, inf, inf, inf, inf, inf}}
	i := math.Abs(e) / (rs + rl)
	if e > 0 { // D1, D4 conduct: v₂ = 0, v₃ = v₁ = R_L i, j = i
		return p, []float64{rl * i, 0, rl * i, i, i, 0, 0, i}
	}
	// D2, D3 conduct: v₁ = 0, v₃ = v₂ = R_L i, j = −i
	return p, []float64{0, rl * i, rl * i, -i, 0, i, i, 0}
}

// ladder is a resistor ladder of k sections with an ideal clamping diode
// from every node 1..k to ground: source E at node 0 (MNA current j),
// resistors R between nodes i−1 and i, R_g from node k to ground, diode i
// with anode at node i and cathode at ground (0 ≤ λᵢ ⊥ −vᵢ ≥ 0). x =
// (v₀..v_k, j, λ₁..λ_k): 2k + 2 rows. For E > 0 diode 1 clamps v₁ = 0, all
// further nodes sit at 0 and their diodes carry nothing (λᵢ = 0 = wᵢ: a
// degenerate solution); for E < 0 every diode blocks and the ladder is a
// divider.
func ladder(k int, e, r, rg float64) (*Problem, []float64) {
	n := 2*k + 2
	a := NewDense(n, n, nil)
	jc := k + 1                                 // column of j
	lam := func(i int) int { return k + 1 + i } // column of λᵢ, i = 1..k
	g := 1 / r
	for i := 0; i <= k; i++ {
		if i > 0 {
			a.Add(i, i, g)
			a.Add(i, i-1, -g)
		}
		if i < k {
			a.Add(i, i, g)
			a.Add(i, i+1, -g)
		} else {
			a.Add(i, i, 1/rg)
		}
		if i > 0 {
			a.Set(i, lam(i), 1)  // λᵢ leaves node i
			a.Set(lam(i), i, -1) // diode row: w = −vᵢ
		}
	}
	a.Set(0, jc, -1) // j enters node 0
	a.Set(jc, 0, 1)  // source row: v₀ − E = 0
	p := &Problem{A: a, B: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n)}
	p.B[jc] = -e
	for i := 0; i < n; i++ {
		p.Lo[i], p.Hi[i] = -inf, inf
		if i > jc {
			p.Lo[i] = 0
		}
	}
	x := make([]float64, n)
	x[0] = e
	if e > 0 {
		x[jc] = e / r
		x[lam(1)] = e / r
		return p, x
	}
	cur := e / (float64(k)*r + rg)
	for i := 0; i <= k; i++ {
		x[i] = e - float64(i)*r*cur
	}
	x[jc] = cur
	return p, x
}

// boxOnGround is a box of mass m (kg) and principal inertia diag(Ix, Iy, Iz)
// resting on four corner contacts (x, y) = (±hx, ±hy) with box friction of
// fixed bounds ±μ m g h/4 and a tangential velocity v_t along x, time step
// h: A = J M⁻¹ Jᵀ (12 rows of rank 6: redundant contacts), b = J v⁻ with
// v⁻ = (v_t, 0, −g h). It is the problem the stepper builds for a resting
// box with box friction (rigid, no compliance).
func boxOnGround() *Problem {
	const m, g, h, mu, vt = 2.0, 9.81, 0.01, 0.5, 0.05
	const hx, hy, hz = 0.5, 0.3, 0.2
	ix := m / 3 * (hy*hy + hz*hz)
	iy := m / 3 * (hx*hx + hz*hz)
	iz := m / 3 * (hx*hx + hy*hy)
	minv := []float64{1 / m, 1 / m, 1 / m, 1 / ix, 1 / iy, 1 / iz}
	var jrows [][6]float64
	var lo, hi []float64
	bound := mu * m * g * h / 4
	for _, c := range [][2]float64{{hx, hy}, {-hx, hy}, {-hx, -hy}, {hx, -hy}} {
		r := [3]float64{c[0], c[1], -hz}
		for _, d := range [][3]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}} {
			rxd := [3]float64{r[1]*d[2] - r[2]*d[1], r[2]*d[0] - r[0]*d[2], r[0]*d[1] - r[1]*d[0]}
			jrows = append(jrows, [6]float64{d[0], d[1], d[2], rxd[0], rxd[1], rxd[2]})
		}
		lo = append(lo, 0, -bound, -bound)
		hi = append(hi, inf, bound, bound)
	}
	n := len(jrows)
	a := NewDense(n, n, nil)
	b := make([]float64, n)
	v := [6]float64{vt, 0, -g * h, 0, 0, 0}
	for i := range jrows {
		for j := range jrows {
			s := 0.0
			for k := 0; k < 6; k++ {
				s += jrows[i][k] * minv[k] * jrows[j][k]
			}
			a.Set(i, j, s)
		}
		for k := 0; k < 6; k++ {
			b[i] += jrows[i][k] * v[k]
		}
	}
	return &Problem{A: a, B: b, Lo: lo, Hi: hi}
}

// referenceX solves p with Enum (n ≤ 12) for a problem without an analytic
// solution and checks it.
func referenceX(p *Problem) []float64 {
	var r Result
	if err := (&Enum{}).Solve(&r, p, Settings{}); err != nil {
		panic(err)
	}
	return append([]float64(nil), r.X...)
}

// collection returns the test problems. See testdata/mlcp/README.md.
func collection() []entry {
	cps := "Cottle, Pang & Stone, The Linear Complementarity Problem (1992)"
	var es []entry
	add := func(e entry) { es = append(es, e) }

	add(entry{Name: "enzenhofer-rod", Class: classSPD, Source: "Enzenhöfer et al., A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints (2019), Eq. (26); x = A⁻¹(−b), both contacts active",
		P: rodProblem(), Solvable: true, X: []float64{(0.2981 - 0.5*0.1019) / 0.75, (-0.1019 + 0.5*0.2981) / 0.75}, UniqueX: true, UniqueW: true})
	add(entry{Name: "lemke-2x2", Class: classSPD, Source: "the usual 2×2 illustration of Lemke's method (as in " + cps + "): M = [[2,1],[1,2]], q = (−5,−6); z = (4/3, 7/3)",
		P: std([][]float64{{2, 1}, {1, 2}}, []float64{-5, -6}), Solvable: true, X: []float64{4.0 / 3, 7.0 / 3}, UniqueX: true, UniqueW: true})
	p := boxOnGround()
	add(entry{Name: "box-friction-12", Class: classPSD, Source: "a box resting on four rigid corner contacts with box friction and sliding velocity 0.05 m/s (the stepper's rows, built by hand): A = J M⁻¹ Jᵀ of rank 6; x from the Enum reference solver",
		P: p, Solvable: true, X: referenceX(p), UniqueW: true})
	add(entry{Name: "cps-cyclic-3", Class: classMonotone, Source: cps + ", the cyclic matrix [[1,2,0],[0,1,2],[2,0,1]] with q = −e: every ratio of the first pivot ties; z = (1/3, 1/3, 1/3) (a P-matrix, unique)",
		P: std([][]float64{{1, 2, 0}, {0, 1, 2}, {2, 0, 1}}, []float64{-1, -1, -1}), Solvable: true, X: []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, UniqueX: true, UniqueW: true})
	add(entry{Name: "degenerate-solution-2", Class: classMonotone, Source: "M = [[1,−1],[1,1]] (symmetric part I), q = (−1,−1): the solution z = (1, 0) has w = (0, 0), a degenerate complementary pair",
		P: std([][]float64{{1, -1}, {1, 1}}, []float64{-1, -1}), Solvable: true, X: []float64{1, 0}, UniqueX: true, UniqueW: true})
	add(entry{Name: "symmetric-not-p-2", Class: classIndefinite, Source: "M = [[1,2],[2,1]] (strictly copositive, not P), q = −e: three solutions (1,0), (0,1), (1/3,1/3)",
		P: std([][]float64{{1, 2}, {2, 1}}, []float64{-1, -1}), Solvable: true, X: []float64{1.0 / 3, 1.0 / 3}})
	add(entry{Name: "indefinite-2", Class: classIndefinite, Source: "M = [[−1,2],[2,−1]] (neither P nor copositive; an N-matrix of the first category: its principal minors −1, −1, −3 are all negative and it has positive entries, Kojima & Saigal 1979), q = −e: z = (1, 1), w = 0; Lemke with d = e ends in a ray after its first pivot, which for this matrix proves nothing",
		P: std([][]float64{{-1, 2}, {2, -1}}, []float64{-1, -1}), Solvable: true, X: []float64{1, 1}})
	add(entry{Name: "p-not-monotone-2", Class: classP, Source: "M = [[1,3],[0,1]] (triangular P-matrix, symmetric part indefinite), q = −e: z = (0, 1), w = (2, 0), unique",
		P: std([][]float64{{1, 3}, {0, 1}}, []float64{-1, -1}), Solvable: true, X: []float64{0, 1}, UniqueX: true, UniqueW: true})
	mm, q := murtyInts(8)
	rows, b := fromInts(mm, q)
	xm := make([]float64, 8)
	xm[0] = 256
	add(entry{Name: "murty-exponential-8", Class: classMonotone, Source: "Murty, Computational complexity of complementary pivot methods (1978): M lower triangular, 1 on the diagonal, 2 below; q_i = −Σ_{k≤i} 2^{n−k}; Lemke with d = e needs 2ⁿ pivots; z = (2ⁿ, 0, …, 0)",
		P: std(rows, b), Solvable: true, X: xm, UniqueX: true, UniqueW: true})
	for _, n := range []int{8, 16} {
		mm, q := fromInts(murtyUpperInts(n))
		x := make([]float64, n)
		x[n-1] = 1
		add(entry{Name: fmt.Sprintf("murty-upper-%d", n), Class: classMonotone, Source: "Murty's matrix transposed (1 on the diagonal, 2 above) with q = −e (Murty, Linear Complementarity, Linear and Nonlinear Programming, 1988): every first ratio ties; z = e_n",
			P: std(mm, q), Solvable: true, X: x, UniqueX: true, UniqueW: true})
	}
	add(degenerateEntry("degenerate-psd-8", 8, 4, false, 8))
	add(degenerateEntry("degenerate-monotone-8", 8, 4, true, 9))
	add(degenerateEntry("degenerate-psd-40", 40, 11, false, 5779))
	add(degenerateEntry("degenerate-psd-40b", 40, 16, false, 6011))
	add(degenerateEntry("degenerate-psd-40c", 40, 20, false, 4040))
	add(degenerateEntry("degenerate-monotone-40", 40, 20, true, 4041))

	for _, c := range []struct {
		name string
		e    float64
	}{{"halfwave-conducting", 5}, {"halfwave-blocking", -5}} {
		p, x := halfWave(c.e, 100)
		add(entry{Name: c.name, Class: classCircuit, Source: fmt.Sprintf("ideal-diode half-wave rectifier in modified nodal analysis (the form of Acary, Bonnefon & Brogliato, Nonsmooth Modeling and Simulation for Switched Circuits, 2011): E = %g V, R = 100 Ω; x = (v₁, v₂, j, λ) by hand", c.e),
			P: p, Solvable: true, X: x, UniqueX: true, UniqueW: true})
	}
	for _, c := range []struct {
		name      string
		e, rs, rl float64
	}{{"diode-bridge-positive", 10, 0, 1000}, {"diode-bridge-negative", -10, 0, 1000}, {"diode-bridge-internal-r", 7, 50, 150}} {
		p, x := bridge(c.e, c.rs, c.rl)
		add(entry{Name: c.name, Class: classCircuit, Source: fmt.Sprintf("full-wave ideal-diode bridge (as in Acary, Bonnefon & Brogliato, Nonsmooth Modeling and Simulation for Switched Circuits, 2011) in MNA: E = %g V, R_s = %g Ω, R_L = %g Ω; two diodes conduct, i = |E|/(R_s + R_L)", c.e, c.rs, c.rl),
			P: p, Solvable: true, X: x, UniqueX: true, UniqueW: true})
	}
	for _, c := range []struct {
		k int
		e float64
	}{{3, 2}, {3, -2}, {109, 3}, {109, -3}} {
		p, x := ladder(c.k, c.e, 10, 40)
		state := "diode 1 clamps, the others degenerate (λ = w = 0)"
		if c.e < 0 {
			state = "every diode blocks: a divider"
		}
		add(entry{Name: fmt.Sprintf("diode-ladder-%d-%s", 2*c.k+2, map[bool]string{true: "clamped", false: "blocking"}[c.e > 0]), Class: classCircuit,
			Source: fmt.Sprintf("resistor ladder of %d sections (R = 10 Ω, R_g = 40 Ω) with an ideal clamping diode at every node, MNA with the source current; E = %g V: %s", c.k, c.e, state),
			P:      p, Solvable: true, X: x, UniqueX: true, UniqueW: true})
	}

	add(entry{Name: "infeasible-skew-2", Class: classNoSolution, Source: cps + ": M = [[0,1],[−1,0]] (monotone), q = (−1,−1): w₂ = −z₁ − 1 < 0 for every z ≥ 0, so no solution; Lemke ends in a ray",
		P: std([][]float64{{0, 1}, {-1, 0}}, []float64{-1, -1})})
	add(entry{Name: "infeasible-negative-2", Class: classNoSolution, Source: "M = −I, q = (1, −1): w₂ = −z₂ − 1 < 0, no solution (neither P nor monotone)",
		P: std([][]float64{{-1, 0}, {0, -1}}, []float64{1, -1})})
	a, _ := DenseFromRows([][]float64{{1, 1}, {1, 1}})
	add(entry{Name: "inconsistent-bilateral-2", Class: classNoSolution, Source: "two identical rigid bilateral rows with inconsistent velocities (w₁ = x₁ + x₂ + 1, w₂ = x₁ + x₂ − 1 cannot both be 0): a closed loop of redundant joints",
		P: &Problem{A: a, B: []float64{1, -1}, Lo: []float64{-inf, -inf}, Hi: []float64{inf, inf}}})
	return append(es, wideCollection()...)
}

// fileEntry is the JSON of a collection file: the problem plus what is
// known of it (keys the problem reader ignores).
type fileEntry struct {
	Name     string      `json:"name"`
	Class    string      `json:"class"`
	Source   string      `json:"source"`
	Solvable bool        `json:"solvable"`
	X        []float64   `json:"x,omitempty"`
	UniqueX  bool        `json:"unique_x"`
	UniqueW  bool        `json:"unique_w"`
	A        [][]float64 `json:"A"`
	B        []float64   `json:"b"`
	Lo       []*float64  `json:"lo"`
	Hi       []*float64  `json:"hi"`
}

func writeCollection(t *testing.T, es []entry) {
	t.Helper()
	for _, e := range es {
		n := e.P.N()
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = make([]float64, n)
			for j := range rows[i] {
				rows[i][j] = e.P.A.At(i, j)
			}
		}
		fe := fileEntry{Name: e.Name, Class: e.Class, Source: e.Source, Solvable: e.Solvable, X: e.X, UniqueX: e.UniqueX, UniqueW: e.UniqueW,
			A: rows, B: e.P.B, Lo: boundPtrs(e.P.Lo), Hi: boundPtrs(e.P.Hi)}
		// One key per line and one row of A per line, so that the files
		// diff and read well.
		var buf bytes.Buffer
		buf.WriteString("{\n")
		put := func(key string, v any, last bool) {
			var vb bytes.Buffer
			enc := json.NewEncoder(&vb)
			enc.SetEscapeHTML(false)
			require.NoError(t, enc.Encode(v))
			fmt.Fprintf(&buf, "%q: %s", key, bytes.TrimSpace(vb.Bytes()))
			if !last {
				buf.WriteString(",")
			}
			buf.WriteString("\n")
		}
		put("name", fe.Name, false)
		put("class", fe.Class, false)
		put("source", fe.Source, false)
		put("solvable", fe.Solvable, false)
		if fe.X != nil {
			put("x", fe.X, false)
		}
		put("unique_x", fe.UniqueX, false)
		put("unique_w", fe.UniqueW, false)
		buf.WriteString("\"A\": [\n")
		for i, r := range rows {
			data, err := json.Marshal(r)
			require.NoError(t, err)
			buf.Write(data)
			if i < len(rows)-1 {
				buf.WriteString(",")
			}
			buf.WriteString("\n")
		}
		buf.WriteString("],\n")
		put("b", fe.B, false)
		put("lo", fe.Lo, false)
		put("hi", fe.Hi, true)
		buf.WriteString("}\n")
		require.NoError(t, os.WriteFile(filepath.Join(collectionDir, e.Name+".json"), buf.Bytes(), 0o644))
	}
}

// loadCollection reads every collection file (files with a "class" key).
func loadCollection(t *testing.T) []entry {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(collectionDir, "*.json"))
	require.NoError(t, err)
	sort.Strings(files)
	var es []entry
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var fe fileEntry
		require.NoError(t, json.Unmarshal(data, &fe), f)
		if fe.Class == "" {
			continue // not a collection problem (rod.json, candidates)
		}
		p, ignored, err := ReadProblemKeys(bytes.NewReader(data))
		require.NoError(t, err, f)
		require.Contains(t, ignored, "class")
		es = append(es, entry{Name: fe.Name, Class: fe.Class, Source: fe.Source, P: p, Solvable: fe.Solvable, X: fe.X, UniqueX: fe.UniqueX, UniqueW: fe.UniqueW})
	}
	return es
}

// TestCollectionFiles: the files are what the generators make (regenerate
// with -update), there are at least 25, and every known answer solves its
// problem.
func TestCollectionFiles(t *testing.T) {
	gen := collection()
	if *update {
		writeCollection(t, gen)
	}
	es := loadCollection(t)
	require.GreaterOrEqual(t, len(es), 25)
	require.Len(t, es, len(gen), "files and generators differ; run go test ./lcp -run TestCollectionFiles -update")
	byName := map[string]entry{}
	for _, e := range es {
		byName[e.Name] = e
	}
	for _, g := range gen {
		e, ok := byName[g.Name]
		require.True(t, ok, g.Name)
		assert.Equal(t, g.P, e.P, g.Name)
		assert.Equal(t, g.X, e.X, g.Name)
		if !e.Solvable {
			continue
		}
		w := e.P.Residual(nil, e.X)
		// 1e-9 relative: the known answers are exact up to their
		// float64 rounding (hand formulas, exact Lemke, Enum at 1e-10).
		assert.LessOrEqual(t, maxNaturalResidual(e.P, e.X, w), 1e-9*math.Max(1, normInf(e.P.B)), e.Name)
	}
}

func normInf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// solvedBy reports whether r solves e: converged, natural residual within
// 1e-6 of max(1, ‖b‖∞) (the acceptance bound), and where the answer is
// unique the same x (or w).
func solvedBy(e entry, r *Result) bool {
	if r.Status != Converged || len(r.X) != e.P.N() {
		return false
	}
	scale := math.Max(1, normInf(e.P.B))
	w := e.P.Residual(nil, r.X)
	if !(maxNaturalResidual(e.P, r.X, w) <= 1e-6*scale) {
		return false
	}
	if e.UniqueX {
		xs := math.Max(1, normInf(e.X))
		for i := range e.X {
			if math.Abs(r.X[i]-e.X[i]) > 1e-6*xs { // 1e-6: the acceptance bound, in x's scale
				return false
			}
		}
	}
	if e.UniqueW {
		we := e.P.Residual(nil, e.X)
		for i := range we {
			if math.Abs(w[i]-we[i]) > 1e-6*scale {
				return false
			}
		}
	}
	return true
}

// TestCollectionSolvers runs every solver on every problem: a Converged
// status must be true (natural residual ≤ 1e-6·max(1, ‖b‖∞)), auto must
// solve every solvable problem, Lemke must end within its budget of
// 1000 + 20 n² pivots on every problem (solution, ray or budget_exhausted),
// nothing may claim a solution of a problem that has none, and a second
// solve gives the same x. With -v it prints the solver × class table of
// docs/cli.md.
func TestCollectionSolvers(t *testing.T) {
	es := loadCollection(t)
	names := Names()
	classes := []string{classSPD, classPSD, classMonotone, classP, classIndefinite, classCircuit, classZ, classNoSolution}
	solved := map[string]map[string]int{}
	total := map[string]int{}
	var autoChose []string
	for _, e := range es {
		total[e.Class]++
		n := e.P.N()
		for _, name := range names {
			if name == "enum" && n > EnumMaxRows {
				continue
			}
			s, err := New(name)
			require.NoError(t, err)
			var r Result
			_ = s.Solve(&r, e.P, Settings{})
			// Determinism: a fresh solver on the same problem gives the
			// same x (equal values by reflect.DeepEqual: −0 and +0 count
			// as equal, as errmeasure's bit-level checks do not), status
			// and counts.
			s2, _ := New(name)
			var r2 Result
			_ = s2.Solve(&r2, e.P, Settings{})
			assert.True(t, assert.ObjectsAreEqual(r.X, r2.X) && r.Status == r2.Status && r.Iterations == r2.Iterations && r.Pivots == r2.Pivots,
				"%s on %s: a second solve differs", name, e.Name)
			scale := math.Max(1, normInf(e.P.B))
			if r.Status == Converged {
				res := maxNaturalResidual(e.P, r.X, e.P.Residual(nil, r.X))
				assert.LessOrEqual(t, res, 1e-6*scale, "%s on %s: converged with natural residual %.3g", name, e.Name, res)
				assert.True(t, e.Solvable, "%s claims a solution of %s, which has none", name, e.Name)
			}
			if solvedBy(e, &r) {
				if solved[name] == nil {
					solved[name] = map[string]int{}
				}
				solved[name][e.Class]++
			}
			switch name {
			case "auto":
				if e.Solvable {
					assert.True(t, solvedBy(e, &r), "auto did not solve %s: %v %s", e.Name, r.Status, r.Reason)
				}
				autoChose = append(autoChose, fmt.Sprintf("%-28s %-14s %s", e.Name, s.(*Auto).Answered, r.Status))
			case "lemke":
				// Within its default budget of 1000 + 20 n² pivots (Fathi's
				// problem needs 2ⁿ: budget_exhausted at n = 16).
				assert.LessOrEqual(t, r.Pivots, 1000+20*n*n+1, "lemke on %s", e.Name)
				if strings.HasPrefix(e.Name, "degenerate") {
					t.Logf("lemke on %s: %d pivots, %v", e.Name, r.Pivots, r.Status)
				}
			}
		}
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "| class (problems) | %s |\n|---|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, c := range classes {
		fmt.Fprintf(&tb, "| %s (%d) |", c, total[c])
		for _, name := range names {
			if c == classNoSolution {
				fmt.Fprintf(&tb, " – |")
				continue
			}
			fmt.Fprintf(&tb, " %d |", solved[name][c])
		}
		tb.WriteString("\n")
	}
	t.Logf("solved (converged, residual ≤ 1e-6, the known x or w):\n%s", tb.String())
	t.Logf("auto chose:\n%s", strings.Join(autoChose, "\n"))
}
