package study

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"gonum.org/v1/gonum/stat"
)

// ScalingSteps is Scaling's default length per size (steps of 1/60 s).
const ScalingSteps = 300

// ScalingStands is the largest brick displacement (m) of a scene that
// stands: the brick wall's criterion.
const ScalingStands = 1e-3

// ScalingCase is one scene size of Scaling.
type ScalingCase struct {
	Scene  string // registered scene
	Param  string // its size parameter
	Value  int
	Bricks int // the number of bodies it builds
	// Set holds further parameter overrides (nil for none).
	Set map[string]string
	// StepsFactor, if > 0, multiplies the study's steps for the case;
	// MaxSteps, if > 0, caps the result.
	StepsFactor, MaxSteps int
}

// ScalingCases are walls of 15, 30, 50, 100 and 200 bricks (5 bricks per
// two rows) and pyramids of 10, 21, 36, 55 and 496 bricks (bases 4, 6, 8,
// 10 and the scene's default 31). The pyramid's contact graph is
// two-dimensional: one exact factorization of the 496-brick pyramid's
// 17 112 rows costs about 2.6 GFlop, and it takes most of the study's time.
var ScalingCases = []ScalingCase{
	{Scene: "brickwall", Param: "rows", Value: 6, Bricks: 15}, {Scene: "brickwall", Param: "rows", Value: 12, Bricks: 30},
	{Scene: "brickwall", Param: "rows", Value: 20, Bricks: 50}, {Scene: "brickwall", Param: "rows", Value: 40, Bricks: 100},
	{Scene: "brickwall", Param: "rows", Value: 80, Bricks: 200},
	{Scene: "pyramid", Param: "base", Value: 4, Bricks: 10}, {Scene: "pyramid", Param: "base", Value: 6, Bricks: 21},
	{Scene: "pyramid", Param: "base", Value: 8, Bricks: 36}, {Scene: "pyramid", Param: "base", Value: 10, Bricks: 55},
	{Scene: "pyramid", Param: "base", Value: 31, Bricks: 496},
}

// ScalingRun is one size's measurements.
type ScalingRun struct {
	Case    ScalingCase
	Rows    int // MLCP rows at step 1
	RowsMax int // the most MLCP rows of a step
	// StepMS is the CPU time (ms) of each step; Iterations the block
	// pivoting iterations of each step.
	StepMS     []float64
	Iterations []int
	// Step1 is the first step's CPU time (the cold start: every contact
	// new), Steady the median over steps SteadyFrom…SteadyUpTo (1-based,
	// the second half), Mean the mean over all steps (ms).
	Step1, Steady, Mean    float64
	SteadyFrom, SteadyUpTo int
	IterationsMean         float64
	IterationsMax          int
	BudgetHits             int
	MaxDisplacement        float64 // m
	Stands                 bool    // MaxDisplacement ≤ ScalingStands
	// MaxKinetic is the largest kinetic energy of one body after the last
	// step (J), translation and rotation, and MaxSpeed the largest speed
	// of a body's centre of mass (m/s): the "still at rest" check of a
	// pile; AtRest is MaxSpeed ≤ ScalingRestSpeed.
	MaxKinetic, MaxSpeed float64
	AtRest               bool
	// Toppled counts the bodies whose z axis turned more than 60° from
	// its start (a domino that fell).
	Toppled int
}

// ScalingRestSpeed is the speed (m/s) below which every body of a run
// must be at its end for ScalingRun.AtRest: the stepper's pile tests'
// "at rest".
const ScalingRestSpeed = 0.05

// ScalingSeries name the fitted time series of a ScalingRun.
var ScalingSeries = []struct {
	Name string
	Of   func(*ScalingRun) float64
}{
	{"step1", func(r *ScalingRun) float64 { return r.Step1 }},
	{"steady", func(r *ScalingRun) float64 { return r.Steady }},
	{"mean", func(r *ScalingRun) float64 { return r.Mean }},
}

// ScalingScenes are the scenes whose time series Scaling fits: those of
// ScalingCases in order, then the random pile of ScalingPileCases.
var ScalingScenes = []string{"brickwall", "pyramid", "randompile"}

// PowerLaw is a fitted t = C·bricksᴾ (ms).
type PowerLaw struct {
	Scene, Series string
	P, C          float64
}

