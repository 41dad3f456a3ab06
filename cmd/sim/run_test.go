package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/internal/lab"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets a test run this binary as the sim command itself (for the
// SIGINT test): with SIM_TEST_MAIN=1 the arguments after the binary name
// are sim's.
func TestMain(m *testing.M) {
	if os.Getenv("SIM_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// readCSV parses a CSV file and checks that every row has the header's
// number of fields.
func readCSV(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err, path)
	require.NotEmpty(t, all, path)
	return all[0], all[1:]
}

func TestList(t *testing.T) {
	out, stderr, code := runSim(t, "list")
	require.Equal(t, 0, code, stderr)
	for _, s := range scenes.List() {
		assert.Contains(t, out, s.Name+" — "+s.Doc)
		for _, p := range s.Params {
			assert.Contains(t, out, "--set "+p.Name+"="+p.Default)
		}
	}
	assert.Contains(t, out, "--set length=0.1")
	assert.Regexp(t, `--set length=0\.1\s+m\s+link length \(0, 100\]`, out)
	assert.Regexp(t, `--set links=6\s+-\s+number of links \[1, 10000\]`, out)
}

func TestRunPendulumOutputs(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	out, stderr, code := runSim(t, "run", "pendulum", "--steps", "10", "--quiet",
		"--out", p("traj.csv"), "--stats", p("stats.csv"), "--dump-mlcp", p("dump"))
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, out)
	assert.Empty(t, stderr)

	header, rows := readCSV(t, p("traj.csv"))
	assert.Equal(t, trajectory.Header, strings.Join(header, ","))
	assert.Equal(t, "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz", strings.Join(header, ","))
	require.Len(t, rows, 11*1) // steps 0…10, one body
	for i, r := range rows {
		assert.Equal(t, strconv.Itoa(i), r[0])
		assert.Equal(t, "0", r[2])
		for _, c := range r {
			_, err := strconv.ParseFloat(c, 64)
			assert.NoError(t, err)
		}
	}
	assert.Equal(t, "0", rows[0][1])
	assert.Equal(t, "0.01", rows[10][1][:4])

	header, rows = readCSV(t, p("stats.csv"))
	assert.Equal(t, "step,time,rows,iterations,budget_hit,picked,err_energy,err_fb,err_residual,kinetic,potential,max_violation,"+
		"presolve_iterations,seed_sweeps,projections,projection_iterations,energy_added,projection_skipped", strings.Join(header, ","))
	require.Len(t, rows, 10)
	assert.Equal(t, "1", rows[0][0])
	assert.Equal(t, "5", rows[0][2]) // a hinge has 5 rows
	assert.Equal(t, "0", rows[0][4])

	dumps, err := filepath.Glob(p("dump/step-*.json"))
	require.NoError(t, err)
	assert.Len(t, dumps, 20)
	assert.FileExists(t, p("dump/step-000010.mlcp.json"))
	partial, _ := filepath.Glob(p("*" + trajectory.PartialSuffix))
	assert.Empty(t, partial)
}

func TestRunJSONTrajectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traj.json")
	_, stderr, code := runSim(t, "run", "chain6", "--set", "links=2", "--steps", "10", "--every", "5", "--out", path)
	require.Equal(t, 0, code, stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Bodies []string
		DT     float64
		Frames []struct {
			Step   int
			Time   float64
			Bodies []struct{ X, Q, V, W []float64 }
		}
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, []string{"link1", "link2"}, doc.Bodies)
	assert.Equal(t, 0.001, doc.DT)
	require.Len(t, doc.Frames, 3) // steps 0, 5, 10
	for i, f := range doc.Frames {
		assert.Equal(t, 5*i, f.Step)
		require.Len(t, f.Bodies, 2)
		for _, b := range f.Bodies {
			assert.Len(t, b.X, 3)
			assert.Len(t, b.Q, 4)
			assert.Len(t, b.V, 3)
			assert.Len(t, b.W, 3)
		}
	}
	assert.Equal(t, []float64{0.05, 0, 0}, doc.Frames[0].Bodies[0].X) // link 1's centre, released horizontal
	assert.Equal(t, []float64{1, 0, 0, 0}, doc.Frames[0].Bodies[0].Q)
}

