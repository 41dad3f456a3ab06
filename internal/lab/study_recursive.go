package lab

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The studies of the hybrid-complementarity paper (Bhalerao, Crean and
// Anderson), computed by study.RecursiveTiming (§3.4, Figs. 4–6) and
// study.RK4Contact (Figs. 7–8); this file writes their CSV, PNG and
// summaries.

func init() {
	registerStudy(study{
		Name:         "recursive-timing",
		Doc:          "time per step of the O(n³), ABA and DCA hybrid LCP methods vs chain size (hybrid paper, Figs. 5–6)",
		DefaultSteps: gstudy.RecursiveSteps,
		Run:          studyRecursiveTiming,
	})
	registerStudy(study{
		Name:         "rk4-contact",
		Doc:          "energy drift Euler vs RK4 (8-link pendulum) and RK4 with frictionless contact (hybrid paper, Figs. 7–8)",
		DefaultSteps: gstudy.RecursiveSteps,
		Run:          studyRK4Contact,
	})
}

func studyRecursiveTiming(ctx context.Context, o studyOptions) error {
	res, err := gstudy.RecursiveTiming(ctx, o.lib())
	if err != nil {
		return studyStopped("recursive-timing", err)
	}
	sizes := gstudy.TimingSizes
	var rows [][]string
	for c, cname := range gstudy.TimingContacts {
		for si, nb := range sizes {
			for mi, m := range gstudy.TimingMethods {
				rows = append(rows, []string{cname, m.Name, fmt.Sprint(nb), fmtFloat(res.Times[c][mi][si] * 1e6)})
			}
		}
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "recursive-timing.csv"),
		[]string{"contacts", "method", "nb", "us_per_step"}, rows); err != nil {
		return err
	}
	var crossRows [][]string
	for i, nb := range res.CrossoverSizes {
		t := res.CrossoverTimes[i]
		crossRows = append(crossRows, []string{fmt.Sprint(nb), fmtFloat(t[0] * 1e6), fmtFloat(t[1] * 1e6)})
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "recursive-crossover.csv"),
		[]string{"nb", "on3_us_per_step", "aba_us_per_step"}, crossRows); err != nil {
		return err
	}

	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "recursive-timing: %d steps of h = 1 ms per run, median of %d runs, GOMAXPROCS = %d\n",
		res.Steps, gstudy.TimingRepeats, res.GOMAXPROCS)
	fmt.Fprint(tw, "contacts\tmethod")
	for _, nb := range sizes {
		fmt.Fprintf(tw, "\tnb=%d", nb)
	}
	fmt.Fprintln(tw, "\tslope(nb≥8)\t")
	for c, cname := range gstudy.TimingContacts {
		for mi, m := range gstudy.TimingMethods {
			fmt.Fprintf(tw, "%s\t%s", cname, m.Name)
			for si := range sizes {
				fmt.Fprintf(tw, "\t%.3g µs", res.Times[c][mi][si]*1e6)
			}
			sl := res.Slopes[c][mi]
			fmt.Fprintf(tw, "\t%.2f\t\n", sl)
			summary = append(summary, []string{"slope_" + cname + "_" + m.Name, fmtFloat(sl), "1", "on3 ≈ 3; aba and dca ≈ 1 (Figs. 5–6)"})
			summary = append(summary, []string{"us_per_step_" + cname + "_" + m.Name + "_nb128",
				fmtFloat(res.Times[c][mi][len(sizes)-1] * 1e6), "µs", "-"})
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(o.Stdout, "ABA faster than O(n³) from nb = %d on (no contact; paper: n > 7)\n", res.Crossover)
	fmt.Fprintf(o.Stdout, "largest difference of the final q between methods: %.3g\n", res.MaxFinalDifference)
	summary = append(summary,
		[]string{"crossover_nb", fmt.Sprint(res.Crossover), "links", "n > 7 (ref. 43 in Sec. 3.4)"},
		[]string{"max_final_q_difference", fmtFloat(res.MaxFinalDifference), "m or rad", "0 (identical LCPs)"},
		[]string{"steps_per_run", fmt.Sprint(res.Steps), "1", "2000"},
		[]string{"gomaxprocs", fmt.Sprint(res.GOMAXPROCS), "1", "-"},
	)
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"}, summary); err != nil {
		return err
	}

	// recursive-timing.png: one log–log panel per contact case.
	xs := make([]float64, len(sizes))
	for i, nb := range sizes {
		xs[i] = float64(nb)
	}
	var panels []*plot.Plot
	for c, cname := range gstudy.TimingContacts {
		p := plot.New()
		p.Title.Text = "contacts: " + cname
		p.X.Label.Text = "nb (links)"
		p.Y.Label.Text = "time per step (µs)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
		p.Add(plotter.NewGrid())
		for mi, m := range gstudy.TimingMethods {
			xy := make(plotter.XYs, len(sizes))
			for si := range sizes {
				xy[si] = plotter.XY{X: xs[si], Y: res.Times[c][mi][si] * 1e6}
			}
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			l.Color, pts.Color = palette[mi], palette[mi]
			p.Add(l, pts)
			p.Legend.Add(m.Name, l, pts)
		}
		p.Legend.Top, p.Legend.Left = true, true
		panels = append(panels, p)
	}
	png, err := rowPNG(panels, 15*vg.Inch, 5*vg.Inch)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "recursive-timing.png"), png)
}

