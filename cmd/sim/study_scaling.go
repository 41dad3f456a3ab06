package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The scaling study: CPU time per step of exact block pivoting on brick
// walls of 15 to 200 bricks (rows of three and two, `--set rows=R`) and on
// brick pyramids (rows of n, n − 1, …, 1 without gaps), each run from rest
// for the study's steps. Per size it records step 1 (the cold start: every
// contact new), the steady time (the median over the second half of the
// steps), the mean over all steps, the block-pivoting iterations, budget
// hits, and whether the scene stands (no brick moved scalingStands). The
// times are the process's CPU time (user + system) around World.Step, so a
// busy machine slows them less than wall-clock time would. A power law
// t = c·bricksᵖ is fitted to each time series by least squares in log–log
// coordinates.

// scalingStands is the largest brick displacement (m) of a scene that
// stands: the brick wall's criterion.
const scalingStands = 1e-3

// scalingCase is one scene size of the study.
type scalingCase struct {
	scene string // registered scene
	param string // its size parameter
	value int
	// bricks is the number of bodies it builds.
	bricks int
}

// scalingCases: walls of 15, 30, 50, 100 and 200 bricks (5 bricks per two
// rows) and pyramids of 10, 21, 36 and 55 bricks (bases 4, 6, 8, 10). The
// default 496-brick pyramid (`sim run pyramid`) is left out: its contact
// graph is two-dimensional, and one exact factorization of its 17 112 rows
// costs about 2.6 GFlop.
var scalingCases = []scalingCase{
	{"brickwall", "rows", 6, 15}, {"brickwall", "rows", 12, 30}, {"brickwall", "rows", 20, 50},
	{"brickwall", "rows", 40, 100}, {"brickwall", "rows", 80, 200},
	{"pyramid", "base", 4, 10}, {"pyramid", "base", 6, 21}, {"pyramid", "base", 8, 36}, {"pyramid", "base", 10, 55},
}

func init() {
	registerStudy(study{
		Name:         "scaling",
		Doc:          "CPU time per exact step vs size: brick walls of 15–200 bricks and brick pyramids (step 1, steady, mean)",
		DefaultSteps: 300,
		Run:          studyScaling,
	})
}

// scalingResult is one size's measurements.
type scalingResult struct {
	c                      scalingCase
	rows                   int     // MLCP rows at step 1
	step1, steady, mean    float64 // ms of CPU time
	itersMean              float64
	itersMax, budgetHits   int
	maxDisp                float64 // m
	stepMS                 []float64
	iters                  []int
	stands                 bool
	steadyFrom, steadyUpTo int // the steps of the steady median, 1-based inclusive
}

