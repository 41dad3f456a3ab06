package errmeasure

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gorigid/gorigid/internal/num"
	"github.com/gorigid/gorigid/lcp"
)

// TestCollectionStatusIsTrue is the acceptance test of the "status
// describes the returned x" rule: on every problem of testdata/mlcp's
// collection, with every solver and every pick, an answer labelled
// Converged has a natural residual ≤ 10⁻⁶·max(1, ‖b‖∞), and no answer to a
// problem without a solution is labelled Converged; auto's answer to every
// solvable problem is Converged under every pick. The energy totals of
// finite answers are finite (the measures are defined on every row).
func TestCollectionStatusIsTrue(t *testing.T) {
	files, err := filepath.Glob("../testdata/mlcp/*.json")
	must(t, err)
	sort.Strings(files)
	problems := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		var meta struct {
			Class    string `json:"class"`
			Solvable bool   `json:"solvable"`
		}
		must(t, json.Unmarshal(data, &meta))
		if meta.Class == "" {
			continue // not a collection problem
		}
		p, err := lcp.ReadProblem(bytes.NewReader(data))
		must(t, err)
		problems++
		scale := math.Max(1, num.MaxAbs(p.B))
		for _, name := range lcp.Names() {
			if name == "enum" && p.N() > lcp.EnumMaxRows {
				continue
			}
			for _, m := range []Measure{Energy, FB, Residual, Last, EnergyExact} {
				s, _ := lcp.New(name)
				var r lcp.Result
				sol, _ := Solve(&r, p, s, lcp.Settings{}, NewPicker(m))
				if len(r.X) != p.N() {
					t.Errorf("%s, %s, %v: no x returned", filepath.Base(f), name, m)
					continue
				}
				res := maxResidual(p, r.X, p.Residual(nil, r.X))
				if r.Status == lcp.Converged && !(res <= ConvergedResidual*scale) {
					t.Errorf("%s, %s, %v: converged with natural residual %.3g (picked %d of %d)", filepath.Base(f), name, m, res, sol.Picked, r.Iterations)
				}
				if name == "auto" && meta.Solvable && r.Status != lcp.Converged {
					t.Errorf("%s, auto, %v: %v (%s); auto solves every solvable problem, under every pick", filepath.Base(f), m, r.Status, r.Reason)
				}
				if r.Status == lcp.Converged && !meta.Solvable {
					t.Errorf("%s, %s, %v: converged on a problem without a solution", filepath.Base(f), name, m)
				}
				if num.FiniteSlice(r.X) && math.IsInf(sol.Totals.Energy, 0) {
					t.Errorf("%s, %s, %v: energy total is %v for a finite x", filepath.Base(f), name, m, sol.Totals.Energy)
				}
				// Polish keeps the status true as well (its sweeps may
				// turn a budgeted answer into a solution, or, on a
				// non-symmetric A, move away from one).
				if num.FiniteSlice(r.X) {
					if err := Polish(&r, p, 5, pickerFor(p, m), &sol); err != nil {
						t.Errorf("%s, %s, %v: polish: %v", filepath.Base(f), name, m, err)
					}
					res := maxResidual(p, r.X, p.Residual(nil, r.X))
					if r.Status == lcp.Converged && !(res <= ConvergedResidual*scale) {
						t.Errorf("%s, %s, %v, polished: converged with natural residual %.3g", filepath.Base(f), name, m, res)
					}
					if r.Status == lcp.Converged && !meta.Solvable {
						t.Errorf("%s, %s, %v, polished: converged on a problem without a solution", filepath.Base(f), name, m)
					}
				}
			}
		}
	}
	if problems < 25 {
		t.Fatalf("only %d collection problems found", problems)
	}
}

// pickerFor returns a Picker reset for p under m.
func pickerFor(p *lcp.Problem, m Measure) *Picker {
	pk := NewPicker(m)
	pk.Reset(p, m)
	return pk
}
