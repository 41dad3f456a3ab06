package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/stepper"
)

// atomicFile is an output written under FILE.partial and renamed to FILE
// by commit, so a crash never leaves a truncated file under the final
// name. An interrupted run commits what it has: every row written stays.
type atomicFile struct {
	*bufio.Writer
	f     *os.File
	final string
}

// partialSuffix marks an output that is still being written (or whose run
// crashed).
const partialSuffix = ".partial"

// createAtomic opens path+".partial" for writing. flagName names the
// option in the error.
func createAtomic(flagName, path string) (*atomicFile, error) {
	f, err := os.Create(path + partialSuffix)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, usagef("%s: cannot create %s: %v", flagName, path, err)
	}
	return &atomicFile{Writer: bufio.NewWriterSize(f, 1<<16), f: f, final: path}, nil
}

// commit flushes, closes and renames the file to its final name.
func (a *atomicFile) commit() error {
	if a == nil || a.f == nil {
		return nil
	}
	err := a.Flush()
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), a.final)
	}
	a.f = nil
	return err
}

// abandon closes the file without renaming it (a crash or a failure before
// anything was written); remove also deletes it.
func (a *atomicFile) abandon(remove bool) {
	if a == nil || a.f == nil {
		return
	}
	_ = a.Flush()
	_ = a.f.Close()
	if remove {
		_ = os.Remove(a.f.Name())
	}
	a.f = nil
}

// writeFileAtomic writes data to path through path+".partial".
func writeFileAtomic(path string, data []byte) error {
	tmp := path + partialSuffix
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// appendFloat formats v exactly (the shortest decimal that round-trips,
// strconv 'g', -1), so output bits are deterministic.
func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

// appendJSONFloat is appendFloat with null for NaN and ±Inf, which JSON
// cannot hold.
func appendJSONFloat(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "null"...)
	}
	return appendFloat(b, v)
}

// trajectoryHeader is the trajectory CSV header of docs/formats.md.
const trajectoryHeader = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"

// statsHeader is the step-statistics CSV header of docs/formats.md.
const statsHeader = "step,time,rows,iterations,budget_hit,picked,err_energy,err_fb,err_residual,kinetic,potential,max_violation"

// trajectoryWriter records frames (the state of every body at one step).
type trajectoryWriter interface {
	frame(w *stepper.World) error
	// finish writes what closes the document (nothing for CSV).
	finish() error
}

// newTrajectoryWriter picks CSV or JSON by the file's extension.
func newTrajectoryWriter(out io.Writer, path string, w *stepper.World) (trajectoryWriter, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		c := &csvTrajectory{out: out}
		_, err := io.WriteString(out, trajectoryHeader+"\n")
		return c, err
	case ".json":
		return newJSONTrajectory(out, w)
	}
	return nil, usagef("--out: want a .csv or .json file, got %q", path)
}

// csvTrajectory writes one row per body per frame.
type csvTrajectory struct {
	out io.Writer
	buf []byte
}

func (c *csvTrajectory) frame(w *stepper.World) error {
	b := c.buf[:0]
	for i, bd := range w.Bodies {
		b = strconv.AppendInt(b, int64(w.Steps()), 10)
		b = append(b, ',')
		b = appendFloat(b, w.Time())
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(i), 10)
		for _, v := range [...]float64{
			bd.Pos[0], bd.Pos[1], bd.Pos[2],
			bd.Rot.W, bd.Rot.V[0], bd.Rot.V[1], bd.Rot.V[2],
			bd.Vel[0], bd.Vel[1], bd.Vel[2],
			bd.AngVel[0], bd.AngVel[1], bd.AngVel[2],
		} {
			b = append(b, ',')
			b = appendFloat(b, v)
		}
		b = append(b, '\n')
	}
	c.buf = b
	_, err := c.out.Write(b)
	return err
}

func (c *csvTrajectory) finish() error { return nil }

// jsonTrajectory streams
//
//	{"bodies":["link1",…],"dt":0.001,"frames":[
//	{"step":0,"time":0,"bodies":[{"x":[…],"q":[w,x,y,z],"v":[…],"w":[…]},…]},
//	…
//	]}
//
// one frame per line; finish closes the arrays.
type jsonTrajectory struct {
	out    io.Writer
	buf    []byte
	frames int
}

func newJSONTrajectory(out io.Writer, w *stepper.World) (*jsonTrajectory, error) {
	names := make([]string, len(w.Bodies))
	for i, b := range w.Bodies {
		names[i] = b.Name
	}
	nb, err := json.Marshal(names)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"bodies":`), nb...)
	b = append(b, `,"dt":`...)
	b = appendJSONFloat(b, w.Settings.H)
	b = append(b, `,"frames":[`...)
	_, err = out.Write(b)
	return &jsonTrajectory{out: out}, err
}

func (j *jsonTrajectory) frame(w *stepper.World) error {
	b := j.buf[:0]
	if j.frames > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{\"step\":"...)
	b = strconv.AppendInt(b, int64(w.Steps()), 10)
	b = append(b, `,"time":`...)
	b = appendJSONFloat(b, w.Time())
	b = append(b, `,"bodies":[`...)
	for i, bd := range w.Bodies {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"x":`...)
		b = appendJSONVec(b, bd.Pos[:]...)
		b = append(b, `,"q":`...)
		b = appendJSONVec(b, bd.Rot.W, bd.Rot.V[0], bd.Rot.V[1], bd.Rot.V[2])
		b = append(b, `,"v":`...)
		b = appendJSONVec(b, bd.Vel[:]...)
		b = append(b, `,"w":`...)
		b = appendJSONVec(b, bd.AngVel[:]...)
		b = append(b, '}')
	}
	b = append(b, "]}"...)
	j.buf = b
	j.frames++
	_, err := j.out.Write(b)
	return err
}

func appendJSONVec(b []byte, v ...float64) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONFloat(b, x)
	}
	return append(b, ']')
}

func (j *jsonTrajectory) finish() error {
	_, err := io.WriteString(j.out, "\n]}\n")
	return err
}

// statsRow appends one step-statistics CSV row.
func statsRow(b []byte, st *stepper.Stats) []byte {
	b = strconv.AppendInt(b, int64(st.Step), 10)
	b = append(b, ',')
	b = appendFloat(b, st.Time)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(st.Rows), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(st.Iterations), 10)
	if st.BudgetHit {
		b = append(b, ",1,"...)
	} else {
		b = append(b, ",0,"...)
	}
	b = strconv.AppendInt(b, int64(st.Picked), 10)
	for _, v := range [...]float64{st.Errors.Energy, st.Errors.FB, st.Errors.Residual, st.Kinetic, st.Potential, st.MaxViolation} {
		b = append(b, ',')
		b = appendFloat(b, v)
	}
	return append(b, '\n')
}

// interruptedError reports a run stopped by SIGINT or SIGTERM after its
// outputs were closed.
type interruptedError struct{ msg string }

func (e interruptedError) Error() string { return e.msg }

func interruptedf(format string, a ...any) error {
	return interruptedError{fmt.Sprintf(format, a...)}
}
