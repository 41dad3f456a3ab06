package bpmd

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/lcp"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

// boxStack is three 1 kg cubes of 0.2 m stacked on the ground, μ = 0.5,
// the top one pushed sideways so that friction works.
func boxStack(t testing.TB) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	if err != nil {
		t.Fatal(err)
	}
	mat := stepper.Material{Friction: 0.5}
	if _, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: mat}); err != nil {
		t.Fatal(err)
	}
	half := 0.1
	shape, err := contact.NewBoxSize(mgl64.Vec3{2 * half, 2 * half, 2 * half})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		m := 1.0
		i := m * (2 * half) * (2 * half) / 6
		b, err := body.New(body.Params{Mass: m, Inertia: mgl64.Diag3(mgl64.Vec3{i, i, i}),
			Pos: mgl64.Vec3{0.01 * float64(k), 0, half + 2*half*float64(k)}, Rot: mgl64.QuatIdent()})
		if err != nil {
			t.Fatal(err)
		}
		if k == 2 {
			b.Force = mgl64.Vec3{6, 0, 0}
		}
		id, err := w.AddBody(b)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.AddGeom(stepper.Geom{Body: id, Shape: shape, Material: mat}); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func buildScene(t testing.TB, name string, set map[string]string) *stepper.World {
	t.Helper()
	s, err := scenes.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Build(set)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// record steps w n times and returns each step's frame together with a
// copy of the problem, solution and states the stepper used.
type recorded struct {
	f      *Frame
	p      *lcp.Problem
	x      []float64
	states []lcp.State
	preIts int // Stats.PreSolveIterations of the step
}

func record(t testing.TB, w *stepper.World, n int) []recorded {
	t.Helper()
	rec := NewRecorder(w)
	var out []recorded
	for k := 0; k < n; k++ {
		st, err := w.Step()
		if err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		f, err := rec.Frame(st)
		if err != nil {
			t.Fatal(err)
		}
		r := recorded{f: f, preIts: st.PreSolveIterations}
		if p := w.LastProblem(); p != nil {
			r.p = copyProblem(p)
			x, _ := w.LastSolution()
			r.x = append([]float64(nil), x...)
			r.states = append([]lcp.State(nil), w.LastStates()...)
		}
		out = append(out, r)
	}
	return out
}

func copyProblem(p *lcp.Problem) *lcp.Problem {
	n := p.N()
	a := lcp.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, p.A.At(i, j))
		}
	}
	return &lcp.Problem{A: a, B: append([]float64(nil), p.B...), Lo: append([]float64(nil), p.Lo...), Hi: append([]float64(nil), p.Hi...)}
}

type sceneCase struct {
	name  string
	world func(t testing.TB) *stepper.World
	steps int
}

var sceneCases = []sceneCase{
	{"rod", func(t testing.TB) *stepper.World { return buildScene(t, "rod", nil) }, 5},
	{"stack", boxStack, 20},
	{"wall", func(t testing.TB) *stepper.World { return buildScene(t, "brickwall", map[string]string{"rows": "4"}) }, 8},
	{"chain", func(t testing.TB) *stepper.World { return buildScene(t, "chain6", nil) }, 5},
	// moving anchors without φ/h (joint_correction)
	{"chain, joint projection", func(t testing.TB) *stepper.World {
		w := buildScene(t, "chain6", nil)
		w.Settings.JointCorrection = stepper.JointProjection
		return w
	}, 30},
	{"soft stack", softStack, 10},
	// the forklift's wheels have line contacts with rolling rows
	{"forklift", func(t testing.TB) *stepper.World { return buildScene(t, "forklift", nil) }, 4},
	// a penetration beyond the correcting-speed cap: the frame carries the
	// cap the step used (max_correcting_speed), whatever set it
	{"sunk box, uncapped", func(t testing.TB) *stepper.World { return sunkBox(t, math.Inf(1), 0) }, 3},
	{"sunk box, capped", func(t testing.TB) *stepper.World { return sunkBox(t, 0.3, 0) }, 3},
	{"sunk box, project above 5 mm", func(t testing.TB) *stepper.World { return sunkBox(t, 0, 0.005) }, 3},
	// a gyroscopic step: A is dense and not symmetric
	{"rotor", rotor, 4},
	// a restitution target in b (contacts/bounce)
	{"bouncing ball", bouncingBall, 8},
	// implicit spring-damper, armature and servo rows (joints/viscous)
	{"damped arm", dampedArm, 6},
}

