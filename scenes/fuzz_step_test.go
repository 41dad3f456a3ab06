package scenes_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/gorigid/gorigid/trajectory"
)

// FuzzLoadStep steps what scenes.Load accepts: a scene file that loads
// runs fuzzLoadSteps steps, on GOMAXPROCS 1 and again on 2. It asserts
// that nothing panics; that a file Load refuses, or a step that fails,
// says what it is about (a num.FieldError naming its field, or a message
// that names the step, body, joint or key); that after a step without
// error every body's state is finite; and that the two runs give the same
// bits (every body's state and the statistics CSV row of every step).
// FuzzLoad checks the file format's round trip and takes one step; this
// target is the run a user of sim run or scenes.Load gets.
func FuzzLoadStep(f *testing.F) {
	for _, n := range builtins {
		set := map[string]string(nil)
		switch n {
		case "brickwall":
			set = map[string]string{"rows": "2"}
		case "chain6":
			set = map[string]string{"links": "3"}
		}
		f.Add(exportText(f, n, set))
	}
	f.Add([]byte(allKinds))
	// The new-user scene files: a chain, a slide, a stack, a wheel.
	files, err := filepath.Glob("../testdata/newuser/*.json")
	if err != nil || len(files) == 0 {
		f.Fatalf("no new-user scene files: %v", err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"version": 1, "settings": {"h": 1e-300}, "bodies": [{"name": "a", "mass": 1e-300, "shapes": [{"type": "sphere", "radius": 0.1}], "velocity": [1e300, 0, 0]}]}`))
	f.Add([]byte(`{"version": 1, "settings": {"h": 0.01, "gravity": [0, 0, -1e308]}, "bodies": [{"name": "a", "mass": 1, "shapes": [{"type": "box", "size": [1, 1, 1]}]}, {"name": "b", "mass": 1, "shapes": [{"type": "box", "size": [1, 1, 1]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		procs := runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(procs)
		a, ok := loadStep(t, data)
		if !ok {
			return
		}
		runtime.GOMAXPROCS(2)
		b, _ := loadStep(t, data)
		if a != b {
			t.Fatalf("GOMAXPROCS 1 and 2 give different bits:\n%s\n%s", a, b)
		}
	})
}

// fuzzLoadSteps is how many steps FuzzLoadStep takes of a scene.
const fuzzLoadSteps = 30

// loadStep loads data and steps it; ok is false when it did not load or
// is too large to step in a fuzz input's time. The string is the run's
// record.
func loadStep(t *testing.T, data []byte) (string, bool) {
	w, err := scenes.Load(bytes.NewReader(data), "fuzz.json")
	if err != nil {
		checkNamed(t, "Load", err)
		return "", false
	}
	if len(w.Bodies) > 12 || len(w.Joints) > 24 || len(w.Geoms) > 24 {
		return "", false
	}
	h := sha256.New()
	for range fuzzLoadSteps {
		st, err := w.Step()
		if err != nil {
			checkNamed(t, "Step", err)
			fmt.Fprintf(h, "error %v\n", err)
			break
		}
		for i, b := range w.Bodies {
			if !num.FiniteVec(b.Pos) || !num.FiniteQuat(b.Rot) || !num.FiniteVec(b.Vel) || !num.FiniteVec(b.AngVel) {
				t.Fatalf("step %d: no error, but body %d is not finite: %+v", st.Step, i, *b)
			}
			fmt.Fprintf(h, "%v %v %v %v;", b.Pos, b.Rot, b.Vel, b.AngVel)
		}
		if math.IsNaN(st.Kinetic) || math.IsNaN(st.Potential) || math.IsNaN(st.MaxViolation) {
			t.Fatalf("step %d: NaN in Stats without error: %+v", st.Step, st)
		}
		h.Write(trajectory.AppendStatsRow(nil, &st))
	}
	return fmt.Sprintf("%x", h.Sum(nil)), true
}

// checkNamed fails t when err does not say what it is about.
func checkNamed(t *testing.T, where string, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" || strings.Contains(msg, "%!") {
		t.Fatalf("%s: bad error message %q", where, msg)
	}
	var fe *num.FieldError
	if errors.As(err, &fe) && fe.Field != "" && !strings.Contains(msg, fe.Field) {
		t.Fatalf("%s: FieldError's message %q leaves out its field %q", where, msg, fe.Field)
	}
	if where == "Step" && !errors.Is(err, stepper.ErrNonFinite) && !errors.Is(err, stepper.ErrConflict) &&
		!strings.HasPrefix(msg, "step ") && !strings.HasPrefix(msg, "settings") && !strings.HasPrefix(msg, "constraint ") &&
		!strings.HasPrefix(msg, "body ") && !strings.HasPrefix(msg, "geom ") && !strings.HasPrefix(msg, "controller ") {
		t.Fatalf("%s: error names nothing: %q", where, msg)
	}
}
