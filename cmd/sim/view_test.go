package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// viewRun runs scene for steps steps and writes trajectory (by the
// extension of trajName) and statistics into a temporary directory.
func viewRun(t *testing.T, scene string, steps int, trajName string) (dir, traj, stats string) {
	t.Helper()
	dir = t.TempDir()
	traj, stats = filepath.Join(dir, trajName), filepath.Join(dir, "stats.csv")
	_, stderr, code := runSim(t, "run", scene, "--steps", itoa(steps), "--out", traj, "--stats", stats, "--quiet")
	require.Equal(t, 0, code, stderr)
	return dir, traj, stats
}

func itoa(n int) string { return strconv.Itoa(n) }

func buildScene(t *testing.T, name string) *stepper.World {
	t.Helper()
	sc, err := scenes.Lookup(name)
	require.NoError(t, err)
	w, err := sc.Build(nil)
	require.NoError(t, err)
	return w
}

// newTestViewer loads a run of scene and serves it with httptest.
func newTestViewer(t *testing.T, scene string, steps int, withStats bool) (*viewer, *httptest.Server) {
	t.Helper()
	_, traj, stats := viewRun(t, scene, steps, "traj.csv")
	tr, err := loadTrajectory(traj)
	require.NoError(t, err)
	var st *statsTable
	if withStats {
		st, err = loadStats(stats)
		require.NoError(t, err)
	}
	v := newViewer(buildScene(t, scene), scene, "traj.csv", tr, st)
	srv := httptest.NewServer(v.handler(true))
	t.Cleanup(srv.Close)
	return v, srv
}

func getJSON(t *testing.T, url string, wantCode int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, wantCode, resp.StatusCode, string(body))
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	require.NoError(t, json.Unmarshal(body, v), string(body))
}

func TestViewSceneGeometry(t *testing.T) {
	_, srv := newTestViewer(t, "brickwall", 2, false)
	var sc viewSceneJSON
	getJSON(t, srv.URL+"/api/scene", 200, &sc)
	assert.Equal(t, "brickwall", sc.Name)
	require.Len(t, sc.Bodies, 30)
	require.Len(t, sc.Geoms, 31) // the ground plane and one box per brick
	assert.Equal(t, viewGeomJSON{Body: -1, Kind: "plane", Q: [4]float64{1, 0, 0, 0}}, sc.Geoms[0])
	for i, g := range sc.Geoms[1:] {
		assert.Equal(t, i, g.Body)
		assert.Equal(t, "box", g.Kind)
		// The default brick: 0.2 × 0.1 × 0.1 m.
		assert.Equal(t, &[3]float64{0.1, 0.05, 0.05}, g.Half)
		assert.Nil(t, sc.Bodies[i].Box, "a body with a geom gets no inertia box")
	}
	assert.Equal(t, [3]float64{0, 0, -9.81}, sc.Gravity)

	// The rod is a capsule along local z; the forklift has cylinders.
	_, srv = newTestViewer(t, "rod", 1, false)
	getJSON(t, srv.URL+"/api/scene", 200, &sc)
	require.Len(t, sc.Geoms, 2)
	assert.Equal(t, "capsule", sc.Geoms[1].Kind)
	assert.Equal(t, 0.01, sc.Geoms[1].Radius)
	assert.Equal(t, 0.75, sc.Geoms[1].HalfLength)

	_, srv = newTestViewer(t, "forklift", 1, false)
	getJSON(t, srv.URL+"/api/scene", 200, &sc)
	kinds := map[string]int{}
	for _, g := range sc.Geoms {
		kinds[g.Kind]++
		q := g.Q
		assert.InDelta(t, 1, q[0]*q[0]+q[1]*q[1]+q[2]*q[2]+q[3]*q[3], 1e-12, "unit quaternion")
	}
	assert.Positive(t, kinds["cylinder"])
	assert.Equal(t, 1, kinds["plane"])

	// The chain's links have no geoms: each gets its inertia box.
	_, srv = newTestViewer(t, "chain6", 1, false)
	getJSON(t, srv.URL+"/api/scene", 200, &sc)
	require.Len(t, sc.Bodies, 6)
	assert.Empty(t, sc.Geoms)
	for _, b := range sc.Bodies {
		require.NotNil(t, b.Box)
		assert.InDelta(t, 0.05, b.Box[0], 1e-9, "half the 0.1 m link length")
	}
}