// The dumped MLCP and picked solution parse back and satisfy w = A x + b.
func TestRunDumpMLCP(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "chain6", "--set", "links=3", "--steps", "6", "--every", "3",
		"--dump-mlcp", dir, "--budget", "3")
	require.Equal(t, 0, code, stderr)
	for _, step := range []string{"000003", "000006"} {
		f, err := os.Open(filepath.Join(dir, "step-"+step+".mlcp.json"))
		require.NoError(t, err)
		p, err := lcp.ReadProblem(f)
		f.Close()
		require.NoError(t, err)
		assert.Equal(t, 15, p.N()) // three hinges
		f, err = os.Open(filepath.Join(dir, "step-"+step+".solution.json"))
		require.NoError(t, err)
		s, err := lcp.ReadSolution(f)
		f.Close()
		require.NoError(t, err)
		require.Len(t, s.X, p.N())
		require.Len(t, s.W, p.N())
		r := p.Residual(nil, s.X)
		for i := range r {
			// 1e-12 m/s: w is A x + b of the same x, rounding only.
			assert.InDelta(t, r[i], s.W[i], 1e-12, "row %d", i)
		}
		assert.Equal(t, "bpp", s.Extra["solver"])
		assert.Equal(t, "energy", s.Extra["pick"])
		assert.Equal(t, float64(s.Iterations), s.Extra["picked"])
		assert.NotEmpty(t, s.Status)
	}
	_, err := os.Stat(filepath.Join(dir, "step-000001.mlcp.json"))
	assert.True(t, os.IsNotExist(err), "only recorded steps are dumped")
}

