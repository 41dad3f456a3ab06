// Package articulated simulates planar chains and trees of rigid links
// joined by revolute joints, in joint coordinates, with intermittent
// frictional contact against fixed lines: the hybrid recursive–
// complementarity formulations of Bhalerao, Crean and Anderson, "Hybrid
// complementarity formulations for robotics applications" (2011).
//
// # Model
//
// A Model lists Links (each with its Parent, the joint's Offset in the
// parent's frame, Length, Mass and central Inertia; exactly one root), a
// root that is Floating (coordinates x, y of its inboard end and its
// absolute angle) or pinned at Pin, Gravity, Lines n·(x − P) ≥ 0 and
// Contacts (a point of a link, a line, μ). New validates it and returns a
// System with the generalized coordinates Q and speeds U = q̇ (one per
// joint; DOF gives a link's index), joint torques Tau and known point
// Forces.
//
// # A step (Sec. 2.3)
//
// Step 1: the chosen Method gives the accelerations as a linear function
// of the unknown contact forces,
//
//	u̇ = M⁻¹(τ − C) + M⁻¹ Jᵀ λ                         (Eq. 12b)
//
// by one of the three classes of Sec. 3:
//
//   - Traditional, O(n³) (Sec. 3.1): M by composite rigid bodies, C by
//     Newton–Euler, a Cholesky factorization, M⁻¹ Jᵀ column by column;
//   - ABA, O(n) (Sec. 3.2, Eqs. 14–15): articulated inertias in one backward
//     sweep; each unknown contact force (a unit force along a contact row)
//     is carried from its link to the root and back by a bias sweep and a
//     forward sweep;
//   - DCA, O(log n) on O(n) processors (Sec. 3.3, Eqs. 16–17): each body's
//     handle equations a_h = Σ Φ_hg f_g + β_h, with the contact points as
//     extra handles, assembled pairwise over a balanced binary tree of
//     joints and disassembled once the contact forces are known; with
//     Settings.Parallel the subtrees of the top ⌈log₂ GOMAXPROCS⌉ levels
//     run on goroutines, bit-identical to the serial order. See dca.go.
//
// Step 2: the contact points' accelerations a_P = Ξ₁ + Ξ₂ λ (Eqs. 6, 9),
// with the velocity term ω ẑ × v_P. Step 3: their first-order velocities
// v⁺ = v + h a_P (Eq. 10) in the complementarity conditions (Eq. 4),
// written in impulses x = h λ:
//
//	0 ≤ g_N/h + n·v⁺       ⊥ x_N ≥ 0     (Eq. 4a with Eq. 3, divided by h)
//	0 ≤ 𝒮 e + D_cᵀ v⁺      ⊥ x_F ≥ 0     (Eq. 4b)
//	0 ≤ μ x_N − eᵀ x_F     ⊥ 𝒮 ≥ 0       (Eq. 4c)
//
// with the polyhedral cone of Eq. (1) in the plane: D_c = [t −t], η = 2,
// t = (n_y, −n_x), and 𝒮 (m/s) the sliding-speed variable. Gathered over
// the contacts (normals, then friction pairs, then sliding speeds) this is
// the LCP of Eqs. (11)/(13), whose χ blocks are built from K = J M⁻¹ Jᵀ:
// every method produces the same K and b (tested to 1e−9 relative), so
// the LCP, its solution and the trajectory do not depend on the method.
// A frictionless contact (μ = 0) contributes its normal row only.
//
// The LCP is solved by Settings.Solver, by default Lemke's method when
// there are friction rows (the matrix of Eq. 11 is not symmetric and has
// zeros on the 𝒮 diagonal) and block principal pivoting when all contacts
// are frictionless (K symmetric positive semidefinite). The solve goes
// through errmeasure.Solve, so StepStats carries the Fischer–Burmeister,
// natural-residual and energy errors of the kept iterate every step. When
// Lemke ends on a ray on a nearly degenerate frictional LCP (possible in
// floating point although a solution exists), the step retries on K + εI
// (and ε on the 𝒮 rows), ε from 1e−10 to 1e−4 relative, and reports ε in
// StepStats.Regularized.
//
// # Integration (Secs. 2.3, 4.1)
//
// SemiImplicitEuler (u⁺ = u + h u̇, q⁺ = q + h u⁺) is the time stepper
// of Sec. 2.3. ExplicitEuler is the first-order integrator of Fig. 7. RK4
// applies the LCP's impulses as constant forces x/h at the contact points
// over the four stages (Sec. 4.1), for frictionless contact;
// Settings.ClampGap with GapFloor = 0 switches a penetrating contact to
// the velocity-level condition, and GapFloor = g_Nε < 0 limits the
// penetration the solver sees (Fig. 8(c)–(d)).
//
// # Conventions
//
// SI units; the plane is (x, y) with y up, gravity as given (Chain's
// examples use (0, −9.81) m/s²). Spatial vectors are planar (ω, vx, vy)
// and (n, fx, fy) about the root's inboard joint at the state being
// evaluated, not the world origin (see kin.go), so that a system far from
// the origin (a chain that has fallen freely for hours is 1e8 m away) has
// the dynamics it has at the origin, to rounding. Gaps are positive when
// separated.
//
// # Errors
//
// Step, Accelerations and LCP return an error, and change nothing, for a
// Q, U or Tau of the wrong length or with a non-finite entry and for
// Forces that name no link or are not finite; and one wrapping
// ErrSingularMass, naming the column of M and the likely cause, when M(q)
// is not positive definite in floating point (a link whose central
// inertia is below ~1e-15 of m·l², for instance).
//
// # References
//
// K. D. Bhalerao, C. Crean, K. Anderson, Hybrid complementarity
// formulations for robotics applications, ZAMM 91(5), 2011 (the paper); R. Featherstone,
// Rigid Body Dynamics Algorithms (ABA, CRBA, RNEA) and the divide-and-
// conquer articulated-body algorithm, IJRR 18(9), 1999 (refs. [16, 17]);
// D. Stewart and J. Trinkle, IJNME 39, 1996 (ref. [45]), and M. Anitescu
// and F. Potra, 1997 (ref. [3]) for the LCP.
//
// References:
//   - Bhalerao, K. D., Crean, C. and Anderson, K. (2011), "Hybrid Complementarity Formulations for Robotics Applications", Zeitschrift für Angewandte Mathematik und Mechanik (ZAMM).
package articulated
