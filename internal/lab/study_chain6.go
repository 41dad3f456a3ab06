package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
)

// The 6-link chain drift study of the post-stabilization paper (§VI.A,
// Figs. 3–7), computed by study.Chain6; the separations are shown in mm
// (the hinges' angular rows count in mrad).

func init() {
	registerStudy(study{
		Name:         "chain6",
		Doc:          "6-link chain drift per stabilization mode (post-stabilization paper, Figs. 3–7)",
		DefaultSteps: gstudy.Chain6Steps,
		Run:          studyChain6,
	})
}

func studyChain6(ctx context.Context, o studyOptions) error {
	res, err := gstudy.Chain6(ctx, o.lib())
	if err != nil {
		return studyStopped("chain6", err)
	}
	h := res.H
	curves := make([][]float64, len(res.Runs)) // mm
	for i, r := range res.Runs {
		curves[i] = make([]float64, len(r.Separation))
		for k, v := range r.Separation {
			curves[i][k] = 1000 * v
		}
	}

	// chain6-drift.csv: step,time,<mode columns> in mm.
	header := []string{"step", "time"}
	for _, r := range res.Runs {
		header = append(header, r.Mode.Name)
	}
	rows := make([][]string, o.Steps)
	steps := make([]float64, o.Steps)
	for k := range rows {
		r := []string{fmt.Sprint(k + 1), fmtFloat(float64(k+1) * h)}
		for i := range res.Runs {
			r = append(r, fmtFloat(curves[i][k]))
		}
		rows[k] = r
		steps[k] = float64(k + 1)
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "chain6-drift.csv"), header, rows); err != nil {
		return err
	}

	// summary.csv and the table on stdout.
	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "chain6: %d steps of h = %g s; max joint separation (mm)\n", o.Steps, h)
	fmt.Fprintln(tw, "mode\tmax_mm\tfinal_mm\tpaper (600 steps)")
	var curvesToPlot []series
	for i, r := range res.Runs {
		peak, final := 1000*r.Max(), 1000*r.Final()
		summary = append(summary, []string{r.Mode.Name, fmtFloat(peak), fmtFloat(final)})
		fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%s\n", r.Mode.Name, peak, final, r.Mode.Paper)
		curvesToPlot = append(curvesToPlot, series{Label: r.Mode.Name, X: steps, Y: curves[i]})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"),
		[]string{"mode", "max_separation_mm", "final_separation_mm"}, summary); err != nil {
		return err
	}

	lp := linePlot{
		Title:  "6-link chain: max joint separation per step, log scale (post-stabilization paper, Sec. VI.A)",
		XLabel: fmt.Sprintf("step (h = %g s)", h),
		YLabel: "separation (mm)",
		LogY:   true, LogFloor: 1e-12,
		Series: curvesToPlot,
	}
	png, err := lp.png()
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "chain6-drift.png"), png)
}
