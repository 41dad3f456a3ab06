package stepper

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/constraint"
	"github.com/gorigid/gorigid/lcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nearestAxis turns a frame by at most 45° to one with an axis along u:
// for an old t₁ at θ from u about the normal, the new t₁ is u for
// |θ| < 45°, n × u for θ in (45°, 135°), −u beyond 135° and u × n for
// θ in (−135°, −45°); it is a unit tangent, and t₁·t1 = cos of the
// remaining angle, at least cos 45°. Angles 1° off the boundaries keep
// the choice away from rounding.
func TestNearestAxis(t *testing.T) {
	n := mgl64.Vec3{1, 2, 2}.Normalize() // a tilted normal
	u := n.Cross(mgl64.Vec3{0, 0, 1}).Normalize()
	v := n.Cross(u) // u rotated by 90° about n
	at := func(deg float64) mgl64.Vec3 {
		a := deg * math.Pi / 180
		return u.Mul(math.Cos(a)).Add(v.Mul(math.Sin(a)))
	}
	for _, c := range []struct {
		deg  float64
		want mgl64.Vec3
	}{{0, u}, {44, u}, {-44, u}, {46, v}, {134, v}, {136, u.Mul(-1)}, {180, u.Mul(-1)}, {-136, u.Mul(-1)}, {-46, v.Mul(-1)}, {-134, v.Mul(-1)}} {
		t1 := at(c.deg)
		got := nearestAxis(u, n, t1)
		assert.InDelta(t, 0, got.Sub(c.want).Len(), 1e-15, "%v°", c.deg)
		assert.InDelta(t, 1, got.Len(), 1e-15)
		assert.InDelta(t, 0, got.Dot(n), 1e-15)
		// The remaining angle: θ folded into [−45°, 45°].
		rem := math.Mod(c.deg+45+360, 90) - 45
		assert.InDelta(t, math.Cos(rem*math.Pi/180), got.Dot(t1), 1e-15, "%v°", c.deg)
	}
}

// turnHeldFriction turns a held point on the floor whose friction is at or
// outside its circle, |f| ≥ μ xₙ, to an axis along f, unless its solved
// load carries less than turnLoad of its bounds' estimate x̂ₙ: a point
// lifting off (xₙ = 0.01 x̂ₙ) is outside its circle in every frame. One
// point (μ = 0.5, x̂ₙ = 1 N·s) with friction 0.6 N·s at 30° from t₁:
// loaded (xₙ = 1, circle 0.5) it turns (t₁ along f, the friction rows
// changed), lifting off (xₙ = 0.01, circle 0.005) and at xₙ = 0.49 just
// under turnLoad it keeps its frame; inside its circle (xₙ = 1.3) it keeps
// it too.
func TestTurnHeldFrictionNeedsLoad(t *testing.T) {
	w, err := New(DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1), Pos: mgl64.Vec3{0, 0, 0.05}, Rot: mgl64.QuatIdent()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddBody(b); err != nil {
		t.Fatal(err)
	}
	const mu, xhat, f = 0.5, 1.0, 0.6
	u := mgl64.Vec3{math.Cos(math.Pi / 6), math.Sin(math.Pi / 6), 0}
	for _, c := range []struct {
		xn   float64
		turn bool
	}{{1, true}, {0.01, false}, {0.49, false}, {0.51, true}, {1.3, false}} {
		pt := point{ContactInfo: ContactInfo{A: constraint.World, B: 0, Point: mgl64.Vec3{0, 0, 0}, Normal: mgl64.Vec3{0, 0, 1},
			Mu: mu, XN: xhat, T1: mgl64.Vec3{1, 0, 0}, T2: mgl64.Vec3{0, 1, 0}, Row: 0, Rows: 3}, manifold: 1, held: true}
		cs := &contactStage{points: []point{pt}}
		rs := &rowStage{rows: make([]constraint.Row, 3)}
		pt.FillRows(rs.rows, w.Bodies)
		sol := &solveStage{changed: make([]bool, 3)}
		sol.res.X = []float64{c.xn, f * u[0], f * u[1]}
		sol.res.States = make([]lcp.State, 3)
		got := w.turnHeldFriction(cs, rs, sol)
		assert.Equal(t, c.turn, got, "xₙ = %v", c.xn)
		assert.Equal(t, c.turn, sol.changed[1] && sol.changed[2], "xₙ = %v: friction rows changed", c.xn)
		t1 := cs.points[0].T1
		if c.turn {
			assert.InDelta(t, 0, t1.Sub(u).Len(), 1e-15, "xₙ = %v: t₁ along f", c.xn)
		} else {
			assert.Equal(t, mgl64.Vec3{1, 0, 0}, t1, "xₙ = %v: frame kept", c.xn)
		}
	}
}

