package stepper_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cradle: five 0.2 kg balls of radius 0.025 m in a row along x, e = 1,
// no gravity; balls 2–5 touch, ball 1 arrives at v0 from 2 mm away.
func cradle(t testing.TB, mode stepper.Impacts, v0 float64) (*stepper.World, []*body.Body) {
	t.Helper()
	return cradleN(t, mode, v0, 5)
}

// cradleN is cradle with n balls.
func cradleN(t testing.TB, mode stepper.Impacts, v0 float64, n int) (*stepper.World, []*body.Body) {
	t.Helper()
	w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Impacts: mode})
	require.NoError(t, err)
	const m, r = 0.2, 0.025
	sphere, err := contact.NewSphere(r)
	require.NoError(t, err)
	var bs []*body.Body
	for i := 0; i < n; i++ {
		x := 2 * r * float64(i)
		if i == 0 {
			x -= 0.002
		}
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: mgl64.Vec3{x, 0, 0}, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sphere, Material: stepper.Material{Restitution: 1}})
		require.NoError(t, err)
		bs = append(bs, b)
	}
	bs[0].Vel = mgl64.Vec3{v0, 0, 0}
	return w, bs
}

// Newton's cradle: with propagated impacts the struck row passes the
// impact on, ball 5 leaves at v0 and the others stay; momentum and energy
// are kept. The default (Newton's law on every row of the step's MLCP at
// once) sends balls 2–5 off together at 0.4 v0 and ball 1 back at 0.6 v0,
// which keeps momentum and energy as well, but is not what a row of
// steel balls does (a Hertz contact chain gives ball 5 0.989 v0).
func TestNewtonsCradle(t *testing.T) {
	const v0 = 1.0
	for _, c := range []struct {
		mode       stepper.Impacts
		last, rest float64 // ball 5's speed and the largest |v| of balls 1–4, /v0
	}{{stepper.SimultaneousImpacts, 0.4, 0.6}, {stepper.PropagatedImpacts, 1, 0}} {
		w, bs := cradle(t, c.mode, v0)
		k0, _ := w.Energy()
		p0 := 0.0
		for _, b := range bs {
			p0 += b.Mass * b.Vel[0]
		}
		sweeps := 0
		for i := 0; i < 30; i++ {
			st, err := w.Step()
			require.NoError(t, err)
			sweeps += st.ImpactSweeps
		}
		k, _ := w.Energy()
		p, rest := 0.0, 0.0
		for _, b := range bs[:4] {
			rest = math.Max(rest, b.Vel.Len())
		}
		for _, b := range bs {
			p += b.Mass * b.Vel[0]
		}
		t.Logf("%v: ball 5 at %.6f v0, balls 1–4 at most %.6f v0 (ball 1 %.4f); momentum %.3g, energy %.3g off; %d impact sweeps",
			c.mode, bs[4].Vel[0]/v0, rest/v0, bs[0].Vel[0]/v0, p/p0-1, k/k0-1, sweeps)
		assert.InDelta(t, c.last, bs[4].Vel[0]/v0, 1e-6)
		assert.InDelta(t, c.rest, rest/v0, 1e-6)
		assert.InDelta(t, 1, p/p0, 0.01, "momentum within 1 %")
		assert.InDelta(t, 1, k/k0, 0.01, "energy within 1 %")
	}
}

// Propagated impacts solve a pair's points together: a 1 kg box dropped
// flat from 0.4 m (e = 0.5) bounces as in the default mode, to e² 0.4 m
// = 0.1 m, and does not pick up a spin from the order of its corners.
func TestPropagatedImpactsFlatBox(t *testing.T) {
	for _, mode := range []stepper.Impacts{stepper.SimultaneousImpacts, stepper.PropagatedImpacts} {
		w, err := stepper.New(stepper.Settings{H: 0.01, Gravity: stepper.StandardGravity, Impacts: mode})
		require.NoError(t, err)
		ground(t, w, mgl64.QuatIdent(), 0.5)
		b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.5}, mgl64.QuatIdent(), 0.5)
		w.Geoms[len(w.Geoms)-1].Material.Restitution = 0.5
		top, spin, bounced := 0.0, 0.0, false
		for i := 0; i < 150; i++ {
			_, err := w.Step()
			require.NoError(t, err)
			spin = math.Max(spin, b.AngVel.Len())
			bounced = bounced || b.Vel[2] > 0
			if bounced {
				top = math.Max(top, b.Pos[2]-0.1)
			}
		}
		t.Logf("%v: rebound %.4f m, largest spin %.2g rad/s", mode, top, spin)
		assert.InDelta(t, 0.1, top, 0.01, "rebound e² h (the step's discretization: 10 %)")
		assert.Less(t, spin, 1e-9)
	}
}

