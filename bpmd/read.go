package bpmd

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/scigolib/hdf5"
)

// ReadFile reads every frame of the BPMD file at path, in the order of
// their group names, and validates each. Errors name the file, the frame
// and the dataset. A corrupt or truncated file gives an error, never a
// panic: the HDF5 library's panics are recovered and reported.
//
// A directory is read as a Writer's journal (PATH.partial.d, left by a
// killed process): its *.h5 files in name order, their frames
// concatenated, indices increasing.
//
// Before the HDF5 library sees the file, every size it claims for a heap
// or a dataset is checked against the file size and DefaultMaxBytes (see
// ReadFileWith), so a corrupt size is an error, not an out-of-memory crash.
func ReadFile(path string) (frames []*Frame, err error) {
	return ReadFileWith(path, ReadOptions{})
}

// ReadFileWith is ReadFile with options.
func ReadFileWith(path string, o ReadOptions) (frames []*Frame, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("bpmd: %w", err)
	}
	if !st.IsDir() {
		return readFile(path, o.maxBytes())
	}
	names, err := filepath.Glob(filepath.Join(path, "*.h5"))
	if err != nil {
		return nil, fmt.Errorf("bpmd: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("bpmd: %s: a directory without frame files (*.h5)", path)
	}
	sort.Strings(names)
	for _, n := range names {
		fs, err := readFile(n, o.maxBytes())
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if len(frames) > 0 && f.Index <= frames[len(frames)-1].Index {
				return nil, fmt.Errorf("bpmd: %s: frame %d: index must exceed the previous frame's %d", n, f.Index, frames[len(frames)-1].Index)
			}
			frames = append(frames, f)
		}
	}
	return frames, nil
}

// readFile reads one BPMD file (see ReadFile); limit bounds every claimed
// size (ReadOptions.MaxBytes).
func readFile(path string, limit int64) (frames []*Frame, err error) {
	defer func() {
		if r := recover(); r != nil {
			frames, err = nil, fmt.Errorf("bpmd: %s: corrupt HDF5 file: %v", path, r)
		}
	}()
	size, err := openChecked(path, limit)
	if err != nil {
		return nil, fmt.Errorf("bpmd: %s: %w", path, err)
	}
	f, err := hdf5.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bpmd: %s: %w", path, err)
	}
	defer f.Close()
	d := &decoder{ds: map[string]*hdf5.Dataset{}, groups: map[string]*hdf5.Group{}, size: size, limit: limit}
	f.Walk(func(p string, o hdf5.Object) {
		switch v := o.(type) {
		case *hdf5.Dataset:
			d.ds[p] = v
		case *hdf5.Group:
			d.groups[strings.TrimSuffix(p, "/")] = v
		}
	})
	var names []string
	for p := range d.groups {
		if rest, ok := strings.CutPrefix(p, "/frames/"); ok && rest != "" && !strings.Contains(rest, "/") {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("bpmd: %s: no frames (want groups /frames/NAME)", path)
	}
	sort.Strings(names)
	for _, g := range names {
		fr, err := d.frame(g)
		if err != nil {
			return nil, fmt.Errorf("bpmd: %s: %s: %w", path, g, err)
		}
		if err := fr.Validate(); err != nil {
			return nil, fmt.Errorf("bpmd: %s: %s: %w", path, g, err)
		}
		frames = append(frames, fr)
	}
	return frames, nil
}

type decoder struct {
	ds     map[string]*hdf5.Dataset
	groups map[string]*hdf5.Group
	size   int64 // file size, bytes
	limit  int64 // ReadOptions.MaxBytes
	err    error
}

var (
	dimsRe = regexp.MustCompile(`\[([0-9 x]+)\]`)
	sizeRe = regexp.MustCompile(`size=([0-9]+) bytes`)
)

// maxExpansion bounds how many bytes a dataset of a chunked (possibly
// compressed) layout may claim per byte of file.
const maxExpansion = 1024

