package study

import (
	"context"
	"fmt"
	"math"

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
}

// ScalingCases are walls of 15, 30, 50, 100 and 200 bricks (5 bricks per
// two rows) and pyramids of 10, 21, 36, 55 and 496 bricks (bases 4, 6, 8,
// 10 and the scene's default 31). The pyramid's contact graph is
// two-dimensional: one exact factorization of the 496-brick pyramid's
// 17 112 rows costs about 2.6 GFlop, and it takes most of the study's time.
var ScalingCases = []ScalingCase{
	{"brickwall", "rows", 6, 15}, {"brickwall", "rows", 12, 30}, {"brickwall", "rows", 20, 50},
	{"brickwall", "rows", 40, 100}, {"brickwall", "rows", 80, 200},
	{"pyramid", "base", 4, 10}, {"pyramid", "base", 6, 21}, {"pyramid", "base", 8, 36}, {"pyramid", "base", 10, 55},
	{"pyramid", "base", 31, 496},
}

// ScalingRun is one size's measurements.
type ScalingRun struct {
	Case ScalingCase
	Rows int // MLCP rows at step 1
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
}

// ScalingSeries name the fitted time series of a ScalingRun.
var ScalingSeries = []struct {
	Name string
	Of   func(*ScalingRun) float64
}{
	{"step1", func(r *ScalingRun) float64 { return r.Step1 }},
	{"steady", func(r *ScalingRun) float64 { return r.Steady }},
	{"mean", func(r *ScalingRun) float64 { return r.Mean }},
}

// ScalingScenes are the scenes of ScalingCases in order.
var ScalingScenes = []string{"brickwall", "pyramid"}

// PowerLaw is a fitted t = C·bricksᴾ (ms).
type PowerLaw struct {
	Scene, Series string
	P, C          float64
}

// ScalingResult is what Scaling measures.
type ScalingResult struct {
	Steps int
	Runs  []*ScalingRun // ScalingCases order
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

// BudgetHits returns the budget hits over all runs.
func (r *ScalingResult) BudgetHits() int {
	n := 0
	for _, c := range r.Runs {
		n += c.BudgetHits
	}
	return n
}

// Scaling measures the CPU time per step of exact block pivoting (the
// velocity-level step of Eq. 1 of Enzenhöfer, Peiret, Teichmann and
// Kövecses, "A Unit-Consistent Error Measure for Multibody Systems With
// Unilateral Constraints", 2019, solved without a budget) on the brick
// walls of its §5.2 (Fig. 8) grown from 15 to 200 bricks and on brick
// pyramids (ScalingCases), each run from rest for o.Steps steps (default
// ScalingSteps). The times are the process's CPU time (user + system)
// around World.Step, so a busy machine slows them less than wall-clock
// time would. A power law t = c·bricksᵖ is fitted to each time series by
// least squares in log–log coordinates.
func Scaling(ctx context.Context, o Options) (*ScalingResult, error) {
	steps, err := o.steps("scaling", ScalingSteps)
	if err != nil {
		return nil, err
	}
	units := 0
	for _, c := range ScalingCases {
		units += c.Bricks * steps
	}
	pr := newMeter(o, units) // brick-steps: a step's cost grows with the bricks
	res := &ScalingResult{Steps: steps}
	for _, c := range ScalingCases {
		r, err := runScaling(ctx, c, steps, pr)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, r)
	}
	for _, sc := range ScalingScenes {
		var x []float64
		for _, r := range res.Runs {
			if r.Case.Scene == sc {
				x = append(x, float64(r.Case.Bricks))
			}
		}
		for _, s := range ScalingSeries {
			var y []float64
			for _, r := range res.Runs {
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
	return res, nil
}

// runScaling steps one case from rest.
func runScaling(ctx context.Context, c ScalingCase, steps int, pr *meter) (*ScalingRun, error) {
	s, err := scenes.Lookup(c.Scene)
	if err != nil {
		return nil, err
	}
	w, err := s.Build(map[string]string{c.Param: fmt.Sprint(c.Value)})
	if err != nil {
		return nil, err
	}
	if len(w.Bodies) != c.Bricks {
		return nil, fmt.Errorf("scaling: %s %s=%d built %d bodies, want %d", c.Scene, c.Param, c.Value, len(w.Bodies), c.Bricks)
	}
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	r := &ScalingRun{Case: c, StepMS: make([]float64, 0, min(steps, 1<<16)), Iterations: make([]int, 0, min(steps, 1<<16))}
	for k := 1; k <= steps; k++ {
		if err := stopped(ctx, "scaling: %s %s=%d: stopped at step %d of %d", c.Scene, c.Param, c.Value, k-1, steps); err != nil {
			return nil, err
		}
		var st stepper.Stats
		ms, err := cpuMillis(func() error {
			var err error
			st, err = w.Step()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("scaling: %s %s=%d: step %d: %w", c.Scene, c.Param, c.Value, k, err)
		}
		if k == 1 {
			r.Rows = st.Rows
		}
		r.StepMS = append(r.StepMS, ms)
		r.Iterations = append(r.Iterations, st.Iterations)
		if st.BudgetHit {
			r.BudgetHits++
		}
		pr.add(c.Bricks)
	}
	for i, b := range w.Bodies {
		r.MaxDisplacement = math.Max(r.MaxDisplacement, b.Pos.Sub(start[i]).Len())
	}
	r.Stands = r.MaxDisplacement <= ScalingStands
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
