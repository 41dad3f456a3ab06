package bpmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/scigolib/hdf5"
)

// FormatVersion is written as the attribute "version" of /frames.
// Version 2 added joints/viscous (constraint.Row.Viscous); ReadFile reads
// version 1 files with it 0. Version 3 added solution/reference (the
// solve's proximal centre, Solution.Reference); ReadFile reads older
// files with it nil (x̄ = 0).
const FormatVersion = 3

// Writer writes frames to a new BPMD file. The file is built under
// PATH.partial and renamed to PATH by Close, so a reader never sees a
// half-written database; Abort removes it.
//
// The HDF5 library writes a file's metadata (its group tree) only on Close,
// so PATH.partial of a killed process holds no readable frame. Every frame
// is therefore also written, as a complete one-frame BPMD file renamed into
// place, to the journal directory PATH.partial.d (JournalSuffix); Close
// removes it. After a kill -9 the journal holds every frame whose
// WriteFrame returned, and ReadFile reads the directory like a file.
// Frames are not fsynced: they survive the death of the process, not of
// the machine.
type Writer struct {
	fw      *hdf5.FileWriter
	path    string
	tmp     string
	journal string // directory of one-frame files; "" for none
	frames  int
	last    int
	err     error
}

// JournalSuffix names the directory of one-frame files that a Writer for
// PATH keeps at PATH + JournalSuffix until Close.
const JournalSuffix = ".partial.d"

// Create starts a BPMD file at path (replacing it on Close), journaling
// every frame in path + JournalSuffix (a journal left by an earlier run is
// replaced).
func Create(path string) (*Writer, error) {
	journal := path + JournalSuffix
	if err := os.RemoveAll(journal); err != nil {
		return nil, fmt.Errorf("bpmd: create %s: %w", path, err)
	}
	if err := os.Mkdir(journal, 0o755); err != nil {
		return nil, fmt.Errorf("bpmd: create %s: %w", path, err)
	}
	w, err := createFile(path)
	if err != nil {
		os.RemoveAll(journal)
		return nil, err
	}
	w.journal = journal
	return w, nil
}

// createFile starts a BPMD file at path without a journal.
func createFile(path string) (*Writer, error) {
	tmp := path + ".partial"
	fw, err := hdf5.CreateForWrite(tmp, hdf5.CreateTruncate)
	if err != nil {
		return nil, fmt.Errorf("bpmd: create %s: %w", path, err)
	}
	w := &Writer{fw: fw, path: path, tmp: tmp, last: -1}
	g, err := fw.CreateGroup("/frames")
	if err == nil {
		err = g.WriteAttribute("format", "BPMD")
	}
	if err == nil {
		err = g.WriteAttribute("version", int64(FormatVersion))
	}
	if err == nil {
		err = g.WriteAttribute("generator", "gorigid")
	}
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("bpmd: create %s: %w", path, err)
	}
	return w, nil
}

// Frames returns how many frames were written.
func (w *Writer) Frames() int { return w.frames }

