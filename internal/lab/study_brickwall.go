package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/gorigid/gorigid/errmeasure"
	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot/vg"
)

// The brick-wall study of the energy-error paper (§5.2, Figs. 8–9, Eqs.
// 28–29), computed by study.BrickWall; this file writes its CSV, PNG and
// summary.

func init() {
	registerStudy(study{
		Name:         "brickwall",
		Doc:          "30-brick wall under block pivoting, then PGS error-vs-iteration curves (energy-error paper §5.2, Fig. 9)",
		DefaultSteps: gstudy.BrickWallSteps,
		Run:          studyBrickWall,
	})
}

// wallLabels name the measures of study.WallMeasures in plots and tables.
var wallLabels = map[errmeasure.Measure]struct{ Name, Label, Unit string }{
	errmeasure.FB:       {"fb", "Fischer–Burmeister δψ_FB (Eq. 7)", "m/s + N·s, mixed"},
	errmeasure.Residual: {"residual", "natural residual δψ_res (Eq. 10)", "m/s + N·s, mixed"},
	errmeasure.Energy:   {"energy", "energy error δe (Eq. 23)", "J"},
}

func studyBrickWall(ctx context.Context, o studyOptions) error {
	res, err := gstudy.BrickWall(ctx, o.lib())
	if err != nil {
		return studyStopped("brickwall", err)
	}
	const sweeps = gstudy.WallSweeps

	// errors.csv
	rows := make([][]string, sweeps)
	for i := range rows {
		r := []string{fmt.Sprint(i + 1)}
		for _, c := range res.Curves {
			r = append(r, fmtFloat(c.Mean[i]), fmtFloat(c.Std[i]))
		}
		rows[i] = r
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "errors.csv"),
		[]string{"iteration", "fb_mean", "fb_std", "residual_mean", "residual_std", "energy_mean", "energy_std"}, rows); err != nil {
		return err
	}
	// curves.csv, long format.
	rows = make([][]string, 0, len(res.Totals)*sweeps)
	for k, c := range res.Totals {
		for i, t := range c {
			rows = append(rows, []string{fmt.Sprint(k + 1), fmt.Sprint(i + 1), fmtFloat(t.FB), fmtFloat(t.Residual), fmtFloat(t.Energy)})
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "curves.csv"), []string{"step", "iteration", "fb", "residual", "energy"}, rows); err != nil {
		return err
	}

	// summary.csv and the table on stdout.
	cMean, itMean, itMax := res.ContactsMean(), res.IterationsMean(), res.IterationsMax()
	summary := [][]string{
		{"steps", fmt.Sprint(len(res.Iterations))},
		{"contacts_per_step_mean", fmtFloat(cMean)},
		{"iterations_mean", fmtFloat(itMean)},
		{"iterations_max", fmt.Sprint(itMax)},
		{"max_displacement_m", fmtFloat(res.MaxDisplacement)},
	}
	for _, c := range res.Curves {
		for _, it := range []int{1, 10, 50, 100} {
			summary = append(summary, []string{fmt.Sprintf("%s_mean_iter%d", wallLabels[c.Measure].Name, it), fmtFloat(c.Mean[it-1])})
		}
	}
	for _, c := range res.Curves {
		summary = append(summary, []string{wallLabels[c.Measure].Name + "_mean_peak_iteration", fmt.Sprint(c.Peak())})
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value"}, summary); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "brickwall (energy-error paper §5.2, Fig. 9): %d steps of h = %.4g s with block pivoting; %d PGS sweeps from x = 0 per stored MLCP\n",
		len(res.Iterations), res.H, sweeps)
	fmt.Fprintf(tw, "contacts/step %.4g, BPP iterations/step mean %.3g max %d, max brick displacement %.3g m\n",
		cMean, itMean, itMax, res.MaxDisplacement)
	fmt.Fprintln(tw, "measure\tunit\titer 1\titer 10\titer 50\titer 100\tpeak at iter")
	for _, c := range res.Curves {
		l := wallLabels[c.Measure]
		fmt.Fprintf(tw, "%s\t%s\t%.3g\t%.3g\t%.3g\t%.3g\t%d\n", l.Name, l.Unit,
			c.Mean[0], c.Mean[9], c.Mean[49], c.Mean[99], c.Peak())
	}
	fmt.Fprintln(tw, "paper: FB and residual rise for about 10 iterations, then fall; energy falls from the start, and faster")
	if err := tw.Flush(); err != nil {
		return err
	}

	png, err := wallFigure(res)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "brickwall-fig9.png"), png)
}

// wallFigure draws Fig. 9: one row per measure, the mean ± standard
// deviation over the steps on the left, every step's curve on the right,
// log y.
func wallFigure(res *gstudy.BrickWallResult) ([]byte, error) {
	const sweeps = gstudy.WallSweeps
	iters := make([]float64, sweeps)
	for i := range iters {
		iters[i] = float64(i + 1)
	}
	panels := make([][]*logPanel, len(res.Curves))
	for m, c := range res.Curves {
		wm := wallLabels[c.Measure]
		lo := make([]float64, sweeps)
		hi := make([]float64, sweeps)
		for i := range lo {
			lo[i], hi[i] = c.Mean[i]-c.Std[i], c.Mean[i]+c.Std[i]
		}
		left := &logPanel{
			Title:  fmt.Sprintf("%s: mean over %d steps", wm.Label, len(res.Totals)),
			XLabel: "PGS iteration", YLabel: wm.Unit,
			Solid:  []series{{Label: "mean", X: iters, Y: c.Mean}},
			Dashed: []series{{Label: "mean ± std", X: iters, Y: hi}, {X: iters, Y: lo}},
		}
		right := &logPanel{
			Title:  fmt.Sprintf("%s: every step", wm.Label),
			XLabel: "PGS iteration", YLabel: wm.Unit,
		}
		for k, tc := range res.Totals {
			y := make([]float64, sweeps)
			for i, t := range tc {
				y[i] = t.Of(c.Measure)
			}
			right.Thin = append(right.Thin, series{Label: fmt.Sprint(k + 1), X: iters, Y: y})
		}
		panels[m] = []*logPanel{left, right}
	}
	return panelsPNG(panels, 12*vg.Inch, 12*vg.Inch)
}