// A dumped MLCP labels its rows (joint or contact, bodies, direction), and
// sim mlcp solve reads the labelled dump without a warning about the key.
func TestRunDumpMLCPLabels(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runSim(t, "run", "forklift", "--steps", "1", "--dump-mlcp", dir, "--quiet")
	require.Equal(t, 0, code, stderr)
	path := filepath.Join(dir, "step-000001.mlcp.json")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		B    []float64             `json:"b"`
		Rows []trajectory.RowLabel `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Rows, len(doc.B))
	first := doc.Rows[0]
	require.NotNil(t, first.Joint)
	assert.Equal(t, "Hinge", first.JointType)
	kinds := map[string]int{}
	for _, r := range doc.Rows {
		kinds[r.Kind]++
		if r.Contact != nil {
			assert.Equal(t, "world", r.Bodies[0], "the ground is the world")
			assert.Contains(t, r.Bodies[1], "wheel")
			require.NotNil(t, r.Direction)
		}
	}
	assert.Positive(t, kinds["ContactNormal"])
	assert.Equal(t, 2*kinds["ContactNormal"], kinds["ContactFriction"])
	assert.Positive(t, kinds["RollingFriction"])
	_, stderr, code = runSim(t, "mlcp", "solve", path)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "warning")
}

func TestRunBadInputOneLineExit2(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "want one scene name"},
		{[]string{"run", "chian6"}, `unknown scene "chian6" (valid: ` + strings.Join(scenes.Names(), ", ") + `)`},
		{[]string{"run", "chain6", "--set", "zeta=1"}, `chain6: --set zeta=1: unknown parameter "zeta" (valid: links, length, mass, radius, angle, stabilization, baumgarte)`},
		{[]string{"run", "chain6", "--set", "links=abc"}, "chain6: --set links=abc: want an integer"},
		{[]string{"run", "chain6", "--set", "links=-3"}, "chain6: --set links=-3: links must be ≥ 1"},
		{[]string{"run", "chain6", "--set", "links"}, `want NAME=VALUE, got "links"`},
		{[]string{"run", "chain6", "--set", "links=2", "--set", "links=3"}, "links given twice"},
		{[]string{"run", "chain6", "--set", "stabilization=spring"}, "want regularized, none, baumgarte or post"},
		{[]string{"run", "chain6", "--steps", "-1"}, "--steps: must be ≥ 0, got -1"},
		{[]string{"run", "chain6", "--steps", "ten"}, `invalid value "ten" for flag -steps`},
		{[]string{"run", "chain6", "--every", "0"}, "--every: must be ≥ 1, got 0"},
		{[]string{"run", "chain6", "--dt", "0"}, "--dt: must be finite and > 0, got 0"},
		{[]string{"run", "chain6", "--dt", "NaN"}, "--dt: must be finite and > 0, got NaN"},
		{[]string{"run", "chain6", "--budget", "-2"}, "--budget: must be ≥ 0, got -2"},
		{[]string{"run", "chain6", "--solver", "enum"}, `--solver: unknown value "enum" (want bpp, lemke, newton-cck, newton-fb`},
		{[]string{"run", "chain6", "--pick", "best"}, `--pick: measure: unknown value "best"`},
		{[]string{"run", "chain6", "--frobnicate"}, "flag provided but not defined: -frobnicate"},
		{[]string{"run", "chain6", "--out", filepath.Join(dir, "t.txt")}, `--out: want a .csv or .json file`},
		{[]string{"run", "chain6", "--out", filepath.Join(dir, "no", "t.csv")}, "--out: cannot create " + filepath.Join(dir, "no", "t.csv") + ": no such file or directory"},
		{[]string{"run", "chain6", "--out", filepath.Join(dir, "ok.csv"), "--stats", filepath.Join(dir, "no", "s.csv")}, "--stats: cannot create"},
		{[]string{"list", "extra"}, "list: takes no arguments"},
		{[]string{"study"}, "study: want one study name"},
		{[]string{"study", "wall"}, `study: unknown study "wall" (valid: brickwall, chain6`},
		{[]string{"study", "chain6", "--steps", "-5"}, "--steps: must be ≥ 0, got -5"},
	}
	for _, c := range cases {
		out, stderr, code := runSim(t, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, stderr)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.True(t, strings.HasPrefix(stderr, "sim: "), stderr)
		if !strings.Contains(c.want, "want one study name") { // that one adds the usage
			assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %q", stderr)
		}
	}
	// A failed open leaves no files behind.
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	assert.Empty(t, left)
}

// The same command twice gives byte-identical files.
func TestRunDeterministic(t *testing.T) {
	var files [2][]string
	for i := range files {
		dir := t.TempDir()
		args := []string{"run", "chain6", "--set", "links=3", "--set", "stabilization=post", "--steps", "40",
			"--budget", "4", "--out", filepath.Join(dir, "t.csv"), "--stats", filepath.Join(dir, "s.csv"),
			"--dump-mlcp", filepath.Join(dir, "d"), "--every", "20"}
		_, stderr, code := runSim(t, args...)
		require.Equal(t, 0, code, stderr)
		_, stderr, code = runSim(t, "run", "chain6", "--steps", "40", "--out", filepath.Join(dir, "t.json"))
		require.Equal(t, 0, code, stderr)
		for _, name := range []string{"t.csv", "s.csv", "t.json", "d/step-000040.mlcp.json", "d/step-000040.solution.json"} {
			b, err := os.ReadFile(filepath.Join(dir, name))
			require.NoError(t, err)
			files[i] = append(files[i], string(b))
		}
	}
	assert.Equal(t, files[0], files[1])
}

// A run cancelled after step 4 (what Ctrl-C does) closes its files with
// every row written, under the final names, and reports an cli.InterruptedError
// naming the trajectory's frames.
func TestSimulateInterrupted(t *testing.T) {
	dir := t.TempDir()
	s, err := scenes.Lookup("chain6")
	require.NoError(t, err)
	w, err := s.Build(map[string]string{"links": "2"})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := trajectory.Files{Trajectory: filepath.Join(dir, "t.json"), Stats: filepath.Join(dir, "s.csv")}
	o := trajectory.Options{Steps: 1000, Every: 1,
		OnStep: func(k int, _ *stepper.Stats) {
			if k == 4 {
				cancel()
			}
		}}
	rep, err := simulate(ctx, w, f, o)
	var ie cli.InterruptedError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Equal(t, "interrupted after step 4 of 1000; outputs closed with every row written ("+f.Trajectory+": 5 frames)", err.Error())
	assert.Equal(t, 4, rep.Steps)
	assert.Equal(t, 5, rep.Frames)
	var doc struct{ Frames []struct{ Step int } }
	data, err := os.ReadFile(f.Trajectory)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Len(t, doc.Frames, 5)
	_, rows := readCSV(t, f.Stats)
	assert.Len(t, rows, 4)
}

// SIGINT to a real process: it stops after the current step, exits 130
// with a message, and its outputs parse with every row written.
func TestRunSIGINT(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	traj, stats := filepath.Join(dir, "t.csv"), filepath.Join(dir, "s.csv")
	cmd := exec.Command(os.Args[0], "run", "chain6", "--steps", "100000000", "--quiet", "--out", traj, "--stats", stats)
	cmd.Env = append(os.Environ(), "SIM_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	// The .partial file exists once the signal handler is installed; wait
	// until some rows are written.
	deadline := time.Now().Add(20 * time.Second)
	for {
		fi, err := os.Stat(stats + trajectory.PartialSuffix)
		if err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no output after 20 s; stderr: %s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 130, ee.ExitCode())
	assert.Contains(t, stderr.String(), "sim: interrupted after step ")
	assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), stderr.String())

	_, trows := readCSV(t, traj)
	_, srows := readCSV(t, stats)
	require.NotEmpty(t, srows)
	// Every step's rows: frames 0…k for 6 bodies, stats 1…k.
	k := len(srows)
	assert.Equal(t, strconv.Itoa(k), srows[k-1][0])
	assert.Len(t, trows, 6*(k+1))
	assert.Equal(t, strconv.Itoa(k), trows[len(trows)-1][0])
	partial, _ := filepath.Glob(filepath.Join(dir, "*"+trajectory.PartialSuffix))
	assert.Empty(t, partial)
}

func TestStudyHelpListsStudies(t *testing.T) {
	out, stderr, code := runSim(t, "study", "help")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "chain6")
	assert.True(t, slices.IsSorted(lab.StudyNames()))
}

// A step that leaves a non-finite state stops the run with exit 1 and one
// line naming the body; the trajectory keeps the finite rows only. The
// state overflows at the largest time step (stepper.MaxH) under a force
// of 1e306 N on 1 g: h² F/m is 1e315 m.
func TestRunNonFiniteStops(t *testing.T) {
	dir := t.TempDir()
	out, scene := filepath.Join(dir, "r.csv"), filepath.Join(dir, "rod.json")
	require.NoError(t, os.WriteFile(scene, []byte(`{"version": 1, "settings": {"h": 1000},
		"bodies": [{"name": "rod", "mass": 1e-3, "shapes": [{"type": "sphere", "radius": 0.1}]}],
		"loads": [{"type": "force", "body": "rod", "direction": [1, 0, 0], "profile": {"type": "constant", "value": 1e306}}]}`), 0o644))
	_, stderr, code := runSim(t, "run", scene, "--steps", "3", "--out", out)
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, stderr)
	assert.Contains(t, stderr, `body 0 ("rod"): state not finite`)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "\n"), "header and step 0 only:\n%s", data)
}
