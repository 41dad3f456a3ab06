package trajectory

import (
	"encoding/json"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gorigid/gorigid/stepper"
)

// Header is the trajectory CSV header (docs/formats.md).
const Header = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"

// Format is a trajectory file format.
type Format int

// The trajectory formats.
const (
	CSV  Format = iota // one row per body per frame (Header)
	JSON               // {"bodies": [...], "dt": h, "frames": [...]}
)

func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case JSON:
		return "json"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatOf returns the format a file name asks for: CSV for .csv, JSON for
// .json (either case); any other extension is an error naming the path.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return CSV, nil
	case ".json":
		return JSON, nil
	}
	return 0, fmt.Errorf("want a .csv or .json file, got %q", path)
}

// Writer writes trajectory frames, the state of every body of a World at
// one step, in CSV or JSON. NewWriter writes the header (the CSV header
// line, or the JSON document's opening with the body names and the time
// step); WriteFrame writes one frame; Close writes what ends the document
// (nothing for CSV). Each frame is one Write on the underlying writer, so
// a file cut by a crash ends at a whole line except for that one Write.
// A Writer is not safe for concurrent use.
type Writer struct {
	out    io.Writer
	format Format
	buf    []byte
	frames int
	closed bool
}

// NewWriter returns a Writer of format f onto out for the bodies of w, and
// writes the header.
func NewWriter(out io.Writer, f Format, w *stepper.World) (*Writer, error) {
	if err := nilBody(w); err != nil {
		return nil, err
	}
	t := &Writer{out: out, format: f}
	switch f {
	case CSV:
		_, err := io.WriteString(out, Header+"\n")
		return t, err
	case JSON:
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
		return t, err
	}
	return nil, fmt.Errorf("trajectory: unknown format %d", int(f))
}

// nilBody returns an error naming the first nil body of w (an edit of
// World.Bodies that Step also refuses), which a frame cannot describe.
func nilBody(w *stepper.World) error {
	for i, b := range w.Bodies {
		if b == nil {
			return fmt.Errorf("body %d: is nil", i)
		}
	}
	return nil
}

// Format returns the writer's format.
func (t *Writer) Format() Format { return t.format }

// Frames returns the number of frames written.
func (t *Writer) Frames() int { return t.frames }

// WriteFrame writes the state of every body of w at its current step
// (World.Steps) and time.
func (t *Writer) WriteFrame(w *stepper.World) error {
	if t.closed {
		return fmt.Errorf("trajectory: WriteFrame after Close")
	}
	if err := nilBody(w); err != nil {
		return err
	}
	if t.format == JSON {
		t.buf = t.jsonFrame(t.buf[:0], w)
	} else {
		t.buf = csvFrame(t.buf[:0], w)
	}
	t.frames++
	_, err := t.out.Write(t.buf)
	return err
}

// Close writes the end of the document (the JSON arrays' and object's
// closing; nothing for CSV). It does not close the underlying writer.
func (t *Writer) Close() error {
	if t.closed {
		return nil
	}
	t.closed = true
	if t.format == JSON {
		_, err := io.WriteString(t.out, "\n]}\n")
		return err
	}
	return nil
}

func csvFrame(b []byte, w *stepper.World) []byte {
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
	return b
}

// jsonFrame appends one frame line:
//
//	{"step":0,"time":0,"bodies":[{"x":[…],"q":[w,x,y,z],"v":[…],"w":[…]},…]}
//
// preceded by a comma after the first frame.
func (t *Writer) jsonFrame(b []byte, w *stepper.World) []byte {
	if t.frames > 0 {
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
	return append(b, "]}"...)
}

// appendFloat formats v exactly (the shortest decimal that round-trips,
// strconv 'g', -1), so output bits are deterministic.
func appendFloat(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'g', -1, 64) }

// appendJSONFloat is appendFloat with null for NaN and ±Inf, which JSON
// cannot hold.
func appendJSONFloat(b []byte, v float64) []byte {
	if !num.Finite(v) {
		return append(b, "null"...)
	}
	return appendFloat(b, v)
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
