package lab

import (
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"strings"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The forklift study of the energy-error paper (§5.3, Figs. 10–12),
// computed by study.Forklift (its doc comment describes the runs and what
// they measure); this file writes summary.csv, forklift-steps.csv, the
// budget tables and the figures, and prints the tables. The time per step
// and the sweeps per step are printed, never written: the files stay
// deterministic.

// fig11Zoom is the half-width (m) of Fig. 11's zoomed panel.
const fig11Zoom = 0.5

func init() {
	registerStudy(study{
		Name:         "forklift",
		Doc:          "forklift on a circle under budgets of 15 and 5 pivots: last iterate vs least FB/residual/energy/exact-mass energy error, each with and without 5 polish sweeps (energy-error paper §5.3, Figs. 11–12), and the wall's and forklift's MLCPs under budgets 1–15",
		DefaultSteps: gstudy.ForkliftSteps,
		Run:          studyForklift,
	})
}

func studyForklift(ctx context.Context, o studyOptions) error {
	res, err := gstudy.Forklift(ctx, o.lib())
	if err != nil {
		return studyStopped("forklift", err)
	}
	ref := res.Reference
	if err := writeForkliftFiles(o, res); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "forklift (energy-error paper §5.3): %d steps of h = %.4g s; the reference turns 2π at step %d (t = %.4g s)\n",
		o.Steps, ref.H, res.CircleStep, float64(res.CircleStep)*ref.H)
	fmt.Fprintf(tw, "spike: a step after which a wheel's spin rate changed by more than %g × the reference's largest one-step change (%.4g rad/s), i.e. > %.4g rad/s\n",
		gstudy.SpikeFactor, res.RefJump, res.SpikeThreshold)
	fmt.Fprintln(tw, "variant\tbudget\thit\tdev mean (m)\tdev max (m)\tcircle\tspikes\tstep dist mean (J)\tmax (J)\tmean on hit steps (J)\tsolver failures\tmax gain\tsweeps/step\ttime/step (µs)")
	runs := forkliftRuns(res)
	for i, s := range res.Summaries {
		r := runs[i]
		n := max(1, len(r.Iterations))
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.4g\t%.4g\t%.4f\t%d\t%.4g\t%.4g\t%.4g\t%d\t%.2g %%\t%.2f\t%.0f\n", s.Variant, s.Budget, s.HitFraction,
			s.MeanDev, s.MaxDev, s.CircleFraction, s.Spikes, s.MeanDist, s.MaxDist, s.MeanDistHit, s.Failed, 100*s.MaxGain,
			float64(r.PolishSweeps)/float64(n), float64(r.StepTime.Microseconds())/float64(n))
	}
	if res.Bites {
		fmt.Fprintf(tw, "the budget of %d binds on ≥ %.0f %% of the steps in some variant\n", gstudy.ForkliftPaperBudget, 100*gstudy.BiteFraction)
	} else {
		fmt.Fprintf(tw, "the budget of %d binds on < %.0f %% of the steps in every variant\n", gstudy.ForkliftPaperBudget, 100*gstudy.BiteFraction)
	}
	fmt.Fprintln(tw, "time/step is wall-clock on this machine, for comparison between rows only")
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeBudgetTable(o, "brick wall", "wall-budgets", res.Wall); err != nil {
		return err
	}
	return writeBudgetTable(o, "forklift reference", "forklift-budgets", res.Own)
}

// forkliftRuns returns the reference, then every group's runs.
func forkliftRuns(res *gstudy.ForkliftResult) []*gstudy.ForkliftRun {
	all := []*gstudy.ForkliftRun{res.Reference}
	for _, g := range res.Groups {
		all = append(all, g...)
	}
	return all
}

