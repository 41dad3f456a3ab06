// Package contact is the geometry half of gorigid's contacts: collision
// shapes, a sweep-and-prune broad phase and a narrow phase that turns a
// pair of posed shapes into contact points with persistent keys. The
// contact constraint rows are built on top of it (the stepper, package stepper).
// It imports body and mgl64 only.
//
// # Conventions
//
// SI units, z up. A Shape lives in its own frame and a Pose places it:
// world = Pos + Rot·local (Pose.Mul composes a body pose with a shape
// offset). For a pair (A, B) every Point has
//
//   - Normal: unit, world, from A towards B; B is pushed along +Normal.
//   - Gap φ: signed distance along Normal, φ > 0 separated, φ < 0
//     penetration (docs/formats.md: the normal row keeps w ≥ 0). Collide returns
//     the points with φ ≤ margin, so a contact row can exist a little
//     before touching.
//   - Pos: midway between the two surfaces: the surface points are
//     Pos ∓ Normal·φ/2 (on A and on B); tests check both lie on the shapes.
//   - Key: the feature of A and the feature of B that make the point.
//
// Collide(b, a) gives exactly the mirror of Collide(a, b): the same Pos and
// Gap, Normal negated, Key halves swapped. Internally each pair is
// computed in one canonical order; two shapes of one kind are ordered by
// their centres along the axis of largest separation (the lower box of a
// stack comes first and owns the reference face).
//
// # Feature keys
//
// A Key half is a uint32. Boxes (local vertex signs as in BoxVertex):
//
//	FeatureVertex | v   v = 0..7: bit k set ⇔ coordinate k is +Half[k]
//	FeatureEdge   | e   e = 4k + [sign of axis (k+1)%3 > 0] + 2·[sign of axis (k+2)%3 > 0],
//	                    the edge parallel to local axis k (BoxEdge)
//	FeatureFace   | f   f = 2k for the face with normal +e_k, 2k+1 for −e_k (BoxFace)
//	FeatureClip   | lo<<8 | hi   a box–box point clipped from the incident face:
//	                    lo < hi are the two lines crossing there, 0..11 an edge of the
//	                    incident box, 16..27 the side plane through edge (id−16) of the
//	                    reference box
//
// A box–box face contact has Key (FeatureFace|reference face,
// FeatureClip|…) in reference-to-incident order, swapped if the reference
// box is B: a box resting on another keeps its keys while it jitters.
// Box–box edge contacts have (FeatureEdge|e_A, FeatureEdge|e_B).
// Sphere and plane: 0. Capsule: CapsuleEnd0 (0) and CapsuleEnd1 (1) for the
// segment ends (end 0 at local z = −HalfLength) and, in two-point contacts
// (lying flat on a plane, box face or parallel capsule), the point towards
// that end; CapsuleSide (2) for a single point inside the segment.
// Cylinder: 0 and 1 are the lowest rim points of the end circles at
// z = −HalfLength and +HalfLength; 2+e, 4+e, 6+e the rim points of circle e
// a quarter, half and three-quarter turn from its lowest point.
//
// # Pairs
//
//	plane–sphere       1 point
//	plane–box          the 4 deepest vertices with φ ≤ margin, in vertex order (flat: exactly 4)
//	plane–capsule      the segment ends within margin (lying flat: 2)
//	plane–cylinder     per end circle its lowest rim point (a wheel on its tread: 2, the ends of
//	                   the contact line, as the forklift of Enzenhöfer et al. 2019 §5.3), plus
//	                   the other quarter-turn rim points within margin (standing on an end: 4)
//	sphere–sphere      1 point
//	sphere–box         1 point, keyed by the box face, edge or vertex region of the centre
//	sphere–capsule     1 point
//	box–box            SAT over 15 axes (face axes preferred), then edge–edge (1 point) or
//	                   reference/incident face clipping reduced to ≤ 4 points (boxbox.go)
//	box–capsule        1 point, or 2 when the capsule lies (within 2.9°) on a box face
//	capsule–capsule    1 point, or 2 when parallel (within 1e-3 rad) and overlapping
//
// Not supported (Collide returns dst unchanged): plane–plane (both are
// static) and a cylinder against anything but a plane (sphere, box,
// capsule, cylinder); model such parts with capsules or boxes.
//
// # Limitations
//
// Box–box clipping takes the face of largest separation, so deep
// penetrations (more than about half a box) may be resolved through an
// unexpected face; box–box and box–capsule keys change when an incident
// vertex crosses a reference side plane (e.g. two equal boxes exactly
// aligned). A tilted capsule in its two-point regime reports its side
// line, up to r(1 − cos 2.9°) ≈ 1.3e-3 r shallower than its end cap.
//
// # Broad phase
//
// Shape.Bounds gives a world AABB grown by a margin (planes: unbounded,
// PlaneExtent, except along a world axis normal). SweepAndPrune.Pairs
// sorts boxes along the axis of largest spread of their centres and sweeps:
// O(n log n + k), deterministic sorted output, buffers reused across calls.
//
// References:
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
package contact
