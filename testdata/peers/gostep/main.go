// Command gostep steps a gorigid scene file (as pilegen -format scene
// writes a registered scene) for a number of steps with World.Step and
// prints the time per step, collision included: step 1, steady (median of
// the second half of the steps) and mean, as process CPU time
// (CLOCK_PROCESS_CPUTIME_ID, every thread of the process, the garbage
// collector's too) and as wall-clock time, then the largest displacement of
// a body's centre from its start and the largest speed after the last
// step. Its output lines are those of ode_scene and mujoco_scene, which
// compare.sh reads: "cpu_ms step1=… steady=… mean=…", "wall_ms …",
// "hold max_displacement_m=… max_speed_m_s=…". Linux only (the clock).
//
//	go run ./testdata/peers/pilegen -format scene pyramid base=10 > pyramid55.json
//	go build -o gostep ./testdata/peers/gostep
//	./gostep pyramid55.json 120
package main

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/scenes"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gostep:", err)
		os.Exit(1)
	}
}

// clockProcessCPU is Linux's CLOCK_PROCESS_CPUTIME_ID.
const clockProcessCPU = 2

// cpuNow returns the process CPU time.
func cpuNow() time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockProcessCPU, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		panic(fmt.Sprintf("clock_gettime(CLOCK_PROCESS_CPUTIME_ID): %v", e))
	}
	return time.Duration(ts.Nano())
}

func run(args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return fmt.Errorf("usage: gostep SCENE.json [STEPS]")
	}
	steps := 600
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 2 {
			return fmt.Errorf("STEPS %q: want an integer ≥ 2", args[1])
		}
		steps = n
	}
	w, err := scenes.LoadFile(args[0])
	if err != nil {
		return err
	}
	start := make([]mgl64.Vec3, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	cpu := make([]float64, steps)
	wall := make([]float64, steps)
	iters, maxIters, maxRows := 0, 0, 0
	for s := range steps {
		c0, w0 := cpuNow(), time.Now()
		st, err := w.Step()
		wall[s] = float64(time.Since(w0)) / 1e6
		cpu[s] = float64(cpuNow()-c0) / 1e6
		if err != nil {
			return fmt.Errorf("step %d: %w", s+1, err)
		}
		iters += st.Iterations
		maxIters = max(maxIters, st.Iterations)
		maxRows = max(maxRows, st.Rows)
	}
	maxDisp, maxV := 0.0, 0.0
	for i, b := range w.Bodies {
		if b.Static || b.Kinematic {
			continue
		}
		maxDisp = math.Max(maxDisp, b.Pos.Sub(start[i]).Len())
		maxV = math.Max(maxV, b.Vel.Len())
	}
	fmt.Printf("gorigid: World.Step, %d bodies, %d steps of %g s; rows ≤ %d, block-pivoting iterations mean %.2f max %d\n",
		len(w.Bodies), steps, w.Settings.H, maxRows, float64(iters)/float64(steps), maxIters)
	report("cpu_ms", cpu)
	report("wall_ms", wall)
	fmt.Printf("hold max_displacement_m=%.3g max_speed_m_s=%.3g\n", maxDisp, maxV)
	return nil
}

// report prints step 1, the median of the second half and the mean of v
// (ms).
func report(name string, v []float64) {
	mean := 0.0
	for _, x := range v {
		mean += x / float64(len(v))
	}
	first := v[0]
	half := slices.Clone(v[len(v)/2:])
	slices.Sort(half)
	n := len(half)
	med := half[n/2]
	if n%2 == 0 {
		med = (half[n/2-1] + half[n/2]) / 2
	}
	fmt.Printf("%s step1=%.4f steady=%.4f mean=%.4f\n", name, first, med, mean)
}
