package errmeasure

import (
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/gorigid/gorigid/lcp"
)

// ExactInverseMass returns āᵢ = 1/{A⁻¹}ᵢᵢ for every row: the inverse of the
// exact effective mass m̄_eff,i of Eq. (11), computed from the whole lead
// matrix A = J M⁻¹ Jᵀ + C, so the compliance is included as in Eq. (13).
// Pass the result as the a argument of Compute, Rows or TotalOf, or to
// Picker.SetInverseMass, to measure energies with the exact effective mass
// (§5.1.1; for the rod, Eq. 27). For SPD A, āᵢ ≤ aᵢᵢ (the paper's appendix).
//
// It forms the dense inverse (Cholesky when A is symmetric positive definite,
// LU otherwise): O(n³) time and O(n²) memory, for small systems and studies,
// not for every step of a large scene.
//
// It returns an error, never panics, if A is nil, not square or has a
// non-finite entry, if A is singular or too ill-conditioned to invert
// (condition number above 1e16; the error wraps lcp.ErrSingular), or if a
// diagonal entry of A⁻¹ is not positive (A is not positive definite, so an
// effective mass is undefined).
func ExactInverseMass(A lcp.Matrix) ([]float64, error) {
	n, asym, err := checkSquare(A)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	sym := asym[0] < 0
	if !invDiagCholesky(out, A, sym) {
		if err := invDiagLU(out, A); err != nil {
			return nil, err
		}
	}
	for i, d := range out {
		if !(d > 0) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("A⁻¹[%d][%d] = %v: must be positive and finite; A is not positive definite, so row %d has no effective mass", i, i, d, i)
		}
		out[i] = 1 / d
	}
	return out, nil
}

// invDiagCholesky writes diag(A⁻¹) into dst and reports true if A is
// symmetric positive definite and well enough conditioned.
func invDiagCholesky(dst []float64, A lcp.Matrix, sym bool) bool {
	if !sym {
		return false
	}
	n := len(dst)
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, A.At(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(s) {
		return false
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return false // ill-conditioned: let LU decide and report
	}
	for i := range dst {
		dst[i] = inv.At(i, i)
	}
	return true
}

// invDiagLU writes diag(A⁻¹) into dst using an LU factorization.
func invDiagLU(dst []float64, A lcp.Matrix) error {
	n := len(dst)
	d := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d.Set(i, j, A.At(i, j))
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(d); err != nil {
		return fmt.Errorf("A: cannot invert for the exact effective mass (Eq. 11): %w (%v); check for redundant constraints or add compliance", lcp.ErrSingular, err)
	}
	for i := range dst {
		dst[i] = inv.At(i, i)
	}
	return nil
}

// PseudoExactMaxRows is the largest problem on which the EnergyExact picker
// tries PseudoInverseMass when A is singular (a symmetric eigendecomposition,
// some 9n³ flops: 300 rows ≈ 2.4·10⁸, some 0.1 s).
const PseudoExactMaxRows = 300

// pseudoCut is the relative eigenvalue cutoff of PseudoInverseMass: the
// rigid scenes' singular A (the forklift's, the brick wall's) have their null
// eigenvalues at 10⁻¹⁷–10⁻¹⁶ of the largest (rounding) and the smallest
// nonzero ones above 10⁻⁷ of it, so 10⁻¹⁰ splits them with room on both
// sides.
const pseudoCut = 1e-10

// PseudoInverseMass returns āᵢ = 1/{A⁺}ᵢᵢ, the exact effective mass of
// Eq. (11) generalized to a singular symmetric positive semidefinite A
// through the Moore–Penrose pseudoinverse A⁺ (A = J M⁻¹ Jᵀ with redundant
// rigid rows: a wheel on four contacts, a hinge closing a loop). For
// invertible A it equals ExactInverseMass. Meaning: {A⁺}ᵢᵢ/2 is the kinetic
// energy per (m/s)² of the least impulse x = A⁺eᵢ whose velocity change A x
// is eᵢ's projection onto the range of A: row i's velocity changes, and the
// others only as much as the redundancy forces.
//
// Eigenvalues λ ≤ 10⁻¹⁰·λ_max count as zero (pseudoCut). A row orthogonal
// to the range ({A⁺}ᵢᵢ = 0: aᵢᵢ = 0) gets 0, for the caller to replace.
// It costs a dense symmetric eigendecomposition, O(n³), and returns an error
// if A is not square, not symmetric, has a non-finite entry, has a negative
// eigenvalue below −10⁻¹⁰·λ_max (not PSD), or the decomposition fails.
func PseudoInverseMass(A lcp.Matrix) ([]float64, error) {
	n, asym, err := checkSquare(A)
	if err != nil {
		return nil, err
	}
	if i, j := asym[0], asym[1]; i >= 0 {
		return nil, fmt.Errorf("A[%d][%d] = %v ≠ A[%d][%d] = %v: the pseudoinverse mass needs a symmetric A", i, j, A.At(i, j), j, i, A.At(j, i))
	}
	s := mat.NewSymDense(max(n, 1), nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, A.At(i, j))
		}
	}
	out := make([]float64, n)
	if n == 0 {
		return out, nil
	}
	var e mat.EigenSym
	if !e.Factorize(s, true) {
		return nil, fmt.Errorf("A: symmetric eigendecomposition failed")
	}
	lam := e.Values(nil)
	var v mat.Dense
	e.VectorsTo(&v)
	top := lam[n-1]
	if !(top > 0) {
		return out, nil // A = 0: no row has a range
	}
	cut := pseudoCut * top
	if lam[0] < -cut {
		return nil, fmt.Errorf("A: eigenvalue %.3g < 0: not positive semidefinite, so row effective masses are undefined", lam[0])
	}
	for i := 0; i < n; i++ {
		d := 0.0
		for k, l := range lam {
			if l > cut {
				x := v.At(i, k)
				d += x * x / l
			}
		}
		if d > 0 {
			out[i] = 1 / d
		}
	}
	return out, nil
}

// checkSquare returns the size of A after checking that it is present,
// square and finite, and asym, the first (i, j) with i < j and
// A[i][j] ≠ A[j][i] in row order, or (−1, −1) if A is symmetric.
func checkSquare(A lcp.Matrix) (n int, asym [2]int, err error) {
	asym = [2]int{-1, -1}
	if A == nil {
		return 0, asym, fmt.Errorf("A: missing")
	}
	r, c := A.Dims()
	if r != c {
		return 0, asym, fmt.Errorf("A: not square: %d×%d", r, c)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < r; j++ {
			v := A.At(i, j)
			if !num.Finite(v) {
				return 0, asym, fmt.Errorf("A[%d][%d]: must be finite, got %v", i, j, v)
			}
			if j > i && asym[0] < 0 && v != A.At(j, i) {
				asym = [2]int{i, j}
			}
		}
	}
	return r, asym, nil
}
