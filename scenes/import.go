package scenes

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/stepper"
)

// Importing robot models: LoadURDF and LoadMJCF (urdf.go, mjcf.go) turn a
// URDF or MJCF file into a SceneSpec, which builds, runs, exports and
// views like any scene file. The helpers here are shared by both: an XML
// tree that keeps every element's line, numbers and frames parsed with
// errors naming file:line and element, and warnings for what gorigid
// cannot represent.

// ImportOptions tune LoadURDF and LoadMJCF.
type ImportOptions struct {
	// SearchPath lists directories in which URDF `package://NAME/...`
	// references are resolved (as DIR/NAME/...), and relative mesh paths
	// after the model's own directory.
	SearchPath []string
	// H overrides the time step (s): 0 keeps MJCF's option timestep
	// (MuJoCo's default 0.002 s) and URDF's default of 0.01 s.
	H float64
	// FixedBase (URDF) makes the root link static, welded to the world;
	// a root link named "world" is the world in any case. Without it a
	// massless root link (a mobile robot's base_footprint) is part of the
	// body its fixed joints hang mass on, which is free, or static
	// (warned) when no mass hangs on fixed joints below it.
	FixedBase bool
	// Ground (URDF) adds a ground plane z = 0 to the world shapes.
	Ground bool
	// Keyframe (MJCF) names a <key> whose qpos (and qvel) set the initial
	// state; "" builds the model at its reference pose (qpos0).
	Keyframe string
	// SplitJoints, when > 0, lets an MJCF body have several joints: it
	// becomes a chain of bodies, one joint each, the added ones with
	// SplitJoints times the body's mass and inertia at the next joint's
	// pivot (a warning says so); 0 makes such a body an error. For URDF it
	// makes a planar joint two sliders and a hinge through two added
	// bodies of SplitJoints times the child's mass and inertia; 0 leaves
	// the child free (warned).
	SplitJoints float64
	// Friction is the Coulomb coefficient given to URDF collision shapes
	// (URDF has no contact material); 0 = 0.5.
	Friction float64
	// SkipMissingMeshes imports a model whose mesh files are not found (or
	// cannot be read) where they matter, a collision geom or, in MJCF, a
	// geom its body takes its mass from: the geom then neither collides
	// nor adds mass (warned, Warning.Meshes lists them). Without it such a
	// file is an error naming it. Visual meshes never matter.
	SkipMissingMeshes bool
}

// Warning is one thing an importer could not represent exactly: the file,
// the line and element where it first occurs, and what gorigid does
// instead. Each kind of problem is reported once per file.
type Warning struct {
	File    string
	Line    int
	Element string
	Msg     string
	// Meshes lists the mesh geoms the import skipped, on the one warning
	// that reports them (nil on every other).
	Meshes []MeshGeom
}

// String formats the warning as FILE:LINE: <element>: message.
func (w Warning) String() string {
	return fmt.Sprintf("%s:%d: <%s>: %s", w.File, w.Line, w.Element, w.Msg)
}

// ImportError is an error in a model file: the file, the line and the
// element where it is found.
type ImportError struct {
	File    string
	Line    int
	Element string
	Msg     string
}

// Error formats the error as FILE:LINE: <element>: message.
func (e *ImportError) Error() string {
	if e.Element == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: <%s>: %s", e.File, e.Line, e.Element, e.Msg)
}

// maxModelFile is the largest model file an importer reads (bytes).
const maxModelFile = 64 << 20

// maxXMLDepth bounds element nesting, so a hostile file cannot exhaust
// the stack of the recursive walks.
const maxXMLDepth = 200

// xnode is one XML element with its attributes in file order and the
// line of its start tag.
type xnode struct {
	name     string
	space    string // the name's namespace: its xmlns URL, or its prefix if undeclared
	attrs    []xml.Attr
	children []*xnode
	line     int
	file     string // the file the element is in, if not the model's (an MJCF <include>)
}

// fileOf returns the file n is in: its own (an included file) or the
// model's.
func (im *importer) fileOf(n *xnode) string {
	if n.file != "" {
		return n.file
	}
	return im.file
}

