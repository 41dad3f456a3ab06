package errmeasure

import (
	"fmt"

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
// sweeps = 0 does nothing. It returns lcp.Polish's error (sweeps < 0,
// lengths, NaN in x) and leaves dst and s unchanged then.
func Polish(dst *lcp.Result, p *lcp.Problem, sweeps int, pk *Picker, s *Solved) error {
	if sweeps == 0 {
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
	limit := ConvergedResidual * max(1, normInf(p.B))
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