// shape returns the dataset's dimensions, parsed from the library's Info
// line ("Dataset: float (size=8 bytes), 2D array [3 x 4], contiguous …");
// a scalar has none. It refuses a dataset whose claimed size cannot be in
// a file of fileSize bytes: the library allocates the claimed size before
// reading, so a corrupt dimension would otherwise exhaust memory.
func shape(ds *hdf5.Dataset, fileSize, maxBytes int64) ([]int, error) {
	info, err := ds.Info()
	if err != nil {
		return nil, err
	}
	m := dimsRe.FindStringSubmatch(info)
	if m == nil {
		return nil, nil
	}
	var dims []int
	total := uint64(1)
	for _, s := range strings.Split(m[1], "x") {
		n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 40)
		if err != nil {
			return nil, fmt.Errorf("bad dimensions in %q", info)
		}
		dims = append(dims, int(n))
		total *= n
		if total > 1<<40 {
			return nil, fmt.Errorf("dimensions %v are too large", m[1])
		}
	}
	sm := sizeRe.FindStringSubmatch(info)
	if sm == nil {
		return nil, fmt.Errorf("no element size in %q", info)
	}
	elem, err := strconv.ParseUint(sm[1], 10, 20)
	if err != nil || elem == 0 {
		return nil, fmt.Errorf("bad element size in %q", info)
	}
	limit := uint64(fileSize)
	if !strings.Contains(info, "contiguous") && !strings.Contains(info, "compact") {
		limit *= maxExpansion
	}
	if total*elem > limit {
		return nil, fmt.Errorf("dataset claims %d bytes (shape [%s]), more than a %d-byte file can hold", total*elem, m[1], fileSize)
	}
	if total*elem > uint64(maxBytes) {
		return nil, fmt.Errorf("dataset claims %d bytes (shape [%s]), more than the limit of %d (ReadOptions.MaxBytes)", total*elem, m[1], maxBytes)
	}
	return dims, nil
}

// floats reads dataset path as rows × cols values. A missing dataset is
// empty (zero-sized datasets are not written); wantRows < 0 means any
// number of rows. The shape may be rows × cols, or stacked as Table 2
// does, (rows·cols/k) × k for a k that divides cols (inertia 3n_b × 3,
// positions 3n_b × 1), or flat rows·cols.
func (d *decoder) floats(path string, wantRows, cols int) []float64 {
	if d.err != nil {
		return nil
	}
	ds, ok := d.ds[path]
	if !ok {
		if wantRows > 0 {
			d.err = fmt.Errorf("%s: missing (want %d×%d)", base(path), wantRows, cols)
		}
		return nil
	}
	dims, err := shape(ds, d.size, d.limit)
	if err != nil {
		d.err = fmt.Errorf("%s: %w", base(path), err)
		return nil
	}
	v, err := ds.Read()
	if err != nil {
		d.err = fmt.Errorf("%s: %w", base(path), err)
		return nil
	}
	total := 1
	for _, n := range dims {
		total *= n
	}
	switch {
	case len(v) != total:
		d.err = fmt.Errorf("%s: read %d values from a dataset of shape %v", base(path), len(v), dims)
	case len(v)%cols != 0:
		d.err = fieldErr(base(path), dims, "has shape %v, want rows of %d", dims, cols)
	case wantRows >= 0 && len(v) != wantRows*cols:
		d.err = fieldErr(base(path), dims, "has shape %v, want %d×%d", dims, wantRows, cols)
	case len(dims) == 2 && (dims[1] == 0 || cols%dims[1] != 0):
		d.err = fieldErr(base(path), dims, "has shape %v, want %d columns", dims, cols)
	}
	if d.err != nil {
		return nil
	}
	return v
}

func base(p string) string {
	// "/frames/000001/bodies/ids" → "bodies/ids"
	parts := strings.Split(p, "/")
	if len(parts) >= 2 {
		return strings.Join(parts[len(parts)-2:], "/")
	}
	return p
}

func (d *decoder) ints(path string, wantRows, cols int) []int64 {
	v := d.floats(path, wantRows, cols)
	out := make([]int64, len(v))
	for i, x := range v {
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			if d.err == nil {
				d.err = fieldErr(fmt.Sprintf("%s[%d]", base(path), i), x, "want an integer, got %v", x)
			}
			return nil
		}
		out[i] = int64(x)
	}
	return out
}

func (d *decoder) bools(path string, wantRows int) []bool {
	v := d.ints(path, wantRows, 1)
	out := make([]bool, len(v))
	for i, x := range v {
		out[i] = x != 0
	}
	return out
}