// dampedArm is a 2 kg rod swinging from a world hinge about y, with a
// spring-damper (k = 5 N·m/rad, c = 0.7 N·m·s/rad, rest 0.2 rad) and an
// armature of 0.01 kg·m², and a second rod on an elbow hinge held by a
// position servo (kp = 20, kd = 1.5, at most 3 N·m): Spring rows whose
// viscous coefficients enter A and b.
func dampedArm(t testing.TB) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var ids [2]int
	for k := range ids {
		b, err := body.New(body.Params{Mass: 2, Inertia: body.BoxInertia(2, 1, 0.1, 0.1),
			Pos: mgl64.Vec3{0.5 + float64(k), 0, 2}, Rot: mgl64.QuatIdent(), AngVel: mgl64.Vec3{0, 0.3, 0}})
		must(err)
		ids[k], err = w.AddBody(b)
		must(err)
	}
	shoulder, err := constraint.NewHinge(w.Bodies, ids[0], constraint.World, mgl64.Vec3{0, 0, 2}, mgl64.Vec3{0, 1, 0})
	must(err)
	must(shoulder.SetSpringDamper(5, 0.7, 0.2))
	must(shoulder.SetArmature(0.01))
	must(w.AddConstraint(shoulder))
	elbow, err := constraint.NewHinge(w.Bodies, ids[1], ids[0], mgl64.Vec3{1, 0, 2}, mgl64.Vec3{0, 1, 0})
	must(err)
	must(elbow.SetServo(0.5, 20, 1.5, 3))
	must(w.AddConstraint(elbow))
	return w
}

