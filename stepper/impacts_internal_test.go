package stepper

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bounceStep's target keeps e² of the energy Ẽ = u²/2 − a z + a h u/2
// that semi-implicit Euler conserves under the normal acceleration a, for
// a body on a fixed surface, which ends the step at g + h u⁺ − t_c (u⁺ −
// u_f) (shiftBounces: its impulse m (u⁺ − u_f) acts at t_c); that end gap
// is u⁺ (h − t_c) when it approaches fastest at the step's end (a ≤ 0),
// and u⁺ = e|u₀| when a = 0 (the gap then −(1 + e) g below g + h u⁺: the
// gap fallen plus the height not risen). Checked over gaps from 0 to the
// step's whole fall, e from 0.1 to 1 and a from −9.81 (the floor) through
// 0 (free flight) to +2 m/s² (a pull away), to a relative 1e-12 (rounding
// of terms of size u₀²).
func TestBounceStepEnergy(t *testing.T) {
	const h, u0 = 1.0 / 60, -4.0
	for _, a := range []float64{-9.81, -1, 0, 2} {
		uf := u0 + a*h
		wIn := math.Max(-u0, -uf)
		for _, e := range []float64{0.1, 0.5, 0.8, 1} {
			for k := 0; k <= 10; k++ {
				g := wIn * h * float64(k) / 10
				u, tc := bounceStep(e, g, u0, uf, h)
				z := g + h*u - tc*(u-uf) // the end gap
				eb := u0*u0/2 - a*g + a*h*u0/2
				ea := u*u/2 - a*z + a*h*u/2
				assert.InDelta(t, e*e*eb, ea, 1e-12*u0*u0, "a %v e %v g %v", a, e, g)
				assert.InDelta(t, g/wIn, tc, 1e-15)
				if a <= 0 {
					assert.InDelta(t, u*(h-tc), z, 1e-15, "a %v e %v g %v", a, e, g)
				}
				assert.GreaterOrEqual(t, z, -1e-15)
				if a == 0 {
					assert.InDelta(t, -e*u0, u, 1e-15)
					assert.InDelta(t, -(1+e)*g, z-g-h*u, 1e-15)
				}
			}
		}
	}
	// Pulled apart so that the step's free motion leaves the surface: no bounce.
	u, d := bounceStep(0.5, 0.01, -1, 500*1.0/60-1, 1.0/60)
	assert.Equal(t, [2]float64{0, 0}, [2]float64{u, d})
}

// A point dropped onto the floor by the integrator bounceStep is made for
// (u ← u − g h, z ← z + h u; in the bounce step u ← u⁺ and z ← z + h u⁺ −
// t_c (u⁺ − u_f), bounceStep's and shiftBounces'), from 200
// heights between 1 and 1.1 m, so that the floor falls at every phase of a
// step: every apex is e^2k h₀ to within g h²/8 and never above, for e =
// 0.5, 0.8 and 1, over the bounces that land faster than BounceSpeed + g h
// (slower, the step before may stop the point at the floor, the
// speculative contact's φ/h, and the bounce then starts from rest lower). Before bounceStep (the
// bounce at e|u₀| from the step's start) the first apex at e = 0.5 was up
// to (1 − e²) v h + e (1 − e) v h/2 high (5.5 cm + 0.9 cm at h = 1/60 s).
func TestBounceStepDrops(t *testing.T) {
	const g, h = 9.81, 1.0 / 60
	worst := map[float64]float64{}
	for _, e := range []float64{0.5, 0.8, 1} {
		for i := 0; i < 200; i++ {
			h0 := 1 + 0.1*float64(i)/200
			z, u := h0, 0.0
			top, rising, k := 0.0, false, 0
			for s := 0; s < int(6/h) && k < 6; s++ {
				uf := u - g*h
				if u < 0 && -math.Min(u, uf) >= DefaultBounceSpeed && z+h*math.Min(u, uf) <= 0 {
					b, tc := bounceStep(e, z, u, uf, h)
					z, u = z+h*b-tc*(b-uf), b
				} else if z+h*uf < 0 {
					z, u = 0, -z/h // the speculative contact stops it at the floor
				} else {
					z, u = z+h*uf, uf
				}
				if u > 0 {
					rising, top = true, math.Max(top, z)
				} else if rising {
					k++
					if e < 1 && math.Sqrt(2*g*h0)*math.Pow(e, float64(k-1)) < DefaultBounceSpeed+g*h {
						break // a landing at about BounceSpeed may be stopped a step before it bounces
					}
					want := math.Pow(e*e, float64(k)) * h0
					worst[e] = math.Max(worst[e], math.Abs(top-want))
					if !assert.GreaterOrEqual(t, top, want-1e-12, "e %v h₀ %v apex %d", e, h0, k) ||
						!assert.LessOrEqual(t, top, want+g*h*h/8+1e-12, "e %v h₀ %v apex %d", e, h0, k) {
						return
					}
					rising, top = false, 0
				}
			}
			if e == 1 {
				assert.Equal(t, 6, k, "e = 1 bounces on")
			}
		}
	}
	t.Logf("largest apex error: e = 0.5 %.2e m, 0.8 %.2e m, 1 %.2e m (g h²/8 = %.2e m)", worst[0.5], worst[0.8], worst[1], g*h*h/8)
}