func (d *decoder) scalar(path string, def float64) float64 {
	if _, ok := d.ds[path]; !ok {
		return def
	}
	v := d.floats(path, 1, 1)
	if len(v) != 1 {
		return def
	}
	return v[0]
}

// attrs returns group g's attributes (empty when it has none or is absent).
func (d *decoder) attrs(g string) map[string]any {
	out := map[string]any{}
	gr, ok := d.groups[g]
	if !ok {
		return out
	}
	as, err := gr.Attributes()
	if err != nil {
		return out
	}
	for _, a := range as {
		if v, err := a.ReadValue(); err == nil {
			out[a.Name] = v
		}
	}
	return out
}

func attrFloat(m map[string]any, k string, def float64) float64 {
	switch v := m[k].(type) {
	case float64:
		return v
	case float32:
		return float64(v)
	case int64:
		return float64(v)
	case int32:
		return float64(v)
	case []float64:
		if len(v) == 1 {
			return v[0]
		}
	case []int64:
		if len(v) == 1 {
			return float64(v[0])
		}
	}
	return def
}

func attrString(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return strings.TrimRight(v, "\x00 ")
	case []string:
		if len(v) == 1 {
			return strings.TrimRight(v[0], "\x00 ")
		}
	case []byte:
		return strings.TrimRight(string(v), "\x00 ")
	}
	return ""
}

func rows[R any](v []float64, cols int, set func(r *R, row []float64)) []R {
	out := make([]R, len(v)/cols)
	for i := range out {
		set(&out[i], v[i*cols:(i+1)*cols])
	}
	return out
}

func rowsI[R any](v []int64, cols int, set func(r *R, row []int64)) []R {
	out := make([]R, len(v)/cols)
	for i := range out {
		set(&out[i], v[i*cols:(i+1)*cols])
	}
	return out
}

func (d *decoder) frame(g string) (*Frame, error) {
	fa := d.attrs(g)
	f := &Frame{}
	idx := attrFloat(fa, "index", math.NaN())
	if math.IsNaN(idx) {
		n, err := strconv.Atoi(strings.TrimPrefix(g, "/frames/"))
		if err != nil {
			return nil, fmt.Errorf("attribute index: missing, and the group name is not a number")
		}
		idx = float64(n)
	}
	f.Index = int(idx)
	f.Time = attrFloat(fa, "time", 0)
	f.Stabilization = attrString(fa, "stabilization")
	if f.Stabilization == "" {
		f.Stabilization = "regularized"
	}
	f.Baumgarte = attrFloat(fa, "baumgarte", 0)
	f.MaxCorrectingSpeed = attrFloat(fa, "max_correcting_speed", 0)
	f.JointCorrection = attrString(fa, "joint_correction")
	f.H = d.scalar(g+"/step", math.NaN())
	if _, ok := d.ds[g+"/step"]; !ok && d.err == nil {
		return nil, fmt.Errorf("step: missing (the time step h)")
	}
	if gv := d.floats(g+"/gravity", -1, 3); len(gv) == 3 {
		copy(f.Gravity[:], gv)
	}

	d.bodies(g, f)
	d.joints(g, f)
	d.contacts(g, f)
	d.solution(g, f)
	nb, r, nc := len(f.Bodies.IDs), len(f.Joints.Violations), len(f.Contacts.Gap)
	j, n, it := &f.Joints, len(f.Solution.Z), len(f.Solution.TotalError)
	if d.err != nil {
		err := d.err
		d.err = nil
		return nil, err
	}
	// Cross-check the counts written as attributes, when present.
	for _, cc := range []struct {
		group, attr string
		n           int
	}{{"/bodies", "count", nb}, {"/joints", "row_count", r}, {"/joints", "count", len(j.Rows)}, {"/contacts", "count", nc}, {"/solution", "count", n}, {"/solution", "iteration_count", it}} {
		if v := attrFloat(d.attrs(g+cc.group), cc.attr, -1); v >= 0 && int(v) != cc.n {
			return nil, fieldErr(strings.TrimPrefix(cc.group, "/"), v, "attribute %s = %v, but the datasets hold %d", cc.attr, v, cc.n)
		}
	}
	return f, nil
}