// Newton's cradle as a user builds one: five 0.2 kg balls (r = 0.025 m)
// hung on 0.5 m arms (hinges about y, pivots 0.05 m apart), touching,
// under DefaultSettings (gravity, h = 1/60 s) with propagated impacts;
// ball 1 released at rest 30° out arrives at 1.15 m/s. Ball 5 swings out
// to ball 1's release height and balls 2–4 stay put; with the default
// simultaneous impacts the four would swing out together.
func TestHangingNewtonsCradle(t *testing.T) {
	const m, r, l, g = 0.2, 0.025, 0.5, 9.81
	theta0 := math.Pi / 6
	set := stepper.DefaultSettings()
	set.Impacts = stepper.PropagatedImpacts
	w, err := stepper.New(set)
	require.NoError(t, err)
	sphere, err := contact.NewSphere(r)
	require.NoError(t, err)
	var balls []*body.Body
	for i := 0; i < 5; i++ {
		pivot := mgl64.Vec3{2 * r * float64(i), 0, 1}
		pos := pivot.Add(mgl64.Vec3{0, 0, -l})
		if i == 0 { // pulled back in −x
			pos = pivot.Add(mgl64.Vec3{-l * math.Sin(theta0), 0, -l * math.Cos(theta0)})
		}
		b, err := body.New(body.Params{Mass: m, Inertia: body.SphereInertia(m, r), Pos: pos, Rot: mgl64.QuatIdent()})
		require.NoError(t, err)
		id, err := w.AddBody(b)
		require.NoError(t, err)
		_, err = w.AddGeom(stepper.Geom{Body: id, Shape: sphere, Material: stepper.Material{Restitution: 1}})
		require.NoError(t, err)
		hinge, err := constraint.NewHinge(w.Bodies, constraint.World, id, pivot, mgl64.Vec3{0, 1, 0})
		require.NoError(t, err)
		require.NoError(t, w.AddConstraint(hinge))
		balls = append(balls, b)
	}
	rise := l * (1 - math.Cos(theta0)) // ball 1's release height above the bottom
	top5, move := 0.0, 0.0             // ball 5's highest rise; balls 2–4's largest displacement
	sweeps := 0
	for s := 0; s < 40; s++ { // 0.67 s: ball 1 arrives at about 0.18 s, ball 5 peaks about 0.36 s later
		st, err := w.Step()
		require.NoError(t, err)
		sweeps += st.ImpactSweeps
		top5 = math.Max(top5, balls[4].Pos[2]-(1-l))
		for i, b := range balls[1:4] {
			move = math.Max(move, math.Abs(b.Pos[0]-2*r*float64(i+1)))
		}
	}
	t.Logf("ball 5 rises %.4f m of ball 1's %.4f m (%.1f %%); balls 2–4 move at most %.2g m; %d impact sweeps",
		top5, rise, 100*top5/rise, move, sweeps)
	// 5 %: the step resolves the arrival speed to g h sin θ (0.05 m/s of
	// 1.15) and the speculative contact meets ball 1 up to h v short.
	assert.InEpsilon(t, rise, top5, 0.05, "ball 5 takes ball 1's energy")
	assert.Less(t, move, 0.1*rise, "balls 2–4 stay")
}