// bouncingBall is a 0.5 kg ball of radius 0.1 m, restitution 0.7 on a
// rigid plane with μ = 0.3, falling at 2 m/s from 5 cm above it, so that
// it lands in step 3 (h = 10 ms) with a restitution target in b (the
// default simultaneous impacts, in the MLCP).
func bouncingBall(t testing.TB) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity})
	if err != nil {
		t.Fatal(err)
	}
	mat := stepper.Material{Friction: 0.3, Restitution: 0.7}
	if _, err := w.AddGeom(stepper.Geom{Body: constraint.World, Shape: contact.NewPlane(), Material: mat}); err != nil {
		t.Fatal(err)
	}
	const r, m = 0.1, 0.5
	i := 0.4 * m * r * r
	b, err := body.New(body.Params{Mass: m, Inertia: mgl64.Diag3(mgl64.Vec3{i, i, i}),
		Pos: mgl64.Vec3{0, 0, r + 0.05}, Rot: mgl64.QuatIdent(), Vel: mgl64.Vec3{0.3, 0, -2}})
	if err != nil {
		t.Fatal(err)
	}
	id, err := w.AddBody(b)
	if err != nil {
		t.Fatal(err)
	}
	ball, err := contact.NewSphere(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddGeom(stepper.Geom{Body: id, Shape: ball, Material: mat}); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRecordBounce: the bouncing ball's frames record the restitution
// target of the step in which it lands (e·v, v its speed when it reaches
// the plane within the step, between the step's start and free speeds,
// 2.0–2.3 m/s; as World.Contacts reports it), the rebuilt b holds it, and
// the ball leaves the plane at no less than that (TestRebuildBoxEqualsStepper
// checks the bits).
func TestRecordBounce(t *testing.T) {
	bounced := 0
	recs := record(t, bouncingBall(t), 8)
	for _, r := range recs {
		for i, v := range r.f.Contacts.Bounce {
			if v == 0 {
				continue
			}
			bounced++
			if v < 0.7*2 || v > 0.7*2.3 {
				t.Errorf("frame %d contact %d: bounce %v m/s, want e·v with v ≈ 2.0–2.3 m/s", r.f.Index, i, v)
			}
			p, _, err := Rebuild(r.f, Box, Options{})
			if err != nil {
				t.Fatal(err)
			}
			k := int(r.f.Contacts.RowIndex[i][0])
			if next := r.f.Index; next < len(recs) {
				if vz := recs[next].f.Bodies.Velocities[0][2]; !(vz >= v-1e-9) {
					t.Errorf("frame %d: the ball leaves at %v m/s, want ≥ %v", r.f.Index, vz, v)
				}
			}
			if !(p.B[k] <= -v+1e-12) {
				t.Errorf("frame %d: b[%d] = %v, want ≤ −bounce = %v", r.f.Index, k, p.B[k], -v)
			}
		}
	}
	if bounced == 0 {
		t.Fatal("no frame recorded a bounce: the case tests nothing")
	}
}

// sunkBox is boxStack's bottom box alone, 2 cm into the ground, with the
// given Settings.MaxCorrectingSpeed and ProjectAbove.
func sunkBox(t testing.TB, vmax, above float64) *stepper.World {
	w := boxStack(t)
	w.Bodies, w.Geoms = w.Bodies[:1], w.Geoms[:2]
	w.Bodies[0].Pos[2] = 0.08
	w.Settings.MaxCorrectingSpeed, w.Settings.ProjectAbove = vmax, above
	return w
}

// rotor is issue 24's 500 rad/s wheel on a hinge in a 1 kg frame yawing at
// 2 rad/s on a world hinge: every step takes the gyroscopic path
// (stepper.Assembly).
func rotor(t testing.TB) *stepper.World {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	fr, err := body.New(body.Params{Name: "frame", Mass: 1, Inertia: body.BoxInertia(1, 1.2, 0.2, 0.1), Rot: mgl64.QuatIdent(),
		AngVel: mgl64.Vec3{0, 0, 2}})
	must(err)
	fi, err := w.AddBody(fr)
	must(err)
	pos := mgl64.Vec3{0.5, 0, 0}
	wh, err := body.New(body.Params{Name: "wheel", Mass: 10, Inertia: body.CylinderInertia(10, 0.2, 0.05), Pos: pos,
		Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}), AngVel: mgl64.Vec3{500, 0, 2}, Vel: mgl64.Vec3{0, 1, 0}})
	must(err)
	wi, err := w.AddBody(wh)
	must(err)
	yaw, err := constraint.NewHinge(w.Bodies, constraint.World, fi, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1})
	must(err)
	must(w.AddConstraint(yaw))
	axle, err := constraint.NewHinge(w.Bodies, fi, wi, pos, mgl64.Vec3{1, 0, 0})
	must(err)
	must(w.AddConstraint(axle))
	return w
}

// softStack is boxStack with compliant contacts (k = 1e5 N/m, SPOOK
// d = 0.02 s on the ground's material).
func softStack(t testing.TB) *stepper.World {
	w := boxStack(t)
	w.Geoms[0].Material.Stiffness, w.Geoms[0].Material.Damping = 1e5, 0.02
	return w
}

