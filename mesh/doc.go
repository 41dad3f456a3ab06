// Package mesh is the geometry users bring as models: convex hulls of
// point sets, triangle meshes read from STL and Wavefront OBJ files, and
// the exact mass properties of the solids they bound. It is the
// foundation of hull and mesh collision shapes; it knows nothing of
// bodies, contacts or solvers.
//
// # Convex hulls
//
// NewHull builds the convex hull of a point set by quickhull (Barber,
// Dobkin and Huhdanpaa, "The Quickhull algorithm for convex hulls", ACM
// Transactions on Mathematical Software 22(4), 1996): an initial
// tetrahedron of extreme points, outside sets of the points beyond each
// face, and for each face's farthest outside point the cone from the
// horizon of the faces it sees. A distance tolerance (DefaultTol: the
// round-off bound 3·ε·(max|x|+max|y|+max|z|) unless the caller gives a
// larger one) decides when a point is on a plane; coplanar triangles are
// merged into convex polygons afterwards, each with its Newell normal.
// Points that end within the tolerance of a face are checked again against
// the final faces and, if rounding left them outside, added in a further
// round; the hull reports the tolerance it meets (Hull.Tol), measured over
// every input point, and refuses with ErrNumerical to exceed 3·tol +
// 1e-9·(largest coordinate). The construction runs on the points scaled
// by a power of two, so any finite magnitude works.
// A Hull exposes what a convex collision routine (GJK/EPA, face
// clipping) needs: vertices, faces as counter-clockwise index loops,
// outward unit normals and plane offsets, edges with their two faces,
// and the support mapping Support.
//
// # Mass properties
//
// Hull.MassProperties and Mesh.MassProperties integrate the solid's
// volume, first and second moments exactly by the divergence theorem
// over its triangles: Mirtich, "Fast and Accurate Computation of
// Polyhedral Mass Properties", Journal of Graphics Tools 1(2), 1996, in
// the per-triangle form of Eberly, "Polyhedral Mass Properties
// (Revisited)", Geometric Tools, 2002. They return the mass, the centre
// of mass and the inertia tensor about it, the quantities body.Body
// takes. A mesh must be closed and consistently oriented (Mesh.Closed).
//
// # Files
//
// ReadSTL reads binary and ASCII STL (telling them apart by the binary
// length rule, since binary files may begin with "solid" too), ReadOBJ
// the v and f statements of OBJ, and Load either by extension with a
// scale. WriteSTL, WriteSTLASCII and WriteOBJ write them back. A corrupt
// file gives one *FormatError line naming the file, the line (or the
// triangle and byte offset of a binary STL) and the problem; no input
// makes the readers panic, and no header makes them allocate beyond the
// file's size (at most MaxFileBytes).
package mesh
