package num

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestFieldError(t *testing.T) {
	for _, tc := range []struct {
		e    FieldError
		want string
	}{
		{FieldError{What: "body", Name: "link3", Field: "Mass", Value: -1.0, Reason: "must be finite and > 0, got -1"}, `body "link3": Mass: must be finite and > 0, got -1`},
		{FieldError{What: "body", Field: "Mass", Value: -1.0, Reason: "must be finite and > 0, got -1"}, `body: Mass: must be finite and > 0, got -1`},
		{FieldError{What: "settings", Field: "H", Value: 0.0, Reason: "time step must be finite and > 0, got 0"}, `settings: H: time step must be finite and > 0, got 0`},
		{FieldError{Field: "bodies[2].mass", Value: -1.0, Reason: "must be finite and > 0 kg, got -1"}, `bodies[2].mass: must be finite and > 0 kg, got -1`},
		{FieldError{Value: 7, Reason: "unsupported version 7"}, `unsupported version 7`},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
		var fe *FieldError
		if err := fmt.Errorf("wrapped: %w", errors.Join(errors.New("other"), &tc.e)); !errors.As(err, &fe) || fe.Field != tc.e.Field || fe.Value != tc.e.Value {
			t.Errorf("errors.As: %+v", fe)
		}
	}
}

func TestFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, x := range []float64{0, -1, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		if !Finite(x) {
			t.Errorf("Finite(%v) = false", x)
		}
	}
	for _, x := range []float64{nan, inf, -inf} {
		if Finite(x) || FiniteVec(mgl64.Vec3{0, 0, x}) || FiniteQuat(mgl64.Quat{W: x}) || FiniteQuat(mgl64.Quat{W: 1, V: mgl64.Vec3{x, 0, 0}}) || FiniteSlice([]float64{1, x}) {
			t.Errorf("%v counted as finite", x)
		}
	}
	if !FiniteVec(mgl64.Vec3{1, 2, 3}) || !FiniteQuat(mgl64.QuatIdent()) || !FiniteSlice(nil) {
		t.Error("finite values counted as not finite")
	}
}

// TestPerp: both choices give unit vectors perpendicular to n, Perp a
// right-handed basis, on the axes, their ties and random directions.
func TestPerp(t *testing.T) {
	ns := []mgl64.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}, {-1, 1, 0}, {0.57735, 0.57735, 0.57735}}
	for i := 0; i < 100; i++ {
		x := float64(i)
		ns = append(ns, mgl64.Vec3{math.Sin(x), math.Cos(3 * x), math.Sin(7*x + 1)})
	}
	const tol = 1e-12
	for _, n := range ns {
		n = n.Normalize()
		p1, p2 := Perp(n)
		q := AnyPerp(n)
		if math.Abs(p1.Len()-1) > tol || math.Abs(p2.Len()-1) > tol || math.Abs(q.Len()-1) > tol ||
			math.Abs(p1.Dot(n)) > tol || math.Abs(p2.Dot(n)) > tol || math.Abs(p1.Dot(p2)) > tol || math.Abs(q.Dot(n)) > tol ||
			p1.Cross(p2).Sub(n).Len() > tol {
			t.Errorf("n %v: Perp %v %v, AnyPerp %v", n, p1, p2, q)
		}
	}
	// The choices themselves, which contact and joint rows depend on.
	if p1, p2 := Perp(mgl64.Vec3{0, 0, 1}); p1 != (mgl64.Vec3{0, 1, 0}) || p2 != (mgl64.Vec3{-1, 0, 0}) {
		t.Errorf("Perp(z) = %v, %v", p1, p2)
	}
	if q := AnyPerp(mgl64.Vec3{0, 0, 1}); q != (mgl64.Vec3{1, 0, 0}) {
		t.Errorf("AnyPerp(z) = %v", q)
	}
}