func TestViewSceneFile(t *testing.T) {
	// sim export writes a built-in scene as a file; sim view --scene FILE
	// draws it as it draws the built-in scene.
	dir, traj, _ := viewRun(t, "brickwall", 3, "t.csv")
	file := filepath.Join(dir, "wall.json")
	out, stderr, code := runSim(t, "export", "brickwall")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
	w, name, err := viewScene(file, setFlag{})
	require.NoError(t, err)
	assert.Equal(t, "wall.json", name)
	tr, err := loadTrajectory(traj)
	require.NoError(t, err)
	fromFile := newViewer(w, "brickwall", "t.csv", tr, nil)
	builtIn := newViewer(buildScene(t, "brickwall"), "brickwall", "t.csv", tr, nil)
	assert.JSONEq(t, string(builtIn.scene), string(fromFile.scene))
}

func TestInertiaBoxInvertsTheBoxInertia(t *testing.T) {
	// A uniform box of mass m and half extents a, b, c has
	// I_xx = m(b² + c²)/3 and so on.
	m, a, b, c := 2.0, 0.3, 0.2, 0.05
	h := inertiaBox(m, m*(b*b+c*c)/3, m*(a*a+c*c)/3, m*(a*a+b*b)/3)
	assert.InDeltaSlice(t, []float64{a, b, c}, h[:], 1e-12)
	assert.Equal(t, [3]float64{0.01, 0.01, 0.01}, *inertiaBox(0, 0, 0, 0), "massless: the 1 cm floor")
}

// framesAnswer is /api/frames' document.
type framesAnswer struct {
	From, To, Stride, Bodies, Count int
	Next                            *int
	Steps                           []int64
	Times                           []float64
	Poses                           []*float64
}

func TestViewFramesChunksAndDecimation(t *testing.T) {
	v, srv := newTestViewer(t, "chain6", 100, false)
	var meta viewMetaJSON
	getJSON(t, srv.URL+"/api/meta", 200, &meta)
	assert.Equal(t, 101, meta.Frames)
	assert.Equal(t, 6, meta.Bodies)
	assert.Equal(t, int64(0), meta.FirstStep)
	assert.Equal(t, int64(100), meta.LastStep)
	assert.InDelta(t, 0.1, meta.T1, 1e-12)
	assert.Nil(t, meta.Stats)
	// The last link starts centred at x = 0.55; its inertia box reaches
	// √(0.05² + 2·0.01²) further (half its length, the 1 cm floor twice).
	assert.InDelta(t, 0.55+math.Sqrt(0.05*0.05+2e-4), meta.BoundsMax[0], 1e-6)

	// The whole range in one answer, exactly the loaded poses.
	var all framesAnswer
	getJSON(t, srv.URL+"/api/frames", 200, &all)
	require.Nil(t, all.Next)
	require.Equal(t, 101, all.Count)
	require.Len(t, all.Poses, 101*6*poseLen)
	for i, p := range all.Poses {
		require.NotNil(t, p)
		require.Equal(t, v.tr.Poses[i], float32(*p), "pose number %d: float32 decimals read back exactly", i)
	}

	// Capped chunks: following "next" gives the same frames.
	v.chunkValues = (6*poseLen + 2) * 10 // ten frames (poses, step, time) per answer
	var steps []int64
	var poses []*float64
	from, answers := 0, 0
	for {
		var a framesAnswer
		getJSON(t, srv.URL+"/api/frames?from="+itoa(from), 200, &a)
		answers++
		require.LessOrEqual(t, a.Count, 10)
		steps = append(steps, a.Steps...)
		poses = append(poses, a.Poses...)
		if a.Next == nil {
			break
		}
		from = *a.Next
	}
	assert.Equal(t, 11, answers)
	assert.Equal(t, all.Steps, steps)
	assert.Equal(t, all.Poses, poses)

	// Decimation: every 7th frame of [3, 40).
	var d framesAnswer
	getJSON(t, srv.URL+"/api/frames?from=3&to=40&stride=7", 200, &d)
	assert.Equal(t, []int64{3, 10, 17, 24, 31, 38}, d.Steps)
	assert.Equal(t, 6, d.Count)
	assert.Equal(t, all.Poses[38*6*poseLen:39*6*poseLen], d.Poses[5*6*poseLen:])
	// A stride past the cap's frame count still advances.
	getJSON(t, srv.URL+"/api/frames?stride=50", 200, &d)
	assert.Equal(t, []int64{0, 50, 100}, d.Steps)
	// to beyond the end is clamped; from = frames is an empty answer.
	getJSON(t, srv.URL+"/api/frames?from=101&to=500", 200, &d)
	assert.Equal(t, 0, d.Count)

	for _, q := range []string{"from=-1", "from=102", "from=5&to=4", "stride=0", "from=x", "stride=1.5"} {
		var e struct{ Error string }
		getJSON(t, srv.URL+"/api/frames?"+q, 400, &e)
		assert.True(t, strings.HasPrefix(e.Error, "frames: "), q+": "+e.Error)
	}
}

