// Package lcp defines the boxed mixed linear complementarity problem (MLCP)
// that every gorigid time step solves, and the solvers for it.
//
// The problem is Eqs. (2)–(4) of energy-error-measure.md (Enzenhöfer et al.,
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
//     paper) with the single-pivot safeguard. Every iterate solves the free
//     block exactly, so it satisfies Eq. (2).
//   - PGS: projected Gauss–Seidel with box projection and optional
//     over-relaxation; one sweep per iteration.
//   - Lemke: Lemke's complementary pivoting with a lexicographic tie-break;
//     box problems are reduced to a standard LCP. Its intermediate basic
//     solutions do not satisfy Eq. (2) (paper §2.2).
//   - Enum: an enumerating reference solver for n ≤ 12, for tests.
//
// Every solver reports each iterate to Settings.Observer, which is how the
// stepper's error-measure Picker (package errmeasure) sees them; solvers
// themselves know nothing of error measures.
//
// Problems and solutions are read and written as JSON in the interchange
// format of shared/DESIGN.md, with null for infinite bounds.
package lcp
