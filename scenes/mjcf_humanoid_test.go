package scenes

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/constraint"
)

// settleStats is what fallAndSettle measures.
type settleStats struct {
	hinges     int
	worstGap   float64 // m, largest distance between a hinge's two pivots
	worstOver  float64 // rad, largest excursion beyond a hinge limit
	atLimit    int     // hinges that came within 1° of a limit
	tendonOver float64 // rad, largest excursion beyond a tendon range
	e0, rise   float64 // J: initial energy, largest rise above the lowest so far
	minRoot    float64 // m, lowest z of body 0
	final      float64 // J, kinetic energy at the end
}

// fallAndSettle runs the model s for steps steps and measures its hinges
// (every joint must be one), tendons and energy (kinetic + potential above
// z = 0): each hinge's pivots as carried by its two bodies, its angle (A's
// rotation relative to B about the initial axis) against its limits, and
// each tendon's length against its range.
func fallAndSettle(t *testing.T, s *SceneSpec, steps int) settleStats {
	t.Helper()
	w := buildWorld(t, s)
	index := map[string]int{WorldName: -1}
	for i, b := range s.Bodies {
		index[b.Name] = i
	}
	pose := func(i int) (mgl64.Vec3, mgl64.Quat) {
		if i < 0 {
			return mgl64.Vec3{}, mgl64.QuatIdent()
		}
		return w.Bodies[i].Pos, w.Bodies[i].Rot
	}
	type probe struct {
		a, b               int
		la, lb             mgl64.Vec3
		qa0, qb0           mgl64.Quat
		axis               mgl64.Vec3
		lo, hi             float64
		limits             bool
		gap, over, closest float64
	}
	var probes []*probe
	for _, j := range s.Joints {
		if j.Type != JointHinge {
			t.Fatalf("joint %s: %s, want hinge", j.Name, j.Type)
		}
		p := &probe{a: index[j.A], b: index[j.B], axis: j.Axis.Normalize(), closest: math.Inf(1)}
		pa, qa := pose(p.a)
		pb, qb := pose(p.b)
		p.la = qa.Conjugate().Rotate(j.Pivot.Sub(pa))
		p.lb = qb.Conjugate().Rotate(j.Pivot.Sub(pb))
		p.qa0, p.qb0 = qa, qb
		if j.Limits != nil {
			p.lo, p.hi, p.limits = j.Limits.Lower, j.Limits.Upper, true
		}
		probes = append(probes, p)
	}
	var tendons []*constraint.Tendon
	for _, ts := range s.Tendons {
		c, _, err := w.Joint(ts.Name)
		if err != nil {
			t.Fatal(err)
		}
		tendons = append(tendons, c.(*constraint.Tendon))
	}
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	k0, p0 := w.Energy()
	st := settleStats{hinges: len(probes), e0: k0 + p0, minRoot: math.Inf(1)}
	emin := st.e0
	for i := 0; i < steps; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		k, p := w.Energy()
		st.rise = math.Max(st.rise, k+p-emin)
		emin = math.Min(emin, k+p)
		st.minRoot = math.Min(st.minRoot, w.Bodies[0].Pos[2])
		for _, pr := range probes {
			pa, qa := pose(pr.a)
			pb, qb := pose(pr.b)
			pr.gap = math.Max(pr.gap, pa.Add(qa.Rotate(pr.la)).Sub(pb.Add(qb.Rotate(pr.lb))).Len())
			// A's orientation in B's frame changed by D = rel(t) rel(0)⁻¹,
			// rel = q_b⁻¹ q_a: a rotation about the axis in B's frame.
			d := qb.Conjugate().Mul(qa).Mul(pr.qb0.Conjugate().Mul(pr.qa0).Conjugate())
			th := math.Remainder(2*math.Atan2(d.V.Dot(pr.qb0.Conjugate().Rotate(pr.axis)), d.W), 2*math.Pi)
			if pr.limits {
				pr.over = math.Max(pr.over, math.Max(pr.lo-th, th-pr.hi))
				pr.closest = math.Min(pr.closest, math.Min(th-pr.lo, pr.hi-th))
			}
		}
		for k, td := range tendons {
			l, err := td.Length(ctx)
			if err != nil {
				t.Fatal(err)
			}
			st.tendonOver = math.Max(st.tendonOver, math.Max(s.Tendons[k].Lower-l, l-s.Tendons[k].Upper))
		}
	}
	for _, pr := range probes {
		if pr.closest < math.Pi/180 {
			st.atLimit++
		}
		st.worstGap = math.Max(st.worstGap, pr.gap)
		st.worstOver = math.Max(st.worstOver, pr.over)
	}
	st.final, _ = w.Energy()
	return st
}