func TestViewStats(t *testing.T) {
	v, srv := newTestViewer(t, "brickwall", 20, true)
	var meta viewMetaJSON
	getJSON(t, srv.URL+"/api/meta", 200, &meta)
	require.NotNil(t, meta.Stats)
	assert.Equal(t, 20, meta.Stats.Rows)
	it := v.st.col("iterations")
	sum, hi := 0.0, 0.0
	for _, x := range it {
		sum += x
		hi = math.Max(hi, x)
	}
	assert.InDelta(t, sum/20, meta.Stats.MeanIterations, 1e-12)
	assert.Equal(t, hi, meta.Stats.MaxIterations)

	var a map[string]any
	getJSON(t, srv.URL+"/api/stats", 200, &a)
	assert.Nil(t, a["next"])
	assert.Len(t, a["iterations"], 20)
	assert.Equal(t, 1.0, a["step"].([]any)[0], "step 0 has no statistics row")

	// A stride combines rows: first step, maximal iterations, summed
	// budget hits, the largest |energy error|. Budget hits are made up
	// here, the wall's default run has none.
	hits := v.st.col("budget_hit")
	hits[2], hits[3], hits[9] = 1, 1, 1
	it[6] = 99
	getJSON(t, srv.URL+"/api/stats?stride=4", 200, &a)
	assert.Equal(t, []any{1.0, 5.0, 9.0, 13.0, 17.0}, a["step"])
	assert.Equal(t, []any{2.0, 0.0, 1.0, 0.0, 0.0}, a["budget_hit"])
	assert.Equal(t, 99.0, a["iterations"].([]any)[1])
	e := v.st.col("err_energy")
	want := e[12]
	for _, x := range e[13:16] {
		if math.Abs(x) > math.Abs(want) {
			want = x
		}
	}
	assert.Equal(t, want, a["err_energy"].([]any)[3])

	// Chunks of at most chunkValues numbers.
	v.chunkValues = len(v.st.Columns) * 6
	getJSON(t, srv.URL+"/api/stats?from=0", 200, &a)
	assert.Equal(t, 6.0, a["next"])
	assert.Len(t, a["time"], 6)

	var eb struct{ Error string }
	getJSON(t, srv.URL+"/api/stats?stride=-2", 400, &eb)
	assert.Contains(t, eb.Error, "stride")

	_, noStats := newTestViewer(t, "pendulum", 3, false)
	getJSON(t, noStats.URL+"/api/stats", 404, &eb)
	assert.Contains(t, eb.Error, "without --stats")
}

func TestViewPageAndHostCheck(t *testing.T) {
	_, srv := newTestViewer(t, "pendulum", 3, false)
	for path, want := range map[string]string{
		"/":                         `"three": "/vendor/three.module.js"`,
		"/viewer.js":                "window.__viewer",
		"/vendor/three.module.js":   "from './three.core.js'",
		"/vendor/three.core.js":     "REVISION",
		"/vendor/OrbitControls.js":  "class OrbitControls",
		"/vendor/LICENSE":           "MIT",
		"/api/meta":                 `"frames":4`,
		"/api/scene":                `"geoms":[]`,
		"/vendor/../../../go.mod":   "", // outside the embedded files: 404 below
		"/vendor/three.module.js.x": "",
	} {
		resp, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want == "" {
			assert.Equal(t, http.StatusNotFound, resp.StatusCode, path)
			continue
		}
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Contains(t, string(body), want, path)
	}
	// A page on another origin that rebinds its name to 127.0.0.1 sends
	// its own Host: refused.
	req, _ := http.NewRequest("GET", srv.URL+"/api/meta", nil)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	for _, host := range []string{"localhost:1234", "127.0.0.1", "[::1]:8080"} {
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, host)
	}
}

func TestViewCSVAndJSONTrajectoriesAgree(t *testing.T) {
	_, csvPath, _ := viewRun(t, "chain6", 15, "t.csv")
	_, jsonPath, _ := viewRun(t, "chain6", 15, "t.json")
	c, err := loadTrajectory(csvPath)
	require.NoError(t, err)
	j, err := loadTrajectory(jsonPath)
	require.NoError(t, err)
	assert.Equal(t, c.Bodies, j.Bodies)
	assert.Equal(t, c.Steps, j.Steps)
	assert.Equal(t, c.Times, j.Times)
	assert.Equal(t, c.Poses, j.Poses)
	assert.Len(t, j.Names, 6)
}