// turnHeldFriction keeps the frame of a manifold whose load moved between
// its points, or whose |f| is within its bounds' radius μ Σ x̂ₙ. Two points
// on the floor (μ = 0.5) with friction 0.6 N·s in all at 30° from t₁:
// when the point with the bounds (x̂ₙ = 1) carries no load and the other
// (x̂ₙ = 0) carries xₙ = 1, the sums agree (μ Σ xₙ = μ Σ x̂ₙ = 0.5 < 0.6)
// but no load is shared, μ Σ min(xₙ, x̂ₙ) = 0 < turnLoad · 0.5, and the
// frames stay; with the load where the bounds are (xₙ = 1, 0) they turn.
// One point with x̂ₙ = 1 and xₙ = 0.9 at 0.48 N·s is outside its circle
// (0.45) and within μ x̂ₙ = 0.5, where box friction along f bounds it the
// same: it keeps its frame; at 0.52 it turns.
func TestTurnHeldFrictionSharedLoad(t *testing.T) {
	w := oneBoxWorld(t)
	const mu = 0.5
	u := mgl64.Vec3{math.Cos(math.Pi / 6), math.Sin(math.Pi / 6), 0}
	for _, c := range []struct {
		xhat, xn []float64
		f        float64
		turn     bool
	}{
		{[]float64{1, 0}, []float64{0, 1}, 0.6, false},
		{[]float64{1, 0}, []float64{1, 0}, 0.6, true},
		{[]float64{1}, []float64{0.9}, 0.48, false},
		{[]float64{1}, []float64{0.9}, 0.52, true},
	} {
		n := len(c.xhat)
		cs := &contactStage{}
		rs := &rowStage{rows: make([]constraint.Row, 3*n)}
		sol := &solveStage{changed: make([]bool, 3*n)}
		sol.res.X = make([]float64, 3*n)
		sol.res.States = make([]lcp.State, 3*n)
		for j := range n {
			pt := point{ContactInfo: ContactInfo{A: constraint.World, B: 0, Point: mgl64.Vec3{0.05 * float64(j), 0, 0}, Normal: mgl64.Vec3{0, 0, 1},
				Mu: mu, XN: c.xhat[j], T1: mgl64.Vec3{1, 0, 0}, T2: mgl64.Vec3{0, 1, 0}, Row: 3 * j, Rows: 3}, manifold: n, held: true}
			pt.FillRows(rs.rows[3*j:3*j+3], w.Bodies)
			cs.points = append(cs.points, pt)
			sol.res.X[3*j] = c.xn[j]
		}
		// The friction on the first point: f at 30° from t₁.
		sol.res.X[1], sol.res.X[2] = c.f*u[0], c.f*u[1]
		got := w.turnHeldFriction(cs, rs, sol)
		assert.Equal(t, c.turn, got, "x̂ₙ %v, xₙ %v, |f| %v", c.xhat, c.xn, c.f)
		if c.turn {
			assert.InDelta(t, 0, cs.points[0].T1.Sub(u).Len(), 1e-15, "t₁ along f")
		} else {
			assert.Equal(t, mgl64.Vec3{1, 0, 0}, cs.points[0].T1, "frame kept")
		}
	}
}

