package sweep_test

import (
	"fmt"

	"github.com/gorigid/gorigid/sweep"
)

// A job scores a run against a measured trajectory by its term of Eq. 18:
// here the "measurement" is the same run, so E is 0; with another
// surface friction it is not.
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
		fmt.Printf("%s: E = %.2g m², worst error %.2g m\n", job.ID, r.E, r.MaxErr)
	}
	// Output:
	// mu_s=0.5: E = 0 m², worst error 0 m
	// mu_s=0.4: E = 3.9e-05 m², worst error 0.0094 m
}
