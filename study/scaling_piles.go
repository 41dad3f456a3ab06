package study

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/gorigid/gorigid/body"
	"gonum.org/v1/gonum/stat"
)

// ScalingDominoSteps caps the 1 000-domino run of ScalingPileCases: its
// steps grow dearer as dominoes fall and lean on each other (about a
// hundred block-pivoting iterations a step once a few dozen lean), and
// 120 steps (2 s) topple the first few dozen.
const ScalingDominoSteps = 120

// ScalingPileCases are the unstructured scenes of issue 25: random piles
// of 100, 300 and 1 000 boxes (the randompile scene, seed 2024: the 100-box
// pile is the issue's) dropped from 0.5–3 m, run for twice the study's
// steps (600 by default, the 10 s: the 100-box pile's last box
// comes to rest at 5.2 s), and 1 000 dominoes on the dominoes scene's
// spiral. They run with the scenes' settings: block pivoting at its
// default budget.
var ScalingPileCases = []ScalingCase{
	{Scene: "randompile", Param: "boxes", Value: 100, Bricks: 100, StepsFactor: 2},
	{Scene: "randompile", Param: "boxes", Value: 300, Bricks: 300, StepsFactor: 2},
	{Scene: "randompile", Param: "boxes", Value: 1000, Bricks: 1000, StepsFactor: 2},
	{Scene: "dominoes", Param: "count", Value: 1000, Bricks: 1000, Set: map[string]string{"layout": "spiral"}, MaxSteps: ScalingDominoSteps},
}

// ScalingProcsCase is the scene of the GOMAXPROCS column: four random
// piles of 100 boxes, far enough apart never to touch (the piles scene's
// default), so a step has four independent contact islands.
var ScalingProcsCase = ScalingCase{Scene: "piles", Param: "piles", Value: 4, Bricks: 400}

// ScalingProcs are the GOMAXPROCS values at which ScalingProcsCase runs.
var ScalingProcs = []int{1, 2, 4}

// ScalingProcsRun is one run of ScalingProcsCase at one GOMAXPROCS.
type ScalingProcsRun struct {
	Procs int // GOMAXPROCS during the run
	// StepMS is the wall-clock time (ms) of each step: what more cores can
	// shorten, unlike the process's CPU time.
	StepMS []float64
	// Step1, Steady (median of the second half) and Mean are as in
	// ScalingRun, in wall-clock ms.
	Step1, Steady, Mean float64
	IterationsMean      float64
	// SpeedupSteady and SpeedupMean are the first run's (GOMAXPROCS 1)
	// Steady and Mean over this run's.
	SpeedupSteady, SpeedupMean float64
	// SameState reports whether the final poses and velocities equal those
	// of the first run bit for bit.
	SameState bool
}

// scalingProcs runs ScalingProcsCase at each GOMAXPROCS of ScalingProcs
// and restores GOMAXPROCS.
func scalingProcs(ctx context.Context, steps int, pr *meter) ([]*ScalingProcsRun, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	c := ScalingProcsCase
	steps = c.Steps(steps)
	var out []*ScalingProcsRun
	var first []body.Body
	for _, procs := range ScalingProcs {
		w, err := c.build()
		if err != nil {
			return nil, err
		}
		runtime.GOMAXPROCS(procs)
		r := &ScalingProcsRun{Procs: procs, StepMS: make([]float64, 0, min(steps, 1<<16))}
		its := make([]int, 0, min(steps, 1<<16))
		for k := 1; k <= steps; k++ {
			if err := stopped(ctx, "scaling: %s at GOMAXPROCS %d: stopped at step %d of %d", c.label(), procs, k-1, steps); err != nil {
				return nil, err
			}
			t := time.Now()
			st, err := w.Step()
			ms := float64(time.Since(t)) / float64(time.Millisecond)
			if err != nil {
				return nil, fmt.Errorf("scaling: %s at GOMAXPROCS %d: step %d: %w", c.label(), procs, k, err)
			}
			r.StepMS = append(r.StepMS, ms)
			its = append(its, st.Iterations)
			pr.add(c.Bricks)
		}
		r.Step1 = r.StepMS[0]
		r.Steady = median(r.StepMS[steps/2:])
		r.Mean = stat.Mean(r.StepMS, nil)
		r.IterationsMean = meanInts(its)
		final := make([]body.Body, len(w.Bodies))
		for i, b := range w.Bodies {
			final[i] = *b
		}
		if first == nil {
			first = final
		}
		r.SameState = sameMotion(first, final)
		r.SpeedupSteady, r.SpeedupMean = out0(out, r).Steady/r.Steady, out0(out, r).Mean/r.Mean
		out = append(out, r)
	}
	return out, nil
}

// out0 is the first run of out, or r when out is empty.
func out0(out []*ScalingProcsRun, r *ScalingProcsRun) *ScalingProcsRun {
	if len(out) == 0 {
		return r
	}
	return out[0]
}

// sameMotion reports whether a and b hold the same poses and velocities,
// bit for bit (a NaN equals nothing).
func sameMotion(a, b []body.Body) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Pos != b[i].Pos || a[i].Rot != b[i].Rot || a[i].Vel != b[i].Vel || a[i].AngVel != b[i].AngVel {
			return false
		}
	}
	return true
}
