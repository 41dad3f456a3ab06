package articulated

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomTree returns a tree of nb links with random parents (each link
// hangs from an earlier one, listed in a shuffled order so that parents do
// not precede children in the slice), random offsets, lengths, masses, and
// two contacts (one frictional), in a random state.
func randomTree(rng *rand.Rand, nb int, floating bool) (Model, []float64, []float64) {
	perm := rng.Perm(nb) // link k of the generation order is stored at perm[k]
	links := make([]Link, nb)
	for k := range nb {
		l := Link{Parent: -1, Length: 0.3 + rng.Float64(), Mass: 0.5 + 2*rng.Float64()}
		if k > 0 {
			pk := rng.IntN(k)
			l.Parent = perm[pk]
			l.Offset = Vec2{rng.Float64() * 1.2, rng.NormFloat64() * 0.2}
		}
		if rng.IntN(2) == 0 {
			l.Inertia = 0.05 + rng.Float64()
		}
		links[perm[k]] = l
	}
	m := Model{Links: links, Floating: floating, Pin: Vec2{0.3, 1.7}, Gravity: Vec2{0.4, -9.81},
		Lines: []Line{Ground(), {P: Vec2{2, 0}, N: Vec2{-1, 0.2}}}}
	m.Contacts = []Contact{
		{Link: perm[nb-1], Point: Vec2{links[perm[nb-1]].Length, 0}, Line: 0, Mu: 0.4},
		{Link: perm[nb/2], Point: Vec2{0.1, 0.05}, Line: 1},
		{Link: perm[0], Point: Vec2{0.2, 0}, Line: 0, Mu: 0.8},
	}
	n := m.NumDOF()
	q, u := make([]float64, n), make([]float64, n)
	for i := range q {
		q[i] = rng.NormFloat64()
		u[i] = 2 * rng.NormFloat64()
	}
	return m, q, u
}

func relDiff(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Max(math.Abs(a[i]), math.Abs(b[i])))
	}
	if den == 0 {
		return num
	}
	return num / den
}

func newSys(t testing.TB, m Model, s Settings, q, u []float64) *System {
	t.Helper()
	sys, err := New(m, s)
	require.NoError(t, err)
	require.NoError(t, sys.SetState(q, u))
	return sys
}

var allMethods = []struct {
	name     string
	method   Method
	parallel bool
}{{"on3", Traditional, false}, {"aba", ABA, false}, {"dca", DCA, false}, {"dca-parallel", DCA, true}}

// ABA and DCA give the O(n³) method's accelerations to 1e-10 relative on
// random chains and trees, floating and pinned, with and without known
// contact forces and joint torques.
func TestMethodsAgreeOnRandomTrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		nb := 1 + rng.IntN(20)
		floating := trial%2 == 0
		m, q, u := randomTree(rng, nb, floating)
		tau := make([]float64, len(q))
		for i := range tau {
			tau[i] = rng.NormFloat64()
		}
		ext := []PointForce{{Link: rng.IntN(nb), Point: Vec2{0.3, 0.1}, F: Vec2{3, -20}}}
		var ref []float64
		var refLCP []float64
		for _, me := range allMethods {
			sys := newSys(t, m, Settings{H: 1e-3, Method: me.method, Parallel: me.parallel}, q, u)
			copy(sys.Tau, tau)
			for _, e := range [][]PointForce{nil, ext} {
				a, err := sys.Accelerations(nil, e)
				require.NoError(t, err)
				if me.method == Traditional {
					ref = append(ref, a...)
				} else {
					n := len(a)
					off := 0
					if e != nil {
						off = n
					}
					require.Less(t, relDiff(ref[off:off+n], a), 1e-10, "trial %d nb %d floating %v %s ext %v", trial, nb, floating, me.name, e != nil)
				}
			}
			p, err := sys.LCP()
			require.NoError(t, err)
			flat := append(append([]float64(nil), p.A.(interface{ RawData() []float64 }).RawData()...), p.B...)
			if me.method == Traditional {
				refLCP = flat
			} else {
				require.Less(t, relDiff(refLCP, flat), 1e-9, "LCP trial %d %s", trial, me.name)
			}
		}
	}
}