// runScaling steps one case from rest.
func runScaling(ctx context.Context, c scalingCase, steps int) (*scalingResult, error) {
	s, err := scenes.Lookup(c.scene)
	if err != nil {
		return nil, err
	}
	w, err := s.Build(map[string]string{c.param: fmt.Sprint(c.value)})
	if err != nil {
		return nil, err
	}
	if len(w.Bodies) != c.bricks {
		return nil, fmt.Errorf("scaling: %s %s=%d built %d bodies, want %d", c.scene, c.param, c.value, len(w.Bodies), c.bricks)
	}
	start := make([][3]float64, len(w.Bodies))
	for i, b := range w.Bodies {
		start[i] = b.Pos
	}
	r := &scalingResult{c: c, stepMS: make([]float64, 0, steps), iters: make([]int, 0, steps)}
	for k := 1; k <= steps; k++ {
		var st stepper.Stats
		ms, err := cpuMillis(func() error {
			var err error
			st, err = w.Step()
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("scaling: %s %s=%d: step %d: %w", c.scene, c.param, c.value, k, err)
		}
		if k == 1 {
			r.rows = st.Rows
		}
		r.stepMS = append(r.stepMS, ms)
		r.iters = append(r.iters, st.Iterations)
		if st.BudgetHit {
			r.budgetHits++
		}
		if ctx.Err() != nil && k < steps {
			return nil, interruptedf("scaling: interrupted at %s %s=%d, step %d of %d; nothing written", c.scene, c.param, c.value, k, steps)
		}
	}
	for i, b := range w.Bodies {
		r.maxDisp = math.Max(r.maxDisp, b.Pos.Sub(start[i]).Len())
	}
	r.stands = r.maxDisp <= scalingStands
	r.step1 = r.stepMS[0]
	r.steadyFrom, r.steadyUpTo = steps/2+1, steps
	r.steady = median(r.stepMS[r.steadyFrom-1:])
	r.mean, _ = meanStd(r.stepMS)
	its := make([]float64, len(r.iters))
	for i, v := range r.iters {
		its[i] = float64(v)
		r.itersMax = max(r.itersMax, v)
	}
	r.itersMean, _ = meanStd(its)
	return r, nil
}

// median returns the median of v (not modified); NaN if v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// powerFit fits y = c·xᵖ by least squares on (log x, log y) and returns p
// and c; it needs two distinct x and positive values.
func powerFit(x, y []float64) (p, c float64, err error) {
	if len(x) < 2 {
		return 0, 0, fmt.Errorf("power fit: %d points, need 2", len(x))
	}
	var sx, sy, sxx, sxy float64
	for i := range x {
		if !(x[i] > 0 && y[i] > 0) {
			return 0, 0, fmt.Errorf("power fit: point %d (%v, %v) is not positive", i, x[i], y[i])
		}
		lx, ly := math.Log(x[i]), math.Log(y[i])
		sx, sy, sxx, sxy = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly
	}
	n := float64(len(x))
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0, fmt.Errorf("power fit: all x equal")
	}
	p = (n*sxy - sx*sy) / d
	return p, math.Exp((sy - p*sx) / n), nil
}

// scalingSeries are the fitted and plotted time series.
var scalingSeries = []struct {
	name string
	of   func(*scalingResult) float64
}{
	{"step1", func(r *scalingResult) float64 { return r.step1 }},
	{"steady", func(r *scalingResult) float64 { return r.steady }},
	{"mean", func(r *scalingResult) float64 { return r.mean }},
}

