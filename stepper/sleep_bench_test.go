package stepper

import "testing"

// sleepingPile returns the settled pile of 125 boxes of pile(tb, 5)
// (0.1 m, 1 kg, μ = 0.5, in 5 × 5 columns of 5 on a ground plane) with
// sleeping on or off, stepped 2 s at h = 1/60 s: every box sleeps (on).
func sleepingPile(tb testing.TB, sleep bool) *World {
	w := pile(tb, 5)
	w.Settings.Sleep.On = sleep
	for s := 0; s < 120; s++ {
		if _, err := w.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	if sleep && w.Sleeping() != len(w.Bodies) {
		tb.Fatalf("%d of %d boxes asleep after 2 s", w.Sleeping(), len(w.Bodies))
	}
	return w
}

// BenchmarkSleepingPile steps the settled 125-box pile: asleep, a step
// costs the per-body passes (a comparison for each kept world inverse
// inertia and bounding box, the energy sums), no broad-phase sweep (no
// body moves) and nothing per contact; awake, the boxes' 500 contact
// points are detected, assembled and solved.
func BenchmarkSleepingPile(b *testing.B) {
	for _, c := range []struct {
		name  string
		sleep bool
	}{{"asleep", true}, {"awake", false}} {
		b.Run(c.name, func(b *testing.B) {
			w := sleepingPile(b, c.sleep)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
