package trajectory

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/errmeasure"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// twoBodies is a world of two free bodies with states whose decimals are
// awkward (0.1 + 0.2, subnormals, −0, large exponents).
func twoBodies(t *testing.T) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity})
	require.NoError(t, err)
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	for i, p := range []body.Params{
		{Name: "a", Mass: 2, Inertia: body.SphereInertia(2, 0.1), Pos: mgl64.Vec3{0.1 + 0.2, -1e-300, 5e20}, Rot: q,
			Vel: mgl64.Vec3{1.0 / 3, math.Copysign(0, -1), 2}, AngVel: mgl64.Vec3{-7, 1e-5, math.Pi}},
		{Name: "b", Mass: 1, Inertia: body.SphereInertia(1, 0.1), Pos: mgl64.Vec3{1, 2, 3}, Rot: mgl64.QuatIdent()},
	} {
		b, err := body.New(p)
		require.NoError(t, err, "body %d", i)
		_, err = w.AddBody(b)
		require.NoError(t, err)
	}
	return w
}

func stateOf(b *body.Body) BodyState {
	return BodyState{Pos: [3]float64(b.Pos), Rot: [4]float64{b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]},
		Vel: [3]float64(b.Vel), AngVel: [3]float64(b.AngVel)}
}

// Frames written in either format read back bit for bit (the shortest
// decimal that round-trips), with the step, time and body names.
func TestTrajectoryRoundTrip(t *testing.T) {
	for _, f := range []Format{CSV, JSON} {
		t.Run(f.String(), func(t *testing.T) {
			w := twoBodies(t)
			var buf bytes.Buffer
			tw, err := NewWriter(&buf, f, w)
			require.NoError(t, err)
			var want []Frame
			for k := 0; k < 4; k++ {
				if k > 0 {
					_, err := w.Step()
					require.NoError(t, err)
				}
				require.NoError(t, tw.WriteFrame(w))
				fr := Frame{Step: int64(w.Steps()), Time: w.Time()}
				for _, b := range w.Bodies {
					fr.Bodies = append(fr.Bodies, stateOf(b))
				}
				want = append(want, fr)
			}
			require.NoError(t, tw.Close())
			assert.Equal(t, 4, tw.Frames())
			r, err := NewReader(bytes.NewReader(buf.Bytes()), f)
			require.NoError(t, err)
			got, err := r.ReadAll()
			require.NoError(t, err)
			require.Len(t, got, 4)
			for k := range want {
				assert.Equal(t, want[k].Step, got[k].Step)
				assert.Equal(t, math.Float64bits(want[k].Time), math.Float64bits(got[k].Time), "frame %d time", k)
				for i := range want[k].Bodies {
					for j, v := range flat(want[k].Bodies[i]) {
						assert.Equal(t, math.Float64bits(v), math.Float64bits(flat(got[k].Bodies[i])[j]), "frame %d body %d number %d", k, i, j)
					}
				}
			}
			assert.Equal(t, 2, r.Bodies())
			assert.Empty(t, r.Dropped())
			if f == JSON {
				assert.Equal(t, []string{"a", "b"}, r.Names())
				assert.Equal(t, 1.0/60, r.DT())
			} else {
				assert.Nil(t, r.Names())
				assert.True(t, math.IsNaN(r.DT()))
			}
			_, err = r.Next()
			assert.Equal(t, io.EOF, err, "EOF stays")
		})
	}
}

func flat(s BodyState) []float64 {
	return append(append(append(append([]float64(nil), s.Pos[:]...), s.Rot[:]...), s.Vel[:]...), s.AngVel[:]...)
}

