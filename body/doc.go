// Package body holds gorigid's rigid bodies: mass properties, pose,
// velocities and the applied force and torque of one step. It knows nothing
// of constraints, contacts or solvers.
//
// # Conventions
//
// SI units, z up. A body's generalized velocity is the 6-vector
//
//	[vx vy vz ωx ωy ωz]   (m/s, rad/s)
//
// the velocity v of the centre of mass followed by the angular velocity ω,
// both in world coordinates, and its mass matrix is
//
//	M = diag(m·I₃, I_w),  I_w = R I Rᵀ
//
// (Enzenhöfer et al. 2019 §2, Eq. 1; the rod Jacobian of its Eq. 25 uses
// this order). A static body is part of the world: InvMass and
// InvInertiaWorld are zero and it carries no kinetic energy or momentum.
//
// # Symbols
//
//	m      Mass, kg
//	I      Inertia, body frame about the COM, kg·m²
//	x      Pos, COM position, m
//	q, R   Rot (unit quaternion) and its rotation matrix, body → world
//	v, ω   Vel (m/s), AngVel (rad/s), world frame
//	f, τ   Force (N), Torque about the COM (N·m), world frame
//	T      KineticEnergy = ½ m v·v + ½ ω·I_w ω, J
//	p, L   LinearMomentum = m v (kg·m/s); AngularMomentum about the origin
//	       = x × m v + I_w ω (kg·m²/s)
//
// # mathgl traps
//
// Validate never normalizes Rot: mgl64.Quat.Normalize turns a zero
// quaternion into the identity, so a zero or non-unit quaternion is an
// error. mgl64.Mat3.Inv returns the zero matrix for a singular matrix; Inv3
// returns NaN instead, and InvInertiaWorld uses it. Rotation uses QuatMat3,
// independent of mgl64's package-level Epsilon.
//
// The inertia helpers (BoxInertia, SphereInertia, CylinderInertia,
// CapsuleInertia, RodInertiaZ) give closed forms for homogeneous solids.
// Their sizes are full lengths (a box's side lengths, a cylinder's length)
// and elongated solids lie along body z, as for contact.Shape and a scene
// file's "size" and "length".
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Cline, M. B. and Pai, D. K. (2003), "Post-Stabilization for Rigid Body Simulation with Contact and Constraints", Proc. IEEE International Conference on Robotics and Automation.
package body