// frameTurn.next finds the frame angle θ* whose residual g(θ) (the angle
// from the frame's axis to the friction) is zero where turning to the
// friction, θ ← θ + g(θ), swings. On a linear residual g = −k (θ − θ*)
// with k = 1.92 (a box on the 100-box random pile, whose friction turned
// 41° back for a 44.5° turn of its frame) turning to f overshoots by
// k − 1 = 0.92 of the error at each turn, 14° off after 5 turns from
// 20°; the first turn goes to f (38.4°), the second brackets θ* and regula
// falsi lands on it to rounding. Where box friction sits at the corner of
// its bounds the residual saturates at ±45° (g clamped, k = 10): turning
// to f alternates between 0° and 45° for ever, while the bracket closes
// (Illinois) to θ* by the 6th turn, to 1e-12 rad because the last
// secant falls on the residual's linear part.
func TestFrameTurnBracketsTheFrame(t *testing.T) {
	const deg = math.Pi / 180
	const want = 20 * deg
	for _, c := range []struct {
		k     float64
		turns int
	}{{1.92, 2}, {10, 6}} {
		g := func(th float64) float64 { return max(-45*deg, min(45*deg, -c.k*(th-want))) }
		var ft frameTurn
		plain := 0.0
		for range c.turns {
			ft.next(g(ft.theta))
			plain += g(plain)
		}
		t.Logf("k %v: after %d turns θ %.9f° (turning to f: %.3f°)", c.k, c.turns, ft.theta/deg, plain/deg)
		assert.InDelta(t, want, ft.theta, 1e-12, "k %v", c.k)
		assert.Greater(t, math.Abs(plain-want), 10*deg, "k %v: turning to f", c.k)
	}
}

// turnHeldFriction counts a manifold's sliding points in its friction and
// its circle. Step 47 of the 100-box random pile (μ = 0.5): a box sliding
// at 1.2 mm/s on two corners, one sliding (its t₁ along its slip, x_n
// 0.2552 N·s, x̂ₙ 0.2339) and one held (x_n 0.2351, x̂ₙ 0.2513), whose box
// friction across the slip pushes the corners apart. The held corner's
// friction alone, |f| = 0.1534, is outside its circle (μ x_n = 0.1176) and
// beyond its bounds' radius (0.1257): counted alone it turned. The pair's,
// 0.2445, is inside its circle, μ Σ x_n = 0.2452: its frames stay.
func TestTurnHeldFrictionCountsSlidingPoints(t *testing.T) {
	w := oneBoxWorld(t)
	const mu = 0.5
	z := mgl64.Vec3{0, 0, 1}
	for _, c := range []struct {
		withSliding bool // the sliding point in the manifold, or the held one alone
		turn        bool
	}{{true, false}, {false, true}} {
		type in struct {
			held     bool
			xhat, xn float64
			t1       mgl64.Vec3
			fr1, fr2 float64
			at       mgl64.Vec3
		}
		ins := []in{
			{false, 0.2339, 0.2552, mgl64.Vec3{0.8450428520237067, 0.5346985863490195, 0}, -0.1169, 0.1169, mgl64.Vec3{0.1, 0, 0}},
			{true, 0.2513, 0.2351, mgl64.Vec3{-0.5326972588780209, 0.8463058728284019, 0}, -0.08797, 0.1256, mgl64.Vec3{0, 0.1, 0}},
		}
		if !c.withSliding {
			ins = ins[1:]
		}
		n := len(ins)
		cs := &contactStage{}
		rs := &rowStage{rows: make([]constraint.Row, 3*n)}
		sol := &solveStage{changed: make([]bool, 3*n)}
		sol.res.X = make([]float64, 3*n)
		sol.res.States = make([]lcp.State, 3*n)
		for j, p := range ins {
			pt := point{ContactInfo: ContactInfo{A: constraint.World, B: 0, Point: p.at, Normal: z,
				Mu: mu, XN: p.xhat, T1: p.t1.Normalize(), T2: z.Cross(p.t1.Normalize()), Row: 3 * j, Rows: 3}, manifold: n, held: p.held}
			pt.FillRows(rs.rows[3*j:3*j+3], w.Bodies)
			cs.points = append(cs.points, pt)
			sol.res.X[3*j], sol.res.X[3*j+1], sol.res.X[3*j+2] = p.xn, p.fr1, p.fr2
		}
		got := w.turnHeldFriction(cs, rs, sol)
		assert.Equal(t, c.turn, got, "with the sliding point: %v", c.withSliding)
	}
}

// oneBoxWorld is a world with one 1 kg box of 0.1 m, body 0 of the
// turnHeldFriction tests' contact points.
func oneBoxWorld(t *testing.T) *World {
	t.Helper()
	w, err := New(DefaultSettings())
	require.NoError(t, err)
	b, err := body.New(body.Params{Mass: 1, Inertia: body.BoxInertia(1, 0.1, 0.1, 0.1), Pos: mgl64.Vec3{0, 0, 0.05}, Rot: mgl64.QuatIdent()})
	require.NoError(t, err)
	_, err = w.AddBody(b)
	require.NoError(t, err)
	return w
}
