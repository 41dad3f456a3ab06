package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// `sim calibrate SPEC.json [--out DIR] [--nats URL] [--workers N] [--ack-wait D] [--quiet]`
//
// The BPMD paper's calibration (sweep.Calibrate) through the same queue
// as `sim sweep`. Outputs in DIR:
//
//	table3.csv       per solver: the best parameters, E (Eq. 18, m²), the grid's best E,
//	                 search evaluations, the held-out experiment's E and RMS error (m)
//	region.csv       per solver and parameter: the best value and the confidence
//	                 region's interval (sweep.Region), whether the data identify it
//	prediction.csv   solver,step,time,x,y,angle of the held-out experiment, "measured" first
//	prediction.png   x, y and angle of the object against time, measured and per solver
//	results.jsonl    every job's result (the resumable record)
func simCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f sweepFlags
	pos, err := f.register("calibrate", args)
	if err != nil {
		return err
	}
	spec, s, err := f.open(pos[0], stderr, false)
	if err != nil {
		return err
	}
	defer s.Close()
	logf := func(format string, a ...any) {
		if !f.quiet {
			fmt.Fprintf(stderr, format+"\n", a...)
		}
	}
	before := len(s.Done)
	cals, err := sweep.Calibrate(ctx, spec, s, sweep.BuildID(), logf)
	if err != nil {
		if ctx.Err() != nil {
			return cli.Interruptedf("interrupted: %d results recorded in %s; run again to resume", len(s.Done), filepath.Join(f.out, sweep.ResultsFile))
		}
		return err
	}
	names := spec.ParamNames()
	header := append([]string{"solver"}, names...)
	header = append(header, "e", "grid_e", "evaluations", "holdout_e", "holdout_rms")
	var rows [][]string
	var tb strings.Builder
	fmt.Fprintf(&tb, "| solver | %s | E (m²) | held-out E (m²) | held-out RMS (mm) |\n|---|%s---|---|---|\n",
		strings.Join(names, " | "), strings.Repeat("---|", len(names)))
	for _, c := range cals {
		row := []string{c.Solver}
		cells := []string{}
		for _, v := range c.Best {
			row = append(row, fmtFloat(v))
			cells = append(cells, fmt.Sprintf("%.4g", v))
		}
		pe, rms := math.NaN(), math.NaN()
		if spec.Holdout != "" {
			pe = c.Prediction.E
			if c.Prediction.Status != sweep.StatusOK {
				pe = math.Inf(1)
			}
			rms = math.Sqrt(pe)
		}
		row = append(row, fmtFloat(c.E), fmtFloat(c.GridE), fmt.Sprint(c.Evaluations), fmtFloat(pe), fmtFloat(rms))
		rows = append(rows, row)
		fmt.Fprintf(&tb, "| %s | %s | %.3g | %.3g | %.3g |\n", c.Solver, strings.Join(cells, " | "), c.E, pe, 1000*rms)
	}
	if err := writeCSVFile(filepath.Join(f.out, "table3.csv"), header, rows); err != nil {
		return err
	}
	fmt.Fprint(stdout, tb.String())
	fmt.Fprintf(stdout, "%d results were recorded before (a sweep or calibration of the same jobs), %d jobs run now\n", before, len(s.Done)-before)
	var rrows [][]string
	for _, c := range cals {
		g := &c.Region
		if len(g.Lo) == 0 {
			continue
		}
		fmt.Fprintf(stdout, "%s: confidence region E ≤ %.4g m² (best %.4g + %d × %.2g = √(noise sd² + 2 roughness sd²), noise sd %.2g, roughness sd %.2g), %d points:",
			c.Solver, g.Threshold, c.E, sweep.RegionSigmas, g.SD(), g.NoiseSD, g.RoughSD, g.Points)
		for i, n := range names {
			note := ""
			if !g.Identified[i] {
				note = " (not identified)"
			}
			fmt.Fprintf(stdout, " %s %.4g…%.4g%s", n, g.Lo[i], g.Hi[i], note)
			rrows = append(rrows, []string{c.Solver, n, fmtFloat(c.Best[i]), fmtFloat(g.Lo[i]), fmtFloat(g.Hi[i]),
				fmt.Sprint(g.Identified[i]), fmtFloat(c.E), fmtFloat(g.Threshold), fmtFloat(g.NoiseSD), fmtFloat(g.RoughSD), fmt.Sprint(g.Points)})
		}
		fmt.Fprintln(stdout)
	}
	if err := writeCSVFile(filepath.Join(f.out, "region.csv"),
		[]string{"solver", "param", "best", "lo", "hi", "identified", "e", "threshold", "noise_sd", "rough_sd", "points"}, rrows); err != nil {
		return err
	}
	if spec.Holdout == "" {
		fmt.Fprintf(stdout, "no holdout in the spec: no prediction; table in %s\n", filepath.Join(f.out, "table3.csv"))
		return nil
	}
	measured := spec.Measured(spec.Holdout)
	var prow [][]string
	add := func(name string, fr []sweep.Frame) {
		for _, q := range fr {
			prow = append(prow, []string{name, fmt.Sprint(q.Step), fmtFloat(q.Time), fmtFloat(q.Q[0]), fmtFloat(q.Q[1]), fmtFloat(q.Q[2])})
		}
	}
	add("measured", measured)
	for _, c := range cals {
		add(c.Solver, c.Prediction.Trajectory)
	}
	if err := writeCSVFile(filepath.Join(f.out, "prediction.csv"), []string{"solver", "step", "time", "x", "y", "angle"}, prow); err != nil {
		return err
	}
	png, err := predictionPNG(spec.Holdout, measured, cals)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(f.out, "prediction.png"), png); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "held-out experiment %s predicted; %s, %s, %s; %d redeliveries\n", spec.Holdout,
		filepath.Join(f.out, "table3.csv"), filepath.Join(f.out, "prediction.csv"), filepath.Join(f.out, "prediction.png"), s.Redeliveries)
	return nil
}

