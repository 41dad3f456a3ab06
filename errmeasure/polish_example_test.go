package errmeasure_test

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// The 2×2 LCP A = [[2,1],[1,2]], b = (−5,−6) (x* = (4/3, 7/3)) under a
// budget of one block pivot (which keeps x = 0, both rows at their lower
// bound), then five projected Gauss–Seidel sweeps from the pick: the
// polished x is in its box with w ≥ 0, so the certified bound
// Σ wᵢ(xᵢ − 0) is finite, and it bounds ½(x − x*)ᵀA(x − x*).
func ExamplePolish() {
	a, _ := lcp.DenseFromRows([][]float64{{2, 1}, {1, 2}})
	inf := math.Inf(1)
	p := &lcp.Problem{A: a, B: []float64{-5, -6}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}}
	pk := errmeasure.NewPicker(errmeasure.Energy)
	var r lcp.Result
	s, _ := errmeasure.Solve(&r, p, &lcp.BPP{}, lcp.Settings{MaxIterations: 1}, pk)
	fmt.Printf("picked: x = [%.4f %.4f], %v\n", r.X[0], r.X[1], r.Status)
	if err := errmeasure.Polish(&r, p, 5, pk, &s); err != nil {
		fmt.Println(err)
		return
	}
	d := []float64{r.X[0] - 4.0/3, r.X[1] - 7.0/3}
	dist := 0.5 * (d[0]*(2*d[0]+d[1]) + d[1]*(d[0]+2*d[1]))
	fmt.Printf("after %d sweeps: x = [%.4f %.4f], bound %.3g J ≥ distance %.3g J\n", s.Sweeps, r.X[0], r.X[1], s.Bound, dist)
	// Output:
	// picked: x = [0.0000 0.0000], budget_exhausted
	// after 5 sweeps: x = [1.3379 2.3311], bound 0.00915 J ≥ distance 1.56e-05 J
}
