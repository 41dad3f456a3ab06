package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
	"gonum.org/v1/plot/vg"
)

// The contact-stabilization study of Cline and Pai's post-stabilization
// paper (§VI.B, Figs. 8–10), computed by study.ContactStabilization; this
// file only writes its CSV, PNG and summary.

func init() {
	registerStudy(study{
		Name:         "contact-stabilization",
		Doc:          "penetration of a pushed box and a five-box pile per stabilization mode (post-stabilization paper, Figs. 8–10)",
		DefaultSteps: gstudy.ContactSteps,
		Run:          studyContact,
	})
}

func studyContact(ctx context.Context, o studyOptions) error {
	res, err := gstudy.ContactStabilization(ctx, o.lib())
	if err != nil {
		return studyStopped("contact-stabilization", err)
	}
	header := []string{"step", "time"}
	for _, sc := range []string{"box", "pile"} {
		for _, m := range gstudy.ContactModes {
			header = append(header, sc+"_"+m.Name+"_mm")
		}
	}
	rows := make([][]string, o.Steps)
	x := make([]float64, o.Steps)
	for k := range rows {
		r := []string{fmt.Sprint(k + 1), fmtFloat(float64(k+1) * res.H)}
		for _, runs := range [][]gstudy.ContactRun{res.Box, res.Pile} {
			for i := range runs {
				r = append(r, fmtFloat(1000*runs[i].Penetration[k]))
			}
		}
		rows[k] = r
		x[k] = float64(k + 1)
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "contact-stabilization.csv"), header, rows); err != nil {
		return err
	}

	var summary [][]string
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "contact-stabilization: %d steps of h = %g s; deepest penetration after each step\n", o.Steps, res.H)
	fmt.Fprintln(tw, "scene\tmode\tmax_mm\tmean_mm\tenergy_added_J\tprojections")
	var panels []*logPanel
	for _, sc := range []struct {
		name, title string
		runs        []gstudy.ContactRun
	}{
		{"box", "pushed box (impacts, sliding, tipping, one to four contact points)", res.Box},
		{"pile", "five-box pile (dropped, then pushed)", res.Pile},
	} {
		lp := &logPanel{Title: sc.title, XLabel: fmt.Sprintf("step (h = %g s)", res.H), YLabel: "deepest penetration (mm)"}
		for i := range sc.runs {
			r := &sc.runs[i]
			summary = append(summary, []string{sc.name, r.Mode, fmtFloat(1000 * r.MaxPenetration()),
				fmtFloat(1000 * r.MeanPenetration()), fmtFloat(r.Added), fmt.Sprint(r.Projections)})
			fmt.Fprintf(tw, "%s\t%s\t%.3g\t%.3g\t%.3g\t%d\n", sc.name, r.Mode, 1000*r.MaxPenetration(),
				1000*r.MeanPenetration(), r.Added, r.Projections)
			y := make([]float64, len(r.Penetration))
			for k, p := range r.Penetration {
				y[k] = 1000 * p
			}
			lp.Solid = append(lp.Solid, series{Label: r.Mode, X: x, Y: y})
		}
		panels = append(panels, lp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeCSVFile(filepath.Join(o.Dir, "summary.csv"),
		[]string{"scene", "mode", "max_penetration_mm", "mean_penetration_mm", "energy_added_j", "projections"}, summary); err != nil {
		return err
	}
	png, err := panelsPNG([][]*logPanel{{panels[0]}, {panels[1]}}, 10*vg.Inch, 9*vg.Inch)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(o.Dir, "contact-stabilization.png"), png)
}