// check reports the settle test's bounds: pivots within 1 cm, limits and
// tendon ranges within 1°, at least two hinges driven onto a limit (so the
// limit check is not vacuous), energy never rising by more than 1 % of the
// initial energy, the root fallen below 0.5 m and at rest at the end
// (kinetic energy below 1e-3 J).
func (st settleStats) check(t *testing.T) {
	t.Helper()
	t.Logf("%d hinges: energy %.2f J, largest rise %.3g J (%.3g %%), worst pivot gap %.3g m, worst limit overrun %.3g° (%d hinges at a limit), tendons %.3g° beyond, root lowest z %.3f m, final kinetic %.3g J",
		st.hinges, st.e0, st.rise, 100*st.rise/st.e0, st.worstGap, st.worstOver*180/math.Pi, st.atLimit, st.tendonOver*180/math.Pi, st.minRoot, st.final)
	if st.worstGap > 0.01 {
		t.Errorf("pivots %.4g m apart, want ≤ 1 cm", st.worstGap)
	}
	if st.worstOver > math.Pi/180 || st.tendonOver > math.Pi/180 {
		t.Errorf("%.3g° beyond a hinge limit, %.3g° beyond a tendon range, want ≤ 1°", st.worstOver*180/math.Pi, st.tendonOver*180/math.Pi)
	}
	if st.atLimit < 2 {
		t.Errorf("%d hinges came within 1° of a limit, want ≥ 2", st.atLimit)
	}
	if st.rise > 0.01*st.e0 {
		t.Errorf("energy rose by %.4g J = %.3g %% of %.4g J, want ≤ 1 %%", st.rise, 100*st.rise/st.e0, st.e0)
	}
	if !(st.minRoot < 0.5) {
		t.Errorf("root lowest at z = %.3f m: it should have fallen", st.minRoot)
	}
	if st.final > 1e-3 {
		t.Errorf("kinetic energy %.3g J at the end, want < 1e-3 J (at rest)", st.final)
	}
}

// TestMJCFHumanoidMultiJoint: humanoid_multi.xml, laid out as MuJoCo's
// humanoid (hips of three hinges, shoulders and the lower waist of two,
// 17 hinges, two fixed tendons, damping and armature on every joint),
// imported with SplitJoints = 1e-3, stands, topples onto the plane and
// comes to rest within 5 s under the bounds of settleStats.check.
func TestMJCFHumanoidMultiJoint(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"humanoid_multi.xml", ImportOptions{SplitJoints: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		t.Log(w)
	}
	if len(s.Joints) != 17 || len(s.Tendons) != 2 || len(s.Bodies) != 11+7 {
		t.Errorf("%d joints, %d tendons, %d bodies; want 17, 2, 11 + 7 added", len(s.Joints), len(s.Tendons), len(s.Bodies))
	}
	fallAndSettle(t, s, 1000).check(t)
}