// attr returns the attribute's value and whether it is present.
func (n *xnode) attr(name string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// child returns the first child element of that name, or nil.
func (n *xnode) child(name string) *xnode {
	for _, c := range n.children {
		if c.name == name {
			return c
		}
	}
	return nil
}

// importer carries the file name, the warnings and their once-only keys.
type importer struct {
	file     string
	warnings []Warning
	seen     map[string]bool
	meshes   []MeshGeom
	meshSrc  []meshSource // beside meshes: where each geom is and its file as the model names it
}

func newImporter(file string) *importer {
	return &importer{file: file, seen: map[string]bool{}}
}

// warnOnce records a warning under key the first time key is seen.
func (im *importer) warnOnce(key string, n *xnode, format string, args ...any) {
	if im.seen[key] {
		return
	}
	im.seen[key] = true
	im.warnings = append(im.warnings, Warning{File: im.fileOf(n), Line: n.line, Element: n.name, Msg: fmt.Sprintf(format, args...)})
}

// warnStartOutside warns, once per joint, that joint name's coordinate q
// at the start pose lies outside its range [lo, hi] (rad for a hinge, m
// for a slider): the limit rows push it back within the first steps and
// the push is kinetic energy the model did not have.
func (im *importer) warnStartOutside(n *xnode, name, typ string, q, lo, hi float64) {
	unit := "rad"
	if typ == "slide" || typ == "prismatic" {
		unit = "m"
	}
	im.warnOnce(fmt.Sprintf("startrange:%s:%d", im.fileOf(n), n.line), n, "joint %q starts at %.4g %s, outside its range [%.4g, %.4g] %s: its limit pushes it back on the first steps, adding energy (start from a keyframe inside the range)", clip(name), q, unit, lo, hi, unit)
}

// errAt returns an ImportError at n.
func (im *importer) errAt(n *xnode, format string, args ...any) error {
	return &ImportError{File: im.fileOf(n), Line: n.line, Element: n.name, Msg: fmt.Sprintf(format, args...)}
}

// readModel reads a model file whole, up to maxModelFile bytes.
func readModel(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxModelFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxModelFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxModelFile)
	}
	return data, nil
}

// openModel opens a model file for reading.
func openModel(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readModel(f, path)
}

