package scenes

import (
	"math"
	"strings"
	"testing"
)

// TestMJCFGripper4Bar imports testdata/models/gripper4bar.xml (a gripper
// with mujoco_menagerie's robotiq_2f85 features, see the file) and lets
// it hang limp for 0.5 s at its 2 ms step, against MuJoCo 2.2.2
// (testdata/models/mujoco_hang.c: `mujoco_hang testdata/models/gripper4bar.xml "" 250 0`).
//
// The import names what it leaves out: the <general> actuator on the
// tendon, and the tendon, which without a range or an actuator does
// nothing. The base, welded to the world, is static: the moving mass is
// MuJoCo's total, 0.902 kg, less its 0.78 kg.
//
// Each side's linkage (driver, coupler, spring link, follower, closed by
// the <connect>) folds under gravity and the spring's pull towards its
// springref; the coupler presses on its upper limit, 0. gorigid's rigid
// limit holds it there (to 1e-9 rad); MuJoCo's soft one (solreflimit
// 5 ms) lets it through by 1.56 mrad, and the linkage passes that on:
// every joint within 4e-3 rad of MuJoCo's (3.45e-3 measured, the
// followers). That is the softness: with solref and solreflimit 1 ms at
// h = 0.5 ms MuJoCo's coupler overshoots 0.29 mrad and the largest gap is
// 5.9e-4 rad. The joint equality ties the two drivers and the sides are
// mirror images: left equals right to 1e-9 rad.
func TestMJCFGripper4Bar(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"gripper4bar.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := warningText(ws)
	for _, want := range []string{
		`<general>: <general> actuator "fingers" on tendon "split" not imported`,
		`<fixed>: fixed tendon "split" without a range not imported`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("want a warning %q, got:\n%s", want, got)
		}
	}
	moving := movingMass(s)
	if math.Abs(moving-(0.902-0.78)) > 1e-15 {
		t.Errorf("moving mass %v kg, want MuJoCo's 0.902 less the static base's 0.78", moving)
	}
	w := buildWorld(t, s)
	for i := 0; i < 250; i++ {
		if _, err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	mj := map[string]float64{"driver": 0.478393928338, "coupler": 0.001560274384, "spring": 0.479956474518, "follower": -0.462802494564}
	for _, j := range []string{"driver", "coupler", "spring", "follower"} {
		r, l := jointQ(t, w, "r_"+j), jointQ(t, w, "l_"+j)
		if math.Abs(r-l) > 1e-9 {
			t.Errorf("%s: right %.12g, left %.12g rad", j, r, l)
		}
		if math.Abs(r-mj[j]) > 4e-3 {
			t.Errorf("%s at %.9g rad after 0.5 s, MuJoCo %.9g", j, r, mj[j])
		}
	}
	if c := jointQ(t, w, "r_coupler"); c > 1e-9 {
		t.Errorf("coupler at %.3g rad, past its rigid upper limit 0", c)
	}
}
