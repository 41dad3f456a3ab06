// Package scenes builds gorigid's built-in scenes through the public API
// only: each is a function of documented parameters (units on every field)
// returning a ready stepper.World, with a Default…Params holding the
// papers' values.
//
//   - Pendulum: one link on a hinge (analytic small-amplitude period).
//   - Chain: the 6-link chain of Cline and Pai 2003, links 100 mm,
//     pinned at one end, released horizontal.
//   - Push: the planar grasping experiment of the BPMD paper's §4, a round
//     object on a tripod of point contacts pushed by a kinematic pusher
//     along a path into two fingers (friction coefficients and tripod
//     radius are its unknowns; package sweep calibrates them).
//
// # Scene files
//
// A scene file is a JSON document that describes everything the Go API
// builds; LoadFile and Load read one into a stepper.World, Export writes
// a registered scene as one (`sim export SCENE --set NAME=VALUE`), and
// `sim run FILE.json` runs it with every flag of `sim run`. The built-in
// scenes are themselves built from such a document (SceneSpec), so an
// exported scene runs bit-identically to the built-in one. The JSON
// Schema (draft 2020-12) is scene.schema.json (Schema; `sim export
// --schema`). SI units, z up; quaternions are [w, x, y, z]; vectors are
// [x, y, z] in the world frame unless said otherwise; ±Inf is null.
// Export writes world coordinates; a file with nested bodies or joint
// frames is written in world coordinates by SceneSpec.WorldFrame and
// Marshal, and builds the same World.
//
// Top-level keys: version (required, 1), name, doc, settings (required),
// world_shapes, bodies, joints, loads, exclude, tendons, and $schema
// (ignored, for editors).
//
//   - settings: h (s, required), gravity (default [0, 0, -9.81], as
//     stepper.DefaultSettings), solver (bpp, pgs, lemke, newton-fb,
//     newton-cck, newton-min, prox; default bpp), budget (iterations, 0 =
//     the solver's default), tolerance (the solver's, 0 ≤ t < 1, 0 = its
//     default), pick (energy, fb, residual, last,
//     energy-exact), polish (sweeps, 0 = none), stabilization (regularized, none, baumgarte, post),
//     baumgarte (β, 1/s), post_solver, project_above (m or rad),
//     max_correcting_speed (m/s, 0 = project_above/h: the cap on the
//     regularized position feedback), contact_margin (m), bounce_speed
//     (m/s), impacts (simultaneous, propagated), single_problem (one MLCP
//     per step instead of one per island), turn_friction (true: resting
//     contacts turn to friction beyond Coulomb's circle,
//     stepper.Settings.TurnFriction), coulomb_bounds (true: friction
//     bounds from the step's own normal impulses,
//     stepper.Settings.CoulombBounds), coherent (true: solves without new
//     contacts start at the last step's impulses; false: at 0; absent:
//     stepper.CoherentDefault, on), joint_correction (feedback: a rigid
//     joint's error enters b as φ/h; projection: it is left to the
//     position projection; absent: stepper.JointCorrectionDefault,
//     feedback), sleep (an object: present,
//     resting islands go to sleep, stepper.Settings.Sleep, with
//     linear_speed (m/s), angular_speed (rad/s) and time (s), 0 or absent
//     the defaults; absent, sleeping is off). Each is the
//     stepper.Settings field of the same name; an omitted key takes the
//     field's default (its zero value), except gravity.
//   - world_shapes: shapes fixed in the world (the ground plane), added
//     before the bodies' shapes.
//   - bodies[i]: name (required, unique, not "world"), static, kinematic
//     (infinite mass like a static body, but it moves at its velocity and
//     angular_velocity, and pushes or carries what it touches; path:
//     waypoints [{time, position}] it follows linearly, resting before the
//     first and after the last), mass (kg)
//     or density (kg/m³ of the shapes' volume), inertia (kg·m², body
//     frame about the centre of mass: [Ixx, Iyy, Izz] or three rows;
//     omitted = derived from the shapes as homogeneous solids, whose
//     common centre of mass must be the body origin), position (the
//     centre of mass), orientation, velocity, angular_velocity, force and
//     torque (held applied force at the centre of mass and torque), shapes.
//     An orientation whose norm is within 1e-3 of 1 is normalized; one
//     within body.UnitQuatTol is kept bit for bit. parent nests the body
//     in another, named ("world", the default, for none), as MJCF nests
//     bodies: its position, orientation and path are then in the
//     parent's frame at the parent's initial pose, through any depth of
//     nesting, while velocity, angular_velocity, force and torque stay in
//     the world frame. A parent may come later in the list; a body nested
//     in itself through its parents is an error. Nesting only places a
//     body: unlike MJCF, it adds no joint and welds nothing (add a joint,
//     fixed to weld).
//   - shapes[k]: type box (size: full side lengths), sphere (radius),
//     capsule (radius, length of the straight part along local z),
//     cylinder (radius, full length along local z), convex (the convex
//     hull of points [[x, y, z], …] in the shape frame, or of the vertices
//     of mesh, an STL or OBJ file relative to the scene file's directory,
//     scaled by scale [sx, sy, sz]; the hull is moved so that its centroid
//     is at the shape's position, and its volume and inertia are the
//     solid hull's), plane (static only:
//     the plane z = 0 of its pose, solid below), trimesh (static only: the
//     triangles of mesh, an STL or OBJ file scaled by scale, or vertices
//     [[x, y, z], …] and triangles [[i, j, k], …], counter-clockwise seen
//     from the free side) or heightfield (static only: heights, rows along
//     x, times size[2], over size[0] × size[1] centred on its position); position and orientation
//     in the body frame; material {friction μ, rolling c_rr (m), stiffness
//     k (N/m, 0 = rigid), damping (SPOOK time, s), restitution}
//     (stepper.Material); category and mask, collision filter bits
//     (integers 0 to 4294967295, stepper.Geom.Category and Mask): two
//     shapes collide only when each one's category meets the other's
//     mask; 0 or absent is the default, category 1 and a mask of every
//     category, so shapes without them collide with everything.
//   - joints[j]: name (optional, not unique; stepper.World.Joint finds
//     it), type ball, fixed (pivot; a ball also takes swing {axis,
//     angle}: a cone limit, and twist {axis, lower, upper}), hinge, prismatic (pivot, axis,
//     reference (hinge): its angle at the initial poses (rad), which
//     makes the angle continuous so limits, rest and target may lie past
//     ±π (constraint.Hinge.SetReference; without it limits lie in [−π, π]),
//     limits {lower, upper}: null = free, motor {speed, max_force}: null =
//     unbounded, friction, spring {stiffness, damping, rest}: an implicit
//     spring-damper on the coordinate, armature: added inertia, servo
//     {target, kp, kd, max_force}: a position servo), universal (pivot,
//     axis_a turning with body_a, axis_b with body_b, perpendicular),
//     rope (pivot_a, pivot_b, length: at most that far apart), distance (pivot_a, pivot_b, length); these
//     take soft {stiffness, damping} for compliant bilateral rows. gear
//     (axis_a, axis_b, ratio), differential (carrier, axis_carrier,
//     axis_a, axis_b), converter (axis_a, axis_b, coefficient K in
//     N·m·s/rad) take an optional housing. body_a and body_b name bodies
//     or "world". Pivots and axes are world coordinates at the bodies'
//     initial poses, exactly the arguments of the constraint constructors,
//     unless frame names a body: then they are in that body's frame at
//     its initial pose (a pivot p is the world point position +
//     orientation·p of the body, an axis a is orientation·a). frame may
//     name any body, not only body_a or body_b; "world" is the default.
//     Bodies joined by any joint or coupling do not collide with each
//     other unless the joint says collide: true
//     (stepper.World.SetJointCollision).
//   - loads[l]: type force (at the centre of mass, or at point, m in the
//     body's frame) or torque on body, with
//     the opposite on the optional reaction body; direction is fixed in
//     frame ("world" by default, or a body whose rotation turns it); the
//     magnitude is profile {type: constant, value} or {type: ramp, from,
//     to, duration}: from + (to − from)·min(t/duration, 1), a step for
//     duration 0. Loads are applied at the start of every step (one
//     stepper.Controller); a loaded body's force or torque is its held
//     value plus its loads.
//   - exclude[e]: {body_a, body_b}, two body names (or one and "world" for
//     the world shapes) whose shapes never collide
//     (stepper.World.ExcludeBodies, MuJoCo's <exclude>).
//   - tendons[t]: {name, joints: [{joint, coef}, …], lower, upper}, a
//     fixed tendon (constraint.Tendon, TendonSpec): lower ≤ Σ coef·q ≤
//     upper over the coordinates q of the named hinge and prismatic
//     joints (rad or m, 0 at the initial pose); null or absent leaves a
//     side free, lower = upper is an equality (MJCF's joint equality,
//     URDF's mimic). Built after the joints.
//
// Errors name the JSON path and the problem, for example
//
//	scene.json: bodies[3].shapes[0].size[1]: must be > 0 m, got -0.1
//
// Unknown and duplicate keys are errors; a file that parses but is not
// physical (zero mass, an inertia that is not positive definite, a joint
// to a missing body, a non-unit quaternion) is rejected before anything
// is built. Load reports every problem found, one per line.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Cline, M. B. and Pai, D. K. (2003), "Post-Stabilization for Rigid Body Simulation with Contact and Constraints", Proc. IEEE International Conference on Robotics and Automation.
//   - Lu, Y., Williams, J., Trinkle, J. C. and Lacoursière, C. (2014), "A Framework for Problem Standardization and Algorithm Comparison in Multibody System", Proc. ASME IDETC/CIE, DETC2014-35041.
package scenes
