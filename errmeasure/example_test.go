package errmeasure_test

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
)

// The rod of §5.1 (Eq. 26): the direct method's first guess x₁ = 0, w₂ = 0
// gives x₂ = −0.1019 N·s and w₁ = −0.2981 m/s. With the diagonal of A,
// a₁₁ = a₂₂ = 1 kg⁻¹, the energy errors are those the paper prints.
func ExampleEnergyRow() {
	inf := math.Inf(1)
	e1 := errmeasure.EnergyRow(0, -0.2981, 0, inf, 1) // velocity error: w₋²/(2a)
	e2 := errmeasure.EnergyRow(-0.1019, 0, 0, inf, 1) // impulse error: ½ a δx_l²
	fmt.Printf("δe₁ = %.2e J, δe₂ = %.1e J, δe = %.2e J\n", e1, e2, e1+e2)

	// With the exact effective mass m̄ = 4/3 kg (Eq. 27), a = 0.75 kg⁻¹.
	f1 := errmeasure.EnergyRow(0, -0.2981, 0, inf, 0.75)
	f2 := errmeasure.EnergyRow(-0.1019, 0, 0, inf, 0.75)
	fmt.Printf("δē₁ = %.3e J, δē₂ = %.2e J, δē = %.3e J\n", f1, f2, f1+f2)
	// Output:
	// δe₁ = 4.44e-02 J, δe₂ = 5.2e-03 J, δe = 4.96e-02 J
	// δē₁ = 5.924e-02 J, δē₂ = 3.89e-03 J, δē = 6.314e-02 J
}

// A Picker watches a solve's iterates (here fed by hand, as a solver's
// Settings.Observer would) and keeps the one with the least energy error.
func ExamplePicker() {
	A, _ := lcp.DenseFromRows([][]float64{{1, -0.5}, {-0.5, 1}})
	inf := math.Inf(1)
	p := &lcp.Problem{A: A, B: []float64{-0.2981, 0.1019}, Lo: []float64{0, 0}, Hi: []float64{inf, inf}}

	pk := errmeasure.NewPicker(errmeasure.Energy)
	pk.Reset(p, errmeasure.Energy)
	for k, x := range [][]float64{{0, -0.1019}, {0.2981, 0}, {0, 0}} {
		w := p.Residual(nil, x)
		pk.Observe(lcp.Iterate{Iter: k + 1, X: x, W: w, SatisfiesEq2: true})
	}
	best, _ := pk.Best()
	last, _ := pk.LastTotals()
	fmt.Printf("picked iterate %d of %d: x = %.4f N·s, δe = %.3e J\n", best.Iter, pk.Seen(), best.X, best.Value)
	fmt.Printf("last iterate: δe = %.3e J, FB = %.4f, residual = %.4f\n", last.Energy, last.FB, last.Residual)
	// Output:
	// picked iterate 2 of 3: x = [0.2981 0.0000] N·s, δe = 1.112e-03 J
	// last iterate: δe = 4.443e-02 J, FB = 0.2981, residual = 0.2981
}
