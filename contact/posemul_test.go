package contact

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// Pose.Mul by the identity returns the pose without its products only
// when the products give the same bits: over random body poses with zero,
// −0, tiny, huge and non-finite components, Mul(identity) must equal the
// composition written out (mgl64's Rotate and Mul, what Mul computes for
// any other local pose) to the bit; a −0 component is where they differ
// (−0 + +0 = +0), so those poses must take the products.
func TestPoseMulIdentityBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 13))
	special := []float64{0, math.Copysign(0, -1), 1e-310, -1e-310, 1e300, -1, 1, math.Inf(1), math.NaN()}
	pick := func() float64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
	}
	id := IdentityPose()
	fast := 0
	for range 20000 {
		p := Pose{Pos: mgl64.Vec3{pick(), pick(), pick()}, Rot: mgl64.Quat{W: pick(), V: mgl64.Vec3{pick(), pick(), pick()}}}
		want := Pose{Pos: p.Pos.Add(p.Rot.Rotate(id.Pos)), Rot: p.Rot.Mul(id.Rot)}
		got := p.Mul(id)
		if !sameBits(got, want) {
			t.Fatalf("pose %v: Mul(identity) = %v, products %v", p, got, want)
		}
		if p.plain() {
			fast++
		}
	}
	// The draws are a third special values on each of 7 components: a
	// fair share of poses has none, so the shortcut is exercised.
	if fast < 1000 {
		t.Fatalf("only %d of 20000 poses took the identity shortcut", fast)
	}
	// A local pose that is the identity only in value (−0 components) is
	// not the identity to the bit: it takes the products.
	neg := Pose{Pos: mgl64.Vec3{math.Copysign(0, -1), 0, 0}, Rot: mgl64.QuatIdent()}
	if neg.identity() {
		t.Fatal("a −0 position counts as the identity")
	}
}

// sameBits reports whether two poses have the same bits (NaN included).
func sameBits(a, b Pose) bool {
	f := [...]float64{a.Pos[0], a.Pos[1], a.Pos[2], a.Rot.W, a.Rot.V[0], a.Rot.V[1], a.Rot.V[2]}
	g := [...]float64{b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]}
	for i := range f {
		if math.Float64bits(f[i]) != math.Float64bits(g[i]) {
			return false
		}
	}
	return true
}
