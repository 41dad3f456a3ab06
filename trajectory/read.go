package trajectory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BodyState is one body's state in a frame: the centre of mass Pos (m),
// the unit quaternion Rot = [w, x, y, z] (body → world), the velocity of
// the centre of mass Vel (m/s) and the angular velocity AngVel (rad/s),
// both in the world frame. A number the file holds as null (JSON, for a
// non-finite value) or does not hold (a JSON body without "v" or "w") is
// NaN.
type BodyState struct {
	Pos    [3]float64
	Rot    [4]float64
	Vel    [3]float64
	AngVel [3]float64
}

// Frame is the state of every body at one recorded step.
type Frame struct {
	Step   int64
	Time   float64 // s
	Bodies []BodyState
}

// Clone returns a copy of f that shares no memory with it.
func (f *Frame) Clone() Frame {
	c := *f
	c.Bodies = append([]BodyState(nil), f.Bodies...)
	return c
}

// PartialSuffix marks an output that is still being written, or whose run
// crashed (see RunFiles).
const PartialSuffix = ".partial"

// Reader reads a trajectory file one frame at a time, checking as it goes
// that steps increase and every frame has the same bodies (for CSV: rows
// of a frame share step and time and list bodies 0, 1, …, B−1 in order,
// B being the first frame's count). Errors name the line (CSV) or the
// JSON path and the field.
//
// A CSV file whose last line has no newline was cut by a crash or a kill
// (writers write whole lines): that line is dropped, since a cut number
// can still parse ("0.12345" cut to "0.12"), and Dropped says so. With
// DropIncomplete (the .partial file of a killed run), an incomplete last
// frame is dropped too, not an error. A cut JSON document is an error.
type Reader struct {
	// DropIncomplete, set before the first Next, drops an incomplete last
	// CSV frame instead of failing (Open sets it for FILE.partial).
	DropIncomplete bool

	format  Format
	bodies  int // −1 until known
	names   []string
	dt      float64
	dropped string
	done    bool
	frames  int

	out, cur Frame // the returned frame; the frame being filled (CSV)
	// CSV
	sc      *bufio.Scanner
	torn    bool
	line    int
	inFrame int  // rows read of cur
	pending bool // cur is a complete frame, to return next (one-body files)
	fields  [16]string
	// JSON
	dec     *json.Decoder
	jframe  jsonFrame
	lastSet bool
}

type jsonFrame struct {
	Step   *int64   `json:"step"`
	Time   *jsonNum `json:"time"`
	Bodies []struct {
		X []jsonNum `json:"x"`
		Q []jsonNum `json:"q"`
		V []jsonNum `json:"v"`
		W []jsonNum `json:"w"`
	} `json:"bodies"`
}

// NewReader returns a Reader of a trajectory in format f. It reads the CSV
// header, or the JSON document up to its "frames" array (the body names
// and the time step when they come first, as Writer writes them).
func NewReader(r io.Reader, f Format) (*Reader, error) {
	t := &Reader{format: f, bodies: -1, dt: math.NaN()}
	switch f {
	case CSV:
		t.sc = bufio.NewScanner(r)
		t.sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		t.sc.Split(scanWholeLines(&t.torn))
		if !t.sc.Scan() {
			if err := t.sc.Err(); err != nil {
				return nil, err
			}
			return nil, errors.New("empty file (want the header " + Header + ")")
		}
		t.line = 1
		if h := strings.TrimSpace(t.sc.Text()); h != Header {
			return nil, fmt.Errorf("line 1: header %q, want %q", truncate(h, 80), Header)
		}
		return t, nil
	case JSON:
		t.dec = json.NewDecoder(bufio.NewReaderSize(r, 1<<16))
		if err := expectDelim(t.dec, '{', "the document"); err != nil {
			return nil, err
		}
		found, err := t.jsonKeys(true)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errors.New(`no "frames" array`)
		}
		return t, nil
	}
	return nil, fmt.Errorf("trajectory: unknown format %d", int(f))
}

