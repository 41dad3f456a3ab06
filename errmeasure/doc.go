// Package errmeasure measures how far a candidate (x, w) of the boxed MLCP of
// package lcp is from solving it, and picks the best iterate of a solve.
//
// It implements §§3–4 of Enzenhöfer et al. 2019 (Enzenhöfer, Peiret,
// Teichmann and Kövecses, "A Unit-Consistent Error Measure for Multibody
// Systems With Unilateral Constraints", J. Comput. Nonlinear Dyn. 14, 2019).
// The MLCP is Eqs. (2)–(4):
//
//	A x + b = w,  w = w₊ − w₋,  0 ≤ u − x ⊥ w₋ ≥ 0,  0 ≤ x − l ⊥ w₊ ≥ 0.
//
// Three per-row errors and their ℓ1 system totals are provided:
//
//   - Fischer–Burmeister (Eqs. 5–7), FBRow:
//     ψ_FB,u = (u−x) + w₋ − √((u−x)² + w₋²), ψ_FB,l = (x−l) + w₊ − √((x−l)² + w₊²),
//     δψ_FB = max(|ψ_FB,l|, |ψ_FB,u|).
//   - Natural residual (Eqs. 8–10), ResidualRow:
//     ψ_res,u = min(u−x, w₋), ψ_res,l = min(x−l, w₊), δψ_res = max(|ψ_res,l|, |ψ_res,u|).
//   - Energy error (Eqs. 14–23), EnergyRow and EnergyRowParts:
//     x = x₀ + δx_u − δx_l with x₀ = clamp(x, l, u) (14), δx_u = max(x−u, 0),
//     δx_l = max(l−x, 0) (15), w = w₊ − w₋ (16), σ_u = u − (x₀ − δx_l),
//     σ_l = (x₀ + δx_u) − l (17), and
//     δe_xu = ½ a δx_u² (18), δe_xl = ½ a δx_l² (19),
//     δe_w₊ = min(w₊²/(2a), ½ a σ_l²) (20), δe_w₋ = min(w₋²/(2a), ½ a σ_u²) (21),
//     δe = max(δe_xu, δe_xl, δe_w₊, δe_w₋) (22), system error Σ δe_i (23).
//
// The FB and residual errors mix impulses and velocities and so have no unit
// (§3.3); only the energy error is unit consistent. Under a change of the
// mass unit by a factor s (A → A/s, x → s x, bounds → s·bounds, b and w
// unchanged) every energy error scales by exactly s, while the other two do
// not scale uniformly.
//
// The inverse effective mass a = aᵢᵢ of a row is, by default, the diagonal
// of A (Eq. 13: aᵢᵢ = 1/m_eff,i + cᵢ, with m_eff,i of Eq. 12), which costs
// nothing. ExactInverseMass returns 1/{A⁻¹}ᵢᵢ instead, the exact effective
// mass of Eq. (11) with the compliance included (for the rod of §5.1 this is
// Eq. 27); it costs a dense factorization and is meant for small systems.
// The appendix of the paper proves 1/{A⁻¹}ᵢᵢ ≤ aᵢᵢ for SPD A. Rows with
// aᵢᵢ ≤ 0, which the paper does not treat (zero-diagonal rows of circuit
// MLCPs, rigid rows without compliance that no body moves), get the
// substitute of InverseMass: the exact value where it exists, else a
// unit-consistent coupling mass, so that no violated row has error 0 or +Inf.
//
// Every error is O(n) per iterate (§4.2.1). The Picker is an lcp.Observer
// that computes all three totals of every iterate and keeps a copy of the one
// with the least error under a chosen Measure (§5.3), or the last one; an
// iterate that violates a bound never wins over one that does not (see
// Picker). Solve runs a solver with a Picker and labels the returned x with
// its own status, not the solver's.
//
// Beyond the paper (for a step under an iteration budget): the EnergyExact
// measure ranks with Eq. (11)'s exact effective mass (ExactPickMass; through
// the pseudoinverse, PseudoInverseMass, where A is singular); Polish runs
// projected Gauss–Seidel sweeps from the pick, which for symmetric positive
// semidefinite A never raise f(x) = ½xᵀAx + bᵀx once x is in its box; and
// CertifiedBound, Σᵢ (wᵢxᵢ − min_{lᵢ≤z≤uᵢ} wᵢz) for x in its box, bounds
// the energy distance ½(x − x*)ᵀA(x − x*) to every solution x* by the
// convexity of f.
//
// Symbols and units (SI; rotational rows use N·m·s, rad/s and (kg·m²)⁻¹):
//
//	x, l, u, δx_u, δx_l, x₀, σ_u, σ_l   impulses                 N·s
//	w, w₊, w₋, b                        constraint velocities    m/s
//	a = aᵢᵢ                             inverse effective mass   kg⁻¹
//	δe_xu, δe_xl, δe_w₊, δe_w₋, δe      energies                 J
//	δψ_FB, δψ_res                       mixed N·s and m/s (no unit)
//
// Infinite bounds are ±Inf. With finite x, w and a > 0 no row value is NaN,
// and a missing bound contributes nothing: φ(+∞, t) = t in Eq. (5),
// min(+∞, t) = t in Eq. (8), and ½ a σ² = +∞ when σ = +∞ so that the
// minimum of Eqs. (20)–(21) takes the velocity term. A bilateral row
// (l = −∞, u = +∞) thus has δψ_FB = δψ_res = |w| and δe = w²/(2a). A
// zero-width box l = u is solved by x = l with any w, and all three errors
// are zero there.
//
// A NaN x or w gives NaN (a NaN or non-positive a is documented on
// EnergyRowParts); the Picker never picks a NaN.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
package errmeasure
