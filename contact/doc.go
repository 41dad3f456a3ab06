// Package contact is the geometry half of gorigid's contacts: collision
// shapes, a sweep-and-prune broad phase and a narrow phase that turns a
// pair of posed shapes into contact points with persistent keys. The
// contact constraint rows are built on top of it (the stepper, package stepper).
// It imports body, mesh (the convex hulls of Convex shapes) and mgl64 only.
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
// A Key half is a uint32. Boxes (local vertex signs as in Shape.BoxVertex):
//
//	FeatureVertex | v   v = 0..7: bit k set ⇔ coordinate k is +Size[k]/2
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
// segment ends (end 0 at local z = −Length/2) and, in two-point contacts
// (lying flat on a plane, box face or parallel capsule), the point towards
// that end; CapsuleSide (2) for a single point inside the segment.
// Cylinder: 0 and 1 are the lowest rim points of the end circles at
// z = −Length/2 and +Length/2; 2+e, 4+e, 6+e the rim points of circle e
// a quarter, half and three-quarter turn from its lowest point (standing
// still on a face, within 1e-3 rad, the four points are fixed in the body
// instead: e at local −x, 2+e at +y, 4+e at +x, 6+e at −y, so that rounding
// jitter does not turn them around the rim). In a two-point line contact
// (lying on a box face, on an end face, beside a parallel cylinder or
// capsule) 0 and 1 are the points towards ends 0 and 1, as a capsule's.
// CylinderCap0 (8) and CylinderCap1 (9): a point inside end face 0 or 1,
// also the end face a line or square rests on; CylinderSide (10): a point on
// the curved side off both rims; CylinderCross0/1 (11, 12): the two
// crossings of two end faces' rims (both halves). A cylinder's end-face
// square clipped by a box face's side planes keys its crossings as box–box
// does, FeatureClip | lo<<8 | hi, with 4e + q the square's edge from point q
// to q + 1 of end e and 16 + edge the box's side plane.
//
// Convex hulls: FeatureVertex | v for hull vertex v (plane contacts) and
// FeatureFace | f for hull face f (mesh.Hull.Faces order). A face-manifold
// point has Key (reference half, incident half) in A-to-B order: the
// reference half is FeatureFace | f (a hull's or box's face) or
// CylinderCap0/1 (a cylinder's end-face square); the incident half is
// FeatureClip | c<<19 | lo<<8 | hi, with c the incident feature (its face
// f, box face, cylinder cap or side, capsule side or end; mod 2¹³) and lo ≤
// hi: (j, j) for the incident polygon's unclipped corner j, else the two
// lines crossing there, the incident edge k (corner k to k + 1) as k and
// the reference face's side plane through its edge k as 128 + k (mod 128).
// A single-point contact keys a hull by the face most aligned with its
// outward normal there.
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
//	sphere–cylinder    1 point, closed form, keyed by the rim, end face or side
//	box–cylinder       GJK/EPA; standing on a box face (within 2.9°): the end face's four
//	                   rim points clipped to the face (≤ 4); lying on it: the side line
//	                   clipped to the face (2); otherwise 1 point
//	capsule–cylinder   GJK/EPA; a capsule lying on an end face: its side line over the
//	                   disk (2); lying along the side with parallel axes: 2; otherwise 1
//	cylinder–cylinder  GJK/EPA; end face on end face: the square of one over the other's
//	                   disk, the other's under it and the rims' crossings, ≤ 4; a side line
//	                   on an end face: 2; parallel sides: 2; otherwise 1
//	plane–convex       the hull vertices within margin; more than 4: reduced to 4 as
//	                   box–box's clipped points (deepest, farthest, largest triangle, most
//	                   added area), emitted in vertex order (a cube's hull: planeBox's points);
//	                   CollideApproach: only the vertices that close within the step, all
//	                   of them up to 8 when one is beyond the margin
//	convex–any         GJK/EPA; each shape's feature facing the other (a hull or box face,
//	                   a cylinder's end-face square, a capsule's or cylinder's side line
//	                   across the normal, else a point); if a face's separation is within
//	                   box–box's face bias of the gap, the other feature clipped against its
//	                   side planes (Sutherland–Hodgman, ≤ 4 points as box–box); otherwise
//	                   1 point (convexpair.go). A cube's hull gives box–box's face points.
//	mesh–any           TriMesh or Heightfield with box, sphere, capsule, cylinder or convex:
//	                   each triangle under the shape's box (AABB tree, or grid cells) as a
//	                   convex of 3 vertices through convex–any (≤ 4 points per triangle),
//	                   internal edges handled ("Triangle meshes"); repeated points merged
//	                   and each group of normals within 2.6° reduced to 4 (trimesh.go)
//
// Not supported (Collide returns dst unchanged): pairs of two static-only
// kinds (StaticOnly: plane, trimesh, heightfield). Supported reports this
// for a pair of kinds; stepper.World.AddGeom refuses a geom that could meet
// another it has no routine for.
//
// # Convex pairs: GJK and EPA
//
// Distance, and the cylinder pairs under Collide, measure any two convex
// shapes by their support mappings s(d) (the point farthest along d; a
// sphere or capsule is a point or segment core swept by its radius, which
// GJK subtracts). GJK (Gilbert, Johnson and Keerthi 1988, "A fast procedure
// for computing the distance between complex objects in three-dimensional
// space") iterates on the Minkowski difference A − B with a simplex of up
// to four support points and Johnson's sub-algorithm (Ericson 2005, §5.1)
// until the distance is known to 1e-9 of the larger shape: the closest
// points and the normal of a separated pair, which is how a speculative
// contact within the margin gets its positive gap. When the shapes overlap,
// EPA (van den Bergen 2001, "Proximity queries and penetration depth
// computation on 3D game objects"; 2003, Collision Detection in Interactive
// 3D Environments) grows a polytope inside A − B from GJK's last simplex
// towards the boundary point nearest the origin: the penetration depth and
// normal. Its witness points are then refined by GJK with B moved apart
// along the normal by the depth plus 1e-3 of its size (as Bullet does).
// Degenerate inputs (touching, coincident centres, parallel faces, deep
// overlaps, a flat simplex) give finite results: no NaN, no panic, no
// allocation (fixed arrays), bounded work (at most 64 iterations in each
// of at most two GJK runs, one EPA run and three refining GJK runs).
//
// A new convex shape needs only a support mapping (convex.go); GJK, EPA
// and the single-point contact follow. A hull's support climbs from vertex
// to better neighbour over its edges (a scan below 32 vertices): on a
// convex polyhedron the first vertex no neighbour improves on is the
// farthest.
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
// Cylinder pairs approximate an end face by the square of its four rim
// points a quarter turn apart: a cylinder standing on a face is held by
// that square, so it tips over a little sooner than a real one (lever arm
// r/√2 instead of r towards a point between two of them), and over a box
// edge or another end face its contact region is the square's part of the
// true region. Where the closest features of two cylinders are both curved
// (rim against rim), EPA's normal is refined by GJK to about √(tol/R)
// (1e-5). EPA alone stops at its 64 vertices 1e-5 m short of the depth of
// two coincident cylinders (a circle of equal minimal translations); the
// refining GJK run recovers it.
//
// Convex pairs inherit box–box's limits: deep penetrations may resolve
// through an unexpected face, and a face with more than 64 vertices is
// clipped as the 64 sampled evenly around it. Two hulls turned against
// each other give up to 8 clipped corners, of which the 4 kept depend on
// the incident face loop's first vertex (box–box's on its fixed corner
// order), so a cube's hull matches box–box point for point only while the
// clipped polygon has at most 4 corners.
//
// # Triangle meshes
//
// TriMesh (NewTriMesh, a mesh.Mesh) and Heightfield (NewHeightfield, a
// grid of heights, two triangles per cell) are static: the stepper must
// not give them to a moving body. Their Bounds is the box of all
// triangles; per pair an AABB tree over the triangles (built once,
// median splits, deterministic) or the grid cells under the shape narrow
// the work to the triangles it may touch, and a triangle whose plane
// separates it by more than the margin is skipped before GJK. Internal
// edges follow Bullet's btAdjustInternalEdgeContacts idea (Coumans, Bullet
// Physics SDK, btInternalEdgeUtility, 2010): each shared edge is classified once as convex or as
// flat/concave (bent by less than 1e-3 rad, or inwards); a contact on a
// flat or concave edge, inside a face, or on a vertex whose two edges in
// the triangle are flat or concave takes the face normal, and the shape's
// feature facing the face is clipped against the triangle; on a convex
// edge a normal outside the wedge of the two face normals is dropped (the
// neighbour's face owns it). The back of a triangle pushes only when its
// plane is the shallower way out. A box sliding over a flat triangulated
// plane so sees one plane. A sphere takes the closest-feature rule
// instead: the triangle's point nearest its centre (face, edge or vertex)
// and the normal from it to the centre, within the margin, so that a
// speculative stepper sees the next triangle before the centre is over
// it; beyond a flat edge the coplanar neighbour has the point, beyond a
// convex edge with a normal past the neighbour's the neighbour has it,
// and beyond a concave edge the triangle's plane (face normal, the
// centre's distance from the plane less the radius) is reported only
// when the centre is over the neighbour across that edge: the plane of
// the next facet of a valley, exact for a ball on this side, and not the
// planes of every facet within reach. A ball rolling into a valley so
// meets its far flank without sinking into it. The mesh half of a Key is the triangle index
// in its low 24 bits and 8 bits folded from the triangle's own feature
// (face, or clipped corner) above. (*MeshTree).Raycast and
// (*HeightGrid).Raycast give ray hits for queries.
//
// # Broad phase
//
// Shape.Bounds gives a world AABB grown by a margin (planes: unbounded,
// PlaneExtent, except along a world axis normal). SweepAndPrune.Pairs
// sorts boxes along the axis of largest spread of their centres and sweeps:
// O(n log n + k), deterministic sorted output, buffers reused across calls.
//
// References:
//   - Gilbert, E. G., Johnson, D. W. and Keerthi, S. S. (1988), "A fast procedure for computing the distance between complex objects in three-dimensional space", IEEE Journal on Robotics and Automation 4(2), 193–203.
//   - van den Bergen, G. (2001), "Proximity queries and penetration depth computation on 3D game objects", Game Developers Conference.
//   - van den Bergen, G. (2003), Collision Detection in Interactive 3D Environments, Morgan Kaufmann.
//   - Ericson, C. (2005), Real-Time Collision Detection, Morgan Kaufmann.
//   - Coumans, E. (2010), Bullet Physics SDK 2.76, btInternalEdgeUtility (btAdjustInternalEdgeContacts).
//   - Möller, T. and Trumbore, B. (1997), "Fast, minimum storage ray/triangle intersection", Journal of Graphics Tools 2(1), 21–28.
//   - Enzenhöfer, A., Peiret, A., Teichmann, M. and Kövecses, J. (2019), "A Unit-Consistent Error Measure for Multibody Systems With Unilateral Constraints", Journal of Computational and Nonlinear Dynamics, doi:10.1115/1.4042690.
package contact