// Bodies returns the bodies per frame: known after the first frame (for
// JSON, from the body names when there is no frame), −1 before.
func (t *Reader) Bodies() int { return t.bodies }

// Names returns the body names of a JSON file (nil for CSV, which has
// none).
func (t *Reader) Names() []string { return t.names }

// DT returns the time step of a JSON file (s), NaN for CSV.
func (t *Reader) DT() float64 { return t.dt }

// Dropped says what a cut CSV file lost ("" if nothing): its torn last
// line, and with DropIncomplete the incomplete last frame. It is complete
// once Next has returned io.EOF.
func (t *Reader) Dropped() string { return t.dropped }

// Next returns the next frame, or io.EOF after the last one. The frame
// and its Bodies are the Reader's, overwritten by the next call (Clone
// keeps one).
func (t *Reader) Next() (*Frame, error) {
	if t.done {
		return nil, io.EOF
	}
	var err error
	if t.format == JSON {
		err = t.nextJSON()
	} else {
		err = t.nextCSV()
	}
	if err != nil {
		t.done = true
		return nil, err
	}
	t.frames++
	return &t.out, nil
}

// ReadAll reads every remaining frame into a new slice.
func (t *Reader) ReadAll() ([]Frame, error) {
	var all []Frame
	for {
		f, err := t.Next()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return nil, err
		}
		all = append(all, f.Clone())
	}
}

// File is a Reader of an open file; Close closes the file.
type File struct {
	*Reader
	f *os.File
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Open opens a trajectory file, CSV or JSON by its extension. FILE.csv.partial
// (left by a killed run) is read with DropIncomplete; a cut JSON file cannot
// be read, so FILE.json.partial is an error.
func Open(path string) (*File, error) {
	partial := strings.HasSuffix(path, PartialSuffix)
	ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(path, PartialSuffix)))
	if partial && ext != ".csv" {
		return nil, fmt.Errorf("want a .csv.partial trajectory (a cut JSON file cannot be read), got %q", path)
	}
	var f Format
	switch ext {
	case ".csv":
		f = CSV
	case ".json":
		f = JSON
	default:
		return nil, fmt.Errorf("want a .csv or .json trajectory, got %q", path)
	}
	fh, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("%s: %v", path, pe.Err)
		}
		return nil, err
	}
	r, err := NewReader(fh, f)
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.DropIncomplete = partial
	return &File{Reader: r, f: fh}, nil
}

// scanWholeLines is bufio.ScanLines without the final unterminated line;
// *torn reports whether there was one.
func scanWholeLines(torn *bool) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if atEOF && len(data) > 0 && bytes.IndexByte(data, '\n') < 0 {
			*torn = true
			return len(data), nil, nil
		}
		return bufio.ScanLines(data, atEOF)
	}
}

