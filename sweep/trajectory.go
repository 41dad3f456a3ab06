package sweep

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// trajectoryHeader is the trajectory CSV header (one row per body per
// recorded step), the format `sim run --out FILE.csv` writes.
const trajectoryHeader = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"

// ReadTrajectory reads the rows of body from a trajectory CSV file
// (step,time,body,x,y,z,qw,qx,qy,qz,…; further columns are ignored, so
// any tool's file in this format will do) as planar frames: x, y and the
// angle about z of the quaternion, θ = 2 atan2(q_z, q_w), wrapped to
// (−π, π]. Steps must increase.
func ReadTrajectory(path string, body int) ([]Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := readTrajectory(f, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

func readTrajectory(r io.Reader, body int) ([]Frame, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("empty file, want the header %q", trajectoryHeader)
	}
	head := strings.Split(strings.TrimSpace(sc.Text()), ",")
	want := strings.Split(trajectoryHeader, ",")[:10]
	if len(head) < 10 || strings.Join(head[:10], ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("line 1: want a header starting %q, got %q", strings.Join(want, ","), sc.Text())
	}
	var out []Frame
	line := 1
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		c := strings.Split(t, ",")
		if len(c) < 10 {
			return nil, fmt.Errorf("line %d: want at least 10 columns, got %d", line, len(c))
		}
		b, err := strconv.Atoi(c[2])
		if err != nil {
			return nil, fmt.Errorf("line %d: body: want an integer, got %q", line, c[2])
		}
		if b != body {
			continue
		}
		step, err := strconv.Atoi(c[0])
		if err != nil || step < 0 {
			return nil, fmt.Errorf("line %d: step: want an integer ≥ 0, got %q", line, c[0])
		}
		var v [9]float64
		for k := range v {
			v[k], err = strconv.ParseFloat(c[k+1], 64)
			if err != nil || math.IsNaN(v[k]) || math.IsInf(v[k], 0) {
				return nil, fmt.Errorf("line %d: %s: want a finite number, got %q", line, strings.Split(trajectoryHeader, ",")[k+1], c[k+1])
			}
		}
		if n := len(out); n > 0 && step <= out[n-1].Step {
			return nil, fmt.Errorf("line %d: step: must increase, got %d after %d", line, step, out[n-1].Step)
		}
		out = append(out, Frame{Step: step, Time: v[0], Q: [3]float64{v[2], v[3], wrapAngle(2 * math.Atan2(v[8], v[5]))}})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rows of body %d", body)
	}
	return out, nil
}

// WriteTrajectory writes frames of one body as a trajectory CSV: z is
// height, the orientation the rotation by θ about z; the velocity columns
// are 0 (a measurement has poses only).
func WriteTrajectory(w io.Writer, body int, height float64, frames []Frame) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, trajectoryHeader)
	for _, f := range frames {
		s, c := math.Sincos(f.Q[2] / 2)
		row := []float64{f.Time, float64(body), f.Q[0], f.Q[1], height, c, 0, 0, s, 0, 0, 0, 0, 0, 0}
		bw.WriteString(strconv.Itoa(f.Step))
		for k, v := range row {
			bw.WriteByte(',')
			if k == 1 {
				bw.WriteString(strconv.Itoa(body))
				continue
			}
			bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