// periodOf returns the mean period of a signal sampled every h seconds,
// from its first and last zero crossings (linear interpolation), or 0
// with fewer than 3 crossings.
func periodOf(x []float64, h float64) float64 {
	var cross []float64
	for n := 1; n < len(x); n++ {
		if (x[n-1] < 0) != (x[n] < 0) {
			cross = append(cross, h*(float64(n-1)+x[n-1]/(x[n-1]-x[n])))
		}
	}
	if len(cross) < 3 {
		return 0
	}
	return 2 * (cross[len(cross)-1] - cross[0]) / float64(len(cross)-1)
}

// TestMJCFTwoHingesOneBody: a body with hinges about x and y through one
// pivot (a universal joint, split with ε = 1e-6) and its centre of mass
// 1 m below (1 kg, I_c = diag(0.2, 0.05, 0.16) kg·m²) swings in both planes
// at once with the small-angle periods of each: 2π √((0.2 + 1)/9.81) =
// 2.19754 s about x and 2π √((0.05 + 1)/9.81) = 2.05561 s about y, within
// 0.02 % (measured +1e-5 and −4e-5; h = 5 ms: the stepper's period error
// ~(Ωh)²/24 ≈ 1e-5; the amplitudes of 0.01 rad couple the planes at
// ~θ² ≈ 1e-4; ε adds 1e-6).
func TestMJCFTwoHingesOneBody(t *testing.T) {
	s, _, err := ParseMJCF(strings.NewReader(`<mujoco><option timestep="0.005"/><worldbody><body name="p" pos="0 0 2">
<joint name="jx" axis="1 0 0"/><joint name="jy" axis="0 1 0"/><inertial pos="0 0 -1" mass="1" diaginertia="0.2 0.05 0.16"/>
</body></worldbody></mujoco>`), "u.xml", ImportOptions{SplitJoints: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	w := buildWorld(t, s)
	if len(w.Bodies) != 2 || s.Bodies[1].Name != "p" {
		t.Fatalf("bodies %d, want the added one and p", len(w.Bodies))
	}
	const wx, wy = 0.03, 0.02
	w.Bodies[0].AngVel = mgl64.Vec3{wx, 0, 0}
	w.Bodies[1].AngVel = mgl64.Vec3{wx, wy, 0}
	w.Bodies[1].Vel = mgl64.Vec3{wx, wy, 0}.Cross(mgl64.Vec3{0, 0, -1})
	jx, jy := hingeOf(t, w, "jx"), hingeOf(t, w, "jy")
	ctx := &constraint.Context{Bodies: w.Bodies, H: w.Settings.H}
	var qx, qy []float64
	for n := 0; n < 2400; n++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
		a, _ := jx.Angle(ctx)
		b, _ := jy.Angle(ctx)
		qx, qy = append(qx, a), append(qy, b)
	}
	for _, c := range []struct {
		name string
		q    []float64
		i    float64
	}{{"x", qx, 1.2}, {"y", qy, 1.05}} {
		got, want := periodOf(c.q, 0.005), 2*math.Pi*math.Sqrt(c.i/9.81)
		t.Logf("about %s: period %.5f s, want %.5f s (%+.2g)", c.name, got, want, got/want-1)
		if math.Abs(got/want-1) > 2e-4 {
			t.Errorf("about %s: period %.5f s, want %.5f s within 0.02 %%", c.name, got, want)
		}
	}
}

// BenchmarkMJCFHumanoidMultiStep times one step of humanoid_multi.xml
// (SplitJoints = 1e-3) lying at rest on the plane after 800 steps of
// falling, the steady state of TestMJCFHumanoidMultiJoint.
func BenchmarkMJCFHumanoidMultiStep(b *testing.B) {
	benchRestingStep(b, "humanoid_multi.xml", ImportOptions{SplitJoints: 1e-3}, 800)
}

// benchRestingStep times one step of the model file (in testdata/models)
// after settle steps.
func benchRestingStep(b *testing.B, file string, opts ImportOptions, settle int) {
	s, _, err := LoadMJCF(modelDir+file, opts)
	if err != nil {
		b.Fatal(err)
	}
	w, err := s.World()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < settle; i++ {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