// nextCSV fills t.out with the next complete frame.
func (t *Reader) nextCSV() error {
	if t.pending {
		t.pending = false
		t.out, t.cur = t.cur, t.out
		return nil
	}
	names := strings.Split(Header, ",")
	for t.sc.Scan() {
		t.line++
		text := strings.TrimRight(t.sc.Text(), "\r")
		if text == "" {
			continue
		}
		if n := splitComma(text, t.fields[:]); n != len(t.fields) {
			return fmt.Errorf("line %d: %d fields, want %d", t.line, n, len(t.fields))
		}
		f := &t.fields
		step, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return fieldErr(fmt.Sprintf("line %d", t.line), "step", f[0], "%q is not an integer", truncate(f[0], 40))
		}
		tm, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			return fieldErr(fmt.Sprintf("line %d", t.line), "time", f[1], "%q is not a number", truncate(f[1], 40))
		}
		body, err := strconv.Atoi(f[2])
		if err != nil {
			return fieldErr(fmt.Sprintf("line %d", t.line), "body", f[2], "%q is not an integer", truncate(f[2], 40))
		}
		var v [13]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(f[3+k], 64); err != nil {
				return fieldErr(fmt.Sprintf("line %d", t.line), names[3+k], f[3+k], "%q is not a number", truncate(f[3+k], 40))
			}
		}
		emit := false
		if t.inFrame > 0 && t.bodies < 0 && body == 0 {
			// The first frame ended: it sets B, and this row starts the next.
			t.bodies, t.inFrame = t.inFrame, 0
			t.out, t.cur = t.cur, t.out
			t.lastSet = true
			emit = true
		}
		if t.inFrame == 0 { // a new frame
			if body != 0 {
				return fmt.Errorf("line %d: body %d, want body 0 (rows of a frame list bodies 0, 1, … in order)", t.line, body)
			}
			if t.lastSet && step <= t.out.Step {
				return fmt.Errorf("line %d: step %d after step %d: steps must increase", t.line, step, t.out.Step)
			}
			t.cur.Step, t.cur.Time, t.cur.Bodies = step, tm, t.cur.Bodies[:0]
		} else {
			if step != t.cur.Step {
				return fmt.Errorf("line %d: step %d inside the frame of step %d after %d bodies (a frame's rows share their step)", t.line, step, t.cur.Step, t.inFrame)
			}
			if body != t.inFrame {
				return fmt.Errorf("line %d: body %d, want body %d (rows of a frame list bodies 0, 1, … in order)", t.line, body, t.inFrame)
			}
		}
		t.cur.Bodies = append(t.cur.Bodies, BodyState{
			Pos: [3]float64{v[0], v[1], v[2]}, Rot: [4]float64{v[3], v[4], v[5], v[6]},
			Vel: [3]float64{v[7], v[8], v[9]}, AngVel: [3]float64{v[10], v[11], v[12]},
		})
		t.inFrame++
		if emit {
			if t.inFrame == t.bodies { // one body per frame: this row is a whole frame too
				t.inFrame = 0
				t.pending = true
			}
			return nil
		}
		if t.inFrame == t.bodies {
			t.inFrame = 0
			t.out, t.cur = t.cur, t.out
			t.lastSet = true
			return nil
		}
	}
	if err := t.sc.Err(); err != nil {
		return fmt.Errorf("line %d: %v", t.line+1, err)
	}
	if t.torn && !strings.HasPrefix(t.dropped, "the cut line") {
		t.dropped = fmt.Sprintf("the cut line %d", t.line+1)
	}
	if t.bodies < 0 && t.inFrame > 0 { // a single frame
		t.bodies, t.inFrame = t.inFrame, 0
		t.out, t.cur = t.cur, t.out
		t.lastSet = true
		return nil
	}
	if t.inFrame != 0 {
		if !t.DropIncomplete {
			return fmt.Errorf("the last frame (step %d) has %d of %d bodies (a cut file?)", t.cur.Step, t.inFrame, t.bodies)
		}
		t.dropped = strings.TrimPrefix(t.dropped+fmt.Sprintf(" and the incomplete frame of step %d", t.cur.Step), " and ")
		t.inFrame = 0
	}
	return io.EOF
}

// jsonNum is a float64 that reads JSON null (what writers write for a
// non-finite number) as NaN.
type jsonNum float64

func (n *jsonNum) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = jsonNum(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("%s is not a number", truncate(string(b), 40))
	}
	*n = jsonNum(v)
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("%s: want %q, got %v", what, string(want), tok)
	}
	return nil
}

