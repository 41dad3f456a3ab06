package scenes

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// jointProbe measures a hinge of a running World: the gap between its
// pivot as carried by each body, and its angle (A's rotation relative to
// B about the initial axis, since the initial pose).
type jointProbe struct {
	spec       JointSpec
	a, b       int // body indices, −1 = world
	la, lb     mgl64.Vec3
	qa0, qb0   mgl64.Quat
	axis       mgl64.Vec3
	lo, hi     float64
	hasLimits  bool
	maxGap     float64
	maxOverrun float64 // rad beyond a limit
	closest    float64 // rad, least distance inside a limit (negative beyond)
}

// TestMJCFHumanoidFallsAndSettles: humanoid.xml (capsule limbs, 12 hinges
// with limits, a free root, motors at zero input) stands, topples onto the
// plane and comes to rest. Over 4 s (800 steps of 5 ms) every hinge's two
// pivots stay within 1 cm, every limit is held within 1°, and the total
// energy (kinetic + potential above z = 0) never rises more than 1 % of
// the initial energy above its lowest value so far; at the end the model
// is at rest (kinetic energy below 1e-3 J).
func TestMJCFHumanoidFallsAndSettles(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 {
		t.Errorf("warnings %v, want one (the motors)", ws)
	}
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
	var probes []*jointProbe
	for _, j := range s.Joints {
		if j.Type != JointHinge {
			t.Fatalf("joint %s: %s, want hinge", j.Name, j.Type)
		}
		p := &jointProbe{spec: j, a: index[j.A], b: index[j.B], axis: j.Axis.Normalize(), closest: math.Inf(1)}
		pa, qa := pose(p.a)
		pb, qb := pose(p.b)
		p.la = qa.Conjugate().Rotate(j.Pivot.Sub(pa))
		p.lb = qb.Conjugate().Rotate(j.Pivot.Sub(pb))
		p.qa0, p.qb0 = qa, qb
		if j.Limits != nil {
			p.lo, p.hi, p.hasLimits = j.Limits.Lower, j.Limits.Upper, true
		}
		probes = append(probes, p)
	}
	if len(probes) != 12 {
		t.Fatalf("%d hinges, want 13", len(probes))
	}
	k0, p0 := w.Energy()
	e0 := k0 + p0
	emin, maxRise := e0, 0.0
	minTorso := math.Inf(1)
	const steps = 800
	for i := 0; i < steps; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		k, p := w.Energy()
		e := k + p
		maxRise = math.Max(maxRise, e-emin)
		emin = math.Min(emin, e)
		minTorso = math.Min(minTorso, w.Bodies[0].Pos[2])
		for _, pr := range probes {
			pa, qa := pose(pr.a)
			pb, qb := pose(pr.b)
			gap := pa.Add(qa.Rotate(pr.la)).Sub(pb.Add(qb.Rotate(pr.lb))).Len()
			pr.maxGap = math.Max(pr.maxGap, gap)
			// A's orientation in B's frame changed by D = rel(t) rel(0)⁻¹,
			// rel = q_b⁻¹ q_a: a rotation about the axis in B's frame.
			d := qb.Conjugate().Mul(qa).Mul(pr.qb0.Conjugate().Mul(pr.qa0).Conjugate())
			th := 2 * math.Atan2(d.V.Dot(pr.qb0.Conjugate().Rotate(pr.axis)), d.W)
			if th > math.Pi {
				th -= 2 * math.Pi
			} else if th < -math.Pi {
				th += 2 * math.Pi
			}
			if pr.hasLimits {
				pr.maxOverrun = math.Max(pr.maxOverrun, math.Max(pr.lo-th, th-pr.hi))
				pr.closest = math.Min(pr.closest, math.Min(th-pr.lo, pr.hi-th))
			}
		}
	}
	worstGap, worstOver, atLimit := 0.0, 0.0, 0
	for _, pr := range probes {
		if pr.closest < math.Pi/180 {
			atLimit++
		}
		worstGap = math.Max(worstGap, pr.maxGap)
		worstOver = math.Max(worstOver, pr.maxOverrun)
		if pr.maxGap > 0.01 {
			t.Errorf("joint %s: pivots %.4g m apart, want ≤ 1 cm", pr.spec.Name, pr.maxGap)
		}
		if pr.maxOverrun > math.Pi/180 {
			t.Errorf("joint %s: %.3g° beyond its limit, want ≤ 1°", pr.spec.Name, pr.maxOverrun*180/math.Pi)
		}
	}
	k, p := w.Energy()
	t.Logf("energy %.2f J → %.2f J, largest rise %.3g J (%.3g %%), worst pivot gap %.3g m, worst limit overrun %.3g° (%d joints at a limit), torso lowest z %.3f m, final kinetic %.3g J",
		e0, k+p, maxRise, 100*maxRise/e0, worstGap, worstOver*180/math.Pi, atLimit, minTorso, k)
	// The fall drives joints onto their limits, so the limit check is not
	// vacuous.
	if atLimit < 2 {
		t.Errorf("%d joints came within 1° of a limit, want ≥ 2", atLimit)
	}
	if maxRise > 0.01*e0 {
		t.Errorf("energy rose by %.4g J = %.3g %% of %.4g J, want ≤ 1 %%", maxRise, 100*maxRise/e0, e0)
	}
	if !(minTorso < 0.5) {
		t.Errorf("torso lowest at z = %.3f m: it should have fallen (it starts at 1.45)", minTorso)
	}
	if k > 1e-3 {
		t.Errorf("kinetic energy %.3g J after 4 s, want < 1e-3 J (at rest)", k)
	}
}

// BenchmarkMJCFHumanoidStep times one step of humanoid.xml lying at rest
// on the plane (after 600 steps of falling), the steady state of the
// settle test.
func BenchmarkMJCFHumanoidStep(b *testing.B) {
	s, _, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := s.World()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 600; i++ {
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
