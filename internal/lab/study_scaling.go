package lab

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The scaling study, computed by study.Scaling: CPU time per step of exact
// block pivoting on brick walls of 15 to 200 bricks and on brick pyramids;
// this file writes its CSV, PNG and summary.

func init() {
	registerStudy(study{
		Name:         "scaling",
		Doc:          "CPU time per exact step vs size: brick walls of 15–200 bricks and brick pyramids (step 1, steady, mean)",
		DefaultSteps: gstudy.ScalingSteps,
		Run:          studyScaling,
	})
}

func studyScaling(ctx context.Context, o studyOptions) error {
	res, err := gstudy.Scaling(ctx, o.lib())
	if err != nil {
		return studyStopped("scaling", err)
	}
	results := res.Runs

	// scaling.csv, steps.csv
	var rows, steps [][]string
	for _, r := range results {
		rows = append(rows, []string{r.Case.Scene, fmt.Sprint(r.Case.Bricks), fmt.Sprint(r.Rows),
			fmtFloat(r.Step1), fmtFloat(r.Steady), fmtFloat(r.Mean),
			fmtFloat(r.IterationsMean), fmt.Sprint(r.IterationsMax), fmt.Sprint(r.BudgetHits),
			fmtFloat(r.MaxDisplacement), fmt.Sprint(b2i(r.Stands))})
		for k, ms := range r.StepMS {
			steps = append(steps, []string{r.Case.Scene, fmt.Sprint(r.Case.Bricks), fmt.Sprint(k + 1), fmtFloat(ms), fmt.Sprint(r.Iterations[k])})
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
	summary := [][]string{{"steps", fmt.Sprint(res.Steps)}}
	for _, f := range res.Fits {
		summary = append(summary, []string{f.Scene + "_" + f.Series + "_exponent", fmtFloat(f.P)},
			[]string{f.Scene + "_" + f.Series + "_ms_at_1_brick", fmtFloat(f.C)})
	}
	summary = append(summary, []string{"all_stand", fmt.Sprint(b2i(res.AllStand()))}, []string{"budget_hits", fmt.Sprint(res.BudgetHits())})
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value"}, summary); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scaling: %d steps per size from rest, exact block pivoting, CPU ms per step (steady: median of steps %d–%d)\n",
		res.Steps, results[0].SteadyFrom, results[0].SteadyUpTo)
	fmt.Fprintln(tw, "scene\tbricks\trows\tstep 1\tsteady\tmean\titers mean/max\tbudget hits\tmax displacement (m)\tstands")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3g\t%.3g\t%.3g\t%.2f / %d\t%d\t%.2g\t%v\n", r.Case.Scene, r.Case.Bricks, r.Rows,
			r.Step1, r.Steady, r.Mean, r.IterationsMean, r.IterationsMax, r.BudgetHits, r.MaxDisplacement, r.Stands)
	}
	for _, sc := range gstudy.ScalingScenes {
		var p [3]float64
		for i, s := range []string{"step1", "steady", "mean"} {
			f, _ := res.Fit(sc, s)
			p[i] = f.P
		}
		fmt.Fprintf(tw, "%s: time ∝ bricks^p with p = %.2f (step 1), %.2f (steady), %.2f (mean)\n", sc, p[0], p[1], p[2])
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
func scalingFigure(results []*gstudy.ScalingRun) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "CPU time per exact step (block pivoting, h = 1/60 s)"
	p.X.Label.Text = "bricks"
	p.Y.Label.Text = "ms per step"
	p.Add(plotter.NewGrid())
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = decadeTicks{}, decadeTicks{}
	for si, sc := range gstudy.ScalingScenes {
		for k, s := range gstudy.ScalingSeries {
			var xy plotter.XYs
			for _, r := range results {
				if r.Case.Scene != sc {
					continue
				}
				y := s.Of(r)
				if !(y > 0) || math.IsInf(y, 0) {
					return nil, fmt.Errorf("scaling plot: %s %s at %d bricks: %v ms", sc, s.Name, r.Case.Bricks, y)
				}
				xy = append(xy, plotter.XY{X: float64(r.Case.Bricks), Y: y})
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
			p.Legend.Add(fmt.Sprintf("%s %s", sc, s.Name), l, pts)
		}
	}
	// Whole decades at both ends.
	p.X.Min = math.Pow10(int(math.Floor(math.Log10(p.X.Min))))
	p.X.Max = math.Pow10(int(math.Ceil(math.Log10(p.X.Max))))
	p.Y.Min = math.Pow10(int(math.Floor(math.Log10(p.Y.Min))))
	p.Y.Max = math.Pow10(int(math.Ceil(math.Log10(p.Y.Max))))
	p.Legend.Top, p.Legend.Left = true, true
	return encodePNG(p, 8*vg.Inch, 6*vg.Inch)
}