// set3 and set6 copy a row read from a dataset into a fixed-size row.
func set3(r *[3]float64, v []float64) { copy(r[:], v) }
func set6(r *[6]float64, v []float64) { copy(r[:], v) }

// bodies reads group g's bodies into f (n_b from ids); a standard file's
// missing static flags and applied forces are derived (every body
// dynamic, f = F − m g).
func (d *decoder) bodies(g string, f *Frame) {
	// Bodies: n_b from ids.
	ids := d.ints(g+"/bodies/ids", -1, 1)
	nb := len(ids)
	b := &f.Bodies
	b.IDs = ids
	b.Masses = d.floats(g+"/bodies/masses", nb, 1)
	b.Forces = rows(d.floats(g+"/bodies/forces", nb, 6), 6, set6)
	b.Inertia = rows(d.floats(g+"/bodies/inertia", nb, 9), 9, func(r *[9]float64, v []float64) { copy(r[:], v) })
	b.Positions = rows(d.floats(g+"/bodies/positions", nb, 3), 3, set3)
	b.Quaternions = rows(d.floats(g+"/bodies/quaternion", nb, 4), 4, func(r *[4]float64, v []float64) { copy(r[:], v) })
	b.Velocities = rows(d.floats(g+"/bodies/velocities", nb, 6), 6, set6)
	if _, ok := d.ds[g+"/bodies/static"]; ok {
		b.Static = d.bools(g+"/bodies/static", nb)
	} else {
		b.Static = make([]bool, nb) // a standard file: every body dynamic
	}
	if _, ok := d.ds[g+"/bodies/applied"]; ok {
		b.Applied = rows(d.floats(g+"/bodies/applied", nb, 6), 6, set6)
	} else if d.err == nil {
		// A standard file: forces include gravity; recover f = F − m g.
		b.Applied = make([][6]float64, nb)
		for i := range b.Applied {
			b.Applied[i] = b.Forces[i]
			if !b.Static[i] {
				for k := 0; k < 3; k++ {
					b.Applied[i][k] -= b.Masses[i] * f.Gravity[k]
				}
			}
		}
	}
}

// joints reads group g's joint rows into f (R rows from violations).
func (d *decoder) joints(g string, f *Frame) {
	// Joints: R rows from violations.
	j := &f.Joints
	j.Violations = d.floats(g+"/joints/violations", -1, 1)
	r := len(j.Violations)
	j.Rows = rowsI(d.ints(g+"/joints/rows", -1, 3), 3, func(x *[3]int64, v []int64) { copy(x[:], v) })
	j.Pairs = rowsI(d.ints(g+"/joints/pairs", len(j.Rows), 2), 2, func(x *[2]int64, v []int64) { copy(x[:], v) })
	j.Jacobians = rows(d.floats(g+"/joints/jacobians", r, 6*MaxBodies), 6*MaxBodies, func(x *[6 * MaxBodies]float64, v []float64) { copy(x[:], v) })
	j.Bounds = rows(d.floats(g+"/joints/bounds", r, 2), 2, func(x *[2]float64, v []float64) { copy(x[:], v) })
	j.RowBodies = rowsI(d.ints(g+"/joints/row_bodies", r, MaxBodies), MaxBodies, func(x *[MaxBodies]int64, v []int64) { copy(x[:], v) })
	j.Kinds = d.ints(g+"/joints/kinds", r, 1)
	j.Stiffness = d.floats(g+"/joints/stiffness", r, 1)
	j.Damping = d.floats(g+"/joints/damping", r, 1)
	j.Speed = d.floats(g+"/joints/speed", r, 1)
	j.Compliance = d.floats(g+"/joints/compliance", r, 1)
	// A file without joints/drift has no drift.
	j.Drift = make([]float64, r)
	if _, ok := d.ds[g+"/joints/drift"]; ok {
		j.Drift = d.floats(g+"/joints/drift", r, 1)
	}
	// A file without joints/viscous (format version 1) has no damped
	// joint rows.
	j.Viscous = make([]float64, r)
	if _, ok := d.ds[g+"/joints/viscous"]; ok {
		j.Viscous = d.floats(g+"/joints/viscous", r, 1)
	}
}

