// Package bpmd stores gorigid's per-step problems in a BPMD database
// (Lu et al. 2014: "Benchmark Problems for Multibody
// Dynamics") and rebuilds complementarity problems from it.
//
// A database is an HDF5 file, written and read with the pure-Go library
// github.com/scigolib/hdf5 (no cgo, no libhdf5). Each recorded step is a
// frame, the group /frames/NNNNNN (NNNNNN the step number), laid out as
// the paper's Table 2; names marked "extra" are gorigid's additions, which
// a standard reader may ignore:
//
//	/frames                      attributes format = "BPMD", version (FormatVersion), generator
//	/frames/NNNNNN               attributes index (step), time (s, start of step),
//	                             stabilization, baumgarte (1/s),
//	                             max_correcting_speed (extra: m/s, the cap on
//	                             the regularized Φ/h, +Inf = none),
//	                             joint_correction (extra: "feedback" or
//	                             "projection", absent = default)
//	  step            (1)        the time step h, s
//	  gravity         (3)        extra: m/s²
//	  bodies/         attribute count = n_b; state at the start of the step
//	    ids           (n_b)      int64, body index
//	    masses        (n_b)      kg
//	    forces        (6n_b × 1) [f + m g; τ] per body, N, N·m
//	    inertia       (3n_b × 3) body-frame inertia about the COM, kg·m²
//	    positions     (3n_b × 1) m
//	    quaternion    (4n_b × 1) unit quaternion, real part first
//	    velocities    (6n_b × 1) [v; ω], world frame
//	    static        (n_b)      extra, uint8
//	    applied       (6n_b × 1) extra: [f; τ] without gravity
//	  joints/         Table 2's bilateral constraints; attributes count = n_j, row_count = R
//	    rows          (n_j × 3)  int64: first row, row count, bodies touched
//	    pairs         (n_j × 2)  int64: first two bodies, −1 = world
//	    violations    (R)        φ, m or rad
//	    jacobians     (R × 24)   one [v ω] block per body of row_bodies
//	    bounds        (R × 2)    lo, hi (N·s or N·m·s), ±Inf = none
//	    row_bodies    (R × 4)    extra, int64, −1 = unused block
//	    kinds         (R)        extra, int64 constraint.Kind
//	    stiffness, damping, speed, compliance (R)   extra: k, SPOOK d, motor target, c
//	    drift         (R)        extra: constraint.Row.Drift (m or rad), absent in older files = 0
//	    viscous       (R)        extra: constraint.Row.Viscous, c_d of Spring rows (joint damping,
//	                             armature, servos; N·s/m or N·m·s/rad); version 2, absent in
//	                             version 1 files = 0
//	  contacts/       Table 2's unilateral constraints; attribute count = n_c
//	    gap           (n_c)      φ, m, > 0 separated
//	    pairs         (n_c × 2)  int64 body ids, −1 = world (ground, static body)
//	    mu            (n_c × 2)  μ along both directions (isotropic)
//	    normals       (n_c × 3)  unit, away from the first body
//	    points        (n_c × 3)  from the first body's COM to the point (world axes)
//	    points_world  (n_c × 3)  extra: the point, m
//	    xn            (n_c)      extra: x̂ₙ, N·s; box friction bounds ±μ x̂ₙ
//	    directions    (n_c × 3)  extra: t₁; t₂ = n × t₁
//	    rows          (n_c × 2)  extra, int64: first row in z, row count
//	    roll, roll_axis, roll_bound                 extra: rolling resistance row
//	    stiffness, damping (n_c)  extra: normal-row compliance k (N/m, 0 = rigid), SPOOK d (s)
//	    bounce        (n_c)      extra: normal-row restitution target (m/s), 0 = none;
//	                             absent in older files = 0
//	  solution/       attributes count, iteration_count, status, solver, pick
//	    z             (rows)     the impulses the stepper used (the picked iterate)
//	    iterations    (1)        solver iterations (pivots for BPP: block pivots)
//	    total_error   (iter)     ½‖φ_FB‖² (paper Eq. 16), box FB per row
//	    normal_error  (iter)     the same over contact normal rows
//	    friction_error (iter)    Σ (u|w| + x w)⁺ over friction rows, J
//	    stick         (n_c)      uint8: friction rows free (sticking)
//	    w, states, picked                           extra: A z + b, index sets, picked iteration
//	    reference     (rows)     extra: the proximal centre x̄ the solve started from
//	                             (lcp.Settings.Reference); version 3, absent = 0
//	    fb_error, residual_error, energy_error (iter)  extra: Enzenhöfer et al. 2019 Eqs. 7, 10, 23
//
// Datasets with a zero dimension (no joints, no contacts) are not written:
// the library refuses zero-sized dataspaces ("dimension 0 cannot be 0"),
// so readers take a missing dataset as empty and the count attributes say
// so. The reader accepts Table 2's stacked shapes (forces 6n_b × 1) and
// row-per-item shapes (n_b × 6) alike.
//
// A Recorder attached to a stepper.World captures a Frame per step; Writer
// and WriteFile write frames, ReadFile reads them (errors, never panics, on
// corrupt files). Writer also keeps every frame as a one-frame file in
// PATH.partial.d until Close, so a killed process loses at most the frame
// it was writing; ReadFile reads that directory like a file. Before the
// HDF5 library reads a file, the heap and dataset sizes it claims are held
// to the file size and ReadOptions.MaxBytes: a corrupt size is an error,
// not an out-of-memory crash (the library allocates what a header claims;
// ReadOptions says what is and is not checked). Rebuild builds from a frame, with the stepper's own
// assembly (stepper.Mass, stepper.Assembly), the boxed MLCP the stepper
// solved (Box; World.LastProblem bit for bit, with the solve's proximal
// centre as Layout.Reference), the LCP of the
// paper's Eq. (11) with a polyhedral cone and sliding speeds (LCP), or the
// mixed LCP with the joints (Mixed).
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
//   - Lu, Y., Williams, J., Trinkle, J. C. and Lacoursière, C. (2014), "A Framework for Problem Standardization and Algorithm Comparison in Multibody System", Proc. ASME IDETC/CIE, DETC2014-35041.
package bpmd
