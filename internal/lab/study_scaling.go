package lab

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The scaling study, computed by study.Scaling: CPU time per step of exact
// block pivoting on brick walls of 15 to 200 bricks and on brick pyramids,
// then on random piles and dominoes, and the wall-clock time of separate
// piles at GOMAXPROCS 1, 2 and 4; this file writes its CSV, PNG and
// summary.

func init() {
	registerStudy(study{
		Name:         "scaling",
		Doc:          "CPU time per step vs size: brick walls of 15–200 bricks, brick pyramids, random piles of 100–1 000 boxes, 1 000 dominoes; separate piles at GOMAXPROCS 1/2/4",
		DefaultSteps: gstudy.ScalingSteps,
		Run:          studyScaling,
	})
}

func studyScaling(ctx context.Context, o studyOptions) error {
	res, err := gstudy.Scaling(ctx, o.lib())
	if err != nil {
		return studyStopped("scaling", err)
	}
	results := append(slices.Clip(res.Runs), res.Piles...)

	// scaling.csv, steps.csv
	var rows, steps [][]string
	for _, r := range results {
		stands := fmt.Sprint(b2i(r.Stands))
		if slices.Contains(res.Piles, r) {
			stands = "" // piles and dominoes are meant to move
		}
		rows = append(rows, []string{r.Case.Scene, fmt.Sprint(r.Case.Bricks), fmt.Sprint(r.Rows),
			fmtFloat(r.Step1), fmtFloat(r.Steady), fmtFloat(r.Mean),
			fmtFloat(r.IterationsMean), fmt.Sprint(r.IterationsMax), fmt.Sprint(r.BudgetHits),
			fmtFloat(r.MaxDisplacement), stands, fmt.Sprint(len(r.StepMS)), fmt.Sprint(r.RowsMax),
			fmtFloat(r.MaxKinetic), fmtFloat(r.MaxSpeed), fmt.Sprint(b2i(r.AtRest)), fmt.Sprint(r.Toppled)})
		for k, ms := range r.StepMS {
			steps = append(steps, []string{r.Case.Scene, fmt.Sprint(r.Case.Bricks), fmt.Sprint(k + 1), fmtFloat(ms), fmt.Sprint(r.Iterations[k])})
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "scaling.csv"),
		[]string{"scene", "bodies", "rows", "step1_ms", "steady_ms", "mean_ms", "iterations_mean", "iterations_max", "budget_hits",
			"max_displacement_m", "stands", "steps", "rows_max", "max_kinetic_j", "max_speed_m_s", "at_rest", "toppled"}, rows); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "steps.csv"), []string{"scene", "bodies", "step", "cpu_ms", "iterations"}, steps); err != nil {
		return err
	}
	var procs [][]string
	for _, r := range res.Procs {
		procs = append(procs, []string{gstudy.ScalingProcsCase.Scene, fmt.Sprint(gstudy.ScalingProcsCase.Bricks), fmt.Sprint(r.Procs),
			fmtFloat(r.Step1), fmtFloat(r.Steady), fmtFloat(r.Mean), fmtFloat(r.IterationsMean),
			fmtFloat(r.SpeedupSteady), fmtFloat(r.SpeedupMean), fmt.Sprint(b2i(r.SameState))})
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "procs.csv"),
		[]string{"scene", "bodies", "gomaxprocs", "step1_wall_ms", "steady_wall_ms", "mean_wall_ms", "iterations_mean",
			"speedup_steady", "speedup_mean", "same_state"}, procs); err != nil {
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
		res.Steps, res.Runs[0].SteadyFrom, res.Runs[0].SteadyUpTo)
	fmt.Fprintln(tw, "scene\tbodies\trows\tstep 1\tsteady\tmean\titers mean/max\tbudget hits\tmax displacement (m)\tstands")
	for _, r := range res.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3g\t%.3g\t%.3g\t%.2f / %d\t%d\t%.2g\t%v\n", r.Case.Scene, r.Case.Bricks, r.Rows,
			r.Step1, r.Steady, r.Mean, r.IterationsMean, r.IterationsMax, r.BudgetHits, r.MaxDisplacement, r.Stands)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(o.Stdout, "unstructured scenes from their start (block pivoting at its default budget), CPU ms per step:")
	fmt.Fprintln(tw, "scene\tbodies\tsteps\trows (max)\tstep 1\tsteady\tmean\titers mean/max\tbudget hits\tmax body KE (J)\tmax speed (m/s)\tat rest\ttoppled")
	for _, r := range res.Piles {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3g\t%.3g\t%.3g\t%.2f / %d\t%d\t%.2g\t%.2g\t%v\t%d\n", r.Case.Scene, r.Case.Bricks,
			len(r.StepMS), r.RowsMax, r.Step1, r.Steady, r.Mean, r.IterationsMean, r.IterationsMax, r.BudgetHits,
			r.MaxKinetic, r.MaxSpeed, r.AtRest, r.Toppled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Stdout, "%s (%d boxes in separate piles), wall-clock ms per step:\n", gstudy.ScalingProcsCase.Scene, gstudy.ScalingProcsCase.Bricks)
	fmt.Fprintln(tw, "GOMAXPROCS\tstep 1\tsteady\tmean\tspeedup steady / mean\tsame final state")
	for _, r := range res.Procs {
		fmt.Fprintf(tw, "%d\t%.3g\t%.3g\t%.3g\t%.2f / %.2f\t%v\n", r.Procs, r.Step1, r.Steady, r.Mean, r.SpeedupSteady, r.SpeedupMean, r.SameState)
	}
	for _, sc := range gstudy.ScalingScenes {
		var p [3]float64
		for i, s := range []string{"step1", "steady", "mean"} {
			f, _ := res.Fit(sc, s)
			p[i] = f.P
		}
		unit := "bricks"
		if sc == "randompile" {
			unit = "boxes"
		}
		fmt.Fprintf(tw, "%s: time ∝ %s^p with p = %.2f (step 1), %.2f (steady), %.2f (mean)\n", sc, unit, p[0], p[1], p[2])
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
// scene the step-1, steady and mean times, walls solid, pyramids dashed,
// random piles dotted.
func scalingFigure(results []*gstudy.ScalingRun) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "CPU time per step (block pivoting, h = 1/60 s)"
	p.X.Label.Text = "bodies (bricks, boxes)"
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
			switch si {
			case 1:
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
				pts.Shape = draw.BoxGlyph{}
			case 2:
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
				pts.Shape = draw.TriangleGlyph{}
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
