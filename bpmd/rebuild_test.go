package bpmd

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gorigid/gorigid/lcp"
)

// checkLCP checks that x solves the rebuilt cone problem: complementarity
// to tol (relative to the problem's scale), and the friction cone Σβ ≤ μ xₙ
// that the sliding-speed rows enforce.
func checkLCP(t *testing.T, f *Frame, p *lcp.Problem, lay *Layout, x []float64) {
	t.Helper()
	w := p.Residual(nil, x)
	scale := 1.0
	for _, b := range p.B {
		scale = math.Max(scale, math.Abs(b))
	}
	for i := range x {
		if p.Lo[i] == 0 && (x[i] < -1e-9*scale || w[i] < -1e-7*scale || math.Abs(x[i]*w[i]) > 1e-7*scale*scale) {
			t.Fatalf("frame %d row %d: x = %v, w = %v not complementary", f.Index, i, x[i], w[i])
		}
	}
	xmax := 0.0
	for _, v := range x {
		xmax = math.Max(xmax, math.Abs(v))
	}
	for c, fr := range lay.Friction {
		if fr == nil {
			continue
		}
		sum := 0.0
		for _, k := range fr {
			sum += x[k]
		}
		xn := x[lay.Normal[c]]
		if sum > f.Contacts.Mu[c][0]*xn+1e-9*xmax {
			t.Fatalf("frame %d contact %d: Σβ = %v > μ xₙ = %v", f.Index, c, sum, f.Contacts.Mu[c][0]*xn)
		}
	}
}

// solveCone solves a rebuilt cone LCP. Lemke's method can end on a ray
// for these degenerate problems (four coplanar contacts per face make
// N M⁻¹ Nᵀ singular) although a solution exists; the nonsmooth Newton
// methods are tried next. The result is checked by checkLCP either way.
func solveCone(t *testing.T, p *lcp.Problem) lcp.Result {
	t.Helper()
	var errs []string
	for _, s := range []lcp.Solver{&lcp.Lemke{}, &lcp.Newton{}, &lcp.Newton{Func: lcp.MinMap}} {
		var res lcp.Result
		err := s.Solve(&res, p, lcp.Settings{})
		if err == nil && res.Status == lcp.Converged {
			return res
		}
		errs = append(errs, fmt.Sprintf("%s: %v %v", s.Name(), res.Status, err))
	}
	t.Fatalf("no solver solved the cone LCP: %s", strings.Join(errs, "; "))
	return lcp.Result{}
}

func TestRebuildLCP(t *testing.T) {
	for _, c := range sceneCases[:3] { // rod, stack, wall: no joints
		t.Run(c.name, func(t *testing.T) {
			steps, dirs := c.steps, []int{4, 8}
			if c.name == "wall" { // dense solves of ~250 rows: keep it short
				steps, dirs = 3, []int{4}
			}
			for _, r := range record(t, c.world(t), steps) {
				if r.p == nil {
					continue
				}
				for _, d := range dirs {
					p, lay, err := Rebuild(r.f, LCP, Options{Directions: d})
					if err != nil {
						t.Fatal(err)
					}
					res := solveCone(t, p)
					checkLCP(t, r.f, p, lay, res.X)
					if c.name == "rod" { // frictionless: the LCP is the box MLCP's normal rows
						for k, i := range lay.Normal {
							if math.Abs(res.X[i]-r.f.Solution.Z[k]) > 1e-9 {
								t.Fatalf("frame %d: xₙ[%d] = %v, stored %v", r.f.Index, k, res.X[i], r.f.Solution.Z[k])
							}
						}
					}
				}
			}
		})
	}
}

