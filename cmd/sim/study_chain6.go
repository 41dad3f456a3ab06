package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"text/tabwriter"

	"github.com/gorigid/gorigid/scenes"
)

// The 6-link chain drift study of post-stabilization-lcp.md §VI.A
// (Figs. 3–7): the chain of 100 mm links released horizontal falls for 600
// steps of h = 1 ms under each stabilization mode, and the largest joint
// separation max |φ| (Stats.MaxViolation, shown in mm; the hinges' angular
// rows count in mrad) is recorded after every step.

func init() {
	registerStudy(study{
		Name:         "chain6",
		Doc:          "6-link chain drift per stabilization mode (post-stabilization paper, Figs. 3–7)",
		DefaultSteps: 600,
		Run:          studyChain6,
	})
}

// chain6Mode is one stabilization setting of the study, as scene
// overrides of the registered chain6 scene.
type chain6Mode struct {
	Name  string            // column in chain6-drift.csv, mode in summary.csv
	Set   map[string]string // --set overrides
	Paper string            // what the paper reports over 600 steps
}

var chain6Modes = []chain6Mode{
	{"none", map[string]string{"stabilization": "none"}, "≈ 20 mm (Fig. 3)"},
	{"baumgarte_50", map[string]string{"stabilization": "baumgarte", "baumgarte": "50"}, "≈ 5 mm (Fig. 4)"},
	{"baumgarte_200", map[string]string{"stabilization": "baumgarte", "baumgarte": "200"}, "< 3 mm (Fig. 4)"},
	{"baumgarte_2000", map[string]string{"stabilization": "baumgarte", "baumgarte": "2000"}, "jagged, ≈ 50's (Fig. 5)"},
	{"regularized", map[string]string{"stabilization": "regularized"}, "- (Eq. 1, not in the paper)"},
	{"post", map[string]string{"stabilization": "post"}, "< 0.01 mm (Fig. 7)"},
}

// chain6Drift runs the chain in one mode and returns the max separation
// (mm) after each of steps steps.
func chain6Drift(ctx context.Context, m chain6Mode, steps int) ([]float64, error) {
	s, err := scenes.Lookup("chain6")
	if err != nil {
		return nil, err
	}
	w, err := s.Build(m.Set)
	if err != nil {
		return nil, err
	}
	sep := make([]float64, steps)
	for k := range sep {
		st, err := w.Step()
		if err != nil {
			return nil, fmt.Errorf("chain6 %s: %w", m.Name, err)
		}
		sep[k] = 1000 * st.MaxViolation
		if ctx.Err() != nil && k+1 < steps {
			return nil, interruptedf("chain6: interrupted in mode %s at step %d; nothing written", m.Name, k+1)
		}
	}
	return sep, nil
}

func studyChain6(ctx context.Context, o studyOptions) error {
	curves := make([][]float64, len(chain6Modes))
	for i, m := range chain6Modes {
		c, err := chain6Drift(ctx, m, o.Steps)
		if err != nil {
			return err
		}
		curves[i] = c
	}
	h := 0.001
	if s, err := scenes.Lookup("chain6"); err == nil {
		if w, err := s.Build(nil); err == nil {
			h = w.Settings.H
		}
	}

	// chain6-drift.csv: step,time,<mode columns> in mm.
	header := []string{"step", "time"}
	for _, m := range chain6Modes {
		header = append(header, m.Name)
	}
	rows := make([][]string, o.Steps)
	steps := make([]float64, o.Steps)
	for k := range rows {
		r := []string{fmt.Sprint(k + 1), fmtFloat(float64(k+1) * h)}
		for i := range chain6Modes {
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
	for i, m := range chain6Modes {
		peak := 0.0
		for _, v := range curves[i] {
			peak = math.Max(peak, v)
		}
		final := curves[i][len(curves[i])-1]
		summary = append(summary, []string{m.Name, fmtFloat(peak), fmtFloat(final)})
		fmt.Fprintf(tw, "%s\t%.3g\t%.3g\t%s\n", m.Name, peak, final, m.Paper)
		curvesToPlot = append(curvesToPlot, series{Label: m.Name, X: steps, Y: curves[i]})
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