// TestRebuildBoxEqualsStepper: the boxed MLCP rebuilt from a frame equals
// the stepper's bit for bit (Rebuild runs the stepper's own assembly on the
// recorded state, so every entry is the same sum in the same order), and
// solving it by BPP from the stored index sets and the stored proximal
// centre (Layout.Reference, solution/reference) gives the stored solution.
// Where A is semidefinite (a box on four points) the MLCP's solutions form
// a set, and which one BPP returns depends on its regularized mode's first
// proximal centre: the pre-solve's x at a step with many new contacts,
// and with stepper.Settings.Coherent on the last step's impulses at a
// steady step. Each scene runs with Coherent off and on; with it on, the
// frames whose reference is the last step's impulses are counted, and
// among them those where a re-solve from x̄ = 0 lands on another solution
// (more than the tolerance below from the stored z): the stored reference
// is what makes those reproducible.
func TestRebuildBoxEqualsStepper(t *testing.T) {
	for _, coh := range []stepper.Coherence{stepper.CoherentOff, stepper.CoherentOn} {
		for _, c := range sceneCases {
			t.Run(coh.String()+"/"+c.name, func(t *testing.T) {
				w := c.world(t)
				w.Settings.Coherent = coh
				withRef, elsewhere, worst := 0, 0, 0.0
				for _, r := range record(t, w, c.steps) {
					if r.p == nil {
						continue
					}
					p, lay, err := Rebuild(r.f, Box, Options{})
					if err != nil {
						t.Fatalf("frame %d: %v", r.f.Index, err)
					}
					checkSameProblem(t, r, p)
					if len(lay.Normal) != len(r.f.Contacts.Gap) {
						t.Fatalf("layout: %d normals for %d contacts", len(lay.Normal), len(r.f.Contacts.Gap))
					}
					if coh == stepper.CoherentOff && lay.Reference != nil && r.f.Solution.Iterations > 0 && !presolved(r) {
						t.Fatalf("frame %d: a reference without Coherent and without a pre-solve", r.f.Index)
					}
					var res lcp.Result
					if err := (&lcp.BPP{}).Solve(&res, p, lcp.Settings{Start: r.states, Reference: lay.Reference}); err != nil {
						t.Fatalf("frame %d: %v", r.f.Index, err)
					}
					// The step's BPP started from the pre-solve's factor or
					// its factor of the last step and refactored part of it,
					// so the two solves agree to rounding amplified by A's
					// condition: 1e-9 of the largest impulse (the forklift,
					// 2.5 t on 40 kg wheels and 10 kg shafts, agrees to
					// 2e-10 of its 105 N·s).
					xmax := 1.0
					for _, z := range r.f.Solution.Z {
						xmax = math.Max(xmax, math.Abs(z))
					}
					for i := range res.X {
						d := math.Abs(res.X[i] - r.f.Solution.Z[i])
						worst = math.Max(worst, d/xmax)
						if d > 1e-9*xmax {
							t.Fatalf("frame %d: x[%d] = %v, stored %v", r.f.Index, i, res.X[i], r.f.Solution.Z[i])
						}
					}
					if lay.Reference == nil || presolved(r) {
						continue
					}
					withRef++
					if err := (&lcp.BPP{}).Solve(&res, p, lcp.Settings{Start: r.states}); err != nil {
						t.Fatalf("frame %d: %v", r.f.Index, err)
					}
					for i := range res.X {
						if math.Abs(res.X[i]-r.f.Solution.Z[i]) > 1e-9*xmax {
							elsewhere++
							break
						}
					}
				}
				t.Logf("max |x − z| = %.3g max|z|; %d frames centred at the last step's impulses, %d of them solve elsewhere from 0", worst, withRef, elsewhere)
				if coh == stepper.CoherentOn && (c.name == "stack" || c.name == "wall") && elsewhere == 0 {
					// measured: 18 of the stack's 19 frames, 7 of the wall's 7
					t.Errorf("no frame solves elsewhere from x̄ = 0: the stored reference is not tested")
				}
			})
		}
	}
}

// presolved reports whether r's step pre-solved its new contacts, whose
// x is then the step's reference.
func presolved(r recorded) bool { return r.preIts > 0 }