func TestRebuildMixed(t *testing.T) {
	recs := record(t, buildScene(t, "chain6", nil), 3)
	for _, r := range recs {
		if _, _, err := Rebuild(r.f, LCP, Options{}); err == nil || !strings.Contains(err.Error(), "joints") {
			t.Fatalf("LCP of a frame with joints: err = %v, want one naming joints", err)
		}
		p, lay, err := Rebuild(r.f, Mixed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if lay.Joints != [2]int{0, r.f.JointRowCount()} {
			t.Fatalf("joint rows %v", lay.Joints)
		}
		var res lcp.Result
		if err := (&lcp.BPP{}).Solve(&res, p, lcp.Settings{}); err != nil {
			t.Fatal(err)
		}
		for i := lay.Joints[0]; i < lay.Joints[1]; i++ {
			if math.Abs(res.X[i]-r.f.Solution.Z[i]) > 1e-9 {
				t.Fatalf("frame %d: joint x[%d] = %v, stored %v", r.f.Index, i, res.X[i], r.f.Solution.Z[i])
			}
		}
	}
	// Mixed with rolling rows: the forklift's wheels. A rolling row, its
	// couplings with the joint rows and with itself are the same velocity
	// rows in the box and the mixed form, only moved behind the sliding
	// speeds, so they are equal bit for bit.
	for _, r := range record(t, buildScene(t, "forklift", nil), 2) {
		pb, lb, err := Rebuild(r.f, Box, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pm, lm, err := Rebuild(r.f, Mixed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		rolling := 0
		for c, kb := range lb.Rolling {
			km := lm.Rolling[c]
			if (kb < 0) != (km < 0) {
				t.Fatalf("frame %d contact %d: rolling row %d in box, %d in mixed", r.f.Index, c, kb, km)
			}
			if kb < 0 {
				continue
			}
			rolling++
			if km < lm.Slide[c] || pm.B[km] != pb.B[kb] || pm.Lo[km] != pb.Lo[kb] || pm.Hi[km] != pb.Hi[kb] || pm.A.At(km, km) != pb.A.At(kb, kb) {
				t.Fatalf("frame %d contact %d: rolling row differs: mixed %d (b %v [%v, %v]), box %d (b %v [%v, %v])",
					r.f.Index, c, km, pm.B[km], pm.Lo[km], pm.Hi[km], kb, pb.B[kb], pb.Lo[kb], pb.Hi[kb])
			}
			for j := lb.Joints[0]; j < lb.Joints[1]; j++ {
				if pm.A.At(km, j) != pb.A.At(kb, j) {
					t.Fatalf("frame %d: A[roll %d][joint %d] = %v in mixed, %v in box", r.f.Index, c, j, pm.A.At(km, j), pb.A.At(kb, j))
				}
			}
		}
		if rolling == 0 {
			t.Fatalf("frame %d: no rolling rows (the forklift's wheels should have them)", r.f.Index)
		}
	}
	// Mixed with joints and contacts: the stack plus a frame whose joints
	// are empty gives the LCP exactly.
	for _, r := range record(t, boxStack(t), 3) {
		pl, _, err := Rebuild(r.f, LCP, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pm, _, err := Rebuild(r.f, Mixed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range pl.B {
			if pl.B[i] != pm.B[i] || pl.Lo[i] != pm.Lo[i] {
				t.Fatalf("frame %d row %d: LCP and mixed differ without joints", r.f.Index, i)
			}
		}
	}
}

// TestBadFrameNamesField: Validate's errors name the dataset.
func TestBadFrameNamesField(t *testing.T) {
	r := record(t, boxStack(t), 2)[1]
	cases := []struct {
		name   string
		break_ func(f *Frame)
		want   string
	}{
		{"step", func(f *Frame) { f.H = 0 }, "step"},
		{"mass", func(f *Frame) { f.Bodies.Masses[0] = -1 }, "bodies/masses[0]"},
		{"quaternion", func(f *Frame) { f.Bodies.Quaternions[1][0] = 2 }, "bodies/quaternion[1]"},
		{"normals", func(f *Frame) { f.Contacts.Normals[0][2] = math.NaN() }, "contacts/normals[0]"},
		{"pairs", func(f *Frame) { f.Contacts.Pairs[0][1] = 99 }, "contacts/pairs[0][1]"},
		{"mu length", func(f *Frame) { f.Contacts.Mu = f.Contacts.Mu[:1] }, "contacts/mu"},
		{"z", func(f *Frame) { f.Solution.Z = f.Solution.Z[1:] }, "solution/z"},
		{"reference length", func(f *Frame) { f.Solution.Reference = []float64{1} }, "solution/reference: has 1 entries"},
		{"reference", func(f *Frame) {
			f.Solution.Reference = make([]float64, len(f.Solution.Z))
			f.Solution.Reference[2] = math.Inf(1)
		}, "solution/reference[2]: must be finite"},
		{"rows", func(f *Frame) { f.Contacts.RowIndex[1][1] = 7 }, "contacts/rows[1]"},
		{"stabilization", func(f *Frame) { f.Stabilization = "spring" }, `stabilization: unknown value "spring"`},
		{"baumgarte", func(f *Frame) { f.Stabilization, f.Baumgarte = "baumgarte", math.NaN() }, "baumgarte: must be finite"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := cloneFrame(r.f)
			c.break_(f)
			_, _, err := Rebuild(f, Box, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want one naming %s", err, c.want)
			}
		})
	}
}

func cloneFrame(f *Frame) *Frame {
	g := *f
	g.Bodies.Masses = append([]float64(nil), f.Bodies.Masses...)
	g.Bodies.Quaternions = append([][4]float64(nil), f.Bodies.Quaternions...)
	g.Contacts.Normals = append([][3]float64(nil), f.Contacts.Normals...)
	g.Contacts.Pairs = append([][2]int64(nil), f.Contacts.Pairs...)
	g.Contacts.RowIndex = append([][2]int64(nil), f.Contacts.RowIndex...)
	return &g
}