// WriteFrame validates f and appends it as /frames/NNNNNN, NNNNNN its
// Index; indices must increase from frame to frame.
func (w *Writer) WriteFrame(f *Frame) (err error) {
	if w.err != nil {
		return w.err
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("bpmd: frame %d: %w", f.Index, err)
	}
	if f.Index <= w.last {
		return fmt.Errorf("bpmd: frame %d: index must exceed the previous frame's %d", f.Index, w.last)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bpmd: frame %d: hdf5: %v", f.Index, r)
		}
		if err != nil {
			w.err = err
		}
	}()
	g := fmt.Sprintf("/frames/%06d", f.Index)
	e := &encoder{fw: w.fw}
	attrs := map[string]any{"index": int64(f.Index), "time": f.Time, "stabilization": f.Stabilization, "baumgarte": f.Baumgarte,
		"max_correcting_speed": f.MaxCorrectingSpeed}
	if f.JointCorrection != "" {
		attrs["joint_correction"] = f.JointCorrection
	}
	e.group(g, attrs)
	e.f64(g+"/step", []uint64{1}, []float64{f.H})
	e.f64(g+"/gravity", []uint64{3}, f.Gravity[:])

	b := &f.Bodies
	nb := uint64(len(b.IDs))
	e.group(g+"/bodies", map[string]any{"count": int64(nb)})
	e.i64(g+"/bodies/ids", []uint64{nb}, b.IDs)
	e.f64(g+"/bodies/masses", []uint64{nb}, b.Masses)
	e.f64(g+"/bodies/forces", []uint64{6 * nb, 1}, flat(b.Forces, f6))
	e.f64(g+"/bodies/inertia", []uint64{3 * nb, 3}, flat(b.Inertia, f9))
	e.f64(g+"/bodies/positions", []uint64{3 * nb, 1}, flat(b.Positions, f3))
	e.f64(g+"/bodies/quaternion", []uint64{4 * nb, 1}, flat(b.Quaternions, f4))
	e.f64(g+"/bodies/velocities", []uint64{6 * nb, 1}, flat(b.Velocities, f6))
	e.u8(g+"/bodies/static", []uint64{nb}, b.Static)
	e.f64(g+"/bodies/applied", []uint64{6 * nb, 1}, flat(b.Applied, f6))

	j := &f.Joints
	nj, r := uint64(len(j.Rows)), uint64(len(j.Violations))
	e.group(g+"/joints", map[string]any{"count": int64(nj), "row_count": int64(r)})
	e.i64(g+"/joints/rows", []uint64{nj, 3}, flat(j.Rows, i3))
	e.i64(g+"/joints/pairs", []uint64{nj, 2}, flat(j.Pairs, i2))
	e.f64(g+"/joints/violations", []uint64{r}, j.Violations)
	e.f64(g+"/joints/jacobians", []uint64{r, 6 * MaxBodies}, flat(j.Jacobians, fJ))
	e.f64(g+"/joints/bounds", []uint64{r, 2}, flat(j.Bounds, f2))
	e.i64(g+"/joints/row_bodies", []uint64{r, MaxBodies}, flat(j.RowBodies, iB))
	e.i64(g+"/joints/kinds", []uint64{r}, j.Kinds)
	e.f64(g+"/joints/stiffness", []uint64{r}, j.Stiffness)
	e.f64(g+"/joints/damping", []uint64{r}, j.Damping)
	e.f64(g+"/joints/speed", []uint64{r}, j.Speed)
	e.f64(g+"/joints/drift", []uint64{r}, j.Drift)
	e.f64(g+"/joints/viscous", []uint64{r}, j.Viscous)
	e.f64(g+"/joints/compliance", []uint64{r}, j.Compliance)

	c := &f.Contacts
	nc := uint64(len(c.Gap))
	e.group(g+"/contacts", map[string]any{"count": int64(nc)})
	e.f64(g+"/contacts/gap", []uint64{nc}, c.Gap)
	e.i64(g+"/contacts/pairs", []uint64{nc, 2}, flat(c.Pairs, i2))
	e.f64(g+"/contacts/mu", []uint64{nc, 2}, flat(c.Mu, f2))
	e.f64(g+"/contacts/normals", []uint64{nc, 3}, flat(c.Normals, f3))
	e.f64(g+"/contacts/points", []uint64{nc, 3}, flat(c.Points, f3))
	e.f64(g+"/contacts/points_world", []uint64{nc, 3}, flat(c.PointsWorld, f3))
	e.f64(g+"/contacts/xn", []uint64{nc}, c.XN)
	e.f64(g+"/contacts/directions", []uint64{nc, 3}, flat(c.Directions, f3))
	e.i64(g+"/contacts/rows", []uint64{nc, 2}, flat(c.RowIndex, i2))
	e.f64(g+"/contacts/roll", []uint64{nc}, c.Roll)
	e.f64(g+"/contacts/roll_axis", []uint64{nc, 3}, flat(c.RollAxis, f3))
	e.f64(g+"/contacts/roll_bound", []uint64{nc}, c.RollBound)
	e.f64(g+"/contacts/stiffness", []uint64{nc}, c.Stiffness)
	e.f64(g+"/contacts/damping", []uint64{nc}, c.Damping)
	e.f64(g+"/contacts/bounce", []uint64{nc}, c.Bounce)

	s := &f.Solution
	n, it := uint64(len(s.Z)), uint64(len(s.TotalError))
	e.group(g+"/solution", map[string]any{"count": int64(n), "iteration_count": int64(it),
		"status": s.Status, "solver": s.Solver, "pick": s.Pick})
	e.f64(g+"/solution/z", []uint64{n}, s.Z)
	e.i64(g+"/solution/iterations", []uint64{1}, []int64{int64(s.Iterations)})
	e.f64(g+"/solution/total_error", []uint64{it}, s.TotalError)
	e.f64(g+"/solution/normal_error", []uint64{it}, s.NormalError)
	e.f64(g+"/solution/friction_error", []uint64{it}, s.FrictionError)
	e.u8(g+"/solution/stick", []uint64{uint64(len(s.Stick))}, s.Stick)
	e.f64(g+"/solution/w", []uint64{uint64(len(s.W))}, s.W)
	e.f64(g+"/solution/reference", []uint64{uint64(len(s.Reference))}, s.Reference)
	e.i8(g+"/solution/states", []uint64{uint64(len(s.States))}, s.States)
	e.i64(g+"/solution/picked", []uint64{1}, []int64{int64(s.Picked)})
	e.f64(g+"/solution/fb_error", []uint64{it}, s.FB)
	e.f64(g+"/solution/residual_error", []uint64{it}, s.Residual)
	e.f64(g+"/solution/energy_error", []uint64{it}, s.Energy)
	if e.err != nil {
		return fmt.Errorf("bpmd: frame %d: %w", f.Index, e.err)
	}
	if w.journal != "" {
		// The one-frame file appears under its final name only once
		// complete (createFile builds it under .partial).
		jw, err := createFile(filepath.Join(w.journal, fmt.Sprintf("%09d.h5", f.Index)))
		if err != nil {
			return err
		}
		if err := jw.WriteFrame(f); err != nil {
			jw.Abort()
			return err
		}
		if err := jw.Close(); err != nil {
			return err
		}
	}
	w.frames++
	w.last = f.Index
	return nil
}