// writeBudgetTable writes NAME.csv and NAME.png of a budget table and
// prints its tables and, per rule, how often the certified bound is finite
// and its median tightness.
func writeBudgetTable(o studyOptions, what, name string, bt *gstudy.BudgetTable) error {
	rules := gstudy.ForkliftRules()
	maxBudget := bt.MaxBudget
	header := []string{"budget", "unsolved_fraction"}
	for _, r := range rules {
		header = append(header, r.Name()+"_mean_distance_j")
	}
	for _, r := range rules {
		header = append(header, r.Name()+"_farther_than_last")
	}
	csvRows := make([][]string, maxBudget)
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s: %d stored MLCPs solved cold by block pivoting; mean ½(x − x*)ᵀA(x − x*) (J) per budget (%d x* solves did not converge)\n",
		what, bt.Problems, bt.ExactFailures)
	names := make([]string, len(rules))
	for k, r := range rules {
		names[k] = r.Name()
	}
	fmt.Fprintln(tw, "budget\tunsolved\t"+strings.Join(names, "\t"))
	for b := 1; b <= maxBudget; b++ {
		r := []string{fmt.Sprint(b), fmtFloat(bt.Unsolved[b-1])}
		fmt.Fprintf(tw, "%d\t%.3f", b, bt.Unsolved[b-1])
		for k := range rules {
			r = append(r, fmtFloat(bt.MeanDistance[k][b-1]))
			fmt.Fprintf(tw, "\t%.3g", bt.MeanDistance[k][b-1])
		}
		for k := range rules {
			r = append(r, fmtFloat(bt.Farther[k][b-1]))
		}
		fmt.Fprintln(tw)
		csvRows[b-1] = r
	}
	fmt.Fprintf(tw, "%s: fraction of the problems on which the rule's x is farther from x* than the last iterate's\n", what)
	fmt.Fprintln(tw, "budget\t\t"+strings.Join(names, "\t"))
	for b := 1; b <= maxBudget; b++ {
		fmt.Fprintf(tw, "%d\t", b)
		for k := range rules {
			fmt.Fprintf(tw, "\t%.3f", bt.Farther[k][b-1])
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprintf(tw, "%s: certified bound Σ(wᵢxᵢ − min wᵢz) over all budgets: finite fraction, median bound / distance (distance > 0)\n", what)
	for k, r := range rules {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3g\n", r.Name(), bt.FiniteFraction(k), bt.MedianRatio(k))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, name+".csv"), header, csvRows); err != nil {
		return err
	}
	budgets := make([]float64, maxBudget)
	for i := range budgets {
		budgets[i] = float64(i + 1)
	}
	lp := linePlot{
		Title:  fmt.Sprintf("%s, %d MLCPs solved cold: mean distance to x* of the kept iterate", what, bt.Problems),
		XLabel: "budget (block pivots)", YLabel: "mean ½(x − x*)ᵀA(x − x*) (J)",
		LogY: true, LogFloor: 1e-12,
	}
	for k, r := range rules {
		lp.Series = append(lp.Series, series{Label: r.Name(), X: budgets, Y: bt.MeanDistance[k]})
	}
	png, err := lp.png()
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, name+".png"), png)
}

// writeForkliftFiles writes summary.csv, forklift-steps.csv and the
// figures (Fig. 11 and 12 per budget).
func writeForkliftFiles(o studyOptions, res *gstudy.ForkliftResult) error {
	var sum [][]string
	for _, s := range res.Summaries {
		sum = append(sum, []string{s.Variant, fmt.Sprint(s.Budget), fmtFloat(s.HitFraction), fmtFloat(s.MeanDev),
			fmtFloat(s.MaxDev), fmtFloat(s.CircleFraction), fmt.Sprint(s.Spikes),
			fmtFloat(s.MeanDist), fmtFloat(s.MaxDist), fmtFloat(s.MeanDistHit),
			fmtFloat(res.SpikeThreshold), fmt.Sprint(s.Failed), fmt.Sprint(s.ExactFailed),
			fmtFloat(s.MaxGain), fmt.Sprint(s.ProjectionSkips)})
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"variant", "budget", "budget_hit_fraction",
		"mean_deviation_m", "max_deviation_m", "circle_fraction", "spikes",
		"mean_stepwise_distance_j", "max_stepwise_distance_j", "mean_stepwise_distance_hit_j",
		"spike_threshold_rad_s", "solver_failures", "exact_failures", "max_energy_gain_fraction", "projection_skips"}, sum); err != nil {
		return err
	}
	var steps [][]string
	for _, r := range forkliftRuns(res) {
		for k := range r.X {
			row := []string{r.Variant.Name, fmt.Sprint(r.Variant.Budget), fmt.Sprint(k), fmtFloat(float64(k) * r.H),
				fmtFloat(r.X[k]), fmtFloat(r.Y[k]), fmtFloat(r.Heading[k]), fmtFloat(r.Speed[k])}
			for _, wv := range r.Wheels[k] {
				row = append(row, fmtFloat(wv))
			}
			if k == 0 {
				row = append(row, "0", "0", "0")
			} else {
				hit := "0"
				if r.BudgetHit[k-1] {
					hit = "1"
				}
				row = append(row, fmt.Sprint(r.Iterations[k-1]), hit, fmtFloat(r.Distance[k-1]))
			}
			steps = append(steps, row)
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "forklift-steps.csv"), []string{"variant", "budget", "step", "time",
		"x", "y", "heading", "speed", "w_fl", "w_fr", "w_rl", "w_rr", "iterations", "budget_hit", "stepwise_distance_j"}, steps); err != nil {
		return err
	}
	for i, g := range res.Groups {
		suffix := ""
		if i > 0 {
			suffix = fmt.Sprintf("-budget%d", g[0].Variant.Budget)
		}
		runs := append([]*gstudy.ForkliftRun{res.Reference}, g...)
		png, err := forkliftFig11(runs, res.CircleStep)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(o.Dir, "forklift-fig11"+suffix+".png"), png); err != nil {
			return err
		}
		if png, err = forkliftFig12(runs); err != nil {
			return err
		}
		if err := writeFileAtomic(filepath.Join(o.Dir, "forklift-fig12"+suffix+".png"), png); err != nil {
			return err
		}
	}
	return nil
}