// jsonKeys reads the document's keys: before the frames (before is true)
// up to and including the "frames" array's '[' (it reports whether it
// found it), or after the frames up to the closing '}'. "bodies" and "dt"
// are kept; other keys are skipped (a later writer's additions).
func (t *Reader) jsonKeys(before bool) (bool, error) {
	for t.dec.More() {
		tok, err := t.dec.Token()
		if err != nil {
			return false, err
		}
		key, _ := tok.(string)
		switch key {
		case "bodies":
			if err := t.dec.Decode(&t.names); err != nil {
				return false, fmt.Errorf("bodies: %v", err)
			}
		case "dt":
			var dt jsonNum
			if err := t.dec.Decode(&dt); err != nil {
				return false, fmt.Errorf("dt: %v", err)
			}
			t.dt = float64(dt)
		case "frames":
			if !before {
				return false, errors.New(`"frames" given twice`)
			}
			return true, expectDelim(t.dec, '[', "frames")
		default:
			var skip json.RawMessage
			if err := t.dec.Decode(&skip); err != nil {
				return false, fmt.Errorf("%s: %v", key, err)
			}
		}
	}
	return false, expectDelim(t.dec, '}', "the document")
}

// nextJSON decodes the next frame into t.out.
func (t *Reader) nextJSON() error {
	i := t.frames
	if !t.dec.More() {
		if err := expectDelim(t.dec, ']', "frames"); err != nil {
			return err
		}
		if _, err := t.jsonKeys(false); err != nil {
			return err
		}
		if t.names != nil && t.frames > 0 && len(t.names) != t.bodies {
			return fmt.Errorf("bodies names %d bodies, frames have %d", len(t.names), t.bodies)
		}
		if t.bodies < 0 {
			t.bodies = len(t.names)
		}
		return io.EOF
	}
	fr := &t.jframe
	// Zero the bodies decoded before: a body without "v" must not keep the
	// last frame's.
	clear(fr.Bodies[:cap(fr.Bodies)])
	fr.Step, fr.Time, fr.Bodies = nil, nil, fr.Bodies[:0]
	if err := t.dec.Decode(fr); err != nil {
		return fmt.Errorf("frames[%d]: %v", i, err)
	}
	switch {
	case fr.Step == nil:
		return fieldErr("", fmt.Sprintf("frames[%d].step", i), nil, "missing")
	case fr.Time == nil:
		return fieldErr("", fmt.Sprintf("frames[%d].time", i), nil, "missing")
	case t.bodies < 0:
		t.bodies = len(fr.Bodies)
		if t.names != nil && len(t.names) != t.bodies {
			return fmt.Errorf("bodies names %d bodies, frames have %d", len(t.names), t.bodies)
		}
	case len(fr.Bodies) != t.bodies:
		return fieldErr("", fmt.Sprintf("frames[%d].bodies", i), len(fr.Bodies), "%d bodies, frames[0] has %d", len(fr.Bodies), t.bodies)
	}
	if i > 0 && *fr.Step <= t.out.Step {
		return fieldErr("", fmt.Sprintf("frames[%d].step", i), *fr.Step, "%d after %d: steps must increase", *fr.Step, t.out.Step)
	}
	out := &t.out
	out.Step, out.Time, out.Bodies = *fr.Step, float64(*fr.Time), out.Bodies[:0]
	for j, b := range fr.Bodies {
		var s BodyState
		for _, v := range []struct {
			name string
			src  []jsonNum
			dst  []float64
			opt  bool
		}{{"x", b.X, s.Pos[:], false}, {"q", b.Q, s.Rot[:], false}, {"v", b.V, s.Vel[:], true}, {"w", b.W, s.AngVel[:], true}} {
			if v.opt && v.src == nil {
				for k := range v.dst {
					v.dst[k] = math.NaN()
				}
				continue
			}
			if len(v.src) != len(v.dst) {
				return fieldErr("", fmt.Sprintf("frames[%d].bodies[%d].%s", i, j, v.name), len(v.src), "%d numbers, want %d", len(v.src), len(v.dst))
			}
			for k, x := range v.src {
				v.dst[k] = float64(x)
			}
		}
		out.Bodies = append(out.Bodies, s)
	}
	return nil
}
