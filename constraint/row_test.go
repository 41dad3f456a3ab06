package constraint

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompliance(t *testing.T) {
	const h = 0.01
	tests := []struct {
		name         string
		k, d         float64
		c, phiF, jvF float64
	}{
		{"rigid k=0", 0, 0, 0, 100, 0},
		{"rigid k=Inf", math.Inf(1), 0.05, 0, 100, 0},
		// plain Eq. 1: c = 1/(k h²) = 1/(1e4 · 1e-4) = 1 kg⁻¹.
		{"plain", 1e4, 0, 1, 100, 0},
		// SPOOK, d = 0.05 s: 1 + 4d/h = 21, Υ = 1/21, c = 4/(h² k · 21) = 4/21,
		// φ factor 4Υ/h = 400/21, J v factor −1/21.
		{"spook", 1e4, 0.05, 4.0 / 21, 400.0 / 21, -1.0 / 21},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Row{Stiffness: tc.k, Damping: tc.d}
			c, pf, jf := r.Compliance(h)
			assert.InDelta(t, tc.c, c, 1e-14)
			assert.InDelta(t, tc.phiF, pf, 1e-12)
			assert.InDelta(t, tc.jvF, jf, 1e-15)
			r.Phi, r.Speed = 0.002, 0.5
			assert.InDelta(t, 3+pf*0.002+jf*7-0.5, r.B(h, 3, 7), 1e-13)
		})
	}
}

// TestStaticDeflection steps a 1-DOF body (mass m, applied force F) held by
// one compliant row φ = q, the same way the stepper will (A = J M⁻¹ Jᵀ + c,
// b from Row.B), and checks that both the plain Eq. 1 row and the SPOOK row
// settle at the static deflection φ = F/k of λ = −k φ.
func TestStaticDeflection(t *testing.T) {
	const m, f, k, h = 2.0, 10.0, 1000.0, 0.01
	for _, d := range []float64{0, 0.05} {
		t.Run(fmt.Sprintf("d=%v", d), func(t *testing.T) {
			r := Row{N: 1, Stiffness: k, Damping: d, Lo: math.Inf(-1), Hi: math.Inf(1)}
			r.J[0][0] = 1
			q, v := 0.0, 0.0
			for step := 0; step < 20000; step++ {
				r.Phi = q
				c, _, _ := r.Compliance(h)
				a := 1/m + c
				b := r.B(h, v+h*f/m, v)
				x := -b / a
				v += (h*f + x) / m
				q += h * v
			}
			// Converged to rounding: the iteration contracts by ≤ 0.999 per step.
			assert.InDelta(t, f/k, q, 1e-12)
		})
	}
}

// TestERPCFM checks the documented ODE mapping: with cd = 0 it is the plain
// Eq. 1 row, and in general the row J v⁺ + (CFM/h) x + (ERP/h) φ = 0 is the
// implicit spring-damper λ = −k φ⁺ − cd J v⁺ with φ⁺ = φ + h J v⁺, x = hλ.
func TestERPCFM(t *testing.T) {
	const h, k = 0.01, 5e4
	erp, cfm := ERPCFM(h, k, 0)
	c, pf, _ := (&Row{Stiffness: k}).Compliance(h)
	assert.InDelta(t, 1, erp, 1e-15)
	assert.InDelta(t, c, cfm/h, 1e-15*c)
	assert.InDelta(t, pf, erp/h, 1e-12)

	const cd = 300.0
	erp, cfm = ERPCFM(h, k, cd)
	assert.InDelta(t, h*k/(h*k+cd), erp, 1e-15)
	for _, tc := range []struct{ phi, jv float64 }{{0.01, -0.3}, {-0.002, 0.7}} {
		x := -(tc.jv + erp/h*tc.phi) / (cfm / h)
		lambda := x / h
		assert.InDelta(t, -k*(tc.phi+h*tc.jv)-cd*tc.jv, lambda, 1e-9*math.Abs(lambda))
	}
}

func TestKindString(t *testing.T) {
	assert.Equal(t, "Bilateral", Bilateral.String())
	assert.Equal(t, "RollingFriction", RollingFriction.String())
	assert.Equal(t, "ContactNormal", ContactNormal.String())
	assert.Equal(t, "Kind(42)", Kind(42).String())
	assert.True(t, LimitUpper.Positional())
	assert.False(t, Motor.Positional())
}

func TestRowValidate(t *testing.T) {
	good := func() Row {
		r := Row{N: 2, Lo: 0, Hi: math.Inf(1), Kind: ContactNormal}
		r.Body = [MaxBodies]int{0, 1}
		r.J[0][2], r.J[1][2] = 1, -1
		return r
	}
	r := good()
	require.NoError(t, r.Validate(2))
	tests := []struct {
		name   string
		edit   func(r *Row)
		substr string
	}{
		{"world only", func(r *Row) { r.N = 0 }, "touching only the world"},
		{"too many", func(r *Row) { r.N = 5 }, "N: must be in [1, 4]"},
		{"index", func(r *Row) { r.Body[1] = 2 }, "Body[1]: must be in [0, 2)"},
		{"world listed", func(r *Row) { r.Body[1] = World }, "got -1"},
		{"twice", func(r *Row) { r.Body[1] = 0 }, "listed twice"},
		{"NaN J", func(r *Row) { r.J[1][4] = math.NaN() }, "J[1][4]"},
		{"lo > hi", func(r *Row) { r.Lo, r.Hi = 1, 0 }, "Lo ≤ Hi"},
		{"NaN phi", func(r *Row) { r.Phi = math.NaN() }, "Phi"},
		{"negative k", func(r *Row) { r.Stiffness = -1 }, "Stiffness"},
		{"Inf damping", func(r *Row) { r.Damping = math.Inf(1) }, "Damping"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := good()
			tc.edit(&r)
			err := r.Validate(2)
			assert.ErrorContains(t, err, tc.substr)
			var fe *body.FieldError
			if assert.ErrorAs(t, err, &fe) {
				assert.Contains(t, err.Error(), "constraint row (")
				assert.Equal(t, fe.What+": "+fe.Field+": "+fe.Reason, err.Error())
			}
		})
	}
}