func TestViewBadInputOneLineExit2(t *testing.T) {
	dir, traj, stats := viewRun(t, "chain6", 5, "t.csv")
	_, _, otherStats := viewRun(t, "chain6", 50, "u.csv")
	cut := filepath.Join(dir, "cut.csv")
	data, err := os.ReadFile(traj)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cut, data[:len(data)-100], 0o644))
	badScene := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(badScene, []byte(`{"bodies": 3}`), 0o644))
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"no file":        {[]string{"view", "--scene", "chain6"}, "want one trajectory file"},
		"no scene":       {[]string{"view", traj}, "--scene is required"},
		"missing file":   {[]string{"view", filepath.Join(dir, "nope.csv"), "--scene", "chain6"}, "nope.csv: no such file"},
		"extension":      {[]string{"view", stats + ".txt", "--scene", "chain6"}, "want a .csv or .json trajectory"},
		"unknown scene":  {[]string{"view", traj, "--scene", "nosuch"}, `unknown scene "nosuch"`},
		"bad set":        {[]string{"view", traj, "--scene", "chain6", "--set", "links=-1"}, "links"},
		"body count":     {[]string{"view", traj, "--scene", "brickwall"}, "has 6 bodies per frame, scene brickwall has 30"},
		"body count set": {[]string{"view", traj, "--scene", "chain6", "--set", "links=3"}, "scene chain6 has 3"},
		"cut file":       {[]string{"view", cut, "--scene", "chain6"}, "cut.csv: the last frame (step 5) has 5 of 6 bodies"},
		"stats missing":  {[]string{"view", traj, "--scene", "chain6", "--stats", filepath.Join(dir, "x.csv")}, "--stats: "},
		"stats of other": {[]string{"view", traj, "--scene", "chain6", "--stats", otherStats}, "covers steps 1–50"},
		"stats as traj":  {[]string{"view", stats, "--scene", "chain6"}, "line 1: header"},
		"non-loopback":   {[]string{"view", traj, "--scene", "chain6", "--addr", "0.0.0.0:0"}, "not a loopback address"},
		"all interfaces": {[]string{"view", traj, "--scene", "chain6", "--addr", ":8080"}, "not a loopback address"},
		"host name":      {[]string{"view", traj, "--scene", "chain6", "--addr", "example.com:80"}, "--allow-remote"},
		"bad addr":       {[]string{"view", traj, "--scene", "chain6", "--addr", "127.0.0.1"}, "want HOST:PORT"},
		"bad port":       {[]string{"view", traj, "--scene", "chain6", "--addr", "127.0.0.1:99999"}, "bad port"},
		"file and set":   {[]string{"view", traj, "--scene", "s.json", "--set", "a=1"}, "--set: a scene file has no parameters"},
		"no scene file":  {[]string{"view", traj, "--scene", filepath.Join(dir, "none.json")}, "--scene: " + filepath.Join(dir, "none.json") + ": no such file"},
		"bad scene file": {[]string{"view", traj, "--scene", badScene}, "--scene: "},
		"unknown flag":   {[]string{"view", traj, "--scene", "chain6", "--bogus"}, "bogus"},
	} {
		stdout, stderr, code := runSim(t, tc.args...)
		assert.Equal(t, 2, code, name+": "+stderr)
		assert.Empty(t, stdout, name)
		if name == "bad scene file" {
			// As for sim run FILE.json: one line per problem, each naming
			// the file and the JSON path.
			assert.Equal(t, 3, strings.Count(stderr, badScene+": "), stderr)
		} else {
			assert.Equal(t, 1, strings.Count(stderr, "\n"), name+": want one line, got "+stderr)
		}
		assert.True(t, strings.HasPrefix(stderr, "sim: "), name)
		assert.Contains(t, stderr, tc.want, name)
		assert.NotContains(t, stderr, "internal error", name)
	}
}

func TestCheckViewAddr(t *testing.T) {
	for addr, loop := range map[string]bool{"127.0.0.1:0": true, "127.1.2.3:80": true, "localhost:8080": true, "[::1]:0": true} {
		got, err := checkViewAddr(addr, false)
		require.NoError(t, err, addr)
		assert.Equal(t, loop, got, addr)
	}
	got, err := checkViewAddr("0.0.0.0:8080", true)
	require.NoError(t, err, "--allow-remote lets it through")
	assert.False(t, got)
}

