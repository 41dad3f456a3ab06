package bpmd

import (
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

const h5pyFixture = "../testdata/bpmd/h5py-frame.h5"

// TestReadH5pyFixture reads the frame that h5py wrote
// (testdata/bpmd/make_h5py_fixture.py) and checks its values, including
// the stacked Table 2 shapes (forces 6n_b × 1, inertia 3n_b × 3).
func TestReadH5pyFixture(t *testing.T) {
	frames, err := ReadFile(h5pyFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 {
		t.Fatalf("%d frames, want 1", len(frames))
	}
	f := frames[0]
	if f.Index != 7 || f.H != 0.01 || f.Time != 0.06 || f.Stabilization != "regularized" {
		t.Errorf("index, step, time, stabilization = %d, %v, %v, %q", f.Index, f.H, f.Time, f.Stabilization)
	}
	b := &f.Bodies
	if len(b.IDs) != 2 || b.Masses[1] != 2 || b.Forces[1][2] != -2*9.81 || b.Applied[1][3] != 0.5 ||
		b.Inertia[1][0] != 2.0*0.04/6 || b.Positions[1][2] != -0.2 || b.Quaternions[1][0] != 1 || b.Velocities[1][0] != 0.01 {
		t.Errorf("bodies: %+v", *b)
	}
	if j := &f.Joints; len(j.Violations) != 1 || j.Jacobians[0][8] != 1 || !math.IsInf(j.Bounds[0][0], -1) || j.RowBodies[0] != [4]int64{0, 1, -1, -1} {
		t.Errorf("joints: %+v", *j)
	}
	if c := &f.Contacts; len(c.Gap) != 1 || c.Gap[0] != -0.0001 || c.Pairs[0] != [2]int64{-1, 0} || c.Mu[0][0] != 0.5 || c.XN[0] != 0.0981 {
		t.Errorf("contacts: %+v", *c)
	}
	s := &f.Solution
	if s.Iterations != 2 || s.Status != "converged" || s.Solver != "bpp" || len(s.TotalError) != 2 || !s.Stick[0] || len(s.Z) != 4 {
		t.Errorf("solution: %+v", *s)
	}
	p, lay, err := Rebuild(f, Box, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 is the joint: J = [0 0 −1 …] on body 0, [0 0 1 …] on body 1,
	// so a₀₀ = 1/m₀ + 1/m₁ = 1.5 kg⁻¹; b₀ = J M⁻¹p + φ/h =
	// (−0.05 − 0.0981) − (−0.05 − 0.0981) + 0.001/0.01 = 0.1 m/s.
	if p.N() != 4 || math.Abs(p.A.At(0, 0)-1.5) > 1e-15 || math.Abs(p.B[0]-0.1) > 1e-15 {
		t.Errorf("rebuilt: n = %d, a00 = %v, b0 = %v", p.N(), p.A.At(0, 0), p.B[0])
	}
	if lay.Normal[0] != 1 || len(lay.Friction[0]) != 2 || p.Hi[2] != 0.5*0.0981 {
		t.Errorf("layout %+v, hi = %v", lay, p.Hi)
	}
	var res lcp.Result
	if err := (&lcp.BPP{}).Solve(&res, p, lcp.Settings{}); err != nil || res.Status != lcp.Converged {
		t.Fatalf("solve: %v %v", res.Status, err)
	}
}

// TestH5pyReadsGorigidFile cross-checks a gorigid-written file with h5py
// when /usr/bin/python3 has it (it is not needed otherwise: skipped).
func TestH5pyReadsGorigidFile(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import h5py").Run() != nil {
		t.Skip("python3 with h5py not available")
	}
	recs := record(t, buildScene(t, "brickwall", map[string]string{"rows": "2"}), 3)
	var frames []*Frame
	for _, r := range recs {
		frames = append(frames, r.f)
	}
	path := filepath.Join(t.TempDir(), "wall.h5")
	if err := WriteFile(path, frames); err != nil {
		t.Fatal(err)
	}
	script := `
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
names = sorted(f["frames"])
g = f["frames"][names[-1]]
print(len(names), g["bodies/ids"].shape, g["bodies/quaternion"].shape, g["contacts/normals"].shape,
      g["solution/z"].shape, float(g["step"][0]), int(g["solution/iterations"][0]), repr(float(g["solution/z"][0])))
`
	out, err := exec.Command(py, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	last := frames[len(frames)-1]
	nb, nc, n := len(last.Bodies.IDs), len(last.Contacts.Gap), len(last.Solution.Z)
	fields := strings.Fields(strings.NewReplacer("(", "", ")", "", ",", " ").Replace(string(out)))
	want := []string{"3", itoa(nb), itoa(4 * nb), "1", itoa(nc), "3", itoa(n), "0.016666666666666666", itoa(last.Solution.Iterations), ftoa(last.Solution.Z[0])}
	if strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Errorf("h5py saw %q, want %q", fields, want)
	}
}

func itoa(i int) string { return strconvItoa(i) }

// TestShippedDatabases: the small databases in testdata/bpmd (format
// version 1, written before joints/viscous and solution/reference) read,
// with joints/viscous 0 and no reference (x̄ = 0, as their steps solved),
// and each frame rebuilt and solved from its stored index sets gives its
// stored z.
func TestShippedDatabases(t *testing.T) {
	for _, name := range []string{"brickwall-rows3.h5", "chain6.h5"} {
		frames, err := ReadFile(filepath.Join("..", "testdata", "bpmd", name))
		if err != nil {
			t.Fatal(err)
		}
		if len(frames) != 2 {
			t.Fatalf("%s: %d frames, want 2", name, len(frames))
		}
		for _, f := range frames {
			// Format version 1 files have no joints/viscous: every row 0.
			if len(f.Joints.Viscous) != f.JointRowCount() || slices.ContainsFunc(f.Joints.Viscous, func(v float64) bool { return v != 0 }) {
				t.Fatalf("%s frame %d: viscous %v, want %d zeros", name, f.Index, f.Joints.Viscous, f.JointRowCount())
			}
			if f.Solution.Reference != nil {
				t.Fatalf("%s frame %d: reference %v in a file without solution/reference", name, f.Index, f.Solution.Reference)
			}
			p, lay, err := Rebuild(f, Box, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if lay.Reference != nil {
				t.Fatalf("%s frame %d: Layout.Reference %v, want nil (x̄ = 0)", name, f.Index, lay.Reference)
			}
			start := make([]lcp.State, len(f.Solution.States))
			for i, s := range f.Solution.States {
				start[i] = lcp.State(s)
			}
			var res lcp.Result
			if err := (&lcp.BPP{}).Solve(&res, p, lcp.Settings{Start: start}); err != nil {
				t.Fatal(err)
			}
			for i := range res.X {
				if math.Abs(res.X[i]-f.Solution.Z[i]) > 1e-9 {
					t.Fatalf("%s frame %d: x[%d] = %v, stored %v", name, f.Index, i, res.X[i], f.Solution.Z[i])
				}
			}
		}
	}
}
