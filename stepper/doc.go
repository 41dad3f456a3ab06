// Package stepper is gorigid's time stepper: a World of bodies and
// constraints advanced by Step, one boxed MLCP per step.
//
// Each step implements Eq. (1) of Enzenhöfer et al. 2019,
//
//	[ M  −Jᵀ ] [ v⁺  ]   [ −p      ]   [ 0 ]
//	[ J   C  ] [ hλ⁺ ] + [ Φ/h     ] = [ w ],
//
// with M = diag(m I₃, I_world) per body (velocity order [v ω], world frame),
// p = M v + h f_a, C = diag(1/(k_i h²)) for rows of stiffness k_i (0 for
// rigid rows; SPOOK's form with a damping time, see constraint.Row) and Φ
// the rows' violations. Eliminating v⁺ gives the MLCP of Eqs. (2)–(4),
//
//	A = J M⁻¹ Jᵀ + C,   b = J M⁻¹ p + Φ/h,   x = hλ⁺,
//
// A is assembled as a symmetric lcp.Sparse. Step solves it under
// Settings.Budget with an errmeasure.Picker as the
// solver's Observer, keeping the iterate with the least error under
// Settings.Pick (the unit-consistent energy error of Eqs. 14–23 by default).
// An answer that did not solve the MLCP (a budget ran out) is checked
// against the step's exact energy balance before it is applied
// (errmeasure.Safeguard, energyModel): one that would add energy is moved
// towards the last step's impulses, or the best iterate without a gain, or
// 0, just far enough that it adds none, and finished with SafeguardSweeps
// projected Gauss–Seidel sweeps (Stats.Safeguard). A converged answer is
// applied as it is.
//
// The stages of Step, in order: freeVelocities (M⁻¹p = v + h M⁻¹ f),
// detectContacts (the geoms' bounding boxes through sweep and prune, then
// contact.Collide per candidate pair: one manifold per pair), buildRows
// (the constraints fill caller-owned rows, ODE style; then per contact
// point a normal row, φ = gap, x ≥ 0, two box-friction rows |x| ≤ μ x̂ₙ
// without compliance or position term, and for two-point manifolds an
// optional rolling-resistance row, at the offsets of ContactInfo.Layout,
// each point keeping its ContactInfo record as World.Contacts reports it;
// see fillContactRows for x̂ₙ, the friction directions and the
// restitution target; in Regularized mode predictDrift then gives each
// rigid anchor row its second-order drift over the step, constraint.Row.Drift),
// propagateImpacts (with Settings.Impacts = PropagatedImpacts only: a
// step's bounces resolved pair by pair before its solve, Newton's cradle),
// assemble (A by row sparsity: only row pairs that share a
// body are visited, never a dense rows × 6m product; for a step of one
// problem A's entries off its diagonal wait for their first reader,
// lcp.Sparse.Defer, which a steady step solved in body space never is,
// every reader getting the same bits), estimateNewContacts
// (the new contacts' pre-solve, for their friction bounds), solve
// (pickSolve, safeguard, polish), integrate
// (v⁺ = M⁻¹(p + Jᵀx); semi-implicit Euler for positions, the exponential
// map for quaternions), and project (Cline and Pai 2003 Eqs. 13–15:
// a second MLCP (J M⁻¹ Jᵀ) δ + Φ = w over the positional rows, joints and
// contact normals, Δq = M⁻¹ Jᵀ δ). Stats.Timings reports the wall-clock
// time of each. The stages read the settings through a stepContext
// resolved once per step, which holds the default solvers: Step never
// writes into World.Settings.
//
// # Stages and their state
//
// Each stage owns one struct of the world's workspace and takes as
// arguments what the earlier stages produced for it, so that Step's order
// is a contract of the types: a stage cannot run before the stages whose
// output it reads have handed it over (detectContacts needs the Mass that
// freeVelocities returns, assemble the rowStage of buildRows, solve the
// presolveStage of estimateNewContacts). memory is the one struct a step
// leaves for the next, with contactStage.reuse (the projection's narrow
// phase, which the next detectContacts reads where it gives the same
// bits); every other struct is refilled by its stage.
//
//	stage                reads                             produces (owns)
//	freeVelocities       bodies, H, Gravity                *Mass: M⁻¹, free velocities M⁻¹p
//	detectContacts       *Mass (the sweep), geoms,         *contactStage: points by pair
//	                     contactStage.reuse (the last        (a pair at the recorded poses
//	                     projection's narrow phase)          and within its reach: its points)
//	buildRows            *Mass, *contactStage,             *rowStage: joint then contact rows,
//	                     memory.cache, memory.jointStart,    their warm start (driftStage: predictDrift;
//	                     memory.jointX                       impactStage.supported: markSupported);
//	                                                         geomStiffStage: geometricStiffness
//	                                                         moves Mass.InvInertia and Mass.Free
//	  propagateImpacts   *Mass, *contactStage, *rowStage   impactStage; moves Mass.Free, clears
//	                                                         resolved bounces (last in buildRows)
//	assemble             *Mass, *rowStage                  *assemblyStage: A, b, bounds
//	estimateNewContacts  *assemblyStage, *contactStage,    *presolveStage; new contacts' friction
//	                     *rowStage                           bounds and warm start
//	solve                *assemblyStage, *rowStage,        *solveStage: x (res); memory's anchors
//	                     *presolveStage, memory              and joint warm start; by island
//	                                                         (islandStage, kept across steps)
//	  pickSolve          *solveStage, *rowStage            the picked iterate
//	  safeguard          *solveStage, memory (anchors)     an x that adds no energy
//	  polish             *solveStage                       Settings.Polish sweeps from x
//	integrate            *Mass, *assemblyStage, *rowStage, *integrateStage: the bodies' v⁺
//	                     *solveStage                         and poses (its scratch)
//	  shiftBounces       *contactStage, *rowStage,         the poses: bounces' impulses
//	                     *solveStage, impactStage            at their time of contact
//	storeImpulses        *contactStage, *rowStage,         memory.cache for the next step
//	                     *solveStage
//	project              *Mass, *integrateStage (the       projectionStage: corrected poses,
//	                     poses after integrate)              MaxViolation; contactStage.reuse
//	                                                         for the next detectContacts
//
// One step of the order is not in the types: integrate before
// storeImpulses (both can run once solve has returned); Step calls them
// in that order.
//
// Stabilization modes: Regularized (Eq. 1, the default), None, Baumgarte
// (β Φ in place of Φ/h) and Post. Gaps of unilateral rows (φ > 0) always
// enter as φ/h, so that separated contacts and limits are not sticky. In
// Regularized mode the feedback of a penetration or joint error is capped
// at Settings.MaxCorrectingSpeed, by default ProjectAbove/h: an overlap
// deeper than ProjectAbove is removed by the projection after the step,
// not turned into a separating speed |φ|/h (a 5 cm overlap at h = 5 ms
// would leave at 10 m/s).
//
// Everyday physics (what a user of a physics engine expects): contacts are
// speculative (detectContacts), so a falling or fast body stops at the
// surface with its positive gap in b instead of sinking in and being
// pushed out by Φ/h (a bounce); restitution is Newton's law on the normal
// row (Material.Restitution, 0 by default); the free velocity carries the
// gyroscopic term by the implicit midpoint rule (body.Body.AngularStep),
// which conserves a free body's energy and |L| at any step; a constrained
// body whose gyroscopic stiffness is not negligible (a fast rotor on a
// turning frame, Mass) enters the MLCP with its linearized midpoint
// response R J_f⁻¹ Rᵀ, a dense non-symmetric A (Assembly), and turns about
// its own axle while the rest of its rotation carries the axle
// (integrate); and after the
// velocity step, project measures every joint error and penetration at the
// new poses and, in Post mode or when one exceeds Settings.ProjectAbove in
// Regularized mode, removes them by post-stabilization (Eqs. 13–15 of
// Cline and Pai 2003, iterated as Newton steps on the sparse A with
// BPP), which moves positions without adding velocity; a projection MLCP
// the solver finds singular is solved again regularized (ProjectionShift),
// and one that still has no answer is skipped for the step with its reason
// (Stats.ProjectionSkipped), never ending the run. Step fails loudly
// on a non-finite state (naming the body) and reports the energy each step
// added (Stats.EnergyAdded).
//
// Collision filtering (filter.go): bodies joined by a constraint, joints
// and couplings alike, do not collide unless World.SetJointCollision turns
// it back on (Bullet's and PhysX's rule; modelling tools draw limbs
// overlapping at their joints); Geom.Category and Geom.Mask are Box2D's
// category and mask bits, whose zero values collide with everything; and
// World.ExcludePair and World.ExcludeBodies exclude pairs. A contact that
// fights a joint whose collision is on (shapes overlapping where the joint
// holds them: the contact row lies in the span of the joint's rows with an
// inconsistent right-hand side) makes Step return ErrConflict, naming the
// bodies, the overlap and the joint, before anything moves.
//
// The assembly is exported, one home for Eq. (1) that the step, its
// position projection and package bpmd's rebuild of recorded steps share:
// Mass (M⁻¹ and the free velocities M⁻¹p of the bodies), ContactInfo's row
// methods (a contact's normal, friction and rolling rows of J, FillRows)
// and Assembly (A = J M⁻¹ Jᵀ + C, b and the bounds of a set of rows, with
// M⁻¹ Jᵀ for v⁺, J W Jᵀ and W Jᵀ for a gyroscopic step; MassMatrix for the
// projection, always symmetric), with
// Settings.PositionTerm for the Φ-term of each mode.
//
// # Settings
//
// Each Settings field's doc gives its unit and the meaning of its zero
// value; DefaultSettings is the value to start from. The longer story:
//
// Position correction. In Regularized mode an error φ (a joint's
// violation, a contact's penetration) up to ProjectAbove is left to the
// velocity feedback φ/h of Eq. (1); one above it after the velocity step
// is removed by the position projection of Post mode (World.project),
// which moves bodies without changing velocities, so a large error never
// becomes a large Φ/h velocity (a bounce, a chain whipping itself apart).
// None and Baumgarte leave every error to their feedback, Post projects
// every error. The default ProjectAbove, 1 mm or 1 mrad, lies above the
// errors of the papers' scenes at their steps and far below visible ones.
// MaxCorrectingSpeed v_max caps that feedback (ODE's contact max
// correcting velocity, Box2D's contact push speed): a penetration enters
// b as max(φ/h, −v_max), a bilateral error as φ/h clamped to
// [−v_max, v_max], so an overlap separates at no more than v_max. Its
// default ProjectAbove/h (0.2 m/s at h = 5 ms) removes ProjectAbove in one
// step: errors up to ProjectAbove get their full φ/h, so scenes whose
// errors stay below it (the papers' scenes) are unchanged, and larger ones
// are projected, adding no velocity. A body that starts 2 cm inside the
// floor thus leaves it at v_max, with kinetic energy ½ m v_max², not at
// 0.02/h (4 m/s at h = 5 ms). Gaps (φ > 0 on a contact or limit),
// compliant rows, and the None, Baumgarte and Post modes are not capped.
//
// Joint errors and energy (Settings.JointCorrection). A rigid joint's
// anchor row on a moving body carries a drift (constraint.Row.Drift, the
// curvature of its path over the step), and the error the drift
// prediction misses, O(h³) a step while the motion's curvature changes,
// has the sign of the joint's load. Fed back as φ/h (JointFeedback, the
// zero value and DefaultSettings' choice) the next velocity closes it
// and the load does work on that velocity that no potential stored: a
// 10-link chain
// whipping from horizontal gains up to 0.25 J of midpoint energy at
// h = 1/240 s and 0.99 J at 1/480 s, of a 9.81 J fall. SPOOK's relaxed
// feedback (Lacoursière 2007, b = 4Υφ/h − Υ J v with Υ = 1/(1 + 4d) and
// ε → 0) spreads the closing over d steps but closes the same error
// under the same load and was measured to gain as much (1.37 J at d = 2
// steps, 0.20 J at d = 8, at 1/480 s). JointProjection, the opt-in for
// jointed chains and ragdolls, therefore puts no φ in b on those rows:
// the velocity keeps the drift only (predicted with ω's direction turned on by the last step's
// turn), and the projection removes the errors on every step one exceeds
// JointProjectAbove (1 µm), moving positions without velocity and
// turning each body's ω with it (Catto's split impulse, as a projection),
// so the chain's midpoint energy never rises
// (TestNewUserChainEnergySource), a chain of spinning links swinging in
// 3D gains at most 0.0022 J against JointFeedback's 0.19 J
// (TestSpinningChainEnergy), and a pendulum's period at h = 1/60 s is
// +0.020 % against +0.136 % (TestPendulumAtGameStep). Rows without a
// drift (orientation rows, bodies at rest) keep φ/h. The price is a
// projection solve on most steps of a moving jointed body, and a
// velocity that does not see the errors: a top spinning at 200 rad/s on
// a ball joint precesses 1.75 % slow instead of 0.025 %
// (TestJointProjectionCost), the projection undoing the momentum
// alignment's turn about its centre of mass that JointFeedback's impulse
// keeps; that is why DefaultSettings keeps JointFeedback.
//
// Geometric stiffness. The loads a joint's anchors carry turn a body
// back when it turns (a rope's tension T, a stiffness T·l on a link of
// length l), and the velocity step takes their directions at the step's
// start: the turn is integrated explicitly, unstable once h² T l/I passes
// 4, where the top links of a long rope of light links zig-zag and gain
// energy. A body whose ratio exceeds GeometricStiffnessTol takes the
// last step's anchor loads' stiffness into the step as added inertia,
// which damps its turn (geometricStiffness; Stats.Stiffened): 30 capsule
// links at h = 1/60 s, which gained 1.2 J from a 0.0063 J kick, and 100
// links at 1/120 s, which gained 334 J, keep their joints and never rise
// above their start (TestRopeGeometricStiffness), and whipping chains
// gain less (TestChain20Swings 0.156 → 0.0022 J). The papers' scenes stay
// below the tolerance.
//
// Polish. A is symmetric positive semidefinite, so no projected
// Gauss–Seidel sweep raises ½xᵀAx + bᵀx once x is in its box; Polish
// sweeps start from the picked iterate (errmeasure.Polish says when they
// are skipped) and Stats.PolishSweeps counts those run.
//
// Impacts. A bounce falls the gap and rises for the rest of the step: its
// impulse acts at its time of contact within the step (shiftBounces), and
// its velocity keeps e² of the approach's energy as the integrator counts
// it (bounceStep; e |v₋| without a normal acceleration), so a dropped ball
// rises to e² of its height bounce after bounce. With SimultaneousImpacts
// Newton's law J v⁺ ≥ u⁺ sits on every bouncing normal row of the step's
// MLCP at once, which treats
// touching bodies as one: a ball striking a row of four touching balls
// (e = 1) sends the four off together at 0.4 v₀ and comes back at 0.6 v₀.
// PropagatedImpacts resolves the impacts first, pair by pair through the
// touching contacts (propagateImpacts), and the last ball leaves alone.
//
// Cancellation and observation. The step's solver checks Context once
// per iteration; when it is done the step completes with the best iterate
// so far (status lcp.Canceled) and Step returns an error wrapping the
// context's error. A step is never left half-integrated. Observer sees
// every iterate of the step's main solve after the step's Picker
// (lcp.Compose), not those of the new contacts' pre-solve, of the
// post-stabilization solves or of Polish's sweeps; World.LastProblem is
// the problem being solved (an island's, one island after the other, when
// the step is solved by island: Islands), and several observers share the
// solve through lcp.Compose. An Observer that is an lcp.Stopper can end the solve after
// any iterate: the step then completes with the picked iterate among those
// so far (status lcp.Stopped, unless it solves the problem) and Step
// returns an error wrapping lcp.ErrStopped and the Stopper's error.
//
// Islands. A = J M⁻¹ Jᵀ + C couples two rows only through a dynamic body
// they share, so it is block diagonal by island: the dynamic bodies
// connected through the step's rows (static and kinematic bodies, of
// infinite mass, join nothing). Unless Settings.SingleProblem is set, a
// step with two or more islands solves each island's MLCP on its own, as
// ODE's dWorldStep does (Smith, "Open Dynamics Engine v0.5 User Guide",
// 2006): the
// island's principal block of A (lcp.Sparse.Submatrix), its b, bounds and
// warm start, solved by a block-pivoting solver of its own under
// Settings.Budget with its own Pickers, safeguarded by the island's share
// of the energy balance towards its rows' last impulses, and polished;
// rows that name no dynamic body are one more problem. The answers are
// scattered back into the world's x, w and index sets, so that the later
// stages, World.LastSolution and World.LastProblem (the world's problem)
// see one answer. An island's solver keeps its state (the warm factor)
// from step to step under the island's smallest body index, so a
// persisting island re-pivots only when it changes: a box landing on one
// heap of a pile does not re-pivot the others. The islands run on up to
// GOMAXPROCS goroutines, each reading the finished problem and writing
// only its own state, and Stats combines them in island order, so the
// bits are the same for any GOMAXPROCS. A world that is one island, a
// gyroscopic step and a world with Settings.SingleProblem take the single
// problem's path, bit for bit. A Settings.Solver other than lcp.BPP (which
// is copied per island by its options) may keep state that is not safe to
// share or copy: the islands then take it in turn, in island order, and
// so they do when Settings.Observer is set, which sees each island's
// iterates with World.LastProblem the island's sub-problem. Stats.Islands
// has each island's share and says how the step's totals combine them.
//
// Warm start: the solver starts from the last step's index sets, joint
// rows by position, contact rows by contact key (storeImpulses keeps each
// key's normal impulse, friction direction and states).
//
// Coherent (Settings.Coherent: CoherentDefault, the zero value, is
// CoherentOn; CoherentOff opts out). Boxes resting on four points and other
// redundant contacts make A semidefinite: the step's MLCP has a set of
// solutions with the same body velocities, and lcp.BPP's regularized mode
// returns the one its proximal iterations reach from their first centre
// (lcp.Settings.Reference; Rockafellar, "Monotone operators and the
// proximal point algorithm", 1976). A step without new contacts and without
// a Budget starts at the last step's impulses: a resting structure repeats
// last step's face without a proximal move, 1 block-pivoting iteration a
// steady step of the 30-brick wall and the 55-brick pyramid instead of 2,
// 1.65 of the 210-brick pyramid instead of 2.7 (BenchmarkWallSteady,
// BenchmarkPyramidSteadySmall, BenchmarkPyramidSteady against
// BenchmarkCoherentOffSteady, -benchtime 20x), and 1 at rest in the 100-box
// random pile instead of 3.5 (TestRandomBoxPile). A step with many new
// contacts starts at the pre-solve's x, one with a few new contacts at 0
// (from a landing box's last-step centre the random pile's worst island
// took 40 iterations instead of 31), and a budgeted step without new
// contacts at 0 too, since its answer is an iterate that follows its centre
// (the forklift at a budget of 5 drives 12.6 m of its path from the last
// step's impulses, 28.09 m from 0: TestRunForkliftBudgets). A solve again
// of the same step (Stats.Resolves: turnHeldFriction, CoulombBounds)
// without a Budget starts at the solve before it's impulses, the turned
// friction rows' projected into their new frames. The answer is
// another exact solution of the same MLCP, to the solver's tolerance, with
// the same body velocities to that tolerance, but it depends on the
// history: a problem rebuilt from World.LastStates solves to it again from
// the same centre, World.LastReference, which bpmd records for its Rebuild,
// and an objective over a run's parameters (sweep's calibration) moves with
// the centre as with any change of the solver's last bits. It is exact to
// the solver's tolerance rather than to rounding: from the last step's
// impulses the solve returns a solution whose residual
// is below lcp.BPP's tolerance (10⁻⁶ of max|b|) and the next step starts
// there again, so the residual persists (a box pushed by a kinematic pusher
// slides sideways at 2.9·10⁻⁸ m/s, 10⁻¹⁶ with CoherentOff:
// TestKinematicPusherPushesBox; a swinging chain solved by island and as
// one problem ends 1.3·10⁻⁸ m apart after 2 s, 1.2·10⁻¹⁰ m with
// CoherentOff: TestIslandsMatchSingleProblem). With CoherentOff every solve
// starts at 0 or the pre-solve's x, so the answer depends on the step's
// problem alone. The built-in scenes keep the default and their papers'
// numbers hold with it (package scenes' tests), the pushing experiment
// (scenes.DefaultPushParams), a calibration's objective, among them: its
// objective is rough at the scale of the solver's last bits at either
// centre, and sweep's confidence region, which counts that roughness as
// noise, holds the off-grid truths with the coherent centre and at
// centre 0 (sweep's TestCalibrationOffGrid, with -offgrid.centre0).
//
// Sleeping (Settings.Sleep, on in DefaultSettings, off in the zero value):
// after the step an island that has rested for Sleep.Time goes to sleep;
// the stages then skip its bodies (no free velocity, narrow phase, rows or
// integration) until a contact, a load, a motor or a user's change wakes
// it at the start of a step or in detectContacts (Sleep says which).
//
// Buffers are reused across steps: a step in steady state allocates nothing.
// Units are SI; gravity is Settings.Gravity (StandardGravity is z up).
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Cline, M. B. and Pai, D. K. (2003), "Post-Stabilization for Rigid Body Simulation with Contact and Constraints", Proc. IEEE International Conference on Robotics and Automation.
//   - Catto, E. (2015), "Numerical Methods", Game Developers Conference (the implicit gyroscopic impulse).
//   - Lu, Y., Williams, J., Trinkle, J. C. and Lacoursière, C. (2014), "A Framework for Problem Standardization and Algorithm Comparison in Multibody System", Proc. ASME IDETC/CIE, DETC2014-35041.
//   - Lacoursière, C. (2007), "Ghosts and Machines: Regularized Variational Methods for Interactive Simulations of Multibodies with Dry Frictional Contacts", PhD thesis, Umeå University (SPOOK).
package stepper