// A non-finite number survives CSV as NaN/±Inf and JSON as null (NaN).
func TestTrajectoryNonFinite(t *testing.T) {
	w := twoBodies(t)
	w.Bodies[1].Vel = mgl64.Vec3{math.Inf(1), math.Inf(-1), math.NaN()}
	for _, f := range []Format{CSV, JSON} {
		var buf bytes.Buffer
		tw, err := NewWriter(&buf, f, w)
		require.NoError(t, err)
		require.NoError(t, tw.WriteFrame(w))
		require.NoError(t, tw.Close())
		r, err := NewReader(&buf, f)
		require.NoError(t, err)
		fr, err := r.Next()
		require.NoError(t, err, f)
		v := fr.Bodies[1].Vel
		if f == CSV {
			assert.True(t, math.IsInf(v[0], 1) && math.IsInf(v[1], -1) && math.IsNaN(v[2]), "%v", v)
		} else {
			assert.True(t, math.IsNaN(v[0]) && math.IsNaN(v[1]) && math.IsNaN(v[2]), "null reads as NaN: %v", v)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func readCSV(s string) (*Reader, []Frame, error) {
	r, err := NewReader(strings.NewReader(s), CSV)
	if err != nil {
		return nil, nil, err
	}
	all, err := r.ReadAll()
	return r, all, err
}

func steps(fr []Frame) []int64 {
	var s []int64
	for _, f := range fr {
		s = append(s, f.Step)
	}
	return s
}

func TestReadCSVErrors(t *testing.T) {
	h := Header + "\n"
	row := func(step, body int) string {
		return itoa(step) + ",0," + itoa(body) + ",1,2,3,1,0,0,0,0,0,0,0,0,0\n"
	}
	ok := h + row(0, 0) + row(0, 1) + row(1, 0) + row(1, 1)
	r, fr, err := readCSV(ok)
	require.NoError(t, err)
	assert.Equal(t, 2, r.Bodies())
	assert.Equal(t, []int64{0, 1}, steps(fr))
	r, fr, err = readCSV(h + row(0, 0) + row(1, 0) + row(2, 0))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Bodies())
	assert.Equal(t, []int64{0, 1, 2}, steps(fr))
	r, fr, err = readCSV(h + row(0, 0) + row(0, 1))
	require.NoError(t, err)
	assert.Equal(t, 2, r.Bodies(), "a single frame")
	assert.Len(t, fr, 1)
	_, fr, err = readCSV(h)
	require.NoError(t, err)
	assert.Empty(t, fr, "a header alone has no frames")

	for name, tc := range map[string]struct{ in, want string }{
		"empty":       {"", "empty file"},
		"header":      {"step,time\n", "line 1: header"},
		"fields":      {h + "0,0,0,1\n", "line 2: 4 fields, want 16"},
		"step":        {h + strings.Replace(row(0, 0), "0,", "x,", 1), "line 2: step"},
		"number":      {h + strings.Replace(row(0, 0), ",1,2,", ",1,zz,", 1), `line 2: y: "zz" is not a number`},
		"first body":  {h + row(0, 1), "line 2: body 1, want body 0"},
		"body order":  {h + row(0, 0) + row(0, 2), "line 3: body 2, want body 1"},
		"mid frame":   {ok + row(2, 0) + row(3, 1), "line 7: step 3 inside the frame of step 2"},
		"cut":         {ok + row(2, 0), "the last frame (step 2) has 1 of 2 bodies"},
		"steps order": {h + row(3, 0) + row(1, 0), "line 3: step 1 after step 3"},
		"steps one":   {h + row(0, 0) + row(0, 1) + row(0, 0), "line 4: step 0 after step 0"},
	} {
		_, _, err := readCSV(tc.in)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

// A kill -9 cuts a CSV mid-line. The cut line is dropped (a cut number can
// still parse: 3.25 cut to 3.2), and with DropIncomplete (a .partial file)
// the incomplete last frame is dropped instead of failing.
func TestReadCSVCut(t *testing.T) {
	h := Header + "\n"
	row := func(step, body int) string {
		return itoa(step) + ",0," + itoa(body) + ",1,2,3.25,1,0,0,0,0,0,0,0,0,0\n"
	}
	whole := h + row(0, 0) + row(0, 1) + row(1, 0) + row(1, 1)
	cutRow := row(2, 0)[:len("2,0,0,1,2,3.2")] // z = 3.25 cut to 3.2

	r, fr, err := readCSV(whole + cutRow)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1}, steps(fr))
	assert.Equal(t, "the cut line 6", r.Dropped())
	_, _, err = readCSV(whole + row(2, 0) + cutRow)
	assert.ErrorContains(t, err, "the last frame (step 2) has 1 of 2 bodies")

	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv"+PartialSuffix)
	require.NoError(t, os.WriteFile(p, []byte(whole+row(2, 0)+row(2, 1)[:10]), 0o644))
	f, err := Open(p)
	require.NoError(t, err)
	defer f.Close()
	fr, err = f.ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1}, steps(fr))
	assert.Equal(t, "the cut line 7 and the incomplete frame of step 2", f.Dropped())
	for _, x := range fr {
		for _, b := range x.Bodies {
			assert.Equal(t, 3.25, b.Pos[2], "z of every kept row")
		}
	}
	_, err = Open(filepath.Join(dir, "t.json"+PartialSuffix))
	assert.ErrorContains(t, err, "a cut JSON file cannot be read")
	_, err = Open(filepath.Join(dir, "t.txt"))
	assert.ErrorContains(t, err, `want a .csv or .json trajectory, got "`)
	_, err = Open(filepath.Join(dir, "missing.csv"))
	assert.ErrorContains(t, err, "missing.csv: no such file or directory")
}

