package viewer

import (
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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// viewRun runs scene for steps steps, as sim run does, and writes
// trajectory (by the extension of trajName) and statistics into a
// temporary directory.
func viewRun(t *testing.T, scene string, steps int, trajName string) (dir, traj, stats string) {
	t.Helper()
	dir = t.TempDir()
	traj, stats = filepath.Join(dir, trajName), filepath.Join(dir, "stats.csv")
	_, err := trajectory.RunFiles(context.Background(), buildScene(t, scene),
		trajectory.Files{Trajectory: traj, Stats: stats}, trajectory.Options{Steps: steps})
	require.NoError(t, err)
	return dir, traj, stats
}

func itoa(n int) string { return strconv.Itoa(n) }

const partialSuffix = trajectory.PartialSuffix

// newViewer is New for tests, whose inputs always match.
func newViewer(t *testing.T, w *stepper.World, scene, traj string, tr *Trajectory, st *trajectory.StatsTable) *Viewer {
	t.Helper()
	v, err := New(w, tr, st, Options{Scene: scene, Trajectory: traj})
	require.NoError(t, err)
	return v
}

func loadStats(t *testing.T, path string) *trajectory.StatsTable {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	st, err := trajectory.ReadStats(f)
	require.NoError(t, err)
	return st
}

func buildScene(t *testing.T, name string) *stepper.World {
	t.Helper()
	sc, err := scenes.Lookup(name)
	require.NoError(t, err)
	w, err := sc.Build(nil)
	require.NoError(t, err)
	return w
}

// newTestViewer loads a run of scene and serves it with httptest.
func newTestViewer(t *testing.T, scene string, steps int, withStats bool) (*Viewer, *httptest.Server) {
	t.Helper()
	_, traj, stats := viewRun(t, scene, steps, "traj.csv")
	tr, err := Load(traj)
	require.NoError(t, err)
	var st *trajectory.StatsTable
	if withStats {
		st = loadStats(t, stats)
	}
	v := newViewer(t, buildScene(t, scene), scene, "traj.csv", tr, st)
	srv := httptest.NewServer(LoopbackOnly(v))
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
	it := col(v.st, "iterations")
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
	hits := col(v.st, "budget_hit")
	hits[2], hits[3], hits[9] = 1, 1, 1
	it[6] = 99
	getJSON(t, srv.URL+"/api/stats?stride=4", 200, &a)
	assert.Equal(t, []any{1.0, 5.0, 9.0, 13.0, 17.0}, a["step"])
	assert.Equal(t, []any{2.0, 0.0, 1.0, 0.0, 0.0}, a["budget_hit"])
	assert.Equal(t, 99.0, a["iterations"].([]any)[1])
	e := col(v.st, "err_energy")
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
	c, err := Load(csvPath)
	require.NoError(t, err)
	j, err := Load(jsonPath)
	require.NoError(t, err)
	assert.Equal(t, c.Bodies, j.Bodies)
	assert.Equal(t, c.Steps, j.Steps)
	assert.Equal(t, c.Times, j.Times)
	assert.Equal(t, c.Poses, j.Poses)
	assert.Len(t, j.Names, 6)
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
	tr, err := Load(p)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1}, tr.Steps)
	assert.Len(t, tr.Poses, 2*2*poseLen)
	assert.Equal(t, "the cut line 7 and the incomplete frame of step 2", tr.Dropped)
	for k := 0; k < len(tr.Poses); k += poseLen {
		assert.Equal(t, float32(3.25), tr.Poses[k+2], "z of every kept row")
	}
	// A cut JSON file cannot be read.
	_, err = Load(filepath.Join(dir, "t.json"+partialSuffix))
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
	tr, err := Load(traj)
	require.NoError(t, err)
	st := loadStats(t, oldPath)
	v := newViewer(t, buildScene(t, "pendulum"), "pendulum", "t.csv", tr, st)
	srv := httptest.NewServer(LoopbackOnly(v))
	t.Cleanup(srv.Close)
	var a map[string]any
	getJSON(t, srv.URL+"/api/stats", 200, &a)
	assert.Len(t, a["iterations"], 4)
	assert.NotContains(t, a, "presolve_iterations")
}