// What propagated impacts cost: the step in which ball 1 strikes the row,
// for the five-ball cradle and a row of 50, in both modes. Ball 1 starts
// one step's travel farther out, so the world has stepped once (its
// buffers grown) before the timed step, step 2, in which it strikes. A
// propagated step adds the pair-by-pair impacts before the same solve
// (Stats.ImpactSweeps sweeps over the touching pairs, a k × k solve per
// pair of k points); steps without a bounce cost the same in both modes.
func BenchmarkCradleImpactStep(b *testing.B) {
	for _, n := range []int{5, 50} {
		for _, mode := range []stepper.Impacts{stepper.SimultaneousImpacts, stepper.PropagatedImpacts} {
			b.Run(fmt.Sprintf("balls=%d/%v", n, mode), func(b *testing.B) {
				b.ReportAllocs()
				sweeps := 0
				for b.Loop() {
					b.StopTimer()
					w, bs := cradleN(b, mode, 1, n)
					bs[0].Pos[0] -= w.Settings.H * bs[0].Vel[0]
					st, err := w.Step()
					if err != nil || st.ImpactSweeps != 0 {
						b.Fatalf("step 1: %v, %d impact sweeps", err, st.ImpactSweeps)
					}
					b.StartTimer()
					st, err = w.Step()
					if err != nil {
						b.Fatal(err)
					}
					sweeps += st.ImpactSweeps
				}
				b.ReportMetric(float64(sweeps)/float64(b.N), "sweeps/op")
			})
		}
	}
}

// bounceRun steps w for secs and returns the apexes of f (a height, m): its
// largest value over each run of steps in which df (its rate) is > 0.
func bounceRun(t *testing.T, w *stepper.World, secs float64, f, df func() float64) []float64 {
	t.Helper()
	var apexes []float64
	top, rising := 0.0, false
	for i := 0; i < int(math.Round(secs/w.Settings.H)); i++ {
		_, err := w.Step()
		require.NoError(t, err)
		if df() > 0 {
			rising, top = true, math.Max(top, f())
		} else if rising {
			apexes, rising, top = append(apexes, top), false, 0
		}
	}
	return apexes
}

// A 0.2 m box (e = 0.5, μ = 0.5) dropped 0.4 m flat onto the floor, or on
// an edge (turned 45° about x, its centre above the edge), bounces to e² ·
// 0.4 m, then e⁴ · 0.4 m: the corners (edge) meet the floor together and
// the impulse passes through the centre, so the box leaves without spin
// and its flight is the ball's (TestEverydayBallBounce): the apex is
// e^2k · 0.4 m to within the steps' sampling of it, g h²/8, and never
// above. Its energy never grows from step to step by more than m g ·
// 1e-8 m (1e-7 J): at rest the contacts push a penetration of 2e-9 m out
// (1.9e-8 J at h = 1/240 s); the bounces add none.
func TestBounceBoxFlatAndOnEdge(t *testing.T) {
	const e, drop, g = 0.5, 0.4, 9.81
	for _, edge := range []bool{false, true} {
		for _, h := range []float64{1.0 / 60, 1.0 / 240} {
			w, err := stepper.New(stepper.Settings{H: h, Gravity: stepper.StandardGravity})
			require.NoError(t, err)
			ground(t, w, mgl64.QuatIdent(), 0.5)
			rot, low := mgl64.QuatIdent(), 0.1 // the centre's height at rest on the floor
			if edge {
				rot, low = mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0}), 0.1*math.Sqrt2
			}
			b := addBox(t, w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, low + drop}, rot, 0.5)
			w.Geoms[len(w.Geoms)-1].Material.Restitution = e
			k0, u0 := w.Energy()
			grow, prev := 0.0, k0+u0
			var apexes []float64
			top, rising, spin := 0.0, false, 0.0
			for i := 0; i < int(math.Round(1.2/h)); i++ {
				_, err := w.Step()
				require.NoError(t, err)
				k, u := w.Energy()
				grow, prev = math.Max(grow, k+u-prev), k+u
				spin = math.Max(spin, b.AngVel.Len())
				if b.Vel[2] > 0 {
					rising, top = true, math.Max(top, b.Pos[2]-low)
				} else if rising {
					apexes, rising, top = append(apexes, top), false, 0
				}
			}
			tol := g * h * h / 8
			require.GreaterOrEqual(t, len(apexes), 2)
			t.Logf("edge %v, h = %.4f s: apexes %.5f m (e² · 0.4 = 0.1, e⁴ · 0.4 = 0.025; g h²/8 = %.1e), largest spin %.1e rad/s, energy growth %.1e J",
				edge, h, apexes[:2], tol, spin, grow)
			for k, a := range apexes[:2] {
				want := math.Pow(e*e, float64(k+1)) * drop
				assert.GreaterOrEqual(t, a, want-1e-9, "apex %d", k+1)
				assert.LessOrEqual(t, a, want+tol+1e-9, "apex %d", k+1)
			}
			assert.Less(t, spin, 1e-9, "leaves without spin")
			assert.Less(t, grow, 1e-7)
		}
	}
}

