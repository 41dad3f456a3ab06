// Package lcp defines the boxed mixed linear complementarity problem (MLCP)
// that every gorigid time step solves, and the solvers for it.
//
// The problem is Eqs. (2)–(4) of Enzenhöfer et al. 2019 (Enzenhöfer et al.,
// "A Unit-Consistent Error Measure for Multibody Systems With Unilateral
// Constraints", 2019):
//
//	A x + b = w,            w = w₊ − w₋,  w₊, w₋ ≥ 0
//	0 ≤ u − x ⊥ w₋ ≥ 0      (3)
//	0 ≤ x − l ⊥ w₊ ≥ 0      (4)
//
// where A = J M⁻¹ Jᵀ + C is the lead matrix (kg⁻¹ for translational rows,
// (kg·m²)⁻¹ for rotational ones), b = J M⁻¹ p + Φ/h the parameter vector
// (m/s or rad/s), x = hλ⁺ the impulses (N·s or N·m·s) with bounds l ≤ x ≤ u
// and w the constraint-space velocities. ±Inf marks a missing bound.
//
// Solvers:
//
//   - BPP: block principal pivoting (Júdice & Pires 1994, ref. [29] of the
//     paper) with the single-pivot safeguard and, for symmetric problems
//     whose single pivots crawl or that are semidefinite, a line-searched
//     (damped) Newton mode on the same face solves. Every iterate solves the free block exactly, so it
//     satisfies Eq. (2). On a semidefinite block, where block pivots may
//     cycle, a new least infeasibility count after a failed block pivot
//     must halve the last to count as progress, each proximal move counts
//     afresh, and the damped mode's first step goes towards a face solution
//     already in hand (see BPP).
//   - PGS: projected Gauss–Seidel with box projection and optional
//     over-relaxation; one sweep per iteration.
//   - Lemke: Lemke's complementary pivoting with a lexicographic tie-break;
//     box problems are reduced to a standard LCP. Its intermediate basic
//     solutions do not satisfy Eq. (2) (paper §2.2).
//   - Enum: an enumerating reference solver for n ≤ 12, for tests.
//   - Newton: nonsmooth (semismooth) Newton on Φ(x) = 0 with Φ built from
//     the Fischer–Burmeister, Chen–Chen–Kanzow or minimum-map function
//     (Lu et al. 2014, Eqs. 12–14; names "newton-fb",
//     "newton-cck", "newton-min"), box rows by Billups' composition, an
//     Armijo line search on ½‖Φ‖² and a scaled-gradient fallback. One
//     iteration is one Newton step: a dense LU of the generalized Jacobian
//     (also for a *Sparse A), one solve, one line search. Every iterate
//     satisfies Eq. (2).
//   - Prox: the proximal fixed-point iteration of Eq. (15) of
//     Lu et al. 2014, x ← clamp(x − (R/a_ii)(A x + b)) for all
//     rows at once (projected Jacobi), with an r-factor strategy that
//     shrinks R when a step lengthens or reverses the last one and retries
//     from the previous iterate. One iteration is one product A x; every
//     iterate satisfies Eq. (2).
//   - Auto: chooses by the matrix class (Classify): BPP for symmetric
//     positive semidefinite A, else Lemke, else Newton (FB, then the
//     minimum map), and reports which solver answered and why.
//
// New returns a solver by its command-line name and Names lists them: the
// one table of solver names.
//
// What an iteration costs therefore differs: a BPP iteration and a Newton
// step cost a factorization (O(m³) dense), a PGS sweep and a Prox step a
// product with A (O(n²) dense, O(nnz) sparse). Compare solvers per unit of
// work or time, not per iteration alone.
//
// The lead matrix. Problem.A is the Matrix interface with two
// implementations. Dense is row-major and suits small problems and tests.
// Sparse is a symmetric matrix in compressed sparse row form that the
// stepper fills with Reset, Add (each unordered row pair once) and Finish,
// without allocating once its buffers have grown. It suits the assembled
// A = J M⁻¹ Jᵀ + C, where a row couples only with rows that share a body: a
// 1000-link chain gives 5000 rows and a block-tridiagonal A with 0.3 %
// non-zeros, and a 30-brick wall gives about 550 rows with 12–17 %. Stored
// densely, a 5000-row A takes 200 MB.
//
// The sparse path. Paper §4.2.1 weighs the O(n) error measure against "a
// matrix factorization of complexity O(n³) per iteration, which can be sped
// up to O(bn²) for banded matrices with bandwidth b". When A is a *Sparse,
// BPP factors its free block A_FF by a sparse LDLᵀ in a minimum degree order
// of the whole of A. The order is computed once per sparsity pattern and kept
// across iterations and time steps, and the elimination tree is kept while
// the free set stays the same. One iteration then costs the flops of the
// factor, about Σ_k c_k² for column counts c_k of L (O(b² n) for a band, O(n)
// for a chain), plus O(nnz(A)) for w = A x + b, instead of the dense
// Cholesky's O(m³) refactor or its O(m²) updates per changed index. On large
// problems a few changed indices are rank-one modifications of the factor,
// and a new A of the same pattern (the next time step) is solved by
// refinement against the last factor (see BPP). A free block
// that is not numerically positive definite is solved by a dense LU when it
// has at most BPP.MaxDenseFallback rows (2000 by default); a larger one ends
// the solve with ErrSingular. PGS reads rows through RowDot, which is
// O(row length) for a Sparse. Lemke and Enum read entries through At (a
// binary search) into dense work arrays, which suits only small problems.
// Problem.Validate is O(nnz) for a Sparse, and WriteProblem writes a Sparse
// as dense rows, because the interchange format is dense.
//
// Every solver reports each iterate to Settings.Observer, which is how the
// stepper's error-measure Picker (package errmeasure) sees them; solvers
// themselves know nothing of error measures. Compose puts several observers
// (a Picker, a recorder, a caller's own) on one solve, and an observer that
// is a Stopper can end the solve after any iterate, which every solver
// honours like a done Settings.Context (Status Stopped, ErrStopped).
//
// Problems and solutions are read and written as JSON in gorigid's
// interchange format, with null for infinite bounds and the strings "inf",
// "-inf" and "nan" for any other non-finite number (WriteJSON), so that no
// output is lost to a number encoding/json refuses. Readers ignore unknown
// keys (ReadProblemKeys lists them) and reject a key given twice.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Lu, Y., Williams, J., Trinkle, J. C. and Lacoursière, C. (2014), "A Framework for Problem Standardization and Algorithm Comparison in Multibody System", Proc. ASME IDETC/CIE, DETC2014-35041.
package lcp
