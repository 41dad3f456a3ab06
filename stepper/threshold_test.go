package stepper_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Friction thresholds against their analytic answers, 2 % either side of
// each, at h = 1/60 s with DefaultSettings, built as a user builds them.
// The tests near them (TestBlockOnInclineSticks at 0.9 μ and h = 1 ms,
// TestEverydayDiagonalIncline at tan θ = 0.577 against μ = 0.5 and 0.7,
// TestEverydayPushAtAngle at 1.2 μ m g, TestNewUserLeaningPlank at 60°
// and 25° against 36.9°) stay far from them.

// thRun steps w 60 steps (1 s) and n more, and returns b's displacement
// over them all and its acceleration along u over the last n (the
// velocity gained over their time: exact for semi-implicit Euler under
// constant forces).
func thRun(t *testing.T, w *stepper.World, b *body.Body, u mgl64.Vec3, n int) (d mgl64.Vec3, a float64) {
	t.Helper()
	p0 := b.Pos
	_, _ = nuStep(t, w, 60)
	v1 := b.Vel.Dot(u)
	_, _ = nuStep(t, w, n)
	return b.Pos.Sub(p0), (b.Vel.Dot(u) - v1) / (float64(n) * w.Settings.H)
}

// A 1 kg box of 0.2 m on an incline with μ = 0.5, tan θ = 0.98 μ and
// 1.02 μ, the slope running at 0°, 30° and 45° to the world's x axis (the
// contacts' friction rows are a square in a frame of their own: at 30° and
// 45° the downhill direction is diagonal to it). Below the threshold it
// stays (drift at most 1e-6 m in 5 s); above it slides straight down at
// g(sin θ − μ cos θ) = 0.0874 m/s². Before updateSleep looked at a growing
// speed it slept at 0.5 s, still below 0.05 m/s, and stayed (a = 0).
func TestThresholdIncline(t *testing.T) {
	const mu = 0.5
	for _, k := range []float64{0.98, 1.02} {
		th := math.Atan(k * mu)
		for _, deg := range []float64{0, 30, 45} {
			sl := newSlope(t, th, deg, mu)
			b := addBox(t, sl.w, 1, mgl64.Vec3{0.2, 0.2, 0.2}, sl.n.Mul(0.1), sl.rot, mu)
			w, down := sl.w, sl.down
			d, a := thRun(t, w, b, down, 240)
			if k < 1 {
				t.Logf("tan θ = %.2f μ, slope at %v°: drift %.2e m in 5 s, asleep %v", k, deg, d.Len(), w.Asleep(0))
				// 1e-6 m: sticking is exact up to the first step's settling.
				assert.Less(t, d.Len(), 1e-6, "tan θ = %v μ at %v° slid", k, deg)
				continue
			}
			want := evG * (math.Sin(th) - mu*math.Cos(th))
			t.Logf("tan θ = %.2f μ, slope at %v°: a = %.6f m/s² (analytic %.6f), %.1e m sideways, asleep %v", k, deg, a, want, evSide(d, down), w.Asleep(0))
			// 1e-6 m/s² on 0.0874: exact for semi-implicit Euler under
			// constant forces, the solver's tolerance aside.
			assert.InDelta(t, want, a, 1e-6, "tan θ = %v μ at %v°", k, deg)
			assert.Less(t, evSide(d, down), 1e-6, "sideways")
		}
	}
}

// A 1 kg box of 0.2 m on the floor (μ = 0.4) pushed through its centre by
// a horizontal F = 0.98 μ m g stays (at most 1e-6 m in 5 s), by 1.02 μ m g
// slides at a = 0.02 μ g = 0.07848 m/s² along F, at headings 0°, 30° and
// 45° to the box's faces and to the world's axes. Its path's straightness
// is TestThresholdPushStraight's.
func TestThresholdPush(t *testing.T) {
	thresholdPush(t, false)
}

