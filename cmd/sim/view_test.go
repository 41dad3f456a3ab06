package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
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

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/viewer"
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

func TestViewSceneFile(t *testing.T) {
	// sim export writes a built-in scene as a file; sim view --scene FILE
	// draws it as it draws the built-in scene.
	dir, traj, _ := viewRun(t, "brickwall", 3, "t.csv")
	file := filepath.Join(dir, "wall.json")
	out, stderr, code := runSim(t, "export", "brickwall")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
	w, name, err := viewScene(file, "", setFlag{}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, "wall.json", name)
	tr, err := viewer.Load(traj)
	require.NoError(t, err)
	// Both viewers serve the same /api/scene.
	scene := func(w *stepper.World) string {
		v, err := viewer.New(w, tr, nil, viewer.Options{Scene: "brickwall", Trajectory: "t.csv"})
		require.NoError(t, err)
		rec := httptest.NewRecorder()
		v.ServeHTTP(rec, httptest.NewRequest("GET", "/api/scene", nil))
		require.Equal(t, 200, rec.Code)
		return rec.Body.String()
	}
	assert.JSONEq(t, scene(buildScene(t, "brickwall")), scene(w))
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
		done <- simView(ctx, []string{traj, "--scene", "pendulum", "--stats", stats, "--addr", "127.0.0.1:0"}, out, io.Discard)
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
	var meta struct {
		Frames     int
		Trajectory string
		Stats      *struct{ Rows int }
	}
	getJSON(t, url+"api/meta", 200, &meta)
	assert.Equal(t, 11, meta.Frames)
	assert.Equal(t, "t.json", meta.Trajectory)
	require.NotNil(t, meta.Stats)
	assert.Equal(t, 10, meta.Stats.Rows)
	cancel()
	select {
	case err := <-done:
		// A signal's cancel ends every command with an cli.InterruptedError
		// (exit 130).
		var ie cli.InterruptedError
		assert.ErrorAs(t, err, &ie)
	case <-time.After(10 * time.Second):
		t.Fatal("sim view did not stop after cancel")
	}
}

// `sim view --scene MODEL.xml --keyframe NAME` builds the model as
// `sim run MODEL.xml --keyframe NAME` ran it: the test quadruped's "home"
// key puts its knees at −1.6 rad, inside their range, so the import does
// not warn of them, where its own pose (knees at 0) warns once per knee on view's
// stderr as on run's. A key the model does not have, and --keyframe with
// a URDF model, a scene file or a built-in scene, are the usage errors
// `sim run` gives (exit 2, one line).
func TestViewKeyframe(t *testing.T) {
	const quad = "../../testdata/models/quadruped/scene.xml"
	dir := t.TempDir()
	traj := filepath.Join(dir, "q.csv")
	_, stderr, code := runSim(t, "run", quad, "--keyframe", "home", "--steps", "3", "--out", traj, "--quiet")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "outside its range")

	var errb bytes.Buffer
	w, name, err := viewScene(quad, "home", setFlag{}, &errb)
	require.NoError(t, err)
	assert.Equal(t, "scene.xml", name)
	assert.Contains(t, errb.String(), "position actuators become gorigid position servos", "the import's warnings go to the writer given")
	assert.NotContains(t, errb.String(), "outside its range", "the home key starts inside every range")
	tr, err := viewer.Load(traj)
	require.NoError(t, err)
	_, err = viewer.New(w, tr, nil, viewer.Options{Scene: name})
	require.NoError(t, err)

	errb.Reset()
	_, _, err = viewScene(quad, "", setFlag{}, &errb)
	require.NoError(t, err)
	assert.Equal(t, 4, strings.Count(errb.String(), "_knee\" starts at 0 rad"), "one warning per knee, on the writer given")

	exported := filepath.Join(dir, "pend.json")
	out, stderr, code := runSim(t, "export", "pendulum")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(exported, []byte(out), 0o644))
	for scene, want := range map[string]string{
		quad:                             `keyframe "nope" not found (the model's: "home")`,
		"../../testdata/models/arm.urdf": "--keyframe \"nope\": only an MJCF model has keyframes, not ../../testdata/models/arm.urdf",
		exported:                         "--keyframe \"nope\": only an MJCF model has keyframes, not " + exported,
		"pendulum":                       "--keyframe \"nope\": only an MJCF model has keyframes, not the built-in scene pendulum",
	} {
		stdout, stderr, code := runSim(t, "view", traj, "--scene", scene, "--keyframe", "nope")
		assert.Equal(t, 2, code, scene+": "+stderr)
		assert.Empty(t, stdout, scene)
		assert.Equal(t, 1, strings.Count(stderr, "\n"), scene+": want one line, got "+stderr)
		assert.Contains(t, stderr, want, scene)
	}
}
