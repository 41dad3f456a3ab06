package sweep_test

import (
	"fmt"

	"github.com/gorigid/gorigid/sweep"
)

// A job scores a run against a measured trajectory by its term of Eq. 18:
// here the "measurement" is the same run, so E is 0; with another
// surface friction it is not. At h = 10 ms the digits of that E follow
// the solver's last bits (docs/calibration.md, "Why E is rough"), so the
// example prints what holds whatever they are: E above 1e-6 m² and a
// worst error over 1 mm.
func Example() {
	set := func(mu string) map[string]string {
		return map[string]string{"object_x": "0.01", "pusher_angle": "0.5", "push_speed": "0.5", "push_distance": "0.06", "mu_s": mu}
	}
	measured, err := sweep.Simulate("push", set("0.5"), "bpp", 60, 1, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, mu := range []string{"0.5", "0.4"} {
		job := sweep.Job{ID: "mu_s=" + mu, Scene: "push", Solver: "bpp", Steps: 60, Body: 0, AngleLength: 0.05,
			Set: set(mu), Measured: measured}
		r, err := sweep.Run(&job)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: E = 0: %v, E > 1e-6 m²: %v, worst error > 1 mm: %v\n", job.ID, r.E == 0, r.E > 1e-6, r.MaxErr > 1e-3)
	}
	// Output:
	// mu_s=0.5: E = 0: true, E > 1e-6 m²: false, worst error > 1 mm: false
	// mu_s=0.4: E = 0: false, E > 1e-6 m²: true, worst error > 1 mm: true
}