// rowPNG draws plots side by side.
func rowPNG(plots []*plot.Plot, w, h vg.Length) ([]byte, error) {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12)}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func studyRK4Contact(ctx context.Context, o studyOptions) error {
	res, err := gstudy.RK4Contact(ctx, o.lib())
	if err != nil {
		return studyStopped("rk4-contact", err)
	}
	h := res.H
	integrators := gstudy.DriftIntegrators
	steps := make([]float64, o.Steps)
	header := []string{"step", "time"}
	for _, in := range integrators {
		header = append(header, "drift_"+in.String())
	}
	for _, d := range res.Drops {
		header = append(header, "dcm_"+d.Variant.Name, "penetration_"+d.Variant.Name, "yP_"+d.Variant.Name)
	}
	rows := make([][]string, o.Steps)
	for k := range rows {
		steps[k] = float64(k+1) * h
		r := []string{fmt.Sprint(k + 1), fmtFloat(steps[k])}
		for i := range integrators {
			r = append(r, fmtFloat(res.Drift[i][k]))
		}
		for _, d := range res.Drops {
			r = append(r, fmtFloat(d.DeltaCM[k]), fmtFloat(d.Penetration[k]), fmtFloat(d.YP[k]))
		}
		rows[k] = r
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "rk4-contact.csv"), header, rows); err != nil {
		return err
	}

	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "rk4-contact: %d steps of h = %g s\n", o.Steps, h)
	fmt.Fprintln(tw, "8-link pendulum (Fig. 7)\tmax |E − E₀| (J)\t")
	for i, in := range integrators {
		v := gstudy.MaxOf(res.Drift[i])
		fmt.Fprintf(tw, "%s\t%.3g\t\n", in, v)
		summary = append(summary, []string{"energy_drift_" + in.String(), fmtFloat(v), "J", "-"})
	}
	rk := gstudy.MaxOf(res.Drift[2])
	rExp, rSemi := gstudy.MaxOf(res.Drift[0])/rk, gstudy.MaxOf(res.Drift[1])/rk
	fmt.Fprintf(tw, "ratio explicit-euler / rk4\t%.3g\t(paper ≈ 1e6)\n", rExp)
	fmt.Fprintf(tw, "ratio euler / rk4\t%.3g\t\n", rSemi)
	summary = append(summary,
		[]string{"drift_ratio_explicit_euler_over_rk4", fmtFloat(rExp), "1", "≈ 1e6 (Fig. 7)"},
		[]string{"drift_ratio_euler_over_rk4", fmtFloat(rSemi), "1", "-"})
	fmt.Fprintln(tw, "3-link drop, μ = 0 (Fig. 8)\tmax δ_CM (m)\tmax penetration (m)\tpaper")
	for _, d := range res.Drops {
		v := d.Variant
		dc, p := gstudy.MaxOf(d.DeltaCM), gstudy.MaxOf(d.Penetration)
		fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%s\n", v.Name, dc, p, v.Paper)
		summary = append(summary,
			[]string{"delta_cm_" + v.Name, fmtFloat(dc), "m", v.Paper},
			[]string{"penetration_" + v.Name, fmtFloat(p), "m", v.Paper})
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"}, summary); err != nil {
		return err
	}

	var driftSeries []series
	for i, in := range integrators {
		driftSeries = append(driftSeries, series{Label: in.String(), X: steps, Y: res.Drift[i]})
	}
	var dcmSeries, penSeries, ySeries []series
	for _, d := range res.Drops {
		dcmSeries = append(dcmSeries, series{Label: d.Variant.Name, X: steps, Y: d.DeltaCM})
		penSeries = append(penSeries, series{Label: d.Variant.Name, X: steps, Y: d.Penetration})
		ySeries = append(ySeries, series{Label: d.Variant.Name, X: steps, Y: d.YP})
	}
	png, err := panelsPNG([][]*logPanel{
		{
			{Title: "8-link pendulum: |E − E₀| (Fig. 7)", XLabel: "t (s)", YLabel: "J", Solid: driftSeries},
			{Title: "3-link drop: δ_CM (Fig. 8)", XLabel: "t (s)", YLabel: "m", Solid: dcmSeries},
		},
		{
			{Title: "3-link drop: worst penetration", XLabel: "t (s)", YLabel: "m", Solid: penSeries},
			{Title: "3-link drop: height of P", XLabel: "t (s)", YLabel: "m", Solid: ySeries},
		},
	}, 14*vg.Inch, 10*vg.Inch)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "rk4-contact.png"), png)
}