// TestThresholdPush's slide keeps to F's line: at most 1e-6 m sideways in
// 5 s (measured 1.6e-14 m at 0°, 3.4e-15 at 30°, 3.1e-16 at 45°). At 0° it
// drifted 2.5e-5 m sideways before freeSlipAxis swapped t₁ and t₂ for a
// slip along t₂ (v_y = 6.54e-8 m/s after the second step and 3.27e-8 m/s
// more each step): in the push's first step the contacts kept their rest
// frame (T1 = y, the push on its T2 axis); in the second they slipped along
// x and fillContactRange turned T1 to x but kept the four rows' index
// states of the turned frame, the solve stopped at lcp.BPP's tolerance
// with that residual, and the coherent centre (CoherentOn) kept it every
// step.
func TestThresholdPushStraight(t *testing.T) {
	thresholdPush(t, true)
}

// thresholdPush runs TestThresholdPush, with straight its sideways check.
func thresholdPush(t *testing.T, straight bool) {
	const mu, m = 0.4, 1.0
	for _, k := range []float64{0.98, 1.02} {
		for _, deg := range []float64{0, 30, 45} {
			w := nuWorld(t, 0)
			ground(t, w, mgl64.QuatIdent(), mu)
			b := addBox(t, w, m, mgl64.Vec3{0.2, 0.2, 0.2}, mgl64.Vec3{0, 0, 0.1}, mgl64.QuatIdent(), mu)
			_, _ = nuStep(t, w, 30) // resting, warm contacts
			u := evDir(deg)
			b.Force = u.Mul(k * mu * m * evG)
			d, a := thRun(t, w, b, u, 240)
			if k < 1 {
				t.Logf("F = %.2f μ m g at %v°: drift %.2e m in 5 s", k, deg, d.Len())
				assert.Less(t, d.Len(), 1e-6, "F = %v μ m g at %v° slid", k, deg)
				continue
			}
			want := (k - 1) * mu * evG
			t.Logf("F = %.2f μ m g at %v°: a = %.6f m/s² (analytic %.6f), %.1e m sideways", k, deg, a, want, evSide(d, u))
			assert.InDelta(t, want, a, 1e-6, "F = %v μ m g at %v°", k, deg)
			if straight {
				assert.Less(t, evSide(d, u), 1e-6, "sideways at %v°", deg)
			}
		}
	}
}

// ladder is a plank (L × 0.3 m × d, 5 kg) leaning at θ from the floor on
// a wall whose face is x = 0: its lowest corner A on the floor, its corner
// B nearest the wall on the wall. It returns the corners' offsets from the
// centre in the plane y = 0 (x, z), the plank's orientation and centre.
func ladder(th, L, d float64) (a, b [2]float64, rot mgl64.Quat, pos mgl64.Vec3) {
	u := mgl64.Vec3{-math.Cos(th), 0, math.Sin(th)} // bottom to top
	rot = mgl64.QuatBetweenVectors(mgl64.Vec3{0, 0, 1}, u)
	minx, minz := math.Inf(1), math.Inf(1)
	for _, sx := range []float64{-1, 1} {
		for _, sz := range []float64{-1, 1} {
			p := rot.Rotate(mgl64.Vec3{sx * d / 2, 0, sz * L / 2})
			if p[0] < minx {
				minx, b = p[0], [2]float64{p[0], p[2]}
			}
			if p[2] < minz {
				minz, a = p[2], [2]float64{p[0], p[2]}
			}
		}
	}
	return a, b, rot, mgl64.Vec3{-minx, 0, -minz}
}