func studyScaling(ctx context.Context, o studyOptions) error {
	var results []*scalingResult
	for _, c := range scalingCases {
		r, err := runScaling(ctx, c, o.Steps)
		if err != nil {
			return err
		}
		results = append(results, r)
	}

	// scaling.csv, steps.csv
	var rows, steps [][]string
	for _, r := range results {
		rows = append(rows, []string{r.c.scene, fmt.Sprint(r.c.bricks), fmt.Sprint(r.rows),
			fmtFloat(r.step1), fmtFloat(r.steady), fmtFloat(r.mean),
			fmtFloat(r.itersMean), fmt.Sprint(r.itersMax), fmt.Sprint(r.budgetHits),
			fmtFloat(r.maxDisp), fmt.Sprint(b2i(r.stands))})
		for k, ms := range r.stepMS {
			steps = append(steps, []string{r.c.scene, fmt.Sprint(r.c.bricks), fmt.Sprint(k + 1), fmtFloat(ms), fmt.Sprint(r.iters[k])})
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "scaling.csv"),
		[]string{"scene", "bricks", "rows", "step1_ms", "steady_ms", "mean_ms", "iterations_mean", "iterations_max", "budget_hits", "max_displacement_m", "stands"}, rows); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "steps.csv"), []string{"scene", "bricks", "step", "cpu_ms", "iterations"}, steps); err != nil {
		return err
	}

	// summary.csv: the fitted exponents per scene and series.
	summary := [][]string{{"steps", fmt.Sprint(o.Steps)}}
	allStand, hits := true, 0
	for _, r := range results {
		allStand = allStand && r.stands
		hits += r.budgetHits
	}
	fits := map[string][2]float64{}
	for _, sc := range []string{"brickwall", "pyramid"} {
		var x []float64
		for _, r := range results {
			if r.c.scene == sc {
				x = append(x, float64(r.c.bricks))
			}
		}
		for _, s := range scalingSeries {
			var y []float64
			for _, r := range results {
				if r.c.scene == sc {
					y = append(y, s.of(r))
				}
			}
			p, c, err := powerFit(x, y)
			if err != nil {
				return fmt.Errorf("scaling: %s %s: %w", sc, s.name, err)
			}
			fits[sc+"_"+s.name] = [2]float64{p, c}
			summary = append(summary, []string{sc + "_" + s.name + "_exponent", fmtFloat(p)},
				[]string{sc + "_" + s.name + "_ms_at_1_brick", fmtFloat(c)})
		}
	}
	summary = append(summary, []string{"all_stand", fmt.Sprint(b2i(allStand))}, []string{"budget_hits", fmt.Sprint(hits)})
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value"}, summary); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scaling: %d steps per size from rest, exact block pivoting, CPU ms per step (steady: median of steps %d–%d)\n",
		o.Steps, results[0].steadyFrom, results[0].steadyUpTo)
	fmt.Fprintln(tw, "scene\tbricks\trows\tstep 1\tsteady\tmean\titers mean/max\tbudget hits\tmax displacement (m)\tstands")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3g\t%.3g\t%.3g\t%.2f / %d\t%d\t%.2g\t%v\n", r.c.scene, r.c.bricks, r.rows,
			r.step1, r.steady, r.mean, r.itersMean, r.itersMax, r.budgetHits, r.maxDisp, r.stands)
	}
	for _, sc := range []string{"brickwall", "pyramid"} {
		fmt.Fprintf(tw, "%s: time ∝ bricks^p with p = %.2f (step 1), %.2f (steady), %.2f (mean)\n", sc,
			fits[sc+"_step1"][0], fits[sc+"_steady"][0], fits[sc+"_mean"][0])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	png, err := scalingFigure(results)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "scaling.png"), png)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// scalingFigure draws CPU ms per step against bricks, both axes log: per
// scene the step-1, steady and mean times, walls solid, pyramids dashed.
func scalingFigure(results []*scalingResult) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "CPU time per exact step (block pivoting, h = 1/60 s)"
	p.X.Label.Text = "bricks"
	p.Y.Label.Text = "ms per step"
	p.Add(plotter.NewGrid())
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	for si, sc := range []string{"brickwall", "pyramid"} {
		for k, s := range scalingSeries {
			var xy plotter.XYs
			for _, r := range results {
				if r.c.scene != sc {
					continue
				}
				y := s.of(r)
				if !(y > 0) || math.IsInf(y, 0) {
					return nil, fmt.Errorf("scaling plot: %s %s at %d bricks: %v ms", sc, s.name, r.c.bricks, y)
				}
				xy = append(xy, plotter.XY{X: float64(r.c.bricks), Y: y})
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, err
			}
			l.Color, pts.Color = palette[k+1], palette[k+1]
			l.Width = vg.Points(1.2)
			pts.Shape = draw.CircleGlyph{}
			if si == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				pts.Shape = draw.BoxGlyph{}
			}
			p.Add(l, pts)
			p.Legend.Add(fmt.Sprintf("%s %s", sc, s.name), l, pts)
		}
	}
	// Whole decades at both ends.
	p.X.Min = math.Pow10(int(math.Floor(math.Log10(p.X.Min))))
	p.X.Max = math.Pow10(int(math.Ceil(math.Log10(p.X.Max))))
	p.Y.Min = math.Pow10(int(math.Floor(math.Log10(p.Y.Min))))
	p.Y.Max = math.Pow10(int(math.Ceil(math.Log10(p.Y.Max))))
	p.Legend.Top, p.Legend.Left = true, true
	wt, err := p.WriterTo(8*vg.Inch, 6*vg.Inch, "png")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