// Close finishes the file and renames it to its final path.
func (w *Writer) Close() error {
	if w.fw == nil {
		return errors.New("bpmd: writer already closed")
	}
	err := w.fw.Close()
	w.fw = nil
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("bpmd: close %s: %w", w.path, err)
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return fmt.Errorf("bpmd: %w", err)
	}
	if w.journal != "" {
		if err := os.RemoveAll(w.journal); err != nil {
			return fmt.Errorf("bpmd: %w", err)
		}
	}
	return nil
}

// Abort closes the file and removes it and its journal.
func (w *Writer) Abort() {
	if w.fw != nil {
		w.fw.Close()
		w.fw = nil
	}
	os.Remove(w.tmp)
	if w.journal != "" {
		os.RemoveAll(w.journal)
	}
}

// WriteFile writes frames to a new file at path (without a journal: the
// file appears complete or not at all).
func WriteFile(path string, frames []*Frame) error {
	w, err := createFile(path)
	if err != nil {
		return err
	}
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// encoder writes datasets and keeps the first error. A dataset with a
// zero dimension is not written: the library cannot create zero-sized
// dataspaces (see the package doc), so the group's "count" attributes tell
// a reader that it is empty.
type encoder struct {
	fw  *hdf5.FileWriter
	err error
}

func (e *encoder) group(path string, attrs map[string]any) {
	if e.err != nil {
		return
	}
	g, err := e.fw.CreateGroup(path)
	if err != nil {
		e.err = fmt.Errorf("%s: %w", path, err)
		return
	}
	for _, k := range sortedKeys(attrs) {
		if err := g.WriteAttribute(k, attrs[k]); err != nil {
			e.err = fmt.Errorf("%s: attribute %s: %w", path, k, err)
			return
		}
	}
}

func (e *encoder) write(path string, dt hdf5.Datatype, dims []uint64, data any) {
	if e.err != nil {
		return
	}
	for _, d := range dims {
		if d == 0 {
			return
		}
	}
	ds, err := e.fw.CreateDataset(path, dt, dims)
	if err == nil {
		err = ds.Write(data)
	}
	if err != nil {
		e.err = fmt.Errorf("%s: %w", path, err)
	}
}

func (e *encoder) f64(path string, dims []uint64, v []float64) { e.write(path, hdf5.Float64, dims, v) }
func (e *encoder) i64(path string, dims []uint64, v []int64)   { e.write(path, hdf5.Int64, dims, v) }
func (e *encoder) i8(path string, dims []uint64, v []int8)     { e.write(path, hdf5.Int8, dims, v) }
func (e *encoder) u8(path string, dims []uint64, v []bool) {
	u := make([]uint8, len(v))
	for i, b := range v {
		if b {
			u[i] = 1
		}
	}
	e.write(path, hdf5.Uint8, dims, u)
}

// flat returns the rows of s concatenated (row-major).
func flat[R any, T any](s []R, row func(*R) []T) []T {
	var out []T
	for i := range s {
		out = append(out, row(&s[i])...)
	}
	return out
}

func f2(r *[2]float64) []float64             { return r[:] }
func f3(r *[3]float64) []float64             { return r[:] }
func f4(r *[4]float64) []float64             { return r[:] }
func f6(r *[6]float64) []float64             { return r[:] }
func f9(r *[9]float64) []float64             { return r[:] }
func fJ(r *[6 * MaxBodies]float64) []float64 { return r[:] }
func i2(r *[2]int64) []int64                 { return r[:] }
func i3(r *[3]int64) []int64                 { return r[:] }
func iB(r *[MaxBodies]int64) []int64         { return r[:] }
