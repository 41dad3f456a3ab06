package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ropeRun is what hangRope measured.
type ropeRun struct {
	rise      float64 // largest energy above the start, kick included (J)
	loss      float64 // start − end (J)
	kick      float64 // the kick's kinetic energy (J)
	viol      float64 // largest joint error (Stats.MaxViolation, m)
	projected int     // steps that ran the position projection
	stiffened int     // most bodies stiffened in a step (Stats.Stiffened)
}

// Rope links: capsules of 0.05 kg, radius 0.02 m, 0.1 m between joints.
const ropeL, ropeR, ropeM = 0.1, 0.02, 0.05

// ropeWorld hangs n rope links on ball joints from a world pivot 4 m up
// and kicks the bottom link sideways at kick m/s, with DefaultSettings at
// h (0: its 1/60 s).
func ropeWorld(t testing.TB, n int, h, kick float64) *stepper.World {
	t.Helper()
	w := nuWorld(t, h)
	top := mgl64.Vec3{0, 0, 4}
	prev := constraint.World
	for i := 0; i < n; i++ {
		id := nuCapsule(t, w, ropeM, ropeR, ropeL, top.Sub(mgl64.Vec3{0, 0, ropeL * (float64(i) + 0.5)}), mgl64.Vec3{0, 0, 1})
		bj, err := constraint.NewBall(w.Bodies, prev, id, top.Sub(mgl64.Vec3{0, 0, ropeL * float64(i)}))
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(bj))
		prev = id
	}
	w.Bodies[n-1].Vel = mgl64.Vec3{kick, 0, 0}
	return w
}

// hangRope steps ropeWorld's rope for dur s.
func hangRope(t testing.TB, n int, h, kick, dur float64) ropeRun {
	t.Helper()
	w := ropeWorld(t, n, h, kick)
	k0, u0 := w.Energy()
	res := ropeRun{kick: k0}
	for i := 0; i < int(math.Round(dur/w.Settings.H)); i++ {
		st, err := w.Step()
		require.NoError(t, err)
		k, u := w.Energy()
		res.rise = math.Max(res.rise, k+u-k0-u0)
		res.viol = math.Max(res.viol, st.MaxViolation)
		if st.Projections > 0 {
			res.projected++
		}
		res.stiffened = max(res.stiffened, st.Stiffened)
	}
	k, u := w.Energy()
	res.loss = k0 + u0 - k - u
	return res
}

// ropeStiffLinks is the number of links of a still rope of n links whose
// geometric stiffness ratio exceeds GeometricStiffnessTol at h: link k
// (from the top, 1-based) carries (n − k + 1) m g at its top anchor and
// (n − k) m g at its bottom one, each at l/2 from its centre, so
// s = h² (n − k + ½) m g l / I, I its transverse inertia; the top link
// turns about its world pivot, I + m (l/2)².
func ropeStiffLinks(n int, h float64) int {
	in := body.CapsuleInertia(ropeM, ropeR, ropeL).At(0, 0)
	c := 0
	for k := 1; k <= n; k++ {
		i := in
		if k == 1 {
			i += ropeM * ropeL * ropeL / 4
		}
		if h*h*(float64(n-k)+0.5)*ropeM*9.81*ropeL/i > stepper.GeometricStiffnessTol {
			c++
		}
	}
	return c
}

// A rope of light links hanging at a game step does not blow up. The
// tension T of a rope turns a link back with a stiffness T·l which a
// velocity-level step takes at the step's start, explicitly: before
// GeometricStiffnessTol the top links of 30 links at h = 1/60 s zig-zagged
// from step 36, the projection ran on 129 of 180 steps and the rope gained
// 1.2 J from a 0.0063 J kick (5.6 J from a 2 m/s kick); 100 links gained
// 334 J at 1/120 s and 6.3e4 J at 1/60 s, their joints 15 m apart. Now
// no case rises above its start and the joints hold within 1 mm; the
// added inertia takes energy out: 20 links at 1/60 s lose 0.0022 J of
// the 0.0063 J kick in 3 s (0.0011 J unstiffened, as 30 links at
// 1/120 s, which are not stiffened, lose 0.0012 J), 100 links at 1/60 s
// 0.0053 J.
func TestRopeGeometricStiffness(t *testing.T) {
	for _, c := range []struct {
		n       int
		h, kick float64
	}{
		{20, 1.0 / 60, 0.5}, {30, 1.0 / 60, 0.5}, {30, 1.0 / 60, 2}, {30, 1.0 / 120, 0.5},
		{100, 1.0 / 120, 0.5}, {100, 1.0 / 60, 0.5},
	} {
		r := hangRope(t, c.n, c.h, c.kick, 3)
		still := ropeStiffLinks(c.n, c.h)
		t.Logf("%d links, h = 1/%.0f s, kick %.1f m/s (%.4f J): energy up to %.1e J above the start, %.4f J lost in 3 s; joints within %.1e m, %d steps projected; up to %d links stiffened (%d of a still rope)",
			c.n, 1/c.h, c.kick, r.kick, r.rise, r.loss, r.viol, r.projected, r.stiffened, still)
		// 1e-9 J: rounding of the rope's 15–150 J of potential energy is
		// 1e-13 J; the unstable zig-zag gained 1e-2 J within 10 steps.
		assert.LessOrEqual(t, r.rise, 1e-9, "energy above the start")
		assert.Less(t, r.viol, 1e-3, "joint gap")
		// At most the kick's energy is lost (the rope swings on).
		assert.Less(t, r.loss, r.kick)
		// The swing adds tension to the still rope's: the links of a
		// still rope are stiffened, and some more.
		assert.GreaterOrEqual(t, r.stiffened, still)
		assert.Less(t, r.stiffened, c.n)
	}
}

// A still rope stiffens exactly the links ropeStiffLinks counts from its
// static tension: none at 30 links and h = 1/120 s (s ≤ 1.33), 19 at
// 1/60 s (s from 5.34 at link 2 down to 2.16 at link 19, 1.97 at link 20;
// the top link, turning about its pivot, 2.03).
func TestRopeStillStiffenedLinks(t *testing.T) {
	for _, h := range []float64{1.0 / 60, 1.0 / 120} {
		r := hangRope(t, 30, h, 0, 1)
		t.Logf("h = 1/%.0f s: %d links stiffened, %d predicted; energy up to %.1e J above the start, joints within %.1e m", 1/h, r.stiffened, ropeStiffLinks(30, h), r.rise, r.viol)
		assert.Equal(t, ropeStiffLinks(30, h), r.stiffened)
		assert.LessOrEqual(t, r.rise, 1e-9)
	}
}

// A stiffened rope's steady steps allocate nothing.
func TestRopeStiffenedStepsAllocateNothing(t *testing.T) {
	w := ropeWorld(t, 30, 1.0/60, 0.5)
	_, st := nuStep(t, w, 30)
	require.Positive(t, st.Stiffened)
	assert.Zero(t, testing.AllocsPerRun(10, func() { _, _ = w.Step() }))
}

// The steps of a 100-link rope at h = 1/120 s, 57 links stiffened.
func BenchmarkRope100(b *testing.B) {
	w := ropeWorld(b, 100, 1.0/120, 0.5)
	nuStep(b, w, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
}
