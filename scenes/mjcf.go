package scenes

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/mesh"
	"github.com/gorigid/gorigid/stepper"
)

// MJCF import (MuJoCo's XML model format, the subset rigid-body models
// use).
//
// Mapping: a <body> with one joint becomes a gorigid body joined to its
// parent's body (A = the body, B = the parent); a body with several
// joints is an error unless ImportOptions.SplitJoints makes it a chain of
// bodies; a body without joints is
// welded to its parent as MuJoCo does, by merging its mass and geoms into
// the parent's body (into a static body when the parent is the world); a
// free joint leaves the body free. A body's position is its centre of
// mass and its orientation the MJCF body frame's, so <inertial> (with
// diaginertia or fullinertia, in its rotated frame) is carried into the
// body frame exactly; without <inertial> mass and inertia come from the
// geoms (density 1000 kg/m³ as MuJoCo's default, or a geom's mass), each
// geom's inertia rotated and shifted to the common centre of mass.
// Frames take pos with quat, axisangle, euler (compiler eulerseq, lower
// case rotating axes, upper case fixed), xyaxes or zaxis, angles in the
// compiler's unit (degree by default). Geom sizes follow MuJoCo: box
// half-sides, capsule and cylinder radius and half-length (or fromto),
// which become gorigid's full sides and full lengths. Default classes
// inherit down <default> nesting and childclass down <body> nesting.
// contype/conaffinity become category/mask (equal for the usual symmetric
// bits; see the warning otherwise), contact/exclude the exclude pairs,
// option timestep and gravity the settings, <key> qpos (by
// ImportOptions.Keyframe) the initial pose.

// mjcfDefaultH is MuJoCo's default time step (s).
const mjcfDefaultH = 0.002

// mjcfDensity is MuJoCo's default geom density (kg/m³, water).
const mjcfDensity = 1000

// LoadMJCF reads the MJCF file at path into a SceneSpec. Warnings list,
// once per kind, what was ignored or approximated; errors name the file,
// the line and the element.
func LoadMJCF(path string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	data, err := openModel(path)
	if err != nil {
		return nil, nil, err
	}
	return parseMJCF(data, path, filepath.Dir(path), opts)
}

// ParseMJCF reads an MJCF document from r; name (a file name) is used in
// messages.
func ParseMJCF(r io.Reader, name string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	data, err := readModel(r, name)
	if err != nil {
		return nil, nil, err
	}
	return parseMJCF(data, name, "", opts)
}

// maxIncludeDepth bounds nested MJCF <include> files.
const maxIncludeDepth = 8

// maxIncludes bounds the <include> elements a model expands in all
// (mujoco_menagerie's scenes use one): files that each include the next
// several times would otherwise expand exponentially within
// maxIncludeDepth (10 includes at each of 6 levels are a million files).
// The bytes read through them are bounded by maxModelFile in all.
const maxIncludes = 1000

// includes replaces each <include file> under n by the children of the
// named file's root <mujoco> element, as MuJoCo does (mujoco_menagerie's
// scene.xml includes the robot's file); the file is found relative to
// the model's directory, its elements report their own file and line,
// and its own includes are expanded in turn. open lists the files being
// expanded (a file that includes itself is an error).
func (m *mjcf) includes(n *xnode, open map[string]bool, depth int) error {
	var kids []*xnode
	for _, c := range n.children {
		if c.name != "include" {
			if err := m.includes(c, open, depth); err != nil {
				return err
			}
			kids = append(kids, c)
			continue
		}
		f, ok := c.attr("file")
		if !ok || f == "" {
			return m.errAt(c, "file: missing")
		}
		path := f
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.dir, f)
		}
		if open[path] || depth >= maxIncludeDepth {
			return m.errAt(c, "file %q: includes nested deeper than %d or in a cycle", clip(f), maxIncludeDepth)
		}
		if m.nIncludes++; m.nIncludes > maxIncludes {
			return m.errAt(c, "file %q: more than %d <include> elements expanded in all (files that include each other repeatedly)", clip(f), maxIncludes)
		}
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			// Only regular files: a device or a pipe could block or never end.
			return m.errAt(c, "file %q: not found, or not a regular file", clipPath(f))
		}
		data, err := openModel(path)
		if err != nil {
			return m.errAt(c, "file %q: %v", clipPath(f), err)
		}
		if m.includedBytes += len(data); m.includedBytes > maxModelFile {
			return m.errAt(c, "file %q: the included files exceed %d bytes in all", clipPath(f), maxModelFile)
		}
		root, err := parseXML(data, path)
		if err != nil {
			return err
		}
		setFile(root, path)
		if root.name != "mujoco" {
			return m.errAt(root, "the root element of an included file must be <mujoco>")
		}
		open[path] = true
		if err := m.includes(root, open, depth+1); err != nil {
			return err
		}
		delete(open, path)
		kids = append(kids, root.children...)
	}
	n.children = kids
	return nil
}

// mergeWorldbodies moves the children of every top-level <worldbody>
// after the first into the first, as MuJoCo reads repeated sections (a
// scene file's floor and the robot file it includes).
func mergeWorldbodies(root *xnode) {
	var first *xnode
	kids := root.children[:0]
	for _, c := range root.children {
		switch {
		case c.name != "worldbody":
		case first == nil:
			first = c
		default:
			first.children = append(first.children, c.children...)
			continue
		}
		kids = append(kids, c)
	}
	root.children = kids
}

// setFile marks n and every element under it as read from file.
func setFile(n *xnode, file string) {
	n.file = file
	for _, c := range n.children {
		setFile(c, file)
	}
}

// mjGroup is one gorigid body: an MJCF body and the bodies welded to it.
type mjGroup struct {
	node   *xnode
	name   string
	frame  transform // the group's frame in the world
	static bool
	parts  []massPart  // in the group's frame
	shapes []ShapeSpec // poses in the group's frame
	meshes []pendingMesh
	// splitOf is the body whose joints this added body separates
	// (ImportOptions.SplitJoints), splitAt its centre of mass in its frame.
	splitOf *mjGroup
	splitAt mgl64.Vec3
	total   massPart // the group's mass properties, once computed
}

// pendingMesh is a mesh geom whose pose is in its group's frame until the
// group's centre of mass is known (MJCF), or a URDF collision mesh, with
// its element and file as the model names it.
type pendingMesh struct {
	node *xnode
	geom MeshGeom
	file string // the mesh asset's file as the model names it
}

type mjcf struct {
	*importer
	nIncludes, includedBytes int // <include> expansions and their bytes so far (maxIncludes, maxModelFile)
	dir                      string
	opts                     ImportOptions
	degree                   bool
	eulerseq                 string
	// defaults[class][element][attribute]
	defaults   map[string]map[string]map[string]string
	parentOf   map[string]string // class → parent class
	spec       *SceneSpec
	keyNode    *xnode // the <key> of ImportOptions.Keyframe, nil without one
	groups     []*mjGroup
	taken      map[string]bool
	ownerOf    map[string]string    // MJCF body name → gorigid body (or world)
	frameOf    map[string]transform // MJCF body name → its frame in the world at the built pose
	jointIdx   map[string]int       // MJCF joint name → spec.Joints index
	jointQ0    []float64            // per spec.Joints entry, qpos − θ: the built pose's qpos for a slide (θ = 0 there), 0 for a hinge (its angle is qpos)
	friction   float64              // the first geom's friction coefficient
	meshdir    string
	meshAssets map[string]meshAsset
	hulls      map[string]*meshHull
	hfields    map[string]ShapeSpec // hfield assets with inline elevation, as heightfield shapes
	qpos       []float64
	qadr       int
	meshMiss   map[string]string // mesh asset file → why it cannot be used
	visualMiss []string          // files of missing meshes that neither collide nor give mass
	visualNode *xnode            // the first geom of visualMiss
	ctrl       []float64         // the keyframe's ctrl, one per actuator in file order (nil: all 0)
	noActuate  bool              // <option><flag actuation="disable">: no actuator is imported
	gravityOff bool              // <option><flag gravity="disable">: zero gravity
	ident      int               // unnamed body counter
	rootNode   *xnode            // the <mujoco> element
	// inertiaGroups is the compiler's inertiagrouprange: geoms of other
	// groups give no mass (MuJoCo's default 0 to 5).
	inertiaGroups [2]float64
}