// contacts reads group g's contact points into f (n_c from gap); a
// column missing from the file is empty, not nil.
func (d *decoder) contacts(g string, f *Frame) {
	j := &f.Joints
	// Contacts: n_c from gap.
	c := &f.Contacts
	c.Gap = d.floats(g+"/contacts/gap", -1, 1)
	nc := len(c.Gap)
	c.Pairs = rowsI(d.ints(g+"/contacts/pairs", nc, 2), 2, func(x *[2]int64, v []int64) { copy(x[:], v) })
	c.Mu = rows(d.floats(g+"/contacts/mu", nc, 2), 2, func(x *[2]float64, v []float64) { copy(x[:], v) })
	c.Normals = rows(d.floats(g+"/contacts/normals", nc, 3), 3, set3)
	c.Points = rows(d.floats(g+"/contacts/points", nc, 3), 3, set3)
	c.PointsWorld = rows(d.floats(g+"/contacts/points_world", nc, 3), 3, set3)
	c.XN = d.floats(g+"/contacts/xn", nc, 1)
	c.Directions = rows(d.floats(g+"/contacts/directions", nc, 3), 3, set3)
	c.RowIndex = rowsI(d.ints(g+"/contacts/rows", nc, 2), 2, func(x *[2]int64, v []int64) { copy(x[:], v) })
	c.Roll = d.floats(g+"/contacts/roll", nc, 1)
	c.RollAxis = rows(d.floats(g+"/contacts/roll_axis", nc, 3), 3, set3)
	c.RollBound = d.floats(g+"/contacts/roll_bound", nc, 1)
	// A file without contacts/stiffness has rigid contacts.
	c.Stiffness, c.Damping = make([]float64, nc), make([]float64, nc)
	if _, ok := d.ds[g+"/contacts/stiffness"]; ok {
		c.Stiffness = d.floats(g+"/contacts/stiffness", nc, 1)
		c.Damping = d.floats(g+"/contacts/damping", nc, 1)
	}
	// A file without contacts/bounce has no restitution targets.
	c.Bounce = make([]float64, nc)
	if _, ok := d.ds[g+"/contacts/bounce"]; ok {
		c.Bounce = d.floats(g+"/contacts/bounce", nc, 1)
	}
	for _, z := range []*[]float64{&j.Violations, &j.Stiffness, &j.Damping, &j.Speed, &j.Compliance, &j.Drift, &j.Viscous, &c.Gap, &c.XN, &c.Roll, &c.RollBound, &c.Bounce} {
		if *z == nil {
			*z = []float64{}
		}
	}
}

// solution reads group g's solution and error series into f.
func (d *decoder) solution(g string, f *Frame) {
	nc := len(f.Contacts.Gap)
	// Solution.
	s := &f.Solution
	sa := d.attrs(g + "/solution")
	s.Z = d.floats(g+"/solution/z", -1, 1)
	n := len(s.Z)
	s.W = d.floats(g+"/solution/w", n, 1)
	// A file without solution/reference (format version 2 and older, or
	// a solve from x̄ = 0) has no reference.
	if _, ok := d.ds[g+"/solution/reference"]; ok {
		s.Reference = d.floats(g+"/solution/reference", n, 1)
	}
	st := d.ints(g+"/solution/states", -1, 1)
	for _, x := range st {
		s.States = append(s.States, int8(max(min(x, 127), -128)))
	}
	s.Iterations = int(d.scalar(g+"/solution/iterations", 0))
	s.Picked = int(d.scalar(g+"/solution/picked", 0))
	s.TotalError = d.floats(g+"/solution/total_error", -1, 1)
	it := len(s.TotalError)
	s.NormalError = d.floats(g+"/solution/normal_error", it, 1)
	s.FrictionError = d.floats(g+"/solution/friction_error", it, 1)
	s.FB = d.floats(g+"/solution/fb_error", it, 1)
	s.Residual = d.floats(g+"/solution/residual_error", it, 1)
	s.Energy = d.floats(g+"/solution/energy_error", it, 1)
	if n > 0 {
		s.Stick = d.bools(g+"/solution/stick", nc)
	}
	s.Status = attrString(sa, "status")
	s.Solver = attrString(sa, "solver")
	s.Pick = attrString(sa, "pick")
}
