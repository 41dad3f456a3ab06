package errmeasure

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// The tests use only the standard library: testify v1.12.1 imports
// go.yaml.in/yaml/v3, which go.sum does not list, so `go test ./...` (CI)
// would fail to build with it.

// near fails unless |got − want| ≤ tol.
func near(t testing.TB, name string, want, got, tol float64) {
	t.Helper()
	if got != want && !(math.Abs(got-want) <= tol) { // got == want covers ±Inf
		t.Errorf("%s = %.17g, want %.17g ± %g (off by %.3g)", name, got, want, tol, got-want)
	}
}

// nearRel fails unless |got − want| ≤ rel·|want|.
func nearRel(t testing.TB, name string, want, got, rel float64) {
	t.Helper()
	if !(math.Abs(got-want) <= rel*math.Abs(want)) {
		t.Errorf("%s = %.17g, want %.17g within %g relative (off by %.3g relative)", name, got, want, rel, (got-want)/want)
	}
}

// must fails the test now on a non-nil error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// collectionProblem is a problem of testdata/mlcp's collection and its
// file's base name.
type collectionProblem struct {
	name string
	p    *lcp.Problem
}

// collectionProblems reads the problems of testdata/mlcp's collection (the
// files with a class), in file-name order.
func collectionProblems(t testing.TB) []collectionProblem {
	t.Helper()
	files, err := filepath.Glob("../testdata/mlcp/*.json")
	must(t, err)
	sort.Strings(files)
	var out []collectionProblem
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		var meta struct {
			Class string `json:"class"`
		}
		must(t, json.Unmarshal(data, &meta))
		if meta.Class == "" {
			continue
		}
		p, err := lcp.ReadProblem(bytes.NewReader(data))
		must(t, err)
		out = append(out, collectionProblem{filepath.Base(f), p})
	}
	return out
}