// TestBodyPerp: BodyPerp gives a unit vector ⊥ n, n × the body axis
// least aligned with n (x on ties), and turns with n and the body: for any
// turn R, BodyPerp(R n, R q) = R BodyPerp(n, q); for an unturned body it
// is Perp's p1.
func TestBodyPerp(t *testing.T) {
	const tol = 1e-12 // the rounding of a few quaternion products
	qs := []mgl64.Quat{mgl64.QuatIdent(), mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1}), mgl64.QuatRotate(2, mgl64.Vec3{1, -2, 0.5}.Normalize())}
	turns := []mgl64.Quat{mgl64.QuatRotate(math.Pi/6, mgl64.Vec3{0, 0, 1}), mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 0, 1}),
		mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}), mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())}
	for _, q := range qs {
		// Along a body axis and its diagonals (ties), and random directions.
		ns := []mgl64.Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 1, 1}, {0, -1, 1}}
		for i := range 20 {
			x := float64(i)
			ns = append(ns, mgl64.Vec3{math.Sin(x), math.Cos(3 * x), math.Sin(7*x + 1)})
		}
		for _, nl := range ns {
			n := q.Rotate(nl.Normalize())
			p := BodyPerp(n, q)
			if math.Abs(p.Len()-1) > tol || math.Abs(p.Dot(n)) > tol {
				t.Errorf("q %v n %v: BodyPerp %v not a unit vector ⊥ n", q, n, p)
			}
			for _, r := range turns {
				if d := BodyPerp(r.Rotate(n), r.Mul(q)).Sub(r.Rotate(p)).Len(); d > tol {
					t.Errorf("q %v n %v turned by %v: BodyPerp off the turned one by %.2g", q, n, r, d)
				}
			}
		}
		// The choice: n × a for the body axis a least aligned with n (x
		// on ties): on a face (n = ±z in the body) along the body's ±y
		// edge, on the diagonal (1, 1, 0) n × z, on (1, 1, 1) n × x.
		for _, c := range []struct{ nl, want mgl64.Vec3 }{
			{mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 1, 0}},
			{mgl64.Vec3{0, 0, -1}, mgl64.Vec3{0, -1, 0}},
			{mgl64.Vec3{1, 1, 0}, mgl64.Vec3{1, -1, 0}},
			{mgl64.Vec3{1, 1, 1}, mgl64.Vec3{0, 1, -1}},
		} {
			if d := BodyPerp(q.Rotate(c.nl.Normalize()), q).Sub(q.Rotate(c.want.Normalize())).Len(); d > tol {
				t.Errorf("q %v: BodyPerp of body normal %v off body axis %v by %.2g", q, c.nl, c.want, d)
			}
		}
	}
	// An unturned body: Perp's p1, to the bit.
	for _, n := range []mgl64.Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0.6, 0, 0.8}, {0.48, 0.6, 0.64}, {-0.36, 0.48, 0.8}} {
		if p1, _ := Perp(n); BodyPerp(n, mgl64.QuatIdent()) != p1 {
			t.Errorf("n %v: BodyPerp of the identity %v, Perp %v", n, BodyPerp(n, mgl64.QuatIdent()), p1)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for b, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB",
		100 << 20: "100 MiB", 894 << 20: "894 MiB", 12638031872: "11.8 GiB", 1 << 62: "4 EiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", b, got, want)
		}
	}
}

func TestMaxAbs(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{
		{nil, 0},
		{[]float64{1, -3.5, 2}, 3.5},
		{[]float64{math.Copysign(0, -1)}, 0},
		{[]float64{1, math.Inf(-1)}, math.Inf(1)},
	} {
		if got := MaxAbs(c.v); got != c.want || math.Signbit(got) {
			t.Errorf("MaxAbs(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if got := MaxAbs([]float64{1, math.NaN(), 2}); !math.IsNaN(got) {
		t.Errorf("MaxAbs with a NaN = %v, want NaN (math.Max's rule)", got)
	}
}