// A ball (r = 0.1 m, e = 0.5 or 0.8, μ = 0.5) dropped onto a 30° slope
// from 0.5 m above it (along its normal): the slope's normal velocity
// bounces, the motion along the slope goes on, and since friction at a
// sphere's one point does not touch the normal motion, the distance from
// the slope is a ball dropped from 0.5 m under g cos 30°: its apexes are
// e^2k · 0.5 m, to within g cos 30° h²/8 and never above.
func TestBounceOnSlope(t *testing.T) {
	const r, drop, g = 0.1, 0.5, 9.81
	tilt := mgl64.QuatRotate(math.Pi/6, mgl64.Vec3{1, 0, 0})
	n := tilt.Rotate(mgl64.Vec3{0, 0, 1})
	for _, e := range []float64{0.5, 0.8} {
		w, err := stepper.New(stepper.Settings{H: 1.0 / 60, Gravity: stepper.StandardGravity})
		require.NoError(t, err)
		ground(t, w, tilt, 0.5)
		s, err := contact.NewSphere(r)
		require.NoError(t, err)
		b := addShapeBody(t, w, s, 1, body.SphereInertia(1, r), n.Mul(r+drop), mgl64.QuatIdent(), 0.5)
		w.Geoms[len(w.Geoms)-1].Material.Restitution = e
		apexes := bounceRun(t, w, 1.5, func() float64 { return b.Pos.Dot(n) - r }, func() float64 { return b.Vel.Dot(n) })
		tol := g * math.Cos(math.Pi/6) * w.Settings.H * w.Settings.H / 8
		require.GreaterOrEqual(t, len(apexes), 2)
		t.Logf("e = %v: apexes off the slope %.5f m (e^2k · 0.5 m; tolerance %.1e m), speed along it %.3f m/s", e, apexes[:2], tol, b.Vel.Sub(n.Mul(b.Vel.Dot(n))).Len())
		for k, a := range apexes[:2] {
			want := math.Pow(e*e, float64(k+1)) * drop
			assert.GreaterOrEqual(t, a, want-1e-9, "apex %d", k+1)
			assert.LessOrEqual(t, a, want+tol+1e-9, "apex %d", k+1)
		}
	}
}

// Two balls (r = 0.1 m, 1 kg at +2 m/s and 2 kg at −1 m/s, e = 0.5, no
// gravity) meet head-on 0.4 of the way through a step of 1/60 s: after the
// step they have the 1D analytic velocities v₁ = (m₁v₁ + m₂v₂ − m₂ e (v₁ −
// v₂))/(m₁ + m₂) = −1 m/s and v₂ = 0.5 m/s, momentum stays 0 and the
// centre of mass in place (to rounding), and their surfaces are e · 3 m/s ·
// 0.6 h apart: they met, then separated for the rest of the step. In both
// impact modes.
func TestBounceHeadOn(t *testing.T) {
	const r, e, m1, m2, v1, v2, h = 0.1, 0.5, 1.0, 2.0, 2.0, -1.0, 1.0 / 60
	for _, mode := range []stepper.Impacts{stepper.SimultaneousImpacts, stepper.PropagatedImpacts} {
		w, err := stepper.New(stepper.Settings{H: h, Impacts: mode})
		require.NoError(t, err)
		s, err := contact.NewSphere(r)
		require.NoError(t, err)
		gap0 := (v1 - v2) * 10.4 * h // the gap closes at 10.4 h
		a := addShapeBody(t, w, s, m1, body.SphereInertia(m1, r), mgl64.Vec3{0, 0, 0}, mgl64.QuatIdent(), 0.5)
		w.Geoms[len(w.Geoms)-1].Material.Restitution = e
		b := addShapeBody(t, w, s, m2, body.SphereInertia(m2, r), mgl64.Vec3{2*r + gap0, 0, 0}, mgl64.QuatIdent(), 0.5)
		w.Geoms[len(w.Geoms)-1].Material.Restitution = e
		a.Vel, b.Vel = mgl64.Vec3{v1, 0, 0}, mgl64.Vec3{v2, 0, 0}
		com0 := (m1*a.Pos[0] + m2*b.Pos[0]) / (m1 + m2)
		for i := 0; i < 11; i++ {
			_, err := w.Step()
			require.NoError(t, err)
		}
		wantA := (m1*v1 + m2*v2 - m2*e*(v1-v2)) / (m1 + m2)
		wantB := (m1*v1 + m2*v2 + m1*e*(v1-v2)) / (m1 + m2)
		gap := b.Pos[0] - a.Pos[0] - 2*r
		p := m1*a.Vel[0] + m2*b.Vel[0]
		com := (m1*a.Pos[0] + m2*b.Pos[0]) / (m1 + m2)
		wantGap := e * (v1 - v2) * 0.6 * h
		t.Logf("%v: v₁ %.15f (%.15f), v₂ %.15f (%.15f) m/s, momentum %.1e, centre of mass moved %.1e m, gap %.6f m (e·3·0.6 h = %.6f)",
			mode, a.Vel[0], wantA, b.Vel[0], wantB, p, com-com0, gap, wantGap)
		assert.InDelta(t, wantA, a.Vel[0], 1e-12)
		assert.InDelta(t, wantB, b.Vel[0], 1e-12)
		assert.InDelta(t, 0, p, 1e-14)
		assert.InDelta(t, com0, com, 1e-14)
		assert.InDelta(t, wantGap, gap, 1e-12)
	}
}

