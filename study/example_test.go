package study_test

import (
	"context"
	"fmt"

	"github.com/gorigid/gorigid/study"
)

// Example: two steps of the brick wall; over 100 projected Gauss–Seidel
// sweeps the mean energy error falls (Fig. 9).
func ExampleBrickWall() {
	res, err := study.BrickWall(context.Background(), study.Options{Steps: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	e := res.Curves[2]
	fmt.Println(e.Measure, "after sweep 100 below sweep 1:", e.Mean[99] < e.Mean[0])
	fmt.Println("wall stands:", res.MaxDisplacement < 1e-3)
	// Output:
	// energy after sweep 100 below sweep 1: true
	// wall stands: true
}

// Example: half a second of the 8-link pendulum; RK4's energy drift is
// orders of magnitude below explicit Euler's (Fig. 7).
func ExampleRK4Contact() {
	res, err := study.RK4Contact(context.Background(), study.Options{Steps: 500})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, in := range study.DriftIntegrators {
		fmt.Printf("%s: drift below 1e-3 J: %v\n", in, study.MaxOf(res.Drift[i]) < 1e-3)
	}
	// Output:
	// explicit-euler: drift below 1e-3 J: false
	// euler: drift below 1e-3 J: false
	// rk4: drift below 1e-3 J: true
}
