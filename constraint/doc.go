// Package constraint turns joints into constraint rows for gorigid's
// velocity-level time step.
//
// # The row contract
//
// Following ODE's joint interface, a Constraint first says how many rows it
// has this step (Dim), then fills exactly that many rows the caller owns
// (Fill); Fill does not allocate. A Row touches up to MaxBodies bodies by
// index into Context.Bodies (the static world, index World, is never
// listed; a row touching only the world is invalid) and carries, per body,
// the 6 Jacobian entries for the generalized velocity [vx vy vz ωx ωy ωz]
// (world frame), the violation φ, impulse bounds [Lo, Hi], a target Speed,
// a Stiffness and a SPOOK Damping time, and its Kind.
//
// # Equations
//
// Each step solves Enzenhöfer et al. 2019 Eq. (1),
//
//	[ M  −Jᵀ ] [ v⁺ ]   [ −p   ]   [ 0 ]
//	[ J   C  ] [ x  ] + [ Φ/h  ] = [ w ],   x = hλ⁺,  p = M v + h f_a,
//
// as the MLCP of its Eqs. (2)–(4): A x + b = w with A = J M⁻¹ Jᵀ + C and
// b = J M⁻¹ p + Φ/h, Lo ≤ x ≤ Hi complementary to w. The stepper assembles
// A and b from the rows; per row (Row.Compliance, Row.B):
//
//	rigid (k = 0 or +Inf):   c = 0,            b = J M⁻¹ p + φ/h
//	plain Eq. 1:             c = 1/(k h²),     b = J M⁻¹ p + φ/h
//	SPOOK (d > 0):           c = 4/(h² k (1 + 4d/h)),
//	                         b = J M⁻¹ p + (4Υ/h) φ − Υ J v,  Υ = 1/(1 + 4d/h)
//
// minus Speed in every case (a motor row asks J v⁺ = Speed). The plain form
// is the implicit spring λ⁺ = −k φ⁺; both compliant forms settle at the
// static deflection φ = F/k. ODE users: ERP = hk/(hk + c_d) and
// CFM = 1/(hk + c_d) for a damping coefficient c_d (ERPCFM); ODE's CFM
// multiplies the force λ, ours the impulse x = hλ, so c = CFM/h, and c_d = 0
// is exactly the plain row. Friction, motor and coupling rows carry no
// compliance and no φ: regularized friction creeps.
//
// For position-level rows J is the derivative of the violation:
// φ̇ = J v (Cline and Pai 2003 Eq. 2, where the Jacobian relates the
// velocities to the rate of change of the constraint function g). Here a
// body's orientation is perturbed as q ← exp(δθ/2)·q with δθ in the world
// frame, so the angular block is ∂φ/∂δθ. The same J and φ serve the
// post-stabilization step of Cline and Pai 2003 Eqs. (10)–(14)
// (J dp = −g(p), the displacement dp a twist applied with body.Displace)
// and Baumgarte's velocity-level form g + αg of its Eq. (9). Every joint
// exports Violation so tests check J against finite differences of φ.
//
// Signs: unilateral rows (LimitLower, LimitUpper, ContactNormal) are
// admissible for φ ≥ 0 and have x ≥ 0, so w = J v⁺ + φ/h ≥ 0 keeps
// φ⁺ ≈ φ + h J v⁺ ≥ 0.
//
// # Joints
//
//	Ball       3 rows   anchors coincide, φ = w_a − w_b (m)
//	Fixed      6 rows   Ball + relative orientation locked (φ ≈ rad)
//	Hinge      5 rows   Ball + 2 axis rows; + lower/upper limit, motor, friction,
//	                    spring-damper-armature, servo, effort on θ
//	Prismatic  5 rows   orientation lock + 2 perpendicular rows; + the same on s
//	Universal  4 rows   Ball + n_a·n_b = 0 (A turns about n_a and n_b only)
//	Distance   1 row    |w_a − w_b| = L
//	Rope       1 row    |w_a − w_b| ≤ L, unilateral (LimitUpper)
//	GearJoint  1 row    (ω_a − ω_h)·n_a = r (ω_b − ω_h)·n_b, velocity level
//	DifferentialJoint 1 row  (ω_c − ω_h)·n_c = ½[(ω_a − ω_h)·n_a + (ω_b − ω_h)·n_b]
//	Tendon     1–2 rows lo ≤ Σ c_i q_i ≤ hi over hinge angles and slides (MuJoCo's
//	                    fixed tendon), unilateral; lo = hi: one bilateral row
//
// The axis options of Hinge and Prismatic: SetSpringDamper (implicit spring
// k and viscous damper c to a rest position: one Spring row with
// Row.Viscous, λ = −k φ⁺ − c q̇⁺), SetArmature (added inertia a: the same
// row's damper grows by a/h with target speed q̇, the impulse −a Δq̇),
// SetServo (a position servo kp, kd bounded by a force limit: a second
// Spring row, MuJoCo's position actuator) and SetEffort (a generalized
// force: a Motor row with its impulse fixed, Lo = Hi = f h).
//
// Constructors take the body slice, the body indices (World allowed for
// one side of a joint) and world-frame pivots and axes in the current pose,
// which they store in the bodies' frames; bad input is an error naming the
// argument, never a panic.
//
// # Symbols
//
//	h      step, s                         x      impulse hλ, N·s or N·m·s
//	φ, Φ   violation, m or rad             w      constraint velocity, m/s or rad/s
//	J      Jacobian row, 1, m (angular part of a translational row) or 1/m
//	k      stiffness, N/m or N·m/rad       d      SPOOK damping time, s
//	c      compliance, kg⁻¹ or (kg·m²)⁻¹ (per impulse)
//	c_d    damping coefficient, N·s/m      Υ      1/(1 + 4d/h), dimensionless
//	θ      hinge angle, rad, in (−π, π]    s      prismatic slide, m
//	w_a    world anchor x_a + R_a l_a, m   r_a    w_a − x_a, m
//	θ₀     hinge reference (SetReference): θ at creation, rad; θ is then continuous
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Cline, M. B. and Pai, D. K. (2003), "Post-Stabilization for Rigid Body Simulation with Contact and Constraints", Proc. IEEE International Conference on Robotics and Automation.
package constraint
