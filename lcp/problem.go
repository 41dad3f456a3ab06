package lcp

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"
)

// Problem is the boxed mixed linear complementarity problem of Eqs. (2)–(4)
// of Enzenhöfer et al. 2019:
//
//	A x + b = w,  w = w₊ − w₋,
//	0 ≤ u − x ⊥ w₋ ≥ 0,
//	0 ≤ x − l ⊥ w₊ ≥ 0,
//
// with x the constraint impulses (N·s or N·m·s), w the constraint-space
// velocities (m/s or rad/s), A (kg⁻¹ or (kg·m²)⁻¹) and b (m/s or rad/s).
// Lo and Hi are l and u; ±Inf marks a missing bound, so a bilateral row has
// Lo = −Inf, Hi = +Inf and a contact normal row Lo = 0, Hi = +Inf.
//
// KKT, when set, describes A in body space, A = J M⁻¹ Jᵀ + C (see KKT):
// BPP may factor the quasi-definite [M Jᵀ; J −C] instead of A's free
// block; the answer is the same, and the other solvers ignore it, as does
// the JSON form (WriteProblem).
//
// KKTAssembled, with KKT set, says that A was assembled from KKT's own
// blocks — each entry of A computed from the same Mass, J and C, as
// stepper.Assembly computes both — so that KKT describes A by
// construction: BPP then skips its once-per-Solve check that it does (a
// product with A and one in body space, compared within 1e-8). Set it only
// for such an A: BPP's face solutions are those of KKT's matrix, and a KKT
// that did not describe A would go unnoticed until the answer's residual
// in A.
type Problem struct {
	A            Matrix
	B            []float64
	Lo, Hi       []float64
	KKT          *KKT
	KKTAssembled bool
}

// N returns the number of rows n.
func (p *Problem) N() int { return len(p.B) }

// Validate reports the first inconsistency in p: a missing or non-square A,
// lengths that differ from len(B), NaN or Inf in A or b, NaN bounds,
// lo > hi, lo = +Inf or hi = −Inf, and a KKT that fails KKT.Validate. The
// error names the field, the row and the value. Every solver calls Validate before it starts.
func (p *Problem) Validate() error { return p.validate(nil) }

// validate is Validate, with mul for KKT's mass blocks (KKT.validate).
func (p *Problem) validate(mul *BodyProduct) error {
	if p == nil {
		return fmt.Errorf("problem: is nil")
	}
	n := len(p.B)
	if p.A == nil {
		return fmt.Errorf("A: missing")
	}
	r, c := p.A.Dims()
	if r != c {
		return fmt.Errorf("A: not square: %d×%d", r, c)
	}
	if r != n {
		return fmt.Errorf("A: is %d×%d but b has %d entries", r, c, n)
	}
	if len(p.Lo) != n {
		return fmt.Errorf("lo: has %d entries, b has %d", len(p.Lo), n)
	}
	if len(p.Hi) != n {
		return fmt.Errorf("hi: has %d entries, b has %d", len(p.Hi), n)
	}
	if sp, ok := p.A.(*Sparse); ok {
		// O(nnz), skipped when Finish found every entry finite: entries
		// outside the pattern are 0.
		if !sp.finished {
			return fmt.Errorf("A: sparse matrix is not finished: call Finish after the last Reset or Add")
		}
		if !sp.finite {
			if i, j, v, bad := sp.firstNonFinite(); bad {
				return fmt.Errorf("A[%d][%d]: must be finite, got %v", i, j, v)
			}
		}
	} else if d, ok := p.A.(*Dense); ok {
		// v·0 is ±0 for finite v and NaN for ±Inf and NaN, so the sum
		// is 0 exactly when every entry is finite: one pass without a
		// branch per entry, and the scan for the first bad entry only
		// when there is one; none for DenseSubmatrix's copy of a
		// finished, finite Sparse (Dense.exact).
		z := 0.0
		if !d.exact {
			for _, v := range d.data {
				z += v * 0
			}
		}
		if z != 0 {
			for k, v := range d.data {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("A[%d][%d]: must be finite, got %v", k/n, k%n, v)
				}
			}
		}
	} else {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if v := p.A.At(i, j); !num.Finite(v) {
					return fmt.Errorf("A[%d][%d]: must be finite, got %v", i, j, v)
				}
			}
		}
	}
	if p.KKT != nil {
		if err := p.KKT.validate(n, mul); err != nil {
			return err
		}
	}
	for i, v := range p.B {
		if !num.Finite(v) {
			return fmt.Errorf("b[%d]: must be finite, got %v", i, v)
		}
	}
	for i := 0; i < n; i++ {
		l, u := p.Lo[i], p.Hi[i]
		switch {
		case math.IsNaN(l):
			return fmt.Errorf("lo[%d]: is NaN", i)
		case math.IsNaN(u):
			return fmt.Errorf("hi[%d]: is NaN", i)
		case math.IsInf(l, 1):
			return fmt.Errorf("lo[%d]: is +Inf; a lower bound must be finite or -Inf", i)
		case math.IsInf(u, -1):
			return fmt.Errorf("hi[%d]: is -Inf; an upper bound must be finite or +Inf", i)
		case l > u:
			return fmt.Errorf("row %d: lo = %v > hi = %v", i, l, u)
		}
	}
	return nil
}

// Residual sets w = A x + b, the slack of Eq. (2), and returns w.
// w is grown if it is too short.
func (p *Problem) Residual(w, x []float64) []float64 {
	n := p.N()
	if cap(w) < n {
		w = make([]float64, n)
	}
	w = w[:n]
	p.A.MulVecTo(w, x)
	for i, bi := range p.B {
		w[i] += bi
	}
	return w
}

// ResidualKKT sets w = A x + b as Residual does, in body space through
// mul (BodyProduct.MulAdd) when p.KKT describes A by construction
// (p.KKTAssembled) and that product is the cheaper (BodyProduct.Cheaper:
// BPP's rule for its iterates' w, so that w has the bits of BPP's for the
// same x), else by A's own product. The two agree to rounding. mul is
// prepared for p.KKT here (Factor, O(bodies)); with mul nil this is
// Residual. w is grown if it is too short; w may not alias x.
func (p *Problem) ResidualKKT(w, x []float64, mul *BodyProduct) []float64 {
	if mul == nil || p.KKT == nil || !p.KKTAssembled || p.KKT.N() != p.N() || !mul.Factor(p.KKT) || !mul.Cheaper(p.A) {
		return p.Residual(w, x)
	}
	n := p.N()
	if cap(w) < n {
		w = make([]float64, n)
	}
	w = w[:n]
	mul.MulAdd(w, x[:n], p.B)
	return w
}

// Diag returns the diagonal of A: aᵢᵢ = 1/m_eff,i + cᵢ of Eq. (13).
func (p *Problem) Diag(dst []float64) []float64 {
	n := p.N()
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	if d, ok := p.A.(*Dense); ok {
		for i := range dst {
			dst[i] = d.data[i*d.c+i]
		}
		return dst
	}
	if s, ok := p.A.(*Sparse); ok && s.finished && s.n == n {
		// At's entries, read from the diagonal slots without a call per row.
		slot := s.dslot[:n]
		for i, k := range slot {
			dst[i] = 0
			if k >= 0 {
				dst[i] = s.val[k]
			}
		}
		return dst
	}
	for i := range dst {
		dst[i] = p.A.At(i, i)
	}
	return dst
}
