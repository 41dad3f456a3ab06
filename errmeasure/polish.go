package errmeasure

import (
	"fmt"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
)

// Polish finishes a budgeted solve: after Solve has written the picked
// iterate into dst, it runs up to sweeps projected Gauss–Seidel sweeps from
// it (lcp.Polish: for symmetric PSD A no sweep raises f(x) = ½xᵀAx + bᵀx
// once x is in its box, and x is in its box after the first sweep), and
// updates dst.X, dst.W = A x + b, s.Sweeps, s.Totals (with pk's inverse
// masses), s.Residual and s.Bound. The sweeps are not solver iterations:
// dst.Iterations, dst.Pivots and s.Picked stay as Solve left them.
//
// dst.Status then describes the polished x by Solve's residual rule: it
// becomes Converged when the natural residual of x is at most
// ConvergedResidual·max(1, ‖b‖∞), and a Converged status becomes
// Unconverged when it is not (a sweep on a non-symmetric A may move away
// from the solution); otherwise it stays. dst.Reason says what changed.
//
// Polish starts only from an x inside its box (InBox): from an iterate
// outside it, the first sweep's projection may raise f without limit, and
// does on the rigid scenes (the brick wall's last iterate after two pivots,
// 0.009 J from x* in ½(x − x*)ᵀA(x − x*), is 3.6 J away after five sweeps;
// the forklift's, 208 J away after five pivots, is 3714 J away; a forklift
// run keeping the last iterate and polishing it leaves its circle by 10⁴ m).
// Nor does it polish a Converged answer (a solution is a fixed point of the
// sweep; polishing it only costs). Then s.Sweeps stays 0 and nothing
// changes.
//
// sweeps = 0 does nothing. It returns lcp.Polish's error (sweeps < 0,
// lengths, NaN in x) and leaves dst and s unchanged then.
func Polish(dst *lcp.Result, p *lcp.Problem, sweeps int, pk *Picker, s *Solved) error {
	if sweeps == 0 {
		return nil
	}
	if sweeps < 0 {
		return fmt.Errorf("polish: sweeps: must be ≥ 0, got %d", sweeps)
	}
	if dst.Status == lcp.Converged || (len(dst.X) == p.N() && !InBox(p, dst.X)) {
		return nil
	}
	if len(dst.W) != len(dst.X) {
		dst.W = p.Residual(dst.W, dst.X)
	}
	done, err := lcp.Polish(dst.X, dst.W, p, sweeps)
	if err != nil {
		return err
	}
	s.Sweeps = done
	s.Totals = Compute(p, dst.X, dst.W, pk.a)
	s.Residual = maxResidual(p, dst.X, dst.W)
	s.Bound = CertifiedBound(p, dst.X, dst.W)
	limit := ConvergedResidual * max(1, num.MaxAbs(p.B))
	ok := s.Residual <= limit
	switch {
	case ok && dst.Status != lcp.Converged:
		dst.Status = lcp.Converged
		dst.Reason = fmt.Sprintf("%d projected Gauss–Seidel sweeps from the picked iterate %d solve the problem (natural residual %.3g)", done, s.Picked, s.Residual)
	case !ok && dst.Status == lcp.Converged:
		dst.Status = lcp.Unconverged
		dst.Reason = fmt.Sprintf("after %d projected Gauss–Seidel sweeps the natural residual of x is %.3g > %.3g", done, s.Residual, limit)
	}
	return nil
}

// InBox reports whether every x_i lies in [l_i − τᵢ, u_i + τᵢ], with the
// Picker's default tolerance τᵢ = 10⁻¹⁰·s_w/aᵢᵢ (s_w = max|bᵢ|, or 1 if
// b = 0; τᵢ = 0 on a row with aᵢᵢ ≤ 0). A NaN is outside. It panics if
// len(x) ≠ p.N().
func InBox(p *lcp.Problem, x []float64) bool {
	if len(x) != p.N() {
		panic(fmt.Sprintf("errmeasure: InBox: len(x) = %d, problem has %d rows", len(x), p.N()))
	}
	sw := num.MaxAbs(p.B)
	if sw == 0 {
		sw = 1
	}
	for i, xi := range x {
		tol := 0.0
		if a := p.A.At(i, i); a > 0 {
			tol = boundTol * sw / a
		}
		if !(xi >= p.Lo[i]-tol && xi <= p.Hi[i]+tol) {
			return false
		}
	}
	return true
}