// Newton's cradle under PropagatedImpacts, the striking step: ball 1
// arrives 2 mm short of the row at 1 m/s, so it meets ball 2 at t_c =
// 0.002 s and the impact passes down the row then; after the step ball 1
// stands touching ball 2 (x = 0), balls 2–4 have not moved, and ball 5
// has travelled for h − t_c: x₅ = 0.2 m + (h − t_c) · 1 m/s (to
// rounding). Before the impacts acted at their time of contact, ball 1
// stopped where it started, 2 mm short, and ball 5 went h · 1 m/s.
// Under SimultaneousImpacts only the bouncing row's impulse moves to t_c,
// and only on bodies nothing else pushes (shiftBounces): ball 1 ends at
// −0.6 v₀ (h − t_c); balls 2–5, which the simultaneous law moves as one
// body at 0.4 v₀, are held by their touching rows and not shifted, so they
// stay touching (ball 2 at 0.05 m + 0.4 v₀ h, ball 3 0.05 m from it). A
// gap between touching balls that leave at the same velocity would be an
// artefact (with only ball 2 shifted it was t_c · 1.6 v₀ = 3.2 mm); the
// row as a whole starts t_c early, 0.4 v₀ t_c = 0.8 mm ahead.
func TestCradleImpactTime(t *testing.T) {
	ws, bss := cradle(t, stepper.SimultaneousImpacts, 1)
	_, err := ws.Step()
	require.NoError(t, err)
	hs := ws.Settings.H
	gap := bss[2].Pos[0] - bss[1].Pos[0] - 0.05
	t.Logf("simultaneous: ball 1 at %.6f m (−0.6 (h − t_c) = %.6f), ball 2 at %.6f m (0.05 + 0.4 h = %.6f), balls 2 and 3 %.1e m apart", bss[0].Pos[0], -0.6*(hs-0.002), bss[1].Pos[0], 0.05+0.4*hs, gap)
	assert.InDelta(t, -0.6*(hs-0.002), bss[0].Pos[0], 1e-12)
	assert.InDelta(t, 0.05+0.4*hs, bss[1].Pos[0], 1e-12)
	assert.InDelta(t, 0, gap, 1e-12)

	w, bs := cradle(t, stepper.PropagatedImpacts, 1)
	_, err = w.Step()
	require.NoError(t, err)
	h := w.Settings.H
	want := []float64{0, 0.05, 0.1, 0.15, 0.2 + (h - 0.002)}
	for i, b := range bs {
		assert.InDelta(t, want[i], b.Pos[0], 1e-15, "ball %d", i+1)
	}
	t.Logf("x = %.6f %.6f %.6f %.6f %.6f m (ball 5: 0.2 + h − t_c = %.6f)", bs[0].Pos[0], bs[1].Pos[0], bs[2].Pos[0], bs[3].Pos[0], bs[4].Pos[0], want[4])
}