// parseXML reads the document's root element into a tree, each element
// with the line of its start tag; syntax errors name file:line.
func parseXML(data []byte, file string) (*xnode, error) {
	var newlines []int
	for i, c := range data {
		if c == '\n' {
			newlines = append(newlines, i)
		}
	}
	lineAt := func(off int64) int {
		return 1 + sort.SearchInts(newlines, int(off))
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var stack []*xnode
	var root *xnode
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &ImportError{File: file, Line: se.Line, Msg: "XML: " + se.Msg}
			}
			return nil, &ImportError{File: file, Line: lineAt(d.InputOffset()), Msg: "XML: " + err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// The offset before the token is that of '<' (whitespace
			// before it is a separate CharData token).
			n := &xnode{name: t.Name.Local, space: t.Name.Space, attrs: t.Copy().Attr, line: lineAt(off + 1)}
			if len(stack) == 0 {
				if root != nil {
					return nil, &ImportError{File: file, Line: n.line, Element: n.name, Msg: "a second root element"}
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			if len(stack) >= maxXMLDepth {
				return nil, &ImportError{File: file, Line: n.line, Element: n.name, Msg: fmt.Sprintf("nested deeper than %d elements", maxXMLDepth)}
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	if root == nil {
		return nil, &ImportError{File: file, Line: lineAt(int64(len(data))), Msg: "no XML element"}
	}
	return root, nil
}

// floats parses a whitespace-separated list of finite numbers of the
// attribute; want > 0 requires exactly that many.
func (im *importer) floats(n *xnode, name, s string, want int) ([]float64, error) {
	f := strings.Fields(s)
	if want > 0 && len(f) != want {
		return nil, im.errAt(n, "%s: want %d numbers, got %d (%q)", name, want, len(f), clip(s))
	}
	out := make([]float64, len(f))
	for i, x := range f {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil || !num.Finite(v) {
			return nil, im.errAt(n, "%s: %q is not a finite number", name, clip(x))
		}
		out[i] = v
	}
	return out, nil
}

// clip shortens a value for an error message.
// maxPathInError bounds a file path quoted in an import message: a ROS
// package:// path runs past maxNameInError, and its end names the file.
const maxPathInError = 240

// clipPath shortens a file path for a message to its last
// maxPathInError bytes.
func clipPath(s string) string {
	if len(s) > maxPathInError {
		return "…" + s[len(s)-maxPathInError:]
	}
	return s
}

func clip(s string) string {
	if len(s) > maxNameInError {
		return s[:maxNameInError] + "…"
	}
	return s
}

// vecAttr returns the attribute as a 3-vector, def if absent.
func (im *importer) vecAttr(n *xnode, name string, def mgl64.Vec3) (mgl64.Vec3, error) {
	s, ok := n.attr(name)
	if !ok {
		return def, nil
	}
	f, err := im.floats(n, name, s, 3)
	if err != nil {
		return def, err
	}
	return mgl64.Vec3{f[0], f[1], f[2]}, nil
}

// floatAttr returns the attribute as one number, def if absent.
func (im *importer) floatAttr(n *xnode, name string, def float64) (float64, error) {
	s, ok := n.attr(name)
	if !ok {
		return def, nil
	}
	f, err := im.floats(n, name, s, 1)
	if err != nil {
		return def, err
	}
	return f[0], nil
}

// axisQuat returns the rotation by angle (rad) about the unit axis u.
func axisQuat(u mgl64.Vec3, angle float64) mgl64.Quat {
	s, c := math.Sincos(angle / 2)
	return mgl64.Quat{W: c, V: u.Mul(s)}
}

// rpyQuat returns the rotation of URDF's rpy: roll about the fixed x
// axis, then pitch about fixed y, then yaw about fixed z
// (R = Rz(yaw) Ry(pitch) Rx(roll)).
func rpyQuat(r, p, y float64) mgl64.Quat {
	qx := axisQuat(mgl64.Vec3{1, 0, 0}, r)
	qy := axisQuat(mgl64.Vec3{0, 1, 0}, p)
	qz := axisQuat(mgl64.Vec3{0, 0, 1}, y)
	return qz.Mul(qy).Mul(qx)
}

// matQuat returns the unit quaternion of the rotation matrix whose
// columns are the frame's axes (Shepperd's method: the largest of the
// four squared components first, for accuracy), with W ≥ 0.
func matQuat(m mgl64.Mat3) mgl64.Quat {
	m00, m11, m22 := m.At(0, 0), m.At(1, 1), m.At(2, 2)
	tr := m00 + m11 + m22
	var q mgl64.Quat
	switch {
	case tr >= m00 && tr >= m11 && tr >= m22:
		s := 2 * math.Sqrt(1+tr)
		q = mgl64.Quat{W: s / 4, V: mgl64.Vec3{(m.At(2, 1) - m.At(1, 2)) / s, (m.At(0, 2) - m.At(2, 0)) / s, (m.At(1, 0) - m.At(0, 1)) / s}}
	case m00 >= m11 && m00 >= m22:
		s := 2 * math.Sqrt(1+m00-m11-m22)
		q = mgl64.Quat{W: (m.At(2, 1) - m.At(1, 2)) / s, V: mgl64.Vec3{s / 4, (m.At(0, 1) + m.At(1, 0)) / s, (m.At(0, 2) + m.At(2, 0)) / s}}
	case m11 >= m22:
		s := 2 * math.Sqrt(1-m00+m11-m22)
		q = mgl64.Quat{W: (m.At(0, 2) - m.At(2, 0)) / s, V: mgl64.Vec3{(m.At(0, 1) + m.At(1, 0)) / s, s / 4, (m.At(1, 2) + m.At(2, 1)) / s}}
	default:
		s := 2 * math.Sqrt(1-m00-m11+m22)
		q = mgl64.Quat{W: (m.At(1, 0) - m.At(0, 1)) / s, V: mgl64.Vec3{(m.At(0, 2) + m.At(2, 0)) / s, (m.At(1, 2) + m.At(2, 1)) / s, s / 4}}
	}
	if q.W < 0 {
		q = q.Scale(-1)
	}
	return q.Normalize()
}

// quatMat returns the rotation matrix of the unit quaternion q.
func quatMat(q mgl64.Quat) mgl64.Mat3 { return q.Mat4().Mat3() }

// transform is a rigid frame: x_world = Pos + Rot·x_local.
type transform struct {
	Pos mgl64.Vec3
	Rot mgl64.Quat
}

var identity = transform{Rot: mgl64.QuatIdent()}

// then returns the frame c given in t's frame, in t's parent frame.
func (t transform) then(c transform) transform {
	return transform{Pos: t.Pos.Add(t.Rot.Rotate(c.Pos)), Rot: t.Rot.Mul(c.Rot).Normalize()}
}

// point returns the parent-frame coordinates of the local point p.
func (t transform) point(p mgl64.Vec3) mgl64.Vec3 { return t.Pos.Add(t.Rot.Rotate(p)) }

// inverse returns the frame whose then with t is the identity.
func (t transform) inverse() transform {
	r := t.Rot.Conjugate()
	return transform{Pos: r.Rotate(t.Pos).Mul(-1), Rot: r}
}

// massPart is a rigid part's mass, centre of mass and inertia about it,
// all in one common frame.
type massPart struct {
	m   float64
	com mgl64.Vec3
	I   mgl64.Mat3
}

// rotateInertia returns R I Rᵀ for the rotation q.
func rotateInertia(q mgl64.Quat, I mgl64.Mat3) mgl64.Mat3 {
	r := quatMat(q)
	return r.Mul3(I).Mul3(r.Transpose())
}

// combine returns the parts' total mass, common centre of mass and
// inertia about it (parallel-axis theorem), in the parts' frame.
func combine(parts []massPart) massPart {
	var tot massPart
	for _, p := range parts {
		tot.m += p.m
		tot.com = tot.com.Add(p.com.Mul(p.m))
	}
	if tot.m > 0 {
		tot.com = tot.com.Mul(1 / tot.m)
	}
	for _, p := range parts {
		d := p.com.Sub(tot.com)
		shift := mgl64.Ident3().Mul(d.Dot(d)).Sub(d.OuterProd3(d)).Mul(p.m)
		tot.I = tot.I.Add(p.I).Add(shift)
	}
	return tot
}

// symmetrize returns (I + Iᵀ)/2, removing rounding asymmetry.
func symmetrize(I mgl64.Mat3) mgl64.Mat3 { return I.Add(I.Transpose()).Mul(0.5) }

// uniqueName returns name, or name with a suffix if taken, and marks it.
func uniqueName(taken map[string]bool, name string) string {
	n := name
	for k := 2; taken[n] || n == WorldName || n == ""; k++ {
		n = fmt.Sprintf("%s_%d", name, k)
	}
	taken[n] = true
	return n
}

// Model file kinds of ModelKind.
const (
	KindScene = "scene" // gorigid's JSON scene file (.json)
	KindURDF  = "urdf"  // .urdf (and .xacro)
	KindMJCF  = "mjcf"  // .xml or .mjcf
)

// ModelKind returns the kind of model file path names by its extension
// (case-insensitive): KindScene, KindURDF, KindMJCF, or "" for none. A
// ROS .xacro file is KindURDF: one already expanded imports, one that is
// not is an error saying to expand it.
func ModelKind(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return KindScene
	case ".urdf", ".xacro":
		return KindURDF
	case ".xml", ".mjcf":
		return KindMJCF
	}
	return ""
}

// LoadModel reads a scene file, a URDF or an MJCF file, chosen by
// ModelKind, into a SceneSpec: the one path by which `sim run`, `sim
// export` and `sim view` take any of them. A scene file has no warnings;
// opts apply to the imports.
func LoadModel(path string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	switch ModelKind(path) {
	case KindScene:
		data, err := openModel(path)
		if err != nil {
			return nil, nil, err
		}
		s, err := ReadSpec(bytes.NewReader(data), path)
		return s, nil, err
	case KindURDF:
		return LoadURDF(path, opts)
	case KindMJCF:
		return LoadMJCF(path, opts)
	}
	return nil, nil, fmt.Errorf("%s: unknown model file extension %q (want .json, .urdf, .xml or .mjcf)", path, filepath.Ext(path))
}

// MeshGeom is a mesh collision geom of an imported model: the body it
// belongs to, the resolved file, the scale, its pose in the body's frame
// (the same frame as ShapeSpec.Pos and Rot, whose origin is the body's
// centre of mass), material and collision bits. An import makes each one
// a convex ShapeSpec, the hull of the file's vertices scaled (as MuJoCo
// does for a mesh geom), placed so that the mesh keeps its pose; a warning's
// Meshes lists the ones it could not (a file not found or without a hull)
// and the static ones, which collide as their hulls too.
type MeshGeom struct {
	Name           string // the geom's name, "" if it has none
	Body           string // body name, or WorldName
	File           string // resolved path; "" if the file was not found
	Scale          mgl64.Vec3
	Pos            mgl64.Vec3
	Rot            mgl64.Quat // zero = identity, as ShapeSpec.Rot
	Material       stepper.Material
	Category, Mask uint32
}

// meshSource is where a recorded mesh geom is in the model: its element
// and its mesh file as the model names it (File of an unfound one is "").
type meshSource struct {
	node *xnode
	file string
}

// addMesh records a mesh geom, at element n naming mesh file file, for
// finishMeshes.
func (im *importer) addMesh(n *xnode, g MeshGeom, file string) {
	im.meshes = append(im.meshes, g)
	im.meshSrc = append(im.meshSrc, meshSource{node: n, file: file})
}

// describe names a skipped mesh geom for a warning by its element (an
// MJCF <geom>, a URDF <collision>): by its name, or, for an unnamed one,
// by its file and line, and its body.
func (src meshSource) describe(g MeshGeom) string {
	if g.Name != "" {
		return fmt.Sprintf("%s %q of mesh file %q on body %q", src.node.name, clip(g.Name), clipPath(src.file), clip(g.Body))
	}
	return fmt.Sprintf("an unnamed %s of mesh file %q on body %q, line %d", src.node.name, clipPath(src.file), clip(g.Body), src.node.line)
}

// finishMeshes makes each recorded mesh geom a shape of its body (or of
// the world) in spec: on the world or a static body a trimesh of the
// file's triangles scaled, at the geom's pose; on a moving body the convex
// hull of the file's vertices scaled (as MuJoCo collides a mesh geom),
// whose centroid ShapeSpec places at Pos, so Pos is the geom's origin
// moved by its rotation of the hull's centroid. It warns once about the
// geoms it could not make a shape of.
func (im *importer) finishMeshes(spec *SceneSpec) {
	if len(im.meshes) == 0 {
		return
	}
	var skipped []MeshGeom
	var first meshSource
	why := ""
	skip := func(k int, reason string) {
		if len(skipped) == 0 {
			first, why = im.meshSrc[k], reason
		}
		skipped = append(skipped, im.meshes[k])
	}
	for k, g := range im.meshes {
		if g.File == "" {
			skip(k, "file not found")
			continue
		}
		var target *[]ShapeSpec
		static := g.Body == WorldName
		if static {
			target = &spec.WorldShapes
		}
		for i := range spec.Bodies {
			if b := &spec.Bodies[i]; target == nil && b.Name == g.Body {
				target, static = &b.Shapes, b.Static
			}
		}
		if target == nil {
			skip(k, "its body was merged away")
			continue
		}
		sh := ShapeSpec{Type: contact.TriMesh, Mesh: g.File, Scale: g.Scale, Pos: g.Pos, Rot: g.Rot,
			Material: g.Material, Category: g.Category, Mask: g.Mask}
		if static {
			// A static mesh collides as its triangles.
			if _, _, err := sh.staticMeshShape(); err != nil {
				skip(k, err.Error())
				continue
			}
		} else {
			// A moving mesh collides as its convex hull, as MuJoCo's does.
			scale := g.Scale
			if scale == (mgl64.Vec3{}) {
				scale = mgl64.Vec3{1, 1, 1}
			}
			h, err := loadHull(g.File, scale)
			if err != nil {
				skip(k, err.Error())
				continue
			}
			rot := g.Rot
			if rot == (mgl64.Quat{}) {
				rot = mgl64.QuatIdent()
			}
			sh.Type, sh.Pos = contact.Convex, g.Pos.Add(rot.Rotate(h.com))
		}
		*target = append(*target, sh)
	}
	if len(skipped) > 0 {
		// The message speaks to the command line as to Go: Meshes (see
		// Warning) lists the geoms for a program.
		im.warnings = append(im.warnings, Warning{File: im.file, Line: first.node.line, Element: first.node.name,
			Msg: fmt.Sprintf("%d mesh geom(s) skipped, the first %s (%s): they do not collide",
				len(skipped), first.describe(skipped[0]), clip(why)),
			Meshes: skipped})
	}
}

// loadHull reads a mesh file, scales it and returns its convex hull's
// volume, centre of mass and unit-density inertia.
func loadHull(path string, scale mgl64.Vec3) (*meshHull, error) {
	msh, err := mesh.Load(path, scale)
	if err != nil {
		return nil, err
	}
	h, err := msh.Hull(0)
	if err != nil {
		return nil, err
	}
	v, com, I, err := h.MassProperties(1)
	if err != nil {
		return nil, err
	}
	return &meshHull{file: path, volume: v, com: com, inertia: I}, nil
}