// ladderStart is the plank's motion from rest with both ends slipping
// (A away from the wall, B down it) at the Coulomb limits μf N_f and
// μw N_w: the centre's acceleration (x, z), the angular acceleration about
// y and the two normal forces, from Newton–Euler and the two contacts'
// zero normal acceleration at ω = 0 (a 5 × 5 linear system). At the
// threshold the accelerations vanish.
func ladderStart(a, b [2]float64, m, iy, muf, muw float64) (ax, az, alpha, nf, nw float64) {
	// Unknowns ax, az, α, N_f, N_w; the torque's y part is r_z F_x − r_x F_z.
	// Friction at A is −μf N_f x̂, at B +μw N_w ẑ; N_f along ẑ, N_w along x̂.
	tf := a[1]*(-muf) - a[0]*1 // torque per unit N_f
	tw := b[1]*1 - b[0]*muw    // torque per unit N_w
	g := evG
	M := [5][6]float64{
		{m, 0, 0, muf, -1, 0},       // m ax = −μf N_f + N_w
		{0, m, 0, -1, -muw, -m * g}, // m az = N_f + μw N_w − m g
		{0, 0, iy, -tf, -tw, 0},     // I α = tf N_f + tw N_w
		{0, 1, -a[0], 0, 0, 0},      // A: az − α r_x = 0
		{1, 0, b[1], 0, 0, 0},       // B: ax + α r_z = 0
	}
	// Gaussian elimination with partial pivoting.
	for c := 0; c < 5; c++ {
		p := c
		for r := c + 1; r < 5; r++ {
			if math.Abs(M[r][c]) > math.Abs(M[p][c]) {
				p = r
			}
		}
		M[c], M[p] = M[p], M[c]
		for r := 0; r < 5; r++ {
			if r != c {
				f := M[r][c] / M[c][c]
				for k := c; k < 6; k++ {
					M[r][k] -= f * M[c][k]
				}
			}
		}
	}
	x := [5]float64{}
	for r := range x {
		x[r] = M[r][5] / M[r][r]
	}
	return x[0], x[1], x[2], x[3], x[4]
}

