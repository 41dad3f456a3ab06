package lcp_test

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/gorigid/gorigid/lcp"
)

// The rod of Sec. 5.1 (Eq. 26): two frictionless contacts.
func ExampleBPP() {
	a, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	p := &lcp.Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var r lcp.Result
	err := (&lcp.BPP{}).Solve(&r, p, lcp.Settings{
		Observer: lcp.ObserverFunc(func(it lcp.Iterate) {
			fmt.Printf("iteration %d: x = [%.5f %.5f], w = [%.5f %.5f]\n", it.Iter, it.X[0], it.X[1], it.W[0], it.W[1])
		}),
	})
	fmt.Println(r.Status, err)
	// Output:
	// iteration 1: x = [0.00000 0.00000], w = [-0.29810 0.10190]
	// iteration 2: x = [0.29810 0.00000], w = [0.00000 -0.04715]
	// iteration 3: x = [0.32953 0.06287], w = [0.00000 0.00000]
	// converged <nil>
}

func ExampleReadProblem() {
	in := `{"A": [[2]], "b": [-1], "lo": [0], "hi": [null]}`
	p, err := lcp.ReadProblem(strings.NewReader(in))
	if err != nil {
		fmt.Println(err)
		return
	}
	var r lcp.Result
	_ = (&lcp.PGS{}).Solve(&r, p, lcp.Settings{})
	_ = lcp.WriteSolution(os.Stdout, &lcp.Solution{X: r.X, W: r.W, Iterations: r.Iterations, Status: r.Status.String()})
	// Output:
	// {"iterations":2,"status":"converged","w":[0],"x":[0.5]}
}

func ExampleLemke() {
	// A standard LCP: w = M z + q, 0 ≤ z ⊥ w ≥ 0.
	m, _ := lcp.DenseFromRows([][]float64{{2, 1}, {1, 2}})
	p := &lcp.Problem{A: m, B: []float64{-5, -6}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var r lcp.Result
	err := (&lcp.Lemke{}).Solve(&r, p, lcp.Settings{})
	fmt.Printf("z = [%.4f %.4f] %v %v\n", r.X[0], r.X[1], r.Status, err)
	// Output:
	// z = [1.3333 2.3333] converged <nil>
}

func ExampleAuto() {
	// An ideal-diode half-wave rectifier in modified nodal analysis:
	// x = (v₁, v₂, j, λ), the node voltages, the source current and the
	// diode current; E = 5 V, R = 100 Ω. Three equations (one with a zero
	// diagonal) and the diode 0 ≤ λ ⊥ v₂ − v₁ ≥ 0. A is not symmetric, so
	// Auto does not use BPP.
	inf := math.Inf(1)
	a, _ := lcp.DenseFromRows([][]float64{{0, 0, -1, 1}, {0, 0.01, 0, -1}, {1, 0, 0, 0}, {-1, 1, 0, 0}})
	p := &lcp.Problem{A: a, B: []float64{0, 0, -5, 0}, Lo: []float64{-inf, -inf, -inf, 0}, Hi: []float64{inf, inf, inf, inf}}
	s, _ := lcp.New("auto")
	var r lcp.Result
	err := s.Solve(&r, p, lcp.Settings{})
	fmt.Printf("x = [%.3g %.3g %.3g %.3g] %v %v\n", r.X[0], r.X[1], r.X[2], r.X[3], r.Status, err)
	fmt.Println(s.(*lcp.Auto).Answered, "–", s.(*lcp.Auto).Why)
	// Output:
	// x = [5 5 0.05 0.05] converged <nil>
	// lemke – A is non-symmetric with a positive semidefinite symmetric part (monotone): Lemke ends in a solution if one exists
}