func parseMJCF(data []byte, file, dir string, opts ImportOptions) (*SceneSpec, []Warning, error) {
	root, err := parseXML(data, file)
	if err != nil {
		return nil, nil, err
	}
	m := &mjcf{importer: newImporter(file), dir: dir, opts: opts, degree: true, eulerseq: "xyz",
		defaults: map[string]map[string]map[string]string{"main": {}}, parentOf: map[string]string{},
		meshAssets: map[string]meshAsset{}, hulls: map[string]*meshHull{}, meshMiss: map[string]string{},
		taken: map[string]bool{}, ownerOf: map[string]string{WorldName: WorldName}, frameOf: map[string]transform{WorldName: identity},
		inertiaGroups: [2]float64{0, 5}, jointIdx: map[string]int{}}
	if root.name != "mujoco" {
		return nil, nil, m.errAt(root, "the root element must be <mujoco>")
	}
	m.rootNode = root
	if err := m.includes(root, map[string]bool{}, 0); err != nil {
		return nil, nil, err
	}
	mergeWorldbodies(root)
	m.spec = &SceneSpec{Settings: SettingsSpec{H: mjcfDefaultH, Gravity: mgl64.Vec3{0, 0, -9.81}}}
	m.spec.Name, _ = root.attr("model")
	// Compiler, option and defaults come first whatever their place.
	for _, c := range root.children {
		var err error
		switch c.name {
		case "compiler":
			err = m.compiler(c)
		case "option":
			err = m.option(c)
		case "default":
			err = m.defaultClass(c, "", 0)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	// Assets after the defaults: a mesh asset takes its class's scale.
	for _, c := range root.children {
		if c.name == "asset" {
			if err := m.assets(c); err != nil {
				return nil, nil, err
			}
		}
	}
	if opts.Keyframe != "" {
		if err := m.keyframe(root, opts.Keyframe); err != nil {
			return nil, nil, err
		}
	}
	var actuators, contacts, tendons, equalities []*xnode
	for _, c := range root.children {
		switch c.name {
		case "compiler", "option", "default", "keyframe":
		case "size", "visual", "statistic", "extension":
		case "worldbody":
			if err := m.worldbody(c); err != nil {
				return nil, nil, err
			}
		case "actuator":
			actuators = append(actuators, c)
		case "contact":
			contacts = append(contacts, c)
		case "tendon":
			tendons = append(tendons, c)
		case "equality":
			equalities = append(equalities, c)
		case "asset":
		default:
			m.warnOnce("elem:"+c.name, c, "element <%s> not supported: ignored", c.name)
		}
	}
	if opts.Keyframe != "" && m.qadr != len(m.qpos) {
		return nil, nil, fmt.Errorf("%s: keyframe %q: qpos has %d numbers, the model's joints take %d", file, clip(opts.Keyframe), len(m.qpos), m.qadr)
	}
	for _, c := range contacts {
		if err := m.contact(c); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range tendons {
		if err := m.tendons(c); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range equalities {
		if err := m.equality(c); err != nil {
			return nil, nil, err
		}
	}
	nact := 0
	for _, c := range actuators {
		if nact, err = m.actuators(c, nact); err != nil {
			return nil, nil, err
		}
	}
	if len(m.ctrl) > 0 && len(m.ctrl) != nact {
		return nil, nil, fmt.Errorf("%s: keyframe %q: ctrl has %d numbers, the model has %d actuators", file, clip(opts.Keyframe), len(m.ctrl), nact)
	}
	if m.gravityOff {
		m.spec.Settings.Gravity = mgl64.Vec3{}
	}
	if opts.H != 0 {
		m.spec.Settings.H = opts.H
	}
	if len(m.visualMiss) > 0 {
		m.warnOnce("meshfile:visual", m.visualNode, "%d mesh file(s) of visual geoms not found or unreadable (the first %q): they have no effect on the simulation (they do not collide, and their bodies' mass is from <inertial>)", len(m.visualMiss), clipPath(m.visualMiss[0]))
	}
	m.finishMeshes(m.spec)
	m.mapFilters(m.spec)
	if err := m.spec.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: the imported scene: %w", file, err)
	}
	at := m.keyNode
	if at == nil {
		at = root
	}
	m.warnStartInside(m.spec, at, "raise the start pose: the keyframe's or the root body's height")
	return m.spec, m.warnings, nil
}

func (m *mjcf) compiler(n *xnode) error {
	for _, a := range n.attrs {
		v := a.Value
		switch a.Name.Local {
		case "angle":
			if v != "degree" && v != "radian" {
				return m.errAt(n, "angle: want degree or radian, got %q", clip(v))
			}
			m.degree = v == "degree"
		case "eulerseq":
			if len(v) != 3 || strings.Trim(v, "xyzXYZ") != "" {
				return m.errAt(n, "eulerseq: want three of x, y, z, X, Y, Z, got %q", clip(v))
			}
			m.eulerseq = v
		case "meshdir":
			m.meshdir = v
		case "coordinate":
			if v != "local" {
				return m.errAt(n, "coordinate: only local is supported, got %q", clip(v))
			}
		case "inertiafromgeom":
			if v == "true" {
				m.warnOnce("ifg", n, "inertiafromgeom=\"true\": <inertial> elements are used where given, geoms otherwise")
			}
		case "assetdir":
			// MuJoCo's assetdir is meshdir's default.
			if _, ok := n.attr("meshdir"); !ok {
				m.meshdir = v
			}
		case "inertiagrouprange":
			r, err := m.floats(n, "inertiagrouprange", v, 2)
			if err != nil {
				return err
			}
			if r[0] > r[1] {
				return m.errAt(n, "inertiagrouprange: lower %v > upper %v", r[0], r[1])
			}
			m.inertiaGroups = [2]float64{r[0], r[1]}
		case "autolimits", "texturedir", "boundmass", "boundinertia", "balanceinertia", "strippath", "discardvisual", "fitaabb", "usethread", "alignfree", "fusestatic", "exactmeshinertia", "settotalmass", "lengthrange":
			if a.Name.Local == "boundmass" || a.Name.Local == "boundinertia" || a.Name.Local == "balanceinertia" || a.Name.Local == "settotalmass" {
				m.warnOnce("compiler:"+a.Name.Local, n, "compiler %s ignored: masses and inertias are imported as given", a.Name.Local)
			}
		default:
			m.warnOnce("compiler:"+a.Name.Local, n, "compiler attribute %s ignored", a.Name.Local)
		}
	}
	return nil
}

func (m *mjcf) option(n *xnode) error {
	for _, a := range n.attrs {
		switch a.Name.Local {
		case "timestep":
			h, err := m.floatAttr(n, "timestep", 0)
			if err != nil {
				return err
			}
			if !(h > 0) {
				return m.errAt(n, "timestep: must be > 0 s, got %v", h)
			}
			m.spec.Settings.H = h
		case "gravity":
			g, err := m.vecAttr(n, "gravity", mgl64.Vec3{})
			if err != nil {
				return err
			}
			m.spec.Settings.Gravity = g
		case "integrator", "cone", "jacobian", "solver", "iterations", "tolerance", "ls_iterations", "noslip_iterations", "ccd_iterations":
			m.warnOnce("option:solver", n, "option %s ignored: gorigid steps with its own time stepper and LCP solver (sim run --solver)", a.Name.Local)
		case "o_solref", "o_solimp", "o_margin", "impratio":
			m.warnOnce("option:soft", n, "option %s ignored: gorigid's contacts are rigid complementarity constraints, not MuJoCo's soft constraints", a.Name.Local)
		default:
			m.warnOnce("option:"+a.Name.Local, n, "option %s ignored", a.Name.Local)
		}
	}
	for _, c := range n.children {
		if c.name != "flag" {
			m.warnOnce("option:"+c.name, c, "option <%s> ignored", c.name)
			continue
		}
		for _, a := range c.attrs {
			switch f, v := a.Name.Local, a.Value; {
			case v != "disable" && v != "enable":
				return m.errAt(c, "%s: must be disable or enable, got %q", f, clip(v))
			case f == "actuation" && v == "disable":
				m.noActuate = true
			case f == "gravity" && v == "disable":
				m.gravityOff = true
			case (f == "actuation" || f == "gravity") && v == "enable":
			default:
				m.warnOnce("flag:"+f, c, "option flag %s=%q ignored", f, clip(v))
			}
		}
	}
	return nil
}

// defaultClass reads a <default> element: its class (the top one is
// "main") copies its parent's defaults and overrides them.
func (m *mjcf) defaultClass(n *xnode, parent string, depth int) error {
	class, ok := n.attr("class")
	if !ok || class == "" {
		if parent != "" {
			return m.errAt(n, "class: a nested default needs a class name")
		}
		class = "main"
	}
	if parent != "" {
		if _, dup := m.parentOf[class]; dup || class == "main" {
			return m.errAt(n, "class %q defined twice", clip(class))
		}
		m.parentOf[class] = parent
		d := map[string]map[string]string{}
		for k, v := range m.defaults[parent] {
			c := make(map[string]string, len(v))
			for a, x := range v {
				c[a] = x
			}
			d[k] = c
		}
		m.defaults[class] = d
	}
	d := m.defaults[class]
	for _, c := range n.children {
		if c.name == "default" {
			if err := m.defaultClass(c, class, depth+1); err != nil {
				return err
			}
			continue
		}
		e := d[c.name]
		if e == nil {
			e = map[string]string{}
			d[c.name] = e
		}
		for _, a := range c.attrs {
			e[a.Name.Local] = a.Value
		}
	}
	return nil
}

// elem is an element with its default class resolved: attribute look-ups
// fall back to the class's defaults for the element's kind.
type elem struct {
	*xnode
	def map[string]string
}

func (m *mjcf) resolve(n *xnode, childclass string) (elem, error) {
	class := childclass
	if c, ok := n.attr("class"); ok {
		class = c
	}
	d, ok := m.defaults[class]
	if !ok {
		return elem{}, m.errAt(n, "class %q is not defined", clip(class))
	}
	return elem{n, d[n.name]}, nil
}

func (e elem) get(name string) (string, bool) {
	if v, ok := e.attr(name); ok {
		return v, true
	}
	v, ok := e.def[name]
	return v, ok
}

func (m *mjcf) efloats(e elem, name string, want int) ([]float64, bool, error) {
	s, ok := e.get(name)
	if !ok {
		return nil, false, nil
	}
	f, err := m.floats(e.xnode, name, s, want)
	return f, true, err
}

func (m *mjcf) efloat(e elem, name string, def float64) (float64, error) {
	f, ok, err := m.efloats(e, name, 1)
	if err != nil || !ok {
		return def, err
	}
	return f[0], nil
}

func (m *mjcf) angle(a float64) float64 {
	if m.degree {
		return a * math.Pi / 180
	}
	return a
}

// frame reads pos and the one orientation attribute of e (defaults
// included when e has a class).
func (m *mjcf) frame(e elem) (transform, error) {
	t := identity
	if p, ok, err := m.efloats(e, "pos", 3); err != nil {
		return t, err
	} else if ok {
		t.Pos = mgl64.Vec3{p[0], p[1], p[2]}
	}
	q, err := m.orientation(e)
	t.Rot = q
	return t, err
}

// orientation returns the rotation of e's quat, axisangle, euler, xyaxes
// or zaxis (identity when none is given; at most one may be).
func (m *mjcf) orientation(e elem) (mgl64.Quat, error) {
	var given []string
	for _, k := range []string{"quat", "axisangle", "euler", "xyaxes", "zaxis"} {
		if _, ok := e.attr(k); ok {
			given = append(given, k)
		}
	}
	if len(given) > 1 {
		return identity.Rot, m.errAt(e.xnode, "give one orientation, got %s", strings.Join(given, " and "))
	}
	if len(given) == 0 {
		for _, k := range []string{"quat", "axisangle", "euler", "xyaxes", "zaxis"} {
			if _, ok := e.def[k]; ok {
				given = append(given, k)
				break
			}
		}
	}
	if len(given) == 0 {
		return identity.Rot, nil
	}
	k := given[0]
	f, _, err := m.efloats(e, k, map[string]int{"quat": 4, "axisangle": 4, "euler": 3, "xyaxes": 6, "zaxis": 3}[k])
	if err != nil {
		return identity.Rot, err
	}
	switch k {
	case "quat":
		q := mgl64.Quat{W: f[0], V: mgl64.Vec3{f[1], f[2], f[3]}}
		if q.Len() == 0 {
			return identity.Rot, m.errAt(e.xnode, "quat: must not be zero")
		}
		return q.Normalize(), nil
	case "axisangle":
		a := mgl64.Vec3{f[0], f[1], f[2]}
		if a.Len() == 0 {
			return identity.Rot, m.errAt(e.xnode, "axisangle: the axis must not be zero")
		}
		return axisQuat(a.Normalize(), m.angle(f[3])), nil
	case "euler":
		q := mgl64.QuatIdent()
		for i, c := range m.eulerseq {
			var ax mgl64.Vec3
			ax[strings.IndexRune("xyz", c|0x20)] = 1
			r := axisQuat(ax, m.angle(f[i]))
			if c >= 'a' {
				q = q.Mul(r) // about the rotated axis
			} else {
				q = r.Mul(q) // about the fixed axis
			}
		}
		return q.Normalize(), nil
	case "xyaxes":
		x := mgl64.Vec3{f[0], f[1], f[2]}
		y := mgl64.Vec3{f[3], f[4], f[5]}
		if x.Len() == 0 {
			return identity.Rot, m.errAt(e.xnode, "xyaxes: x must not be zero")
		}
		x = x.Normalize()
		y = y.Sub(x.Mul(x.Dot(y)))
		if y.Len() < 1e-12 {
			return identity.Rot, m.errAt(e.xnode, "xyaxes: y must not be parallel to x")
		}
		y = y.Normalize()
		z := x.Cross(y)
		return matQuat(mgl64.Mat3FromCols(x, y, z)), nil
	default: // zaxis
		z := mgl64.Vec3{f[0], f[1], f[2]}
		if z.Len() == 0 {
			return identity.Rot, m.errAt(e.xnode, "zaxis: must not be zero")
		}
		return zQuat(z.Normalize()), nil
	}
}

// zQuat returns the smallest rotation taking +z to the unit vector v.
func zQuat(v mgl64.Vec3) mgl64.Quat {
	z := mgl64.Vec3{0, 0, 1}
	c := v[2]
	ax := z.Cross(v)
	s := ax.Len()
	if s < 1e-15 {
		if c > 0 {
			return mgl64.QuatIdent()
		}
		return mgl64.Quat{W: 0, V: mgl64.Vec3{1, 0, 0}}
	}
	return axisQuat(ax.Mul(1/s), math.Atan2(s, c))
}

func (m *mjcf) worldbody(n *xnode) error {
	world := &mjGroup{node: n, name: WorldName, frame: identity, static: true}
	for _, c := range n.children {
		if err := m.bodyChild(c, world, identity, identity, "main", 0, false); err != nil {
			return err
		}
	}
	m.spec.WorldShapes = append(m.spec.WorldShapes, world.shapes...)
	for _, pm := range world.meshes {
		pm.geom.Body = WorldName
		m.addMesh(pm.node, pm.geom, pm.file)
	}
	// Each group's mass properties are final now: the bodies' first, then
	// the added bodies' from them.
	for _, g := range m.groups {
		if g.static || g.splitOf != nil {
			continue
		}
		if len(g.parts) == 0 {
			return m.errAt(g.node, "body %q has no mass: give <inertial> or geoms with a volume or mass", clip(g.name))
		}
		g.total = g.parts[0]
		if len(g.parts) > 1 {
			g.total = combine(g.parts)
		}
		if !(g.total.m > 0) {
			return m.errAt(g.node, "body %q has no mass: give <inertial> or geoms with a volume or mass", clip(g.name))
		}
	}
	for _, g := range m.groups {
		if t := g.splitOf; t != nil {
			eps := m.opts.SplitJoints
			// The body's inertia, turned into the added body's frame.
			r := g.frame.Rot.Conjugate().Mul(t.frame.Rot)
			g.total = massPart{m: eps * t.total.m, com: g.splitAt, I: symmetrize(rotateInertia(r, t.total.I)).Mul(eps)}
		}
	}
	// Bodies in MJCF order.
	for _, g := range m.groups {
		b := BodySpec{Name: g.name, Rot: g.frame.Rot, Static: g.static}
		com := mgl64.Vec3{}
		if g.static {
			b.Pos = g.frame.Pos
		} else {
			com = g.total.com
			b.Mass = g.total.m
			b.Pos = g.frame.point(com)
			I := symmetrize(g.total.I)
			b.Inertia = &I
		}
		for _, s := range g.shapes {
			s.Pos = s.Pos.Sub(com)
			b.Shapes = append(b.Shapes, s)
		}
		for _, pm := range g.meshes {
			pm.geom.Body = g.name
			pm.geom.Pos = pm.geom.Pos.Sub(com)
			m.addMesh(pm.node, pm.geom, pm.file)
		}
		m.spec.Bodies = append(m.spec.Bodies, b)
	}
	return nil
}

// bodyChild handles one child element of a body (or the worldbody) g;
// rel is the MJCF body's frame in g's frame, world its frame in the world.
func (m *mjcf) bodyChild(c *xnode, g *mjGroup, rel, world transform, class string, depth int, inert bool) error {
	switch c.name {
	case "body":
		return m.body(c, g, world, class, depth+1)
	case "geom":
		return m.geom(c, g, rel, class, inert)
	case "inertial":
		if g.static {
			return nil
		}
		return m.inertial(c, g, rel)
	case "joint", "freejoint":
		return nil // read by body
	case "site", "camera", "light":
	case "frame":
		f, err := m.frame(elem{c, nil})
		if err != nil {
			return err
		}
		for _, k := range c.children {
			if err := m.bodyChild(k, g, rel.then(f), world.then(f), class, depth, inert); err != nil {
				return err
			}
		}
	default:
		m.warnOnce("body:"+c.name, c, "element <%s> in a body not supported: ignored", c.name)
	}
	return nil
}

// body reads an MJCF body whose parent is (in) group parent, whose frame
// is parentWorld in the world.
func (m *mjcf) body(n *xnode, parent *mjGroup, parentWorld transform, class string, depth int) error {
	if cc, ok := n.attr("childclass"); ok {
		if _, ok := m.defaults[cc]; !ok {
			return m.errAt(n, "childclass %q is not defined", clip(cc))
		}
		class = cc
	}
	if g, ok := n.attr("gravcomp"); ok && strings.Trim(g, " \t\n0.") != "" {
		m.warnOnce("gravcomp", n, "body gravcomp %q not imported: gorigid has no gravity compensation, so the body feels the whole of gravity", clip(g))
	}
	local, err := m.frame(elem{n, nil})
	if err != nil {
		return err
	}
	world := parentWorld.then(local)
	name, _ := n.attr("name")
	if name == "" {
		m.ident++
		name = fmt.Sprintf("body%d", m.ident)
	}
	var joints []*xnode
	for _, c := range n.children {
		if c.name == "joint" || c.name == "freejoint" {
			joints = append(joints, c)
		}
	}
	if len(joints) > 1 && !(m.opts.SplitJoints > 0) {
		return m.errAt(joints[1], "body %q has %d joints: gorigid joins two bodies with one joint (split the body into a chain, or import with ImportOptions.SplitJoints)", clip(name), len(joints))
	}
	var g *mjGroup
	rel := identity
	var specs []JointSpec
	var nodes []*xnode
	var q0s []float64
	if len(joints) == 0 {
		// Welded to the parent: the same gorigid body (a static one for
		// the world).
		if parent.name == WorldName {
			g = &mjGroup{node: n, name: uniqueName(m.taken, name), frame: world, static: true}
			m.groups = append(m.groups, g)
		} else {
			g = parent
			rel = parent.frame.inverse().then(world)
		}
	}
	if len(joints) > 1 {
		m.warnOnce("split", joints[1], "body %q has %d joints: split into a chain of bodies, each joint's own, the added ones of %g times the body's mass and inertia at the joint (MuJoCo's joints of one body have no mass between them)", clip(name), len(joints), m.opts.SplitJoints)
	}
	prev := parent
	for k, jn := range joints {
		e, err := m.resolve(jn, class)
		if err != nil {
			return err
		}
		typ, _ := e.get("type")
		if jn.name == "freejoint" {
			typ = "free"
		}
		if typ == "" {
			typ = "hinge"
		}
		jf, err := m.frame(elem{jn, e.def})
		if err != nil {
			return err
		}
		axis := mgl64.Vec3{0, 0, 1}
		if a, ok, err := m.efloats(e, "axis", 3); err != nil {
			return err
		} else if ok {
			axis = mgl64.Vec3{a[0], a[1], a[2]}
			if axis.Len() == 0 {
				return m.errAt(jn, "axis: must not be zero")
			}
			axis = axis.Normalize()
		}
		// The pivot and axis at the pose before this joint's keyframe
		// displacement (a hinge's are unchanged by its own rotation).
		pivot := world.point(jf.Pos)
		ax := world.Rot.Rotate(axis)
		// The keyframe moves the body frame by the joint's coordinates.
		var q0 float64 // the built pose's coordinate (hinge/slide): the key's qpos, or ref
		world, q0, err = m.jointKeyframe(jn, e, typ, jf, axis, world, parent.name == WorldName && len(joints) == 1)
		if err != nil {
			return err
		}
		jname, _ := jn.attr("name")
		if k < len(joints)-1 {
			// An added body between this joint and the next, at the next
			// joint's pivot once its mass is known (split).
			in := jname
			if in == "" {
				in = fmt.Sprint(k + 1)
			}
			g = &mjGroup{node: n, name: uniqueName(m.taken, name+"_"+in), frame: world}
		} else {
			g = &mjGroup{node: n, name: uniqueName(m.taken, name), frame: world}
		}
		m.groups = append(m.groups, g)
		if typ == "free" {
			continue
		}
		js := JointSpec{Name: jname, A: g.name, B: prev.name, Pivot: pivot}
		switch typ {
		case "hinge":
			js.Type, js.Axis = JointHinge, ax
		case "slide":
			js.Type, js.Axis = JointPrismatic, ax
		case "ball":
			js.Type, js.Axis = JointBall, ax // Axis: the swing cone's, cleared by jointOptions
		}
		shift := q0 // qpos − θ: a slide is measured from the built pose
		if typ == "hinge" {
			// A hinge's angle is MuJoCo's qpos, continuous from the built
			// pose's q0, so ranges past ±π and of several turns hold.
			ref := q0
			js.Reference, shift = &ref, 0
		}
		if err := m.jointOptions(e, &js, typ, q0, shift); err != nil {
			return err
		}
		specs = append(specs, js)
		q0s = append(q0s, shift)
		nodes = append(nodes, jn)
		prev = g
	}
	// The added bodies take their mass from the body's, at the pivot of
	// the joint that follows them.
	if len(joints) > 1 {
		split := m.groups[len(m.groups)-len(joints) : len(m.groups)-1]
		for k, sg := range split {
			sg.splitOf = g
			sg.splitAt = sg.frame.inverse().point(specs[min(k+1, len(specs)-1)].Pivot)
		}
		// The body and its parent are no longer joined directly; MuJoCo
		// does not collide a body with its parent, and neither does a
		// joint's pair in gorigid.
		if parent.name != WorldName {
			m.spec.Exclude = append(m.spec.Exclude, ExcludeSpec{A: g.name, B: parent.name})
		}
	}
	m.ownerOf[name] = g.name
	m.frameOf[name] = world
	if nm, ok := n.attr("name"); ok {
		m.ownerOf[nm] = g.name
		m.frameOf[nm] = world
	}
	// Joints in MJCF order: a body's before its descendants'.
	if err := m.addJoints(specs, nodes, q0s); err != nil {
		return err
	}
	inert := n.child("inertial") != nil
	for _, c := range n.children {
		if err := m.bodyChild(c, g, rel, world, class, depth, inert); err != nil {
			return err
		}
	}
	return nil
}

// addJoints appends a body's joints to the scene with their keyframe
// coordinates q0s; nodes are their elements, for the error of a joint name
// given twice.
func (m *mjcf) addJoints(specs []JointSpec, nodes []*xnode, q0s []float64) error {
	for k, js := range specs {
		if js.Name != "" {
			if _, dup := m.jointIdx[js.Name]; dup {
				return m.errAt(nodes[k], "joint name %q given twice", clip(js.Name))
			}
			m.jointIdx[js.Name] = len(m.spec.Joints)
		}
		m.spec.Joints = append(m.spec.Joints, js)
		m.jointQ0 = append(m.jointQ0, q0s[k])
	}
	return nil
}

// jointKeyframe moves world, the body frame at the model's pose, by joint
// jn's keyframe coordinates (m.takeQ) when the keyframe gives them, and
// returns it with q0, a hinge's or slide's coordinate (MuJoCo's qpos) at
// the built pose: the keyframe's, or ref without one (0 for other
// joints); jf is the joint's frame and axis its unit axis in the body
// frame. A free joint must be alone, the only joint of a top-level body.
func (m *mjcf) jointKeyframe(jn *xnode, e elem, typ string, jf transform, axis mgl64.Vec3, world transform, alone bool) (transform, float64, error) {
	var q0 float64
	switch typ {
	case "free":
		if !alone {
			return world, 0, m.errAt(jn, "a free joint must be the only joint of a top-level body")
		}
		if q, ok := m.takeQ(7); ok {
			world = transform{Pos: mgl64.Vec3{q[0], q[1], q[2]}, Rot: mgl64.Quat{W: q[3], V: mgl64.Vec3{q[4], q[5], q[6]}}.Normalize()}
		}
	case "ball":
		if q, ok := m.takeQ(4); ok {
			r := mgl64.Quat{W: q[0], V: mgl64.Vec3{q[1], q[2], q[3]}}.Normalize()
			world = world.then(transform{Pos: jf.Pos, Rot: r}).then(transform{Pos: jf.Pos.Mul(-1), Rot: mgl64.QuatIdent()})
		}
	case "hinge", "slide":
		ref, err := m.efloat(e, "ref", 0)
		if err != nil {
			return world, 0, err
		}
		if typ == "hinge" {
			ref = m.angle(ref)
		}
		// ref is the coordinate of the pose the model is written in
		// (MuJoCo's qpos0): the keyframe's qpos turns or slides the body
		// by qpos − ref, and q0, the coordinate of the built pose, is
		// qpos, or ref without a keyframe.
		q0 = ref
		if q, ok := m.takeQ(1); ok {
			q0 = q[0]
			if typ == "hinge" {
				world = world.then(transform{Pos: jf.Pos, Rot: axisQuat(axis, q0-ref)}).then(transform{Pos: jf.Pos.Mul(-1), Rot: mgl64.QuatIdent()})
			} else {
				world = world.then(transform{Pos: axis.Mul(q0 - ref), Rot: mgl64.QuatIdent()})
			}
		}
	default:
		return world, 0, m.errAt(jn, "type: %q is not a joint type (want free, ball, slide or hinge)", clip(typ))
	}
	return world, q0, nil
}

// takeQ returns the next n numbers of the keyframe's qpos.
func (m *mjcf) takeQ(n int) ([]float64, bool) {
	if m.opts.Keyframe == "" {
		return nil, false
	}
	a := m.qadr
	m.qadr += n
	if m.qadr > len(m.qpos) {
		return nil, false
	}
	return m.qpos[a:m.qadr], true
}

func (m *mjcf) keyframe(root *xnode, name string) error {
	var names []string
	for _, k := range root.children {
		if k.name != "keyframe" {
			continue
		}
		for _, key := range k.children {
			n, _ := key.attr("name")
			if key.name == "key" && n != "" && len(names) < 20 {
				names = append(names, strconv.Quote(clip(n)))
			}
			if key.name == "key" && n == name {
				s, _ := key.attr("qpos")
				q, err := m.floats(key, "qpos", s, 0)
				if err != nil {
					return err
				}
				m.qpos, m.keyNode = q, key
				if s, ok := key.attr("ctrl"); ok {
					if m.ctrl, err = m.floats(key, "ctrl", s, 0); err != nil {
						return err
					}
				}
				if v, ok := key.attr("qvel"); ok && strings.Trim(v, " \t\n0.") != "" {
					m.warnOnce("qvel", key, "keyframe qvel ignored: the model starts at rest")
				}
				return nil
			}
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: keyframe %q not found: the model has no named <key>", m.file, clip(name))
	}
	return fmt.Errorf("%s: keyframe %q not found (the model's: %s)", m.file, clip(name), strings.Join(names, ", "))
}

// rangeOf reads the range of a joint or tendon and whether it applies:
// given, and limited true or auto (MuJoCo's autolimits).
func (m *mjcf) rangeOf(e elem) ([]float64, bool, error) {
	r, hasRange, err := m.efloats(e, "range", 2)
	if err != nil {
		return nil, false, err
	}
	limited := hasRange
	if l, ok := e.get("limited"); ok && l != "auto" {
		limited = l == "true"
	}
	return r, limited && hasRange, nil
}

// jointOptions maps range, frictionloss and the unsupported dynamics of
// an MJCF joint; q0 is the built pose's qpos (the keyframe's, or ref) and
// shift = qpos − θ, the offset of gorigid's coordinate θ (q0 for a slide,
// 0 for a hinge, whose angle is qpos). A start pose outside the range is
// warned, naming the joint, its qpos and the range.
func (m *mjcf) jointOptions(e elem, js *JointSpec, typ string, q0, shift float64) error {
	r, limited, err := m.rangeOf(e)
	if err != nil {
		return err
	}
	if limited {
		lo, hi := r[0], r[1]
		if typ != "slide" {
			lo, hi = m.angle(lo), m.angle(hi)
		}
		if lo > hi {
			return m.errAt(e.xnode, "range: lower %v > upper %v", r[0], r[1])
		}
		switch typ {
		case "ball":
			// MuJoCo limits the ball's whole rotation angle θ to range[1]
			// (range[0] unused). gorigid's cone (swing s ≤ R about the
			// joint's axis) and twist (|t| ≤ R) hold every rotation with
			// θ ≤ R, as cos(θ/2) = cos(s/2) cos(t/2), and let through some
			// with θ up to 2 acos(cos²(R/2)).
			if hi > 0 && hi < math.Pi {
				js.Swing = &SwingSpec{Axis: js.Axis, Angle: hi}
				js.Twist = &TwistSpec{Axis: js.Axis, Lower: -hi, Upper: hi}
				m.warnOnce("ballrange", e.xnode, "ball joint range %v rad: a swing cone of that angle about the joint's axis and twist limits of ± that angle, where MuJoCo limits the whole rotation angle (rotations of up to %.3g rad pass; measured from the built pose)", hi, 2*math.Acos(math.Pow(math.Cos(hi/2), 2)))
			} else if hi >= math.Pi {
				m.warnOnce("ballwide", e.xnode, "ball joint range %v rad ≥ π: no limit", hi)
			} else {
				return m.errAt(e.xnode, "range: a ball joint's upper range must be > 0, got %v", r[1])
			}
		default:
			if q0 < lo || q0 > hi {
				m.warnStartOutside(e.xnode, js.Name, typ, q0, lo, hi)
			}
			js.Limits = &LimitsSpec{Lower: lo - shift, Upper: hi - shift}
		}
	}
	if typ == "ball" {
		js.Axis = mgl64.Vec3{}
	}
	// damping, stiffness (rest springref) and armature: the hinge's or
	// slider's implicit spring-damper row and added inertia, as MuJoCo's
	// (which also integrates them implicitly).
	var dyn [3]float64
	for i, k := range []string{"damping", "stiffness", "armature"} {
		v, err := m.efloat(e, k, 0)
		if err != nil {
			return err
		}
		if v < 0 {
			return m.errAt(e.xnode, "%s: must be ≥ 0, got %v", k, v)
		}
		if v != 0 && typ == "ball" {
			m.warnOnce("ball:"+k, e.xnode, "ball joint %s ignored (%v): gorigid's spring, damper and armature act on a hinge's or slider's coordinate", k, v)
			v = 0
		}
		dyn[i] = v
	}
	if dyn[0] != 0 || dyn[1] != 0 {
		ref, err := m.efloat(e, "springref", 0)
		if err != nil {
			return err
		}
		if typ == "hinge" {
			ref = m.angle(ref)
		}
		js.Spring = &SpringSpec{Damping: dyn[0], Stiffness: dyn[1], Rest: ref - shift}
	}
	js.Armature = dyn[2]
	f, err := m.efloat(e, "frictionloss", 0)
	if err != nil {
		return err
	}
	if f < 0 {
		return m.errAt(e.xnode, "frictionloss: must be ≥ 0, got %v", f)
	}
	if f > 0 {
		if typ == "ball" {
			m.warnOnce("ballfriction", e.xnode, "ball joint frictionloss ignored: gorigid's ball joint has no friction")
		} else {
			js.Friction = f
			m.warnOnce("joint:frictionloss", e.xnode, "joint frictionloss %v is rigid Coulomb friction in gorigid: a joint comes to rest where the friction stops it, up to frictionloss/kp from the equilibrium of a servo or spring of stiffness kp, where MuJoCo's soft friction creeps on to it", f)
		}
	}
	for _, k := range []string{"solreflimit", "solimplimit", "solreffriction", "solimpfriction"} {
		if _, ok := e.get(k); ok {
			m.warnOnce("joint:sol", e.xnode, "joint %s ignored: gorigid's limits are rigid unilateral constraints", k)
		}
	}
	return nil
}

func (m *mjcf) inertial(n *xnode, g *mjGroup, rel transform) error {
	e := elem{n, nil}
	t, err := m.frame(e)
	if err != nil {
		return err
	}
	mass, err := m.efloat(e, "mass", math.NaN())
	if err != nil {
		return err
	}
	if !(mass > 0) {
		return m.errAt(n, "mass: must be given and > 0 kg")
	}
	var I mgl64.Mat3
	if d, ok, err := m.efloats(e, "diaginertia", 3); err != nil {
		return err
	} else if ok {
		I = mgl64.Diag3(mgl64.Vec3{d[0], d[1], d[2]})
	} else if f, ok, err := m.efloats(e, "fullinertia", 6); err != nil {
		return err
	} else if ok {
		// MuJoCo's order: ixx iyy izz ixy ixz iyz.
		I = mgl64.Mat3{f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]}
	} else {
		return m.errAt(n, "give diaginertia or fullinertia")
	}
	if t.Rot != identity.Rot {
		I = rotateInertia(t.Rot, I)
	}
	part := massPart{m: mass, com: t.Pos, I: I}
	if rel != identity {
		part.com = rel.point(part.com)
		part.I = rotateInertia(rel.Rot, part.I)
	}
	g.parts = append(g.parts, part)
	return nil
}

var mjcfGeomTypes = []string{"plane", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "hfield", "sdf"}

// geom reads a geom of g at rel; inert says its body gives <inertial>
// (then, as MuJoCo's inertiafromgeom="auto", the geom adds no mass).
func (m *mjcf) geom(n *xnode, g *mjGroup, rel transform, class string, inert bool) error {
	e, err := m.resolve(n, class)
	if err != nil {
		return err
	}
	// A geom whose group is outside the compiler's inertiagrouprange
	// gives no mass, as if its body had an <inertial>.
	group, err := m.efloat(e, "group", 0)
	if err != nil {
		return err
	}
	if group < m.inertiaGroups[0] || group > m.inertiaGroups[1] {
		inert = true
	}
	typ, ok := e.get("type")
	if !ok {
		typ = "sphere"
	}
	name, _ := n.attr("name")
	known := false
	for _, t := range mjcfGeomTypes {
		known = known || t == typ
	}
	if !known {
		return m.errAt(n, "type: %q is not a geom type (want %s)", clip(typ), strings.Join(mjcfGeomTypes, ", "))
	}
	switch typ {
	case "sdf":
		m.warnOnce("geom:"+typ, n, "%s geom %q skipped: not available in gorigid", typ, clip(name))
		return nil
	}
	size, _, err := m.efloats(e, "size", 0)
	if err != nil {
		return err
	}
	sh, hull, pose, err := m.geomShape(n, e, g, rel, typ, size)
	if err != nil {
		return err
	}
	// Material and contact filtering.
	if sh.Material, err = m.geomMaterial(n, e); err != nil {
		return err
	}
	cat, mask, collides, err := m.geomFilter(n, e)
	if err != nil {
		return err
	}
	// The raw contype and conaffinity; mapFilters turns them into
	// gorigid's category and mask once every geom is read.
	sh.Category, sh.Mask = cat, mask
	if typ == "mesh" && hull == nil {
		// The file is missing or unreadable: an error where the geom
		// matters, unless SkipMissingMeshes.
		a, _ := m.meshAssetOf(e)
		why := m.meshMiss[a.file]
		if !collides && (inert || g.static) {
			if !slices.Contains(m.visualMiss, a.file) {
				m.visualMiss = append(m.visualMiss, a.file)
			}
			if m.visualNode == nil {
				m.visualNode = n
			}
			return nil
		}
		role := "collides"
		if !collides {
			role = "gives its body mass (the body has no <inertial>)"
		}
		if !m.opts.SkipMissingMeshes {
			return m.errAt(n, "mesh file %q %s, and the geom %s: give the mesh files, or import with ImportOptions.SkipMissingMeshes to leave the geom out", clipPath(a.file), why, role)
		}
		m.warnOnce("meshfile:"+a.file, n, "mesh file %q %s: the geom, which %s, is left out (SkipMissingMeshes): it adds no mass and does not collide", clipPath(a.file), why, role)
		if !collides {
			return nil
		}
	} else if err := m.geomMass(n, e, g, &sh, hull, pose, typ, size, inert); err != nil {
		return err
	}
	if typ == "plane" && !g.static {
		return m.errAt(n, "a plane geom must be in the worldbody or a static body")
	}
	if typ == "mesh" {
		if collides {
			file := ""
			if hull != nil {
				file = hull.file
			}
			a, _ := m.meshAssetOf(e)
			g.meshes = append(g.meshes, pendingMesh{node: n, file: a.file, geom: MeshGeom{Name: name, File: file, Scale: a.scale,
				Pos: sh.Pos, Rot: sh.Rot, Material: sh.Material, Category: sh.Category, Mask: sh.Mask}})
		}
		return nil
	}
	if collides {
		g.shapes = append(g.shapes, sh)
	}
	return nil
}

// geomShape returns the shape of geom n of type typ and sizes size
// (fromto and frame resolved, the pose relative to its body's frame rel),
// the mesh's convex hull of a mesh geom, and the geom's pose in rel's
// frame.
func (m *mjcf) geomShape(n *xnode, e elem, g *mjGroup, rel transform, typ string, size []float64) (sh ShapeSpec, hull *meshHull, pose transform, err error) {
	at := func(i int) float64 { return sizeAt(size, i) }
	t, err := m.frame(e)
	if err != nil {
		return ShapeSpec{}, nil, transform{}, err
	}
	ft, hasFT, err := m.efloats(e, "fromto", 6)
	if err != nil {
		return ShapeSpec{}, nil, transform{}, err
	}
	var half float64
	if hasFT {
		a, b := mgl64.Vec3{ft[0], ft[1], ft[2]}, mgl64.Vec3{ft[3], ft[4], ft[5]}
		d := b.Sub(a)
		if d.Len() == 0 {
			return ShapeSpec{}, nil, transform{}, m.errAt(n, "fromto: the two points must differ")
		}
		if typ != "capsule" && typ != "cylinder" && typ != "box" {
			return ShapeSpec{}, nil, transform{}, m.errAt(n, "fromto: only for capsule, cylinder and box, not %s", typ)
		}
		t = transform{Pos: a.Add(b).Mul(0.5), Rot: zQuat(d.Normalize())}
		half = d.Len() / 2
	} else {
		half = at(1)
	}
	need := func(i int, what string) error {
		if !(at(i) > 0) {
			return m.errAt(n, "size: the %s (size[%d]) must be > 0 m for a %s, got %v", what, i, typ, at(i))
		}
		return nil
	}
	switch typ {
	case "mesh":
		if hull, err = m.meshGeom(e); err != nil {
			return ShapeSpec{}, nil, transform{}, err
		}
	case "plane":
		sh.Type = contact.Plane
	case "hfield":
		err = m.hfieldGeom(e, n, g.static, &sh)
	case "sphere":
		sh.Type = contact.Sphere
		err = need(0, "radius")
		sh.Radius = at(0)
	case "ellipsoid":
		for i := 0; i < 3 && err == nil; i++ {
			err = need(i, "semi-axis")
		}
		if err == nil {
			sh.Type, sh.Points = contact.Convex, ellipsoidPoints(mgl64.Vec3{at(0), at(1), at(2)})
			m.warnOnce("geom:ellipsoid", n, "ellipsoid geoms collide as the convex hull of %d points on the ellipsoid (an inscribed polyhedron, within %.1f %% of each semi-axis); their mass and inertia are the ellipsoid's", len(sh.Points), 100*ellipsoidGap)
		}
	case "capsule", "cylinder":
		sh.Type = contact.Capsule
		if typ == "cylinder" {
			sh.Type = contact.Cylinder
		}
		err = need(0, "radius")
		if err == nil && !hasFT {
			err = need(1, "half-length")
		}
		sh.Radius, sh.Length = at(0), 2*half
	case "box":
		sh.Type = contact.Box
		for i := 0; i < 2 && err == nil; i++ {
			err = need(i, "half-side")
		}
		if err == nil && !hasFT {
			err = need(2, "half-side")
		}
		z := at(2)
		if hasFT {
			z = half
		}
		sh.Size = mgl64.Vec3{2 * at(0), 2 * at(1), 2 * z}
	}
	if err != nil {
		return ShapeSpec{}, nil, transform{}, err
	}
	pose = rel.then(t)
	sh.Pos, sh.Rot = pose.Pos, pose.Rot
	if sh.Rot == identity.Rot {
		sh.Rot = mgl64.Quat{}
	}
	return sh, hull, pose, nil
}

// sizeAt is size[i], 0 beyond the given sizes.
func sizeAt(size []float64, i int) float64 {
	if i < len(size) {
		return size[i]
	}
	return 0
}

// geomMaterial returns geom n's material: MJCF's sliding friction, with
// warnings for what gorigid's rigid contacts do not import.
func (m *mjcf) geomMaterial(n *xnode, e elem) (stepper.Material, error) {
	// MJCF's friction is up to three numbers: sliding, torsional and
	// rolling (default 1 0.005 0.0001); gorigid's contacts take the
	// sliding one.
	fr := 1.0
	if fs, ok, err := m.efloats(e, "friction", 0); err != nil {
		return stepper.Material{}, err
	} else if ok {
		if len(fs) < 1 || len(fs) > 3 {
			return stepper.Material{}, m.errAt(n, "friction: want 1 to 3 numbers (sliding, torsional, rolling), got %d", len(fs))
		}
		for _, f := range fs {
			if f < 0 {
				return stepper.Material{}, m.errAt(n, "friction: must be ≥ 0, got %v", fs)
			}
		}
		fr = fs[0]
		if len(fs) > 1 {
			m.warnOnce("friction:spin", n, "geom friction %v: the torsional and rolling coefficients are not imported (gorigid's contacts have sliding friction only)", fs)
		}
	}
	if cd, ok := e.get("condim"); ok && cd != "3" {
		m.warnOnce("condim", n, "condim %s imported as 3 (sliding friction with the geom's coefficient): gorigid has no per-geom contact dimension (MuJoCo gives a pair the larger condim of its two geoms, and has torsional and rolling friction for 4 and 6)", clip(cd))
	}
	if m.friction == 0 {
		m.friction = fr
	} else if fr != m.friction {
		m.warnOnce("frictionmix", n, "geoms with different friction (%v and %v): gorigid combines a pair's coefficients by their geometric mean, MuJoCo takes the larger", m.friction, fr)
	}
	for _, k := range []string{"solref", "solimp", "solmix", "margin", "gap", "priority"} {
		if _, ok := e.get(k); ok {
			m.warnOnce("geom:"+k, n, "geom %s ignored: gorigid's contacts are rigid complementarity constraints (no MuJoCo soft-contact impedance), with its own contact margin", k)
		}
	}
	return stepper.Material{Friction: fr}, nil
}

// geomFilter returns geom n's contact category and mask (contype and
// conaffinity) and whether it collides with anything.
func (m *mjcf) geomFilter(n *xnode, e elem) (cat, mask uint32, collides bool, err error) {
	ct, err := m.efloat(e, "contype", 1)
	if err != nil {
		return 0, 0, false, err
	}
	ca, err := m.efloat(e, "conaffinity", 1)
	if err != nil {
		return 0, 0, false, err
	}
	bits := func(v float64, what string) (uint32, error) {
		if v < 0 || v > math.MaxUint32 || v != math.Trunc(v) {
			return 0, m.errAt(n, "%s: want an integer 0 to 4294967295, got %v", what, v)
		}
		return uint32(v), nil
	}
	if cat, err = bits(ct, "contype"); err != nil {
		return 0, 0, false, err
	}
	mask, err = bits(ca, "conaffinity")
	if err != nil {
		return 0, 0, false, err
	}
	return cat, mask, cat != 0 || mask != 0, nil
}

// mjFilter is a geom's contype and conaffinity.
type mjFilter struct{ contype, conaffinity uint32 }

// meets reports whether MuJoCo lets geoms of filters a and b collide:
// either one's contype meets the other's conaffinity.
func (a mjFilter) meets(b mjFilter) bool {
	return a.contype&b.conaffinity != 0 || b.contype&a.conaffinity != 0
}

// mapFilters turns the raw contype and conaffinity that geom left in
// each shape's Category and Mask into gorigid's category and mask. When
// gorigid's rule (both ways) on the raw bits agrees with MuJoCo's (either
// way) for every pair of combinations in the model, the raw bits stay
// (contype = conaffinity = 1 as gorigid's default, 0 and 0); otherwise,
// for up to 32 combinations, combination k gets category bit k and the
// mask of the combinations it meets, so that gorigid's filter passes a
// pair exactly when MuJoCo's does. Shapes that meet nothing are dropped.
func (m *mjcf) mapFilters(spec *SceneSpec) {
	lists := []*[]ShapeSpec{&spec.WorldShapes}
	for i := range spec.Bodies {
		lists = append(lists, &spec.Bodies[i].Shapes)
	}
	var classes []mjFilter
	index := map[mjFilter]int{}
	for _, l := range lists {
		for _, sh := range *l {
			f := mjFilter{sh.Category, sh.Mask}
			if _, ok := index[f]; !ok {
				index[f] = len(classes)
				classes = append(classes, f)
			}
		}
	}
	agree := true
	for _, a := range classes {
		for _, b := range classes {
			both := a.contype&b.conaffinity != 0 && b.contype&a.conaffinity != 0
			agree = agree && both == a.meets(b)
		}
	}
	bits := make([]mjFilter, len(classes)) // gorigid's category and mask per class
	switch {
	case agree || len(classes) > 32:
		if !agree {
			m.warnOnce("contype", m.rootNode, "%d contype/conaffinity combinations: more than gorigid's 32 category bits can sort as MuJoCo does (either way), so category = contype and mask = conaffinity, and two geoms collide only when both ways meet", len(classes))
		}
		for k, c := range classes {
			bits[k] = c
			if c == (mjFilter{1, 1}) {
				bits[k] = mjFilter{}
			}
		}
	default:
		for k, a := range classes {
			bits[k].contype = 1 << k
			for l, b := range classes {
				if a.meets(b) {
					bits[k].conaffinity |= 1 << l
				}
			}
		}
	}
	for _, l := range lists {
		kept := (*l)[:0]
		for _, sh := range *l {
			b := bits[index[mjFilter{sh.Category, sh.Mask}]]
			if (b != mjFilter{}) && (b.contype == 0 || b.conaffinity == 0) {
				continue // meets nothing (gorigid reads 0 as a default)
			}
			sh.Category, sh.Mask = b.contype, b.conaffinity
			kept = append(kept, sh)
		}
		*l = kept
	}
}

// geomMass adds geom n's mass, centre of mass and inertia to g's parts
// (from mass, or density times the volume of sh, hull or the ellipsoid of
// semi-axes size) unless the body has an <inertial> (inert) or is static.
func (m *mjcf) geomMass(n *xnode, e elem, g *mjGroup, sh *ShapeSpec, hull *meshHull, pose transform, typ string, size []float64, inert bool) error {
	if typ != "plane" && !g.static {
		vol, _ := sh.volume(1)
		if hull != nil {
			vol = hull.volume
		}
		if typ == "ellipsoid" {
			vol = 4 * math.Pi / 3 * sizeAt(size, 0) * sizeAt(size, 1) * sizeAt(size, 2)
		}
		gm, hasMass, err := m.efloats(e, "mass", 1)
		if err != nil {
			return err
		}
		mass := 0.0
		if hasMass {
			mass = gm[0]
		} else {
			dens, err := m.efloat(e, "density", mjcfDensity)
			if err != nil {
				return err
			}
			mass = dens * vol
		}
		if mass < 0 {
			return m.errAt(n, "mass: must be ≥ 0 kg, got %v", mass)
		}
		if !inert && mass > 0 {
			com, I := sh.Pos, mgl64.Mat3{}
			switch {
			case hull != nil && hull.volume > 0:
				com = pose.point(hull.com)
				I = hull.inertia.Mul(mass / hull.volume)
			case typ == "ellipsoid":
				a2, b2, c2 := sizeAt(size, 0)*sizeAt(size, 0), sizeAt(size, 1)*sizeAt(size, 1), sizeAt(size, 2)*sizeAt(size, 2)
				I = mgl64.Diag3(mgl64.Vec3{b2 + c2, a2 + c2, a2 + b2}.Mul(mass / 5))
			case hull == nil:
				_, I = sh.volume(mass)
			}
			g.parts = append(g.parts, massPart{m: mass, com: com, I: rotateInertia(pose.Rot, I)})
		}
	}
	return nil
}

// meshHull is a mesh asset's convex hull at unit density, in the mesh
// file's coordinates (scaled).
type meshHull struct {
	file    string
	volume  float64
	com     mgl64.Vec3
	inertia mgl64.Mat3 // about com, for density 1
}

type meshAsset struct {
	node  *xnode
	file  string
	scale mgl64.Vec3
}

// meshAssetOf returns the asset a mesh geom names.
func (m *mjcf) meshAssetOf(e elem) (meshAsset, error) {
	name, _ := e.get("mesh")
	a, ok := m.meshAssets[name]
	if !ok {
		return a, m.errAt(e.xnode, "mesh: %q is not a mesh asset", clip(name))
	}
	return a, nil
}

// meshGeom loads the mesh of a mesh geom and returns its convex hull's
// mass properties (MuJoCo collides a mesh as its convex hull); a file
// that cannot be read is a warning and gives nil.
func (m *mjcf) meshGeom(e elem) (*meshHull, error) {
	a, err := m.meshAssetOf(e)
	if err != nil {
		return nil, err
	}
	if h, ok := m.hulls[a.file]; ok {
		return h, nil
	}
	path, found := resolveMesh(filepath.Join(m.meshdir, a.file), m.dir, m.opts.SearchPath)
	if !found {
		m.meshMiss[a.file] = "not found in the model's directory (meshdir " + strconv.Quote(m.meshdir) + ") or the search path"
		m.hulls[a.file] = nil
		return nil, nil
	}
	h, err := loadHull(path, a.scale)
	if err != nil {
		m.meshMiss[a.file] = err.Error()
	}
	m.hulls[a.file] = h
	return h, nil
}

// contact reads <contact>: exclude pairs; explicit pairs are not imported.
func (m *mjcf) contact(n *xnode) error {
	for _, c := range n.children {
		switch c.name {
		case "exclude":
			b1, _ := c.attr("body1")
			b2, _ := c.attr("body2")
			o1, ok1 := m.ownerOf[b1]
			o2, ok2 := m.ownerOf[b2]
			if !ok1 || !ok2 {
				bad := b1
				if ok1 {
					bad = b2
				}
				return m.errAt(c, "body %q does not exist", clip(bad))
			}
			if o1 == o2 {
				continue // one gorigid body: never collides with itself
			}
			m.spec.Exclude = append(m.spec.Exclude, ExcludeSpec{A: o1, B: o2})
		default:
			m.warnOnce("contact:"+c.name, c, "contact <%s> ignored: gorigid collides geoms by their category and mask bits only", c.name)
		}
	}
	return nil
}

// actuators maps <actuator>: velocity actuators become velocity motors
// at target 0 (the input's initial value); position actuators, and
// <general> ones whose affine bias makes them the same PD law, become
// position servos (gear g: kp g², kv g², force bound |g|·forcerange) whose
// target is the keyframe's ctrl (0 without one), clamped to ctrlrange as
// MuJoCo clamps ctrl; motor actuators leave the joint at zero input, as
// MuJoCo's at ctrl = 0, for a Go controller to drive through
// stepper.Effort. First is the index of n's first actuator among all the
// model's (the keyframe's ctrl has one number each); actuators returns
// the index after n's last.
func (m *mjcf) actuators(n *xnode, first int) (int, error) {
	idxAct := first
	for _, c := range n.children {
		ctrl := 0.0
		if idxAct < len(m.ctrl) {
			ctrl = m.ctrl[idxAct]
		}
		idxAct++
		if m.noActuate {
			continue
		}
		e, err := m.resolve(c, "main")
		if err != nil {
			return 0, err
		}
		jn, ok := e.get("joint")
		if !ok {
			name, _ := c.attr("name")
			on := "no joint"
			for _, k := range []string{"tendon", "site", "body", "jointinparent", "cranksite"} {
				if v, ok := e.get(k); ok {
					on = fmt.Sprintf("%s %q", k, clip(v))
					break
				}
			}
			m.warnOnce("act:target", c, "<%s> actuator %q on %s not imported (and any others not on a joint): gorigid's actuators drive one joint; drive the joints from Go with stepper.Effort", c.name, clip(name), on)
			continue
		}
		idx, ok := m.jointIdx[jn]
		if !ok {
			return 0, m.errAt(c, "joint %q does not exist or is a free joint", clip(jn))
		}
		if cr, ok, err := m.efloats(e, "ctrlrange", 2); err != nil {
			return 0, err
		} else if ok && limitedAttr(e, "ctrllimited", true) {
			ctrl = math.Max(cr[0], math.Min(cr[1], ctrl))
		}
		if ctrl != 0 && (c.name == "motor" || c.name == "velocity") {
			m.warnOnce("act:ctrl", c, "the keyframe's ctrl for a <%s> actuator is not imported: it starts at zero input", c.name)
		}
		switch c.name {
		case "motor":
			m.warnOnce("act:motor", c, "motor actuators start at zero input, as MuJoCo's at ctrl = 0: drive the joint (found by name) from Go with stepper.Effort, Input = gear·ctrl")
		case "velocity":
			js := &m.spec.Joints[idx]
			if js.Type != JointHinge && js.Type != JointPrismatic {
				return 0, m.errAt(c, "joint %q: a velocity actuator needs a hinge or slide joint", clip(jn))
			}
			maxF := math.Inf(1)
			if fr, ok, err := m.efloats(e, "forcerange", 2); err != nil {
				return 0, err
			} else if ok && limitedAttr(e, "forcelimited", true) {
				maxF = math.Max(math.Abs(fr[0]), math.Abs(fr[1]))
			}
			js.Motor = &MotorSpec{Speed: 0, MaxForce: maxF}
			m.warnOnce("act:velocity", c, "velocity actuators become gorigid velocity motors at target 0 within the force range: a rigid servo, where MuJoCo's applies kv·(ctrl − q̇)")
		case "position":
			kp, err := m.efloat(e, "kp", 1)
			if err != nil {
				return 0, err
			}
			kv, err := m.efloat(e, "kv", 0)
			if err != nil {
				return 0, err
			}
			if err := m.servo(c, e, idx, kp, kv, 0, ctrl); err != nil {
				return 0, err
			}
			m.warnOnce("act:position", c, "position actuators become gorigid position servos (implicit PD rows) at the keyframe's ctrl (0 without one): move the target from Go with the joint's SetServoTarget")
		case "general":
			kp, kv, b0, ok, err := m.generalServo(e)
			if err != nil {
				return 0, err
			}
			if !ok {
				m.warnOnce("act:general", c, "<general> actuator not imported (the joint is unactuated): only dyntype none, gaintype fixed and biastype affine with biasprm = (b0, −gainprm[0], −kv) is a PD servo gorigid has")
				continue
			}
			if err := m.servo(c, e, idx, kp, kv, b0, ctrl); err != nil {
				return 0, err
			}
			m.warnOnce("act:position", c, "position actuators become gorigid position servos (implicit PD rows) at the keyframe's ctrl (0 without one): move the target from Go with the joint's SetServoTarget")
		default:
			m.warnOnce("act:"+c.name, c, "actuator <%s> not imported: the joint is unactuated", c.name)
		}
	}
	return idxAct, nil
}

// generalServo reads a <general> actuator and reports whether it is a
// PD servo: dyntype none, gaintype fixed with gain kp = gainprm[0] > 0,
// biastype affine with biasprm = (b0, −kp, −kv), kv ≥ 0. Its force is
// then kp·ctrl + b0 − kp·l − kv·l̇ = kp (ctrl + b0/kp − l) − kv l̇ on the
// actuator length l (MuJoCo's gain and bias, mjGAIN_FIXED and
// mjBIAS_AFFINE).
func (m *mjcf) generalServo(e elem) (kp, kv, b0 float64, ok bool, err error) {
	if v, has := e.get("dyntype"); has && v != "none" {
		return 0, 0, 0, false, nil
	}
	if v, has := e.get("gaintype"); has && v != "fixed" {
		return 0, 0, 0, false, nil
	}
	if v, _ := e.get("biastype"); v != "affine" {
		return 0, 0, 0, false, nil
	}
	gain, _, err := m.efloats(e, "gainprm", 0)
	if err != nil {
		return 0, 0, 0, false, err
	}
	bias, _, err := m.efloats(e, "biasprm", 0)
	if err != nil {
		return 0, 0, 0, false, err
	}
	at := func(v []float64, i int, def float64) float64 {
		if i < len(v) {
			return v[i]
		}
		return def
	}
	for i := 1; i < len(gain); i++ {
		if gain[i] != 0 {
			return 0, 0, 0, false, nil
		}
	}
	kp, b0, kv = at(gain, 0, 1), at(bias, 0, 0), -at(bias, 2, 0)
	if !(kp > 0) || at(bias, 1, 0) != -kp || kv < 0 {
		return 0, 0, 0, false, nil
	}
	return kp, kv, b0, true, nil
}

// servo puts a position servo on joint idx for an actuator of gain kp,
// damping kv and bias b0 at input ctrl: MuJoCo's force on the actuator
// is kp (ctrl + b0/kp − g q) − kv g q̇, g times it on the joint, so the
// joint's servo has kp g², kv g², target (ctrl + b0/kp)/g, measured from
// the keyframe pose q0 as the limits are, and force bound |g|·forcerange.
func (m *mjcf) servo(c *xnode, e elem, idx int, kp, kv, b0, ctrl float64) error {
	js := &m.spec.Joints[idx]
	if js.Type != JointHinge && js.Type != JointPrismatic {
		return m.errAt(c, "joint %q: a position actuator needs a hinge or slide joint", clip(js.Name))
	}
	g := 1.0
	if gs, ok, err := m.efloats(e, "gear", 1); err != nil {
		return err
	} else if ok {
		g = gs[0]
	}
	if !(kp > 0) || kv < 0 || g == 0 {
		return m.errAt(c, "position actuator: need kp > 0, kv ≥ 0 and gear ≠ 0, got kp %v, kv %v, gear %v", kp, kv, g)
	}
	maxF := math.Inf(1)
	if fr, ok, err := m.efloats(e, "forcerange", 2); err != nil {
		return err
	} else if ok && limitedAttr(e, "forcelimited", true) {
		maxF = math.Abs(g) * math.Max(math.Abs(fr[0]), math.Abs(fr[1]))
	}
	if maxF == 0 {
		maxF = math.Inf(1)
	}
	js.Servo = &ServoSpec{Target: (ctrl+b0/kp)/g - m.jointQ0[idx], Kp: kp * g * g, Kd: kv * g * g, MaxForce: maxF}
	return nil
}

// limitedAttr reads a MuJoCo true/false/auto flag; auto (or absent) is
// def (autolimits: a given range turns it on).
func limitedAttr(e elem, name string, def bool) bool {
	v, ok := e.get(name)
	if !ok || v == "auto" {
		return def
	}
	return v == "true"
}

// assets reads the mesh assets: name (default: the file's base name
// without extension), file and scale.
func (m *mjcf) assets(n *xnode) error {
	for _, a := range n.children {
		switch a.name {
		case "mesh":
			file, _ := a.attr("file")
			name, ok := a.attr("name")
			if !ok {
				base := filepath.Base(file)
				name = strings.TrimSuffix(base, filepath.Ext(base))
			}
			if file == "" {
				m.warnOnce("asset:meshdata", a, "mesh assets without a file (inline vertices) are not supported")
				continue
			}
			// The scale may come from the mesh's class (<default
			// class="X"><mesh scale="0.001 0.001 0.001"/>, menagerie's
			// millimetre meshes).
			e, err := m.resolve(a, "main")
			if err != nil {
				return err
			}
			sc := mgl64.Vec3{1, 1, 1}
			if v, ok, err := m.efloats(e, "scale", 3); err != nil {
				return err
			} else if ok {
				sc = mgl64.Vec3{v[0], v[1], v[2]}
			}
			if _, dup := m.meshAssets[name]; dup {
				return m.errAt(a, "mesh asset %q defined twice", clip(name))
			}
			m.meshAssets[name] = meshAsset{node: a, file: file, scale: sc}
		case "hfield":
			if err := m.hfieldAsset(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// ellipsoidLevel is the icosphere subdivision whose vertices, scaled by
// the semi-axes, stand for an MJCF ellipsoid: level 2, 162 points.
const ellipsoidLevel = 2

// ellipsoidGap bounds how far the inscribed hull of ellipsoidPoints
// falls inside the ellipsoid, as a fraction of the semi-axis along any
// direction: the unit icosphere of level 2 reaches a radius of at least
// 0.9822 between its vertices (its nearest face plane).
const ellipsoidGap = 0.0178

// ellipsoidPoints returns the vertices of the level-ellipsoidLevel
// icosphere of radius 1 scaled by the semi-axes r: points on the
// ellipsoid, symmetric about its centre, whose hull is the collision
// shape of an MJCF ellipsoid geom.
func ellipsoidPoints(r mgl64.Vec3) []mgl64.Vec3 {
	sph, err := mesh.Icosphere(ellipsoidLevel, 1)
	if err != nil {
		panic(err) // a fixed level and radius in range
	}
	pts := make([]mgl64.Vec3, len(sph.Vertices))
	for i, v := range sph.Vertices {
		pts[i] = mgl64.Vec3{v[0] * r[0], v[1] * r[1], v[2] * r[2]}
	}
	return pts
}