// ScalingResult is what Scaling measures.
type ScalingResult struct {
	Steps int
	Runs  []*ScalingRun // ScalingCases order
	// Piles are the unstructured scenes' runs, ScalingPileCases order.
	Piles []*ScalingRun
	// Procs are the runs of ScalingProcsCase at each of ScalingProcs.
	Procs []*ScalingProcsRun
	// Fits are per scene (ScalingScenes) and series (ScalingSeries).
	Fits []PowerLaw
}

// Fit returns the power law of scene and series, and false if there is none.
func (r *ScalingResult) Fit(scene, series string) (PowerLaw, bool) {
	for _, f := range r.Fits {
		if f.Scene == scene && f.Series == series {
			return f, true
		}
	}
	return PowerLaw{}, false
}

// AllStand reports whether every scene stood.
func (r *ScalingResult) AllStand() bool {
	for _, c := range r.Runs {
		if !c.Stands {
			return false
		}
	}
	return true
}

// BudgetHits returns the budget hits over all runs, the walls', the
// pyramids' and the unstructured scenes'.
func (r *ScalingResult) BudgetHits() int {
	n := 0
	for _, c := range append(slices.Clip(r.Runs), r.Piles...) {
		n += c.BudgetHits
	}
	return n
}

// Scaling measures the CPU time per step of exact block pivoting (the
// velocity-level step of Eq. 1 of Enzenhöfer, Peiret, Teichmann and
// Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints", 2019, solved without a budget) on the brick
// walls of its §5.2 (Fig. 8) grown from 15 to 200 bricks and on brick
// pyramids (ScalingCases), then on the unstructured scenes of
// ScalingPileCases (random piles of 100 to 1 000 boxes and 1 000 dominoes
// at the block-pivoting solver's default budget), each run from its start
// for o.Steps steps (default ScalingSteps; twice as many for the random
// piles, at most ScalingDominoSteps for the dominoes).
// The times are the process's CPU time (user + system) around World.Step,
// so a busy machine slows them less than wall-clock time would. A power
// law t = c·bodiesᵖ is fitted to each time series of each scene of
// ScalingScenes by least squares in log–log coordinates. Last, the piles
// scene (ScalingProcsCase) runs at each GOMAXPROCS of ScalingProcs,
// timed by the wall clock (ScalingProcsRun); GOMAXPROCS is restored
// after.
func Scaling(ctx context.Context, o Options) (*ScalingResult, error) {
	steps, err := o.steps("scaling", ScalingSteps)
	if err != nil {
		return nil, err
	}
	units := 0
	for _, c := range append(slices.Clip(ScalingCases), ScalingPileCases...) {
		units += c.Bricks * c.Steps(steps)
	}
	units += len(ScalingProcs) * ScalingProcsCase.Bricks * ScalingProcsCase.Steps(steps)
	pr := newMeter(o, units) // body-steps: a step's cost grows with the bodies
	res := &ScalingResult{Steps: steps}
	for _, c := range ScalingCases {
		r, err := runScaling(ctx, c, steps, pr)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, r)
	}
	for _, c := range ScalingPileCases {
		r, err := runScaling(ctx, c, steps, pr)
		if err != nil {
			return nil, err
		}
		res.Piles = append(res.Piles, r)
	}
	all := append(slices.Clip(res.Runs), res.Piles...)
	for _, sc := range ScalingScenes {
		var x []float64
		for _, r := range all {
			if r.Case.Scene == sc {
				x = append(x, float64(r.Case.Bricks))
			}
		}
		for _, s := range ScalingSeries {
			var y []float64
			for _, r := range all {
				if r.Case.Scene == sc {
					y = append(y, s.Of(r))
				}
			}
			p, c, err := PowerFit(x, y)
			if err != nil {
				return nil, fmt.Errorf("scaling: %s %s: %w", sc, s.Name, err)
			}
			res.Fits = append(res.Fits, PowerLaw{Scene: sc, Series: s.Name, P: p, C: c})
		}
	}
	if res.Procs, err = scalingProcs(ctx, steps, pr); err != nil {
		return nil, err
	}
	return res, nil
}

