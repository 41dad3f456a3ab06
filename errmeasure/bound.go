package errmeasure

import (
	"fmt"
	"math"

	"github.com/gorigid/gorigid/lcp"
)

// CertifiedBound returns the duality-gap bound (J)
//
//	β(x) = Σᵢ ( wᵢ xᵢ − min_{lᵢ ≤ z ≤ uᵢ} wᵢ z ),   w = A x + b,
//
// of an iterate x inside its box, and +Inf when x is outside the box or a
// term is infinite (wᵢ > 0 on a row without a lower bound, wᵢ < 0 on one
// without an upper bound). Every term is ≥ 0 for x in the box.
//
// What it certifies. For symmetric positive semidefinite A (every problem
// the stepper builds: A = J M⁻¹ Jᵀ + C), the MLCP of Eqs. (2)–(4) is the
// optimality condition of min f(x) = ½xᵀAx + bᵀx over the box, whose
// gradient is w. For any solution x* and any x in the box,
//
//	½ (x − x*)ᵀ A (x − x*) ≤ f(x) − f(x*) ≤ β(x):
//
// the left inequality is f(x) − f(x*) = ∇f(x*)ᵀ(x − x*) + ½(x − x*)ᵀA(x − x*)
// with ∇f(x*)ᵀ(x − x*) ≥ 0 (x* minimizes f over the box), the right one is
// convexity, f(x*) ≥ f(x) + wᵀ(x* − x) ≥ f(x) + min_{z in box} wᵀ(z − x).
// So β bounds the energy distance of x from every solution without knowing
// one. For an A that is not symmetric the number is computed the same way
// but certifies nothing.
//
// w must be A x + b (as Solve and Polish return it); x and w must have p.N()
// entries (it panics otherwise, a programming error).
func CertifiedBound(p *lcp.Problem, x, w []float64) float64 {
	if len(x) != p.N() || len(w) != p.N() {
		panic(fmt.Sprintf("errmeasure: CertifiedBound: len(x) = %d, len(w) = %d, problem has %d rows", len(x), len(w), p.N()))
	}
	s := 0.0
	for i, xi := range x {
		lo, hi, wi := p.Lo[i], p.Hi[i], w[i]
		if !(xi >= lo && xi <= hi) {
			return math.Inf(1) // outside the box (or NaN): no certificate
		}
		switch {
		case wi > 0:
			s += wi * (xi - lo) // +Inf when lo = −Inf
		case wi < 0:
			s += -wi * (hi - xi) // +Inf when hi = +Inf
		case wi != 0: // NaN
			return math.Inf(1)
		}
	}
	return s
}