// TestRodRows builds the paper's rod (Enzenhöfer et al. 2019 §5.1, Eq. 25)
// from two ball-joint-like contact rows written by hand in the Row layout
// and checks A = J M⁻¹ Jᵀ and b against Eq. (26): A = [[4/m, −2/m],
// [−2/m, 4/m]] = [[1, −0.5], [−0.5, 1]] kg⁻¹ (the extracted text prints the
// diagonal as "0.1"; 4/m = 1 and the format example in docs/formats.md agree), b = [−0.2981,
// 0.1019] m/s.
func TestRodRows(t *testing.T) {
	const m, l, h, g, tx = 4.0, 1.5, 0.01, 9.81, 20.0
	// The paper's rod lies along y (Eq. 25: contact points at ∓l/2 on y);
	// RodInertiaZ is along z, so turn it −90° about x.
	rod, err := body.New(body.Params{Name: "rod", Mass: m, Inertia: body.RodInertiaZ(m, l),
		Rot: mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{1, 0, 0})})
	require.NoError(t, err)
	rod.ApplyForce(mgl64.Vec3{0, 0, -m * g})
	rod.ApplyTorque(mgl64.Vec3{tx, 0, 0})
	var rows [2]Row
	for i, y := range []float64{-l / 2, l / 2} {
		rows[i].reset(ContactNormal)
		rows[i].Lo = 0
		p := mgl64.Vec3{0, y, 0}
		n := mgl64.Vec3{0, 0, 1}
		rows[i].add(0, n, p.Cross(n))
	}
	assert.Equal(t, [6]float64{0, 0, 1, -l / 2, 0, 0}, rows[0].J[0])
	assert.Equal(t, [6]float64{0, 0, 1, l / 2, 0, 0}, rows[1].J[0])
	invI := rod.InvInertiaWorld()
	minv := func(j [6]float64) [6]float64 {
		w := invI.Mul3x1(mgl64.Vec3{j[3], j[4], j[5]})
		return [6]float64{j[0] / m, j[1] / m, j[2] / m, w[0], w[1], w[2]}
	}
	dot := func(a, b [6]float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	wantA := [2][2]float64{{1, -0.5}, {-0.5, 1}}
	// The paper prints b to 4 digits.
	wantB := [2]float64{-0.2981, 0.1019}
	p := [6]float64{0, 0, -h * m * g, h * tx, 0, 0} // p = M v + h f_a, v = 0
	for i := 0; i < 2; i++ {
		for k := 0; k < 2; k++ {
			assert.InDelta(t, wantA[i][k], dot(rows[i].J[0], minv(rows[k].J[0])), 1e-12, "A[%d][%d]", i, k)
		}
		assert.InDelta(t, wantB[i], rows[i].B(h, dot(rows[i].J[0], minv(p)), 0), 5e-5, "b[%d]", i)
	}
}

// SetPoint's blocks are those of Reset and AddBody with
// J_a = −[d, (x − c_a) × d] and J_b = [d, (x − c_b) × d] formed by mgl64,
// bit for bit, for random points and directions, with either side World
// (left out) and the other one's block then first; the row's other
// fields are Reset's (no bounds, no compliance), whatever r held.
func TestSetPointBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vec := func() mgl64.Vec3 { return mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()} }
	for c := range 300 {
		a, b := 1+rng.IntN(5), 6+rng.IntN(5)
		switch c % 3 {
		case 1:
			a = World
		case 2:
			b = World
		}
		ca, cb, x, d := vec(), vec(), vec(), vec().Normalize()
		var want Row
		want.Reset(ContactFriction)
		if a != World {
			want.AddBody(a, d.Mul(-1), x.Sub(ca).Cross(d).Mul(-1))
		}
		if b != World {
			want.AddBody(b, d, x.Sub(cb).Cross(d))
		}
		got := Row{N: 3, Phi: 1, Stiffness: 2, Lo: 0, Bounce: 4, Body: [MaxBodies]int{9, 9, 9, 9}}
		got.SetPoint(ContactFriction, a, ca, b, cb, x, d)
		require.Equal(t, want.N, got.N, "case %d", c)
		require.Equal(t, want.Body, got.Body, "case %d", c)
		for k := range want.J {
			for i := range want.J[k] {
				require.Equal(t, math.Float64bits(want.J[k][i]), math.Float64bits(got.J[k][i]), "case %d: J[%d][%d]", c, k, i)
			}
		}
		got.J, want.J = [MaxBodies][6]float64{}, [MaxBodies][6]float64{}
		require.Equal(t, want, got, "case %d: the other fields", c)
	}
}