// fkStyle returns the colour and width of run i (0 = reference).
func fkStyle(i int) (color.Color, vg.Length) {
	if i == 0 {
		return color.Gray{Y: 150}, vg.Points(4)
	}
	return palette[i%len(palette)], vg.Points(1.2)
}

// forkliftFig11 draws the x–y trajectories of the runs (the first is the
// reference): the whole run on the left, on the right a window around the
// reference's position at kStar (its circle's end), ±fig11Zoom, with
// every run's position at kStar marked (runs further away fall outside).
func forkliftFig11(runs []*gstudy.ForkliftRun, kStar int) ([]byte, error) {
	full, zoom := plot.New(), plot.New()
	b := runs[1].Variant.Budget
	full.Title.Text = fmt.Sprintf("Forklift trajectories, budget %d (§5.3, Fig. 11)", b)
	zoom.Title.Text = fmt.Sprintf("Zoom at step %d (the reference's circle closes)", kStar)
	cx, cy := runs[0].X[kStar], runs[0].Y[kStar]
	const half = fig11Zoom
	for _, p := range []*plot.Plot{full, zoom} {
		p.X.Label.Text, p.Y.Label.Text = "x (m)", "y (m)"
		p.Add(plotter.NewGrid())
	}
	for i, r := range runs {
		xy := make(plotter.XYs, len(r.X))
		for k := range r.X {
			xy[k] = plotter.XY{X: r.X[k], Y: r.Y[k]}
		}
		c, wd := fkStyle(i)
		label := r.Variant.Name
		if i > 0 {
			label = fmt.Sprintf("%s (budget %d)", r.Variant.Name, r.Variant.Budget)
		}
		for _, p := range []*plot.Plot{full, zoom} {
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = c, wd
			if r.Variant.Rule.Polish > 0 {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)} // polished rules dashed
			}
			p.Add(l)
			if p == full {
				p.Legend.Add(label, l)
			}
		}
		sc, err := plotter.NewScatter(plotter.XYs{{X: r.X[kStar], Y: r.Y[kStar]}})
		if err != nil {
			return nil, err
		}
		sc.Color = c
		sc.Shape = draw.GlyphDrawer(draw.CircleGlyph{})
		if r.Variant.Rule.Polish > 0 {
			sc.Shape = draw.BoxGlyph{} // polished rules: squares
		}
		sc.Radius = vg.Points(3)
		zoom.Add(sc)
		zoom.Legend.Add(label, sc)
	}
	zoom.X.Min, zoom.X.Max, zoom.Y.Min, zoom.Y.Max = cx-half, cx+half, cy-half, cy+half
	full.Legend.Top, full.Legend.Left = true, true
	zoom.Legend.Top, zoom.Legend.Left = true, true
	return gridPNG([][]*plot.Plot{{full, zoom}}, 14*vg.Inch, 7*vg.Inch)
}

// forkliftFig12 draws each wheel's spin rate over time for all runs.
func forkliftFig12(runs []*gstudy.ForkliftRun) ([]byte, error) {
	names := [4]string{"front left (driven)", "front right (driven)", "rear left (steered)", "rear right (steered)"}
	grid := [][]*plot.Plot{{nil, nil}, {nil, nil}}
	for wi := 0; wi < 4; wi++ {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("Wheel %s, budget %d (§5.3, Fig. 12)", names[wi], runs[1].Variant.Budget)
		p.X.Label.Text, p.Y.Label.Text = "time (s)", "spin rate (rad/s)"
		p.Add(plotter.NewGrid())
		for i, r := range runs {
			xy := make(plotter.XYs, len(r.Wheels))
			for k := range r.Wheels {
				xy[k] = plotter.XY{X: float64(k) * r.H, Y: r.Wheels[k][wi]}
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			c, wd := fkStyle(i)
			l.Color, l.Width = c, wd
			p.Add(l)
			p.Legend.Add(r.Variant.Name, l)
		}
		p.Legend.Top, p.Legend.Left = false, false
		grid[wi/2][wi%2] = p
	}
	return gridPNG(grid, 14*vg.Inch, 10*vg.Inch)
}