// Steps returns the case's number of steps in a study of steps per
// case (Options.Steps).
func (c ScalingCase) Steps(steps int) int {
	if c.StepsFactor > 0 {
		steps *= c.StepsFactor
	}
	if c.MaxSteps > 0 {
		return min(steps, c.MaxSteps)
	}
	return steps
}

// label names the case in messages: "pyramid base=31".
func (c ScalingCase) label() string {
	return fmt.Sprintf("%s %s=%d", c.Scene, c.Param, c.Value)
}

// build builds the case's world and checks its number of bodies.
func (c ScalingCase) build() (*stepper.World, error) {
	s, err := scenes.Lookup(c.Scene)
	if err != nil {
		return nil, err
	}
	set := maps.Clone(c.Set)
	if set == nil {
		set = map[string]string{}
	}
	set[c.Param] = fmt.Sprint(c.Value)
	w, err := s.Build(set)
	if err != nil {
		return nil, err
	}
	if len(w.Bodies) != c.Bricks {
		return nil, fmt.Errorf("scaling: %s built %d bodies, want %d", c.label(), len(w.Bodies), c.Bricks)
	}
	return w, nil
}

// runScaling steps one case from its start.
func runScaling(ctx context.Context, c ScalingCase, steps int, pr *meter) (*ScalingRun, error) {
	w, err := c.build()
	if err != nil {
		return nil, err
	}
	steps = c.Steps(steps)
	start := make([]body.Body, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = *b
	}
	r := &ScalingRun{Case: c, StepMS: make([]float64, 0, min(steps, 1<<16)), Iterations: make([]int, 0, min(steps, 1<<16))}
	for k := 1; k <= steps; k++ {
		if err := stopped(ctx, "scaling: %s: stopped at step %d of %d", c.label(), k-1, steps); err != nil {
			return nil, err
		}
		var st stepper.Stats
		ms, err := cpuMillis(func() error {
			var err error
			st, err = w.Step()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("scaling: %s: step %d: %w", c.label(), k, err)
		}
		if k == 1 {
			r.Rows = st.Rows
		}
		r.RowsMax = max(r.RowsMax, st.Rows)
		r.StepMS = append(r.StepMS, ms)
		r.Iterations = append(r.Iterations, st.Iterations)
		if st.BudgetHit {
			r.BudgetHits++
		}
		pr.add(c.Bricks)
	}
	up := mgl64.Vec3{0, 0, 1}
	for i, b := range w.Bodies {
		r.MaxDisplacement = math.Max(r.MaxDisplacement, b.Pos.Sub(start[i].Pos).Len())
		r.MaxKinetic = math.Max(r.MaxKinetic, b.KineticEnergy())
		r.MaxSpeed = math.Max(r.MaxSpeed, b.Vel.Len())
		if b.Rot.Rotate(up).Dot(start[i].Rot.Rotate(up)) < 0.5 { // cos 60°
			r.Toppled++
		}
	}
	r.Stands = r.MaxDisplacement <= ScalingStands
	r.AtRest = r.MaxSpeed <= ScalingRestSpeed
	r.Step1 = r.StepMS[0]
	r.SteadyFrom, r.SteadyUpTo = steps/2+1, steps
	r.Steady = median(r.StepMS[r.SteadyFrom-1:])
	r.Mean = stat.Mean(r.StepMS, nil)
	r.IterationsMean = meanInts(r.Iterations)
	for _, v := range r.Iterations {
		r.IterationsMax = max(r.IterationsMax, v)
	}
	return r, nil
}

// PowerFit fits y = c·xᵖ by least squares on (log x, log y) and returns p
// and c; it needs two distinct x and positive values.
func PowerFit(x, y []float64) (p, c float64, err error) {
	if len(x) < 2 || len(x) != len(y) {
		return 0, 0, fmt.Errorf("power fit: %d points, need 2", min(len(x), len(y)))
	}
	lx, ly := make([]float64, len(x)), make([]float64, len(x))
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return 0, 0, fmt.Errorf("power fit: point %d (%v, %v) is not positive", i, x[i], y[i])
		}
		lx[i], ly[i] = math.Log(x[i]), math.Log(y[i])
	}
	if stat.Variance(lx, nil) == 0 {
		return 0, 0, fmt.Errorf("power fit: all x equal")
	}
	a, p := stat.LinearRegression(lx, ly, nil, false)
	return p, math.Exp(a), nil
}
