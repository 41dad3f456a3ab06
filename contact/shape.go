package contact

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/internal/num"
)

// Kind is the kind of a Shape.
type Kind int

// The shape kinds.
const (
	Plane       Kind = iota // static half-space z ≤ 0 of its pose, normal +z
	Box                     // Size: full side lengths
	Sphere                  // Radius
	Capsule                 // Radius around the segment of full Length along z
	Cylinder                // Radius, full Length along z
	Convex                  // Hull: a convex polyhedron (NewConvex, NewConvexHull)
	TriMesh                 // Mesh: a static triangle mesh (NewTriMesh)
	Heightfield             // Field: a static grid of heights (NewHeightfield)

	// triangleKind is one triangle of a TriMesh or Heightfield as the
	// convex routines see it (Shape.tri); never a user shape.
	triangleKind Kind = 64
)

var kindNames = [...]string{"plane", "box", "sphere", "capsule", "cylinder", "convex", "trimesh", "heightfield"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Shape is a collision shape in its own local frame; a Pose places it.
// Sizes are full lengths, as everywhere in gorigid (body.BoxInertia,
// body.CapsuleInertia, a scene file's "size" and "length"), and elongated
// shapes lie along local z.
//
//   - Box: Size = full side lengths (m), the box is |x_i| ≤ Size[i]/2.
//   - Sphere: Radius (m), centred at the origin.
//   - Capsule: Radius (m) around the segment of full Length from
//     (0, 0, −Length/2) to (0, 0, +Length/2); Length ≥ 0 (0 is a sphere).
//   - Cylinder: Radius (m), axis local z, full Length, flat ends at
//     z = ±Length/2.
//   - Convex: Hull, a convex polyhedron in the local frame (any placement
//     of the local origin; a body frame at its centre of mass takes the
//     hull mesh.Hull.Translated by −com). Build it with NewConvex or
//     NewConvexHull; a Convex shape without a Hull is invalid.
//   - TriMesh: Mesh, a static triangle mesh (NewTriMesh); static only.
//   - Heightfield: Field, a static grid of heights (NewHeightfield);
//     static only.
//   - Plane: static only; the plane z = 0 through the local origin with
//     normal +z; the half-space z ≤ 0 is solid. It has no size fields.
//
// Fields that do not belong to the Kind are ignored.
type Shape struct {
	Kind   Kind
	Size   mgl64.Vec3  // box full side lengths along local x, y, z, m
	Radius float64     // sphere, capsule and cylinder radius, m
	Length float64     // capsule straight part / cylinder full length along local z, m
	Hull   *Hull       // convex polyhedron (Convex), local frame
	Mesh   *MeshTree   // static triangle mesh (TriMesh), local frame
	Field  *HeightGrid // static grid of heights (Heightfield), local frame

	tri *meshTri // one triangle of a mesh (triangleKind), the mesh's local frame
}

// half returns the box half extents, Size/2 (exact: a power-of-two scale).
func (s Shape) half() mgl64.Vec3 { return s.Size.Mul(0.5) }

// halfLength returns the capsule or cylinder half length, Length/2.
func (s Shape) halfLength() float64 { return 0.5 * s.Length }

// NewBoxSize returns a box of full side lengths size (m) along local x, y,
// z, or the error of Validate: NewBoxSize(mgl64.Vec3{0.4, 0.2, 0.2}) is a
// 0.4 × 0.2 × 0.2 m box.
func NewBoxSize(size mgl64.Vec3) (Shape, error) {
	s := Shape{Kind: Box, Size: size}
	return s, s.Validate()
}

// NewSphere returns a sphere of radius r (m), or the error of Validate.
func NewSphere(r float64) (Shape, error) {
	s := Shape{Kind: Sphere, Radius: r}
	return s, s.Validate()
}

// NewCapsuleLength returns a capsule of radius r (m) around a segment of
// full length length (m) along local z, end caps excluded, or the error of
// Validate.
func NewCapsuleLength(r, length float64) (Shape, error) {
	s := Shape{Kind: Capsule, Radius: r, Length: length}
	return s, s.Validate()
}

// NewCylinderLength returns a cylinder of radius r (m) and full length
// length (m) along local z, or the error of Validate.
func NewCylinderLength(r, length float64) (Shape, error) {
	s := Shape{Kind: Cylinder, Radius: r, Length: length}
	return s, s.Validate()
}

// NewPlane returns the plane z = 0 (solid below) of its pose.
func NewPlane() Shape { return Shape{Kind: Plane} }

// FieldError reports one invalid field of a Shape or Pose: What "box",
// "sphere", …, or "pose", Field e.g. "Size[1]", "Radius", "Rot", and Value
// the field's value. It is body.FieldError, the one field-error type.
type FieldError = num.FieldError

// Validate returns every invalid field joined (errors.Join of *FieldError),
// or nil: Size[i] (box), Radius (sphere, capsule, cylinder) and
// Length (cylinder) must be finite and > 0; a capsule's Length
// must be finite and ≥ 0; a convex shape needs a Hull. Example message:
//
//	box: Size[1]: must be finite and > 0, got -0.1
func (s Shape) Validate() error {
	var errs []error
	name := s.Kind.String()
	pos := func(field string, v float64) {
		if !(v > 0) || math.IsInf(v, 0) {
			errs = append(errs, &FieldError{What: name, Field: field, Value: v, Reason: fmt.Sprintf("must be finite and > 0, got %v", v)})
		}
	}
	switch s.Kind {
	case Plane:
	case Box:
		for i := 0; i < 3; i++ {
			pos(fmt.Sprintf("Size[%d]", i), s.Size[i])
		}
	case Sphere:
		pos("Radius", s.Radius)
	case Capsule:
		pos("Radius", s.Radius)
		if !(s.Length >= 0) || math.IsInf(s.Length, 0) {
			errs = append(errs, &FieldError{What: name, Field: "Length", Value: s.Length, Reason: fmt.Sprintf("must be finite and ≥ 0, got %v", s.Length)})
		}
	case Cylinder:
		pos("Radius", s.Radius)
		pos("Length", s.Length)
	case Convex:
		if s.Hull == nil || s.Hull.mesh == nil {
			errs = append(errs, &FieldError{What: name, Field: "Hull", Value: nil, Reason: "must be set (NewConvex or NewConvexHull), got nil"})
		}
	case TriMesh:
		if s.Mesh == nil || len(s.Mesh.tris) == 0 {
			errs = append(errs, &FieldError{What: name, Field: "Mesh", Value: nil, Reason: "must be set (NewTriMesh), got nil"})
		}
	case Heightfield:
		if s.Field == nil || len(s.Field.h) == 0 {
			errs = append(errs, &FieldError{What: name, Field: "Field", Value: nil, Reason: "must be set (NewHeightfield), got nil"})
		}
	default:
		errs = append(errs, &FieldError{What: "shape", Field: "Kind", Value: s.Kind, Reason: fmt.Sprintf("unknown kind %d (want Plane, Box, Sphere, Capsule, Cylinder, Convex, TriMesh or Heightfield)", int(s.Kind))})
	}
	return errors.Join(errs...)
}

// Valid reports whether Validate would return nil, without allocating: the
// check of a step (stepper's), which meets shapes its caller may have
// edited since they were validated, calls Validate only when it fails.
func (s Shape) Valid() bool { return s.Kind != triangleKind && s.valid() }

// valid is Validate without the allocation, for Collide's hot path.
func (s Shape) valid() bool {
	p := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	switch s.Kind {
	case Plane:
		return true
	case Box:
		return p(s.Size[0]) && p(s.Size[1]) && p(s.Size[2])
	case Sphere:
		return p(s.Radius)
	case Capsule:
		return p(s.Radius) && s.Length >= 0 && !math.IsInf(s.Length, 0)
	case Cylinder:
		return p(s.Radius) && p(s.Length)
	case Convex:
		return s.Hull != nil && s.Hull.mesh != nil
	case TriMesh:
		return s.Mesh != nil && len(s.Mesh.tris) > 0
	case Heightfield:
		return s.Field != nil && len(s.Field.h) > 0
	case triangleKind:
		return s.tri != nil
	}
	return false
}

// Pose is a rigid transform: world = Pos + Rot.Rotate(local). Rot should be
// a unit quaternion; Collide and Bounds use the rotation of Rot/|Rot|, and
// treat a zero or non-finite Rot or Pos as invalid (Collide then finds no
// contacts, Bounds returns an inverted box). The zero Pose is invalid (its
// Rot is zero): use IdentityPose or set Rot = mgl64.QuatIdent().
type Pose struct {
	Pos mgl64.Vec3 // m, world
	Rot mgl64.Quat // local → world
}

// IdentityPose returns the pose with Pos = 0 and Rot = identity.
func IdentityPose() Pose { return Pose{Rot: mgl64.QuatIdent()} }

// PoseOf returns the pose of body b (its centre of mass frame).
func PoseOf(b *body.Body) Pose { return Pose{Pos: b.Pos, Rot: b.Rot} }

// Mul composes poses: p.Mul(q) maps local points of q's frame through q,
// then through p: (p·q)(x) = p(q(x)). Use bodyPose.Mul(shapeOffset) for a
// shape placed at shapeOffset in its body's frame.
func (p Pose) Mul(q Pose) Pose {
	if q.identity() && p.plain() {
		return p // the bits the products below give (plain)
	}
	return Pose{Pos: p.Pos.Add(p.Rot.Rotate(q.Pos)), Rot: p.Rot.Mul(q.Rot)}
}

// identity reports whether p is the identity pose bit for bit: Pos
// (+0, +0, +0) and Rot (1, +0, +0, +0), the Local of most geoms.
func (p *Pose) identity() bool {
	return math.Float64bits(p.Pos[0])|math.Float64bits(p.Pos[1])|math.Float64bits(p.Pos[2]) == 0 &&
		p.Rot.W == 1 && math.Float64bits(p.Rot.V[0])|math.Float64bits(p.Rot.V[1])|math.Float64bits(p.Rot.V[2]) == 0
}

// plain reports whether every component of p is finite and none is −0.
// Then Mul by the identity returns p to the bit: Rot.Rotate(+0 vector)
// is (+0, +0, +0) (finite products with zeros are ±0, and the first sum,
// v + ±0 with v = +0, is +0), so Pos + it is Pos except for a −0
// component; and Rot·(1, 0) sums ±0 terms with W·1 = W and V·1 = V,
// which again changes only a −0 component (−0 + +0 = +0). A non-finite
// component makes NaN of the products, so it takes the products too.
func (p *Pose) plain() bool {
	return plainFloat(p.Pos[0]) && plainFloat(p.Pos[1]) && plainFloat(p.Pos[2]) &&
		plainFloat(p.Rot.W) && plainFloat(p.Rot.V[0]) && plainFloat(p.Rot.V[1]) && plainFloat(p.Rot.V[2])
}

// plainFloat reports whether x is finite and not −0.
func plainFloat(x float64) bool {
	return x-x == 0 && math.Float64bits(x) != 1<<63
}

// Apply maps the local point x to the world: Pos + Rot.Rotate(x).
func (p Pose) Apply(x mgl64.Vec3) mgl64.Vec3 { return p.Pos.Add(p.Rot.Rotate(x)) }

// Validate reports a non-finite Pos or Rot, or a Rot with ||Rot| − 1| >
// body.UnitQuatTol.
func (p Pose) Validate() error {
	var errs []error
	if !num.FiniteVec(p.Pos) {
		errs = append(errs, &FieldError{What: "pose", Field: "Pos", Value: p.Pos, Reason: fmt.Sprintf("must be finite, got %v", p.Pos)})
	}
	q := p.Rot
	if n := math.Sqrt(q.W*q.W + q.V.Dot(q.V)); !num.Finite(n) || math.Abs(n-1) > body.UnitQuatTol {
		errs = append(errs, &FieldError{What: "pose", Field: "Rot", Value: p.Rot, Reason: fmt.Sprintf("must be a finite unit quaternion, got |q| = %v (w=%v x=%v y=%v z=%v); use mgl64.QuatIdent() for no rotation", n, q.W, q.V[0], q.V[1], q.V[2])})
	}
	return errors.Join(errs...)
}

// AABB is an axis-aligned box in the world, Min ≤ Max componentwise (m).
type AABB struct{ Min, Max mgl64.Vec3 }

// Overlaps reports whether a and b intersect (touching counts).
func (a AABB) Overlaps(b AABB) bool {
	return a.Min[0] <= b.Max[0] && b.Min[0] <= a.Max[0] &&
		a.Min[1] <= b.Max[1] && b.Min[1] <= a.Max[1] &&
		a.Min[2] <= b.Max[2] && b.Min[2] <= a.Max[2]
}

// PlaneExtent (m) stands for "unbounded" in the AABB of a plane: large
// enough to hold any scene, small enough that sums and squares stay finite.
const PlaneExtent = 1e18

// Unbounded reports whether the box reaches PlaneExtent on some side (a
// plane's box). SweepAndPrune leaves such boxes out of its choice of axis.
func (a AABB) Unbounded() bool {
	for i := 0; i < 3; i++ {
		if a.Min[i] <= -PlaneExtent || a.Max[i] >= PlaneExtent {
			return true
		}
	}
	return false
}

// Bounds returns the world AABB of shape s at pose p, grown by margin (m) on
// every side. A plane has no finite bounds: its box is ±PlaneExtent on every
// axis, except that when its normal is exactly a world axis (the usual
// ground, normal +z) the solid side is bounded by the plane itself, e.g.
// Max.z = height + margin for a ground plane; AABB.Unbounded reports it.
// An invalid shape or pose gives the empty box Min = +Inf, Max = −Inf.
// It is s.Extent(p).Padded(margin).
func (s Shape) Bounds(p Pose, margin float64) AABB {
	return s.Extent(p).Padded(margin)
}

// Extent is a posed shape's bounding box before its margin (Shape.Extent):
// Padded(margin) is Shape.Bounds at that pose and margin, bit for bit, for
// every margin. A caller that needs the box of one pose with several
// margins (a look-ahead that grows with the speed, the unpadded box for
// a radius) rotates the shape once.
type Extent struct {
	form extentForm
	// centred: centre and half extents; corners: the unpadded Min and
	// Max; plane: the plane's point and normal.
	a, b mgl64.Vec3
}

// extentForm is how an Extent pads.
type extentForm uint8

const (
	extentEmpty   extentForm = iota // an invalid shape or pose: the empty box
	extentCentred                   // a = centre, b = half extents
	extentCorners                   // a = Min, b = Max
	extentPlane                     // a = point, b = normal
)

// Extent returns the bounding box of shape s at pose p before its margin
// (Bounds is Extent(p).Padded(margin)).
func (s Shape) Extent(p Pose) Extent {
	f, ok := frameOf(p)
	if !ok || !s.valid() {
		return Extent{}
	}
	return s.extentIn(&f)
}

// Padded returns the box of e grown by margin (m) on every side: the box
// Shape.Bounds returns for the pose and margin, bit for bit.
func (e Extent) Padded(margin float64) AABB {
	switch e.form {
	case extentCentred:
		ext := e.b.Add(mgl64.Vec3{margin, margin, margin})
		return AABB{Min: e.a.Sub(ext), Max: e.a.Add(ext)}
	case extentCorners:
		m := mgl64.Vec3{margin, margin, margin}
		return AABB{Min: e.a.Sub(m), Max: e.b.Add(m)}
	case extentPlane:
		b := AABB{
			Min: mgl64.Vec3{-PlaneExtent, -PlaneExtent, -PlaneExtent},
			Max: mgl64.Vec3{PlaneExtent, PlaneExtent, PlaneExtent},
		}
		n := e.b
		for i := 0; i < 3; i++ {
			j, k := (i+1)%3, (i+2)%3
			if n[j] != 0 || n[k] != 0 {
				continue
			}
			if n[i] > 0 {
				b.Max[i] = e.a[i] + margin
			} else {
				b.Min[i] = e.a[i] - margin
			}
		}
		return b
	}
	inf := math.Inf(1)
	return AABB{Min: mgl64.Vec3{inf, inf, inf}, Max: mgl64.Vec3{-inf, -inf, -inf}}
}

// boundsIn is Bounds for a valid shape placed by frame f.
func (s Shape) boundsIn(f *frame, margin float64) AABB {
	return s.extentIn(f).Padded(margin)
}

// extentIn is Extent for a valid shape placed by frame f.
func (s Shape) extentIn(f *frame) Extent {
	var ext mgl64.Vec3
	switch s.Kind {
	case Plane:
		return Extent{form: extentPlane, a: f.p, b: f.ax[2]}
	case Box:
		h := s.half()
		for i := 0; i < 3; i++ {
			ext[i] = math.Abs(f.ax[0][i])*h[0] + math.Abs(f.ax[1][i])*h[1] + math.Abs(f.ax[2][i])*h[2]
		}
	case Sphere:
		ext = mgl64.Vec3{s.Radius, s.Radius, s.Radius}
	case Capsule:
		for i := 0; i < 3; i++ {
			ext[i] = math.Abs(f.ax[2][i])*s.halfLength() + s.Radius
		}
	case Cylinder:
		for i := 0; i < 3; i++ {
			a := f.ax[2][i]
			ext[i] = math.Abs(a)*s.halfLength() + s.Radius*math.Sqrt(math.Max(0, 1-a*a))
		}
	case TriMesh:
		return extentOfLocalBox(f, s.Mesh.lo, s.Mesh.hi)
	case Heightfield:
		return extentOfLocalBox(f, s.Field.lo, s.Field.hi)
	case Convex:
		// The posed vertices' box, exact: a scan of a small hull, else the
		// support vertices along ±(world axis) in the local frame.
		lo := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
		hi := lo.Mul(-1)
		vs := s.Hull.mesh.Vertices
		if len(vs) < climbMin {
			for _, v := range vs {
				w := f.toWorld(v)
				for i := 0; i < 3; i++ {
					lo[i], hi[i] = math.Min(lo[i], w[i]), math.Max(hi[i], w[i])
				}
			}
		} else {
			for i := 0; i < 3; i++ {
				d := mgl64.Vec3{f.ax[0][i], f.ax[1][i], f.ax[2][i]} // world axis i, local
				hi[i] = f.toWorld(vs[s.Hull.support(d)])[i]
				lo[i] = f.toWorld(vs[s.Hull.support(d.Mul(-1))])[i]
			}
		}
		return Extent{form: extentCorners, a: lo, b: hi}
	}
	return Extent{form: extentCentred, a: f.p, b: ext}
}

// frame is a pose as origin and rotated axes (the columns of R).
type frame struct {
	p  mgl64.Vec3
	ax [3]mgl64.Vec3
}

// frameOf returns the frame of p with the rotation of Rot/|Rot|, and false
// if Pos or Rot is not finite or Rot is zero.
func frameOf(p Pose) (frame, bool) {
	q := p.Rot
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	n2 := w*w + x*x + y*y + z*z
	if !num.FiniteVec(p.Pos) || !(n2 > 0) || !num.Finite(n2) {
		return frame{}, false
	}
	s := 2 / n2
	return frame{p: p.Pos, ax: [3]mgl64.Vec3{
		{1 - s*(y*y+z*z), s * (x*y + w*z), s * (x*z - w*y)},
		{s * (x*y - w*z), 1 - s*(x*x+z*z), s * (y*z + w*x)},
		{s * (x*z + w*y), s * (y*z - w*x), 1 - s*(x*x+y*y)},
	}}, true
}

func (f *frame) toWorld(l mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{
		f.p[0] + f.ax[0][0]*l[0] + f.ax[1][0]*l[1] + f.ax[2][0]*l[2],
		f.p[1] + f.ax[0][1]*l[0] + f.ax[1][1]*l[1] + f.ax[2][1]*l[2],
		f.p[2] + f.ax[0][2]*l[0] + f.ax[1][2]*l[1] + f.ax[2][2]*l[2],
	}
}

func (f *frame) vecToWorld(l mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{
		f.ax[0][0]*l[0] + f.ax[1][0]*l[1] + f.ax[2][0]*l[2],
		f.ax[0][1]*l[0] + f.ax[1][1]*l[1] + f.ax[2][1]*l[2],
		f.ax[0][2]*l[0] + f.ax[1][2]*l[1] + f.ax[2][2]*l[2],
	}
}

func (f *frame) toLocal(w mgl64.Vec3) mgl64.Vec3 {
	d := w.Sub(f.p)
	return mgl64.Vec3{d.Dot(f.ax[0]), d.Dot(f.ax[1]), d.Dot(f.ax[2])}
}