// lineWriter hands each line written to a channel (the "serving" line).
type lineWriter struct{ lines chan string }

func (w lineWriter) Write(p []byte) (int, error) {
	sc := bufio.NewScanner(strings.NewReader(string(p)))
	for sc.Scan() {
		w.lines <- sc.Text()
	}
	return len(p), nil
}

func TestViewServesUntilCancelled(t *testing.T) {
	_, traj, stats := viewRun(t, "pendulum", 10, "t.json")
	ctx, cancel := context.WithCancel(context.Background())
	out := lineWriter{make(chan string, 4)}
	done := make(chan error, 1)
	go func() {
		done <- simView(ctx, []string{traj, "--scene", "pendulum", "--stats", stats, "--addr", "127.0.0.1:0"}, out)
	}()
	var line string
	select {
	case line = <-out.lines:
	case err := <-done:
		t.Fatalf("sim view stopped: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("sim view printed no URL")
	}
	i := strings.Index(line, "http://127.0.0.1:")
	require.GreaterOrEqual(t, i, 0, line)
	url := strings.Fields(line[i:])[0]
	assert.Contains(t, line, "(11 frames of 1 bodies)")
	var meta viewMetaJSON
	getJSON(t, url+"api/meta", 200, &meta)
	assert.Equal(t, 11, meta.Frames)
	assert.Equal(t, "t.json", meta.Trajectory)
	require.NotNil(t, meta.Stats)
	assert.Equal(t, 10, meta.Stats.Rows)
	cancel()
	select {
	case err := <-done:
		// A signal's cancel ends every command with an interruptedError
		// (exit 130).
		var ie interruptedError
		assert.ErrorAs(t, err, &ie)
	case <-time.After(10 * time.Second):
		t.Fatal("sim view did not stop after cancel")
	}
}

// Issue 18: a kill -9 cuts a CSV mid-line. sim view reads the .partial
// file of a killed run without its cut line and incomplete last frame (the
// reader's cases are tested in package trajectory).
func TestViewReadsPartialCSV(t *testing.T) {
	h := trajectory.Header + "\n"
	row := func(step, body int) string {
		return itoa(step) + ",0," + itoa(body) + ",1,2,3.25,1,0,0,0,0,0,0,0,0,0\n"
	}
	whole := h + row(0, 0) + row(0, 1) + row(1, 0) + row(1, 1)
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv"+partialSuffix)
	require.NoError(t, os.WriteFile(p, []byte(whole+row(2, 0)+row(2, 1)[:10]), 0o644))
	tr, err := loadTrajectory(p)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1}, tr.Steps)
	assert.Len(t, tr.Poses, 2*2*poseLen)
	assert.Equal(t, "the cut line 7 and the incomplete frame of step 2", tr.Dropped)
	for k := 0; k < len(tr.Poses); k += poseLen {
		assert.Equal(t, float32(3.25), tr.Poses[k+2], "z of every kept row")
	}
	// A cut JSON file cannot be read.
	_, err = loadTrajectory(filepath.Join(dir, "t.json"+partialSuffix))
	assert.ErrorContains(t, err, "a cut JSON file cannot be read")
}

// sim view reads a statistics file of the original twelve columns (before
// the pre-solve columns were added) and serves the columns it has.
func TestViewOldStatsFile(t *testing.T) {
	_, traj, stats := viewRun(t, "pendulum", 4, "t.csv")
	data, err := os.ReadFile(stats)
	require.NoError(t, err)
	var old strings.Builder
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(strings.TrimSuffix(line, "\n"), ",")
		require.Len(t, f, len(trajectory.StatsColumns()))
		old.WriteString(strings.Join(f[:12], ",") + "\n")
	}
	oldPath := filepath.Join(filepath.Dir(stats), "old.csv")
	require.NoError(t, os.WriteFile(oldPath, []byte(old.String()), 0o644))
	tr, err := loadTrajectory(traj)
	require.NoError(t, err)
	st, err := loadStats(oldPath)
	require.NoError(t, err)
	v := newViewer(buildScene(t, "pendulum"), "pendulum", "t.csv", tr, st)
	srv := httptest.NewServer(v.handler(true))
	t.Cleanup(srv.Close)
	var a map[string]any
	getJSON(t, srv.URL+"/api/stats", 200, &a)
	assert.Len(t, a["iterations"], 4)
	assert.NotContains(t, a, "presolve_iterations")
}