func TestReadJSONErrors(t *testing.T) {
	fr := func(step int, bodies string) string {
		return `{"step":` + itoa(step) + `,"time":0,"bodies":[` + bodies + `]}`
	}
	b := `{"x":[1,2,3],"q":[1,0,0,0],"v":[4,5,6],"w":[7,8,9]}`
	r, err := NewReader(strings.NewReader(`{"bodies":["a"],"dt":0.1,"extra":{"k":[1]},"frames":[`+fr(0, b)+`,`+fr(1, `{"x":[null,2,3],"q":[1,0,0,0]}`)+`],"after":1}`), JSON)
	require.NoError(t, err)
	all, err := r.ReadAll()
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, [3]float64{4, 5, 6}, all[0].Bodies[0].Vel)
	assert.True(t, math.IsNaN(all[1].Bodies[0].Pos[0]), "null reads as NaN")
	assert.True(t, math.IsNaN(all[1].Bodies[0].Vel[0]), "a missing v reads as NaN, not the last frame's")
	// Names after the frames are read too.
	r, err = NewReader(strings.NewReader(`{"frames":[`+fr(0, b)+`],"bodies":["z"]}`), JSON)
	require.NoError(t, err)
	_, err = r.ReadAll()
	require.NoError(t, err)
	assert.Equal(t, []string{"z"}, r.Names())

	for name, tc := range map[string]struct{ in, want string }{
		"not object": {`[1]`, "the document"},
		"no frames":  {`{"bodies":[]}`, `no "frames"`},
		"bad frame":  {`{"frames":[{"step":"a"}]}`, "frames[0]"},
		"no time":    {`{"frames":[{"step":0,"bodies":[]}]}`, "frames[0].time: missing"},
		"x length":   {`{"frames":[` + fr(0, `{"x":[1,2],"q":[1,0,0,0]}`) + `]}`, "frames[0].bodies[0].x: 2 numbers"},
		"v length":   {`{"frames":[` + fr(0, `{"x":[1,2,3],"q":[1,0,0,0],"v":[1]}`) + `]}`, "frames[0].bodies[0].v: 1 numbers, want 3"},
		"bodies":     {`{"frames":[` + fr(0, b) + `,` + fr(1, b+","+b) + `]}`, "frames[1].bodies: 2 bodies, frames[0] has 1"},
		"names":      {`{"bodies":["a","b"],"frames":[` + fr(0, b) + `]}`, "bodies names 2 bodies, frames have 1"},
		"cut":        {`{"bodies":["a"],"frames":[` + fr(0, b), "EOF"},
		"steps":      {`{"frames":[` + fr(1, b) + `,` + fr(1, b) + `]}`, "frames[1].step: 1 after 1"},
	} {
		r, err := NewReader(strings.NewReader(tc.in), JSON)
		if err == nil {
			_, err = r.ReadAll()
		}
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

// Statistics rows read back column by column with the values of Stats,
// the columns added at the end included.
func TestStatsRoundTrip(t *testing.T) {
	sts := []stepper.Stats{
		{Step: 1, Time: 1.0 / 60, Rows: 144, Iterations: 4, BudgetHit: true, Picked: 3,
			Errors: errmeasure.Totals{Energy: 9.9e-23, FB: 6.6e-11, Residual: 0.1 + 0.2}, Kinetic: 1.0 / 3, Potential: -27.468, MaxViolation: 2.8e-14,
			PreSolveIterations: 2, SeedSweeps: 13, Projections: 1, ProjectionIterations: 5, Status: lcp.BudgetExhausted,
			EnergyAdded: -0.1 / 3},
		{Step: 7, Time: 7.0 / 60, Errors: errmeasure.Totals{Energy: math.Inf(1), FB: math.NaN()},
			EnergyAdded: 3450.25, ProjectionSkipped: stepper.ProjectionInconsistent},
	}
	var buf bytes.Buffer
	sw, err := NewStatsWriter(&buf)
	require.NoError(t, err)
	for i := range sts {
		require.NoError(t, sw.Write(&sts[i]))
	}
	assert.Equal(t, 2, sw.Rows())
	tab, err := ReadStats(&buf)
	require.NoError(t, err)
	assert.Equal(t, StatsColumns(), tab.Columns)
	require.Equal(t, 2, tab.Rows())
	col := func(name string) []float64 {
		c, ok := tab.Col(name)
		require.True(t, ok, name)
		return c
	}
	assert.Equal(t, []float64{1, 7}, col("step"))
	assert.Equal(t, []float64{1.0 / 60, 7.0 / 60}, col("time"))
	assert.Equal(t, []float64{144, 0}, col("rows"))
	assert.Equal(t, []float64{4, 0}, col("iterations"))
	assert.Equal(t, []float64{1, 0}, col("budget_hit"))
	assert.Equal(t, []float64{3, 0}, col("picked"))
	assert.Equal(t, 9.9e-23, col("err_energy")[0])
	assert.True(t, math.IsInf(col("err_energy")[1], 1))
	assert.True(t, math.IsNaN(col("err_fb")[1]))
	assert.Equal(t, 0.1+0.2, col("err_residual")[0])
	assert.Equal(t, 1.0/3, col("kinetic")[0])
	assert.Equal(t, -27.468, col("potential")[0])
	assert.Equal(t, 2.8e-14, col("max_violation")[0])
	assert.Equal(t, []float64{2, 0}, col("presolve_iterations"))
	assert.Equal(t, []float64{13, 0}, col("seed_sweeps"))
	assert.Equal(t, []float64{1, 0}, col("projections"))
	assert.Equal(t, []float64{5, 0}, col("projection_iterations"))
	assert.Equal(t, []float64{-0.1 / 3, 3450.25}, col("energy_added"))
	assert.Equal(t, []float64{0, float64(stepper.ProjectionInconsistent)}, col("projection_skipped"))
}

// A file of the twelve-column format (before the pre-solve columns) reads,
// without the new columns; a file with a column from a later writer reads
// it by name.
func TestReadStatsOlderAndNewerFiles(t *testing.T) {
	old := "step,time,rows,iterations,budget_hit,picked,err_energy,err_fb,err_residual,kinetic,potential,max_violation\n" +
		"1,0.01,5,1,0,1,0,0,0,0.5,-1,0\n2,0.02,5,2,0,2,0,0,0,0.6,-1.1,0\n"
	tab, err := ReadStats(strings.NewReader(old))
	require.NoError(t, err)
	assert.Equal(t, 2, tab.Rows())
	_, ok := tab.Col("presolve_iterations")
	assert.False(t, ok)
	_, ok = tab.Col("energy_added")
	assert.False(t, ok)
	it, ok := tab.Col("iterations")
	require.True(t, ok)
	assert.Equal(t, []float64{1, 2}, it)

	sixteen := "step,time,rows,iterations,budget_hit,picked,err_energy,err_fb,err_residual,kinetic,potential,max_violation," +
		"presolve_iterations,seed_sweeps,projections,projection_iterations\n" + "1,0.01,5,1,0,1,0,0,0,0.5,-1,0,2,0,1,4\n"
	tab, err = ReadStats(strings.NewReader(sixteen))
	require.NoError(t, err, "the sixteen-column format, before energy_added")
	pi, ok := tab.Col("projection_iterations")
	require.True(t, ok)
	assert.Equal(t, []float64{4}, pi)
	_, ok = tab.Col("projection_skipped")
	assert.False(t, ok)

	newer := StatsHeader + ",wall_ms\n" + "1,0.01,5,1,0,1,0,0,0,0.5,-1,0,0,0,0,0,-2.5,0,3.5\n"
	tab, err = ReadStats(strings.NewReader(newer))
	require.NoError(t, err)
	ms, ok := tab.Col("wall_ms")
	require.True(t, ok)
	assert.Equal(t, []float64{3.5}, ms)

	for name, tc := range map[string]struct{ in, want string }{
		"empty":    {"", "empty file"},
		"header":   {"step,time\n", "line 1: header"},
		"twice":    {StatsHeader + ",rows\n", `column "rows" given twice`},
		"unnamed":  {StatsHeader + ",\n", "column 19 has no name"},
		"fields":   {old + "3,0.03\n", "line 4: 2 fields, want 12"},
		"number":   {strings.Replace(old, "0.5", "half", 1), `line 2: kinetic: "half" is not a number`},
		"steps":    {old + "2,0.03,5,1,0,1,0,0,0,0,0,0\n", "line 4: step 2 after step 2"},
		"nan step": {old + "NaN,0.03,5,1,0,1,0,0,0,0,0,0\n", "steps must increase"},
	} {
		_, err := ReadStats(strings.NewReader(tc.in))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), tc.want, name)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.csv": CSV, "b.JSON": JSON, "dir.x/c.Csv": CSV} {
		f, err := FormatOf(path)
		require.NoError(t, err, path)
		assert.Equal(t, want, f, path)
	}
	_, err := FormatOf("t.txt")
	assert.EqualError(t, err, `want a .csv or .json file, got "t.txt"`)
}
