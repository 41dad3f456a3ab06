package scenes

import (
	"testing"

	"github.com/gorigid/gorigid/stepper"
)

// TestMJCFHumanoidGameStepGain: humanoid.xml (12 hinges) dropped at the
// game step h = 1/60 s with DefaultSettings (sleeping off, so that every
// step is stepped) falls 549 J (U from 718 J to 169 J) and lands around
// step 61, an impact that takes 38 J and leaves hinge anchors up to
// 0.36 mm apart (under ProjectAbove's 1 mm, so not projected). The next
// step's Φ/h feedback closes them under the limbs' load (knee and ankle
// rows at 300 N): the documented JointFeedback gain (Stats.EnergyAdded),
// 0.0525 J, 1e-4 of the fall. Bounds: every step's gain under 1 % of the
// fall (trajectory.EnergyWarnFraction, the run's warning), and with
// JointProjection, which puts no Φ/h on a moving anchor, under 1e-3 J
// (3.6e-4 J measured): the gain is that feedback's.
func TestMJCFHumanoidGameStepGain(t *testing.T) {
	run := func(jc stepper.JointCorrection) (fall, gain float64, at int) {
		s, _, err := LoadMJCF(modelDir+"humanoid.xml", ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.World()
		if err != nil {
			t.Fatal(err)
		}
		w.Settings = stepper.DefaultSettings()
		w.Settings.Sleep.On = false
		w.Settings.JointCorrection = jc
		k0, u0 := w.Energy()
		uMin := u0
		for range 360 {
			st, err := w.Step()
			if err != nil {
				t.Fatal(err)
			}
			uMin = min(uMin, st.Potential)
			if st.EnergyAdded > gain {
				gain, at = st.EnergyAdded, st.Step
			}
		}
		return k0 + u0 - uMin, gain, at
	}
	fall, gain, at := run(stepper.JointFeedback)
	t.Logf("feedback: fall %.4g J, largest step gain %.4g J at step %d (%.2g of the fall)", fall, gain, at, gain/fall)
	if !(fall > 500) || gain > 0.01*fall {
		t.Errorf("fall %.4g J, largest step gain %.4g J at step %d: want a fall > 500 J and gains under 1 %% of it", fall, gain, at)
	}
	_, pgain, pat := run(stepper.JointProjection)
	t.Logf("projection: largest step gain %.4g J at step %d", pgain, pat)
	if pgain > 1e-3 {
		t.Errorf("JointProjection: a step gains %.4g J (step %d), want ≤ 1e-3 J", pgain, pat)
	}
}