// predictionPNG draws the BPMD paper's Figs. 5–7 in one column: x, y and
// angle of the object against time, measured (thick) and per solver.
func predictionPNG(holdout string, measured []sweep.Frame, cals []sweep.Calibration) ([]byte, error) {
	labels := []string{"x (m)", "y (m)", "angle (rad)"}
	var plots [][]*plot.Plot
	for k := 0; k < 3; k++ {
		p := plot.New()
		if k == 0 {
			p.Title.Text = "held-out experiment " + holdout + ": measured vs calibrated simulation"
		}
		p.Y.Label.Text = labels[k]
		if k == 2 {
			p.X.Label.Text = "time (s)"
		}
		p.Add(plotter.NewGrid())
		curve := func(fr []sweep.Frame) plotter.XYs {
			xy := make(plotter.XYs, len(fr))
			for i, q := range fr {
				xy[i] = plotter.XY{X: q.Time, Y: q.Q[k]}
			}
			return xy
		}
		l, err := plotter.NewLine(curve(measured))
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = palette[5], vg.Points(4)
		p.Add(l)
		if k == 0 {
			p.Legend.Add("measured", l)
		}
		for i, c := range cals {
			if len(c.Prediction.Trajectory) == 0 {
				continue
			}
			l, err := plotter.NewLine(curve(c.Prediction.Trajectory))
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = palette[(i+1)%len(palette)], vg.Points(1.2)
			if i%2 == 1 {
				l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			p.Add(l)
			if k == 0 {
				p.Legend.Add(c.Solver, l)
			}
		}
		// One legend, bottom right of x(t), where the curves have left.
		p.Legend.Top = false
		plots = append(plots, []*plot.Plot{p})
	}
	return gridPNG(plots, 8*vg.Inch, 9*vg.Inch)
}
