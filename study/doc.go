// Package study holds experiments of the papers gorigid implements as
// functions that return Go values: the per-step series and the summary
// numbers behind each figure, which the command line's `sim study NAME`
// writes as CSV and PNG. Every study takes a context (checked between
// steps and solves: a cancelled study returns an error wrapping the
// context's) and Options (the steps per simulation, 0 for the study's
// default, and an optional progress callback).
//
// From A. Enzenhöfer, A. Peiret, M. Teichmann and J. Kövecses, "A
// Unit-Consistent Error Measure for Multibody Systems With Unilateral
// Constraints" (J. Comput. Nonlinear Dyn., 2019), the energy-error paper:
//
//   - Rod: the rod on two contacts, §5.1 (Fig. 7, Eqs. 25–27): the MLCP of
//     Eq. (26) and the FB, residual and energy errors of an incorrect
//     iterate.
//   - BrickWall: the 30-brick wall, §5.2 (Figs. 8–9, Eqs. 28–29): mean and
//     deviation of the three errors over projected Gauss–Seidel sweeps.
//   - Forklift: the forklift on a circle under an iteration budget, §5.3
//     (Figs. 10–12): the last iterate against the least-error picks, and
//     budget tables of stored MLCPs.
//   - Scaling: CPU time of exact block pivoting on walls and pyramids of
//     growing size, then on random piles of boxes and 1 000 dominoes, and
//     the wall-clock time of separate piles at GOMAXPROCS 1, 2 and 4 (not
//     in the paper).
//
// From M. B. Cline and D. K. Pai, "Post-Stabilization for Rigid Body
// Simulation with Contact and Constraints" (ICRA 2003):
//
//   - Chain6: the 6-link chain's joint drift per stabilization mode, §VI.A
//     (Figs. 3–7).
//   - ContactStabilization: a box pushed around a plane by a scripted force
//     field (impacts, resting, sliding, tipping onto edges and corners) and
//     a pile of five boxes under every stabilization mode, §VI.B (Figs.
//     8–10), recording the deepest penetration after every step.
//
// From K. D. Bhalerao, C. Crean and K. Anderson, "Hybrid Complementarity
// Formulations for Robotics Applications" (ZAMM, 2011):
//
//   - RecursiveTiming: time per step of the O(n³), ABA and DCA methods
//     against chain size, §3.4 (Figs. 4–6).
//   - RK4Contact: energy drift of Euler and RK4 on an 8-link pendulum, and
//     RK4 with frictionless contact (Figs. 7–8).
//
// Times (RecursiveTiming, Scaling, ForkliftRun.StepTime) depend on the
// machine; every other value is deterministic.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Cline, M. B. and Pai, D. K. (2003), "Post-Stabilization for Rigid Body Simulation with Contact and Constraints", Proc. IEEE International Conference on Robotics and Automation.
//   - Bhalerao, K. D., Crean, C. and Anderson, K. (2011), "Hybrid Complementarity Formulations for Robotics Applications", Zeitschrift für Angewandte Mathematik und Mechanik (ZAMM).
package study