// A plank (2 m × 0.3 m × 0.05 m, 5 kg) leaning on a wall, μf = 0.4 on the
// floor, μw = 0.3 on the wall (the plank's own μ is 1: a pair's friction
// is the geometric mean). A thin ladder's critical angle is
// tan θc = (1 − μf μw)/(2 μf) = 1.1, θc = 47.73°; this plank's, where
// Newton–Euler with both ends slipping at the Coulomb limits gives zero
// acceleration (its corners, not its centre line, touch), is 46.74°.
// 2° above θc it stands: after its first 0.1 s it does not move (1e-6 m
// in 2.9 s). In those first steps it settles by 0.33 mm: the new
// contacts' friction bounds are μ times the step before's normal impulse
// (CoulombBounds off, the default), below the normal the plank comes to
// rest on. 2° below θc it slides, and each step's vertical acceleration of
// the centre is Newton–Euler's at the plank's angle then.
func TestThresholdLadder(t *testing.T) {
	const m, L, d, muf, muw = 5.0, 2.0, 0.05, 0.4, 0.3
	iy := m * (L*L + d*d) / 12
	// θc of this plank: bisection on the sign of the start's vertical
	// acceleration of the centre (it falls below θc).
	lo, hi := 20*math.Pi/180, 80*math.Pi/180
	for range 60 {
		mid := (lo + hi) / 2
		a, b, _, _ := ladder(mid, L, d)
		if _, az, _, _, _ := ladderStart(a, b, m, iy, muf, muw); az < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	thc := (lo + hi) / 2
	thin := math.Atan((1 - muf*muw) / (2 * muf))
	t.Logf("critical angle: this plank %.4f°, thin ladder %.4f°", thc*180/math.Pi, thin*180/math.Pi)
	for _, dd := range []float64{2, -2} {
		th := thc + dd*math.Pi/180
		w := nuWorld(t, 0)
		h := w.Settings.H
		ground(t, w, mgl64.QuatIdent(), muf*muf)
		addStaticBox(t, w, mgl64.Vec3{0.2, 2, 3}, mgl64.Vec3{-0.1, 0, 1.5}, mgl64.QuatIdent(), muw*muw)
		_, _, rot, pos := ladder(th, L, d)
		b := addBox(t, w, m, mgl64.Vec3{d, 0.3, L}, pos, rot, 1)
		z0 := b.Pos[2]
		_, _ = nuStep(t, w, 6)
		if dd > 0 {
			z1 := b.Pos[2]
			added, _ := nuStep(t, w, 174)
			t.Logf("θc + 2°: the centre settled %.2e m in 0.1 s, then moved %.2e m in 2.9 s; largest energy added %.1e J", z0-z1, b.Pos[2]-z1, added)
			// 1e-6 m: standing, the solver's tolerance over 2.9 s.
			assert.Less(t, math.Abs(b.Pos[2]-z1), 1e-6, "the plank slid above θc")
			// 1 mm: the settling of the lagged bounds, 0.33 mm here.
			assert.Less(t, z0-z1, 1e-3, "settling")
			continue
		}
		worst := 0.0
		for i := range 9 { // to 0.25 s, ω < 0.15 rad/s: ω² L/2 < 0.02 m/s²
			up := b.Rotation().Col(2)
			ca, cb, _, _ := ladder(math.Asin(up[2]), L, d)
			_, want, _, _, _ := ladderStart(ca, cb, m, iy, muf, muw)
			v0 := b.Vel[2]
			_, _ = nuStep(t, w, 1)
			az := (b.Vel[2] - v0) / h
			worst = math.Max(worst, math.Abs(az-want))
			if i == 0 || i == 8 {
				t.Logf("θc − 2°, step %d: a_z = %.5f m/s² (Newton–Euler at %.3f°: %.5f)", i+7, az, math.Asin(up[2])*180/math.Pi, want)
			}
		}
		_, _ = nuStep(t, w, 165)
		t.Logf("θc − 2°: largest |a_z − Newton–Euler| %.2e m/s², centre at %.3f m after 3 s", worst, b.Pos[2])
		// 0.03 m/s² of ~0.3: the ω² terms the start's system leaves out
		// (ω² L/2 < 0.02 m/s²) and one step's change of angle.
		assert.Less(t, worst, 0.03, "slide")
		assert.Less(t, b.Pos[2], 0.5*z0, "it slides down")
	}
}

// A box (w = 0.2 m square, 0.4 m tall, 1 kg, μ = 0.5) on the floor pushed
// horizontally at height z on one side face, the force re-applied each
// step at the same point of the box: about the front bottom edge the push
// tips it iff F z > m g w/2, and it slides iff F > μ m g, so under a
// growing push it tips first iff z > (w/2)/μ = 0.2 m. At z = 0.96 (w/2)/μ
// under F = 1.02 μ m g (F z = 0.979 m g w/2) it slides flat at
// a = 0.02 μ g, not turning; at z = 1.04 (w/2)/μ under F = 0.98 μ m g
// (F z = 1.019 m g w/2) it tips about the front edge, which does not slip
// (the edge needs F − m α H/2 = 4.75 N of friction, μ N = 4.92 N), its
// angle φ following the pivot's I_edge φ̈ = F (w sin φ + z cos φ) −
// m g (w/2 cos φ − H/2 sin φ), I_edge = m (w² + H²)/3, integrated by the
// same semi-implicit Euler. Pushed towards +x and towards −x.
func TestThresholdTipOrSlide(t *testing.T) {
	const m, W, H, mu = 1.0, 0.2, 0.4, 0.5
	zc := W / 2 / mu
	iedge := m * (W*W + H*H) / 3
	for _, side := range []float64{1, -1} { // +1: pushed towards +x
		for _, c := range []struct{ kz, kf float64 }{{0.96, 1.02}, {1.04, 0.98}} {
			w := nuWorld(t, 0)
			h := w.Settings.H
			ground(t, w, mgl64.QuatIdent(), mu)
			b := addBox(t, w, m, mgl64.Vec3{W, W, H}, mgl64.Vec3{0, 0, H / 2}, mgl64.QuatIdent(), mu)
			_, _ = nuStep(t, w, 30)
			z := c.kz * zc
			fm := c.kf * mu * m * evG
			local := mgl64.Vec3{-side * W / 2, 0, z - H/2} // on the face pushed
			edge := mgl64.Vec3{side * W / 2, 0, -H / 2}    // the front bottom edge, in the box
			p0, e0 := b.Pos, b.Pos.Add(edge)
			// 15 steps (0.25 s), while the box turns less than 2°; the
			// push then tips it over and the fall is another problem.
			var phi, om float64
			for range 15 {
				b.ApplyForceAt(mgl64.Vec3{side * fm, 0, 0}, b.Pos.Add(b.Rot.Rotate(local)))
				_, _ = nuStep(t, w, 1)
				b.ClearForces()
				if c.kz > 1 {
					tau := fm*(W*math.Sin(phi)+z*math.Cos(phi)) - m*evG*(W/2*math.Cos(phi)-H/2*math.Sin(phi))
					om += h * math.Max(tau, 0) / iedge
					phi += h * om
				}
			}
			e := b.Pos.Add(b.Rot.Rotate(edge))
			if c.kz < 1 {
				want := (c.kf - 1) * mu * evG * 15 * h
				t.Logf("side %+v, z = %.2f zc, F = %.2f μ m g: slides at %.6f m/s after 0.25 s (analytic %.6f), ω %.1e rad/s, moved %.5f m",
					side, c.kz, c.kf, side*b.Vel[0], want, b.AngVel.Len(), side*(b.Pos[0]-p0[0]))
				// 1e-6: the solver's tolerance (exact for semi-implicit Euler).
				assert.InDelta(t, want, side*b.Vel[0], 1e-6, "slides")
				assert.Less(t, b.AngVel.Len(), 1e-6, "does not turn")
				continue
			}
			got := side * b.AngVel[1]
			t.Logf("side %+v, z = %.2f zc, F = %.2f μ m g: tips, ω after 0.25 s %.6f rad/s (pivot %.6f), %.3f°; the edge moved %.2e m",
				side, c.kz, c.kf, got, om, phi*180/math.Pi, e.Sub(e0).Len())
			// 0.5 %: the rows hold the edge at velocity level, and the
			// step's rotation moves it by ½ (h ω)² |r| (below 1e-6 m here).
			assert.InDelta(t, om, got, 0.005*om, "pivots about the front edge")
			// 1e-5 m: that drift over 15 steps; a slipping edge moves
			// F h²/m = 1.4 mm in the first step alone.
			assert.Less(t, e.Sub(e0).Len(), 1e-5, "the front edge slipped")
		}
	}
}

// A solid cylinder (r = 0.1 m, 0.1 m long, 1 kg, lying on its side) and a
// solid sphere (r = 0.1 m) on an incline, μ = 0.2, slope along x and at
// 30°. They roll without slipping (a = (2/3) g sin θ, (5/7) g sin θ) while
// tan θ ≤ 3 μ (7/2 μ for the sphere): at tan θ = 0.98 times that the
// contact does not slip; at 1.02 times it slips, the centre accelerating
// at g(sin θ − μ cos θ) and the slip at g cos θ (tan θ − 3μ) (cylinder),
// g cos θ (tan θ − 7/2 μ) (sphere).
func TestThresholdRollOrSlip(t *testing.T) {
	const r, m, mu = 0.1, 1.0, 0.2
	for _, kind := range []string{"cylinder", "sphere"} {
		lim := 3 * mu
		if kind == "sphere" {
			lim = 3.5 * mu
		}
		for _, k := range []float64{0.98, 1.02} {
			th := math.Atan(k * lim)
			for _, deg := range []float64{0, 30} {
				sl := newSlope(t, th, deg, mu)
				w, n, down := sl.w, sl.n, sl.down
				var b *body.Body
				roll := 2.0 / 3
				if kind == "sphere" {
					s, err := contact.NewSphere(r)
					require.NoError(t, err)
					b = addShapeBody(t, w, s, m, body.SphereInertia(m, r), n.Mul(r), mgl64.QuatIdent(), mu)
					roll = 5.0 / 7
				} else {
					s, err := contact.NewCylinderLength(r, 0.1)
					require.NoError(t, err)
					b = addShapeBody(t, w, s, m, body.CylinderInertia(m, r, 0.1), n.Mul(r), sl.crot, mu)
				}
				p0 := b.Pos
				slipv := func() float64 { return b.PointVelocity(b.Pos.Sub(n.Mul(r))).Dot(down) }
				_, _ = nuStep(t, w, 30)
				v1, s1 := b.Vel.Dot(down), slipv()
				_, _ = nuStep(t, w, 30)
				a := (b.Vel.Dot(down) - v1) / 0.5
				as := (slipv() - s1) / 0.5
				d := b.Pos.Sub(p0)
				want, wantS := roll*evG*math.Sin(th), 0.0
				if k > 1 {
					want = evG * (math.Sin(th) - mu*math.Cos(th))
					wantS = evG * math.Cos(th) * (math.Tan(th) - lim)
				}
				t.Logf("%s, tan θ = %.2f × %.2f, slope at %v°: a = %.6f m/s² (analytic %.6f), slip rate %.6f m/s² (analytic %.6f), %.1e m sideways",
					kind, k, lim, deg, a, want, as, wantS, evSide(d, down))
				// 1e-5 m/s²: exact for semi-implicit Euler under constant
				// forces, the solver's tolerance over 30 steps aside.
				assert.InDelta(t, want, a, 1e-5, "%s tan θ = %v × limit at %v°", kind, k, deg)
				assert.InDelta(t, wantS, as, 1e-5, "%s slip, tan θ = %v × limit at %v°", kind, k, deg)
				assert.Less(t, evSide(d, down), 1e-6, "sideways")
			}
		}
	}
}

// A 1 kg box of 0.2 m at rest on a 20° incline (μ = 0.5 > tan 20°: it
// stays alone) pushed along the slope's level line by a constant F. The
// tangential load is R = m g sin θ down + F across; Coulomb friction
// opposes the slip, so from rest the box slides along R with
// a = |R|/m − μ g cos θ when |R| > μ m g cos θ, and stays when below.
// |R| = 0.98 and 1.3 μ m g cos θ, slope along x and at 30°.
func TestThresholdSideForceOnSlope(t *testing.T) {
	const m, mu = 1.0, 0.5
	th := 20 * math.Pi / 180
	nrm := m * evG * math.Cos(th)
	gt := m * evG * math.Sin(th)
	for _, k := range []float64{0.98, 1.3} {
		f := math.Sqrt(k*k*mu*mu*nrm*nrm - gt*gt)
		for _, deg := range []float64{0, 30} {
			sl := newSlope(t, th, deg, mu)
			b := addBox(t, sl.w, m, mgl64.Vec3{0.2, 0.2, 0.2}, sl.n.Mul(0.1), sl.rot, mu)
			w := sl.w
			_, _ = nuStep(t, w, 30)
			b.Force = sl.axis.Mul(f)
			u := sl.down.Mul(gt).Add(sl.axis.Mul(f)).Normalize()
			d, a := thRun(t, w, b, u, 60)
			if k < 1 {
				t.Logf("|R| = %.2f μN, slope at %v°: drift %.2e m in 2 s", k, deg, d.Len())
				assert.Less(t, d.Len(), 1e-6, "|R| = %v μN at %v° slid", k, deg)
				continue
			}
			want := (k - 1) * mu * nrm / m
			t.Logf("|R| = %.2f μN, slope at %v°: a = %.6f m/s² along R (analytic %.6f), %.1e m off R's line",
				k, deg, a, want, evSide(d, u))
			assert.InDelta(t, want, a, 1e-6, "|R| = %v μN at %v°", k, deg)
			assert.Less(t, evSide(d, u), 1e-6, "slides along R")
		}
	}
}
