package lcp_test

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// The rod of Sec. 5.1 (Eq. 26) by nonsmooth Newton on the Fischer–Burmeister
// function: one Newton step per iteration, each iterate with w = A x + b.
func ExampleNewton() {
	a, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	p := &lcp.Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var r lcp.Result
	err := (&lcp.Newton{Func: lcp.FischerBurmeister}).Solve(&r, p, lcp.Settings{
		Observer: lcp.ObserverFunc(func(it lcp.Iterate) {
			fmt.Printf("iteration %d: x = [%.5f %.5f], w = [%.5f %.5f]\n", it.Iter, it.X[0], it.X[1], round5(it.W[0]), round5(it.W[1]))
		}),
	})
	fmt.Println(r.Status, err)
	// Output:
	// iteration 1: x = [0.19873 0.00000], w = [-0.09937 0.00253]
	// iteration 2: x = [0.27783 0.00000], w = [-0.02027 -0.03702]
	// iteration 3: x = [0.31602 0.03741], w = [-0.00078 -0.01870]
	// iteration 4: x = [0.32675 0.05729], w = [0.00000 -0.00418]
	// iteration 5: x = [0.32943 0.06266], w = [0.00000 -0.00015]
	// iteration 6: x = [0.32953 0.06287], w = [0.00000 0.00000]
	// iteration 7: x = [0.32953 0.06287], w = [0.00000 0.00000]
	// converged <nil>
}

// round5 rounds to 5 decimals and turns −0 into 0, so that rounding-level
// values print the same on every platform.
func round5(v float64) float64 { return math.Round(v*1e5)/1e5 + 0 }

// The same rod by the proximal fixed-point iteration (Eq. 15): one Jacobi
// step x ← clamp(x − (R/a_ii) w) per iteration.
func ExampleProx() {
	a, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	p := &lcp.Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var r lcp.Result
	err := (&lcp.Prox{}).Solve(&r, p, lcp.Settings{
		Observer: lcp.ObserverFunc(func(it lcp.Iterate) {
			if it.Iter <= 3 {
				fmt.Printf("iteration %d: x = [%.5f %.5f], w = [%.5f %.5f]\n", it.Iter, it.X[0], it.X[1], round5(it.W[0]), round5(it.W[1]))
			}
		}),
	})
	fmt.Printf("%v after %d iterations: x = [%.5f %.5f] %v\n", r.Status, r.Iterations, r.X[0], r.X[1], err)
	// Output:
	// iteration 1: x = [0.29810 0.00000], w = [0.00000 -0.04715]
	// iteration 2: x = [0.29810 0.04715], w = [-0.02358 0.00000]
	// iteration 3: x = [0.32167 0.04715], w = [0.00000 -0.01179]
	// converged after 32 iterations: x = [0.32953 0.06287] <nil>
}
