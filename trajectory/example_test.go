package trajectory_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/trajectory"
)

// Run the built-in pendulum for 10 steps, recording every 5th step as
// trajectory CSV into a buffer, then read the frames back.
func Example() {
	sc, err := scenes.Lookup("pendulum")
	if err != nil {
		panic(err)
	}
	w, err := sc.Build(nil) // the scene's default parameters
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	tw, err := trajectory.NewWriter(&buf, trajectory.CSV, w)
	if err != nil {
		panic(err)
	}
	rep, err := trajectory.Run(context.Background(), w, trajectory.Options{Steps: 10, Every: 5, Trajectory: tw})
	if err != nil {
		panic(err)
	}
	if err := tw.Close(); err != nil {
		panic(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	fmt.Println(first)
	fmt.Printf("%d steps, %d frames\n", rep.Steps, rep.Frames)

	r, err := trajectory.NewReader(&buf, trajectory.CSV)
	if err != nil {
		panic(err)
	}
	frames, err := r.ReadAll()
	if err != nil {
		panic(err)
	}
	for _, f := range frames {
		fmt.Printf("step %d at t = %.3f s: %d body\n", f.Step, f.Time, len(f.Bodies))
	}
	// Output:
	// step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz
	// 10 steps, 3 frames
	// step 0 at t = 0.000 s: 1 body
	// step 5 at t = 0.005 s: 1 body
	// step 10 at t = 0.010 s: 1 body
}
