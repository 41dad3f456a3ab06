package contact

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func randomBoxes(r *rand.Rand, n int, world, size float64) []AABB {
	boxes := make([]AABB, n)
	for i := range boxes {
		c := mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(world)
		e := mgl64.Vec3{r.Float64(), r.Float64(), r.Float64()}.Mul(size)
		boxes[i] = AABB{Min: c.Sub(e), Max: c.Add(e)}
	}
	return boxes
}

func bruteForce(boxes []AABB, skip func(i, j int) bool) [][2]int {
	var out [][2]int
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if boxes[i].Overlaps(boxes[j]) && (skip == nil || !skip(i, j)) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

func TestSweepAndPruneMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(42, 1))
	var sap SweepAndPrune
	var got [][2]int
	for it := 0; it < 50; it++ {
		n := 1 + r.IntN(300)
		boxes := randomBoxes(r, n, 10, 0.2+r.Float64())
		if it%5 == 0 { // a ground plane and a flat layer: ties on the sweep axis
			boxes = append(boxes, NewPlane().Bounds(IdentityPose(), 0.01))
			for i := 0; i < 10; i++ {
				boxes = append(boxes, AABB{Min: mgl64.Vec3{float64(i), 0, 0}, Max: mgl64.Vec3{float64(i) + 1, 1, 1}})
			}
		}
		var skip func(i, j int) bool
		if it%2 == 1 {
			skip = func(i, j int) bool { return (i+j)%3 == 0 }
		}
		got = sap.Pairs(got[:0], boxes, skip)
		want := bruteForce(boxes, skip)
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d (n=%d): %d pairs, brute force %d", it, len(boxes), len(got), len(want))
		}
	}
}

func TestSweepAndPruneInvalidBoxes(t *testing.T) {
	box := must(NewBoxSize(mgl64.Vec3{2, 2, 2}))
	boxes := []AABB{
		box.Bounds(IdentityPose(), 0),
		box.Bounds(Pose{}, 0), // invalid pose: empty box
		{Min: mgl64.Vec3{0, 0, 0}, Max: mgl64.Vec3{1, 1, 1}},
	}
	boxes[2].Min[1] = boxes[2].Min[1] * 0 / 0 // NaN
	var sap SweepAndPrune
	if got := sap.Pairs(nil, boxes, nil); len(got) != 0 {
		t.Errorf("pairs with invalid boxes: %v", got)
	}
}

func TestSweepAndPruneNoAllocsWhenWarm(t *testing.T) {
	boxes := randomBoxes(rand.New(rand.NewPCG(5, 6)), 500, 10, 0.3)
	var sap SweepAndPrune
	dst := sap.Pairs(nil, boxes, nil)
	allocs := testing.AllocsPerRun(20, func() { dst = sap.Pairs(dst[:0], boxes, func(i, j int) bool { return false }) })
	if allocs != 0 {
		t.Errorf("%v allocations per warm Pairs", allocs)
	}
}

// BenchmarkSweepAndPrune1000 is a pile: 1000 boxes of 0.5 m in a
// 10 × 10 × 5 m volume (a few thousand overlaps).
func BenchmarkSweepAndPrune1000(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	boxes := make([]AABB, 1000)
	for i := range boxes {
		c := mgl64.Vec3{r.Float64() * 10, r.Float64() * 10, r.Float64() * 5}
		boxes[i] = AABB{Min: c.Sub(mgl64.Vec3{0.25, 0.25, 0.25}), Max: c.Add(mgl64.Vec3{0.25, 0.25, 0.25})}
	}
	var sap SweepAndPrune
	dst := sap.Pairs(nil, boxes, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		dst = sap.Pairs(dst[:0], boxes, nil)
	}
	b.ReportMetric(float64(len(dst)), "pairs")
}

func BenchmarkCollideBoxBox(b *testing.B) {
	box := must(NewBoxSize(mgl64.Vec3{1, 1, 1}))
	pa := at(0, 0, 0)
	pb := atRot(0.3, 0.2, 0.99, 0.5, ez)
	dst := make([]Point, 0, 8)
	b.ReportAllocs()
	for range b.N {
		dst = Collide(dst[:0], box, pa, box, pb, 0.01)
	}
}

// TestSweepAndPruneMovingBoxes: one SweepAndPrune over 200 frames of 300
// moving boxes (each frame moves every box by up to 0.02 of its size, a
// pile settling, and every 25th frame scatters a tenth of them across
// the world, a sweep that insertion cannot afford; every 40th makes a box
// invalid) gives the brute force's pairs in every frame, the same slice
// whether the sweep started from the last frame's order or from scratch,
// or ran in three parts (Sweep, PairsIn, SortPairs).
func TestSweepAndPruneMovingBoxes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	boxes := randomBoxes(r, 300, 6, 0.4)
	var sap SweepAndPrune
	var got [][2]int
	for frame := range 200 {
		for i := range boxes {
			d := mgl64.Vec3{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}.Mul(0.02 * 0.4)
			if frame%25 == 24 && i%10 == 0 {
				d = mgl64.Vec3{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5}.Mul(6)
			}
			boxes[i] = AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
		}
		if frame%40 == 39 {
			k := r.IntN(len(boxes))
			boxes[k].Min[0], boxes[k].Max[0] = 1, 0 // empty: overlaps nothing
		}
		got = sap.Pairs(got[:0], boxes, nil)
		if want := bruteForce(boxes, nil); !slices.Equal(got, want) {
			t.Fatalf("frame %d: %d pairs, brute force %d", frame, len(got), len(want))
		}
		var fresh SweepAndPrune
		if want := fresh.Pairs(nil, boxes, nil); !slices.Equal(got, want) {
			t.Fatalf("frame %d: %d pairs from the last frame's order, %d from scratch", frame, len(got), len(want))
		}
		// In three parts, gathered last part first.
		m := fresh.Sweep(boxes)
		parts := fresh.PairsIn(nil, boxes, 2*m/3, m, nil)
		parts = fresh.PairsIn(parts, boxes, m/3, 2*m/3, nil)
		parts = fresh.PairsIn(parts, boxes, 0, m/3, nil)
		fresh.SortPairs(parts, len(boxes))
		if !slices.Equal(got, parts) {
			t.Fatalf("frame %d: %d pairs, %d from three parts", frame, len(got), len(parts))
		}
	}
}
