package errmeasure_test

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// Block pivoting on the rod of Sec. 5.1 with a budget of two iterations:
// the first iterate (x = 0) has δe = ½·0.2981² J, the second
// (x = [0.2981, 0], w₂ = −0.04715 m/s) δe = ½·0.04715² J, so the energy
// picker keeps the second. Keeping the last would here give the same x;
// with a budget of one it is the only iterate.
func ExampleSolve() {
	a, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	p := &lcp.Problem{A: a, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{math.Inf(1), math.Inf(1)}}
	var r lcp.Result
	s, err := errmeasure.Solve(&r, p, &lcp.BPP{}, lcp.Settings{MaxIterations: 2}, errmeasure.NewPicker(errmeasure.Energy))
	fmt.Printf("%v after %d iterations, picked %d: x = [%.4f %.4f], δe = %.4g J, err = %v\n",
		r.Status, r.Iterations, s.Picked, r.X[0], r.X[1], s.Totals.Energy, err)
	// Output:
	// budget_exhausted after 2 iterations, picked 2: x = [0.2981 0.0000], δe = 0.001112 J, err = <nil>
}