// checkSameProblem fails unless p is r's stepper problem bit for bit.
func checkSameProblem(t *testing.T, r recorded, p *lcp.Problem) {
	t.Helper()
	if p.N() != r.p.N() {
		t.Fatalf("frame %d: %d rows, stepper %d", r.f.Index, p.N(), r.p.N())
	}
	n := p.N()
	for i := 0; i < n; i++ {
		if p.Lo[i] != r.p.Lo[i] || p.Hi[i] != r.p.Hi[i] {
			t.Fatalf("frame %d row %d: bounds [%v, %v], stepper [%v, %v]", r.f.Index, i, p.Lo[i], p.Hi[i], r.p.Lo[i], r.p.Hi[i])
		}
		if p.B[i] != r.p.B[i] {
			t.Fatalf("frame %d: b[%d] = %v, stepper %v", r.f.Index, i, p.B[i], r.p.B[i])
		}
		for j := 0; j < n; j++ {
			if p.A.At(i, j) != r.p.A.At(i, j) {
				t.Fatalf("frame %d: A[%d][%d] = %v, stepper %v", r.f.Index, i, j, p.A.At(i, j), r.p.A.At(i, j))
			}
		}
	}
}

// TestRoundTrip writes the frames, reads them back and compares every
// field bit for bit.
func TestRoundTrip(t *testing.T) {
	for _, c := range sceneCases {
		t.Run(c.name, func(t *testing.T) {
			recs := record(t, c.world(t), c.steps)
			var frames []*Frame
			for _, r := range recs {
				frames = append(frames, r.f)
			}
			path := filepath.Join(t.TempDir(), "db.h5")
			if err := WriteFile(path, frames); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(frames) {
				t.Fatalf("read %d frames, wrote %d", len(got), len(frames))
			}
			refs := 0
			for i := range got {
				if d := frameDiff(frames[i], got[i]); d != "" {
					t.Fatalf("frame %d: %s", frames[i].Index, d)
				}
				if got[i].Solution.Reference != nil {
					refs++
				}
			}
			if c.name == "wall" && refs == 0 {
				t.Errorf("no frame of the wall has a solution/reference to round-trip")
			}
		})
	}
}

// TestRecordViscous: the damped arm's frames carry each Spring row's
// viscous coefficient, c + a/h = 0.7 + 0.01/0.01 = 1.7 N·m·s/rad on the
// shoulder and kd = 1.5 on the elbow's servo, and the rebuilt b needs it:
// with joints/viscous zeroed (a version 1 reader's view) the Spring rows'
// entries of b differ from the stepper's (TestRebuildBoxEqualsStepper
// checks the recorded frames bit for bit).
func TestRecordViscous(t *testing.T) {
	// The hinge's viscous coefficient is its damping plus armature/h
	// (0.7 N·m·s + 0.01 kg·m² / 0.01 s); the elbow servo's is its damping
	// gain (1.5 N·m·s).
	const damping, armature, h = 0.7, 0.01, 0.01
	for _, r := range record(t, dampedArm(t), 3) {
		var got []float64
		for i, k := range r.f.Joints.Kinds {
			if constraint.Kind(k) == constraint.Spring {
				got = append(got, r.f.Joints.Viscous[i])
			}
		}
		if len(got) != 2 || got[0] != damping+armature/h || got[1] != 1.5 {
			t.Fatalf("frame %d: Spring rows' viscous %v, want [1.7 1.5]", r.f.Index, got)
		}
		f := *r.f
		f.Joints.Viscous = make([]float64, len(f.Joints.Viscous))
		p, _, err := Rebuild(&f, Box, Options{})
		if err != nil {
			t.Fatal(err)
		}
		same := true
		for i := range p.B {
			same = same && p.B[i] == r.p.B[i]
		}
		if same {
			t.Errorf("frame %d: b without the viscous coefficients equals the stepper's", r.f.Index)
		}
	}
}
