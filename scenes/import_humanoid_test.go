package scenes

import (
	"testing"
)

// TestMJCFHumanoidFallsAndSettles: humanoid.xml (capsule limbs, 12 hinges
// with limits, a free root, motors at zero input) stands, topples onto the
// plane and comes to rest within 4 s (800 steps of 5 ms), under the
// bounds of settleStats.check: pivots within 1 cm, limits within 1°,
// energy never rising by more than 1 %, at rest at the end.
func TestMJCFHumanoidFallsAndSettles(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 {
		t.Errorf("warnings %v, want one (the motors)", ws)
	}
	st := fallAndSettle(t, s, 800)
	if st.hinges != 12 {
		t.Errorf("%d hinges, want 12", st.hinges)
	}
	st.check(t)
}

// BenchmarkMJCFHumanoidStep times one step of humanoid.xml lying at rest
// on the plane (after 600 steps of falling), the steady state of the
// settle test.
func BenchmarkMJCFHumanoidStep(b *testing.B) {
	benchRestingStep(b, "humanoid.xml", ImportOptions{}, 600)
}
